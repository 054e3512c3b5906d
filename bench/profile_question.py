"""Where one default question's CPU goes in this process: ``cProfile`` (clocked by ``time.process_time``) over
``retrieve`` for the gold questions, three passes, and each SQL statement's wall time as this process sees it (sent,
waited on, fetched) and its server backend's CPU time (``/proc/PID/schedstat``), per question
(docs/pipeline-speed.md, speed5); first, the statements of each question asked for the first time, by kind
(docs/speed6.md). The profiler inflates Python about 3x: read the shares, not the milliseconds.

Run: nice .venv/bin/python bench/profile_question.py > profile.txt
"""

import collections
import cProfile
import os
import pstats
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from _common import SAMPLES, scratch_database
from _synthetic import run_then_remove_scratch_database


def samples_and_gold_questions(url: str):
    """The samples ingested at ``url``, warmed up; the gold questions and their vectors (embedded once, outside
    what is measured)."""
    from bench_pipeline import SETS

    from core.embeddings import make_embeddings
    from core.evaluation import load_questions
    from core.ingest import ingest_paths
    from core.retrieval import warm_up
    from core.retrieval.search import embed_query
    from core.store import ElementStore
    from core.tokens import count_tokens

    store = ElementStore(url, "prof", make_embeddings("use"))
    ingest_paths(store, [SAMPLES])
    qs = [q.question for q in load_questions(SETS["gold"]).questions]
    warm_up(store)
    count_tokens("x")
    return store, qs, {q: embed_query(store, q) for q in qs}


def main():
    url = scratch_database()
    import psycopg

    from core.retrieval import RetrievalRequest, retrieve

    store, qs, vecs = samples_and_gold_questions(url)
    # the statements of each question asked for the first time (its texts' lexemes not read yet), by kind
    orig = psycopg.Cursor.execute
    first: collections.Counter[str] = collections.Counter()

    def counted(cur, query, *a, **kw):
        first[" ".join(str(query).split())[:90]] += 1
        return orig(cur, query, *a, **kw)

    psycopg.Cursor.execute = counted
    for q in qs:
        retrieve(store, RetrievalRequest(q, k=4, query_vector=vecs[q]))
    psycopg.Cursor.execute = orig
    print(f"statements per question asked for the first time: {sum(first.values()) / len(qs):.2f}")
    for k, n in first.most_common():
        print(f"{n / len(qs):5.2f}/q  {k}")
    # per-statement timing: wall as this process sees it, and the server backend's CPU (schedstat, nanoseconds)
    stats = collections.defaultdict(list)
    server = collections.defaultdict(list)

    def backend_cpu_ms(pid):
        try:
            with open(f"/proc/{pid}/schedstat") as f:
                return int(f.read().split()[0]) / 1e6
        except (OSError, IndexError, ValueError):  # another machine's server, or no schedstat
            return float("nan")

    def timed(cur, query, *a, **kw):
        pid = cur.connection.info.backend_pid
        t, c = time.perf_counter(), backend_cpu_ms(pid)
        r = orig(cur, query, *a, **kw)
        key = " ".join(str(query).split())[:90]
        stats[key].append((time.perf_counter() - t) * 1000)
        server[key].append(backend_cpu_ms(pid) - c)
        return r

    walls = []
    cpus = []
    psycopg.Cursor.execute = timed
    for q in qs:
        t = time.perf_counter()
        c = time.process_time()
        retrieve(store, RetrievalRequest(q, k=4, query_vector=vecs[q]))
        walls.append((time.perf_counter() - t) * 1000)
        cpus.append((time.process_time() - c) * 1000)
    psycopg.Cursor.execute = orig
    print("retrieve wall p50", statistics.median(walls), "cpu p50", statistics.median(cpus))
    tot = 0
    for k, v in sorted(stats.items(), key=lambda kv: -sum(kv[1])):
        tot += sum(v)
        print(f"{sum(v) / len(qs):7.2f} ms/q  server {sum(server[k]) / len(qs):5.2f} ms/q  n={len(v):4d}  "
              f"med={statistics.median(v):.2f}  {k}")
    print("sql execute total per q", tot / len(qs), "server", sum(sum(v) for v in server.values()) / len(qs))
    walls = []
    for q in qs:
        t = time.perf_counter()
        retrieve(store, RetrievalRequest(q, k=4, query_vector=vecs[q]))
        walls.append((time.perf_counter() - t) * 1000)
    print("retrieve wall p50 (no instr)", statistics.median(walls))
    emb = []
    for q in qs:
        t = time.perf_counter()
        store.embeddings.embed_query(q)
        emb.append((time.perf_counter() - t) * 1000)
    print("embed wall p50", statistics.median(emb))
    pr = cProfile.Profile(time.process_time)
    pr.enable()
    for _ in range(3):
        for q in qs:
            retrieve(store, RetrievalRequest(q, k=4, query_vector=vecs[q]))
    pr.disable()
    pstats.Stats(pr).sort_stats("cumulative").print_stats(70)
    pstats.Stats(pr).sort_stats("tottime").print_stats(40)


if __name__ == "__main__":
    run_then_remove_scratch_database(main)
