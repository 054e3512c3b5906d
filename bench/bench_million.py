"""One million synthetic elements on this machine: load, index builds, retrieve + expand, disk per element.

1. load: ``store.write.replace_document`` per document (one ``COPY`` each) of 1M synthetic elements
   (bench/_synthetic.py: heading trees of depth 3-6, 512-d clustered unit vectors), no HNSW during the load;
2. HNSW build (cosine, pgvector defaults m=16, ef_construction=64) with ``maintenance_work_mem`` as given
   (default 4GB, so the graph is built in memory) and one parallel maintenance worker (2 cores);
3. the heading index: its first read in a process (the stored index, whole), then the first question after a
   one-document change (``--changes`` times: one document re-written, then the heading match, and separately a
   whole retrieve + expand); the full-text lexemes and their GIN index are written with the elements in step 1;
4. retrieve + expand with the default pipeline (``core.retrieval.retrieve``: heading match, hybrid search,
   ancestors, sections) over 300 queries near stored vectors, query embedding excluded (bench_retrieval.latency);
5. disk: the collection table with all its indexes over the element count.

``--shared-buffers 6GB`` restarts the scratch server with that much shared buffers before the load (the
embedded server keeps Postgres' 128 MB unless ``HKE_SHARED_BUFFERS`` says otherwise), and ``--prewarm`` reads the
HNSW index, the rows and the full-text index into them (``pg_prewarm``) before step 3. ``--then-shared-buffers 6GB
default`` asks step 4's questions again after restarting the server with each size, its buffers empty: the sizes
side by side in one run.

The load average (1-minute) is recorded at each step: the machine is shared. Run it once, on a quiet machine:
    nohup .venv/bin/python bench/bench_million.py > bench/out/million.log 2>&1 &
``--elements 100000`` runs the same steps at 100k (minutes instead of an hour).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from dataclasses import replace

from _common import scratch_database, write_result
from _synthetic import (
    analyze,
    build_hnsw,
    load,
    prewarm,
    random_queries,
    remove_scratch_database,
    set_shared_buffers,
)
from bench_retrieval import latency


def shared_buffers(url: str) -> str:
    import psycopg

    with psycopg.connect(url) as conn:
        return conn.execute("SHOW shared_buffers").fetchone()[0]


def load_average() -> float:
    return round(os.getloadavg()[0], 2)


def after_one_document_change(store, changes: int) -> dict[str, float]:
    """Re-write one document (new content), then time the next question's heading match and whole retrieve."""
    from _synthetic import synthetic_corpus

    from core.retrieval import RetrievalRequest, retrieve
    from core.retrieval.heading_cache import heading_index

    queries = random_queries(store, changes, seed=17)
    docs = list(synthetic_corpus(300 * changes, seed=99, prefix="m"))[:changes]  # same ids as the load's first ones
    heading_ms, retrieve_ms = [], []
    for n, ((record, elements, vectors), query) in enumerate(zip(docs, queries, strict=False)):
        record = replace(record, content_hash=f"changed-{n}")
        store.write.replace_document(record, elements, vectors)
        t0 = time.perf_counter()
        heading_index(store)
        heading_ms.append((time.perf_counter() - t0) * 1000)
        store.write.replace_document(replace(record, content_hash=f"changed-again-{n}"), elements, vectors)
        t0 = time.perf_counter()
        retrieve(store, RetrievalRequest("What is the panel weight of product P3?", k=4, query_vector=query))
        retrieve_ms.append((time.perf_counter() - t0) * 1000)
    return {"heading_index_p50": round(statistics.median(heading_ms), 2),
            "heading_index_max": round(max(heading_ms), 2),
            "retrieve_expand_p50": round(statistics.median(retrieve_ms), 2),
            "retrieve_expand_max": round(max(retrieve_ms), 2), "n": len(heading_ms)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--elements", type=int, default=1_000_000)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--changes", type=int, default=10, help="one-document changes timed (step 4)")
    parser.add_argument("--maintenance-work-mem", default="4GB")
    parser.add_argument("--keep", action="store_true", help="leave the scratch database in place")
    parser.add_argument("--shared-buffers", help="restart the scratch server with this shared_buffers (e.g. 6GB)")
    parser.add_argument("--then-shared-buffers", nargs="*", default=[], metavar="SIZE",
                        help="after the questions, restart the server with each size in turn (e.g. 6GB; 'default': "
                        "Postgres' own 128MB) and ask them again, the buffers empty")
    parser.add_argument("--prewarm", action="store_true", help="read the collection's indexes and rows into shared "
                        "buffers (pg_prewarm) before the questions")
    args = parser.parse_args()

    from core.db.pool import read_connection
    from core.embeddings import make_embeddings
    from core.retrieval.heading_cache import heading_index
    from core.store import ElementStore

    url = scratch_database()
    if args.shared_buffers:
        url = set_shared_buffers(args.shared_buffers)
    store = ElementStore(url, "million", make_embeddings("use"), options={"synthetic": True})
    out: dict = {"elements": args.elements, "maintenance_work_mem": args.maintenance_work_mem,
                 "cpu_count": os.cpu_count(), "load_average": {"start": load_average()},
                 "shared_buffers": shared_buffers(url)}
    print(f"start, load average {out['load_average']['start']}, shared_buffers {out['shared_buffers']}", flush=True)

    documents, seconds = load(store, args.elements, seed=1_000_000, prefix="m")
    analyze(store)
    out.update(documents=documents, load_s=round(seconds, 1), load_elements_per_s=round(args.elements / seconds))
    out["load_average"]["after_load"] = load_average()
    print(f"load: {documents} documents, {seconds:.0f} s, {args.elements / seconds:.0f} elements/s", flush=True)

    # One leader and one parallel worker: the machine has 2 cores.
    out["hnsw_build_s"] = round(build_hnsw(store, args.maintenance_work_mem, parallel_workers=1), 1)
    out["load_average"]["after_hnsw"] = load_average()
    print(f"HNSW build: {out['hnsw_build_s']} s", flush=True)
    if args.prewarm:
        t0 = time.perf_counter()
        out["prewarm_blocks"] = prewarm(store)
        out["prewarm_s"] = round(time.perf_counter() - t0, 1)
        print(f"prewarm: {out['prewarm_blocks']} in {out['prewarm_s']} s", flush=True)

    # The heading index is stored with the documents; a process reads it whole once (no tokenising), then each
    # question checks one row for changes and re-reads only the documents written since.
    t0 = time.perf_counter()
    out["headings"] = len(heading_index(store).headings)
    out["heading_index_first_read_s"] = round(time.perf_counter() - t0, 3)
    print(f"heading index, first read in this process: {out['headings']} headings, "
          f"{out['heading_index_first_read_s']} s", flush=True)
    out["first_question_after_change_ms"] = after_one_document_change(store, args.changes)
    print(f"first question after a one-document change: {out['first_question_after_change_ms']}", flush=True)

    lat = latency(store, args.queries)
    out["latency"] = lat
    out["load_average"]["after_queries"] = load_average()
    r = lat["retrieve_expand_ms"]
    print(f"retrieve + expand (default pipeline): p50 {r['p50']} ms, p95 {r['p95']} ms over {r['n']} queries; "
          f"HNSW used: {lat['search_plan_uses_hnsw']}", flush=True)

    for size in args.then_shared_buffers:
        url = set_shared_buffers(size)
        store = ElementStore(url, "million", make_embeddings("use"), options={"synthetic": True})
        again = latency(store, args.queries)
        out.setdefault("after_restart", []).append({"shared_buffers": shared_buffers(url), "latency": again,
                                                     "load_average": load_average()})
        r = again["retrieve_expand_ms"]
        print(f"after a restart with shared_buffers {shared_buffers(url)}: retrieve + expand p50 {r['p50']} ms, "
              f"p95 {r['p95']} ms; full text p50 {again['stages_ms']['fts_search']['p50']} ms", flush=True)

    with read_connection(store.pool) as conn:
        total, table, hnsw, fts, count = conn.execute(
            "SELECT pg_total_relation_size(%(t)s), pg_relation_size(%(t)s) + pg_relation_size("
            "(SELECT reltoastrelid FROM pg_class WHERE oid = %(t)s::regclass)), pg_relation_size(%(h)s), "
            "pg_relation_size(%(f)s), (SELECT sum(n_elements) FROM hke_documents WHERE collection_id = %(c)s)",
            {"t": store.table, "h": f"{store.table}_hnsw", "f": f"{store.table}_fts", "c": store.collection_id},
        ).fetchone()
    count = int(count)
    out["disk"] = {"total_bytes": total, "per_element_bytes": round(total / count),
                   "heap_and_toast_per_element": round(table / count), "hnsw_per_element": round(hnsw / count),
                   "fts_per_element": round(fts / count)}
    print(f"disk: {total / 2**30:.2f} GiB in all, {total / count:.0f} bytes per element "
          f"(rows {table / count:.0f}, HNSW {hnsw / count:.0f}, full text {fts / count:.0f})", flush=True)
    print(f"load average: {out['load_average']}", flush=True)
    print("wrote", write_result("million", out))
    if not args.keep:
        store.drop()
        remove_scratch_database()


if __name__ == "__main__":
    main()
