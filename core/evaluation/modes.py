"""The evaluation modes: named calls of the retrieval pipeline (``core.retrieval.retrieve``), nothing else.

=============  ==================================================  ======================================
mode           search (``core.retrieval.search``)                  context
=============  ==================================================  ======================================
plain          vector, whole collection                            the hits as they are
hierarchical   vector, whole collection                            partial trees, no sections brought in
contextual     vector over the contextual index, whole              partial trees, no sections brought in
fulltext       full-text over heading path + text, whole           partial trees, no sections brought in
hybrid         the hybrid strategy, whole collection               partial trees, no sections brought in
default        exactly what ``ask`` and the Compare page run:       partial trees with the heading hits'
               the default strategy, scoped by the headings the     sections (default children budget)
               question names
=============  ==================================================  ======================================

The modes are read from the strategy registry (:func:`mode_specs`): ``plain``, one per strategy, ``default``.
The first five isolate one ingredient each (they are the baselines the README's tables compare against);
``default`` is the product. All modes share one query embedding (each is charged for it in its latency, since
each would pay it alone). Modes with the same search share one retrieval.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from core.evaluation.mode_names import ALL_MODES, DEFAULT_MODES, parse_modes
from core.ingest.contextual import ContextualSync, build_contextual_index
from core.progress import ProgressCallback, no_progress
from core.retrieval import (
    DEFAULT_CHILDREN_BUDGET,
    DEFAULT_SEARCH,
    MAX_K,
    REGISTRY,
    STRATEGIES,
    Context,
    Hit,
    Retrieval,
    RetrievalRequest,
    SearchConfig,
    embed_query,
    retrieve,
)
from core.retrieval.contextual import contextual_index
from core.store import ElementStore
from core.store.evaluation_tables import EvaluationTables
from core.tokens import count_tokens

__all__ = [
    "ALL_MODES",
    "DEFAULT_MODES",
    "MODE_SPECS",
    "ModeRetrieval",
    "ModeRunner",
    "ModeSpec",
    "ensure_schema",
    "mode_specs",
    "parse_modes",
]

@dataclass(frozen=True)
class ModeSpec:
    """One evaluation mode: the search, the children budget and which of the two contexts is scored."""

    search: SearchConfig
    children_budget: int
    context: str  # "plain" or "hierarchical"


def mode_specs() -> dict[str, ModeSpec]:
    """The modes, read from the strategy registry (``core.retrieval.strategies.REGISTRY``): ``plain`` (the
    :data:`BASELINE` strategy's hits as they are), one mode per strategy (its hits as partial trees, whole
    collection, no sections), and ``default``."""
    whole = {name: STRATEGIES[name].but(headings=False) for name in REGISTRY}
    return {
        "plain": ModeSpec(whole[BASELINE], 0, "plain"),
        **{s.mode: ModeSpec(whole[name], 0, "hierarchical") for name, s in REGISTRY.items()},
        "default": ModeSpec(DEFAULT_SEARCH, DEFAULT_CHILDREN_BUDGET, "hierarchical"),
        "routed": ModeSpec(DEFAULT_SEARCH.but(route=True), DEFAULT_CHILDREN_BUDGET, "hierarchical"),
    }


BASELINE = "vector"  # the strategy whose plain context is the "plain" mode
MODE_SPECS: dict[str, ModeSpec] = mode_specs()


def ensure_schema(store: ElementStore) -> None:
    """The evaluation tables (idempotent, serialised across processes)."""
    EvaluationTables(store.url).ensure_schema()


@dataclass
class ModeRetrieval:
    """What one mode produced for one question: ranked hits, the context, and stage timings (ms)."""

    mode: str
    hits: list[Hit]
    context: Context
    timings: dict[str, float] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    @property
    def latency_ms(self) -> float:
        return round(sum(self.timings.values()), 3)


class ModeRunner:
    """Runs the chosen modes for one question at a time against one collection.

    Construction prepares what the modes need: the evaluation schema and, for
    ``contextual``, the collection's contextual index. That index must be up to date
    (:class:`~core.retrieval.contextual.ContextualIndexError` otherwise), unless ``build_contextual`` asks to build
    or update it first, as a step of its own reported to ``progress`` (stage ``"contextual"``). ``statements`` brings
    the collection's statement tiers up to date first (offline; only element rows not read yet are read).
    """

    def __init__(self, store: ElementStore, modes: Sequence[str] = DEFAULT_MODES, *, k: int = 4,
                 progress: ProgressCallback = no_progress, build_contextual: bool = False) -> None:
        if not 1 <= k <= MAX_K:
            raise ValueError(f"k must be between 1 and {MAX_K}, got {k}")
        self.store = store
        self.modes = parse_modes(list(modes))
        self.k = k
        ensure_schema(store)
        self.contextual_store: ElementStore | None = None
        self.contextual_sync: ContextualSync | None = None
        if "contextual" in self.modes and build_contextual:
            self.contextual_store, self.contextual_sync = build_contextual_index(store, progress=progress)
        elif "contextual" in self.modes:
            self.contextual_store = contextual_index(store)
        if {"statements", "topics"} & set(self.modes):  # the tiers, built or brought up to date (offline)
            from core.ingest.tiers import sync_tiers

            sync_tiers(store)
        # The first call of the tokenizer and of the embedder loads tables (hundreds of ms): keep that out of
        # the first question's latency.
        count_tokens("warm up")
        embed_query(store, "warm up")

    def run(self, question: str) -> dict[str, ModeRetrieval]:
        t0 = time.perf_counter()
        vector = embed_query(self.store, question)
        embed_ms = round((time.perf_counter() - t0) * 1000.0, 3)
        shared: dict[tuple[SearchConfig, int], Retrieval] = {}
        out: dict[str, ModeRetrieval] = {}
        for mode in self.modes:
            spec = MODE_SPECS[mode]
            key = (spec.search, spec.children_budget)
            if key not in shared:
                request = RetrievalRequest(question, k=self.k, search=spec.search,
                                           children_budget=spec.children_budget, query_vector=vector)
                shared[key] = retrieve(self.store, request, sibling=self.contextual_store)
            got = shared[key]
            context = got.context("plain" if spec.context == "plain" else "hierarchical")
            timings = {"embed_query": embed_ms, "search": got.search_ms,
                       spec.context + "_context": got.timings["plain_context" if spec.context == "plain" else "expand"]}
            out[mode] = ModeRetrieval(mode, got.hits, context, timings, list(got.notes))
        return out
