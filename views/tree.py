"""The element tree of a document as a self-contained HTML page (collapsible ``<details>``, no JS library).

The walk is Python (iterative: documents nest deeper than the recursion limit) and gives a flat list of steps; the
HTML is ``views/templates/tree.html``, rendered with autoescape on. Document text is untrusted: it reaches the page
only through Jinja's escaping, and the page shows it in a sandboxed iframe, never through ``unsafe_allow_html``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import jinja2

from core.elements import Element
from core.versions import Change

CATEGORY_COLOURS = {
    "Title": "#1f6feb",
    "ListItem": "#1a7f37",
    "NarrativeText": "#6e7781",
    "Table": "#8250df",
    "TableRow": "#a475f9",
    "CodeSnippet": "#bf8700",
    "Image": "#cf222e",
    "UncategorizedText": "#57606a",
}
OTHER_COLOUR = "#57606a"
SHORTEN_AT = 600

_ENV = jinja2.Environment(
    loader=jinja2.FileSystemLoader(Path(__file__).resolve().parent / "templates"),
    autoescape=True,
    trim_blocks=True,
    lstrip_blocks=True,
)


@dataclass
class TreeItem:
    """One element as the page shows it: its badge, its content (text, code or table cells) and its marks."""

    element_id: str
    category: str
    colour: str
    text: str = ""
    code: str | None = None
    table: list[list[str]] | None = None
    hit: bool = False
    match: bool = False
    change: str | None = None  # what happened to it since the version before (History view)
    words: tuple[tuple[str, str], ...] = ()  # its word diff, for edited text
    old_path: str = ""  # where a moved element stood
    before: str | None = None  # an edited code block's or table's text before (they get no word diff)


@dataclass
class Step:
    """``open`` a branch (``element`` is its summary), a ``leaf``, or ``close`` the innermost open branch."""

    kind: str
    element: TreeItem | None = None
    is_open: bool = False


def _children_index(elements: Sequence[Element]) -> tuple[list[Element], dict[str, list[Element]]]:
    ids = {d.element_id for d in elements}
    roots: list[Element] = []
    children: dict[str, list[Element]] = {}
    for doc in elements:
        parent = doc.parent_id
        if parent and parent in ids:
            children.setdefault(parent, []).append(doc)
        else:
            roots.append(doc)
    return roots, children


def _with_ancestors(ids: Iterable[str], parent_of: Mapping[str, str | None]) -> set[str]:
    keep: set[str] = set()
    for start in ids:
        node: str | None = start
        while node and node not in keep:
            keep.add(node)
            node = parent_of.get(node)
    return keep


def visible_ids(elements: Sequence[Element], query: str) -> set[str] | None:
    """Ids to show for a search: the matches and their ancestors. ``None`` means show everything."""
    query = query.strip().casefold()
    if not query:
        return None
    parent_of = {d.element_id: d.parent_id for d in elements}
    return _with_ancestors((d.element_id for d in elements if query in d.text.casefold()), parent_of)


def tree_steps(
    elements: Sequence[Element], *, highlight: Iterable[str] = (), query: str = "", open_depth: int = 2,
    changes: Mapping[str, Change] | None = None, only_changes: bool = False,
) -> list[Step]:
    """The walk of the tree in document order: branches open to ``open_depth`` (all of them while searching, and
    every ancestor of a highlighted or changed element), only matches and their ancestors while searching.

    ``changes`` marks elements by id (the History view); ``only_changes`` shows the changed ones and their
    ancestors only."""
    ordered = sorted(elements, key=lambda d: d.order)
    roots, children = _children_index(ordered)
    highlight = set(highlight)
    changes = changes or {}
    show = visible_ids(ordered, query)
    needle = query.strip().casefold()
    parent_of = {d.element_id: d.parent_id for d in ordered}
    if only_changes:
        show = _with_ancestors(changes, parent_of)
    force_open = _with_ancestors([p for h in (*highlight, *changes) if (p := parent_of.get(h))], parent_of)

    steps: list[Step] = []
    stack: list[tuple[Element, int, bool]] = [(d, 0, False) for d in reversed(roots)]
    while stack:
        doc, depth, closing = stack.pop()
        if closing:
            steps.append(Step("close"))
            continue
        element_id = doc.element_id
        if show is not None and element_id not in show:
            continue
        kids = [k for k in children.get(element_id, []) if show is None or k.element_id in show]
        element = _item(doc, hit=element_id in highlight, match=bool(needle) and needle in doc.text.casefold(),
                        change=changes.get(element_id))
        if kids:
            is_open = depth < open_depth or show is not None or element_id in force_open
            steps.append(Step("open", element, is_open))
            stack.append((doc, depth, True))
            stack.extend((k, depth + 1, False) for k in reversed(kids))
        else:
            steps.append(Step("leaf", element))
    return steps


def render_tree_html(
    elements: Sequence[Element], *, highlight: Iterable[str] = (), query: str = "", open_depth: int = 2,
    changes: Mapping[str, Change] | None = None, only_changes: bool = False,
) -> str:
    """A full HTML page showing ``elements`` (one document, any order) as a collapsible tree, ``changes`` marked."""
    highlight = list(highlight)
    steps = tree_steps(elements, highlight=highlight, query=query, open_depth=open_depth, changes=changes,
                       only_changes=only_changes)
    return _ENV.get_template("tree.html").render(steps=steps, scroll_to_hit=bool(highlight))


def _item(doc: Element, *, hit: bool, match: bool, change: Change | None = None) -> TreeItem:
    category = doc.category or "?"
    out = TreeItem(element_id=doc.element_id, category=category, colour=CATEGORY_COLOURS.get(category, OTHER_COLOUR),
                   hit=hit, match=match)
    if change is not None:
        out.change = change.op
        out.old_path = " › ".join(change.old_path) if change.old_path is not None else ""
        if category not in ("CodeSnippet", "Table"):
            out.words = change.words
        elif change.op == "modified":
            out.before = change.before
    text = doc.text
    if category == "CodeSnippet":
        out.code = text
    elif category == "Table" and doc.get("text_as_html"):
        # Stored text_as_html is data, not markup we trust: the table is rebuilt from the markdown text.
        out.table = _table_cells(text)
    else:
        out.text = text if len(text) <= SHORTEN_AT else text[:SHORTEN_AT] + " …"
    return out


def _table_cells(markdown_table: str) -> list[list[str]]:
    rows = [line.strip().strip("|").split("|") for line in markdown_table.splitlines() if line.strip()]
    return [[c.strip() for c in r] for r in rows if not all(set(c.strip()) <= set("-: ") for c in r)]
