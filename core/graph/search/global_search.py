"""Global search: map-reduce over the community reports of one level.

**Which reports.** ``level=N`` takes the reports at level N plus the reports of coarser communities that have
no sub-communities (their entities appear at no finer level), so every clustered entity is covered once, as in
GraphRAG. ``level=None`` means :data:`DEFAULT_LEVEL`, or the finest level when there are fewer levels.

**With an LLM.** The reports are shuffled (seeded) into batches of at most ``batch_tokens``; each batch is mapped
to JSON points ``{"description", "score"}`` with a 0–100 helpfulness score; points scored 0 are dropped; the rest,
best first, are packed into ``reduce_tokens`` and reduced into one answer that cites ``[Data: Reports (id, …)]``.
Citations that name no report of the selection are removed from the cited ids. If no point survives, the answer
says the reports hold nothing relevant, without a reduce call. If no map reply parses at all (a small model that
answers prose, not JSON), the model said nothing either way: the answer is the offline one below, with a
``notice`` that says why, and the model calls it cost.

**Offline.** An *overview* question ("What are the main themes?", "What is this corpus about?", "주요 주제는?",
see :func:`is_overview`) is answered from the top level: every level-0 report's title and summary, highest rated
first, each cited. Any other question is answered from the *evidence* of the findings, not their one-line
summaries: a finding's evidence is the content elements it cites, and for a cited heading (a heading entity) the
content elements directly under it. Each evidence element is scored against the question (see :class:`_Relevance`):
``(1 − w)·cosine + w·coverage``, the cosine of the question to the element's stored vector (computed by pgvector;
nothing is embedded at query time but the question) and the IDF-weighted share of the question's content terms the
element states (text) or sits under (heading path). A finding scores its best evidence, the report's rating only
breaking near-ties. The best findings make the points, each quoting its best evidence with where it sits: at most
:data:`MAX_POINTS_PER_REPORT` per report, never the same quote or the same finding twice. Scores are relevance
mapped to 0–100 to mirror the map step; evidence below :data:`OFFLINE_MIN_SCORE` is not offered, and when none
reaches it the answer says that no report covers the question.

**Repeats.** No point is made twice: offline, by the rule above; with an LLM, points of different batches that
state the same thing (citations and case aside) are merged into one that cites every report, and the map prompt
asks for each point once, scored by how directly it answers the question.

**Progress.** ``progress(Progress(stage, done, total))`` is called with ``"map"`` as each batch is mapped
(offline: one step, scoring the findings) and ``"reduce"`` at the end, always from the calling thread (map
batches run in a thread pool; a UI progress bar can only be updated from the thread that owns it).
"""

from __future__ import annotations

import logging
import math
import random
import re
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np

from core.graph import prompts, read
from core.graph.llm_cache import CachedChat
from core.graph.replies import parse_json_object, report_refs
from core.progress import Progress, ProgressCallback, no_progress
from core.retrieval.question import validate_question
from core.store.graph_records import GlobalAnswer, GlobalPoint, Report
from core.text import clip
from core.textnorm import english_stem, match_terms

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
OFFLINE_MIN_SCORE = 40  # relevance × 100 below which a finding is not offered
COVERAGE_WEIGHT = 0.5  # of the question's terms an element states, against its vector similarity
PATH_WEIGHT = 0.7  # a question term in the element's heading path counts this much of one in its text
MAX_EVIDENCE_PER_FINDING = 5
MAX_POINTS_PER_REPORT = 2  # spread the answer over several communities


def select_reports(store: ElementStore, *, level: int | None, kind: str = "entity") -> tuple[int, list[Report]]:
    """The reports global search reads for ``level`` (see the module docstring) and the level used."""
    all_reports = read.load_reports(store, level=None, kind=kind)
    if not all_reports:
        return level if level is not None else 0, []
    if level is not None:
        read.check_level((r.level for r in all_reports), level, kind)
    chosen = level if level is not None else min(DEFAULT_LEVEL, max(r.level for r in all_reports))
    selected = [r for r in all_reports if r.level == chosen or (r.level < chosen and not r.children)]
    return chosen, selected


@dataclass(frozen=True)
class GlobalSearchOptions:
    """How :func:`global_search` answers: the reports' ``level`` (``None``: :data:`DEFAULT_LEVEL`) and ``kind``
    (``entity`` | ``structural``); ``use_llm``: ``auto`` (the LLM when one is configured) | ``llm`` |
    ``extractive``; the map batches' and the reduce step's token budgets, the answer's ``response_type``, the
    batch shuffle's ``seed`` and how many map calls run at once (``concurrency``)."""

    level: int | None = None
    kind: str = "entity"
    use_llm: str = "auto"
    batch_tokens: int = DEFAULT_BATCH_TOKENS
    reduce_tokens: int = DEFAULT_REDUCE_TOKENS
    response_type: str = prompts.DEFAULT_RESPONSE_TYPE
    seed: int = DEFAULT_SEED
    concurrency: int | None = None  # None: HKE_LLM_CONCURRENCY (Settings.llm_concurrency)

    def __post_init__(self) -> None:
        if self.use_llm not in ("auto", "llm", "extractive"):
            raise ValueError("use_llm must be auto, llm or extractive")


def global_search(
    store: ElementStore,
    question: str,
    options: GlobalSearchOptions | None = None,
    *,
    chat_model: BaseChatModel | None = None,
    settings: Settings | None = None,
    progress: ProgressCallback = no_progress,
) -> GlobalAnswer:
    """Answer ``question`` from the reports of one level, as ``options`` say (default: :class:`GlobalSearchOptions`).

    ``chat_model``: the model to map and reduce with (default: the one ``settings`` configure, if any);
    ``progress``: see the module docstring (``"map"`` then ``"reduce"``).
    """
    options = options or GlobalSearchOptions()
    use_llm = options.use_llm
    question = validate_question(question)  # the rules (and length limit) of every question input
    started = time.perf_counter()

    def notify(stage: str, done: int, total: int) -> None:
        progress(Progress(stage, done, total))

    chosen, reports = select_reports(store, level=options.level, kind=options.kind)
    if chat_model is None and use_llm != "extractive":
        from core.llm import configured_chat_model

        chat_model = configured_chat_model(settings, streaming=True)  # a long reply shows progress to the deadline
        if chat_model is None and use_llm == "llm":
            raise ValueError("an LLM answer was requested but no chat model is configured")
    if chat_model is not None and use_llm != "extractive":
        from core.config import load_settings
        from core.llm import RetryPolicy
        from core.store import graph_tables

        settings = settings or load_settings()
        if options.concurrency is None:
            options = replace(options, concurrency=settings.llm_concurrency)
        graph_tables.GraphTables(store).ensure_schema()
        chat = CachedChat(chat_model, pool=store.pool, collection_id=store.collection_id,
                          policy=RetryPolicy.from_settings(settings))
        answer = _llm_search(question, reports, chat, chosen, options, notify)
        if answer is None:
            answer = _offline_answer(store, question, reports, chosen, options.kind)
            answer.notice = (f"The model's replies to all {chat.calls + chat.cached} map calls were not the JSON "
                             "points asked for, so it gave no answer: this is the extractive (offline) answer "
                             "from the same reports.")  # fmt: skip
            answer.llm_calls, answer.cached_calls = chat.calls, chat.cached
    else:
        notify("map", 0, 1)
        answer = _offline_answer(store, question, reports, chosen, options.kind)
        notify("map", 1, 1)
    notify("reduce", 1, 1)
    answer.seconds = round(time.perf_counter() - started, 3)
    return answer


def _offline_answer(store: ElementStore, question: str, reports: Sequence[Report], level: int, kind: str
                    ) -> GlobalAnswer:
    if is_overview(question):
        return _offline_overview(question, read.load_reports(store, level=0, kind=kind), kind)
    return _offline_search(store, question, reports, level, kind)


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
    options: GlobalSearchOptions,
    notify: Callable[[str, int, int], None],
) -> GlobalAnswer | None:
    """The map-reduce answer; None when no map reply parsed (the model answered nothing the map step can read)."""
    from concurrent.futures import ThreadPoolExecutor, as_completed

    from core.tokens import count_tokens

    kind = options.kind
    known = {r.community_id for r in reports}
    groups = batches(reports, options.batch_tokens, options.seed)

    def map_batch(group: list[tuple[Report, str]]) -> tuple[bool, list[GlobalPoint]]:
        context = "\n\n".join(block for _r, block in group)
        reply = chat(prompts.map_messages(question, context), kind="map", valid=_map_reply_parses)
        return _map_reply_parses(reply), parse_points(reply, known)

    with ThreadPoolExecutor(max_workers=max(1, options.concurrency or 1)) as pool:
        futures = [pool.submit(map_batch, group) for group in groups]
        notify("map", 0, len(futures))
        # Report completions from this thread (see the module docstring), then keep the batches' order.
        for done, _future in enumerate(as_completed(futures), start=1):
            notify("map", done, len(futures))
        mapped = [future.result() for future in futures]
    if mapped and not any(parsed for parsed, _points in mapped):
        log.warning("global search: none of the %d map replies parsed; answering offline", len(mapped))
        return None
    points = _merge_repeats([p for _parsed, group in mapped for p in group if p.score > 0])
    points.sort(key=lambda p: -p.score)  # stable: ties keep batch order
    context_tokens = 0
    kept: list[GlobalPoint] = []
    lines: list[str] = []
    for i, p in enumerate(points, start=1):
        text = f"----Analyst {i}----\nImportance score: {p.score}\n{p.description}"
        cost = count_tokens(text)
        if context_tokens + cost > options.reduce_tokens:
            break
        kept.append(p)
        lines.append(text)
        context_tokens += cost
    if not kept:
        return GlobalAnswer(question, prompts.NO_DATA_ANSWER, "llm", level, kind, [], [], len(reports),
                            chat.calls, chat.cached, 0, 0.0)  # fmt: skip
    notify("reduce", 0, 1)
    reply = chat(prompts.reduce_messages(question, "\n\n".join(lines), options.response_type), kind="reduce",
                 whole=True)
    cited = [r for r in report_refs(reply) if r in known]
    if not cited:  # the reducer dropped the references: cite what its points came from
        cited = list(dict.fromkeys(r for p in kept for r in p.report_ids))
    return GlobalAnswer(question, reply.strip(), "llm", level, kind, cited, kept, len(reports), chat.calls,
                        chat.cached, context_tokens, 0.0)  # fmt: skip


_CITATION = re.compile(r"\[Data:[^\]]*\]", re.IGNORECASE)


def _merge_repeats(points: list[GlobalPoint]) -> list[GlobalPoint]:
    """One point per statement: batches that make the same point (citations and case aside) become one point with
    the best score and every report cited, so the reducer never reads a point twice."""
    merged: dict[str, GlobalPoint] = {}
    for p in points:
        key = " ".join(_CITATION.sub(" ", p.description).split()).casefold().rstrip(".")
        if key not in merged:
            merged[key] = GlobalPoint(p.description, p.score, list(p.report_ids))
            continue
        kept = merged[key]
        ids = list(dict.fromkeys([*kept.report_ids, *p.report_ids]))
        description = kept.description if kept.score >= p.score else p.description
        if set(ids) != set(report_refs(description)):
            description = f"{_CITATION.sub('', description).rstrip()} [Data: Reports ({', '.join(ids)})]"
        merged[key] = GlobalPoint(description, max(kept.score, p.score), ids)
    return list(merged.values())


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


@dataclass(frozen=True)
class _Evidence:
    element_id: str
    text: str
    heading_path: tuple[str, ...]
    similarity: float  # cosine of the question to the element's stored vector


def _evidence(store: ElementStore, question: str, cited: list[str]) -> dict[str, list[_Evidence]]:
    """Cited element id → the elements that evidence it (itself; for a heading, also its section's content)."""
    from core.store import graph_tables

    if not cited:
        return {}
    query = np.asarray(store.embeddings.embed_query(question), dtype=np.float32)
    rows = graph_tables.GraphTables(store).evidence_similarity(query, cited)
    out: dict[str, list[_Evidence]] = defaultdict(list)
    for cited_id, element_id, similarity, text, path in rows:
        out[cited_id].append(_Evidence(element_id, text or "", tuple(path or ()), float(similarity or 0.0)))
    return out


def _stems(text: str) -> frozenset[str]:
    return frozenset(english_stem(t) for t in match_terms(text))


class _Relevance:
    """How well one element answers the question: ``(1 − w)·similarity + w·coverage`` (w = :data:`COVERAGE_WEIGHT`).

    *coverage* is the IDF-weighted share of the question's content terms the element states (in its text, full
    weight) or sits under (in its heading path, :data:`PATH_WEIGHT`); IDF over the evidence being ranked, so a
    word every candidate has ("items" in a returns policy) counts little and the distinguishing one ("opened")
    much. Similarity alone ranks what sounds like the question; coverage ranks what answers it.
    """

    def __init__(self, question: str, pool: list[_Evidence]) -> None:
        self.asked = _stems(question)
        self.terms = {e.element_id: (_stems(e.text), _stems(" ".join(e.heading_path))) for e in pool}
        df: Counter = Counter()
        for text, path in self.terms.values():
            df.update((text | path) & self.asked)
        n = max(1, len(self.terms))
        self.idf = {q: math.log(1 + n / (1 + df[q])) for q in self.asked}
        self.total = sum(self.idf.values())

    def coverage(self, evidence: _Evidence) -> float:
        if not self.total:
            return 0.0
        text, path = self.terms[evidence.element_id]
        got = sum(w * (1.0 if q in text else PATH_WEIGHT if q in path else 0.0) for q, w in self.idf.items())
        return got / self.total

    def __call__(self, evidence: _Evidence) -> float:
        similarity = max(0.0, evidence.similarity)
        return (1 - COVERAGE_WEIGHT) * similarity + COVERAGE_WEIGHT * self.coverage(evidence)


def _offline_search(
    store: ElementStore, question: str, reports: Sequence[Report], level: int, kind: str
) -> GlobalAnswer:
    items = [(report, f) for report in reports for f in report.findings]
    if not items:
        return GlobalAnswer(question, "Extractive answer (no LLM): " + prompts.NO_DATA_ANSWER, "extractive", level,
                            kind, [], [], len(reports), 0, 0, 0, 0.0)  # fmt: skip
    # A finding is as relevant as its best evidence: what the elements it cites (or the sections of the headings
    # it cites) say, not how its own one-line summary sounds.
    cited = list(dict.fromkeys(e for _r, f in items for e in f.element_ids[:MAX_EVIDENCE_PER_FINDING]))
    evidence = _evidence(store, question, cited)
    pool = list({e.element_id: e for rows in evidence.values() for e in rows}.values())
    relevance = _Relevance(question, pool)
    score_of = {e.element_id: relevance(e) for e in pool}
    ranked_evidence: list[list[_Evidence]] = []
    scores: list[float] = []
    for report, f in items:
        found = {e.element_id: e for c in f.element_ids[:MAX_EVIDENCE_PER_FINDING] for e in evidence.get(c, ())}
        ordered = sorted(found.values(), key=lambda e: (-score_of[e.element_id], e.element_id))
        ranked_evidence.append(ordered)
        best = score_of[ordered[0].element_id] if ordered else 0.0
        scores.append(best * (0.95 + 0.005 * report.rating))  # the rating only breaks near-ties
    order = sorted(range(len(items)), key=lambda k: (-scores[k], k))
    chosen: list[tuple[int, _Evidence, float]] = []
    quoted: set[str] = set()  # evidence texts already quoted: no point twice
    said: set[str] = set()  # finding summaries already used
    per_report: Counter = Counter()
    for k in order:
        report, f = items[k]
        if per_report[report.community_id] >= MAX_POINTS_PER_REPORT or f.summary in said:
            continue
        pick = next((e for e in ranked_evidence[k] if _quote_key(e.text) not in quoted), None)
        if pick is None or round(100 * score_of[pick.element_id]) < OFFLINE_MIN_SCORE:
            continue
        quoted.add(_quote_key(pick.text))
        said.add(f.summary)
        per_report[report.community_id] += 1
        chosen.append((k, pick, score_of[pick.element_id]))
        if len(chosen) >= OFFLINE_TOP_K:
            break
    if not chosen:
        best = round(100 * max(score_of.values(), default=0.0))
        text = (f"Extractive answer (no LLM): no community report covers “{clip(question, 120)}”. The closest finding "
                f"scores {best}/100, below the relevance floor of {OFFLINE_MIN_SCORE}/100; try a local search, or ask "
                "for the main themes.")  # fmt: skip
        return GlobalAnswer(question, text, "extractive", level, kind, [], [], len(reports), 0, 0, 0, 0.0)
    chosen.sort(key=lambda c: (-c[2], c[0]))
    points: list[GlobalPoint] = []
    for k, pick, score in chosen:
        report, f = items[k]
        where = f" (in {_path_tail(pick.heading_path)})" if pick.heading_path else ""
        description = (f"“{clip(' '.join(pick.text.split()), 220)}”{where}, from the finding “{clip(f.summary, 110)}”. "
                       f"[Data: Reports ({report.community_id})]")  # fmt: skip
        points.append(GlobalPoint(description, int(round(100 * score)), [report.community_id]))
    cited_reports = list(dict.fromkeys(p.report_ids[0] for p in points))
    titles = {r.community_id: r.title for r in reports}
    lines = [f"Extractive answer (no LLM): what the community reports' evidence says about “{clip(question, 120)}”, "
             "best first.", ""]  # fmt: skip
    for p in points:
        lines.append(f"- **{titles[p.report_ids[0]]}** — {p.description} (relevance {p.score}/100)")
    return GlobalAnswer(question, "\n".join(lines), "extractive", level, kind, cited_reports, points, len(reports), 0,
                        0, 0, 0.0)  # fmt: skip


def _path_tail(path: Sequence[str], limit: int = 90) -> str:
    """The most specific headings of a path that fit ``limit`` characters: where the quote sits, not the document."""
    tail = [path[-1]]
    for heading in reversed(path[:-1]):
        if len(" > ".join([heading, *tail])) > limit:
            break
        tail.insert(0, heading)
    return clip(" > ".join(tail), limit)


def _quote_key(text: str) -> str:
    return " ".join(text.split()).casefold()
