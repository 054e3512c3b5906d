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

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from core.retrieval.headings import NAME_FACTOR, HeadingIndex, HeadingRef, rank_headings, word_factors, words
from core.retrieval.hits import Hit
from core.retrieval.scope import Scope
from core.retrieval.shape import QuestionShape, name_runs
from core.retrieval.stages import MAX_ENTITIES, SearchContext
from core.retrieval.strategies import MAX_K
from core.statements import (
    attribute_share,
    expanded_query,
    question_terms,
    row_cell,
    statement,
    table_column,
    table_rows,
    terms,
    without_default_phrases,
)

__all__ = ["MAX_ENTITIES", "Entity", "attribute_query", "entity_hits", "find_entities"]



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


def _thing_factors(name: str, index: HeadingIndex) -> dict[str, float]:
    """``word_factors`` of one thing a question lists ("the 27QX or the 32UX"): when each of its names is a
    platform word ("32UX" heads its sheet, a release notes' section and a setup guide's), it is the thing itself,
    named by the question as one of the things compared, and weighs as a name."""
    factors = word_factors(name, index)
    named = {w for run in name_runs(name) for w in words(run)} & factors.keys()
    if not named or not all(index.is_platform(w) for w in named):
        return factors
    return {w: max(f, NAME_FACTOR) if w in named else f for w, f in factors.items()}


def find_entities(index: HeadingIndex, shape: QuestionShape, hits: Sequence[Hit],
                  asked: frozenset[str], limit: int = MAX_ENTITIES) -> list[Entity]:
    """The headings ``shape``'s question is about: its listed parts, else the siblings of its best evidence."""
    if len(shape.parts) >= 2:
        named: list[Entity] = []
        for part in shape.parts:
            ranked = rank_headings(part, index, _thing_factors(part, index))
            if ranked:
                named += [Entity(h, part=part) for h in ranked[0].headings if all(e.heading != h for e in named)]
        if len({e.part for e in named}) >= 2:
            return named[:limit]
    # Each hit stating the attribute names its group of siblings; sheets that state it under another path (another
    # language's "제품사양 › 크기 & 무게" beside "Specifications › Dimensions & Weight") are groups of their own, and
    # a document stating it alone is one entity at the same level as the group's.
    groups: list[list[Entity]] = []
    alone: list[Entity] = []
    for hit in hits:
        found = statement(asked, hit.element.text, hit.element.category or "")
        if not (found and attribute_share(asked, found[0]) > 0):
            continue
        if any(hit.element.document_id == e.heading.document_id for g in groups for e in g) or any(
                hit.element.document_id == e.heading.document_id for e in alone):
            continue
        entities = sibling_entities(index, hit.element.document_id, hit.element.heading_path, limit)
        if entities:
            groups.append(entities)
        elif hit.element.heading_path:
            own = index.heading_at(hit.element.document_id, tuple(hit.element.heading_path[:1]))
            if own is not None:
                alone.append(Entity(own, index.heading_at(hit.element.document_id, tuple(hit.element.heading_path))))
    if not groups:
        return []
    merged = list(groups[0])
    top = len(merged[0].heading.path)
    # things of one kind share a word of their names ("Nova" in "노바 Nova 24FL …" and "Nova 32UX …"); a part the
    # question names ("Which Nova monitor …") must be in each one's name
    kin = frozenset().union(*(terms(e.heading.text) for e in merged))
    named = [terms(p) for p in shape.parts]
    for entity in [e for g in groups[1:] for e in g] + alone:
        name = terms(entity.heading.text)
        if (len(entity.heading.path) == top and name & kin and all(n <= name for n in named if n)
                and all(e.heading.element_id != entity.heading.element_id for e in merged)):
            merged.append(entity)
    return merged[:limit]


def _stating_elements(context: SearchContext, key: str, limit: int) -> list[Hit]:
    from core.store.hlg_tables import HLGTables

    ids = HLGTables(context.store).elements_stating(key, limit)
    by_id = {e.element_id: e for e in context.store.read.get(ids)} if ids else {}
    return [Hit(by_id[i], rank, 0.0) for rank, i in enumerate(ids) if i in by_id]


def _stated(hit: Hit, asked: frozenset[str]) -> float:
    found = statement(asked, hit.element.text, hit.element.category or "")
    return attribute_share(asked, found[0]) if found else 0.0


def _best(hits: Sequence[Hit], asked: frozenset[str]) -> Hit | None:
    scored = [(_stated(h, asked), -h.rank, h) for h in hits]
    return max(scored, key=lambda s: (s[0], s[1]))[2] if scored else None


def entity_hits(
    context: SearchContext, index: HeadingIndex, shape: QuestionShape, hits: Sequence[Hit],
    pool: Sequence[Hit] | None = None, *, named: Sequence[Entity] | None = None,
) -> tuple[list[Hit], list[Entity]]:
    """Each entity's best hit for the question (the one stating the attribute, else its nearest), beyond ``hits``:
    one search per thing compared. An open superlative or list whose hits state nothing first runs one search of the
    whole collection for the attribute. A table listing the things, for those whose own scope does not state the
    attribute, is looked for in ``pool`` (the whole collection's hits already read), else by one search more.
    ``named``: the things the question's parts name, found already (then the hits are not read for them)."""
    config = context.stages.entities
    question = context.question
    # a list of the things that have X reads X of each ("support" in "Which monitors support USB-C?" is no key)
    asked = question_terms(shape.having, context.analysis.lexicon) if shape.having else context.analysis.terms
    if shape.having and not named:
        # "the monitors with USB-C": every element stating the key, where the statement tier holds it, in either
        # script ("스피커" and the English sheet's "Speakers"); a search for a name that titles some of the
        # documents ranks those documents' every element first, and a search in one language finds its sheets
        keys = dict.fromkeys([shape.having, *(w for w in context.analysis.spelled if terms(w) & asked)])
        stating = [h for key in keys for h in _stating_elements(context, key, config.probe_hits)]
        entities = find_entities(index, shape, [*hits, *stating], asked, config.max_entities)
    else:
        entities = list(named) if named else find_entities(index, shape, hits, asked, config.max_entities)
    if not entities and len(shape.parts) < 2:
        # "Which monitor is the lightest?": no hit states the attribute, so one search of the whole collection for
        # the elements that state it, whose headings are the things ranked; the nouns its comparative word asks
        # for ("lightest" → "weight 무게") are the attribute, else its words
        probe = attribute_query(question, shape)
        implied = sorted(question_terms(probe, context.analysis.lexicon) - terms(without_default_phrases(probe)))
        probe = " ".join(implied) if implied else probe
        stating, _ = context.search(expanded_query(probe, context.analysis.lexicon), config.probe_hits, Scope.whole(),
                                    vector=_embed(context, probe))
        entities = find_entities(index, shape, stating, asked, config.max_entities)
    taken = {h.element_id for h in hits}
    # Inside an entity's subtree its name matches everything; the rest of the question ("어느 쪽이 더 가벼운가요",
    # "max refresh rate over HDMI") is what finds its row, in words and in meaning.
    query, vector = context.analysis.query, None
    attribute = attribute_query(question, shape)
    if entities and attribute != question:
        query = expanded_query(attribute, context.analysis.lexicon)
        vector = _embed(context, query)
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
                                  Scope.subtrees([r.element_id for r in roots], label, names=names), vector=vector)
        for entity in group:
            found_in[id(entity)] = [h for h in found if _under(entity.search_root, h)] if len(group) > 1 else found
    best_of: list[tuple[Entity, Hit | None, bool, list[Hit]]] = []
    for entity in entities:
        fresh = [h for h in found_in[id(entity)] if h.element_id not in taken]
        best = _best(fresh, asked)
        if best is not None:
            taken.add(best.element_id)
        stated = best is not None and _stated(best, asked) > 0
        # the entity's other rows stating the attribute as fully ("무게(스탠드 포함)" beside "무게(스탠드 제외)"): the
        # table then states the same key for every entity that has it
        also = [h for h in fresh if stated and h is not best and _stated(h, asked) >= _stated(best, asked)]
        taken.update(h.element_id for h in also)
        best_of.append((entity, best, stated, also))
    # A part named in several places ("Nova 24FL" heads its sheet and an FAQ entry) means the ones stating the
    # attribute, when any does; else its shallowest heading (a document's title before a section naming it).
    kept = []
    alike: list[Hit] = []
    for e, h, stated, also in best_of:
        same = [(o, s) for o, _, s, _ in best_of if o.part == e.part]
        if e.part is None or stated:
            kept.append((e, h))
            alike += also
        elif not any(s for _, s in same) and e is min((o for o, _ in same), key=lambda o: len(o.heading.path)):
            kept.append((e, h))
    chosen = [h for _, h in kept if h is not None] + alike
    if config.listing_table and entities and not all(stated for _, _, stated, _ in best_of):
        chosen += _listing_table(context, [e for e, _ in kept], asked, taken | {h.element_id for h in chosen}, pool)
    extra = [Hit(h.element, len(hits) + i, h.distance) for i, h in enumerate(chosen)]
    return extra, [e for e, _ in kept]


def _embed(context: SearchContext, text: str) -> np.ndarray:
    return np.asarray(context.store.embeddings.embed_query(text), dtype=np.float32)


def _under(root: HeadingRef, hit: Hit) -> bool:
    """Whether ``hit`` lies in ``root``'s subtree (by document and heading path)."""
    path = (*root.path, root.text)
    element = hit.element
    own = (*element.heading_path, element.text) if element.is_heading else element.heading_path
    return element.document_id == root.document_id and tuple(own[: len(path)]) == path


def attribute_query(question: str, shape: QuestionShape) -> str:
    """``question`` without the names of the things it compares (and a Korean particle right after one); for a list
    of the things that have something, that thing."""
    if shape.having:
        return shape.having
    rest = question
    for part in sorted(shape.parts, key=len, reverse=True):
        rest = re.sub(re.escape(part) + r"(?:과|와|은|는|이|가|의|을|를|도)?(?=\s|[,?.!]|$)", " ", rest)
    rest = " ".join(rest.split())
    return rest if terms(rest) else question


def _listing_table(context: SearchContext, entities: Sequence[Entity], asked: frozenset[str], taken: set[str],
                   pool: Sequence[Hit] | None = None) -> list[Hit]:
    """A table of the whole collection whose rows name two or more of the entities and whose columns hold the
    attribute asked (an index page listing every extension's entry point and dot notation), for entities whose
    own pages do not state it: the table whole, or the rows of a table split into rows."""
    names = [terms(e.part or e.heading.text) for e in entities]
    if pool is None:
        # the names lead the query: a table listing them matches every one, a page about one matches one
        query = " ".join(e.part or e.heading.text for e in entities) + " " + context.analysis.query
        pool, _ = context.search(query, context.stages.entities.per_entity, Scope.whole())
    rows_of: dict[str, list[Hit]] = {}
    for hit in pool:
        text = hit.element.text
        if hit.element.category == "TableRow":  # a table's rows, each its own element under the table
            cell = row_cell(asked, text)
            if cell is not None and cell[0] != cell[1] and any(n and n <= terms(cell[0]) for n in names):
                rows_of.setdefault(str(hit.element.parent_id), []).append(hit)
            continue
        if hit.element_id in taken or not text.lstrip().startswith("|"):
            continue
        rows = table_rows(text)
        if len(rows) < 3 or table_column(asked, rows[0]) is None:
            continue
        row_names = [terms(r[0]) for r in rows[1:] if r]
        if sum(any(n and n <= r for r in row_names) for n in names) >= 2:
            return [hit]
    for table_id, rows in rows_of.items():
        # the other entities' rows of the same table: one search inside it for their names
        more, _ = context.search(" ".join(e.part or e.heading.text for e in entities),
                                 min(2 * len(names) + 2, MAX_K), Scope.subtrees([table_id], "table"))
        for hit in more:
            cell = row_cell(asked, hit.element.text) if hit.element.category == "TableRow" else None
            if (cell is not None and all(r.element_id != hit.element_id for r in rows)
                    and any(n and n <= terms(cell[0]) for n in names)):
                rows.append(hit)
        row_names = [terms(cell[0]) for r in rows if (cell := row_cell(asked, r.element.text)) is not None]
        if sum(any(n and n <= r for r in row_names) for n in names) >= 2:
            # rows already among the hits are in the context: only the others join
            return [r for r in rows if r.element_id not in taken]
    return []
