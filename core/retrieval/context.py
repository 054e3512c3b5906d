"""Contexts: hits expanded to partial trees, a heading hit's own section brought in, all within a token budget.

* :func:`expand` fetches every hit's ancestors in one round trip and, for a heading hit, its section (the
  descendants, document order) within ``children_budget`` tokens, so a bare heading is never the only evidence.
* :func:`build_plain_context` / :func:`build_hierarchical_context` render what the answerers see. Both fit the
  context into ``max_tokens`` (:func:`context_token_budget`, ``HKE_CONTEXT_TOKENS``): when the elements do not
  fit, each gets an equal share of what the shorter ones leave, and an element longer than its share is cut with
  a visible mark (:data:`CUT_MARK`), so one 5 MB element can never fill a prompt.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

import numpy as np

from core.elements import Element
from core.partial_tree import PartialTree, merge_trees, render_markdown, render_plain, short_ids
from core.retrieval.hits import Hit
from core.statements import NO_LEXICON, Lexicon, is_lead_in
from core.store import ElementStore
from core.tokens import count_tokens, truncate_to_tokens

__all__ = [
    "CUT_MARK",
    "EntityRef",
    "DEFAULT_CHILDREN_BUDGET",
    "DEFAULT_CONTEXT_TOKENS",
    "Context",
    "ContextElement",
    "build_hierarchical_context",
    "build_plain_context",
    "context_token_budget",
    "expand",
    "fit_elements",
]

Mode = Literal["plain", "hierarchical"]
# Bounds of the "a heading hit brings its children" walk; the token budget then trims what was fetched.
CHILD_MAX_DEPTH = 6
CHILD_MAX_ROWS = 400
# A heading hit brings this many tokens of its own section by default (bench/bench_eval.py chose it: README).
DEFAULT_CHILDREN_BUDGET = 200
# The context's ceiling: far below the 8k-token window of the smallest common chat models, leaving room for the
# prompt and the answer; the bench contexts are 100-1,000 tokens, so it only ever bites on pathological elements.
DEFAULT_CONTEXT_TOKENS = 4_000
MIN_CONTEXT_TOKENS = 64
CUT_MARK = "… [cut: {shown:,} of {total:,} tokens shown]"
# The UI shows contexts in half-width columns, where a document title as <h1> would fill the screen.
DISPLAY_HEADING_OFFSET = 2
_COMMENT = re.compile(r"^\s*<!--.*-->\s*$", re.S)


def context_token_budget() -> int:
    """``HKE_CONTEXT_TOKENS`` (at least :data:`MIN_CONTEXT_TOKENS`), else :data:`DEFAULT_CONTEXT_TOKENS`."""
    from core.config import context_tokens_setting

    raw = context_tokens_setting()
    if not raw:
        return DEFAULT_CONTEXT_TOKENS
    try:
        value = int(raw)
    except ValueError:
        raise ValueError(f"HKE_CONTEXT_TOKENS must be a whole number of tokens, got {raw!r}") from None
    if value < MIN_CONTEXT_TOKENS:
        raise ValueError(f"HKE_CONTEXT_TOKENS must be at least {MIN_CONTEXT_TOKENS}, got {value}")
    return value


def is_metadata(element: Element) -> bool:
    """An element that is only an HTML comment: stored and shown in the tree, not searched or brought as content."""
    return element.category == "UncategorizedText" and bool(_COMMENT.match(element.text))


def _cut(text: str, tokens: int, share: int) -> str:
    mark = CUT_MARK.format(shown=share, total=tokens)
    # A token is rarely more than a few characters; the slice keeps the encoder off a 5 MB line.
    head = truncate_to_tokens(text[: share * 16], share)
    return head.rstrip() + " " + mark


def fit_elements(docs: Sequence[Element], max_tokens: int) -> tuple[list[Element], int]:
    """``docs`` within ``max_tokens`` of text: unchanged when they fit; otherwise every element gets an equal
    share of what the shorter ones leave (water-filling) and a longer one is cut with :data:`CUT_MARK`.

    Returns the (possibly cut) elements and how many were cut; a cut one records its size as ``cut_tokens``.
    """
    sizes = [count_tokens(d.text) for d in docs]
    if sum(sizes) <= max_tokens or not docs:
        return list(docs), 0
    # Each element costs ~12 tokens of markup (marker, bullet, newline) and a cut one ~12 more for the mark.
    room = max(len(docs), max_tokens - 24 * len(docs))
    share, left, remaining = room, room, sorted(sizes)
    for i, size in enumerate(remaining):
        share = left // (len(remaining) - i)
        if size > share:
            break
        left -= size
    share = max(1, share)
    out, cut = [], 0
    for doc, size in zip(docs, sizes, strict=True):
        if size > share:
            doc = replace(doc, text=_cut(doc.text, size, share), extra={**doc.extra, "cut_tokens": size})
            cut += 1
        out.append(doc)
    return out, cut


def expand(
    store: ElementStore,
    hits: Sequence[Hit],
    *,
    children_budget: int = 0,
    query_vector: np.ndarray | None = None,
    prose_sections: int = 0,
) -> tuple[dict[str, Element], list[str], dict[str, float]]:
    """Every hit's ancestors, in one round trip; optionally a heading hit's children within a token budget, and
    the sections of the first ``prose_sections`` hits that are paragraphs, after the heading hits' (a user guide
    answers in the paragraph after the one a paraphrase matched: "We loaded both packages, but Griffe still failed
    to resolve the alias" is found, "it actually created two distinct collections of modules" answers).

    Returns ``(elements by id, ids of children brought in, distances of those children)``.
    """
    hit_ids = [h.element_id for h in hits]
    # A list item documenting an option ("`end_url`: String to append …") holds its "Default: …" paragraph
    # below it, so it brings its children like a heading does.
    # A table hit (its header) brings its rows closest to the question the same way.
    headings = [h.element_id for h in hits if h.element.category in ("Title", "ListItem", "Table")]
    # A lead-in sentence ("… 다음과 같아요.", "one of the following:") says its value lives in what follows it:
    # its section's parts come with it, as a heading hit's do (placed by _lead_ins_placed, once ancestors are read).
    # served in the hits' order, best first (the section of the fourth hit's lead-in used to spend the budget
    # before the first's); a section holding several lead-ins is served after its best-ranked one
    lead_ins: dict[str, int] = {}
    for h in hits:
        if h.element.category == "NarrativeText" and is_lead_in(h.element.text) \
                and (parent := _parent_id(h.element)) and parent not in lead_ins:
            lead_ins[parent] = h.element.order
    prose = [parent for h in hits[:prose_sections] if h.element.category == "NarrativeText"
             and (parent := _parent_id(h.element))]
    headings = list(dict.fromkeys([*headings, *lead_ins, *prose]))
    if children_budget <= 0 or not headings:
        return store.ancestors(hit_ids), [], {}
    if query_vector is None:
        raise ValueError("children_budget needs the query vector to score the children")
    elements: dict[str, Element] = {}
    candidates: dict[str, Element] = {}
    distances: dict[str, float] = {}
    for row in store.read.expand(hit_ids, headings, query_vector, max_depth=CHILD_MAX_DEPTH,
                                 max_children=CHILD_MAX_ROWS):
        element_id = row.element.element_id
        if row.is_child and row.distance is not None:  # a descendant always carries its distance
            candidates.setdefault(element_id, row.element)
            distances[element_id] = row.distance
        else:
            elements[element_id] = row.element
    headings = _lead_ins_placed(headings, [s for s in lead_ins if s not in hit_ids], elements)
    # a hit under a heading hit is in the context as a hit: walking to it costs the budget nothing but its chain
    children = _within_budget(headings, elements, candidates, children_budget, distances, lead_ins,
                              hits=frozenset(hit_ids))
    for element_id in children:
        elements[element_id] = candidates[element_id]
    return elements, children, {c: distances[c] for c in children}


def _within_budget(
    headings: Sequence[str],
    present: Mapping[str, Element],
    candidates: Mapping[str, Element],
    budget: int,
    distances: Mapping[str, float],
    lead_ins: Mapping[str, int] | None = None,
    *,
    hits: frozenset[str] = frozenset(),
) -> list[str]:
    """The parts of the heading hits' sections closest to the question, while the budget lasts.

    A section brought by a lead-in sentence (``lead_ins``: its heading → the lead-in's order) serves what
    follows the lead-in first, in document order, then the rest closest first.

    Sections are served best heading hit first; inside one, descendants go closest to the query first, each
    with the not-yet-chosen elements between it and the heading (so no child is ever shown without its
    parent, and "Weight : 2.1 kg" comes with its "Specifications" heading). What does not fit is skipped; a
    smaller one after it may still fit. HTML-comment elements are metadata, never brought as content.
    """
    by_id = {d.element_id: d for d in candidates.values()}
    chosen: list[str] = []
    taken = set(present)
    spent = 0
    for heading in headings:
        members = []
        for element_id, doc in by_id.items():
            chain, parent = [element_id], str(doc.parent_id)
            while parent in by_id and parent != heading:
                chain.append(parent)
                parent = str(by_id[parent].parent_id)
            if parent == heading:
                members.append((distances.get(element_id, 2.0), doc.order, chain))
        for _distance, _order, chain in _serving_order(members, (lead_ins or {}).get(heading)):
            if is_metadata(by_id[chain[0]]):
                continue
            new = [e for e in reversed(chain) if e not in taken]
            if not new:
                continue
            cost = sum(count_tokens(by_id[e].text) + 8 for e in new if e not in hits)  # + marker, bullet, newline
            if spent + cost > budget:
                continue
            spent += cost
            chosen.extend(new)
            taken.update(new)
    return chosen


def _lead_ins_placed(headings: list[str], lead_ins: Sequence[str], elements: Mapping[str, Element]) -> list[str]:
    """``headings`` in serving order: a lead-in's section right before the heading hit whose section holds it (a
    page's title hit would spend the budget on the page's closest parts before the part the lead-in introduces);
    a lead-in elsewhere after the heading hits."""
    out = [h for h in headings if h not in lead_ins]
    for section in lead_ins:
        above, parent = [], section
        while parent and parent in elements:
            above.append(parent)
            parent = _parent_id(elements[parent])
        holder = next((i for i, h in enumerate(out) if h in above), None)
        if holder is None:
            out.append(section)
        else:
            out.insert(holder, section)
    return out


def _serving_order(members: list[tuple[float, int, list[str]]], lead: int | None) -> list[tuple[float, int, list[str]]]:
    """A section's ``(distance, order, chain)`` parts closest first; after a lead-in (its ``lead`` order), what
    follows it first, in document order."""
    if lead is None:
        return sorted(members, key=lambda m: (m[0], m[1]))
    following = sorted((m for m in members if m[1] > lead), key=lambda m: m[1])
    return following + sorted((m for m in members if m[1] <= lead), key=lambda m: (m[0], m[1]))


# -- contexts ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ContextElement:
    """One element of a context as the answerers and the UI see it.

    ``path`` holds the heading texts above the element *in this context*: empty in a plain context, which
    carries no hierarchy; in a hierarchical one it is the partial tree's root-to-leaf heading path.
    """

    element_id: str
    short_id: str
    role: Literal["hit", "ancestor", "child"]
    category: str
    text: str
    document_id: str
    path: tuple[str, ...] = ()
    distance: float | None = None
    rank: int | None = None
    outside_scope: bool = False  # a hit kept from outside the headings the question named
    parent_id: str | None = None  # the element it belongs to (a list item's paragraphs: the item)

    @property
    def similarity(self) -> float | None:
        return None if self.distance is None else 1.0 - self.distance

    def as_dict(self) -> dict[str, Any]:
        return {
            "element_id": self.element_id,
            "short_id": self.short_id,
            "role": self.role,
            "category": self.category,
            "text": self.text,
            "document_id": self.document_id,
            "heading_path": list(self.path),
            "similarity": None if self.distance is None else round(1.0 - self.distance, 4),
            "rank": self.rank,
            "outside_scope": self.outside_scope,
        }


@dataclass(frozen=True)
class EntityRef:
    """A thing a comparative question is about: its heading's text and full path (its own text last)."""

    label: str
    path: tuple[str, ...]
    document_id: str

    def holds(self, element: ContextElement) -> bool:
        """Whether ``element`` lies under this heading (by document and heading path)."""
        own = (*element.path, element.text) if element.category == "Title" else element.path
        return element.document_id == self.document_id and own[: len(self.path)] == self.path


@dataclass
class Context:
    """What one mode hands to the answerer: markdown for the model, escaped markdown for the UI."""

    mode: Mode
    text: str
    display: str
    elements: list[ContextElement]
    tokens: int
    trees: list[PartialTree] = field(default_factory=list)
    cut: int = 0  # elements cut to fit the token budget (each carries CUT_MARK)
    # The headings the question named (its scope): an answer about them never quotes a hit from outside them.
    named: tuple[str, ...] = ()
    # The things a comparative, superlative or list question is about (hierarchical contexts only: a plain
    # context does not say which heading an element belongs to).
    entities: tuple[EntityRef, ...] = ()
    # The collection's field names across scripts the question was read with (core.retrieval.lexicon): the
    # readers read the question's terms with it too.
    lexicon: Lexicon = NO_LEXICON

    @property
    def hits(self) -> list[ContextElement]:
        return sorted((e for e in self.elements if e.role == "hit"), key=lambda e: e.rank or 0)

    @property
    def element_ids(self) -> list[str]:
        return [e.element_id for e in self.elements]

    def get(self, element_id: str) -> ContextElement | None:
        return next((e for e in self.elements if e.element_id == element_id), None)


def build_plain_context(hits: Sequence[Hit], max_tokens: int | None = None) -> Context:
    """The hits as they are, best first, within ``max_tokens`` (default :func:`context_token_budget`)."""
    docs, cut = fit_elements([h.element for h in hits], max_tokens or context_token_budget())
    hits = [Hit(doc, h.rank, h.distance, h.outside_scope) for doc, h in zip(docs, hits, strict=True)]
    shorts = short_ids(h.element_id for h in hits)
    elements = [
        ContextElement(
            h.element_id, shorts[h.element_id], "hit", h.element.category or "", h.element.text,
            h.element.document_id or "", (), h.distance, h.rank,
            h.outside_scope,
        )
        for h in hits
    ]  # fmt: skip
    text = render_plain(docs, shorts=shorts)
    display = render_plain(docs, escape=True, shorts=shorts, heading_offset=DISPLAY_HEADING_OFFSET)
    return Context("plain", text, display, elements, count_tokens(text), cut=cut)


def _parent_id(element: Element) -> str | None:
    return str(element.parent_id) if element.parent_id else None


def build_hierarchical_context(
    hits: Sequence[Hit],
    elements: Mapping[str, Element],
    child_ids: Sequence[str] = (),
    child_distances: Mapping[str, float] | None = None,
    max_tokens: int | None = None,
) -> Context:
    """Hits, their ancestors and the sections brought in, merged into partial trees, within ``max_tokens``."""
    hit_ids = [h.element_id for h in hits]
    # A hit whose row vanished between search and expansion (concurrent re-ingest) still appears, as a root.
    merged = dict(elements)
    for h in hits:
        merged.setdefault(h.element_id, h.element)
    ids = list(merged)
    fitted, cut = fit_elements([merged[i] for i in ids], max_tokens or context_token_budget())
    merged = dict(zip(ids, fitted, strict=True))
    trees = merge_trees(merged, hit_ids, child_ids)
    shorts = short_ids(merged)
    by_hit = {h.element_id: h for h in hits}
    child_distances = child_distances or {}
    outside = _under_outside_hits(trees, {h.element_id for h in hits if h.outside_scope})
    items: list[ContextElement] = []
    for tree in trees:
        for node in tree.walk():
            hit = by_hit.get(node.element_id)
            distance = hit.distance if hit else child_distances.get(node.element_id)
            items.append(
                ContextElement(
                    node.element_id, shorts[node.element_id], node.role, node.category, node.element.text,
                    tree.document_id, node.path, distance, hit.rank if hit else None,
                    node.element_id in outside, _parent_id(node.element),
                )
            )  # fmt: skip
    text = render_markdown(trees, shorts=shorts)
    display = render_markdown(trees, escape=True, shorts=shorts, heading_offset=DISPLAY_HEADING_OFFSET)
    return Context("hierarchical", text, display, items, count_tokens(text), trees, cut)


def _under_outside_hits(trees: Sequence[PartialTree], outside_hits: set[str]) -> set[str]:
    """The outside hits and the section elements below them: a heading hit kept from outside the named headings
    brings its section from outside them too."""
    found: set[str] = set()
    stack = [(root, False) for tree in trees for root in tree.roots]
    while stack:
        node, below = stack.pop()
        here = (below and node.role != "hit") or node.element_id in outside_hits
        if here:
            found.add(node.element_id)
        stack.extend((child, here) for child in node.children)
    return found
