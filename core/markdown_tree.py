"""markdown-it's token stream → the element tree: headings, list items, paragraphs, tables, code, images.

Inline markup is reduced to plain text; emphasis, inline code and link texts are kept apart in the metadata
(entity extraction reads them). The walk is a single iterative pass, so no input can make it recurse.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import Any

from langchain_core.documents import Document
from markdown_it.token import Token

from core.elements import ElementBuilder, add_table
from core.html_blocks import DETAILS_TAG, html_events, html_text_parts
from core.html_tables import html_tables, strip_html_tables

# The token core.markdown_loader pushes where content nested past its cap was dropped.
TRUNCATED_TOKEN = "hke_truncated"

_TEXT_TYPES = frozenset({"text", "text_special", "code_inline", "html_inline"})


def _alt_text(image: Token) -> str:
    """Plain alt text of an image; images nested in alt text are flattened without recursion."""
    out: list[str] = []
    stack: list[Iterator[Token]] = [iter(image.children or ())]
    while stack:
        for tok in stack[-1]:
            if tok.type == "image":
                stack.append(iter(tok.children or ()))
                break
            if tok.type in _TEXT_TYPES:
                out.append(tok.content)
            elif tok.type in ("softbreak", "hardbreak"):
                out.append(" ")
        else:
            stack.pop()
    return "".join(out)


# A trailing attribute list (Python-Markdown attr_list, Pandoc, kramdown): "Notes {: #id }", "API {#api .x}".
# It styles the heading and is not part of its name; an ATX closing sequence before it ("## [1.12.0](…) - 2024-05-28
# ## {: #v1.12.0 }", as a changelog writes its release headings) closes the heading and goes with it.
_ATTRIBUTE_LIST = re.compile(r"(?:\s+#+)?\s*\{(?::[^{}]*|\s*[#.][^{}\s][^{}]*)\}\s*$")


def strip_attribute_list(heading: str) -> str:
    """``heading`` without a trailing ``{: #id .class key=value}`` attribute list (the text stays if that is all)."""
    stripped = _ATTRIBUTE_LIST.sub("", heading)
    return stripped if stripped.strip() else heading


# A MyST role right before a code span: ``{ref}`pip cache` ``, ``{pypi}`keyring` ``, ``{file}`/etc/pip.conf` ``.
_MYST_ROLE = re.compile(r"\{([a-z][a-z0-9_+.:-]*)\}$")
# Roles whose content may be "Title <target>": the title is what the rendered page shows.
_TITLED_ROLES = frozenset({"ref", "doc", "term", "numref", "download", "external", "any", "func", "class", "meth",
                           "mod", "attr", "obj", "data", "exc", "option", "envvar", "pypi", "issue", "pr", "user"})
_ROLE_TARGET = re.compile(r"^(.*\S)\s*<[^<>]+>$", re.S)


class _Inline:
    """Plain text of an inline token's children plus the marked-up spans entity extraction wants."""

    __slots__ = ("code_spans", "emphasized", "link_texts", "text")

    def __init__(self, children: Sequence[Token] | None) -> None:
        parts: list[str] = []
        emphasis_starts: list[int] = []
        link_starts: list[int] = []
        self.emphasized: list[str] = []
        self.code_spans: list[str] = []
        self.link_texts: list[str] = []
        for tok in children or ():
            kind = tok.type
            if kind == "text" or kind == "text_special":
                parts.append(tok.content)
            elif kind == "softbreak":
                # A soft break is a wrapped line, not a break in meaning (Python-Markdown + unstructured
                # also collapse it to a space).
                parts.append(" ")
            elif kind == "hardbreak":
                parts.append("\n")
            elif kind == "code_inline":
                content = tok.content
                role = _MYST_ROLE.search(parts[-1]) if parts else None
                if role:  # a MyST role ({ref}`Title <target>`): the reader sees the role's text, not its markup
                    parts[-1] = parts[-1][: role.start()]
                    content = _ROLE_TARGET.sub(r"\1", content) if role.group(1) in _TITLED_ROLES else content
                parts.append(content)
                self.code_spans.append(content)
            elif kind == "html_inline":
                parts.append(tok.content)  # kept verbatim, never interpreted
            elif kind == "image":
                parts.append(_alt_text(tok))
            elif kind == "em_open" or kind == "strong_open":
                emphasis_starts.append(len(parts))
            elif kind == "em_close" or kind == "strong_close":
                if emphasis_starts:
                    self.emphasized.append("".join(parts[emphasis_starts.pop() :]).strip())
            elif kind == "link_open":
                link_starts.append(len(parts))
            elif kind == "link_close":
                if link_starts:
                    self.link_texts.append("".join(parts[link_starts.pop() :]).strip())
            elif tok.content:  # a token type from a future rule: keep its text rather than lose it
                parts.append(tok.content)
        self.text = "".join(parts).strip()


def _image_only(children: Sequence[Token] | None) -> list[Token] | None:
    """The images of a paragraph made only of images (and whitespace), else None."""
    images: list[Token] = []
    for tok in children or ():
        if tok.type == "image":
            images.append(tok)
        elif tok.type in ("softbreak", "hardbreak") or (tok.type == "text" and not tok.content.strip()):
            continue
        else:
            return None
    return images or None


# --------------------------------------------------------------------------------------------------
# Token stream → element tree
# --------------------------------------------------------------------------------------------------


class _Frame:
    """An open container: a list, a list item or a blockquote."""

    __slots__ = ("element_id", "kind", "level", "started")

    def __init__(self, kind: str, level: int = 0) -> None:
        self.kind = kind  # "list" | "item" | "quote"
        self.level = level  # list nesting level of an item (0 = top-level list)
        self.element_id: str | None = None  # the item's ListItem element, once its first paragraph is seen
        self.started = False  # has the item had a direct child block yet?


class _TreeBuilder:
    def __init__(self, document_id: str, source: str) -> None:
        self._elements = ElementBuilder(document_id, source)
        self.documents = self._elements.documents
        self._titles: list[tuple[int, str]] = []  # open headings: (level, element_id), outermost first
        self._frames: list[_Frame] = []
        self._list_depth = 0
        self._by_id: dict[str, Document] = {}
        self._truncation_pending = False  # content was dropped before any element existed to flag
        self._details: list[int] = []  # open <details>: len(self._titles) when each opened, outermost first
        self._details_pending = False  # a <details> opened and its <summary> not yet seen

    # -- emitting ----------------------------------------------------------------------------------

    def _emit(
        self,
        category: str,
        text: str,
        parent_id: str | None,
        depth: int,
        line_map: list[int] | None,
        inline: _Inline | None = None,
        extra: dict[str, Any] | None = None,
    ) -> str | None:
        if not text.strip():
            return None
        extra = dict(extra or {})
        if self._truncation_pending:
            extra["truncated_nesting"] = True
            self._truncation_pending = False
        if inline is not None:
            # dict.fromkeys: de-duplicate but keep first-seen order, so output is deterministic.
            for name, values in (
                ("emphasized", inline.emphasized),
                ("code_spans", inline.code_spans),
                ("link_texts", inline.link_texts),
            ):
                kept = [v for v in dict.fromkeys(values) if v]
                if kept:
                    extra[name] = kept
        document = self._elements.add(
            category, text, parent_id, depth, start_line=line_map[0] + 1 if line_map else None,
            end_line=line_map[1] if line_map else None, extra=extra,
        )  # fmt: skip
        assert document is not None  # text is not blank
        self._by_id[document.metadata["element_id"]] = document
        return document.metadata["element_id"]

    # -- where things attach -------------------------------------------------------------------------

    def _block_parent(self) -> str | None:
        """Nearest enclosing list item that has an element, else the current heading."""
        for frame in reversed(self._frames):
            if frame.element_id is not None:
                return frame.element_id
        return self._titles[-1][1] if self._titles else None

    def _direct_item(self) -> _Frame | None:
        """The list item this block is a direct child of (not through a blockquote), if any."""
        if self._frames and self._frames[-1].kind == "item":
            return self._frames[-1]
        return None

    def _mark_started(self) -> None:
        item = self._direct_item()
        if item is not None:
            item.started = True

    # -- the walk ----------------------------------------------------------------------------------

    def build(self, tokens: list[Token]) -> list[Document]:
        self._sections = _details_sections(tokens)
        i = 0
        n = len(tokens)
        while i < n:
            tok = tokens[i]
            kind = tok.type
            if kind == "heading_open":
                self._heading(tok, tokens[i + 1])
                i += 3
                continue
            if kind == "paragraph_open":
                self._paragraph(tok, tokens[i + 1])
                i += 3
                continue
            if kind == "bullet_list_open" or kind == "ordered_list_open":
                self._mark_started()
                self._frames.append(_Frame("list"))
                self._list_depth += 1
            elif kind == "list_item_open":
                self._frames.append(_Frame("item", self._list_depth - 1))
            elif kind == "blockquote_open":
                self._mark_started()
                self._frames.append(_Frame("quote"))
            elif kind == "bullet_list_close" or kind == "ordered_list_close":
                self._frames.pop()
                self._list_depth -= 1
            elif kind == "list_item_close" or kind == "blockquote_close":
                self._frames.pop()
            elif kind == "fence" or kind == "code_block":
                language = tok.info.split(maxsplit=1)[0] if tok.info.strip() else ""
                self._emit(
                    "CodeSnippet", tok.content.rstrip("\n"), self._block_parent(), 0, tok.map,
                    extra={"language": language},
                )  # fmt: skip
                self._mark_started()
            elif kind == "html_block":
                self._html_block(tok, i)
                self._mark_started()
            elif kind == "table_open":
                i = self._table(tokens, i)
                self._mark_started()
            elif kind == "hr":
                self._mark_started()  # a thematic break is structure, not content: no element
            elif kind == TRUNCATED_TOKEN:
                self._truncated()
            # front_matter is metadata (see parse_front_matter); close tokens of paragraphs/headings are
            # skipped above; anything else carries no text of its own.
            i += 1
        return self.documents

    def _truncated(self) -> None:
        """Flag the element that content nested past ``MAX_NESTING`` was dropped from (its would-be parent).

        At the document root there is no such element, so the nearest one before it is flagged instead, or
        the first one after it when nothing precedes it.
        """
        target = self._block_parent()
        if target is None and self.documents:
            target = self.documents[-1].metadata["element_id"]
        if target is None:
            self._truncation_pending = True
        else:
            self._by_id[target].metadata["truncated_nesting"] = True

    def _heading(self, open_tok: Token, inline_tok: Token) -> None:
        level = int(open_tok.tag[1])
        inline = _Inline(inline_tok.children)
        inline.text = strip_attribute_list(inline.text)
        if self._frames:
            # A heading inside a list item or blockquote is part of that container, not a new section
            # of the document, so it must not rewrite the heading stack for what follows the container.
            self._emit("Title", inline.text, self._block_parent(), level - 1, open_tok.map, inline)
            self._mark_started()
            return
        while self._titles and self._titles[-1][0] >= level:
            self._titles.pop()
        parent_id = self._titles[-1][1] if self._titles else None
        element_id = self._emit("Title", inline.text, parent_id, level - 1, open_tok.map, inline)
        # An empty heading still closes the sections at its level (popped above), but pushing it would
        # give the following content an ancestor that does not exist.
        if element_id is not None:
            self._titles.append((level, element_id))

    def _paragraph(self, open_tok: Token, inline_tok: Token) -> None:
        item = self._direct_item()
        if item is not None and not item.started:
            # A list item's own text is its first paragraph; its parent is the enclosing item (for a
            # nested list) or the current heading (for a top-level list).
            item.started = True
            inline = _Inline(inline_tok.children)
            item.element_id = self._emit(
                "ListItem", inline.text, self._block_parent(), item.level, open_tok.map, inline
            )
            return
        parent_id = self._block_parent()
        images = _image_only(inline_tok.children)
        if images is not None:
            for image in images:
                self._emit(
                    "Image", _alt_text(image).strip(), parent_id, 0, open_tok.map,
                    extra={"image_url": image.attrGet("src") or ""},
                )  # fmt: skip
        else:
            inline = _Inline(inline_tok.children)
            self._emit("NarrativeText", inline.text, parent_id, 0, open_tok.map, inline)
        self._mark_started()

    def _table(self, tokens: list[Token], start: int) -> int:
        """Emit a Table element and its TableRow children for tokens[start] (table_open); return the index of
        table_close."""
        table_open = tokens[start]
        header: list[str] = []
        rows: list[list[str]] = []
        row_lines: list[tuple[int | None, int | None]] = []
        current: list[str] | None = None
        in_head = False
        emphasized: list[str] = []
        code_spans: list[str] = []
        link_texts: list[str] = []
        i = start + 1
        while i < len(tokens) and tokens[i].type != "table_close":
            tok = tokens[i]
            if tok.type == "thead_open":
                in_head = True
            elif tok.type == "thead_close":
                in_head = False
            elif tok.type == "tr_open":
                current = header if in_head else []
                if not in_head:
                    rows.append(current)
                    row_lines.append((tok.map[0] + 1, tok.map[1]) if tok.map else (None, None))
            elif tok.type == "inline" and current is not None:
                cell = _Inline(tok.children)
                current.append(cell.text)
                emphasized += cell.emphasized
                code_spans += cell.code_spans
                link_texts += cell.link_texts
            i += 1
        extra: dict[str, Any] = {}
        if self._truncation_pending:
            extra["truncated_nesting"] = True
            self._truncation_pending = False
        for name, values in (("emphasized", emphasized), ("code_spans", code_spans), ("link_texts", link_texts)):
            kept = [v for v in dict.fromkeys(values) if v]
            if kept:
                extra[name] = kept
        line_map = table_open.map
        table = add_table(
            self._elements, header, rows, self._block_parent(), 0,
            start_line=line_map[0] + 1 if line_map else None, end_line=line_map[1] if line_map else None,
            row_lines=row_lines, extra=extra,
        )  # fmt: skip
        if table is not None:
            self._by_id[table.metadata["element_id"]] = table
        return i

    def _html_block(self, tok: Token, index: int) -> None:
        """Raw HTML kept verbatim, except its ``<table>``s: each becomes a Table element with its rows; a
        ``<details>`` that folds a table, or holds its whole content in this one block, is read as a section
        (:meth:`_details_block`)."""
        raw = tok.content.rstrip("\n")
        if index in self._sections:
            self._details_block(tok, raw)
            return
        if self._details and DETAILS_TAG.search(raw):  # the close of a section opened before
            for event in html_events(raw):
                if event.kind == "close" and self._details:
                    del self._titles[self._details.pop():]
        parent = self._block_parent()
        tables = html_tables(raw) if "<table" in raw.lower() else []
        if not tables:
            self._emit("UncategorizedText", raw, parent, 0, tok.map)
            return
        rest = strip_html_tables(raw)
        if re.sub(r"<[^>]*>", "", rest).strip():  # text around the tables (a <summary>) stays as raw HTML
            self._emit("UncategorizedText", rest.strip(), parent, 0, tok.map)
        self._html_tables(tok, tables, parent)

    def _html_tables(self, tok: Token, tables: list[tuple[list[str], list[list[str]]]], parent: str | None) -> None:
        start, end = (tok.map[0] + 1, tok.map[1]) if tok.map else (None, None)
        for header, rows in tables:
            table = add_table(self._elements, header, rows, parent, 0, start_line=start, end_line=end,
                              extra={"source_format": "html"})
            if table is not None:
                self._by_id[table.metadata["element_id"]] = table

    def _details_block(self, tok: Token, raw: str) -> None:
        """A ``<details>`` section: its ``<summary>`` a Title one level below the open heading, whose children are
        what follows up to ``</details>`` (tables as rows, ``<li>`` as list items, other HTML as its text). Inside a
        list item or blockquote the summary is that container's text, as a heading there is."""
        for event in html_events(raw):
            if event.kind == "open":
                self._details.append(len(self._titles))
                self._details_pending = True
            elif event.kind == "close":
                if self._details:
                    del self._titles[self._details.pop():]
                self._details_pending = False
            elif event.kind == "summary":
                opened, self._details_pending = self._details_pending, False
                if not opened or self._frames:
                    self._emit("NarrativeText", event.text, self._block_parent(), 0, tok.map)
                    continue
                level = (self._titles[-1][0] if self._titles else 0) + 1
                element_id = self._emit("Title", event.text, self._block_parent(), level - 1, tok.map)
                if element_id is not None:
                    self._titles.append((level, element_id))
            else:
                self._html_content(tok, event.text)

    def _html_content(self, tok: Token, fragment: str) -> None:
        parent = self._block_parent()
        tables = html_tables(fragment) if "<table" in fragment.lower() else []
        texts, items = html_text_parts(strip_html_tables(fragment) if tables else fragment)
        for text in texts:
            self._emit("NarrativeText", text, parent, 0, tok.map)
        for item in items:
            self._emit("ListItem", item, parent, 0, tok.map)
        self._html_tables(tok, tables, parent)


def _details_sections(tokens: list[Token]) -> frozenset[int]:
    """The indexes of the HTML blocks read as ``<details>`` sections: those whose ``<details>`` folds a table (its
    summary names the table, as a caption does: the rows are found and cited under it) or holds its whole content
    in the block (``<details><summary>…</summary><ul><li>…</li></ul></details>``), and the blocks closing them. A
    summary over markdown prose stays raw HTML, as before: measured on the Korean report corpus, making those
    sections cost recall (docs/korean-reader3.md)."""
    chosen: set[int] = set()
    open_at: list[int] = []  # the block index of each open <details>, outermost first
    for index, tok in enumerate(tokens):
        if tok.type == "table_open":
            chosen.update(open_at)
        if tok.type != "html_block" or not DETAILS_TAG.search(tok.content):
            if tok.type == "html_block" and "<table" in tok.content.lower():
                chosen.update(open_at)
            continue
        opened_here = 0
        for event in html_events(tok.content):
            if event.kind == "open":
                open_at.append(index)
                opened_here += 1
            elif event.kind == "close":
                if open_at:
                    started = open_at.pop()
                    if started in chosen or (started == index and opened_here):
                        chosen.update((started, index))
                    opened_here = max(0, opened_here - 1) if started == index else opened_here
            elif event.kind == "content" and "<table" in event.text.lower():
                chosen.update(open_at)
    return frozenset(chosen)


def build_elements(tokens: list[Token], *, document_id: str, source: str) -> list[Document]:
    """The elements of a markdown-it token stream, in order; see :func:`core.markdown_loader.parse_markdown`."""
    return _TreeBuilder(document_id, source).build(tokens)
