"""Global search: map-reduce over the community reports of one level.

**Which reports.** ``level=N`` takes the reports at level N plus the reports of coarser communities that have
no sub-communities (their entities appear at no finer level), so every clustered entity is covered once, as in
GraphRAG. ``level=None`` means :data:`DEFAULT_LEVEL`, or the finest level when there are fewer levels.

**With an LLM.** The reports are shuffled (seeded) into batches of at most ``batch_tokens``; each batch is mapped
to JSON points ``{"description", "score"}`` with a 0–100 helpfulness score; points scored 0 are dropped; the rest,
best first, are packed into ``reduce_tokens`` and reduced into one answer that cites ``[Data: Reports (id, …)]``.
Citations that name no report of the selection are removed from the cited ids. If no point survives, the answer
says the reports hold nothing relevant, without a reduce call.

**Offline.** An *overview* question ("What are the main themes?", "What is this corpus about?", "주요 주제는?",
see :func:`is_overview`) is answered from the top level: every level-0 report's title and summary, highest rated
first, each cited. Any other question is embedded with the store's embedder; each finding of the selected reports
is scored by the cosine similarity of the question to the stored vectors of the elements it cites (its evidence;
computed by pgvector, so no finding text is embedded at query time), plus :data:`LEXICAL_BONUS` when the finding
shares a content word with the question, weighted lightly by the report's rating. The best findings, at most two
per report, are composed into a cited, extractive answer labelled as such. Scores are similarities mapped to 0–100
to mirror the map step; findings below :data:`OFFLINE_MIN_SCORE` are not offered, and
when none reaches it the answer says that no report covers the question.

**Progress.** ``progress(Progress(stage, done, total))`` is called with ``"map"`` as each batch is mapped
(offline: one step, scoring the findings) and ``"reduce"`` at the end, always from the calling thread (map
batches run in a thread pool; a UI progress bar can only be updated from the thread that owns it).
"""

from __future__ import annotations

import logging
import random
import re
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np

from core.graph import prompts, read
from core.graph.llm_cache import CachedChat, default_chat_model
from core.graph.model import GlobalAnswer, GlobalPoint, Report
from core.graph.replies import parse_json_object, report_refs
from core.progress import Progress, ProgressCallback, no_progress
from core.retrieval.question import validate_question
from core.text import clip
from core.textnorm import match_terms

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

    from core.config import Settings
    from core.store import ElementStore

log = logging.getLogger(__name__)

DEFAULT_LEVEL = 1
DEFAULT_BATCH_TOKENS = 6000
DEFAULT_REDUCE_TOKENS = 6000
DEFAULT_SEED = 0xDEADBEEF
OFFLINE_TOP_K = 6
OFFLINE_MIN_SCORE = 35  # (similarity + lexical bonus) × 100 below which a finding is not offered
LEXICAL_BONUS = 0.1
MAX_EVIDENCE_PER_FINDING = 5


def select_reports(store: ElementStore, *, level: int | None, kind: str = "entity") -> tuple[int, list[Report]]:
    """The reports global search reads for ``level`` (see the module docstring) and the level used."""
    all_reports = read.load_reports(store, level=None, kind=kind)
    if not all_reports:
        return level if level is not None else 0, []
    max_level = max(r.level for r in all_reports)
    chosen = level if level is not None else min(DEFAULT_LEVEL, max_level)
    if chosen < 0:
        raise ValueError("level must be 0 or more")
    selected = [r for r in all_reports if r.level == chosen or (r.level < chosen and not r.children)]
    return chosen, selected


def global_search(
    store: ElementStore,
    question: str,
    *,
    level: int | None = None,
    kind: str = "entity",
    chat_model: BaseChatModel | None = None,
    use_llm: str = "auto",
    settings: Settings | None = None,
    batch_tokens: int = DEFAULT_BATCH_TOKENS,
    reduce_tokens: int = DEFAULT_REDUCE_TOKENS,
    response_type: str = prompts.DEFAULT_RESPONSE_TYPE,
    seed: int = DEFAULT_SEED,
    concurrency: int = 4,
    progress: ProgressCallback = no_progress,
) -> GlobalAnswer:
    """Answer ``question`` from the reports of one level; ``use_llm``: ``auto`` | ``llm`` | ``extractive``.

    ``progress``: see the module docstring (``"map"`` then ``"reduce"``).
    """
    if use_llm not in ("auto", "llm", "extractive"):
        raise ValueError("use_llm must be auto, llm or extractive")
    question = validate_question(question)  # the rules (and length limit) of every question input
    started = time.perf_counter()

    def notify(stage: str, done: int, total: int) -> None:
        progress(Progress(stage, done, total))

    chosen, reports = select_reports(store, level=level, kind=kind)
    if chat_model is None and use_llm != "extractive":
        if settings is None:
            from core.config import load_settings

            settings = load_settings()
        if settings.has_llm:
            chat_model = default_chat_model(settings)
        elif use_llm == "llm":
            raise ValueError("an LLM answer was requested but no chat model is configured")
    if chat_model is not None and use_llm != "extractive":
        from core.graph import tables

        tables.ensure_schema(store.pool)
        chat = CachedChat(chat_model, pool=store.pool, collection_id=store.collection_id)
        answer = _llm_search(question, reports, chat, chosen, kind, batch_tokens, reduce_tokens, response_type, seed,
                             concurrency, notify)  # fmt: skip
    else:
        notify("map", 0, 1)
        if is_overview(question):
            top_level = [r for r in read.load_reports(store, level=0, kind=kind)]
            answer = _offline_overview(question, top_level, kind)
        else:
            answer = _offline_search(store, question, reports, chosen, kind)
        notify("map", 1, 1)
    notify("reduce", 1, 1)
    answer.seconds = round(time.perf_counter() - started, 3)
    return answer


# -- LLM map-reduce ---------------------------------------------------------------------------------


def report_block(report: Report) -> str:
    """A report as the map step sees it: id, title, summary, rating and findings."""
    lines = [f"Report id: {report.community_id}", f"Title: {report.title}", f"Rating: {report.rating:g}",
             f"Summary: {report.summary}"]  # fmt: skip
    for f in report.findings:
        lines.append(f"- {f.summary}: {clip(f.explanation, 600)}")
    return "\n".join(lines)


def batches(reports: Sequence[Report], budget: int, seed: int) -> list[list[tuple[Report, str]]]:
    """Reports shuffled with ``seed`` and packed into batches of at most ``budget`` tokens each."""
    from core.tokens import count_tokens, truncate_to_tokens

    shuffled = list(reports)
    random.Random(seed).shuffle(shuffled)
    out: list[list[tuple[Report, str]]] = []
    current: list[tuple[Report, str]] = []
    used = 0
    for report in shuffled:
        block = report_block(report)
        cost = count_tokens(block)
        if cost > budget:  # one huge report: cut it to the budget rather than drop it
            block = truncate_to_tokens(block, budget)
            cost = budget
        if current and used + cost > budget:
            out.append(current)
            current, used = [], 0
        current.append((report, block))
        used += cost
    if current:
        out.append(current)
    return out


def _map_reply_parses(reply: str) -> bool:
    data = parse_json_object(reply)
    return isinstance(data, dict) and isinstance(data.get("points"), list)


def parse_points(reply: str, known: set[str]) -> list[GlobalPoint]:
    """Points of one map reply; malformed replies or points are skipped (logged), scores clamped to 0–100."""
    data = parse_json_object(reply)
    raw = data.get("points") if isinstance(data, dict) else None
    if not isinstance(raw, list):
        log.warning("global search: a map reply did not parse (%r)", clip(reply or "", 80))
        return []
    points = []
    for item in raw:
        if not isinstance(item, dict) or not isinstance(item.get("description"), str):
            continue
        try:
            score = int(round(float(item.get("score", 0))))
        except (TypeError, ValueError):
            continue
        score = max(0, min(100, score))
        description = item["description"].strip()
        points.append(GlobalPoint(description, score, [r for r in report_refs(description) if r in known]))
    return points


def _llm_search(
    question: str,
    reports: Sequence[Report],
    chat: CachedChat,
    level: int,
    kind: str,
    batch_tokens: int,
    reduce_tokens: int,
    response_type: str,
    seed: int,
    concurrency: int,
    notify: Callable[[str, int, int], None],
) -> GlobalAnswer:
    from concurrent.futures import ThreadPoolExecutor, as_completed

    from core.tokens import count_tokens

    known = {r.community_id for r in reports}
    groups = batches(reports, batch_tokens, seed)

    def map_batch(group: list[tuple[Report, str]]) -> list[GlobalPoint]:
        context = "\n\n".join(block for _r, block in group)
        reply = chat(prompts.map_messages(question, context), valid=_map_reply_parses)
        return parse_points(reply, known)

    with ThreadPoolExecutor(max_workers=max(1, concurrency)) as pool:
        futures = [pool.submit(map_batch, group) for group in groups]
        notify("map", 0, len(futures))
        # Report completions from this thread (see the module docstring), then keep the batches' order.
        for done, _future in enumerate(as_completed(futures), start=1):
            notify("map", done, len(futures))
        mapped = [future.result() for future in futures]
    points = [p for group in mapped for p in group if p.score > 0]
    points.sort(key=lambda p: -p.score)  # stable: ties keep batch order
    context_tokens = 0
    kept: list[GlobalPoint] = []
    lines: list[str] = []
    for i, p in enumerate(points, start=1):
        text = f"----Analyst {i}----\nImportance score: {p.score}\n{p.description}"
        cost = count_tokens(text)
        if context_tokens + cost > reduce_tokens:
            break
        kept.append(p)
        lines.append(text)
        context_tokens += cost
    if not kept:
        return GlobalAnswer(question, prompts.NO_DATA_ANSWER, "llm", level, kind, [], [], len(reports),
                            chat.calls, chat.cached, 0, 0.0)  # fmt: skip
    notify("reduce", 0, 1)
    reply = chat(prompts.reduce_messages(question, "\n\n".join(lines), response_type))
    cited = [r for r in report_refs(reply) if r in known]
    if not cited:  # the reducer dropped the references: cite what its points came from
        cited = list(dict.fromkeys(r for p in kept for r in p.report_ids))
    return GlobalAnswer(question, reply.strip(), "llm", level, kind, cited, kept, len(reports), chat.calls,
                        chat.cached, context_tokens, 0.0)  # fmt: skip


# -- offline ----------------------------------------------------------------------------------------

# Questions about the whole corpus rather than something in it, in English and Korean.
_OVERVIEW = re.compile(
    r"\b(?:main|key|major|top|central|overall|common|recurring)\s+(?:themes?|topics?|subjects?|ideas?|points?)\b"
    r"|\bthemes?\b.*\b(?:collection|corpus|documents?|dataset|data set)\b"
    r"|\bwhat\s+(?:is|are)\s+(?:this|these|the)\s+(?:collection|corpus|documents?|docs|dataset|data set|files?)"
    r"\s+(?:all\s+)?about\b"
    r"|\b(?:overview|summari[sz]e|summary)\b.*\b(?:collection|corpus|documents?|docs|dataset|everything)\b"
    r"|\bwhat\s+(?:topics|themes|subjects)\b"
    r"|(?:주요|핵심|중심|전체|전반적인?)\s*(?:주제|테마|내용|토픽)"
    r"|(?:주제|테마)(?:는|가|들은|들이)?\s*(?:무엇|뭐)"
    r"|무엇에\s*관한|무엇에\s*대한|뭐에\s*관한|(?:문서|자료|코퍼스|컬렉션)(?:들)?(?:은|는|의)?\s*(?:무엇|뭐|개요|요약)",
    re.IGNORECASE,
)


def is_overview(question: str) -> bool:
    """True for a question about the corpus as a whole ("main themes", "what is this corpus about", "주요 주제")."""
    return bool(_OVERVIEW.search(question))


def _offline_overview(question: str, reports: Sequence[Report], kind: str) -> GlobalAnswer:
    """Every top-level theme, highest rated first: title, summary and rating, each cited."""
    if not reports:
        return GlobalAnswer(question, "Extractive answer (no LLM): " + prompts.NO_DATA_ANSWER, "extractive", 0, kind,
                            [], [], 0, 0, 0, 0, 0.0)  # fmt: skip
    ranked = sorted(reports, key=lambda r: (-r.rating, r.community_id))
    lines = [f"Extractive answer (no LLM): the corpus's {len(ranked)} top-level themes, most important first.", ""]
    points: list[GlobalPoint] = []
    for r in ranked:
        description = f"{clip(r.summary, 420)} [Data: Reports ({r.community_id})]"
        lines.append(f"- **{r.title}** (rated {r.rating:g}/10) — {description}")
        points.append(GlobalPoint(f"{r.title}: {description}", int(round(r.rating * 10)), [r.community_id]))
    return GlobalAnswer(question, "\n".join(lines), "extractive", 0, kind, [r.community_id for r in ranked], points,
                        len(reports), 0, 0, 0, 0.0)  # fmt: skip


def _element_similarity(store: ElementStore, question: str, element_ids: list[str]) -> dict[str, float]:
    """Cosine similarity of the question to each element's stored vector, computed by pgvector."""
    from core.graph import tables
    from core.sql import graph as sql

    if not element_ids:
        return {}
    query = np.asarray(store.embeddings.embed_query(question), dtype=np.float32)
    rows = tables.fetch(store.pool, store.statement(sql.ELEMENT_SIMILARITY),
                        {"query": query, "collection_id": store.collection_id, "ids": element_ids})  # fmt: skip
    return {row[0]: float(row[1]) for row in rows}


def _offline_search(
    store: ElementStore, question: str, reports: Sequence[Report], level: int, kind: str
) -> GlobalAnswer:
    items = [(report, i, f) for report in reports for i, f in enumerate(report.findings)]
    if not items:
        return GlobalAnswer(question, "Extractive answer (no LLM): " + prompts.NO_DATA_ANSWER, "extractive", level,
                            kind, [], [], len(reports), 0, 0, 0, 0.0)  # fmt: skip
    # A finding is as relevant as its best evidence: the stored vectors of the elements it cites.
    evidence = list(dict.fromkeys(e for _r, _i, f in items for e in f.element_ids[:MAX_EVIDENCE_PER_FINDING]))
    similarity = _element_similarity(store, question, evidence)
    sims = np.asarray(
        [max((similarity.get(e, 0.0) for e in f.element_ids[:MAX_EVIDENCE_PER_FINDING]), default=0.0)
         for _r, _i, f in items],
        dtype=np.float32,
    )  # fmt: skip
    # A finding that shares a content word with the question (particles and stop words aside) gains
    # LEXICAL_BONUS: short questions ("How long is the warranty?") embed loosely, names do not.
    asked = match_terms(question)
    lexical = np.asarray(
        [LEXICAL_BONUS if asked & match_terms(f"{r.title} {f.summary} {clip(f.explanation, 600)}") else 0.0
         for r, _i, f in items],
        dtype=np.float32,
    )  # fmt: skip
    sims = sims + lexical
    ratings = np.asarray([r.rating for r, _i, _f in items], dtype=np.float32)
    scores = sims * (0.9 + 0.01 * ratings)  # the rating only breaks near-ties
    order = sorted(range(len(items)), key=lambda k: (-float(scores[k]), k))
    chosen: list[tuple[int, str]] = []  # (item index, best evidence element id)
    per_report: dict[str, int] = {}
    for k in order:
        report, _i, f = items[k]
        score = int(round(max(0.0, float(sims[k])) * 100))
        if score < OFFLINE_MIN_SCORE:
            break
        if per_report.get(report.community_id, 0) >= 2:  # spread the answer over several communities
            continue
        per_report[report.community_id] = per_report.get(report.community_id, 0) + 1
        best = max(f.element_ids[:MAX_EVIDENCE_PER_FINDING], key=lambda e: similarity.get(e, 0.0), default="")
        chosen.append((k, best))
        if len(chosen) >= OFFLINE_TOP_K:
            break
    if not chosen:
        best = int(round(max(0.0, float(sims[order[0]])) * 100))
        text = (f"Extractive answer (no LLM): no community report covers “{clip(question, 120)}”. The closest finding "
                f"scores {best}/100, below the relevance floor of {OFFLINE_MIN_SCORE}/100; try a local search, or ask "
                "for the main themes.")  # fmt: skip
        return GlobalAnswer(question, text, "extractive", level, kind, [], [], len(reports), 0, 0, 0, 0.0)
    quotes = {d.id: d for d in store.get([e for _k, e in chosen if e])}
    points: list[GlobalPoint] = []
    used_reports: list[str] = []
    for k, element_id in chosen:
        report, _i, f = items[k]
        doc = quotes.get(element_id)
        quote = ""
        if doc is not None:
            path = " > ".join(doc.metadata.get("heading_path") or [])
            quote = f" Source: “{clip(doc.page_content, 220)}”" + (f" ({clip(path, 80)})" if path else "") + "."
        description = f"{f.summary}.{quote} [Data: Reports ({report.community_id})]"
        points.append(GlobalPoint(description, int(round(max(0.0, float(sims[k])) * 100)), [report.community_id]))
        used_reports.append(report.community_id)
    cited = list(dict.fromkeys(used_reports))
    titles = {r.community_id: r.title for r in reports}
    lines = [f"Extractive answer (no LLM): the community findings closest to “{clip(question, 120)}”, best first.", ""]
    for p in points:
        rid = p.report_ids[0]
        lines.append(f"- **{titles[rid]}** — {p.description} (relevance {p.score}/100)")
    return GlobalAnswer(question, "\n".join(lines), "extractive", level, kind, cited, points, len(reports), 0, 0, 0,
                        0.0)  # fmt: skip
