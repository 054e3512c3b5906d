"""The GraphRAG index pipeline: text units → entities and relationships → communities → reports → tables.

``build_index(store)`` reads the collection's elements, builds everything in memory, then replaces the
collection's graph tables in **one transaction**. If anything fails before or during that transaction (a chat
model error, a constraint violation), the previous index stays exactly as it was. LLM responses are cached in
Postgres as they arrive (outside that transaction), so a re-run after a failure does not pay for them twice, and
re-indexing an unchanged corpus makes no LLM calls at all.

Progress: ``progress(Progress(stage, done, total))`` (:class:`core.progress.Progress`) is called as each stage
advances, for a progress bar. The stages, in order, are :data:`STAGES`.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from core.graph.communities.entity_graph import (
    DEFAULT_MAX_ENTITIES_PER_UNIT,
    DEFAULT_UNIT_ANCHORS,
    GraphData,
    build_graph,
)
from core.graph.communities.layout import precomputed_layouts
from core.graph.communities.leiden import DEFAULT_MAX_CLUSTER_SIZE, DEFAULT_SEED, entity_communities
from core.graph.communities.structural import DEFAULT_STRUCTURAL_DEPTH, structural_communities
from core.graph.extraction.drafts import Extraction
from core.graph.extraction.llm import DEFAULT_CONCURRENCY, DEFAULT_GLEANINGS, LLMExtractor
from core.graph.extraction.offline import OfflineExtractor
from core.graph.extraction.text_units import DEFAULT_UNIT_TOKENS, build_text_units
from core.graph.llm_cache import CachedChat, default_chat_model
from core.graph.prompts import DEFAULT_ENTITY_TYPES
from core.graph.reports.generate import DEFAULT_CONTEXT_TOKENS, ReportStats, generate_reports
from core.progress import Progress, ProgressCallback, no_progress
from core.store import graph_tables
from core.store.graph_records import MAX_FINDINGS, MIN_FINDINGS, Community, IndexReport, Report

if TYPE_CHECKING:
    import numpy as np
    from langchain_core.language_models import BaseChatModel

    from core.config import Settings
    from core.store import ElementStore

log = logging.getLogger(__name__)

STAGES: tuple[str, ...] = (
    "load", "text_units", "extraction", "graph", "communities", "structural", "reports", "store",
)  # fmt: skip

class GraphIndexError(RuntimeError):
    """The index run failed; the collection's previous index (if any) is unchanged."""


@dataclass(frozen=True)
class IndexConfig:
    """Knobs of an index run. ``extraction``/``reports``: ``"auto"`` uses the LLM when one is available."""

    unit_tokens: int = DEFAULT_UNIT_TOKENS
    max_cluster_size: int = DEFAULT_MAX_CLUSTER_SIZE
    seed: int = DEFAULT_SEED
    extraction: str = "auto"  # auto | offline | llm
    reports: str = "auto"  # auto | extractive | llm
    english_ner: str = "auto"  # auto | spacy | heuristic
    entity_types: tuple[str, ...] = DEFAULT_ENTITY_TYPES
    gleanings: int = DEFAULT_GLEANINGS
    concurrency: int = DEFAULT_CONCURRENCY
    max_entities_per_unit: int = DEFAULT_MAX_ENTITIES_PER_UNIT
    unit_anchors: int = DEFAULT_UNIT_ANCHORS
    report_context_tokens: int = DEFAULT_CONTEXT_TOKENS
    structural_depth: int = DEFAULT_STRUCTURAL_DEPTH
    min_findings: int = MIN_FINDINGS
    max_findings: int = MAX_FINDINGS

    def __post_init__(self) -> None:
        if self.extraction not in ("auto", "offline", "llm"):
            raise ValueError("extraction must be auto, offline or llm")
        if self.reports not in ("auto", "extractive", "llm"):
            raise ValueError("reports must be auto, extractive or llm")
        if self.max_cluster_size < 2:
            raise ValueError("max_cluster_size must be at least 2")
        if not 1 <= self.min_findings <= self.max_findings:
            raise ValueError("need 1 <= min_findings <= max_findings")


@dataclass
class IndexResult:
    """Everything one run built (what gets written), for tests and tools that want the objects."""

    graph: GraphData
    communities: list[Community]
    reports: list[Report]
    report: IndexReport
    params: dict[str, Any] = field(default_factory=dict)


def build_index(
    store: ElementStore,
    *,
    chat_model: BaseChatModel | None = None,
    config: IndexConfig | None = None,
    settings: Settings | None = None,
    progress: ProgressCallback = no_progress,
) -> IndexReport:
    """Index ``store``'s collection and replace its graph tables atomically; see the module docstring.

    ``chat_model`` is any LangChain ``BaseChatModel``. Without one, the configured model is used when
    ``settings.has_llm`` (``OPENAI_API_KEY``), else everything runs offline.
    """
    return run_index(store, chat_model=chat_model, config=config, settings=settings, progress=progress).report


def run_index(
    store: ElementStore,
    *,
    chat_model: BaseChatModel | None = None,
    config: IndexConfig | None = None,
    settings: Settings | None = None,
    progress: ProgressCallback = no_progress,
    write: bool = True,
) -> IndexResult:
    config = config or IndexConfig()
    started = time.perf_counter()
    timings: dict[str, float] = {}

    def notify(stage: str, done: int, total: int) -> None:
        progress(Progress(stage, done, total))

    def timed(stage: str) -> _Timer:
        return _Timer(stage, timings, notify)

    if chat_model is None and (config.extraction == "llm" or config.reports == "llm" or config.extraction == "auto"):
        if settings is None:
            from core.config import load_settings

            settings = load_settings()
        if settings.has_llm:
            chat_model = default_chat_model(settings)
        elif config.extraction == "llm" or config.reports == "llm":
            raise GraphIndexError("LLM extraction/reports were requested but no chat model is configured")
    use_llm_extraction = chat_model is not None and config.extraction in ("auto", "llm")
    use_llm_reports = chat_model is not None and config.reports in ("auto", "llm")

    store = store.primary_only()  # the index is built from, and written to, the primary
    graph_tables.GraphTables(store).ensure_schema()
    chat = CachedChat(chat_model, pool=store.pool, collection_id=store.collection_id) if chat_model else None

    try:
        with timed("load"):
            docs = store.documents()
            documents = [(d.document_id, store.elements(d.document_id)) for d in docs]
            titles = [(d.document_id, d.title or d.filename) for d in docs]
            notify("load", len(docs), len(docs))

        with timed("text_units"):
            units, infos = build_text_units(documents, max_tokens=config.unit_tokens)
            notify("text_units", len(units), len(units))

        with timed("extraction"):
            if use_llm_extraction:
                assert chat is not None
                extractor = LLMExtractor(chat, entity_types=config.entity_types, gleanings=config.gleanings,
                                         concurrency=config.concurrency)  # fmt: skip
                extraction = extractor.extract(units, infos, progress)
            else:
                extraction = OfflineExtractor(english_ner=config.english_ner).extract(units, infos)
                notify("extraction", len(units), len(units))

        with timed("graph"):
            graph = build_graph(extraction, units, infos, max_entities_per_unit=config.max_entities_per_unit,
                                unit_anchors=config.unit_anchors)  # fmt: skip
            notify("graph", 1, 1)

        with timed("communities"):
            entity_comms = entity_communities(graph, max_cluster_size=config.max_cluster_size, seed=config.seed)
            notify("communities", 1, 1)

        with timed("structural"):
            structural = structural_communities(graph, titles, max_depth=config.structural_depth)
            notify("structural", 1, 1)

        all_communities = entity_comms + structural
        with timed("reports"):
            vectors = _element_vectors(store)
            reports, report_stats = generate_reports(
                graph,
                all_communities,
                chat=chat if use_llm_reports else None,
                context_tokens=config.report_context_tokens,
                concurrency=config.concurrency,
                min_findings=config.min_findings,
                max_findings=config.max_findings,
                progress=progress,
                element_vectors=vectors,
            )
            layouts = precomputed_layouts(all_communities, graph.relationships,
                                          {e.id: e.degree for e in graph.entities})  # fmt: skip
        titles_by_id = {r.community_id: r.title for r in reports}
        for c in all_communities:
            c.title = titles_by_id.get(c.id, c.title)
    except GraphIndexError:
        raise
    except Exception as exc:
        raise GraphIndexError(f"indexing {store.collection!r} failed: {exc}; the previous index is unchanged") from exc

    extraction_mode = "llm" if use_llm_extraction else "offline"
    params = _params(config, extraction_mode, use_llm_reports, chat)
    report = _report(graph, entity_comms, structural, reports, report_stats, chat, extraction, extraction_mode,
                     timings, started)  # fmt: skip
    if write:
        with timed("store"):
            try:
                graph_tables.GraphTables(store).replace_index(
                    units=graph.units,
                    entities=graph.entities,
                    relationships=graph.relationships,
                    communities=all_communities,
                    reports=reports,
                    extraction=extraction_mode,
                    params=params,
                    stats=report.to_dict(),
                    layouts=layouts,
                )
            except Exception as exc:
                raise GraphIndexError(
                    f"storing the index of {store.collection!r} failed: {exc}; the previous index is unchanged"
                ) from exc
            notify("store", 1, 1)
        report.stages = dict(timings)
        report.seconds = round(time.perf_counter() - started, 3)
    return IndexResult(graph, all_communities, reports, report, params)


def _element_vectors(store: ElementStore) -> dict[str, np.ndarray]:
    """Element id → stored embedding (numpy), or {} when the store cannot say (summaries then skip centrality)."""
    try:
        return graph_tables.GraphTables(store).element_vectors()
    except Exception as exc:  # a store without pgvector rows must still index
        log.warning("element vectors unavailable (%s); summaries use mention counts", exc)
        return {}


class _Timer:
    def __init__(self, stage: str, timings: dict[str, float], notify: Callable[[str, int, int], None]) -> None:
        self.stage = stage
        self.timings = timings
        self.notify = notify

    def __enter__(self) -> _Timer:
        self.start = time.perf_counter()
        self.notify(self.stage, 0, 1)
        return self

    def __exit__(self, *exc: object) -> None:
        self.timings[self.stage] = round(time.perf_counter() - self.start, 3)


def _params(config: IndexConfig, extraction: str, llm_reports: bool, chat: CachedChat | None) -> dict[str, Any]:
    from core.graph.extraction.names_english import english_ner_method

    params = asdict(config)
    params["entity_types"] = list(config.entity_types)
    params["extraction_used"] = extraction
    params["reports_used"] = "llm" if llm_reports else "extractive"
    params["model"] = chat.model_id if chat is not None else None
    if extraction == "offline":
        params["english_ner_used"] = "heuristic" if config.english_ner == "heuristic" else english_ner_method()
    return params


def _report(
    graph: GraphData,
    entity_comms: Sequence[Community],
    structural: Sequence[Community],
    reports: Sequence[Report],
    stats: ReportStats,
    chat: CachedChat | None,
    extraction: Extraction,
    mode: str,
    timings: dict[str, float],
    started: float,
) -> IndexReport:
    return IndexReport(
        text_units=len(graph.units),
        entities=len(graph.entities),
        relationships=len(graph.relationships),
        communities=dict(sorted(Counter(c.level for c in entity_comms).items())),
        structural_communities=dict(sorted(Counter(c.level for c in structural).items())),
        reports=len(reports),
        llm_reports=stats.llm,
        extractive_reports=stats.extractive,
        llm_calls=chat.calls if chat else 0,
        cached_calls=chat.cached if chat else 0,
        skipped_llm_replies=extraction.skipped_records + stats.fallbacks,
        extraction=mode,
        seconds=round(time.perf_counter() - started, 3),
        stages=dict(timings),
    )
