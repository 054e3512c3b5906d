"""The named stages of retrieval and reading, each with a frozen config, and the context one question's search shares.

The stages, in the order ``retrieve()`` runs them (``core.retrieval.strategies.STAGE_LISTS`` names which run for a
strategy):

* **heading scope** (:class:`HeadingScopeConfig`): the headings the question names narrow the search; a scope ranks,
  it never vetoes: a hit from outside it is an aside only when the scope is pinned by a model number or code name
  that the hit's own path and text lack;
* **evidence probe** (:class:`EvidenceProbeConfig`): each candidate scope is probed for an element stating the
  attribute asked, and the scope chosen with its evidence;
* **entity hits** (:class:`EntityHitsConfig`): for a comparative, superlative or list question, one search per
  thing compared;
* **context** (:class:`ContextConfig`): the hits ordered (definitions above mentions) and expanded to their
  partial trees (a heading hit brings ``RetrievalRequest.children_budget`` tokens of its section);
* **reader**: the extractive answerer (``core.answering.extractive``; its constants are recorded with its module).

Each config's defaults are today's constants, each with its sweep record in ``data/tuning/`` (``core.tuning``).
:class:`Stages` holds one of each; ``bench/sweep.py`` varies one field with :func:`using`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from core.retrieval.analysis import QuestionAnalysis
from core.retrieval.headings import HeadingIndex
from core.retrieval.hits import Hit
from core.retrieval.scope import Scope
from core.retrieval.search import search
from core.retrieval.strategies import SearchConfig
from core.store import ElementStore

__all__ = ["DEFAULT_STAGES", "STAGE_NAMES", "ContextConfig", "EntityHitsConfig", "EvidenceProbeConfig",
           "HeadingScopeConfig", "SearchContext", "Stages", "current_stages", "using"]

STAGE_NAMES = ("heading scope", "evidence probe", "entity hits", "context", "reader")


@dataclass(frozen=True)
class HeadingScopeConfig:
    """``outside_slot``: the whole collection's best hit keeps the last place when the scope does not find it.
    ``pinned_veto``: a hit from outside the scope is set aside (the answer says "not stated" for the scope) only
    when the scope is pinned by a model number or code name its path and text lack; ``False``: every hit from
    outside is set aside (the earlier rule, which let a guessed heading veto the right hit).
    ``faq_floor``: the cosine at which an FAQ question heading asks what the question asks and leads the scope
    candidates (``core.retrieval.faq_headings``); above 1, never. ``faq_near_floor`` / ``faq_margin``: below
    ``faq_floor``, the closest question heading still leads when its cosine is at least ``faq_near_floor`` and it
    stands out from the others by ``faq_margin`` once what every question heading shares is taken out (the tool's
    name, "Can I …"); a margin above 1, never. ``faq_centred_min``: the question headings the collection must
    hold for that reading: the mean of a few stray question headings is no FAQ's shared wording.
    ``faq_entry_floor`` / ``faq_entry_margin``: failing those, the FAQ entry whose question heading and first answer
    paragraph, embedded together, are at least this close to the question and lead every other entry by the margin
    leads (a paraphrase sharing the answer's words, not the heading's); a floor above 1, never.
    ``collection_word_share`` / ``collection_word_min``: a question word held by at least this share of the
    collection's elements, and by at least this many, names what the whole collection documents ("pykrx" on 88 % of
    a two-document collection), not a place in it, and is weighed as a platform word; the floor keeps a collection
    of a few sections, half of which share a word that names things ("fetch" heads four of five npm options), out.
    ``scope_yield_margin`` / ``scope_yield_share``: a scope read from plain words only (no model number or code name
    pins it, no FAQ entry or class entry asked), each of which the collection's text uses widely (held by at least
    ``scope_yield_share`` of its elements: "griffe" on 31 % of a guide's, not "prerun" on 0.2 %), yields to the
    whole collection when the whole collection's closest hit is ``scope_yield_margin`` closer to the question
    (cosine) than the scope's closest: the heading words were incidental (a user guide's "Using Griffe as a
    docstring-parsing library" for any question naming the tool); a margin above 1, never."""

    outside_slot: bool = True
    pinned_veto: bool = True
    faq_floor: float = 0.68
    faq_near_floor: float = 0.6
    faq_margin: float = 0.15
    faq_centred_min: int = 8
    faq_entry_floor: float = 0.66
    faq_entry_margin: float = 0.04
    collection_word_share: float = 0.5
    collection_word_min: int = 100
    scope_yield_margin: float = 2.0
    scope_yield_share: float = 0.05


@dataclass(frozen=True)
class EvidenceProbeConfig:
    """``k``: the hits a candidate scope is probed for before it is judged not to hold the attribute asked."""

    k: int = 8


# The things one question compares at most (one search each).
MAX_ENTITIES = 12


@dataclass(frozen=True)
class EntityHitsConfig:
    """``max_entities``: the things one question compares at most (one search each); ``per_entity``: the hits
    searched in each one's scope; ``probe_hits``: the hits of the one whole-collection search an open superlative or
    list runs when no hit states the attribute; ``listing_table``: also look for one table listing them all.
    ``one_search_each``: a comparative, superlative or list question runs one search of the whole collection (its
    hits, and the table listing the things if one is among them) and one per thing, without probing the headings
    it names: each thing's own scope is its entity search; ``False``: the heading scope and its probes run first
    and the listing table has its own search."""

    max_entities: int = MAX_ENTITIES
    per_entity: int = 8
    probe_hits: int = 20
    listing_table: bool = True
    one_search_each: bool = True


@dataclass(frozen=True)
class ContextConfig:
    """``definitions_first``: among the hits, an element whose own heading path or key names the thing asked ranks
    above one that only mentions it in its text. ``pool``: the hits the whole-collection search reads before the
    k best are taken, so a definition just below the k-th place is not lost to mentions. ``named_rows``: a hit
    table row whose key the question does not name gives its place to the row of its table whose key it names
    (``core.retrieval.named_rows``); ``named_row_scan``: the rows of the hit tables it reads at most (cost only:
    a table of 10,000 rows is not read whole for every question; a named row past this many is left to the search).
    ``prose_sections``: the first this many hits that are paragraphs bring the parts of their section closest to
    the question, as a heading hit does, after the heading hits' (within the same children budget); 0, none.
    """

    definitions_first: bool = True
    pool: int = 8
    named_rows: bool = True
    named_row_scan: int = 2000
    prose_sections: int = 0


@dataclass(frozen=True)
class Stages:
    """One config per stage; derive one with :meth:`but` (``stages.but(probe=EvidenceProbeConfig(k=4))``)."""

    heading_scope: HeadingScopeConfig = field(default_factory=HeadingScopeConfig)
    probe: EvidenceProbeConfig = field(default_factory=EvidenceProbeConfig)
    entities: EntityHitsConfig = field(default_factory=EntityHitsConfig)
    context: ContextConfig = field(default_factory=ContextConfig)

    def but(self, **changes: Any) -> Stages:
        return replace(self, **changes)

    def as_dict(self) -> dict[str, dict[str, Any]]:
        return {name: vars(getattr(self, name)).copy() for name in ("heading_scope", "probe", "entities", "context")}


DEFAULT_STAGES = Stages()
_CURRENT: ContextVar[Stages | None] = ContextVar("stages", default=None)


def current_stages() -> Stages:
    """The stage configs ``retrieve()`` runs with: the defaults unless :func:`using` says otherwise."""
    return _CURRENT.get() or DEFAULT_STAGES


@contextmanager
def using(stages: Stages) -> Iterator[Stages]:
    """Run the retrievals inside the block with ``stages`` (``bench/sweep.py`` varies one field this way)."""
    token = _CURRENT.set(stages)
    try:
        yield stages
    finally:
        _CURRENT.reset(token)


@dataclass
class SearchContext:
    """What every search of one question shares: the store, the query vector, ``k``, the strategy, the contextual
    sibling, the question's analysis and the stage configs. ``searches`` counts the searches run."""

    store: ElementStore
    vector: np.ndarray
    k: int
    config: SearchConfig
    analysis: QuestionAnalysis
    stages: Stages = field(default_factory=current_stages)
    sibling: ElementStore | None = None
    searches: int = 0
    # this process's heading index of the collection, when the question already read it (core.retrieval.lexicon)
    index: HeadingIndex | None = None

    @property
    def question(self) -> str:
        return self.analysis.text

    def search(self, text: str, k: int, scope: Scope,
               vector: np.ndarray | None = None) -> tuple[list[Hit], dict[str, float]]:
        """The ``k`` best hits of ``text`` inside ``scope`` under the strategy (``core.retrieval.search.search``),
        by the question's vector unless ``vector`` is another text's."""
        self.searches += 1
        return search(self.store, text, self.vector if vector is None else vector, k, scope, self.config,
                      sibling=self.sibling)
