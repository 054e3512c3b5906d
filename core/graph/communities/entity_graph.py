"""The weighted entity graph: entities merged by normalised name, relationships with weights and evidence.

Offline, relationships come from co-occurrence, counted at two grains:

* **text unit**: the ``unit_anchors`` most mentioned entities of a unit (its topic, usually including the section
  heading) are related to each of the unit's ``max_entities_per_unit`` most mentioned entities, +1 per shared
  unit. Anchors rather than all pairs keep a 600-token section from turning into a 400-edge clique;
* **sentence**: any two entities in one sentence (list item, table row) are related, +1 per shared sentence
  (at most ``MAX_ENTITIES_PER_SENTENCE`` entities per sentence).

So the weight counts shared sections and shared sentences, and the description quotes the first sentences where
the two occur together (or names the shared section when they never share a sentence).
With an LLM, the relationships are the ones it stated: strengths are summed and distinct descriptions joined.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import combinations

from core.graph.extraction.drafts import EntityDraft, Extraction, Sentence
from core.graph.extraction.text_units import ElementInfo
from core.store.graph_records import Entity, Relationship, TextUnit
from core.text import clip, stable_id

DEFAULT_MAX_ENTITIES_PER_UNIT = 30
DEFAULT_UNIT_ANCHORS = 3
MAX_ENTITIES_PER_SENTENCE = 12
MAX_ELEMENT_IDS = 100  # per entity: enough to jump to the sources, bounded for hub entities
MAX_EVIDENCE_SENTENCES = 3


@dataclass
class GraphData:
    """Everything later stages need, in memory."""

    units: list[TextUnit]
    infos: dict[str, ElementInfo]
    sentences: list[Sentence]
    entities: list[Entity]
    relationships: list[Relationship]
    entity_sentences: dict[str, list[int]]  # entity id -> sentence indices (document order)
    relationship_sentences: dict[str, list[int]]  # relationship id -> sentences where both occur
    sentence_entities: dict[int, list[str]]  # sentence index -> entity ids
    mode: str = "offline"
    entity_by_id: dict[str, Entity] = field(default_factory=dict)
    relationship_by_id: dict[str, Relationship] = field(default_factory=dict)
    unit_by_id: dict[str, TextUnit] = field(default_factory=dict)
    element_sentences: dict[str, list[int]] = field(default_factory=dict)
    _strength: dict[str, float] | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        self.entity_by_id = {e.id: e for e in self.entities}
        self.relationship_by_id = {r.id: r for r in self.relationships}
        self.unit_by_id = {u.id: u for u in self.units}
        self.element_sentences = defaultdict(list)
        for s in self.sentences:
            self.element_sentences[s.element_id].append(s.index)

    def strength(self) -> dict[str, float]:
        """Sum of incident relationship weights per entity (computed once)."""
        if self._strength is None:
            out: dict[str, float] = defaultdict(float)
            for r in self.relationships:
                out[r.source_id] += r.weight
                out[r.target_id] += r.weight
            self._strength = dict(out)
        return self._strength


def entity_id(key: str) -> str:
    return stable_id("entity", key)


def relationship_id(key_a: str, key_b: str) -> str:
    a, b = sorted((key_a, key_b))
    return stable_id("relationship", a, b)


def build_graph(
    extraction: Extraction,
    units: Sequence[TextUnit],
    infos: dict[str, ElementInfo],
    *,
    max_entities_per_unit: int = DEFAULT_MAX_ENTITIES_PER_UNIT,
    unit_anchors: int = DEFAULT_UNIT_ANCHORS,
) -> GraphData:
    sentences = extraction.sentences
    mentions = {k: v for k, v in extraction.mentions.items() if v and k in extraction.entities}
    # Document order of first mention gives stable human-readable ids.
    keys = sorted(mentions, key=lambda k: (mentions[k][0], k))
    unit_order = {u.id: i for i, u in enumerate(units)}
    sentence_keys: dict[int, list[str]] = defaultdict(list)
    for key in keys:
        for idx in mentions[key]:
            sentence_keys[idx].append(key)

    unit_counts: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for key in keys:
        for idx in mentions[key]:
            unit_counts[sentences[idx].unit_id][key] += 1

    if extraction.mode == "llm":
        pairs = _llm_pairs(extraction, mentions, sentence_keys)
        if extraction.fallback_units:  # the model stated no relationship there: relate them as offline does
            fallen = extraction.fallback_units
            their_keys = {i: ks for i, ks in sentence_keys.items() if sentences[i].unit_id in fallen}
            for k, p in _cooccurrence_pairs([u for u in units if u.id in fallen], sentences, unit_counts, their_keys,
                                            mentions, max_entities_per_unit, unit_anchors).items():
                pairs.setdefault(k, p)
    else:
        pairs = _cooccurrence_pairs(units, sentences, unit_counts, sentence_keys, mentions, max_entities_per_unit,
                                    unit_anchors)  # fmt: skip

    # -- entities --
    entities: list[Entity] = []
    id_of: dict[str, str] = {}
    for n, key in enumerate(keys, start=1):
        draft = extraction.entities[key]
        eid = entity_id(key)
        id_of[key] = eid
        sent_idx = mentions[key]
        element_ids = list(dict.fromkeys(sentences[i].element_id for i in sent_idx))[:MAX_ELEMENT_IDS]
        unit_ids = sorted({sentences[i].unit_id for i in sent_idx} | (draft.units & set(unit_order)),
                          key=unit_order.__getitem__)  # fmt: skip
        entities.append(
            Entity(
                id=eid,
                human_readable_id=n,
                title=draft.title,
                type=draft.type,
                description=_entity_description(draft, sent_idx, sentences, extraction.mode),
                frequency=len(unit_ids),
                text_unit_ids=unit_ids,
                element_ids=element_ids,
            )
        )

    # -- relationships --
    relationships: list[Relationship] = []
    rel_sentences: dict[str, list[int]] = {}
    ordered = sorted(pairs.items(), key=lambda kv: (min(mentions[kv[0][0]][0], mentions[kv[0][1]][0]), kv[0]))
    title_of = {e.id: e.title for e in entities}
    for n, ((a, b), pair) in enumerate(ordered, start=1):
        rid = relationship_id(a, b)
        source, target = (a, b) if pair.forward else (b, a)
        unit_ids = sorted(pair.units & set(unit_order), key=unit_order.__getitem__)
        element_ids = list(dict.fromkeys(sentences[i].element_id for i in pair.sentences))
        if not element_ids:
            element_ids = _fallback_elements(unit_ids, mentions[a], mentions[b], sentences)
        rel_sentences[rid] = list(pair.sentences)
        relationships.append(
            Relationship(
                id=rid,
                human_readable_id=n,
                source=title_of[id_of[source]],
                target=title_of[id_of[target]],
                source_id=id_of[source],
                target_id=id_of[target],
                description=pair.description(sentences, title_of[id_of[source]], title_of[id_of[target]], units,
                                             unit_ids),  # fmt: skip
                weight=float(pair.weight),
                text_unit_ids=unit_ids,
                element_ids=element_ids[:20],
            )
        )

    # -- degrees and unit links --
    degree: dict[str, int] = defaultdict(int)
    for r in relationships:
        degree[r.source_id] += 1
        degree[r.target_id] += 1
    for e in entities:
        e.degree = degree[e.id]
    for r in relationships:
        r.combined_degree = degree[r.source_id] + degree[r.target_id]
    unit_entities: dict[str, list[str]] = defaultdict(list)
    for e in entities:
        for uid in e.text_unit_ids:
            unit_entities[uid].append(e.id)
    unit_rels: dict[str, list[str]] = defaultdict(list)
    for r in relationships:
        for uid in r.text_unit_ids:
            unit_rels[uid].append(r.id)
    for u in units:
        u.entity_ids = unit_entities.get(u.id, [])
        u.relationship_ids = unit_rels.get(u.id, [])

    entity_sentences = {id_of[k]: v for k, v in mentions.items()}
    sentence_entities = {idx: [id_of[k] for k in ks] for idx, ks in sentence_keys.items()}
    return GraphData(
        units=list(units),
        infos=infos,
        sentences=sentences,
        entities=entities,
        relationships=relationships,
        entity_sentences=entity_sentences,
        relationship_sentences=rel_sentences,
        sentence_entities=sentence_entities,
        mode=extraction.mode,
    )


@dataclass
class _Pair:
    weight: float = 0.0
    units: set[str] = field(default_factory=set)
    sentences: list[int] = field(default_factory=list)
    stated: list[str] = field(default_factory=list)  # LLM descriptions
    forward: bool = True  # source is the lexicographically first key

    def description(
        self, sentences: list[Sentence], source: str, target: str, units: Sequence[TextUnit], unit_ids: list[str]
    ) -> str:
        if self.stated:
            return clip(" ".join(dict.fromkeys(self.stated)), 800)
        quotes = [clip(sentences[i].text, 220) for i in self.sentences[:2]]
        if quotes:
            return " … ".join(quotes)
        path = next((" > ".join(u.heading_path) for u in units if u.id in unit_ids[:1]), "")
        where = f"the section “{path}”" if path else "the same section"
        return f"{source} and {target} appear together in {where}."


def _cooccurrence_pairs(
    units: Sequence[TextUnit],
    sentences: Sequence[Sentence],
    unit_counts: dict[str, dict[str, int]],
    sentence_keys: dict[int, list[str]],
    mentions: dict[str, list[int]],
    max_per_unit: int,
    anchors: int,
) -> dict[tuple[str, str], _Pair]:
    pairs: dict[tuple[str, str], _Pair] = {}

    def pair(a: str, b: str) -> _Pair:
        k = (a, b) if a < b else (b, a)
        p = pairs.get(k)
        if p is None:
            p = pairs[k] = _Pair()
            p.forward = mentions[k[0]][0] <= mentions[k[1]][0]
        return p

    for unit in units:
        counts = unit_counts.get(unit.id)
        if not counts:
            continue
        top = sorted(counts, key=lambda k: (-counts[k], mentions[k][0], k))[:max_per_unit]
        linked: set[tuple[str, str]] = set()
        for anchor in top[:anchors]:
            for other in top:
                k = (anchor, other) if anchor < other else (other, anchor)
                if anchor == other or k in linked:
                    continue
                linked.add(k)
                p = pair(*k)
                p.weight += 1
                p.units.add(unit.id)
    for idx in sorted(sentence_keys):
        ks = sentence_keys[idx][:MAX_ENTITIES_PER_SENTENCE]
        for a, b in combinations(sorted(set(ks)), 2):
            p = pair(a, b)
            p.weight += 1
            p.units.add(sentences[idx].unit_id)
            if len(p.sentences) < MAX_EVIDENCE_SENTENCES:
                p.sentences.append(idx)
    return pairs


def _llm_pairs(
    extraction: Extraction, mentions: dict[str, list[int]], sentence_keys: dict[int, list[str]]
) -> dict[tuple[str, str], _Pair]:
    pairs: dict[tuple[str, str], _Pair] = {}
    for (a, b), draft in sorted(extraction.relationships.items()):
        if a == b or a not in mentions or b not in mentions:
            continue
        k = (a, b) if a < b else (b, a)
        p = pairs.get(k)
        if p is None:
            p = pairs[k] = _Pair(forward=(k[0] == draft.source))
        p.weight += max(draft.weight, 1e-6)
        p.units |= draft.units
        p.stated.extend(draft.descriptions)
    # Evidence: sentences that mention both ends (for citations), in document order.
    wanted = set(pairs)
    for idx in sorted(sentence_keys):
        ks = sorted(set(sentence_keys[idx]))
        if len(ks) < 2:
            continue
        for a, b in combinations(ks, 2):
            if (a, b) in wanted and len(pairs[(a, b)].sentences) < MAX_EVIDENCE_SENTENCES:
                pairs[(a, b)].sentences.append(idx)
    return pairs


def _fallback_elements(unit_ids: list[str], a: list[int], b: list[int], sentences: list[Sentence]) -> list[str]:
    """Elements of the first shared unit that mention either end (when no sentence has both)."""
    if not unit_ids:
        return list(dict.fromkeys(sentences[i].element_id for i in (a[:1] + b[:1])))
    unit = unit_ids[0]
    out = [sentences[i].element_id for i in sorted(set(a) | set(b)) if sentences[i].unit_id == unit]
    return list(dict.fromkeys(out))[:4]


def _entity_description(draft: EntityDraft, sent_idx: list[int], sentences: list[Sentence], mode: str) -> str:
    parts: list[str] = []
    for d in draft.descriptions:
        if d and d not in parts:
            parts.append(d)
        if mode != "llm" and len(parts) >= 2:
            break
    if mode != "llm" or not parts:
        title = draft.title
        for i in sent_idx:
            s = sentences[i]
            if s.category == "Title" or s.text == title or len(s.text) < 15 or s.text in parts:
                continue
            parts.append(s.text)
            if len(parts) >= 2:
                break
    if not parts:
        return f"{draft.title} ({draft.type.lower()})"
    return clip(" ".join(parts), 600 if mode == "llm" else 400)
