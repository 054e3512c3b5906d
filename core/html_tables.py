"""The ``<table>``s of a raw HTML block in markdown (a spec table inside ``<details>``): header and rows as text.

Only cell *text* is read: tags are dropped, ``<script>``/``<style>`` content with them, attributes are never read,
and an escaped ``&lt;script&gt;`` stays the literal text it displays. A cell spanning columns or rows
(``colspan``/``rowspan``) is repeated in every column and row it covers, so each row keeps a cell for each column.
A table nested in a cell is that cell's text. The header is the ``<thead>`` row, else a first row made only of
``<th>``; without one the header is empty and each row reads as its cells alone.
"""

from __future__ import annotations

import re

__all__ = ["html_tables", "strip_html_tables"]

_TABLE_TAG = re.compile(r"<(/?)table\b[^>]*>", re.I)
_DROPPED = ("script", "style", "noscript", "template")
# More spanned rows or columns than this are clamped: a hostile rowspan="100000" must not multiply one cell.
MAX_SPAN = 1000


def _spans(raw: str) -> list[tuple[int, int]]:
    """(start, end) of each top-level ``<table>…</table>`` in ``raw`` (an unclosed one runs to the end)."""
    out: list[tuple[int, int]] = []
    depth, start = 0, 0
    for match in _TABLE_TAG.finditer(raw):
        if not match.group(1):
            if depth == 0:
                start = match.start()
            depth += 1
        elif depth:
            depth -= 1
            if depth == 0:
                out.append((start, match.end()))
    if depth:
        out.append((start, len(raw)))
    return out


def strip_html_tables(raw: str) -> str:
    """``raw`` without its top-level tables."""
    kept, last = [], 0
    for start, end in _spans(raw):
        kept.append(raw[last:start])
        last = end
    kept.append(raw[last:])
    return "".join(kept)


def element_text(root) -> str:  # type: ignore[no-untyped-def]
    """The text ``root`` shows: its own and its descendants' text and tails, spaces collapsed; a comment, a script,
    a style or a template shows nothing."""
    parts: list[str] = []
    for node in root.iter():
        if node.text and isinstance(node.tag, str) and not _inside_dropped(node, root):
            parts.append(node.text)
        if node is not root and node.tail and not _inside_dropped(node.getparent(), root):
            parts.append(node.tail)
    return " ".join(" ".join(parts).split())


def _inside_dropped(node, root) -> bool:  # type: ignore[no-untyped-def]
    while node is not None:
        if isinstance(node.tag, str) and node.tag.lower() in _DROPPED:
            return True
        if node is root:
            return False
        node = node.getparent()
    return False


def _span(cell, name: str) -> int:  # type: ignore[no-untyped-def]
    try:
        return min(max(int(cell.get(name, "1")), 1), MAX_SPAN)
    except ValueError:
        return 1


def _rows(table) -> tuple[list[str], list[list[str]]]:  # type: ignore[no-untyped-def]
    trs = table.xpath("./tr | ./thead/tr | ./tbody/tr | ./tfoot/tr")
    grid: list[list[str]] = []
    carried: dict[int, tuple[str, int]] = {}  # column → (text, rows left) of a rowspan from above
    head_rows = 0
    for index, tr in enumerate(trs):
        row: list[str] = []
        cells = tr.xpath("./th | ./td")
        column = 0
        for cell in cells:
            while column in carried:
                text, left = carried.pop(column)
                row.append(text)
                if left > 1:
                    carried[column] = (text, left - 1)
                column += 1
            text = element_text(cell)
            down = _span(cell, "rowspan")
            for _ in range(_span(cell, "colspan")):
                row.append(text)
                if down > 1:
                    carried[column] = (text, down - 1)
                column += 1
        while column in carried:
            text, left = carried.pop(column)
            row.append(text)
            if left > 1:
                carried[column] = (text, left - 1)
            column += 1
        in_head = tr.getparent() is not None and tr.getparent().tag == "thead"
        all_th = bool(cells) and all(c.tag == "th" for c in cells)
        if index == head_rows and (in_head or (index == 0 and all_th)):
            head_rows += 1
        grid.append(row)
    if head_rows:
        # several header rows (a merged group header above its columns): each column named by all of them
        names = [" ".join(dict.fromkeys(r[i] for r in grid[:head_rows] if i < len(r) and r[i]))
                 for i in range(max(len(r) for r in grid[:head_rows]))]
        return names, [r for r in grid[head_rows:] if any(r)]
    return [], [r for r in grid if any(r)]


def html_tables(raw: str) -> list[tuple[list[str], list[list[str]]]]:
    """``(header, rows)`` of each top-level table in ``raw``, in order (``[]`` when nothing parses)."""
    from lxml import etree
    from lxml import html as lxml_html

    out = []
    for start, end in _spans(raw):
        try:
            root = lxml_html.fragment_fromstring(raw[start:end], create_parent="div")
        except (etree.ParserError, ValueError):
            continue
        table = root.find(".//table")
        if table is None:
            continue
        header, rows = _rows(table)
        if any(header) or rows:
            out.append((header, rows))
    return out
