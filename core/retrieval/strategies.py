"""The registry of search strategies: the one list the CLI, the Compare page, evaluation and benchmarks derive from.

A strategy is a small frozen :class:`SearchConfig` (in the style of langchain-postgres' ``HybridSearchConfig``):
which lists are searched (vector over the element texts, vector over the contextual sibling collection,
full-text over heading path + text), how they are fused, and whether the question's heading names scope the
search (``core.retrieval.headings``). :data:`REGISTRY` names each one with a short summary and where it is
offered; ``ask --search`` offers every entry (:func:`search_choices`), the Compare page those shown there
(:func:`compare_choices`), evaluation one mode per entry (``core.evaluation.modes``). Adding a strategy is one
entry here plus its search code. :data:`DEFAULT_SEARCH` is the one they run unless told otherwise, chosen by
measurement (README, "Retrieval: strategies and measurements").
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any, Literal

__all__ = [
    "DEFAULT_NAME",
    "DEFAULT_SEARCH",
    "DEFAULT_STRATEGY",
    "MAX_K",
    "REGISTRY",
    "STRATEGIES",
    "STAGE_LISTS",
    "SearchConfig",
    "Strategy",
    "compare_choices",
    "describe_choices",
    "search_choices",
    "search_config",
    "stage_list",
]

MAX_K = 50
Fusion = Literal["rrf", "relative"]


@dataclass(frozen=True)
class SearchConfig:
    """How hits are found; compare two with ``==``, derive one with :meth:`but`.

    * ``vector`` / ``fulltext``: which candidate lists are searched. ``contextual`` makes the vector list come
      from the sibling collection whose vectors embed "heading › path › text" (``core.retrieval.contextual``).
    * ``fusion``: ``rrf`` (weighted reciprocal rank, k = 60) or ``relative`` (each list's scores scaled
      to 0..1 by its best and worst candidate, then a weighted sum); ``candidates`` per list.
    * ``fulltext_weight``: the full-text list's weight in fusion against the vector list's 1. Either fusion ranks
      by the ratio of the two weights only, so the vector list's weight is the unit, not a setting.
    * ``fulltext_cutoff``: lexical candidates under this share of the best lexical score are dropped before
      fusion, so a long tail that shares one common word cannot outvote the element holding the rare token.
    * ``joined_name_share``: a hyphenated word held by at least this share of the collection's elements is a name
      the collection repeats ("semantic-release", "USB-C"), not the question's subject: full-text search drops the
      parts the parser reads beside it (``core.retrieval.search``, docs/repeated-names.md).
    * ``korean_prefix_min``: a Korean word of at least this many syllables that the question writes bare and no
      element holds bare is searched as a prefix too (the documents write it with a particle or an ending).
    * ``headings``: match the question's names against heading paths and search inside the matching subtrees
      first (``core.retrieval.headings``); ``False`` is "search everywhere".
    * ``include_metadata``: also search elements that are only HTML comments (stored, not content by default).
    * ``statements``: search the collection's statements instead of its elements and join them across sections
      and documents through shared facts and entities (``core.retrieval.statement_search``); its hits are the
      elements stating the statements chosen.
    * ``topics``: search the collection's topics (heading sections), widen them to topics linked through shared
      entities by a beam, and return their statements grouped by topic (``core.retrieval.topic_search``).
    * ``route``: the router (``core.retrieval.router``) sends a question whose evidence must bridge two things to
      the ``statements`` search when the collection has the tiers; any other question takes this config's path.
    * ``parts``: a question asking several facts at once (``core.retrieval.parts``) is searched part by part on
      this config's own path (``core.retrieval.parts_search``), ``k`` hits for each part; a comparative,
      superlative or list question keeps its own handling.
    """

    name: str
    vector: bool = True
    fulltext: bool = False
    contextual: bool = False
    fusion: Fusion = "rrf"
    fulltext_weight: float = 2.0
    candidates: int = 20
    fulltext_cutoff: float = 0.5
    joined_name_share: float = 0.1
    korean_prefix_min: int = 3
    headings: bool = True
    include_metadata: bool = False
    statements: bool = False
    topics: bool = False
    route: bool = False
    parts: bool = False

    def __post_init__(self) -> None:
        if not (self.vector or self.fulltext):
            raise ValueError("a search needs the vector list, the full-text list or both")
        if self.fusion not in ("rrf", "relative"):
            raise ValueError(f"unknown fusion {self.fusion!r}; choose rrf or relative")
        if not 1 <= self.candidates <= MAX_K:
            raise ValueError(f"candidates must be between 1 and {MAX_K}")

    def but(self, **changes: Any) -> SearchConfig:
        return replace(self, **changes)

    @property
    def hybrid(self) -> bool:
        return self.vector and self.fulltext

    def describe(self) -> str:
        if self.statements:
            return ("statements by vector + full text + exact entity match, joined through shared facts and "
                    "entities (hop budget), re-ranked; whole collection")
        if self.topics:
            return ("topics (heading sections) by vector + full text, widened through shared entities by a beam, "
                    "their statements grouped by topic; whole collection")
        lists = [n for n, on in (("contextual vector" if self.contextual else "vector", self.vector),
                                 ("full-text", self.fulltext)) if on]
        text = " + ".join(lists)
        if self.hybrid:
            text += (f", {self.fusion} fusion (weights 1:{self.fulltext_weight:g}, "
                     f"{self.candidates} candidates a side)")
        text += ", scoped by the headings the question names" if self.headings else ", whole collection"
        if self.include_metadata:
            text += ", comments searched"
        if self.route:
            text += "; a question bridging two things goes to the statements search"
        if self.parts:
            text += "; a question asking several things is searched part by part"
        return text

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "vector": self.vector, "fulltext": self.fulltext, "contextual": self.contextual,
                "fusion": self.fusion, "fulltext_weight": self.fulltext_weight,
                "candidates": self.candidates, "fulltext_cutoff": self.fulltext_cutoff,
                "headings": self.headings, "include_metadata": self.include_metadata,
                "statements": self.statements, "topics": self.topics, "route": self.route,
                "parts": self.parts}


@dataclass(frozen=True)
class Strategy:
    """One named strategy and where it is offered.

    ``summary``: a few words for a selector's help. ``in_compare``: offered on the Compare page.
    ``evaluation_mode``: the evaluation mode that isolates it (whole collection, no sections brought in).
    """

    config: SearchConfig
    summary: str
    in_compare: bool = True
    evaluation_mode: str | None = None

    @property
    def name(self) -> str:
        return self.config.name

    @property
    def needs_contextual_index(self) -> bool:
        """It searches the collection's contextual index, which must be built first."""
        return self.config.contextual

    @property
    def mode(self) -> str:
        return self.evaluation_mode or self.name

    @property
    def stages(self) -> tuple[str, ...]:
        """The named stages it runs (:data:`STAGE_LISTS`)."""
        return stage_list(self.config)


# Hybrid's fusion, weights and candidates were chosen with bench/bench_fusion.py on the question sets generated from
# the samples and from the Python-Markdown docs (README, "Retrieval"): relative score fusion with full text weighted
# 2:1 kept the strong lexical match that equal-weight RRF (main's hybrid) let near-duplicates present in both lists
# outvote: recall 0.96 → 0.99 (Python-Markdown), 0.87 → 0.98 (samples, generated).
REGISTRY: dict[str, Strategy] = {
    s.name: s
    for s in (
        # The vector strategy's evaluation mode is "hierarchical": the same hits as the "plain" baseline, in trees.
        Strategy(SearchConfig("vector"), "vector similarity of the element texts", evaluation_mode="hierarchical"),
        # Not on the Compare page: it needs the contextual index, which most collections do not have.
        Strategy(SearchConfig("contextual", contextual=True), "vector similarity of heading path + text",
                 in_compare=False),
        Strategy(SearchConfig("fulltext", vector=False, fulltext=True), "full-text match of heading path + text"),
        Strategy(SearchConfig("hybrid", fulltext=True, fusion="relative", parts=True),
                 "vector and full-text, fused"),
        # Issue 31: needs the statement tiers (`python -m core index`), which later ingests keep up to date.
        Strategy(SearchConfig("statements", fulltext=True, headings=False, statements=True, parts=True),
                 "statements joined across sections and documents through shared facts and entities"),
        Strategy(SearchConfig("topics", fulltext=True, headings=False, topics=True),
                 "topics (heading sections) linked through shared entities, their statements grouped"),
    )
}
# The stages each kind of strategy runs (core.retrieval.stages): scoped by the headings the question names, or the
# whole collection searched once.
STAGE_LISTS: dict[str, tuple[str, ...]] = {
    "scoped": ("heading scope", "evidence probe", "entity hits", "context", "reader"),
    "whole": ("search", "context", "reader"),
    "statements": ("statement entry", "statement expansion", "context", "reader"),
    "topics": ("topic beam", "topic statements", "context", "reader"),
}


def stage_list(config: SearchConfig) -> tuple[str, ...]:
    """The named stages a retrieval under ``config`` runs."""
    if config.statements:
        return STAGE_LISTS["statements"]
    if config.topics:
        return STAGE_LISTS["topics"]
    return STAGE_LISTS["scoped" if config.headings else "whole"]


DEFAULT_NAME = "default"  # the name every selector offers for DEFAULT_STRATEGY
DEFAULT_STRATEGY = "hybrid"


class _Configs(Mapping[str, SearchConfig]):
    """Name → config, read through from :data:`REGISTRY` (an entry added there is here too)."""

    def __getitem__(self, name: str) -> SearchConfig:
        return REGISTRY[name].config

    def __iter__(self) -> Iterator[str]:
        return iter(REGISTRY)

    def __len__(self) -> int:
        return len(REGISTRY)


STRATEGIES: Mapping[str, SearchConfig] = _Configs()
# The default does not route a bridge to the statements search: on the held-out multi-fact sets that raised no answer
# rate where it was tuned, lowered one report-only set's and doubled p50 where it routed (docs/hlg.md, "The router").
# Mode `routed` runs it. A question of several asks is searched part by part (`parts`): docs/hlg-multihop2.md.
DEFAULT_SEARCH = STRATEGIES[DEFAULT_STRATEGY]


def search_choices() -> tuple[str, ...]:
    """What ``ask --search`` accepts: ``default`` and every strategy."""
    return (DEFAULT_NAME, *REGISTRY)


def compare_choices() -> tuple[str, ...]:
    """What the Compare page's selector offers: ``default`` and the strategies shown there."""
    return (DEFAULT_NAME, *(name for name, s in REGISTRY.items() if s.in_compare))


def describe_choices(names: tuple[str, ...]) -> str:
    """One line naming what each choice searches, for a selector's help."""
    def one(name: str) -> str:
        strategy = REGISTRY.get(name)
        summary = strategy.summary if strategy else f"the measured default, {DEFAULT_STRATEGY}"
        if strategy and strategy.needs_contextual_index:
            summary += ", needs the contextual index"
        return f"{name}: {summary} ({search_config(name).describe()})"

    return "; ".join(one(n) for n in names)


def search_config(value: str | SearchConfig | None, *, headings: bool | None = None) -> SearchConfig:
    """A named strategy (``None`` or ``"default"`` is :data:`DEFAULT_SEARCH`); ``headings`` overrides its scoping."""
    if isinstance(value, SearchConfig):
        config = value
    else:
        name = (value or DEFAULT_NAME).strip().lower()
        if name == DEFAULT_NAME:
            config = DEFAULT_SEARCH
        elif name in REGISTRY:
            config = REGISTRY[name].config
        else:
            raise ValueError(f"unknown search {value!r}; choose from {', '.join(search_choices())}")
    return config if headings is None else config.but(headings=headings)
