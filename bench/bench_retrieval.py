"""Retrieve + expand latency at 100k elements with HNSW (no LLM), and context tokens on the sample questions.

1. Latency: ``core.retrieval.retrieve`` (default pipeline) with a precomputed query vector (so the query
   embedding is excluded) and a question in the corpus' words (``_synthetic.synthetic_questions``) on a
   100k-element synthetic collection with the HNSW index: heading match, vector and full-text search, both
   contexts, ancestor expansion, merge, render and token counts; the search stage is reported on its own.
   Targets: p50 ≤ 30 ms, p95 ≤ 80 ms. The plan of the search is
   printed to show that HNSW serves it. Scoped searches (one document, one heading subtree) are timed too.
2. Query embedding (the bundled USE model) on the sample questions, reported separately.
3. Tokens: hierarchical over plain context tokens for every question of data/questions.json on the sample
   corpus (k=4), plus how often the gold answer and the gold heading path are in each context, and how often
   the extractive answer quotes a gold answer.

Run: .venv/bin/python bench/bench_retrieval.py [--elements 100000] [--queries 300]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import time
import uuid

from _common import QUESTIONS, SAMPLES, scratch_database, write_result
from _synthetic import (
    build_hnsw,
    drop_hnsw,
    load,
    random_queries,
    run_then_remove_scratch_database,
    synthetic_questions,
)


def summary(values_s: list[float]) -> dict[str, float]:
    v = sorted(values_s)
    return {
        "p50": round(statistics.median(v) * 1000, 2),
        "p95": round(v[min(len(v) - 1, int(0.95 * len(v)))] * 1000, 2),
        "max": round(v[-1] * 1000, 2),
        "n": len(v),
    }


def norm(text: str) -> str:
    return re.sub(r"\s+", "", text).casefold()


def latency(store, n_queries: int) -> dict:
    from core.retrieval import RetrievalRequest, Scope, retrieve
    from core.sql import retrieval as sql

    queries = random_queries(store, n_queries + 20, seed=5)
    questions = synthetic_questions(n_queries + 20, seed=5)
    for q, text in zip(queries[:20], questions[:20], strict=True):  # warm the buffer cache and the pool
        retrieve(store, RetrievalRequest(text, k=4, query_vector=q))
    timings, stages = [], {"search": [], "vector_search": [], "fts_search": [], "expand": [], "plain_context": []}
    for q, text in zip(queries[20:], questions[20:], strict=True):
        t0 = time.perf_counter()
        result = retrieve(store, RetrievalRequest(text, k=4, query_vector=q))
        timings.append(time.perf_counter() - t0)
        for key in stages:
            stages[key].append((result.search_ms if key == "search" else result.timings.get(key, 0.0)) / 1000)
    with store.pool.connection() as conn:
        plan = [r[0] for r in conn.execute(
            "EXPLAIN (ANALYZE, COSTS OFF) " + store.statement(sql.SEARCH_COLLECTION),
            {"query": queries[0], "k": 4},
        )]
    uses_hnsw = any(f"{store.table}_hnsw" in line for line in plan)

    # Scoped: a document, and the subtree of one of its second-level headings.
    docs = store.documents()
    doc = docs[len(docs) // 2]
    heading = next(e for e in store.elements(doc.document_id) if e.metadata.get("category_depth") == 1
                   and e.metadata.get("category") == "Title")
    scoped = {}
    for name, scope in (("document", Scope.document(doc.document_id)),
                        ("subtree", Scope.subtree(heading.metadata["element_id"]))):
        times = []
        for q in queries[20:120]:
            t0 = time.perf_counter()
            r = retrieve(store, RetrievalRequest("synthetic", k=4, scope=scope, query_vector=q))
            times.append(time.perf_counter() - t0)
            assert all(h.element.metadata["document_id"] == doc.document_id for h in r.hits), "scope leaked"
        scoped[name] = summary(times)
    return {
        "retrieve_expand_ms": summary(timings),
        "stages_ms": {k: summary(v) for k, v in stages.items()},
        "search_plan_uses_hnsw": uses_hnsw,
        "search_plan": [line for line in plan if "[" not in line],
        "scoped_ms": scoped,
    }


def embedding_time(store, questions: list[str]) -> dict:
    store.embeddings.embed_query("warm up")
    times = []
    for q in questions:
        t0 = time.perf_counter()
        store.embeddings.embed_query(q)
        times.append(time.perf_counter() - t0)
    return summary(times)


def token_ratios(store, questions: list[dict]) -> dict:
    from core.answering import ExtractiveAnswerer, compare
    from core.retrieval import RetrievalRequest

    rows = []
    for q in questions:
        c = compare(store, RetrievalRequest(q["question"], k=4), answerer=ExtractiveAnswerer())
        plain, hier = c.plain, c.hierarchical
        gold_path = " ".join(q["gold_path"])
        rows.append({
            "id": q["id"],
            "plain_tokens": plain.context.tokens,
            "hierarchical_tokens": hier.context.tokens,
            "ratio": hier.context.tokens / max(plain.context.tokens, 1),
            "answer_in_plain": any(norm(a) in norm(plain.context.text) for a in q["answers"]),
            "answer_in_hierarchical": any(norm(a) in norm(hier.context.text) for a in q["answers"]),
            "gold_path_in_plain": all(norm(h) in norm(plain.context.text) for h in q["gold_path"]),
            "gold_path_in_hierarchical": all(norm(h) in norm(hier.context.text) for h in q["gold_path"]),
            "extractive_plain_correct": any(norm(a) in norm(plain.answer.text) for a in q["answers"]),
            "extractive_hierarchical_correct": any(norm(a) in norm(hier.answer.text) for a in q["answers"]),
            "extractive_hierarchical_names_path": bool(gold_path) and all(
                norm(h) in norm(hier.answer.text) for h in q["gold_path"][:1]),
        })
    n = len(rows)

    def rate(key: str) -> float:
        return round(sum(r[key] for r in rows) / n, 3)

    ratios = [r["ratio"] for r in rows]
    return {
        "questions": n,
        "k": 4,
        "plain_tokens_mean": round(statistics.fmean(r["plain_tokens"] for r in rows), 1),
        "hierarchical_tokens_mean": round(statistics.fmean(r["hierarchical_tokens"] for r in rows), 1),
        "ratio_mean": round(statistics.fmean(ratios), 2),
        "ratio_median": round(statistics.median(ratios), 2),
        "ratio_min": round(min(ratios), 2),
        "ratio_max": round(max(ratios), 2),
        **{key: rate(key) for key in (
            "answer_in_plain", "answer_in_hierarchical", "gold_path_in_plain", "gold_path_in_hierarchical",
            "extractive_plain_correct", "extractive_hierarchical_correct")},
        "rows": rows,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--elements", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--skip-samples", action="store_true", help="only the synthetic collection's latency")
    args = parser.parse_args()

    from core.embeddings import make_embeddings
    from core.ingest import ingest_paths
    from core.store import ElementStore

    url = scratch_database()
    embeddings = make_embeddings("use")
    questions = json.loads(QUESTIONS.read_text(encoding="utf-8"))["questions"]

    samples = ElementStore(url, f"bench_samples_{uuid.uuid4().hex[:6]}", embeddings)
    synthetic = ElementStore(url, f"bench_ret_{uuid.uuid4().hex[:6]}", embeddings)
    try:
        tokens = embed = None
        if not args.skip_samples:
            report = ingest_paths(samples, [SAMPLES])
            assert not report.errors, report.errors
            tokens = token_ratios(samples, questions)
            embed = embedding_time(samples, [q["question"] for q in questions])

        drop_hnsw(synthetic)
        _, load_seconds = load(synthetic, args.elements, seed=42, prefix="r")
        build_seconds = build_hnsw(synthetic)
        lat = latency(synthetic, args.queries)
    finally:
        synthetic.drop()
        samples.drop()

    r = lat["retrieve_expand_ms"]
    hnsw = "used" if lat["search_plan_uses_hnsw"] else "NOT used"
    print(f"\nretrieve + expand at {args.elements:,} elements (HNSW {hnsw}, query embedding excluded): "
          f"p50 {r['p50']:.2f} ms, p95 {r['p95']:.2f} ms, max {r['max']:.2f} ms over {r['n']} queries "
          "(targets: p50 <= 30, p95 <= 80)")
    for stage, s in lat["stages_ms"].items():
        print(f"  {stage:<14} p50 {s['p50']:>7.2f} ms   p95 {s['p95']:>7.2f} ms")
    for name, s in lat["scoped_ms"].items():
        print(f"  scoped to one {name:<8} p50 {s['p50']:>7.2f} ms   p95 {s['p95']:>7.2f} ms")
    print(f"load {load_seconds:.0f} s, HNSW build {build_seconds:.0f} s")
    print("search plan:\n  " + "\n  ".join(lat["search_plan"]))
    payload = {"elements": args.elements, "load_seconds": round(load_seconds, 1),
               "hnsw_build_seconds": round(build_seconds, 1), "latency": lat, "query_embedding_ms": embed,
               "tokens": tokens, "load_average": os.getloadavg()[0]}
    if tokens is None or embed is None:
        print(f"written to {write_result('bench_retrieval', payload)}")
        return
    print(f"query embedding (USE, {embed['n']} sample questions): p50 {embed['p50']:.1f} ms, p95 {embed['p95']:.1f} ms")
    t = tokens
    print(f"\ncontext tokens on {t['questions']} sample questions (k=4): plain {t['plain_tokens_mean']} mean, "
          f"hierarchical {t['hierarchical_tokens_mean']} mean; hierarchical/plain ratio mean {t['ratio_mean']}, "
          f"median {t['ratio_median']} (min {t['ratio_min']}, max {t['ratio_max']})")
    print(f"{'':<34}{'plain':>8}{'hierarchical':>14}")
    for label, key in (("gold answer in context", "answer_in"), ("gold heading path in context", "gold_path_in"),
                       ("extractive answer quotes gold", "extractive_{}_correct")):
        a = tokens[key.format("plain") if "{}" in key else f"{key}_plain"]
        b = tokens[key.format("hierarchical") if "{}" in key else f"{key}_hierarchical"]
        print(f"{label:<34}{a:>8.0%}{b:>14.0%}")

    path = write_result("bench_retrieval", payload)
    print(f"written to {path}")


if __name__ == "__main__":
    run_then_remove_scratch_database(main)
