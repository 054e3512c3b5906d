"""``python -m core eval | generate-questions``: retrieval modes measured on a question set (core/evaluation)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from core.cli.arguments import add_collection, add_command, whole_number
from core.cli.console import emit, fail, progress_bar
from core.config import load_settings

SUMMARY_COLUMNS = ("recall", "attribution", "grounded", "mrr", "context_tokens_mean", "latency_ms_p50", "exact",
                   "contains")


def register(sub: argparse._SubParsersAction) -> None:
    p = add_command(sub, "eval", "evaluate retrieval modes on a question set; print per-mode aggregates", cmd_eval)
    p.add_argument("questions", help="question set JSON (see data/README.md for the format)")
    p.add_argument("--modes", type=_modes, default="plain,hierarchical,hybrid,default",
                   help="comma-separated modes among plain, hierarchical, contextual, fulltext, hybrid, default "
                        "(default runs exactly what `ask` and the Compare page run; default: %(default)s)")
    p.add_argument("--k", type=whole_number(1, ""), default=4, help="hits per question (default: %(default)s)")
    p.add_argument("--limit", type=whole_number(1, ""), default=None, help="only the first N questions")
    p.add_argument("--out", default=None, help="write the full run: JSON, or CSV when the name ends in .csv")
    p.add_argument("--judge", action="store_true", help="judge answer pairs with the configured LLM (needs a key)")
    p.add_argument("--judge-pairs", default="baseline", choices=["baseline", "all"],
                   help="judge every mode against plain (baseline) or every pair (all)")
    p.add_argument("--no-store", action="store_true", help="do not store the run in the database")
    p.add_argument("--build-contextual", action="store_true",
                   help="with the contextual mode: build or update the collection's contextual index first "
                        "(the same as `contextual build`; it embeds what the index lacks)")
    add_collection(p)

    p = add_command(sub, "generate-questions", "build a question set from the structure of markdown files "
                                               "(no database)", cmd_generate_questions)  # fmt: skip
    p.add_argument("paths", nargs="+", help="markdown files or folders")
    p.add_argument("--out", default=None, help="write the set here (default: print it on stdout)")
    p.add_argument("--limit", type=whole_number(1, ""), default=None,
                   help="at most N questions, spread over the documents")
    p.add_argument("--max-answer-elements", type=whole_number(1, ""), default=3,
                   help="drop answers that occur in more elements than this (default: %(default)s)")


def _modes(raw: str) -> tuple[str, ...]:
    """An argparse type: the modes by name, checked from the strategy registry alone (nothing heavy loaded)."""
    from core.evaluation.mode_names import parse_modes

    try:
        return parse_modes(raw)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def cmd_eval(args: argparse.Namespace) -> int:
    # What the user got wrong is said before the evaluation's modules (the pipeline, the models) are loaded.
    from core.evaluation.mode_names import parse_modes
    from core.evaluation.questions import QuestionSetError, load_questions

    try:
        questions = load_questions(args.questions)
    except QuestionSetError as exc:
        return fail(str(exc))
    if args.limit:
        questions = questions.subset(limit=args.limit)
    modes = parse_modes(args.modes)
    if args.judge and not load_settings().has_llm:
        return fail("--judge needs a model: set OPENAI_API_KEY (and OPENAI_BASE_URL for a local server)")

    from core.evaluation import Judge, cli_payload, export_csv, export_json, run_evaluation
    from core.retrieval.contextual import ContextualIndexError
    from core.store import open_store

    judge = Judge.from_settings(load_settings()) if args.judge else None
    store = open_store(args.collection, create=False)
    with progress_bar("evaluating", unit="q") as bar:
        try:
            run = run_evaluation(store, questions, modes=modes, k=args.k, judge=judge, judge_pairs=args.judge_pairs,
                                 persist=not args.no_store, progress=bar, build_contextual=args.build_contextual)
        except ContextualIndexError as exc:
            return fail(f"{exc}; or pass --build-contextual to build it as the run's first step")
    if args.out:
        out = Path(args.out)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(export_csv(run) if out.suffix.lower() == ".csv" else export_json(run), encoding="utf-8")
    stored = "not stored" if args.no_store else f"stored as run {run.run_id}"
    print(f"{len(questions)} questions x {len(modes)} modes on {store.collection!r}, k={args.k}: {stored}"
          + (f"; written to {args.out}" if args.out else ""), file=sys.stderr)
    payload = cli_payload(run)
    emit(payload, args.json, "\n".join(_summary_table(payload, modes)))
    return 0


def _summary_table(payload: dict, modes: Sequence[str]) -> list[str]:
    """One row per mode of the aggregate columns, then one line per judged pair."""
    lines = [f"{'mode':<13}" + "".join(f"{c:>{len(c) + 2}}" for c in SUMMARY_COLUMNS)]
    for mode in modes:
        values = [payload[mode].get(c) for c in SUMMARY_COLUMNS]
        cells = ("-" if v is None else str(v) for v in values)
        lines.append(f"{mode:<13}" + "".join(f"{v:>{len(c) + 2}}" for c, v in zip(SUMMARY_COLUMNS, cells,
                                                                                   strict=True)))
    for pair, criteria in (payload.get("judge") or {}).items():
        lines.append(f"judge {pair}: " + ", ".join(
            f"{c} {v['win_rate']} [{v['ci'][0]}, {v['ci'][1]}] (n={v['n']}, invalid {v['invalid']})"
            for c, v in criteria.items()))
    return lines


def cmd_generate_questions(args: argparse.Namespace) -> int:
    missing = [p for p in args.paths if not Path(p).exists()]
    if missing:
        return fail(f"no such file or folder: {', '.join(missing)}")
    from core.evaluation import generate_questions, save_questions

    questions = generate_questions(args.paths, limit=args.limit, max_answer_elements=args.max_answer_elements)
    if not questions.questions:
        return fail("no questions could be generated: the files state no defaults, key : value items or table rows "
                    "that are specific enough", 1)
    if not args.out:
        print(json.dumps(questions.as_dict(), ensure_ascii=False, indent=1))
        return 0
    path = save_questions(questions, args.out)
    tags: dict[str, int] = {}
    for q in questions.questions:
        for tag in q.tags:
            tags[tag] = tags.get(tag, 0) + 1
    payload = {"out": str(path), "questions": len(questions), "tags": tags, "description": questions.description}
    emit(payload, args.json, f"{len(questions)} questions written to {path} ({questions.description})")
    return 0
