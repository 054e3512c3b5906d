"""Community reports in GraphRAG's shape: title, summary, rating 0–10 with a one-line explanation, findings.

Every finding cites ids that exist: entities and relationships of the index, and element ids of the store.

Two generators write them: :mod:`core.graph.reports.extractive` (offline, ``generated_by="extractive"``) and
:mod:`core.graph.reports.llm` (``generated_by="llm"``, falling back to the extractive report when a reply does not
parse, or its call fails). Their shared material is in :mod:`core.graph.reports.context`.

**The 5-finding rule:** a report has at least ``min(5, material)`` findings, where ``material`` is the number
of relationships plus entities of the community (plus, for a section, its content sentences). So a two-entity
community with one relationship has three findings: there is nothing else to say that is not invented.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from core.graph.communities.entity_graph import GraphData
from core.graph.llm_cache import CachedChat, LLMCallError, ModelFailingError
from core.graph.reports.context import ReportContext, ReportStats, content_sentences
from core.graph.reports.extractive import extractive_report
from core.graph.reports.llm import llm_report
from core.graph.reports.themes import Themes
from core.progress import Progress, ProgressCallback, no_progress
from core.store.graph_records import MAX_FINDINGS, MIN_FINDINGS, Community, Report

__all__ = ["DEFAULT_CONTEXT_TOKENS", "ReportStats", "generate_reports", "material"]

log = logging.getLogger(__name__)

DEFAULT_CONTEXT_TOKENS = 6000


def material(community: Community, graph: GraphData) -> int:
    """How many findings the data can support (see the 5-finding rule in the module docstring)."""
    n = len(community.entity_ids) + len(community.relationship_ids)
    if community.kind == "structural":
        n += len(content_sentences(community, graph))
    return n


def generate_reports(
    graph: GraphData,
    communities: Sequence[Community],
    *,
    chat: CachedChat | None = None,
    context_tokens: int = DEFAULT_CONTEXT_TOKENS,
    concurrency: int = 4,
    min_findings: int = MIN_FINDINGS,
    max_findings: int = MAX_FINDINGS,
    progress: ProgressCallback = no_progress,
    element_vectors: dict[str, np.ndarray] | None = None,
) -> tuple[list[Report], ReportStats]:
    """A report for every community. Finest levels first, so parents can use their children's reports.

    ``element_vectors`` (element id → stored embedding) lets summaries pick central, non-redundant sentences.
    """
    by_id = {c.id: c for c in communities}
    max_size: dict[tuple[str, int], int] = defaultdict(int)
    for c in communities:
        max_size[(c.kind, c.level)] = max(max_size[(c.kind, c.level)], c.size)
    ctx = ReportContext(graph, by_id, graph.strength(), max_size, themes=Themes(graph, communities, element_vectors))
    stats = ReportStats()
    order = sorted(communities, key=lambda c: (c.kind, -c.level, c.human_readable_id))
    done = 0
    total = len(order)

    def one(c: Community) -> tuple[Report, ReportStats]:
        local = ReportStats()
        fallback = extractive_report(c, ctx, min_findings=min_findings, max_findings=max_findings)
        if chat is None:
            return fallback, local
        if chat.failing:
            raise ModelFailingError(chat)
        try:
            report = llm_report(c, ctx, chat, context_tokens=context_tokens, min_findings=min_findings,
                                max_findings=max_findings, fallback=fallback, stats=local)  # fmt: skip
        except LLMCallError as exc:
            if chat.failing:
                raise ModelFailingError(chat) from exc
            log.warning("community %s: the report call failed (%s); it gets the extractive report", c.id, exc)
            local.fallbacks += 1
            return fallback, local
        return report or fallback, local

    levels: dict[tuple[str, int], list[Community]] = defaultdict(list)
    for c in order:
        levels[(c.kind, c.level)].append(c)
    with ThreadPoolExecutor(max_workers=max(1, concurrency if chat is not None else 1)) as pool:
        try:
            for key in sorted(levels, key=lambda k: (k[0], -k[1])):
                batch = levels[key]
                for c, (report, local) in zip(batch, pool.map(one, batch), strict=True):
                    ctx.reports[c.id] = report
                    stats.fallbacks += local.fallbacks
                    stats.dropped_findings += local.dropped_findings
                    if report.generated_by == "llm":
                        stats.llm += 1
                    else:
                        stats.extractive += 1
                    done += 1
                    progress(Progress("reports", done, total))
        except BaseException:
            # A failure, or a progress callback that stops the run (a cancelled job): the calls not yet started
            # are dropped, not made only to be thrown away.
            pool.shutdown(wait=False, cancel_futures=True)
            raise
    return [ctx.reports[c.id] for c in sorted(communities, key=lambda c: (c.kind, c.level, c.human_readable_id))], stats
