"""Evaluation of the retrieval modes on three question sets, end to end, in a scratch database.

``default`` is exactly what ``ask`` and the Compare page run; the other modes isolate one ingredient each.

1. ``data/questions.json`` (58 hand-written gold questions) on the sample corpus ``data/samples`` (k=4 and k=8).
2. A question set generated from the Python-Markdown docs (a public corpus fetched through pip by
   ``bench/fetch_corpora.py``), ingested into its own collection (k=4).
3. A question set generated from the sample corpus itself (k=4): many more, mostly disambiguation questions.

Every run goes through ``core.evaluation.run_evaluation`` exactly as the CLI and the page do (the contextual
sibling collection is built by it, and the runs are stored), with the bundled USE embeddings and the extractive
answerer (no LLM). Writes ``bench/out/eval.json``; prints a table per set.

Run: .venv/bin/python bench/bench_eval.py [--k 4] [--skip-generated-samples]
"""

from __future__ import annotations

import argparse
import os
import platform
import time

from _common import CORPORA, QUESTIONS, SAMPLES, ensure_corpora, scratch_database, write_result
from _synthetic import remove_scratch_database

MODES = ("plain", "hierarchical", "contextual", "fulltext", "hybrid", "default")
COLUMNS = ("recall", "hit_recall", "attribution", "grounded", "mrr", "context_tokens_mean", "latency_ms_p50",
           "exact", "contains")
TAGS = ("korean", "english", "disambiguation", "spec", "policy", "faq", "procedure", "entity", "multi-hop",
        "default", "table", "key-value")


def table(title: str, aggregates: dict[str, dict]) -> str:
    lines = [title, f"{'mode':<13}" + "".join(f"{c:>21}" for c in COLUMNS)]
    for mode, agg in aggregates.items():
        lines.append(f"{mode:<13}" + "".join(f"{'-' if agg.get(c) is None else agg.get(c):>21}" for c in COLUMNS))
    return "\n".join(lines)


def evaluate(store, questions, k: int, modes: str) -> dict:
    from core.evaluation import run_evaluation

    t0 = time.perf_counter()
    run = run_evaluation(store, questions, modes=modes, k=k)
    seconds = time.perf_counter() - t0
    by_tag = {tag: modes for tag, modes in run.summary["by_tag"].items() if tag in TAGS}
    return {
        "run_id": run.run_id,
        "questions": len(questions),
        "k": k,
        "seconds": round(seconds, 2),
        "contextual_sync": run.summary.get("contextual"),
        "modes": run.aggregates,
        "by_tag": by_tag,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--k", type=int, default=4)
    parser.add_argument("--skip-generated-samples", action="store_true")
    parser.add_argument("--modes", default=",".join(MODES), help="comma-separated modes (default: all)")
    args = parser.parse_args()

    started = time.perf_counter()
    url = scratch_database()
    try:
        run_all(url, args, started)
    finally:
        remove_scratch_database()  # stop the scratch server and delete its data directory


def run_all(url: str, args: argparse.Namespace, started: float) -> None:
    from core.embeddings import make_embeddings
    from core.evaluation import generate_questions, load_questions
    from core.ingest import ingest_paths
    from core.store import ElementStore

    embeddings = make_embeddings("use")
    out: dict = {"environment": {"python": platform.python_version(), "cpus": os.cpu_count(),
                                 "embedder": str(embeddings.info), "answerer": "extractive (no LLM)"}, "sets": {}}

    # 1. gold questions on the samples
    samples = ElementStore(url, "samples", embeddings)
    t0 = time.perf_counter()
    report = ingest_paths(samples, [SAMPLES])
    out["samples_ingest"] = {"elements": report.elements, "seconds": round(time.perf_counter() - t0, 2)}
    gold = load_questions(QUESTIONS)
    for k in sorted({args.k, 8}):
        result = evaluate(samples, gold, k, args.modes)
        out["sets"][f"gold-samples-k{k}"] = result
        print(table(f"\n== data/questions.json on data/samples, k={k} ({result['seconds']} s)", result["modes"]))

    # 2. generated questions on the Python-Markdown docs
    ensure_corpora()
    corpus = CORPORA / "python-markdown"
    pymd = ElementStore(url, "python-markdown", embeddings)
    t0 = time.perf_counter()
    report = ingest_paths(pymd, [corpus])
    out["python_markdown_ingest"] = {"documents": report.documents, "elements": report.elements,
                                     "errors": len(report.errors), "seconds": round(time.perf_counter() - t0, 2)}
    generated = generate_questions([corpus])
    out["python_markdown_questions"] = {"n": len(generated), "description": generated.description}
    result = evaluate(pymd, generated, args.k, args.modes)
    out["sets"][f"generated-python-markdown-k{args.k}"] = result
    print(table(f"\n== generated from Python-Markdown docs ({len(generated)} q), k={args.k} ({result['seconds']} s)",
                result["modes"]))

    # 3. generated questions on the samples
    if not args.skip_generated_samples:
        generated_samples = generate_questions([SAMPLES])
        result = evaluate(samples, generated_samples, args.k, args.modes)
        out["sets"][f"generated-samples-k{args.k}"] = result
        print(table(f"\n== generated from data/samples ({len(generated_samples)} q), k={args.k} "
                    f"({result['seconds']} s)", result["modes"]))

    out["seconds"] = round(time.perf_counter() - started, 1)
    path = write_result("eval", out)
    print(f"\nwrote {path} in {out['seconds']} s")


if __name__ == "__main__":
    main()
