"""The element tree of a document as self-contained, escaped HTML (collapsible ``<details>``, no JS library).

Document text is untrusted: every piece of it goes through ``html.escape`` here, and the page shows the
result in a sandboxed iframe, never through ``unsafe_allow_html``.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Sequence

from langchain_core.documents import Document

CATEGORY_COLOURS = {
    "Title": "#1f6feb",
    "ListItem": "#1a7f37",
    "NarrativeText": "#6e7781",
    "Table": "#8250df",
    "CodeSnippet": "#bf8700",
    "Image": "#cf222e",
    "UncategorizedText": "#57606a",
}

_STYLE = """
body{font-family:-apple-system,Segoe UI,Helvetica,Arial,sans-serif;font-size:14px;margin:0;padding:4px 8px;
color:#1f2328}
details{margin-left:14px;border-left:1px solid #d0d7de;padding-left:6px}
summary{cursor:pointer;list-style-position:outside;padding:1px 0}
.leaf{margin-left:20px;padding:1px 0 1px 6px;border-left:1px solid #d0d7de}
.badge{display:inline-block;font-size:10px;font-weight:600;color:#fff;border-radius:8px;padding:0 6px;margin-right:6px}
.id{color:#8c959f;font-size:10px;margin-left:6px;font-family:monospace}
.hit{background:#fff8c5;outline:2px solid #d4a72c;border-radius:3px}
.match{background:#ddf4ff}
pre{margin:2px 0 2px 20px;background:#f6f8fa;padding:6px;overflow:auto;font-size:12px}
table{border-collapse:collapse;margin:2px 0 2px 20px;font-size:12px}td,th{border:1px solid #d0d7de;padding:2px 6px}
.title{font-weight:600}
"""


def _children_index(elements: Sequence[Document]) -> tuple[list[Document], dict[str, list[Document]]]:
    ids = {d.metadata["element_id"] for d in elements}
    roots: list[Document] = []
    children: dict[str, list[Document]] = {}
    for doc in elements:
        parent = doc.metadata.get("parent_id")
        if parent and parent in ids:
            children.setdefault(parent, []).append(doc)
        else:
            roots.append(doc)
    return roots, children


def visible_ids(elements: Sequence[Document], query: str) -> set[str] | None:
    """Ids to show for a search: the matches and their ancestors. ``None`` means show everything."""
    query = query.strip().casefold()
    if not query:
        return None
    parent_of = {d.metadata["element_id"]: d.metadata.get("parent_id") for d in elements}
    keep: set[str] = set()
    for doc in elements:
        if query in doc.page_content.casefold():
            node = doc.metadata["element_id"]
            while node and node not in keep:
                keep.add(node)
                node = parent_of.get(node)
    return keep


def render_tree_html(
    elements: Sequence[Document],
    *,
    highlight: Iterable[str] = (),
    query: str = "",
    open_depth: int = 2,
) -> str:
    """A full HTML page showing ``elements`` (one document, any order) as a collapsible tree."""
    ordered = sorted(elements, key=lambda d: d.metadata.get("order", 0))
    roots, children = _children_index(ordered)
    highlight = set(highlight)
    show = visible_ids(ordered, query)
    needle = query.strip().casefold()
    parent_of = {d.metadata["element_id"]: d.metadata.get("parent_id") for d in ordered}
    force_open: set[str] = set()
    for hit in highlight:
        node = parent_of.get(hit)
        while node:
            force_open.add(node)
            node = parent_of.get(node)

    out: list[str] = []
    # Iterative walk: documents can nest deeper than Python's recursion limit.
    stack: list[tuple[Document, int, bool]] = [(d, 0, False) for d in reversed(roots)]
    while stack:
        doc, depth, closing = stack.pop()
        if closing:
            out.append("</details>")
            continue
        element_id = doc.metadata["element_id"]
        if show is not None and element_id not in show:
            continue
        kids = [k for k in children.get(element_id, []) if show is None or k.metadata["element_id"] in show]
        body = _element_html(doc, highlight=element_id in highlight, match=bool(needle) and
                             needle in doc.page_content.casefold())
        if kids:
            is_open = depth < open_depth or show is not None or element_id in force_open
            out.append(f"<details{' open' if is_open else ''}><summary>{body}</summary>")
            stack.append((doc, depth, True))
            stack.extend((k, depth + 1, False) for k in reversed(kids))
        else:
            out.append(f'<div class="leaf">{body}</div>')
    if not out:
        out.append("<p>No element matches.</p>")
    scroll = (
        # Scroll the iframe only: scrollIntoView would also scroll the page around it, hiding its controls.
        "<script>const h=document.querySelector('.hit');"
        "if(h){window.scrollTo(0,h.getBoundingClientRect().top+window.scrollY-120);}</script>"
        if highlight
        else ""
    )
    head = f"<!doctype html><html><head><meta charset='utf-8'><style>{_STYLE}</style></head>"
    return f"{head}<body>{''.join(out)}{scroll}</body></html>"


def _element_html(doc: Document, *, highlight: bool, match: bool) -> str:
    meta = doc.metadata
    category = str(meta.get("category") or "?")
    colour = CATEGORY_COLOURS.get(category, "#57606a")
    badge = f'<span class="badge" style="background:{colour}">{html.escape(category)}</span>'
    element_id = html.escape(str(meta.get("element_id", "")))
    classes = " ".join(c for c, on in (("hit", highlight), ("match", match)) if on)
    text = doc.page_content
    if category == "CodeSnippet":
        content = f"<pre>{html.escape(text)}</pre>"
    elif category == "Table" and meta.get("text_as_html"):
        # text_as_html is built by our loader with escaped cells, but it is stored data: rebuild, don't trust.
        content = _table_html(text)
    else:
        content = f'<span class="{"title" if category == "Title" else ""}">{html.escape(_shorten(text))}</span>'
    return (
        f'<span id="e-{element_id}" class="{classes}">{badge}{content}'
        f'<span class="id">{element_id[:8]}</span></span>'
    )


def _table_html(markdown_table: str) -> str:
    rows = [line.strip().strip("|").split("|") for line in markdown_table.splitlines() if line.strip()]
    rows = [r for r in rows if not all(set(c.strip()) <= set("-: ") for c in r)]
    cells = "".join(
        "<tr>" + "".join(f"<td>{html.escape(c.strip())}</td>" for c in row) + "</tr>" for row in rows
    )
    return f"<table>{cells}</table>"


def _shorten(text: str, limit: int = 600) -> str:
    return text if len(text) <= limit else text[:limit] + " …"
