"""The ``statements`` strategy (issue 31, the HLG's StatementGraphRAG without a graph database): statements found by
vector, full text and exact entity match, joined to statements elsewhere through shared facts and entities, re-ranked,
and returned as the elements that state them (so the contexts cite elements and show their partial trees).

1. **Entry**: the ``entry`` statements nearest the question's vector, those that best match its words (the
   'simple' lexemes of path + text, Korean terms as prefixes), and those naming an entity the question names exactly
   (by merge key: ``core.text.normalize_name``).
2. **Expansion**: from the entry statements, the statements sharing a bridge entity or a fact with them, up to
   ``hops`` hops (``core.sql.hlg.EXPAND``: a recursive CTE; an entity that ``fanout`` or more statements mention is
   no bridge, and stop words are never entities).
3. **Re-rank**: statements are chosen one at a time (:func:`_greedy`): by similarity to the question, plus the
   share of the question's terms not yet covered by those chosen that the statement holds (each term weighted by its
   rarity among the statements), plus ``entity_weight`` when it names an entity the question names that no chosen
   statement named (a statement under that entity's heading more than one naming it in its text), plus that share
   weighed by specificity when it shares a bridge entity with a chosen statement (the next link of a chain), less
   ``hop_penalty`` per hop; ties by statement id. The ``k`` best distinct elements
   are the hits. Deterministic for a given corpus state and question.
"""

from __future__ import annotations

import math
import time
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from core import textnorm
from core.hlg.extract import entity_key
from core.retrieval.hits import Hit
from core.retrieval.search import fts_terms, is_stopword, ms, tsquery_lexeme
from core.retrieval.stages import SearchContext
from core.retrieval.statement_path import PathStep, statement_path
from core.store.hlg_tables import HLGTables, StatementRow
from core.text import words

__all__ = ["StatementSearchConfig", "StatementsMissingError", "find_statement_hits", "question_entity_keys"]

MAX_QUESTION_NGRAM = 4


class StatementsMissingError(ValueError):
    """The collection has no statement tiers yet."""


@dataclass(frozen=True)
class StatementSearchConfig:
    entry: int = 12
    hops: int = 2
    fanout: int = 30
    expanded: int = 60
    lexical_weight: float = 2.0
    hop_penalty: float = 0.08
    chain_weight: float = 0.6
    entity_weight: float = 0.2


DEFAULT_CONFIG = StatementSearchConfig()


def question_entity_keys(question: str) -> list[str]:
    """Merge keys of the question's word n-grams (particles stripped) that may name an entity."""
    toks = [textnorm.strip_particles(w) for w in words(question)]
    keys: set[str] = set()
    for n in range(1, MAX_QUESTION_NGRAM + 1):
        for i in range(len(toks) - n + 1):
            key = entity_key(" ".join(toks[i:i + n]))
            if key:
                keys.add(key)
    return sorted(keys)


def question_terms(question: str) -> list[str]:
    """The question's words as tsquery terms, each a prefix: its other-script words' light stems, its Korean terms."""
    question = unicodedata.normalize("NFKC", question)
    lexemes = [w.casefold() for w in words(question) if not textnorm.has_hangul(w)]
    # English words as light stems searched as prefixes ("heads" finds "head", "built" itself)
    terms = [tsquery_lexeme(textnorm.english_stem(x), prefix=True)
             for x in dict.fromkeys(lexemes) if len(x) > 1 and not is_stopword(x)]
    return terms + [tsquery_lexeme(t, prefix=True) for t in fts_terms(question)]


def _short(row: StatementRow) -> str:
    where = row.heading_path[-1] if row.heading_path else row.document_id
    return f"{where}: {row.text[:60]}"


def _share(weights: dict[int, float], held: frozenset[int] | set[int]) -> float:
    """The weight of the terms ``held`` over that of all ``weights`` (a rare word counts more than "npm")."""
    whole = sum(weights.values())
    return sum(weights.get(t, 0.0) for t in held) / whole if whole else 0.0


def _specificity(sid: int, chosen: Sequence[int], bridges: dict[int, dict[int, int]]) -> float:
    """How specific the most specific bridge entity ``sid`` shares with a chosen statement is (1 / (1 + ln n),
    n the statements mentioning it: a lab's own heading over the division above it); 0 when it shares none."""
    mine = bridges.get(sid, {})
    counts = [mine[e] for c in chosen for e in bridges.get(c, {}).keys() & mine.keys()]
    return 1.0 / (1.0 + math.log(max(1, min(counts)))) if counts else 0.0


def _gain(row: StatementRow, chosen: Sequence[StatementRow], covered: set[int], weights: dict[int, float],
          named: dict[int, dict[str, float]], covered_names: dict[str, set[int]], bridges: dict[int, dict[int, int]],
          config: StatementSearchConfig) -> float:
    mine = named.get(row.statement_id, {})
    # A statement about a thing the question names is new for the words not yet covered about that thing: "the
    # default of searchlimit" after "the default of fetch-retry-factor".
    new = row.matched - (set.intersection(*(covered_names.get(key, set()) for key in mine)) if mine else covered)
    names = max((w for key, w in mine.items() if key not in covered_names), default=0.0)
    chain = 0.0
    if chosen and new:
        rest = {t: w for t, w in weights.items() if t not in covered}
        specific = _specificity(row.statement_id, [c.statement_id for c in chosen], bridges)
        chain = config.chain_weight * specific * _share(rest, new)
    return ((1.0 - row.distance) + config.lexical_weight * _share(weights, new) + chain
            + config.entity_weight * names - config.hop_penalty * row.hop)


def _greedy(candidates: dict[int, StatementRow], weights: dict[int, float], named: dict[int, dict[str, float]],
            bridges: dict[int, dict[int, int]], k: int, config: StatementSearchConfig
            ) -> tuple[list[StatementRow], list[tuple[StatementRow, StatementRow]]]:
    """Statements chosen one at a time, each the best by similarity, by the weighted share of the question's still
    uncovered terms it states, by naming an entity the question names, and, for a statement sharing a bridge entity
    with one already chosen, by its share of the terms still uncovered weighed by the entity's specificity (the next
    link of a chain); until ``k`` elements are covered. Also returns the links it followed: (a chosen statement,
    the one it joined through a shared entity)."""
    chosen: list[StatementRow] = []
    covered: set[int] = set()
    elements: set[str] = set()
    left = dict(candidates)
    links: list[tuple[StatementRow, StatementRow]] = []
    covered_names: dict[str, set[int]] = {}  # the question's terms covered by statements naming each entity
    texts: set[str] = set()
    while left and len(elements) < k:
        best = max(left.values(), key=lambda r: (
            _gain(r, chosen, covered, weights, named, covered_names, bridges, config), -r.statement_id))
        del left[best.statement_id]
        if best.self_contained in texts:  # the same statement in another document adds nothing
            continue
        texts.add(best.self_contained)
        for key in named.get(best.statement_id, {}):
            covered_names.setdefault(key, set()).update(best.matched)
        if best.matched - covered:
            joined = [c for c in chosen if c.element_id != best.element_id
                      and bridges.get(c.statement_id, {}).keys() & bridges.get(best.statement_id, {}).keys()]
            if joined:
                links.append((joined[0], best))
        chosen.append(best)
        covered |= best.matched
        elements.add(best.element_id)
    return chosen, links


def find_statement_hits(context: SearchContext, config: StatementSearchConfig = DEFAULT_CONFIG
                        ) -> tuple[list[Hit], list[str], dict[str, float], tuple[PathStep, ...]]:
    """The ``context.k`` elements whose statements best answer the question (see the module docstring), with notes,
    stage timings and the statement path of the first chain it followed (empty when it joined nothing)."""
    tables = HLGTables(context.store)
    if not tables.built():
        raise StatementsMissingError(
            f"collection {context.store.collection!r} has no statements yet: run `python -m core index "
            f"--collection {context.store.collection}` (later ingests keep them up to date)")
    question, vector = context.question, context.vector
    t0 = time.perf_counter()
    entry: dict[int, StatementRow] = {}
    terms = question_terms(question, context.analysis.lexicon)
    lists: Sequence[list[StatementRow]] = (
        tables.entry_vector(vector, terms, config.entry),
        tables.entry_fulltext(terms, vector, config.entry),
        tables.entry_entities(question_entity_keys(question), vector, terms, config.entry),
    )
    for found in lists:
        for row in found:
            entry.setdefault(row.statement_id, row)
    t1 = time.perf_counter()
    expanded = tables.expand(sorted(entry), vector, terms, hops=config.hops, fanout=config.fanout,
                             k=config.expanded)
    t2 = time.perf_counter()
    total, counts = tables.term_counts(terms)
    weights = {i + 1: math.log(1.0 + total / (1 + n)) for i, n in enumerate(counts)}
    named: dict[int, dict[str, float]] = {}
    for r in lists[2]:  # a statement under the named heading is about it; one naming it in its text, less so
        named.setdefault(r.statement_id, {})[r.named] = 1.0 if r.role == "subject" else 0.5
    candidates = {**{r.statement_id: r for r in expanded}, **entry}
    bridges = tables.bridge_entities(sorted(candidates), fanout=config.fanout)
    chosen, links = _greedy(candidates, weights, named, bridges, context.k, config)
    elements = list(dict.fromkeys(r.element_id for r in chosen))
    by_id = {e.element_id: e for e in context.store.read.get(elements)}
    best: dict[str, StatementRow] = {}
    for row in chosen:
        best.setdefault(row.element_id, row)
    hits = [Hit(by_id[eid], rank, best[eid].distance) for rank, eid in enumerate(e for e in elements if e in by_id)]
    t3 = time.perf_counter()
    notes = [f"statements: {len(entry)} entry, {len(expanded)} reached through shared entities and facts "
             f"(at most {config.hops} hops)"]
    notes += [f"joined: {_short(a)} → {_short(b)}" for a, b in links]
    path: tuple[PathStep, ...] = ()
    if links:
        a, b = links[0]
        shared = sorted(bridges.get(a.statement_id, {}).keys() & bridges.get(b.statement_id, {}).keys())
        names = tables.entity_names(sorted({e for s in (a, b) for e in bridges.get(s.statement_id, {})}))
        path = statement_path(a, b, shared, bridges, names, frozenset(question_entity_keys(question)))
    timings = {"statement_entry": ms(t1 - t0), "statement_expand": ms(t2 - t1), "statement_rerank": ms(t3 - t2)}
    return hits, notes, timings, path
