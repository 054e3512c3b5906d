"""The ``topics`` strategy (issue 31, the HLG's TopicGraphRAG without a graph database): topics (heading sections,
``core.ingest.tiers``) found by vector and full text, widened to linked topics through the entities their statements
share by a beam, and returned as their statements grouped by topic, as the elements that state them.

1. **Entry**: the ``entry`` topics nearest the question's vector and the ``entry`` best matching its words; each is
   scored by similarity plus ``lexical_weight`` times the weighted share of the question's terms its text holds.
   The ``width`` best are the beam.
2. **Beam**: ``depth`` times, the topics sharing a bridge entity with the beam (``core.sql.hlg.TOPIC_NEIGHBOURS``; an
   entity more than ``fanout`` statement rows mention is no bridge, stop words are never entities) are scored as the
   entry topics, plus ``link_weight`` times the specificity of the entity they were reached through (1 / (1 + ln n),
   n the statement rows mentioning it), less ``depth_penalty`` per step; the ``width`` best not seen join the beam.
3. **Statements**: the beam's statements chosen one at a time by similarity to the question, the weighted share of
   its still uncovered terms they hold, and ``topic_weight`` times their topic's score, at most ``per_topic`` from one
   topic, until ``k`` elements; the hits come back grouped by topic, best topic first.

Deterministic for a given corpus state and question: every order ends on an id.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

from core.retrieval.hits import Hit
from core.retrieval.search import ms
from core.retrieval.stages import SearchContext
from core.retrieval.statement_search import StatementsMissingError, question_terms
from core.store.hlg_tables import HLGTables, StatementRow, TopicRow

__all__ = ["TopicSearchConfig", "find_topic_hits"]


@dataclass(frozen=True)
class TopicSearchConfig:
    entry: int = 8
    width: int = 3
    depth: int = 2
    fanout: int = 30
    per_topic: int = 2
    lexical_weight: float = 0.5
    topic_weight: float = 0.5
    link_weight: float = 0.2
    depth_penalty: float = 0.05

    def __post_init__(self) -> None:
        if min(self.entry, self.width, self.per_topic, self.fanout) < 1 or self.depth < 0:
            raise ValueError("topic search: entry, width, per_topic and fanout must be at least 1, depth at least 0")


DEFAULT_CONFIG = TopicSearchConfig()


def _share(weights: dict[int, float], held: frozenset[int]) -> float:
    whole = sum(weights.values())
    return sum(weights.get(t, 0.0) for t in held) / whole if whole else 0.0


def _score(topic: TopicRow, weights: dict[int, float], config: TopicSearchConfig) -> float:
    linked = config.link_weight / (1.0 + math.log(max(1, topic.fewest))) if topic.depth else 0.0
    return ((1.0 - topic.distance) + config.lexical_weight * _share(weights, topic.matched) + linked
            - config.depth_penalty * topic.depth)


def beam(tables: HLGTables, vector, terms: list[str], weights: dict[int, float],
         config: TopicSearchConfig) -> list[tuple[TopicRow, float]]:
    """The beam's topics with their scores, best first (entry topics, then each step's)."""
    def best(rows: list[TopicRow], seen: set[int]) -> list[tuple[TopicRow, float]]:
        scored = sorted(((r, _score(r, weights, config)) for r in rows if r.topic_id not in seen),
                        key=lambda x: (-x[1], x[0].topic_id))
        return scored[: config.width]

    chosen = best(tables.topic_entry(vector, terms, config.entry), set())
    frontier = [t.topic_id for t, _ in chosen]
    for step in range(1, config.depth + 1):
        if not frontier:
            break
        seen = {t.topic_id for t, _ in chosen}
        found = tables.topic_neighbours(sorted(seen), vector, terms, fanout=config.fanout, depth=step)
        added = best(found, seen)
        chosen += added
        frontier = [t.topic_id for t, _ in added]
    return sorted(chosen, key=lambda x: (-x[1], x[0].topic_id))


def _grouped(topics: list[tuple[TopicRow, float]], statements: dict[int, list[StatementRow]],
             weights: dict[int, float], k: int, config: TopicSearchConfig) -> list[tuple[TopicRow, StatementRow]]:
    """Statements of the beam's topics chosen one at a time, each the best by similarity to the question, by the
    weighted share of the question's still uncovered terms it holds, and by its topic's score; at most
    ``per_topic`` from one topic, until ``k`` elements. Returned grouped by topic (best topic first)."""
    score = {t.topic_id: sc for t, sc in topics}
    left = [(tid, r) for tid, rows in statements.items() for r in rows]
    picked: dict[int, list[StatementRow]] = {t.topic_id: [] for t, _ in topics}
    covered: set[int] = set()
    elements: set[str] = set()
    def gain(item: tuple[int, StatementRow], covered: set[int]) -> tuple[float, int]:
        tid, row = item
        return ((1.0 - row.distance) + config.lexical_weight * _share(weights, row.matched - covered)
                + config.topic_weight * score[tid], -row.statement_id)

    while left and len(elements) < k:
        tid, row = max(left, key=lambda item: gain(item, covered))
        left = [(t, r) for t, r in left if r.statement_id != row.statement_id]
        if row.element_id in elements or len(picked[tid]) >= config.per_topic:
            continue
        picked[tid].append(row)
        covered |= row.matched
        elements.add(row.element_id)
    return [(topic, row) for topic, _s in topics for row in picked[topic.topic_id]]


def _label(topic: TopicRow) -> str:
    return " > ".join(topic.heading_path) or topic.document_id


def find_topic_hits(context: SearchContext, config: TopicSearchConfig = DEFAULT_CONFIG
                    ) -> tuple[list[Hit], list[str], dict[str, float]]:
    """The ``context.k`` elements stating the statements of the topics the beam chose, grouped by topic, with notes
    and stage timings."""
    tables = HLGTables(context.store)
    if not tables.built():
        raise StatementsMissingError(
            f"collection {context.store.collection!r} has no topics yet: run `python -m core index "
            f"--collection {context.store.collection}` (later ingests keep them up to date)")
    vector = context.vector
    t0 = time.perf_counter()
    terms = question_terms(context.question, context.analysis.lexicon)
    total, counts = tables.term_counts(terms)
    weights = {i + 1: math.log(1.0 + total / (1 + n)) for i, n in enumerate(counts)}
    topics = beam(tables, vector, terms, weights, config)
    t1 = time.perf_counter()
    statements = tables.topic_statements([t.topic_id for t, _ in topics], vector, terms)
    grouped = _grouped(topics, statements, weights, context.k, config)
    elements = list(dict.fromkeys(r.element_id for _t, r in grouped))
    by_id = {e.element_id: e for e in context.store.read.get(elements)}
    best: dict[str, StatementRow] = {}
    for _topic, row in grouped:
        best.setdefault(row.element_id, row)
    hits = [Hit(by_id[eid], rank, best[eid].distance) for rank, eid in enumerate(e for e in elements if e in by_id)]
    t2 = time.perf_counter()
    notes = [f"topics: {sum(1 for t, _ in topics if not t.depth)} entry, "
             f"{sum(1 for t, _ in topics if t.depth)} linked through shared entities "
             f"(beam width {config.width}, depth {config.depth})"]
    notes += [f"linked: {_label(t)} (through {t.via})" for t, _ in topics if t.depth]
    return hits, notes, {"topic_beam": ms(t1 - t0), "topic_statements": ms(t2 - t1)}
