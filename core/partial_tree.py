"""Partial trees: hits plus their ancestors merged into per-document trees, rendered as markdown.

A vector hit such as ``* 무게 : 2.6 kg`` says nothing about which product it belongs to; its root-to-leaf path
(``# LG 24MR400 > ## 제품사양 > ### 크기 & 무게``) does. :func:`merge_trees` turns the hits and their ancestors
(fetched in one round trip by ``ElementStore.ancestors``) into trees where

* shared ancestors appear once,
* siblings keep document order (``Element.order``),
* a hit that is an ancestor of another hit is one node, not two,
* several documents give several trees, ordered by their best hit.

:func:`render_markdown` writes the trees as markdown for the model (``escape=False``) or for the UI
(``escape=True``: document text can never become a link, an image, HTML or a Streamlit directive).
Hits are marked so that both a model and a person see which lines matched: a line ends with
``◀ [e:1a2b3c4d]``, or a block (table, code) is introduced by a ``▼ [e:1a2b3c4d]`` line. The short id is the
element id's prefix, unique within the context; :func:`cited_element_ids` maps it back to the full id.

Everything here is pure: no database, no Streamlit.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from core.elements import Element
from core.text import escape_markdown

__all__ = [
    "CITATION_RE",
    "PartialTree",
    "TreeNode",
    "escape_markdown",
    "merge_trees",
    "render_markdown",
    "render_plain",
    "cited_element_ids",
    "short_ids",
]

Role = Literal["hit", "ancestor", "child"]

SHORT_ID_LEN = 8
HIT_MARK = "◀"
BLOCK_MARK = "▼"
# What a model writes when it cites: "[e:1a2b3c4d]" (also tolerated: several ids in one bracket, upper case).
CITATION_RE = re.compile(r"\be:([0-9a-fA-F]{6,32})\b")
_BLOCK_CATEGORIES = frozenset({"Table", "CodeSnippet", "UncategorizedText"})
# Every ASCII punctuation character may be backslash-escaped in CommonMark; escaping all of them turns links,
# images, emphasis, HTML, headings, Streamlit's :directives: and $math$ into literal text.


@dataclass
class TreeNode:
    """One element in a partial tree. ``path`` is the heading texts above it *within the tree*."""

    element: Element
    role: Role
    hit_rank: int | None = None
    children: list[TreeNode] = field(default_factory=list)
    path: tuple[str, ...] = ()

    @property
    def element_id(self) -> str:
        return self.element.element_id

    @property
    def category(self) -> str:
        return self.element.category or "UncategorizedText"

    @property
    def order(self) -> int:
        return self.element.order


@dataclass
class PartialTree:
    """The merged partial tree of one document."""

    document_id: str
    roots: list[TreeNode]
    best_rank: int

    def walk(self) -> Iterable[TreeNode]:
        """Nodes in document order (pre-order), iteratively: trees can be deeper than the recursion limit."""
        stack = list(reversed(self.roots))
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.children))


def merge_trees(
    elements: Mapping[str, Element] | Iterable[Element],
    hit_ids: Sequence[str],
    child_ids: Iterable[str] = (),
) -> list[PartialTree]:
    """Merge hits and their ancestors into one partial tree per document.

    ``elements`` holds every node (hits, ancestors and any children brought in by a heading hit), as returned
    by ``ElementStore.ancestors``; ``hit_ids`` are the hits, best first. An element whose parent is missing
    from ``elements`` becomes a root of its document rather than being dropped.
    """
    docs = elements.values() if isinstance(elements, Mapping) else elements
    by_id: dict[str, Element] = {}
    for doc in docs:
        by_id.setdefault(doc.element_id, doc)
    rank = {hid: i for i, hid in reversed(list(enumerate(hit_ids)))}  # first occurrence wins
    extra = set(child_ids)
    nodes = {
        eid: TreeNode(doc, "hit" if eid in rank else "child" if eid in extra else "ancestor", rank.get(eid))
        for eid, doc in by_id.items()
    }
    roots: dict[str, list[TreeNode]] = {}
    for eid, node in nodes.items():
        parent = node.element.parent_id
        if parent and parent in nodes and parent != eid:
            nodes[parent].children.append(node)
        else:
            roots.setdefault(node.element.document_id, []).append(node)

    trees: list[PartialTree] = []
    for document_id, doc_roots in roots.items():
        doc_roots.sort(key=lambda n: n.order)
        tree = PartialTree(document_id, doc_roots, best_rank=len(rank) + len(trees))
        for root in doc_roots:
            root.path = ()
        for node in tree.walk():
            node.children.sort(key=lambda n: n.order)
            below = (*node.path, _one_line(node.element.text)) if node.category == "Title" else node.path
            for child in node.children:
                child.path = below
            if node.hit_rank is not None:
                tree.best_rank = min(tree.best_rank, node.hit_rank)
        trees.append(tree)
    trees.sort(key=lambda t: (t.best_rank, t.document_id))
    return trees


# -- short ids and citations -----------------------------------------------------------------------


def short_ids(element_ids: Iterable[str], min_len: int = SHORT_ID_LEN) -> dict[str, str]:
    """Full id → shortest prefix (at least ``min_len``) that is unique among ``element_ids``."""
    ids = sorted(set(element_ids))
    out: dict[str, str] = {}
    for i, eid in enumerate(ids):
        length = min_len
        for other in (ids[i - 1] if i else "", ids[i + 1] if i + 1 < len(ids) else ""):
            common = len(_common_prefix(eid, other))
            length = max(length, common + 1)
        out[eid] = eid[: min(length, len(eid))]
    return out


def _common_prefix(a: str, b: str) -> str:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return a[:n]


def cited_element_ids(text: str, element_ids: Iterable[str]) -> list[str]:
    """Full ids of the elements ``text`` cites as ``[e:<prefix>]``, in order of first citation.

    A prefix that matches no element, or several, is ignored: a citation must point at one element of
    the context the answer was written from.
    """
    ids = list(element_ids)
    found: list[str] = []
    for match in CITATION_RE.finditer(text):
        prefix = match.group(1).lower()
        candidates = [i for i in ids if i.lower().startswith(prefix)]
        if len(candidates) == 1 and candidates[0] not in found:
            found.append(candidates[0])
    return found


# -- rendering ---------------------------------------------------------------------------------------



def _one_line(text: str) -> str:
    return " ".join(text.split())


class _Writer:
    """Accumulates markdown blocks; consecutive list items are single-spaced, everything else blank-line separated."""

    def __init__(self, escape: bool, shorts: Mapping[str, str]) -> None:
        self.escape = escape
        self.shorts = shorts
        self.blocks: list[tuple[str, str]] = []  # (kind, text)

    def text(self, value: str) -> str:
        return escape_markdown(value) if self.escape else value

    def marker(self, element_id: str, role: Role, *, block: bool) -> str:
        if role == "ancestor":
            return ""
        short = self.shorts.get(element_id, element_id[:SHORT_ID_LEN])
        ref = f"`e:{short}`" if self.escape else f"[e:{short}]"
        if role == "hit":
            return f"{BLOCK_MARK if block else HIT_MARK} {ref}"
        return ref

    def add(self, kind: str, text: str) -> None:
        self.blocks.append((kind, text))

    def result(self) -> str:
        out: list[str] = []
        previous = ""
        for kind, text in self.blocks:
            if out:
                out.append("\n" if kind == "li" and previous == "li" else "\n\n")
            out.append(text)
            previous = kind
        return "".join(out)

    def element(self, doc: Element, role: Role, *, list_level: int, in_list: bool, heading_level: int) -> None:
        """Write one element. ``list_level`` = number of list items above it; ``heading_level`` for Titles."""
        element_id = doc.element_id
        category = doc.category or "UncategorizedText"
        raw = (doc.text or "").strip()
        indent = "  " * list_level

        if category in _BLOCK_CATEGORIES or ("\n" in raw and category not in ("Title", "ListItem")):
            # A block cannot carry a trailing marker (a fence line must stay a fence): mark the line before it.
            mark = self.marker(element_id, role, block=True)
            body = self._block_body(category, raw, doc)
            text = "\n".join(f"{indent}{line}" if line else "" for line in body.split("\n"))
            # Blank line after the marker: a table cannot interrupt a paragraph in every markdown dialect.
            self.add("block", f"{indent}{mark}\n\n{text}" if mark else text)
            return

        mark = self.marker(element_id, role, block=False)
        suffix = f" {mark}" if mark else ""
        if category in ("ListItem", "TableRow"):
            # A table's rows are listed under its header, one line each, so a hit marks its own row.
            # Hard line breaks inside an item stay inside it as indented continuation lines.
            first, *rest = [self.text(line.strip()) for line in raw.split("\n")]
            lines = [f"{indent}- {first}{suffix}", *(f"{indent}  {line}" for line in rest if line)]
            self.add("li", "\n".join(lines))
            return
        line = self.text(_one_line(raw))
        if category == "Title":
            if in_list:  # a heading inside a list item belongs to the item: keep the list intact
                self.add("block", f"{indent}**{line}**{suffix}")
            else:
                self.add("heading", f"{'#' * heading_level} {line}{suffix}")
        elif category == "Image":
            self.add("para", f"{indent}{self.text('[image: ' + _one_line(raw) + ']')}{suffix}")
        else:
            self.add("para", f"{indent}{line}{suffix}")

    def _block_body(self, category: str, raw: str, doc: Element) -> str:
        if category == "CodeSnippet":
            return _fenced(raw, str(doc.get("language") or ""))
        if category == "UncategorizedText":  # raw HTML from the source: shown, never interpreted
            return _fenced(raw, "html")
        if category == "Table":
            return _table(raw, escape=self.escape)
        return "\n".join(self.text(line) for line in raw.strip().split("\n"))


def _fenced(code: str, language: str) -> str:
    """A fence longer than any backtick run inside, so the code cannot close it early."""
    longest = max((len(m) for m in re.findall(r"`+", code)), default=0)
    fence = "`" * max(3, longest + 1)
    language = language if re.fullmatch(r"[\w+#.-]{0,30}", language) else ""
    return f"{fence}{language}\n{code.rstrip()}\n{fence}"


def _split_row(line: str) -> list[str]:
    body = line.strip()
    body = body[1:] if body.startswith("|") else body
    body = body[:-1] if body.endswith("|") and not body.endswith("\\|") else body
    return [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", body)]


def _table(markdown_table: str, *, escape: bool) -> str:
    """The loader stores tables as pipe markdown; for the UI the cells are rebuilt with escaped text."""
    if not escape:
        return markdown_table.strip()
    rows = [_split_row(line) for line in markdown_table.strip().splitlines() if line.strip()]
    out = []
    for i, cells in enumerate(rows):
        if i == 1 and all(set(c) <= set("-: ") and c for c in cells):
            out.append("| " + " | ".join("---" for _ in cells) + " |")
        else:
            out.append("| " + " | ".join(escape_markdown(c) for c in cells) + " |")
    return "\n".join(out)


def _heading_level(node: TreeNode) -> int:
    return min(max(node.element.category_depth + 1, 1), 6)


def render_markdown(
    trees: Sequence[PartialTree],
    *,
    escape: bool = False,
    shorts: Mapping[str, str] | None = None,
    heading_offset: int = 0,
) -> str:
    """The trees as one markdown text: headings as headings, nested list items indented by 2 spaces.

    ``heading_offset`` demotes every heading (for display in a narrow column; levels stop at 6).
    """
    if shorts is None:
        shorts = short_ids(n.element_id for t in trees for n in t.walk())
    writer = _Writer(escape, shorts)
    for index, tree in enumerate(trees):
        if index:
            writer.add("rule", "---")
        # (node, list_level, in_list); iterative so deep documents cannot hit the recursion limit.
        stack: list[tuple[TreeNode, int, bool]] = [(r, 0, False) for r in reversed(tree.roots)]
        while stack:
            node, list_level, in_list = stack.pop()
            writer.element(node.element, node.role, list_level=list_level, in_list=in_list,
                           heading_level=min(_heading_level(node) + heading_offset, 6))
            is_item = node.category == "ListItem"
            child_level = list_level + 1 if is_item else list_level
            child_in_list = in_list or is_item
            stack.extend((c, child_level, child_in_list) for c in reversed(node.children))
    return writer.result()


def render_plain(
    hits: Sequence[Element],
    *,
    escape: bool = False,
    shorts: Mapping[str, str] | None = None,
    heading_offset: int = 0,
) -> str:
    """The hits as they are, best first, each with its marker: the context a plain RAG chain sees."""
    if shorts is None:
        shorts = short_ids(d.element_id for d in hits)
    writer = _Writer(escape, shorts)
    for doc in hits:
        level = min(_heading_level(TreeNode(doc, "hit")) + heading_offset, 6) if doc.is_heading else 1
        writer.element(doc, "hit", list_level=0, in_list=False, heading_level=level)
        if writer.blocks and writer.blocks[-1][0] == "li":  # hits are unrelated: never glue them into one list
            kind, text = writer.blocks[-1]
            writer.blocks[-1] = ("para", text)
    return writer.result()
