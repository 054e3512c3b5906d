"""Batch runs: every question of a set in every chosen mode, scored, stored per run, listed and exported.

A run is stored as it goes (``hke_eval_runs`` first with status ``running``, then one transaction of result
rows per question, then the summary and status ``done``), so a crashed or interrupted run is visible as
``failed`` with its partial results rather than lost. Runs hang off their collection (``ON DELETE CASCADE``).

Answers: every mode's context is answered by the extractive answerer, which needs no model, is deterministic,
and gives the ``exact``/``contains`` answer metrics. With a judge, each mode's context is also answered by the
``answerer`` (by default the configured LLM; the extractive one without a key), and those answers are judged
pairwise (``core.evaluation.judge``).
"""

from __future__ import annotations

import csv
import io
import json
import time
import uuid
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import Any

from core.answering import Answerer, ExtractiveAnswerer, default_answerer
from core.evaluation.judge import CRITERIA, Judge, PairJudgement, Verdict, judge_pairs_for, win_rates
from core.evaluation.metrics import ContextItem, QuestionScore, aggregate, answer_match, score_question
from core.evaluation.modes import DEFAULT_MODES, ModeRetrieval, ModeRunner, ensure_schema, parse_modes
from core.evaluation.questions import Question, QuestionSet
from core.progress import Progress, ProgressCallback, no_progress
from core.store import ElementStore
from core.store.evaluation_tables import EvaluationTables
from core.text import spreadsheet_safe

__all__ = [
    "CSV_COLUMNS",
    "EvalRun",
    "ResultRow",
    "RunInfo",
    "cli_payload",
    "delete_run",
    "export_csv",
    "export_json",
    "list_runs",
    "load_run",
    "run_evaluation",
]

CSV_COLUMNS = ("run_id", "collection", "question_set", "question_id", "question", "mode", "tags", "recall",
               "hit_recall", "attribution", "grounded", "first_hit_rank", "reciprocal_rank", "context_tokens",
               "latency_ms", "exact", "contains", "answer")
# The per-mode keys the CLI promises (``python -m core eval --json``); the aggregate carries a few more.
CLI_KEYS = ("recall", "attribution", "mrr", "context_tokens_mean", "latency_ms_p50", "exact")
TAG_METRICS = ("recall", "hit_recall", "attribution", "grounded", "mrr")


@dataclass
class ResultRow:
    """One question in one mode: its metrics, the extractive answer and the context that mode built."""

    question_id: str
    mode: str
    position: int
    question: str
    tags: tuple[str, ...]
    score: QuestionScore
    answer: str
    context: str
    details: dict[str, Any] = field(default_factory=dict)

    def flat(self) -> dict[str, Any]:
        return {"question_id": self.question_id, "question": self.question, "mode": self.mode,
                "tags": list(self.tags), **self.score.as_dict(), "answer": self.answer}


@dataclass
class RunHeader:
    """What a run was asked to do: the part a full run and a listing row share."""

    run_id: str
    collection: str
    question_set: str
    n_questions: int
    modes: tuple[str, ...]
    k: int
    judged: bool
    config: dict[str, Any]


@dataclass
class EvalRun(RunHeader):
    status: str = "running"
    error: str | None = None
    started_at: datetime | None = None
    finished_at: datetime | None = None
    summary: dict[str, Any] = field(default_factory=dict)
    results: list[ResultRow] = field(default_factory=list)
    judgements: list[PairJudgement] = field(default_factory=list)

    @property
    def aggregates(self) -> dict[str, dict[str, Any]]:
        return dict(self.summary.get("modes") or {})

    def meta(self) -> dict[str, Any]:
        return {"run_id": self.run_id, "collection": self.collection, "question_set": self.question_set,
                "n_questions": self.n_questions, "modes": list(self.modes), "k": self.k, "judged": self.judged,
                "config": self.config, "status": self.status, "error": self.error,
                "started_at": self.started_at.isoformat() if self.started_at else None,
                "finished_at": self.finished_at.isoformat() if self.finished_at else None}


@dataclass
class RunInfo(RunHeader):
    """A stored run without its per-question rows, for listings."""

    summary: dict[str, Any]
    status: str
    error: str | None
    started_at: datetime
    finished_at: datetime | None


# -- scoring one question ---------------------------------------------------------------------------------------


def _items(retrieval: ModeRetrieval) -> list[ContextItem]:
    return [ContextItem(e.text, tuple(e.path), e.role, e.category) for e in retrieval.context.elements]


def _score(question: Question, retrieval: ModeRetrieval, extractive: ExtractiveAnswerer) -> ResultRow:
    context = retrieval.context
    evidence = extractive.evidence(question.question, context)
    excerpt = evidence[0].excerpt if evidence else ""
    score = score_question(
        answers=question.answers,
        gold_path=question.gold_path,
        items=_items(retrieval),
        hit_texts=[h.element.text for h in retrieval.hits],
        context_tokens=context.tokens,
        latency_ms=retrieval.latency_ms,
        answer=excerpt,
        gold_element=question.gold_element,
    )
    details = {
        "hits": [{"element_id": h.element_id, "rank": h.rank + 1, "similarity": round(h.similarity, 4),
                  "heading_path": list(h.element.heading_path),
                  "text": h.element.text[:300]} for h in retrieval.hits],
        "timings": retrieval.timings,
        "notes": retrieval.notes,
        "evidence": evidence[0].as_dict() if evidence else None,
        "extractive_answer": extractive.complete(question.question, context),
        "gold": {"answers": list(question.answers), "gold_path": list(question.gold_path),
                 "document": question.document},
    }
    return ResultRow(question.id, retrieval.mode, 0, question.question, question.tags, score, excerpt,
                     context.text, details)


def _answer(answerer: Answerer, question: str, retrieval: ModeRetrieval) -> tuple[str, str | None]:
    try:
        return answerer.complete(question, retrieval.context), None
    except Exception as exc:  # one failed answer is recorded for its row; the run goes on
        return "", getattr(exc, "message", None) or f"{type(exc).__name__}: {exc}"


# -- summary ---------------------------------------------------------------------------------------------------


def _summarise(run: EvalRun, judge_label: str | None, answerer_label: str | None,
               extra: dict[str, Any]) -> dict[str, Any]:
    by_mode: dict[str, list[QuestionScore]] = {m: [] for m in run.modes}
    by_tag: dict[str, dict[str, list[QuestionScore]]] = {}
    for row in run.results:
        by_mode.setdefault(row.mode, []).append(row.score)
        for tag in row.tags:
            by_tag.setdefault(tag, {}).setdefault(row.mode, []).append(row.score)
    summary: dict[str, Any] = {
        "modes": {m: aggregate(scores).as_dict() for m, scores in by_mode.items()},
        "by_tag": {tag: {m: {k: v for k, v in aggregate(s).as_dict().items() if k in (*TAG_METRICS, "n")}
                         for m, s in modes.items()} for tag, modes in sorted(by_tag.items())},
        "judge": None,
        **extra,
    }
    llm = [row for row in run.results if "llm_contains" in row.details]
    if llm:
        for mode in run.modes:
            values = [r.details["llm_contains"] for r in llm
                      if r.mode == mode and r.details["llm_contains"] is not None]
            summary["modes"][mode]["llm_contains"] = round(sum(values) / len(values), 4) if values else None
    if run.judged:
        summary["judge"] = {
            "label": judge_label,
            "answerer": answerer_label,
            "criteria": list(CRITERIA),
            "pairs": [list(p) for p in dict.fromkeys((j.mode_a, j.mode_b) for j in run.judgements)],
            "win_rates": [w.as_dict() for w in win_rates(run.judgements)],
        }
    return summary


def cli_payload(run: EvalRun) -> dict[str, Any]:
    """``{mode: {recall, attribution, mrr, context_tokens_mean, latency_ms_p50, exact, …}}`` plus ``judge``
    (``{"<b> vs <a>": {criterion: {win_rate, ci, wins, ties, losses, invalid, n}}}``) when judged."""
    out: dict[str, Any] = {}
    for mode in run.modes:
        agg = run.aggregates.get(mode) or {}
        out[mode] = {**{k: agg.get(k) for k in CLI_KEYS}, **{k: v for k, v in agg.items() if k not in CLI_KEYS}}
    judge = run.summary.get("judge")
    if judge:
        table: dict[str, dict[str, Any]] = {}
        for w in judge["win_rates"]:
            table.setdefault(f"{w['mode_b']} vs {w['mode_a']}", {})[w["criterion"]] = {
                "win_rate": w["win_rate"], "ci": [w["ci_low"], w["ci_high"]], "wins": w["wins"], "ties": w["ties"],
                "losses": w["losses"], "invalid": w["invalid"], "n": w["n"]}
        out["judge"] = table
    return out


# -- storage ---------------------------------------------------------------------------------------------------


def _row_params(run_id: str, row: ResultRow) -> dict[str, Any]:
    s = row.score
    return {"run_id": run_id, "question_id": row.question_id, "mode": row.mode, "position": row.position,
            "question": row.question, "tags": list(row.tags), "recall": s.recall, "hit_recall": s.hit_recall,
            "attribution": s.attribution, "grounded": s.grounded, "first_hit_rank": s.first_hit_rank,
            "reciprocal_rank": s.reciprocal_rank, "context_tokens": s.context_tokens, "latency_ms": s.latency_ms,
            "exact": s.exact, "contains": s.contains, "answer": row.answer, "context": row.context,
            "details": row.details}


def _store_question(store: ElementStore, run_id: str, rows: Sequence[ResultRow],
                    judgements: Sequence[PairJudgement]) -> None:
    EvaluationTables(store.url).add_question([_row_params(run_id, r) for r in rows], [
        {"run_id": run_id, "question_id": j.question_id, "mode_a": j.mode_a, "mode_b": j.mode_b,
         "criterion": c, "outcome": j.outcomes[c], "verdicts": [v.as_dict() for v in j.verdicts]}
        for j in judgements for c in CRITERIA])


# -- the run ---------------------------------------------------------------------------------------------------


def run_evaluation(
    store: ElementStore,
    questions: QuestionSet,
    *,
    modes: Sequence[str] | str = DEFAULT_MODES,
    k: int = 4,
    progress: ProgressCallback = no_progress,
    judge: Judge | None = None,
    answerer: Answerer | None = None,
    judge_pairs: str = "baseline",
    persist: bool = True,
    build_contextual: bool = False,
) -> EvalRun:
    """Run ``questions`` in ``modes`` against ``store``; store the run unless ``persist`` is False.

    The ``contextual`` mode reads the collection's contextual index; ``build_contextual`` builds or updates it
    first (see :class:`~core.evaluation.modes.ModeRunner`). ``progress`` gets a :class:`core.progress.Progress`
    while that index is embedded (stage ``"contextual"``) and after every question (stage ``"evaluate"``). An
    exception (or Ctrl-C) marks the stored run ``failed`` and is re-raised.
    """
    modes = parse_modes(modes)
    if not questions.questions:
        raise ValueError("the question set is empty")
    if not store.documents():
        raise ValueError(f"collection {store.collection!r} has no documents: ingest some first")
    run = EvalRun(
        run_id=str(uuid.uuid4()), collection=store.collection, question_set=questions.name,
        n_questions=len(questions), modes=modes, k=k, judged=judge is not None,
        config={"modes": list(modes), "k": k, "judge_pairs": judge_pairs if judge else None,
                "embedder": str(store.embeddings.info), "question_set_description": questions.description},
        started_at=datetime.now(UTC),
    )
    runner = ModeRunner(store, modes, k=k, progress=progress, build_contextual=build_contextual)
    if persist:
        ensure_schema(store)
        EvaluationTables(store.url).start_run({
            "run_id": run.run_id, "collection_id": store.collection_id, "question_set": run.question_set,
            "n_questions": run.n_questions, "modes": list(modes), "k": k, "judged": run.judged,
            "config": run.config})
    extractive = ExtractiveAnswerer()
    if judge is not None and answerer is None:
        answerer = default_answerer()
    pairs = judge_pairs_for(modes, judge_pairs) if judge is not None else []
    extra: dict[str, Any] = {"answerer": extractive.label}
    if runner.contextual_store is not None:
        sync = asdict(runner.contextual_sync) if runner.contextual_sync is not None else {}
        extra["contextual"] = {"collection": runner.contextual_store.collection,
                               "built": runner.contextual_sync is not None, **sync}
    started = time.perf_counter()
    total = len(questions)
    try:
        for position, question in enumerate(questions.questions):
            retrievals = runner.run(question.question)
            rows = []
            for mode in modes:
                row = _score(question, retrievals[mode], extractive)
                row.position = position
                rows.append(row)
            judged: list[PairJudgement] = []
            if judge is not None and answerer is not None:
                answers: dict[str, str] = {}
                for row in rows:
                    text, error = _answer(answerer, question.question, retrievals[row.mode])
                    answers[row.mode] = text
                    row.details["llm_answer"] = text
                    row.details["llm_error"] = error
                    row.details["llm_contains"] = answer_match(text, question.answers)[1] if text else None
                for mode_a, mode_b in pairs:
                    if answers.get(mode_a) is None or answers.get(mode_b) is None:
                        continue
                    judged.append(judge.judge(question.id, question.question, mode_a, answers[mode_a], mode_b,
                                              answers[mode_b]))
            run.results.extend(rows)
            run.judgements.extend(judged)
            if persist:
                _store_question(store, run.run_id, rows, judged)
            progress(Progress("evaluate", position + 1, total, f"{question.id}: {question.question[:60]}"))
        run.status = "done"
    except BaseException as exc:
        run.status = "failed"
        run.error = "interrupted" if isinstance(exc, KeyboardInterrupt) else f"{type(exc).__name__}: {exc}"
        raise
    finally:
        run.finished_at = datetime.now(UTC)
        extra["seconds"] = round(time.perf_counter() - started, 3)
        run.summary = _summarise(run, judge.label if judge else None,
                                 getattr(answerer, "label", None) if judge else None, extra)
        if persist:
            EvaluationTables(store.url).finish_run(run.run_id, summary=run.summary, status=run.status,
                                                   error=run.error)
    return run


# -- reading stored runs ---------------------------------------------------------------------------------------


def _info(row: Sequence[Any]) -> RunInfo:
    (run_id, collection, question_set, n_questions, modes, k, judged, config, summary, status, error, started,
     finished) = row
    return RunInfo(str(run_id), collection, question_set, int(n_questions), tuple(modes), int(k), bool(judged),
                   dict(config or {}), dict(summary or {}), status, error, started, finished)


def list_runs(url: str, collection: str | None = None, *, limit: int = 100) -> list[RunInfo]:
    """Stored runs, newest first (of one collection, or all)."""
    return [_info(r) for r in EvaluationTables(url).list_runs(collection, limit)]


def load_run(url: str, run_id: str) -> EvalRun | None:
    """A stored run with all its rows and judgements, or None."""
    try:
        uuid.UUID(str(run_id))
    except ValueError:
        return None
    stored = EvaluationTables(url).run(run_id)
    if stored is None:
        return None
    row, results, judgement_rows = stored
    info = _info(row)
    run = EvalRun(info.run_id, info.collection, info.question_set, info.n_questions, info.modes, info.k,
                  info.judged, info.config, info.status, info.error, info.started_at, info.finished_at,
                  info.summary)
    for (question_id, mode, position, question, tags, recall, hit_recall, attribution, grounded, rank, rr, tokens,
         latency, exact, contains, answer, context, details) in results:
        score = QuestionScore(recall, hit_recall, attribution, grounded, rank, rr, int(tokens), float(latency),
                              exact, contains)
        run.results.append(ResultRow(question_id, mode, int(position), question, tuple(tags or ()), score,
                                     answer or "", context or "", dict(details or {})))
    pairs: dict[tuple[str, str, str], PairJudgement] = {}
    for question_id, mode_a, mode_b, criterion, outcome, verdicts in judgement_rows:
        key = (question_id, mode_a, mode_b)
        if key not in pairs:
            stored = [Verdict(v.get("shown_as_a", ""), dict(v.get("winners") or {}), v.get("raw", ""), v.get("error"))
                      for v in (verdicts or [])]
            pairs[key] = PairJudgement(question_id, mode_a, mode_b, {}, stored)
        pairs[key].outcomes[criterion] = outcome
    run.judgements = list(pairs.values())
    return run


def delete_run(url: str, run_id: str) -> bool:
    return EvaluationTables(url).delete_run(run_id)


# -- export ----------------------------------------------------------------------------------------------------


def _csv_value(value: Any) -> Any:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, list | tuple):
        return "|".join(str(v) for v in value)
    return "" if value is None else value


def export_csv(run: EvalRun) -> str:
    """One line per (question, mode): the metrics and the answer (contexts are in the JSON export)."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=CSV_COLUMNS, extrasaction="ignore")
    writer.writeheader()
    for row in run.results:
        flat = {"run_id": run.run_id, "collection": run.collection, "question_set": run.question_set, **row.flat()}
        writer.writerow({k: spreadsheet_safe(_csv_value(flat.get(k))) for k in CSV_COLUMNS})
    return buffer.getvalue()


def export_json(run: EvalRun, *, contexts: bool = True) -> str:
    """The run, its summary, every row (with its context and details) and every judgement."""
    results = []
    for row in run.results:
        item = row.flat()
        if contexts:
            item["context"] = row.context
            item["details"] = row.details
        results.append(item)
    payload = {"run": run.meta(), "summary": run.summary, "aggregates": cli_payload(run), "results": results,
               "judgements": [j.as_dict() for j in run.judgements]}
    return json.dumps(payload, ensure_ascii=False, indent=2, default=str)

