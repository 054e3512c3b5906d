"""The things a comparative, superlative or list question is about, and each one's best evidence.

A question that compares ("Which is heavier, the L1 or the L2?"), ranks ("Which hub has the longest warranty?")
or lists ("List the power of every lamp") needs one value per thing, and k hits rarely hold them all. The things
are headings (:class:`Entity`):

* the ones the question lists, each part matched against the headings on its own ("L1", "L3 Pro"), so a part
  with more words does not hide a shorter one;
* otherwise the siblings of the heading above the best evidence that hold the same relative path: "Aster H1 ›
  Specifications › Weight" makes every "Aster Hn" with a "Specifications" section an entity, and a product sheet
  whose title heads "제품사양 › 크기 & 무게" makes every document with that path one.

Each entity's subtree (its matching section where known) is then searched for the question on its own, and its
best hit joins the hits: an entity that does not state the attribute still appears, with its path, so the
answer can say "not stated" for it instead of leaving it out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from core.retrieval.analysis import QuestionAnalysis
from core.retrieval.headings import HeadingIndex, HeadingRef, rank_headings
from core.retrieval.hits import Hit
from core.retrieval.scope import Scope
from core.retrieval.shape import QuestionShape
from core.retrieval.strategies import MAX_K
from core.statements import (
    attribute_share,
    statement,
    table_column,
    table_rows,
    terms,
)

if TYPE_CHECKING:
    from core.retrieval.stages import SearchContext

__all__ = ["MAX_ENTITIES", "Entity", "entity_hits", "find_entities"]

# The things one question compares at most (one search each): the default of EntityHitsConfig.max_entities.
MAX_ENTITIES = 12


@dataclass(frozen=True)
class Entity:
    """A thing a question compares: its heading, and the section under it where the attribute lives (if known)."""

    heading: HeadingRef
    section: HeadingRef | None = None
    part: str | None = None  # the part of the question that named it

    @property
    def search_root(self) -> HeadingRef:
        return self.section or self.heading


def sibling_entities(index: HeadingIndex, document_id: str, path: Sequence[str],
                     limit: int = MAX_ENTITIES) -> list[Entity]:
    """The entities an element under ``path`` belongs to with its siblings: the deepest heading of ``path``
    whose siblings hold the same relative path below them, and those siblings."""
    children = index.children()
    path = tuple(path)
    for depth in range(len(path) - 2, -1, -1):
        parent, suffix = path[:depth], path[depth + 1:]
        own = index.heading_at(document_id, path[: depth + 1])
        siblings = children.get((document_id if parent else None, parent), [])
        entities = []
        for s in siblings:
            if own is not None and s.element_id == own.element_id:
                continue
            section = index.heading_at(s.document_id, (*parent, s.text, *suffix))
            if section is not None:
                entities.append(Entity(s, section))
        if entities and own is not None:
            mine = index.heading_at(document_id, path)
            return [Entity(own, mine), *entities][:limit]
    return []


def find_entities(index: HeadingIndex, shape: QuestionShape, hits: Sequence[Hit],
                  asked: frozenset[str], limit: int = MAX_ENTITIES) -> list[Entity]:
    """The headings ``shape``'s question is about: its listed parts, else the siblings of its best evidence."""
    if len(shape.parts) >= 2:
        named: list[Entity] = []
        for part in shape.parts:
            ranked = rank_headings(part, index)
            if ranked:
                named += [Entity(h, part=part) for h in ranked[0].headings if all(e.heading != h for e in named)]
        if len({e.part for e in named}) >= 2:
            return named[:limit]
    for hit in hits:
        found = statement(asked, hit.element.text, hit.element.category or "")
        if found and attribute_share(asked, found[0]) > 0:
            entities = sibling_entities(index, hit.element.document_id, hit.element.heading_path, limit)
            if entities:
                return entities
    return []


def _stated(hit: Hit, asked: frozenset[str]) -> float:
    found = statement(asked, hit.element.text, hit.element.category or "")
    return attribute_share(asked, found[0]) if found else 0.0


def _best(hits: Sequence[Hit], asked: frozenset[str]) -> Hit | None:
    scored = [(_stated(h, asked), -h.rank, h) for h in hits]
    return max(scored, key=lambda s: (s[0], s[1]))[2] if scored else None


def entity_hits(
    context: SearchContext, index: HeadingIndex, shape: QuestionShape, hits: Sequence[Hit],
    pool: Sequence[Hit] | None = None,
) -> tuple[list[Hit], list[Entity]]:
    """Each entity's best hit for the question (the one stating the attribute, else its nearest), beyond ``hits``:
    one search per entity. A table listing them, for entities whose own scope does not state the attribute, is
    looked for in ``pool`` (the whole collection's hits already read), else by one search more."""
    config = context.stages.entities
    asked = context.analysis.terms
    entities = find_entities(index, shape, hits, asked, config.max_entities)
    taken = {h.element_id for h in hits}
    query = context.analysis.query
    best_of: list[tuple[Entity, Hit | None, bool]] = []
    # One search per thing compared: the headings one part names ("Nova 24FL" heads its sheet and an FAQ entry)
    # are searched together, each keeping the hits under it.
    groups: dict[object, list[Entity]] = {}
    for i, entity in enumerate(entities):
        groups.setdefault(entity.part if entity.part is not None else i, []).append(entity)
    found_in: dict[int, list[Hit]] = {}
    for group in groups.values():
        roots = [e.search_root for e in group]
        # The entities' own name words rank nothing inside them (every element there carries them).
        names = tuple(sorted({t for e in group for t in terms(e.heading.text)}))
        label = "; ".join(r.label for r in roots)
        found, _ = context.search(query, min(MAX_K, config.per_entity * len(group)),
                                  Scope.subtrees([r.element_id for r in roots], label, names=names))
        for entity in group:
            found_in[id(entity)] = [h for h in found if _under(entity.search_root, h)] if len(group) > 1 else found
    for entity in entities:
        best = _best([h for h in found_in[id(entity)] if h.element_id not in taken], asked)
        if best is not None:
            taken.add(best.element_id)
        best_of.append((entity, best, best is not None and _stated(best, asked) > 0))
    # A part named in several places ("Nova 24FL" heads its sheet and an FAQ entry) means the ones stating the
    # attribute, when any does; else its shallowest heading (a document's title before a section naming it).
    kept = []
    for e, h, stated in best_of:
        same = [(o, s) for o, _, s in best_of if o.part == e.part]
        if e.part is None or stated:
            kept.append((e, h))
        elif not any(s for _, s in same) and e is min((o for o, _ in same), key=lambda o: len(o.heading.path)):
            kept.append((e, h))
    chosen = [h for _, h in kept if h is not None]
    if config.listing_table and entities and not all(stated for _, _, stated in best_of):
        listing = _listing_table(context, context.analysis, [e for e, _ in kept], asked,
                                 taken | {h.element_id for h in chosen}, pool)
        chosen += [listing] if listing is not None else []
    extra = [Hit(h.element, len(hits) + i, h.distance) for i, h in enumerate(chosen)]
    return extra, [e for e, _ in kept]


def _under(root: HeadingRef, hit: Hit) -> bool:
    """Whether ``hit`` lies in ``root``'s subtree (by document and heading path)."""
    path = (*root.path, root.text)
    element = hit.element
    own = (*element.heading_path, element.text) if element.is_heading else element.heading_path
    return element.document_id == root.document_id and tuple(own[: len(path)]) == path


def _listing_table(context: SearchContext, analysis: QuestionAnalysis, entities: Sequence[Entity],
                   asked: frozenset[str], taken: set[str], pool: Sequence[Hit] | None = None) -> Hit | None:
    """A table of the whole collection whose rows name two or more of the entities and whose columns hold the
    attribute asked (an index page listing every extension's entry point and dot notation), for entities whose
    own pages do not state it."""
    names = [terms(e.part or e.heading.text) for e in entities]
    # the names lead the query: a table listing them matches every one, a page about one matches one
    if pool is None:
        query = " ".join(e.part or e.heading.text for e in entities) + " " + analysis.query
        pool, _ = context.search(query, context.stages.entities.per_entity, Scope.whole())
    found = pool
    for hit in found:
        text = hit.element.text
        if hit.element_id in taken or not text.lstrip().startswith("|"):
            continue
        rows = table_rows(text)
        if len(rows) < 3 or table_column(asked, rows[0]) is None:
            continue
        row_names = [terms(r[0]) for r in rows[1:] if r]
        if sum(any(n and n <= r for r in row_names) for n in names) >= 2:
            return hit
    return None
