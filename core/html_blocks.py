"""The text of a raw HTML block in markdown that is not a table: ``<details>`` / ``<summary>`` and what they hold.

A ``<details>`` block is a collapsed section: its ``<summary>`` names what is inside, the way a heading does, so the
tree makes the summary a Title and what follows it, up to ``</details>``, its content. markdown-it hands such a block
over in pieces (the opening line, the markdown inside, the closing line), or whole when no blank line breaks it; the
events below are read in order, so both come out the same.

Only text is read: tags are dropped, ``<script>``/``<style>`` content with them, attributes are never read, and an
escaped ``&lt;script&gt;`` stays the literal text it displays.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from core.html_tables import element_text

__all__ = ["DETAILS_TAG", "HtmlEvent", "html_events", "html_text_parts"]

# a block holding any of these is read by html_events (others stay raw HTML)
DETAILS_TAG = re.compile(r"<(?:/?details|summary)\b", re.I)
_EVENT = re.compile(r"<details\b[^>]*>|</details\s*>|<summary\b[^>]*>(?P<summary>.*?)</summary\s*>", re.I | re.S)


@dataclass(frozen=True)
class HtmlEvent:
    """One step of a block: ``open`` / ``close`` a details section, its ``summary`` (``text``: the plain summary),
    or ``content`` (``text``: the raw HTML between two tags, tables and lists still in it)."""

    kind: str
    text: str


def html_events(raw: str) -> Iterator[HtmlEvent]:
    """The details, summary and content events of ``raw`` in document order (blank content is skipped)."""
    pos = 0
    for match in _EVENT.finditer(raw):
        if raw[pos:match.start()].strip():
            yield HtmlEvent("content", raw[pos:match.start()])
        tag = match.group(0)
        if match.group("summary") is not None:
            yield HtmlEvent("summary", plain_text(match.group("summary")))
        elif tag.startswith("</"):
            yield HtmlEvent("close", "")
        else:
            yield HtmlEvent("open", "")
        pos = match.end()
    if raw[pos:].strip():
        yield HtmlEvent("content", raw[pos:])


def plain_text(fragment: str) -> str:
    """The text ``fragment`` displays, whitespace collapsed ("" when nothing parses)."""
    root = _parse(fragment)
    return "" if root is None else element_text(root)


def html_text_parts(fragment: str) -> tuple[list[str], list[str]]:
    """``(texts, items)`` of a fragment without tables: each ``<li>`` (the outermost ones) an item, the text outside
    the lists one text."""
    root = _parse(fragment)
    if root is None:
        return [], []
    items = []
    for li in list(root.iter("li")):
        if any(a.tag == "li" for a in li.iterancestors()):
            continue
        text = element_text(li)
        if text:
            items.append(text)
    for li in list(root.iter("li")):
        parent = li.getparent()
        if parent is not None and not any(a.tag == "li" for a in li.iterancestors()):
            _drop(li)
    rest = element_text(root)
    return ([rest] if rest else []), items


def _parse(fragment: str):  # type: ignore[no-untyped-def]
    from lxml import etree
    from lxml import html as lxml_html

    if not fragment.strip():
        return None
    try:
        return lxml_html.fragment_fromstring(fragment, create_parent="div")
    except (etree.ParserError, ValueError):
        return None


def _drop(node) -> None:  # type: ignore[no-untyped-def]
    """Remove ``node`` and its content, keeping the text that follows it."""
    parent = node.getparent()
    tail = node.tail or ""
    previous = node.getprevious()
    if previous is not None:
        previous.tail = (previous.tail or "") + " " + tail
    else:
        parent.text = (parent.text or "") + " " + tail
    parent.remove(node)
