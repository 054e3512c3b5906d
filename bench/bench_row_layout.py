"""Element rows kept whole in their page (``core.sql.elements.INLINE_ROW_BYTES``) against Postgres' default row
target, under which every 512-dimension vector (2,052 bytes) is stored in the TOAST table: side by side in one
process, the two layouts alternating, so that the machine's load falls on both alike.

* ``samples``: the sample corpus in two collections, one rewritten to the default layout (``RESET
  (toast_tuple_target)`` and ``VACUUM FULL``). Per question of the sets, the whole default pipeline as
  ``bench_pipeline.py`` times it (``retrieve`` with the question's vector, the extractive answer): this process's CPU,
  its Postgres backends' CPU (/proc, 10 ms ticks: the mean is exact), wall; and the limit, one raw hybrid search of
  the whole collection (``core.retrieval.search.search``) and the embedder's own call.
* ``synthetic``: ``--synthetic N`` elements (``bench/_synthetic.py``) in two collections, the default layout set
  before loading, each with its HNSW index: the whole collection's vector search (``k`` 20) and full-text search of
  synthetic questions, the two statements that grow with a collection (wall and backend CPU).

Run: nice .venv/bin/python bench/bench_row_layout.py [--sets gold,entity-grid] [--rounds 2] [--synthetic 20000]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

from _common import SAMPLES, scratch_database, write_result
from _synthetic import build_hnsw, load, random_queries, run_then_remove_scratch_database, synthetic_questions
from bench_pipeline import SETS, ServerClock

LAYOUTS = ("default", "inline")


def to_default_layout(store, *, rewrite: bool) -> dict[str, int]:
    """The collection's tables back to Postgres' default row target (``rewrite``: its rows too); the sizes of the
    element table's heap and TOAST relation."""
    import psycopg

    from core.db.urls import psycopg_conninfo

    with psycopg.connect(psycopg_conninfo(store.url), autocommit=True) as conn:
        for table in (store.table, f"{store.table}_history"):
            conn.execute(f'ALTER TABLE "{table}" RESET (toast_tuple_target)')
        if rewrite:
            conn.execute(f'VACUUM FULL "{store.table}"')
        conn.execute(f'ANALYZE "{store.table}"')
    return sizes(store)


def sizes(store) -> dict[str, int]:
    with store.pool.connection() as conn:
        heap, toast = conn.execute("SELECT pg_relation_size(oid), pg_relation_size(reltoastrelid) FROM pg_class "
                                   "WHERE relname = %s", (store.table,)).fetchone()
    return {"heap_bytes": int(heap), "toast_bytes": int(toast)}


class Samples:
    def __init__(self, store) -> None:
        self.cpu: list[float] = []
        self.wall: list[float] = []
        self.pg_ms = 0.0
        self.raw_cpu: list[float] = []
        self.raw_pg_ms = 0.0
        self.n = 0
        self.store = store

    def summary(self) -> dict[str, float]:
        client = statistics.fmean(self.cpu)
        return {"pipeline_cpu_ms_p50": round(statistics.median(self.cpu), 2), "pipeline_cpu_ms_mean": round(client, 2),
                "pipeline_pg_cpu_ms_mean": round(self.pg_ms / self.n, 2),
                "pipeline_cpu_with_pg_ms_mean": round(client + self.pg_ms / self.n, 2),
                "pipeline_wall_ms_p50": round(statistics.median(self.wall), 2),
                "raw_search_cpu_with_pg_ms_mean": round(statistics.fmean(self.raw_cpu) + self.raw_pg_ms / self.n, 2)}


def run_samples(url: str, names: list[str], rounds: int) -> dict:
    from core.answering import ExtractiveAnswerer
    from core.embeddings import make_embeddings
    from core.evaluation import load_questions
    from core.ingest import ingest_paths
    from core.retrieval import DEFAULT_SEARCH, RetrievalRequest, Scope, retrieve, warm_up
    from core.retrieval.search import embed_query, search
    from core.store import ElementStore

    embeddings = make_embeddings("use")
    stores = {layout: ElementStore(url, f"row_layout_{layout}", embeddings) for layout in LAYOUTS}
    for store in stores.values():
        ingest_paths(store, [SAMPLES])
    out: dict = {"sizes": {"default": to_default_layout(stores["default"], rewrite=True),
                           "inline": sizes(stores["inline"])}}
    questions = [q.question for name in names for q in load_questions(SETS[name]).questions]
    vectors = {q: embed_query(stores["inline"], q) for q in questions}
    answerer = ExtractiveAnswerer()
    for store in stores.values():
        warm_up(store)
        for _ in range(2):  # psycopg prepares a statement on its fifth use
            for q in questions:
                answerer.complete(q, retrieve(store, RetrievalRequest(q, k=4, query_vector=vectors[q])).hierarchical)
    clock = ServerClock(url)
    results = {layout: Samples(store) for layout, store in stores.items()}
    embed_cpu: list[float] = []
    load_before = os.getloadavg()
    for _ in range(rounds):
        for q in questions:
            for layout in LAYOUTS:
                into, store = results[layout], stores[layout]
                wall, cpu, server = time.perf_counter(), time.process_time(), clock()
                retrieval = retrieve(store, RetrievalRequest(q, k=4, query_vector=vectors[q]))
                answerer.complete(q, retrieval.hierarchical)
                into.wall.append((time.perf_counter() - wall) * 1000.0)
                into.cpu.append((time.process_time() - cpu) * 1000.0)
                into.pg_ms += (clock() - server) * 1000.0
                cpu, server = time.process_time(), clock()
                search(store, q, vectors[q], 4, Scope.whole(), DEFAULT_SEARCH)
                into.raw_cpu.append((time.process_time() - cpu) * 1000.0)
                into.raw_pg_ms += (clock() - server) * 1000.0
                into.n += 1
            cpu = time.process_time()
            embeddings.embed_query(q)
            embed_cpu.append((time.process_time() - cpu) * 1000.0)
    out.update({"questions": len(questions), "rounds": rounds, "sets": names,
                "load_average_before": [round(x, 2) for x in load_before],
                "load_average_after": [round(x, 2) for x in os.getloadavg()],
                "raw_embed_cpu_ms_p50": round(statistics.median(embed_cpu), 2)})
    for layout, into in results.items():
        out[layout] = into.summary()
    out["inline_over_default"] = {key: round(out["inline"][key] / max(out["default"][key], 1e-9), 3)
                                  for key in out["inline"]}
    return out


def run_synthetic(url: str, n_elements: int, n_questions: int) -> dict:
    from core.embeddings import make_embeddings
    from core.retrieval.search import fts_scored, vector_search
    from core.store import ElementStore

    embeddings = make_embeddings("use")
    stores = {layout: ElementStore(url, f"row_layout_synthetic_{layout}", embeddings) for layout in LAYOUTS}
    out: dict = {"elements": n_elements}
    to_default_layout(stores["default"], rewrite=False)  # before loading: the rows are written so
    for layout, store in stores.items():
        load(store, n_elements, dim=embeddings.info.dimension, seed=5)
        build_hnsw(store)
        out.setdefault("sizes", {})[layout] = sizes(store)
    queries = random_queries(stores["inline"], n_questions)
    questions = synthetic_questions(n_questions)
    clock = ServerClock(url)
    timed: dict[str, dict[str, list[float]]] = {f"{layout}_{part}": {"wall": [], "pg": []}
                                                 for layout in LAYOUTS for part in ("vector", "fulltext")}
    for warm in (True, False):
        for vector, question in zip(queries, questions, strict=True):
            for layout, store in stores.items():
                for part, call in (("vector", lambda s=store, v=vector: vector_search(s, v, 20)),
                                   ("fulltext", lambda s=store, q=question, v=vector: fts_scored(s, q, v, 20))):
                    wall, server = time.perf_counter(), clock()
                    call()
                    if not warm:
                        timed[f"{layout}_{part}"]["wall"].append((time.perf_counter() - wall) * 1000.0)
                        timed[f"{layout}_{part}"]["pg"].append((clock() - server) * 1000.0)
    for key, values in timed.items():
        out[f"{key}_wall_ms_p50"] = round(statistics.median(values["wall"]), 2)
        out[f"{key}_pg_cpu_ms_mean"] = round(statistics.fmean(values["pg"]), 2)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default="gold,entity-grid", help=f"comma-separated, from {', '.join(SETS)}")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--synthetic", type=int, default=0, help="elements of the synthetic collections (0: none)")
    parser.add_argument("--synthetic-questions", type=int, default=100)
    parser.add_argument("--label", default="")
    args = parser.parse_args()
    url = scratch_database()
    out: dict = {"samples": run_samples(url, [s.strip() for s in args.sets.split(",") if s.strip()], args.rounds)}
    print({k: v for k, v in out["samples"].items() if k in ("default", "inline", "inline_over_default", "sizes")})
    if args.synthetic:
        out["synthetic"] = run_synthetic(url, args.synthetic, args.synthetic_questions)
        print(out["synthetic"])
    path = write_result(f"row-layout{'-' + args.label if args.label else ''}", out)
    print(f"wrote {path}")


if __name__ == "__main__":
    run_then_remove_scratch_database(main)
