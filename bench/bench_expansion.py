"""Expansion of k=4 hits into their ancestors: ours (one recursive CTE) against the reference notebook's method.

The reference notebook walked up from every hit with one ``PGVector.similarity_search("", k=1,
filter={"element_id": parent_id})`` per ancestor, which embeds an empty query and runs one search each time.
Ours is ``ElementStore.ancestors(hit_ids)``: one statement for all hits, walking ``parent_id`` through the
table's primary key, then the merge and the markdown render. The reference runs on ``store.vectorstore`` (now
a ``PGVectorStore``, filtering on the ``element_id`` column).

Both run on the same database and the same hits, at 1k, 10k and 100k synthetic elements (one collection grown
in place). Both must return the same ancestors; the script checks it. Target: ratio ≥ 100×, ours flat.

Run: .venv/bin/python bench/bench_expansion.py [--sizes 1000,10000,100000] [--queries 200] [--ref-queries 15]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
import uuid

from _common import scratch_database, write_result
from _synthetic import analyze, build_hnsw, drop_hnsw, load, random_queries, run_then_remove_scratch_database


def reference_walk(store, hit_docs) -> tuple[dict[str, object], int]:
    """The notebook's expansion: one similarity_search per ancestor of each hit (no sharing between hits)."""
    found: dict[str, object] = {}
    searches = 0
    for doc in hit_docs:
        found[doc.metadata["element_id"]] = doc
        parent = doc.metadata.get("parent_id")
        while parent:
            searches += 1
            result = store.vectorstore.similarity_search("", k=1, filter={"element_id": parent})
            if not result:
                break  # the walk is broken: the caller counts it as incomplete
            found[parent] = result[0]
            parent = result[0].metadata.get("parent_id")
    return found, searches


def ms(values: list[float]) -> dict[str, float]:
    values = sorted(values)
    return {
        "p50": round(statistics.median(values) * 1000, 3),
        "p95": round(values[min(len(values) - 1, int(0.95 * len(values)))] * 1000, 3),
        "mean": round(statistics.fmean(values) * 1000, 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--queries", type=int, default=200, help="hit sets timed for ours")
    parser.add_argument("--ref-queries", type=int, default=15, help="hit sets timed for the reference method")
    parser.add_argument("--k", type=int, default=4)
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]

    from core.embeddings import make_embeddings
    from core.partial_tree import merge_trees, render_markdown
    from core.retrieval import vector_search
    from core.store import ElementStore

    url = scratch_database()
    store = ElementStore(url, f"bench_exp_{uuid.uuid4().hex[:6]}", make_embeddings("use"))
    store.embeddings.embed_query("warm up")
    # Expansion uses no vector index, and the notebook's PGVector had none: load and measure without HNSW
    # (the HNSW check below shows what happens to the reference method when the index exists).
    drop_hnsw(store)
    rows = []
    loaded = 0
    try:
        for size in sizes:
            _, seconds = load(store, size - loaded, seed=size, prefix=f"s{size}-", start_doc=loaded)
            loaded = size
            analyze(store)
            queries = random_queries(store, args.queries, seed=size)
            hit_sets = [vector_search(store, q, args.k) for q in queries]

            ours_fetch, ours_total = [], []
            ancestors_per_set = []
            for hits in hit_sets:
                t0 = time.perf_counter()
                elements = store.ancestors([h.element_id for h in hits])
                t1 = time.perf_counter()
                render_markdown(merge_trees(elements, [h.element_id for h in hits]))
                t2 = time.perf_counter()
                ours_fetch.append(t1 - t0)
                ours_total.append(t2 - t0)
                ancestors_per_set.append(len(elements))

            ref_times, searches, incomplete = [], [], 0
            for hits in hit_sets[: args.ref_queries]:
                t0 = time.perf_counter()
                found, n = reference_walk(store, [h.element for h in hits])
                ref_times.append(time.perf_counter() - t0)
                searches.append(n)
                ours = store.ancestors([h.element_id for h in hits])
                incomplete += set(found) != set(ours)

            row = {
                "elements": size,
                "load_seconds": round(seconds, 1),
                "ours_fetch_ms": ms(ours_fetch),
                "ours_fetch_merge_render_ms": ms(ours_total),
                "reference_ms": ms(ref_times),
                "reference_searches_per_query": statistics.fmean(searches),
                "reference_incomplete": incomplete,
                "elements_per_context": statistics.fmean(ancestors_per_set),
                "ratio_p50": round(statistics.median(ref_times) / statistics.median(ours_total), 1),
            }
            rows.append(row)
            print(f"{size:>7} elements: ours {row['ours_fetch_merge_render_ms']['p50']:.2f} ms "
                  f"(fetch {row['ours_fetch_ms']['p50']:.2f}), reference {row['reference_ms']['p50']:.0f} ms "
                  f"({row['reference_searches_per_query']:.1f} searches), ratio {row['ratio_p50']:.0f}x",
                  flush=True)

        # What the reference method does once the HNSW index exists (PGVector's own sessions do not enable
        # iterative scans, so a selective filter after an approximate scan can find nothing).
        hnsw_seconds = build_hnsw(store)
        check_sets = [vector_search(store, q, args.k) for q in random_queries(store, 10, seed=99)]
        broken = 0
        t0 = time.perf_counter()
        for hits in check_sets:
            found, _ = reference_walk(store, [h.element for h in hits])
            broken += set(found) != set(store.ancestors([h.element_id for h in hits]))
        hnsw_check = {"hit_sets": len(check_sets), "incomplete": broken, "index_build_seconds": round(hnsw_seconds, 1),
                      "seconds": round(time.perf_counter() - t0, 2)}
    finally:
        store.drop()

    print()
    print(f"{'elements':>9} | {'ours p50 ms':>11} | {'ours p95 ms':>11} | {'ref p50 ms':>10} | {'searches':>8} | ratio")
    print("-" * 70)
    for r in rows:
        print(f"{r['elements']:>9} | {r['ours_fetch_merge_render_ms']['p50']:>11.2f} | "
              f"{r['ours_fetch_merge_render_ms']['p95']:>11.2f} | {r['reference_ms']['p50']:>10.1f} | "
              f"{r['reference_searches_per_query']:>8.1f} | {r['ratio_p50']:.0f}x")
    print(f"reference with the HNSW index present: {hnsw_check['incomplete']}/{hnsw_check['hit_sets']} "
          "walks incomplete")
    payload = {"k": args.k, "rows": rows, "reference_with_hnsw": hnsw_check}
    path = write_result("bench_expansion", payload)
    print(json.dumps(payload, indent=2))
    print(f"written to {path}")


if __name__ == "__main__":
    run_then_remove_scratch_database(main)
