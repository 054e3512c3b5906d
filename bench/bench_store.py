"""The element store before and after issue 14, side by side in one run on one server.

* old: langchain-postgres' deprecated ``PGVector`` tables (``langchain_pg_embedding``, metadata in ``cmetadata``
  jsonb with expression indexes), written by the previous release's SQL (tests/helpers_old_layout.py);
* new: one table per collection in ``PGVectorStore``'s layout with real columns and the parent foreign key
  (``core.sql.elements``), written by ``store.write.replace_document``.

Both databases live on the same server and receive the same synthetic documents with the same vectors,
alternating document by document so that a change of machine load hits both alike; both write through a
connection checked out of a pool per document, as the product does. Measured at each size
(the collections grow in place: 10k, then 100k elements):

1. load: per-document atomic replace of new documents (lock, delete, ``COPY ... FORMAT BINARY``, upsert of the
   document row), elements per second; no HNSW index on either side (bulk load, as the benchmarks do);
2. replace: re-writing existing documents (the delete finds rows, the foreign key checks them), elements/s;
3. expansion: the ancestors of 4 random elements in one statement (``ANCESTORS`` of each layout, on the same
   kind of connection), p50/p95 ms; both must return the same ids;
4. disk: table plus indexes per element;
5. once, at the end: ``PGVectorStore.add_embeddings`` against ``replace_document`` on the same table layout.

Run: .venv/bin/python bench/bench_store.py [--sizes 10000,100000] [--queries 300] [--replaces 100]
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import statistics
import time
from urllib.parse import urlsplit, urlunsplit

import numpy as np
from _common import scratch_database, write_result
from _synthetic import remove_scratch_database, synthetic_corpus


def ms(values: list[float]) -> dict[str, float]:
    v = sorted(values)
    p95 = v[min(len(v) - 1, int(0.95 * len(v)))]
    return {"p50": round(statistics.median(v) * 1000, 3), "p95": round(p95 * 1000, 3), "n": len(v)}


def other_database(url: str, name: str) -> str:
    import psycopg
    from psycopg import sql as pgsql

    from core.db.urls import psycopg_conninfo

    with psycopg.connect(psycopg_conninfo(url), autocommit=True) as conn:
        conn.execute(pgsql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(pgsql.Identifier(name)))
        conn.execute(pgsql.SQL("CREATE DATABASE {}").format(pgsql.Identifier(name)))
    out = urlunsplit(urlsplit(url)._replace(path="/" + name))
    with psycopg.connect(psycopg_conninfo(out), autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
    return out


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--replaces", type=int, default=100, help="documents re-written per size and side")
    parser.add_argument("--pgvectorstore-elements", type=int, default=2000,
                        help="elements written through PGVectorStore.add_embeddings, against replace_document")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]

    import psycopg
    from pgvector.psycopg import register_vector

    from core.db.pool import connection_pool, read_connection
    from core.db.urls import psycopg_conninfo
    from core.embeddings import EmbedderInfo, NamedEmbeddings
    from core.sql import elements as element_sql
    from core.store import ElementStore
    from tests.helpers_old_layout import ANCESTORS, create_old_collection, write_old_document

    class Embedder(NamedEmbeddings):
        """Never called: the benchmark brings its own vectors; only the embedder's identity is recorded."""

        info = EmbedderInfo("hash", "bench-512", 512)

        def embed_documents(self, texts):
            raise AssertionError("the benchmark never embeds")

        def embed_query(self, text):
            raise AssertionError("the benchmark never embeds")

    base = scratch_database()
    old_url, new_url = other_database(base, "bench_store_old"), other_database(base, "bench_store_new")
    embeddings = Embedder()
    old_id = create_old_collection(old_url, "bench", embeddings)
    old_pool = connection_pool(old_url)
    old_conn = psycopg.connect(psycopg_conninfo(old_url))
    register_vector(old_conn)
    store = ElementStore(new_url, "bench", embeddings)

    def write_both(batch: list[tuple]) -> tuple[int, float, float]:
        """Each document to the old layout, then the same to the new one; seconds spent on each side."""
        n, t_old, t_new = 0, 0.0, 0.0
        for record, docs, vectors, hashes in batch:
            t0 = time.perf_counter()
            with old_pool.connection() as conn:  # checked out like ElementStore does: same per-document cost
                write_old_document(conn, old_id, record, docs, vectors, hashes)
            t1 = time.perf_counter()
            store.write.replace_document(record, docs, vectors, hashes)
            t_old += t1 - t0
            t_new += time.perf_counter() - t1
            n += len(docs)
        return n, t_old, t_new

    results: dict = {"sizes": {}}
    written: list[tuple] = []  # (record, docs, vectors, hashes) for the replace phase
    loaded = 0
    for size in sizes:
        batch = [(record, docs, vectors, [sha(d.page_content) for d in docs])
                 for record, docs, vectors in synthetic_corpus(size - loaded, seed=size, prefix=f"s{size}-")]
        n, t_old, t_new = write_both(batch)
        written += batch
        loaded = size
        for conn_sql in ("ANALYZE langchain_pg_embedding", "ANALYZE hke_documents"):
            old_conn.execute(conn_sql)
        old_conn.commit()
        with store.pool.connection() as conn:
            conn.execute(store.statement("ANALYZE {elements}"))

        # Replace: the same documents again under a new hash (rows exist: delete, copy, foreign-key checks).
        rng = np.random.default_rng(size)
        picks = [written[i] for i in rng.choice(len(written), min(args.replaces, len(written)), replace=False)]
        r_n, r_old, r_new = write_both([(dataclasses.replace(record, content_hash=record.content_hash + "+"), *rest)
                                        for record, *rest in picks])

        # Expansion: 4 random elements' ancestors, alternating old and new on the same ids.
        with store.pool.connection() as conn:
            ids = [r[0] for r in conn.execute(store.statement(
                "SELECT element_id FROM {elements} ORDER BY random() LIMIT %s"), (args.queries * 4 + 80,))]
        # The same kind of connection on both sides (autocommit, vectors registered): the statement is compared,
        # not the pool's per-checkout health check that ElementStore.ancestors adds.
        old_conn.autocommit = True
        new_conn = psycopg.connect(psycopg_conninfo(new_url), autocommit=True)
        register_vector(new_conn)
        ancestors_new = store.statement(element_sql.ANCESTORS)
        e_old, e_new = [], []
        for q in range(args.queries + 20):
            hit_ids = ids[q * 4:(q + 1) * 4]
            t0 = time.perf_counter()
            old_rows = old_conn.execute(ANCESTORS, {"collection_id": old_id, "ids": hit_ids}).fetchall()
            t1 = time.perf_counter()
            new_rows = new_conn.execute(ancestors_new, {"ids": hit_ids}).fetchall()
            t2 = time.perf_counter()
            assert {r[0] for r in old_rows} == {r[0] for r in new_rows}, "both layouts return the same ancestors"
            if q >= 20:  # the first 20 warm the caches
                e_old.append(t1 - t0)
                e_new.append(t2 - t1)
        old_conn.autocommit = False
        new_conn.close()

        with read_connection(store.pool) as conn:
            new_bytes = conn.execute("SELECT pg_total_relation_size(%s)", (store.table,)).fetchone()[0]
        old_bytes = old_conn.execute("SELECT pg_total_relation_size('langchain_pg_embedding')").fetchone()[0]
        old_conn.rollback()
        row = {
            "elements": size,
            "load_elements_per_s": {"old": round(n / t_old), "new": round(n / t_new),
                                    "new_over_old": round(t_old / t_new, 2)},
            "replace_elements_per_s": {"old": round(r_n / r_old), "new": round(r_n / r_new),
                                       "new_over_old": round(r_old / r_new, 2)},
            "expand_ms": {"old": ms(e_old), "new": ms(e_new)},
            "bytes_per_element": {"old": round(old_bytes / size), "new": round(new_bytes / size)},
        }
        results["sizes"][str(size)] = row
        print(row, flush=True)
    old_conn.close()

    # PGVectorStore's own write path on the same table layout (a collection of its own), for the same documents:
    # add_embeddings runs one INSERT and one commit per element, each on a connection of its own (NullPool).
    plain = ElementStore(new_url, "bench_pgvectorstore", embeddings)
    docs, vectors = [], []
    for _record, batch_docs, batch_vectors in synthetic_corpus(args.pgvectorstore_elements, seed=3, prefix="p-"):
        docs += batch_docs
        vectors += [v.tolist() for v in batch_vectors]
    t0 = time.perf_counter()
    plain.vectorstore.add_embeddings([d.page_content for d in docs], vectors, metadatas=[d.metadata for d in docs],
                                     ids=[d.id for d in docs])
    t_pgvs = time.perf_counter() - t0
    t0 = time.perf_counter()
    for record, batch_docs, batch_vectors in synthetic_corpus(args.pgvectorstore_elements, seed=3, prefix="q-"):
        plain.write.replace_document(record, batch_docs, batch_vectors)
    t_copy = time.perf_counter() - t0
    results["pgvectorstore_add_embeddings"] = {
        "elements": len(docs), "add_embeddings_elements_per_s": round(len(docs) / t_pgvs),
        "replace_document_elements_per_s": round(len(docs) / t_copy), "copy_over_add": round(t_pgvs / t_copy, 1)}
    print(results["pgvectorstore_add_embeddings"], flush=True)
    path = write_result("store", results)
    print("wrote", path)
    remove_scratch_database()


if __name__ == "__main__":
    main()
