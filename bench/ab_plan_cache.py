"""Rows kept whole (``ext``: rewritten to Postgres' default row target, vectors in the TOAST table; ``plain``: the
product's layout, rows whole in their page) crossed with the plan cache (``+generic``: ``plan_cache_mode =
force_generic_plan`` on every pooled connection, through PGOPTIONS), the four alternating in rounds: per question
of the sets, ``retrieve``'s CPU in this process and its backends' CPU (docs/pipeline-speed.md, speed5).

Run: nice .venv/bin/python bench/ab_plan_cache.py gold,entity-grid 2
"""

import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from _common import SAMPLES, scratch_database
from _synthetic import run_then_remove_scratch_database


def main():
    url = scratch_database()
    import psycopg
    from bench_pipeline import SETS, ServerClock

    from core.db.pool import close_pools
    from core.db.urls import psycopg_conninfo
    from core.embeddings import make_embeddings
    from core.evaluation import load_questions
    from core.ingest import ingest_paths
    from core.retrieval import RetrievalRequest, retrieve, warm_up
    from core.retrieval.search import embed_query
    from core.store import ElementStore

    emb = make_embeddings("use")
    stores = {}
    for name in ("ext", "plain"):
        s = ElementStore(url, "ab_" + name, emb)
        ingest_paths(s, [SAMPLES])
        stores[name] = s
    with psycopg.connect(psycopg_conninfo(url), autocommit=True) as c:
        t = stores["plain"].table
        c.execute(f'ALTER TABLE "{t}" SET (toast_tuple_target = 8160)')  # the product's layout since speed5
        c.execute(f'VACUUM FULL "{t}"')
        c.execute(f'ANALYZE "{t}"')
        for n, s in stores.items():
            print(
                n,
                c.execute(
                    "SELECT pg_relation_size(%s::regclass), pg_relation_size(reltoastrelid) FROM pg_class "
                    "WHERE oid = %s::regclass",
                    (f'"{s.table}"', f'"{s.table}"'),
                ).fetchone(),
            )
    qs = [q.question for nm in sys.argv[1].split(",") for q in load_questions(SETS[nm]).questions]
    vecs = {q: embed_query(stores["ext"], q) for q in qs}
    res = {}
    order = ["ext", "plain", "ext+generic", "plain+generic"]
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 2
    for r in range(rounds):
        for v in order:
            close_pools()
            if "generic" in v:
                os.environ["PGOPTIONS"] = "-c plan_cache_mode=force_generic_plan"
            else:
                os.environ.pop("PGOPTIONS", None)
            store = ElementStore(url, "ab_" + v.split("+")[0], emb)
            warm_up(store)
            for q in qs:
                retrieve(store, RetrievalRequest(q, k=4, query_vector=vecs[q]))
            for q in qs:
                retrieve(store, RetrievalRequest(q, k=4, query_vector=vecs[q]))  # psycopg prepares after 5
            clock = ServerClock(url)
            d = res.setdefault(v, {"cpu": [], "wall": [], "pg": 0.0, "n": 0})
            s0 = clock()
            for q in qs:
                w = time.perf_counter()
                c0 = time.process_time()
                retrieve(store, RetrievalRequest(q, k=4, query_vector=vecs[q]))
                d["cpu"].append((time.process_time() - c0) * 1000)
                d["wall"].append((time.perf_counter() - w) * 1000)
            d["pg"] += (clock() - s0) * 1000
            d["n"] += len(qs)
            print(r, v, "load", os.getloadavg()[0], flush=True)
    for v, d in res.items():
        client, server = statistics.fmean(d["cpu"]), d["pg"] / d["n"]
        print(
            f"{v:15s} client cpu p50 {statistics.median(d['cpu']):6.2f} mean {client:6.2f}  "
            f"server cpu mean {server:6.2f}  both {client + server:6.2f}  wall p50 {statistics.median(d['wall']):6.2f}"
        )


if __name__ == "__main__":
    run_then_remove_scratch_database(main)
