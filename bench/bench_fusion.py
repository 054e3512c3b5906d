"""Choosing the search strategy, the fusion and the children budget by measurement.

Ingests the samples and the Python-Markdown docs into a scratch database once, embeds every question once, then
runs ``core.retrieval.retrieve`` under each candidate configuration and scores it with the evaluation metrics
(``core.evaluation.metrics.score_question``): recall (a gold answer in the context), grounded (strict
attribution: the element holding the answer sits under its gold heading path), hit recall, mean context tokens.

Tuning sets: questions generated from data/samples and from the Python-Markdown docs. data/questions.json is
reported beside them as a check, not used to choose. Held out (never run here): pymdown-extensions and the
API-reference set.

Run: .venv/bin/python bench/bench_fusion.py [--k 4] [--configs NAME,…]   → bench/out/fusion.json
"""

from __future__ import annotations

import argparse
import os
import time

from _common import CORPORA, QUESTIONS, SAMPLES, ensure_corpora, scratch_database, write_result
from _synthetic import remove_scratch_database


def candidates():
    from core.retrieval import DEFAULT_CHILDREN_BUDGET, DEFAULT_SEARCH, STRATEGIES

    vector, fulltext, hybrid = STRATEGIES["vector"], STRATEGIES["fulltext"], STRATEGIES["hybrid"]
    old = hybrid.but(fusion="rrf", fulltext_weight=1, candidates=20, fulltext_cutoff=0.5)
    out = {
        "vector (= main's hierarchical mode)": (vector.but(headings=False), 0),
        "fulltext": (fulltext.but(headings=False), 0),
        "rrf 1:1 c20 (= main's hybrid mode)": (old.but(headings=False), 0),
    }
    for fusion, weights in (("rrf", (1, 2)), ("relative", (1, 1)), ("relative", (1, 2)), ("relative", (1, 3))):
        name = f"{fusion} {weights[0]}:{weights[1]} c20"
        out[name] = (hybrid.but(headings=False, fusion=fusion, fulltext_weight=weights[1] / weights[0]), 0)
    for name in ("fulltext", "rrf 1:1 c20 (= main's hybrid mode)", "relative 1:1 c20", "relative 1:2 c20"):
        out[name + " +headings"] = (out[name][0].but(headings=True), 0)
    for budget in (200, 400):
        out[f"relative 1:2 c20 +headings +section{budget}"] = (out["relative 1:2 c20"][0].but(headings=True), budget)
    out["default"] = (DEFAULT_SEARCH, DEFAULT_CHILDREN_BUDGET)
    return out


def score_config(store, questions, vectors, config, budget, k):
    from core.evaluation.metrics import ContextItem, aggregate, score_question
    from core.retrieval import RetrievalRequest, retrieve

    scores = []
    for question in questions.questions:
        t0 = time.perf_counter()
        got = retrieve(store, RetrievalRequest(question.question, k=k, search=config, children_budget=budget,
                                               query_vector=vectors[question.id]))
        ms = (time.perf_counter() - t0) * 1000
        context = got.hierarchical
        items = [ContextItem(e.text, tuple(e.path), e.role, e.category) for e in context.elements]
        scores.append(score_question(answers=question.answers, gold_path=question.gold_path, items=items,
                                     hit_texts=[h.element.page_content for h in got.hits],
                                     context_tokens=context.tokens, latency_ms=ms, answer=""))
    agg = aggregate(scores).as_dict()
    return {key: agg.get(key) for key in ("recall", "grounded", "hit_recall", "attribution", "mrr",
                                          "context_tokens_mean", "latency_ms_p50")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--k", type=int, default=4)
    parser.add_argument("--configs", default=None, help="comma-separated names (default: all)")
    parser.add_argument("--sets", default="samples-generated,python-markdown-generated,gold")
    parser.add_argument("--data-dir", default=None,
                        help="keep the database in this HKE_DATA_DIR between runs (re-ingest is incremental)")
    args = parser.parse_args()
    if args.data_dir:
        os.environ["HKE_DATA_DIR"] = args.data_dir
        from core.db import database_url

        run(database_url(), args)
        return
    url = scratch_database()
    try:
        run(url, args)
    finally:
        remove_scratch_database()


def run(url: str, args: argparse.Namespace) -> None:
    from core.embeddings import make_embeddings
    from core.evaluation import generate_questions, load_questions
    from core.ingest import ingest_paths
    from core.store import ElementStore

    embeddings = make_embeddings("use")
    ensure_corpora()
    samples = ElementStore(url, "samples", embeddings)
    ingest_paths(samples, [SAMPLES])
    pymd = ElementStore(url, "python-markdown", embeddings)
    ingest_paths(pymd, [CORPORA / "python-markdown"])
    sets = {
        "samples-generated": (samples, generate_questions([SAMPLES])),
        "python-markdown-generated": (pymd, generate_questions([CORPORA / "python-markdown"])),
        "gold": (samples, load_questions(QUESTIONS)),
    }
    wanted_sets = args.sets.split(",")
    configs = candidates()
    if args.configs:
        configs = {n: configs[n] for n in args.configs.split(",")}
    out: dict = {"k": args.k, "sets": {}, "configs": {n: {"search": c.as_dict(), "children_budget": b}
                                                      for n, (c, b) in configs.items()}}
    for set_name in wanted_sets:
        store, questions = sets[set_name]
        vectors = {q.id: store.embeddings.embed_query(q.question) for q in questions.questions}
        out["sets"][set_name] = {"n": len(questions.questions), "results": {}}
        print(f"\n== {set_name} ({len(questions.questions)} q), k={args.k}")
        print(f"{'config':<48}{'recall':>8}{'grounded':>10}{'hit_rec':>9}{'tokens':>8}{'p50 ms':>8}")
        for name, (config, budget) in configs.items():
            result = score_config(store, questions, vectors, config, budget, args.k)
            out["sets"][set_name]["results"][name] = result
            print(f"{name:<48}{result['recall']:>8}{result['grounded']!s:>10}{result['hit_recall']:>9}"
                  f"{result['context_tokens_mean']:>8}{result['latency_ms_p50']:>8}", flush=True)
    print("wrote", write_result("fusion", out))


if __name__ == "__main__":
    main()
