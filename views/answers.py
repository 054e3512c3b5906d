"""A global-search answer as safe markdown, its ``[Data: Reports (…)]`` citations linked to the reports they name."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from core.text import escape_markdown

_DATA_REF = re.compile(r"\[Data:\s*Reports\s*\(([^)\]]*)\)\]", re.IGNORECASE)
# Markup given back after escaping: list markers, numbered items, headings (as bold lines) and **bold**. None of
# them can carry a URL, an image or HTML, and their content stays escaped.
_ESC_BULLET = re.compile(r"^( {0,8})\\([-*+]) ", re.M)
_ESC_NUMBER = re.compile(r"^( {0,8})(\d{1,3})\\([.)]) ", re.M)
_ESC_HEADING = re.compile(r"^(?:\\#){1,6} (.+)$", re.M)
_ESC_BOLD = re.compile(r"\\\*\\\*(?=\S)(.+?)(?<=\S)\\\*\\\*")
_LIST_LINE = re.compile(r"^\s*(?:[-*+]|\d{1,3}[.)]) ")


def light_markdown(escaped: str) -> str:
    """Markdown written by :func:`escape_markdown`, with lists, headings (bold) and bold text working again."""
    out = _ESC_BULLET.sub(r"\1\2 ", escaped)
    out = _ESC_NUMBER.sub(r"\1\2\3 ", out)
    out = _ESC_HEADING.sub(r"\n**\1**\n", out)  # a block of its own, not the tail of a list item
    return _ESC_BOLD.sub(r"**\1**", out)


def _keep_line_breaks(text: str) -> str:
    """Single newlines become hard breaks, except around blank lines and before list items (lists stay lists)."""
    lines = text.split("\n")
    out = []
    for i, line in enumerate(lines):
        out.append(line)
        if i + 1 < len(lines):
            nxt = lines[i + 1]
            plain = line.strip() and nxt.strip() and not _LIST_LINE.match(nxt)
            out.append("  \n" if plain else "\n")
    return "".join(out)


def cited_answer_markdown(text: str, known: Iterable[str], link: Callable[[str], str]) -> str:
    """An answer as safe markdown whose ``[Data: Reports (e1, e5)]`` citations link each known report id.

    Everything from the answer is escaped (an LLM answer can carry what the documents said), then lists and bold
    are given back (:func:`light_markdown`); only the links are ours, and only ids of ``known`` reports become
    links (``link(id)`` gives the URL).
    """
    known = set(known)
    out: list[str] = []
    pos = 0
    for m in _DATA_REF.finditer(text):
        out.append(light_markdown(escape_markdown(text[pos : m.start()])))
        refs = []
        for raw in m.group(1).split(","):
            rid = raw.strip().strip("'\"")
            refs.append(f"[{escape_markdown(rid)}]({link(rid)})" if rid in known else escape_markdown(raw.strip()))
        out.append("\\[Data: Reports \\(" + ", ".join(refs) + "\\)\\]")
        pos = m.end()
    out.append(light_markdown(escape_markdown(text[pos:])))
    return _keep_line_breaks("".join(out))
