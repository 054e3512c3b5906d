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
from dataclasses import asdict, dataclass, field, replace
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
from core.graph.extraction.llm import DEFAULT_GLEANINGS, LLMExtractor
from core.graph.extraction.offline import OfflineExtractor
from core.graph.extraction.text_units import DEFAULT_UNIT_TOKENS, ElementInfo, build_text_units
from core.graph.llm_cache import CachedChat, ModelFailingError
from core.graph.prompts import DEFAULT_ENTITY_TYPES
from core.graph.reports.generate import DEFAULT_CONTEXT_TOKENS, ReportStats, generate_reports
from core.progress import Progress, ProgressCallback, no_progress
from core.store import graph_tables
from core.store.graph_records import MAX_FINDINGS, MIN_FINDINGS, Community, IndexReport, Report, TextUnit

if TYPE_CHECKING:
    import numpy as np
    from langchain_core.documents import Document
    from langchain_core.language_models import BaseChatModel

    from core.config import Settings
    from core.store import ElementStore

log = logging.getLogger(__name__)

STAGES: tuple[str, ...] = (
    "load", "text_units", "extraction", "graph", "communities", "structural", "reports", "store",
)  # fmt: skip

Layouts = dict[str, dict[str, list[float]]]  # community id → entity id → [x, y], as precomputed_layouts makes them


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
    concurrency: int | None = None  # model calls at once; None: HKE_LLM_CONCURRENCY (Settings.llm_concurrency)
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
    """Build the index in its stages (:data:`STAGES`) and, when ``write``, store it; see :func:`build_index`."""
    from core.config import load_settings
    from core.llm import RetryPolicy

    config = config or IndexConfig()
    settings = settings or load_settings()
    if config.concurrency is None:
        config = replace(config, concurrency=settings.llm_concurrency)
    model = _chat_model(config, chat_model, settings)
    run = _Run(store.primary_only(), config, progress)  # the index is built from, and written to, the primary
    graph_tables.GraphTables(run.store).ensure_schema()
    chat = CachedChat(model, pool=run.store.pool, collection_id=run.store.collection_id,
                      policy=RetryPolicy.from_settings(settings)) if model else None
    try:
        documents, titles = _load(run)
        units, infos = _text_units(run, documents)
        extraction = _extract(run, chat, units, infos)
        graph = _graph(run, extraction, units, infos)
        entity_comms, structural = _communities(run, graph, titles)
        reports, report_stats, layouts = _reports(run, chat, graph, [*entity_comms, *structural])
    except GraphIndexError:
        raise
    except ModelFailingError as exc:
        raise GraphIndexError(f"indexing {run.store.collection!r} stopped: {exc}; the previous index is unchanged") \
            from exc
    except Exception as exc:
        raise GraphIndexError(f"indexing {run.store.collection!r} failed: {exc}; the previous index is unchanged") \
            from exc
    all_communities = [*entity_comms, *structural]
    extraction_mode = "llm" if run.llm_extraction(chat) else "offline"
    params = _params(config, extraction_mode, run.llm_reports(chat), chat)
    params["document_versions"] = run.document_versions  # what the Reports page compares with the current versions
    report = _report(graph, entity_comms, structural, reports, report_stats, chat, extraction, extraction_mode,
                     run.timings, run.started)  # fmt: skip
    report.llm_units, report.fallback_units = run.units_by
    report.fallback_reports = report_stats.fallbacks
    if write:
        _write(run, graph, all_communities, reports, extraction_mode, params, report, layouts)
        report.stages = dict(run.timings)
        report.seconds = round(time.perf_counter() - run.started, 3)
    return IndexResult(graph, all_communities, reports, report, params)


# -- the stages, in order -------------------------------------------------------------------------------------


@dataclass
class _Run:
    """What every stage of one run shares: the store, the knobs, progress and the stage timings."""

    store: ElementStore
    config: IndexConfig
    progress: ProgressCallback
    timings: dict[str, float] = field(default_factory=dict)
    started: float = field(default_factory=time.perf_counter)
    document_versions: dict[str, int] = field(default_factory=dict)  # the version of each document indexed
    units_by: tuple[int, int] = (0, 0)  # text units extracted by the model, and by the offline fallback

    def notify(self, stage: str, done: int, total: int) -> None:
        self.progress(Progress(stage, done, total))

    def timed(self, stage: str) -> _Timer:
        return _Timer(stage, self.timings, self.notify)

    def llm_extraction(self, chat: CachedChat | None) -> bool:
        return chat is not None and self.config.extraction in ("auto", "llm")

    def llm_reports(self, chat: CachedChat | None) -> bool:
        return chat is not None and self.config.reports in ("auto", "llm")


def _chat_model(
    config: IndexConfig, chat_model: BaseChatModel | None, settings: Settings | None
) -> BaseChatModel | None:
    """The chat model the run uses: the one given, else the configured one when the knobs may use it."""
    required = config.extraction == "llm" or config.reports == "llm"
    if chat_model is None and (required or config.extraction == "auto"):
        from core.llm import configured_chat_model

        chat_model = configured_chat_model(settings, streaming=True)  # a long reply shows progress to the deadline
        if chat_model is None and required:
            raise GraphIndexError("LLM extraction/reports were requested but no chat model is configured")
    return chat_model


def _load(run: _Run) -> tuple[list[tuple[str, Sequence[Document]]], list[tuple[str, str]]]:
    """Every document's elements, and its title."""
    with run.timed("load"):
        docs = run.store.documents()
        documents = [(d.document_id, run.store.elements(d.document_id)) for d in docs]
        versions = run.store.read.versions_of(doc_id for doc_id, _ in documents)
        run.document_versions = {doc_id: v.version for doc_id, v in versions.items()}
        titles = [(d.document_id, d.title or d.filename) for d in docs]
        run.notify("load", len(docs), len(docs))
    return documents, titles


def _text_units(
    run: _Run, documents: Sequence[tuple[str, Sequence[Document]]]
) -> tuple[list[TextUnit], dict[str, ElementInfo]]:
    with run.timed("text_units"):
        units, infos = build_text_units(documents, max_tokens=run.config.unit_tokens)
        run.notify("text_units", len(units), len(units))
    return units, infos


def _extract(run: _Run, chat: CachedChat | None, units: list[TextUnit], infos: dict[str, ElementInfo]) -> Extraction:
    """Entities and relationships of every unit: by the LLM when the run uses one (the offline extractor's for a
    unit the model gave nothing for), else offline."""
    config = run.config
    with run.timed("extraction"):
        if chat is not None and run.llm_extraction(chat):
            extractor = LLMExtractor(chat, entity_types=config.entity_types, gleanings=config.gleanings,
                                     concurrency=config.concurrency or 1,
                                     fallback=lambda todo, known: OfflineExtractor(
                                         english_ner=config.english_ner).extract(todo, known))  # fmt: skip
            extraction = extractor.extract(units, infos, run.progress)
            run.units_by = (extractor.llm_units, extractor.fallback_units)
            return extraction
        extraction = OfflineExtractor(english_ner=config.english_ner).extract(units, infos)
        run.notify("extraction", len(units), len(units))
        return extraction


def _graph(run: _Run, extraction: Extraction, units: list[TextUnit], infos: dict[str, ElementInfo]) -> GraphData:
    with run.timed("graph"):
        graph = build_graph(extraction, units, infos, max_entities_per_unit=run.config.max_entities_per_unit,
                            unit_anchors=run.config.unit_anchors)  # fmt: skip
        run.notify("graph", 1, 1)
    return graph


def _communities(
    run: _Run, graph: GraphData, titles: list[tuple[str, str]]
) -> tuple[list[Community], list[Community]]:
    """The entity communities (Leiden) and the structural ones (the documents' heading trees)."""
    with run.timed("communities"):
        entity_comms = entity_communities(graph, max_cluster_size=run.config.max_cluster_size, seed=run.config.seed)
        run.notify("communities", 1, 1)
    with run.timed("structural"):
        structural = structural_communities(graph, titles, max_depth=run.config.structural_depth)
        run.notify("structural", 1, 1)
    return entity_comms, structural


def _reports(
    run: _Run, chat: CachedChat | None, graph: GraphData, communities: list[Community]
) -> tuple[list[Report], ReportStats, Layouts]:
    """A report per community, its layout, and each community titled by its report."""
    config = run.config
    with run.timed("reports"):
        reports, stats = generate_reports(
            graph,
            communities,
            chat=chat if run.llm_reports(chat) else None,
            context_tokens=config.report_context_tokens,
            concurrency=config.concurrency or 1,
            min_findings=config.min_findings,
            max_findings=config.max_findings,
            progress=run.progress,
            element_vectors=_element_vectors(run.store),
        )
        layouts = precomputed_layouts(communities, graph.relationships,
                                      {e.id: e.degree for e in graph.entities})  # fmt: skip
    titles_by_id = {r.community_id: r.title for r in reports}
    for c in communities:
        c.title = titles_by_id.get(c.id, c.title)
    return reports, stats, layouts


def _write(
    run: _Run, graph: GraphData, communities: list[Community], reports: list[Report], extraction: str,
    params: dict[str, Any], report: IndexReport, layouts: Layouts,
) -> None:
    """Replace the collection's graph tables in one transaction."""
    store = run.store
    with run.timed("store"):
        try:
            graph_tables.GraphTables(store).replace_index(
                units=graph.units,
                entities=graph.entities,
                relationships=graph.relationships,
                communities=communities,
                reports=reports,
                extraction=extraction,
                params=params,
                stats=report.to_dict(),
                layouts=layouts,
            )
        except Exception as exc:
            raise GraphIndexError(
                f"storing the index of {store.collection!r} failed: {exc}; the previous index is unchanged"
            ) from exc
        run.notify("store", 1, 1)


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
