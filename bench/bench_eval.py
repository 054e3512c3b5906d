"""Retrieval and extractive answers per question set and mode, old and honest metrics side by side (k=4).

Question sets (each on its own corpus, ingested into its own collection of a scratch database):

=================  ==========================================  ====================================================
set                corpus                                      questions
=================  ==========================================  ====================================================
gold               data/samples                                data/questions.json (58, hand-written)
near-twin          data/near_twin                              data/near_twin/questions.json (33, hand-written)
python-markdown    bench/corpora/python-markdown (PyPI sdist)  generated: every kind of fact
pymdown            bench/corpora/pymdown-extensions (sdist)    generated: every kind, 80 spread over the documents
undici             bench/corpora/undici (Debian node-undici)   generated: "What is the default of option X of Y?"
=================  ==========================================  ====================================================

The generated sets are reproducible: ``python bench/bench_eval.py --write-sets`` writes them to
``bench/out/questions-<set>.json`` (the corpora come from ``bench/fetch_corpora.py``, fetched when missing).

Per set and mode it reports:

* ``recall``: a gold answer is in the context as whole tokens (core.evaluation.metrics.contains_answer);
* ``attribution``: strict: the element holding the answer (the gold element where the set names one) is in the
  context under its gold heading path;
* ``answer_contains``: the extractive answer (what ``ask`` and Compare print without an LLM) contains a gold
  answer as whole tokens; ``answer_exact``: its quoted value equals one (quotes ignored);
* ``tokens``: mean context tokens (core.tokens);
* ``search_ms_p50`` / ``latency_ms_p50``: the search stage (heading match, searches, fusion) and the mode's whole
  latency (query embedding, search, its context), median over the questions;
* ``old_recall`` / ``old_attribution``: the previous definitions (substring match; every gold heading somewhere
  in the context), kept so before/after numbers can be compared.

Each mode runs through the evaluation's runner (``core.evaluation.ModeRunner``): exactly the retrieval that
``core eval`` runs. Writes ``bench/out/eval.json``.

Run: .venv/bin/python bench/bench_eval.py [--k 4] [--sets gold,near-twin,...] [--modes plain,hierarchical,...]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import statistics
import time
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from _common import CORPORA, OUT, QUESTIONS, ROOT, SAMPLES, scratch_database, write_result
from _synthetic import remove_scratch_database

NEAR_TWIN = ROOT / "data" / "near_twin"
DEFAULT_MODES = ("plain", "hierarchical", "contextual", "fulltext", "hybrid", "default")
COLUMNS = ("n", "recall", "attribution", "answer_contains", "answer_exact", "tokens", "old_recall",
           "old_attribution", "search_ms_p50", "latency_ms_p50")


@dataclass(frozen=True)
class SetSpec:
    """One question set: where its corpus is, and where its questions come from."""

    name: str
    corpus: Path
    questions: Path | None = None  # a hand-written set; None: generated from the corpus
    kinds: tuple[str, ...] = ("default", "key_value", "table")
    limit: int | None = None
    max_answer_elements: int = 3
    fetched: str | None = None  # the bench/fetch_corpora.py corpus it needs


SETS: dict[str, SetSpec] = {
    "gold": SetSpec("gold", SAMPLES, QUESTIONS),
    "near-twin": SetSpec("near-twin", NEAR_TWIN, NEAR_TWIN / "questions.json"),
    "python-markdown": SetSpec("python-markdown", CORPORA / "python-markdown", fetched="python-markdown"),
    "pymdown": SetSpec("pymdown", CORPORA / "pymdown-extensions", limit=80, fetched="pymdown-extensions"),
    # An API reference: option names repeat under many classes; common defaults (null, false) are kept because
    # strict attribution checks the gold element itself, not just the value.
    "undici": SetSpec("undici", CORPORA / "undici", kinds=("default",), max_answer_elements=50, fetched="undici"),
}


def ensure_fetched(spec: SetSpec) -> None:
    import subprocess
    import sys

    if spec.fetched and not (spec.corpus / ".fetched.json").exists():
        subprocess.run([sys.executable, str(ROOT / "bench" / "fetch_corpora.py"), "--corpus", spec.fetched],
                       check=True)


def load_set(spec: SetSpec):
    """The spec's QuestionSet (hand-written, or generated from its corpus)."""
    from core.evaluation import generate_questions, load_questions

    if spec.questions is not None:
        return load_questions(spec.questions)
    ensure_fetched(spec)
    return generate_questions([spec.corpus], limit=spec.limit, kinds=spec.kinds,
                              max_answer_elements=spec.max_answer_elements, name=spec.name)


# -- the previous metric definitions, for before/after ------------------------------------------------------------

_WS = re.compile(r"\s+")


def _old_normalise(text: str) -> str:
    return _WS.sub("", unicodedata.normalize("NFKC", text or "")).casefold()


def old_recall(texts: Sequence[str], answers: Sequence[str]) -> bool:
    haystack = _old_normalise("\n".join(texts))
    return any(a and _old_normalise(a) in haystack for a in answers)


# -- running -------------------------------------------------------------------------------------------------------


def _mean(values: Sequence[float | bool | None]) -> float | None:
    present = [float(v) for v in values if v is not None]
    return round(statistics.fmean(present), 4) if present else None


def evaluate_set(store, questions, modes: Sequence[str], k: int) -> dict[str, dict]:
    from core.answering import ExtractiveAnswerer
    from core.evaluation import ModeRunner
    from core.evaluation.metrics import (
        ContextItem,
        answer_match,
        contains_answer,
        headings_present,
        percentile,
        strict_attribution,
    )

    runner = ModeRunner(store, modes, k=k)
    answerer = ExtractiveAnswerer()
    rows: dict[str, list[dict]] = {m: [] for m in runner.modes}
    for question in questions:
        for mode, retrieval in runner.run(question.question).items():
            context = retrieval.context
            items = [ContextItem(e.text, tuple(e.path), e.role, e.category) for e in context.elements]
            answer = answerer.complete(question.question, context)
            evidence = answerer.evidence(question.question, context)
            quoted = evidence[0].excerpt if evidence else ""
            answers = question.answers
            rows[mode].append({
                "id": question.id,
                "recall": contains_answer("\n".join(i.text for i in items), answers) if answers else None,
                "attribution": strict_attribution(items, answers, question.gold_path, question.gold_element),
                "answer_contains": contains_answer(answer, answers) if answers else None,
                "answer_exact": answer_match(quoted, answers)[0] if answers else None,
                "tokens": context.tokens,
                "old_recall": old_recall([i.text for i in items], answers) if answers else None,
                "old_attribution": headings_present(items, question.gold_path),
                "latency_ms": retrieval.latency_ms,
                "search_ms": retrieval.timings.get("search", 0.0),
                "answer": answer,
            })
    out = {}
    for mode, mode_rows in rows.items():
        agg: dict[str, float | int | None] = {"n": len(mode_rows)}
        for column in ("recall", "attribution", "answer_contains", "answer_exact", "old_recall", "old_attribution"):
            agg[column] = _mean([r[column] for r in mode_rows])
        agg["tokens"] = round(statistics.fmean(r["tokens"] for r in mode_rows), 1) if mode_rows else None
        for column in ("search_ms", "latency_ms"):
            p50 = percentile([r[column] for r in mode_rows], 50)
            agg[f"{column}_p50"] = None if p50 is None else round(p50, 1)
        out[mode] = {"aggregate": agg, "rows": mode_rows}
    return out


def table(title: str, results: dict[str, dict]) -> str:
    lines = [title, f"{'mode':<13}" + "".join(f"{c:>17}" for c in COLUMNS)]
    for mode, result in results.items():
        agg = result["aggregate"]
        lines.append(f"{mode:<13}" + "".join(f"{'-' if agg.get(c) is None else agg.get(c):>17}" for c in COLUMNS))
    return "\n".join(lines)


def write_sets(names: Sequence[str]) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    from core.evaluation import save_questions

    for name in names:
        spec = SETS[name]
        if spec.questions is not None:
            continue
        questions = load_set(spec)
        path = OUT / f"questions-{name}.json"
        save_questions(questions, path)
        print(f"wrote {path} ({len(questions)} questions)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--k", type=int, default=4)
    parser.add_argument("--sets", default=",".join(SETS), help=f"comma-separated, from {', '.join(SETS)}")
    parser.add_argument("--modes", default=",".join(DEFAULT_MODES), help="comma-separated evaluation modes")
    parser.add_argument("--label", default="", help="a label stored with the results (e.g. before/after)")
    parser.add_argument("--write-sets", action="store_true", help="only write the generated question sets")
    args = parser.parse_args()
    names = [s.strip() for s in args.sets.split(",") if s.strip()]
    unknown = [s for s in names if s not in SETS]
    if unknown:
        parser.error(f"unknown set(s) {', '.join(unknown)}; choose from {', '.join(SETS)}")
    if args.write_sets:
        write_sets(names)
        return
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    started = time.perf_counter()
    url = scratch_database()
    try:
        out = run_all(url, names, modes, args.k)
    finally:
        remove_scratch_database()
    out["label"] = args.label
    out["seconds"] = round(time.perf_counter() - started, 1)
    suffix = f"-{args.label}" if args.label else ""
    path = write_result(f"eval{suffix}", out)
    print(f"\nwrote {path} in {out['seconds']} s")


def run_all(url: str, names: Sequence[str], modes: Sequence[str], k: int) -> dict:
    from core.embeddings import make_embeddings
    from core.ingest import ingest_paths
    from core.store import ElementStore

    embeddings = make_embeddings("use")
    out: dict = {"environment": {"python": platform.python_version(), "cpus": os.cpu_count(),
                                 "embedder": str(embeddings.info), "answerer": "extractive (no LLM)", "k": k},
                 "sets": {}}
    for name in names:
        spec = SETS[name]
        questions = load_set(spec)
        store = ElementStore(url, f"bench_{name.replace('-', '_')}", embeddings)
        t0 = time.perf_counter()
        report = ingest_paths(store, [spec.corpus])
        ingest_s = round(time.perf_counter() - t0, 1)
        t0 = time.perf_counter()
        results = evaluate_set(store, questions.questions, modes, k)
        seconds = round(time.perf_counter() - t0, 1)
        out["sets"][name] = {"questions": len(questions), "documents": report.documents, "elements": report.elements,
                             "ingest_s": ingest_s, "seconds": seconds, "description": questions.description,
                             "modes": results}
        print(table(f"\n== {name}: {len(questions)} questions, {report.elements} elements, k={k} ({seconds} s)",
                    results), flush=True)
    summary = {name: {mode: r["aggregate"] for mode, r in s["modes"].items()} for name, s in out["sets"].items()}
    out["summary"] = summary
    print("\n" + json.dumps(summary, indent=1))
    return out


if __name__ == "__main__":
    main()
