"""The Document tree's "Source" view: one version of a document rendered as markdown, the selected element's place
marked, and the file itself as the CLI's ``show`` gives it.

The rendering is rebuilt from the version's elements, never from the file's own markup: every text is escaped
(``escape_markdown``; code in fences longer than any backtick run it holds), so a document's HTML, links and
images show as text and nothing is fetched from another host. The file is shown as code.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import streamlit as st

from core.elements import Element
from core.text import clip, escape_markdown

MAX_RENDERED = 3_000  # elements rendered; a longer document says where it was cut
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{3,}")


@dataclass(frozen=True)
class SourceParts:
    """The markdown before the selected element, the element's own, and after it (``marked`` empty: none)."""

    before: str
    marked: str
    after: str
    lines: tuple[int, int] | None = None  # the selected element's lines in the file


def _fence(code: str, language: str) -> str:
    ticks = "`" * max(3, max((len(run) for run in re.findall(r"`+", code)), default=0) + 1)
    return f"{ticks}{re.sub(r'[^A-Za-z0-9_+-]', '', language)}\n{code}\n{ticks}"


def _cell(text: str) -> str:
    return escape_markdown(" ".join(str(text).split())).replace("|", "\\|")


def _table(element: Element, rows: Sequence[Element]) -> str:
    header = [c.strip() for c in element.text.strip().splitlines()[0].strip().strip("|").split("|")]
    lines = ["| " + " | ".join(_cell(h) for h in header) + " |", "|" + " --- |" * len(header)]
    for row in rows:
        cells = row.get("cells")
        if isinstance(cells, list):
            lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    if not rows:  # a table stored whole: its body rows are in its text
        lines += ["| " + " | ".join(_cell(c.strip()) for c in line.strip().strip("|").split("|")) + " |"
                  for line in element.text.strip().splitlines()[1:] if line.strip() and not _TABLE_RULE.match(line)]
    return "\n".join(lines)


def element_markdown(element: Element, depth: int, rows: Sequence[Element] = ()) -> str:
    """One element as escaped markdown: a heading at its level, a list item at its nesting ``depth``, a code
    block fenced, a table rebuilt from its rows' cells."""
    category = element.category
    if category == "Title":
        return "#" * min(6, element.category_depth + 2) + " " + escape_markdown(" ".join(element.text.split()))
    if category == "CodeSnippet":
        return _fence(element.text, str(element.get("language") or ""))
    if category == "Table":
        return _table(element, rows)
    text = escape_markdown(element.text).replace("\n", "  \n")
    if category == "ListItem":
        indent = "    " * depth
        return indent + "- " + text.replace("\n", "\n" + indent + "  ")
    return text


def source_parts(elements: Sequence[Element], selected: str | None) -> SourceParts:
    """The version's elements, in document order, as escaped markdown split around ``selected``."""
    ordered = sorted(elements, key=lambda e: e.order)
    by_id = {e.element_id: e for e in ordered}
    rows: dict[str, list[Element]] = {}
    for e in ordered:
        if e.category == "TableRow" and e.parent_id:
            rows.setdefault(e.parent_id, []).append(e)
    # A table row is shown inside its table: selecting it marks the table.
    target = selected
    if target in by_id and by_id[target].category == "TableRow":
        target = by_id[target].parent_id
    blocks: tuple[list[str], list[str], list[str]] = ([], [], [])
    part = 0
    lines = None
    shown = [e for e in ordered if e.category != "TableRow"]
    for n, element in enumerate(shown):
        if n == MAX_RENDERED:
            blocks[min(part, 2)].append(f"*… {len(shown) - MAX_RENDERED} more elements: the file below has them "
                                        "all.*")
            break
        depth, parent = 0, by_id.get(element.parent_id or "")
        while element.category == "ListItem" and parent is not None and parent.category == "ListItem":
            depth, parent = depth + 1, by_id.get(parent.parent_id or "")
        markdown = element_markdown(element, depth, rows.get(element.element_id, ()))
        if element.element_id == target:
            part = 1
            start, end = element.start_line, element.end_line
            lines = (start, end or start) if start is not None else None
        if part and not blocks[part]:  # each part is its own markdown: a first indented item would read as code
            markdown = markdown.lstrip(" ")
        blocks[part].append(markdown)
        if part == 1:
            part = 2
    return SourceParts("\n\n".join(blocks[0]), "\n\n".join(blocks[1]), "\n\n".join(blocks[2]), lines)


def show_source(elements: Sequence[Element], selected: str | None, file_text: str | None, title: str) -> None:
    """The Source view: the rendered version with the selected element in a marked box, then the file as code."""
    parts = source_parts(elements, selected)
    where = f" (lines {parts.lines[0]}–{parts.lines[1]} of the file)" if parts.lines else ""
    if parts.marked:
        st.caption(f"The selected element is marked below{where}.")
    with st.container(border=True, height=650):
        if parts.before:
            st.markdown(parts.before)
        if parts.marked:
            st.markdown(":orange-badge[:material/my_location: selected element]")
            with st.container(border=True, key="source_selected"):
                st.markdown(parts.marked)
        if parts.after:
            st.markdown(parts.after)
    if file_text is not None:
        with st.expander(f"The file as ingested: {clip(title, 80)}"):
            st.code(file_text, language="markdown", line_numbers=True)


def element_label(element: Element) -> str:
    """How the element picker names an element: its heading path and the start of its text (plain text: a
    widget's option label is not markdown)."""
    path = " › ".join(element.heading_path)
    text = clip(" ".join(element.text.split()), 80)
    return f"{element.category} · {path + ' › ' if path else ''}{text}"
