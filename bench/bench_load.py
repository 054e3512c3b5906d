"""Concurrent "ask" requests against a 100k-element collection (no LLM): throughput, latency, connection leaks.

Phases (all on one synthetic 100k-element collection with the HNSW index, built once by ``_synthetic``):

1. **Pool sizing**: 16 threads at every pool size (``--pool-sizes``), retrieval only (``retrieve`` with a
   precomputed near-neighbour query vector: vector search, both contexts, ancestor expansion, render; the
   heaviest load the pool can see, no embedding between statements). ``--sizing-rounds`` rounds interleave the
   sizes, so a busy moment on a shared machine does not land on one size only; rows are medians over the rounds.
   This is the measurement behind ``HKE_POOL_SIZE``. (``--sizing-workloads retrieve,ask`` adds the whole ask; it
   is embedding-bound, so it says little about the pool and takes long.)
2. **Ask**: the real ``compare()`` path with the :class:`ExtractiveAnswerer` from 1, 4, 8 and 16 threads at the
   configured pool size (``HKE_POOL_SIZE``): validate + embed the question with USE, vector search, expansion,
   rendering, and the extractive answer of both modes. Stages are reported separately (embedding and extractive
   answer are CPU work in this process; search and expansion are the database's).
3. **Processes** (``--processes N``, 0 = skip): N worker processes on loopback (each with its own pool and USE
   model) of ``--process-threads`` threads each, started together.

Every level has a fixed number of requests and a time bound. A monitor thread on its own connection samples
``pg_stat_activity`` (client backends tagged ``application_name = hke:<pid>`` by ``core.db.pool``; a parallel
query's workers carry that name too and are counted apart) and the pool's ``get_stats()``; a level passes when it
had no errors, the pool and the server never held more than the pool's max size, every connection was back in the
pool afterwards, and closing the pool left no server connection.
The exit status is 1 if any level failed.

USE runs on numpy/OpenBLAS. With OpenBLAS' default thread count its threads spin while waiting and, on a shared
2-core machine, embedding throughput collapses and swings wildly; ``OPENBLAS_NUM_THREADS=1`` keeps it steady. The
setting in effect is printed and recorded (``blas_env``).

Run: .venv/bin/python bench/bench_load.py [--elements 100000] [--concurrency 1,4,8,16] [--requests 200]
     [--pool-sizes 1,2,4,8,16] [--processes 2] [--data-dir /tmp/hke-load-keep] [--out load]
     (``--data-dir`` keeps and reuses the collection between runs; without it a scratch database is made and
     removed. About 3-4 minutes from nothing on 2 cores, 2 when the collection is reused.)
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from _common import QUESTIONS, ROOT, scratch_database, write_result
from _synthetic import build_hnsw, drop_hnsw, load, random_queries, remove_scratch_database, synthetic_questions

COLLECTION = "bench_load"
MONITOR_APP = "hke-bench-monitor"  # the monitor's own connection, never counted as ours
SETTLE_S = 10.0  # closed connections' backends take a moment to leave pg_stat_activity

Request = Callable[[Any], dict[str, float]]


# -- the collection ------------------------------------------------------------------------------------------


def open_collection(url: str, n_elements: int, embeddings) -> tuple[Any, dict[str, Any]]:
    """The synthetic collection: reused when it has ``n_elements`` and the HNSW index, else (re)built."""
    from core.store import ElementStore, StoreError

    try:
        store = ElementStore(url, COLLECTION, embeddings, create=False)
        with store.pool.connection() as conn:
            have = conn.execute(store.statement("SELECT count(*) FROM {elements}")).fetchone()[0]
        if have == n_elements and store.has_vector_index():
            return store, {"reused": True, "elements": have}
        store.drop()
    except StoreError:
        pass
    store = ElementStore(url, COLLECTION, embeddings, options={"synthetic": True})
    drop_hnsw(store)  # bulk load without index maintenance, then one build (as bench_retrieval does)
    _, load_s = load(store, n_elements, seed=42, prefix="L")
    build_s = build_hnsw(store)
    return store, {"reused": False, "elements": n_elements, "load_s": round(load_s, 1),
                   "hnsw_build_s": round(build_s, 1)}


def questions(n: int) -> list[str]:
    """The sample questions (Korean and English) plus questions in the synthetic corpus' vocabulary."""
    import random

    rng = random.Random(3)
    real = [q["question"] for q in json.loads(QUESTIONS.read_text(encoding="utf-8"))["questions"]]
    made = synthetic_questions(max(0, n - len(real)))
    out = real + made
    rng.shuffle(out)
    return out[:n]


# -- requests --------------------------------------------------------------------------------------------------


def ask_request(store) -> Request:
    """One ask as ``python -m core ask`` does it, with the extractive answerer instead of an LLM."""
    from core.answering import ExtractiveAnswerer, compare
    from core.retrieval import RetrievalRequest

    answerer = ExtractiveAnswerer()

    def run(question: str) -> dict[str, float]:
        result = compare(store, RetrievalRequest(question, k=4), answerer=answerer)
        plain, hier = result.results["plain"].timings, result.results["hierarchical"].timings
        return {
            "embed_query": hier["embed_query"],
            "vector_search": hier["search"],
            "expand_render": hier["expand"],
            "extractive": plain["generate"] + hier["generate"],
        }

    return run


def retrieve_request(store) -> Request:
    from core.retrieval import RetrievalRequest, retrieve

    def run(vector) -> dict[str, float]:
        r = retrieve(store, RetrievalRequest("load", k=4, query_vector=vector))
        return {"vector_search": r.timings["vector_search"], "expand_render": r.timings["expand"]}

    return run


# -- measuring -------------------------------------------------------------------------------------------------


def percentiles(values_ms: Sequence[float]) -> dict[str, float]:
    if not values_ms:
        return {"p50": 0.0, "p95": 0.0, "p99": 0.0, "max": 0.0}
    v = sorted(values_ms)
    q = statistics.quantiles(v, n=100, method="inclusive") if len(v) > 1 else [v[0]] * 99
    return {"p50": round(statistics.median(v), 2), "p95": round(q[94], 2), "p99": round(q[98], 2),
            "max": round(v[-1], 2)}


class Monitor:
    """Samples the server's view (pg_stat_activity) and the pool's, on a connection of its own.

    Every backend of the process is sampled: the pool's (``application_name`` = the pool's name) and the other
    connection sources' (that name plus a suffix, the ``*_SUFFIX`` constants of ``core.db.pool``). Only client
    backends are connections: a parallel query's workers are listed under their leader's ``application_name`` too
    (backend_type "parallel worker"), so they are counted apart (``peak_parallel_workers``). A sample in which the
    pool's name held more client backends than the pool's max is kept whole (``over_max``) with the pool's own view
    at that moment, so an excess can be attributed to its source.
    """

    def __init__(self, conninfo: str, app_name: str, pool=None, interval: float = 0.05) -> None:
        import psycopg

        self.conn = psycopg.connect(conninfo, autocommit=True, application_name=MONITOR_APP)
        self.app_name = app_name  # a LIKE pattern: "hke:<pid>" for one process, "hke:%" for all
        self.pool = pool
        self.interval = interval
        self.peak_server = 0
        self.peak_pool = 0
        self.peak_waiting = 0
        self.peak_parallel_workers = 0
        self.peak_by_source: dict[str, int] = {}
        self.over_max: list[dict[str, Any]] = []
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def backends(self) -> list[tuple[str, str, int, str, str | None]]:
        """(application_name, backend_type, pid, backend_start, state) of every backend of the sampled process(es)."""
        return [(name, kind, pid, str(started), state) for name, kind, pid, started, state in self.conn.execute(
            "SELECT application_name, backend_type, pid, backend_start, state FROM pg_stat_activity "
            "WHERE application_name LIKE %s OR application_name LIKE %s || ':%%' ORDER BY backend_start",
            (self.app_name, self.app_name))]

    def server_connections(self) -> int:
        """The client connections under exactly the sampled name (the pool's; a '%' pattern takes every process)."""
        return int(self.conn.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE application_name LIKE %s AND backend_type = 'client backend'",
            (self.app_name,)).fetchone()[0])

    def settled_server_connections(self, expected: int) -> int:
        """The count once backends that are closing have gone (or after SETTLE_S if it never gets there)."""
        deadline = time.monotonic() + SETTLE_S
        n = self.server_connections()
        while n > expected and time.monotonic() < deadline:
            time.sleep(0.05)
            n = self.server_connections()
        return n

    def _sample(self) -> None:
        rows = self.backends()
        by_source: dict[str, int] = {}
        for name, kind, *_ in rows:
            key = name if kind == "client backend" else f"{name} ({kind})"
            by_source[key] = by_source.get(key, 0) + 1
        for key, n in by_source.items():
            self.peak_by_source[key] = max(self.peak_by_source.get(key, 0), n)
        pooled = sum(1 for name, kind, *_ in rows if kind == "client backend"
                     and (name == self.app_name or ("%" in self.app_name and name.count(":") == 1)))
        workers = sum(1 for _, kind, *_ in rows if kind == "parallel worker")
        self.peak_server = max(self.peak_server, pooled)
        self.peak_parallel_workers = max(self.peak_parallel_workers, workers)
        stats = self.pool.get_stats() if self.pool is not None else {}
        if self.pool is not None:
            self.peak_pool = max(self.peak_pool, stats.get("pool_size", 0))
            self.peak_waiting = max(self.peak_waiting, stats.get("requests_waiting", 0))
            if pooled > self.pool.max_size and len(self.over_max) < 5:
                self.over_max.append({"backends": rows, "pool_stats": dict(stats)})

    def _run(self) -> None:
        while not self._stop.is_set():
            self._sample()
            self._stop.wait(self.interval)

    def __enter__(self) -> Monitor:
        self.peak_server = self.peak_pool = self.peak_waiting = self.peak_parallel_workers = 0
        self.peak_by_source, self.over_max = {}, []
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()

    def close(self) -> None:
        self.conn.close()


def run_threads(request: Request, items: Sequence[Any], concurrency: int, n_requests: int,
                max_seconds: float) -> dict[str, Any]:
    """``n_requests`` requests from ``concurrency`` threads (fewer if ``max_seconds`` runs out first)."""
    lock = threading.Lock()
    issued = 0
    latencies: list[float] = []
    stages: dict[str, list[float]] = {}
    errors: list[str] = []
    start = threading.Barrier(concurrency + 1)
    deadline = 0.0

    def worker() -> None:
        nonlocal issued
        start.wait()
        while True:
            with lock:
                if issued >= n_requests or time.perf_counter() > deadline:
                    return
                i = issued
                issued += 1
            t0 = time.perf_counter()
            try:
                stage_ms = request(items[i % len(items)])
            except Exception as exc:  # counted and reported: the bench must show zero
                with lock:
                    errors.append(f"{type(exc).__name__}: {str(exc)[:200]}")
                continue
            elapsed_ms = (time.perf_counter() - t0) * 1000.0
            with lock:
                latencies.append(elapsed_ms)
                for key, value in stage_ms.items():
                    stages.setdefault(key, []).append(value)

    threads = [threading.Thread(target=worker, daemon=True) for _ in range(concurrency)]
    for t in threads:
        t.start()
    deadline = time.perf_counter() + max_seconds
    t0 = time.perf_counter()
    start.wait()
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0
    return {
        "concurrency": concurrency,
        "requests": len(latencies) + len(errors),
        "completed": len(latencies),
        "errors": len(errors),
        "error_samples": sorted(set(errors))[:5],
        "wall_s": round(wall, 2),
        "throughput_rps": round(len(latencies) / wall, 1) if wall else 0.0,
        "latency_ms": percentiles(latencies),
        "stages_ms": {k: percentiles(v) for k, v in stages.items()},
        "raw_latencies_ms": latencies,
    }


def level(store, monitor: Monitor, request: Request, items: Sequence[Any], concurrency: int, n_requests: int,
          max_seconds: float) -> dict[str, Any]:
    """One measured level plus the pool and server checks around it."""
    pool = store.pool
    pool.pop_stats()  # counters (requests_num, wait time, connections opened) for this level only
    with monitor:
        result = run_threads(request, items, concurrency, n_requests, max_seconds)
    stats = pool.get_stats()
    max_size = pool.max_size
    in_use = stats.get("pool_size", 0) - stats.get("pool_available", 0)
    server = monitor.settled_server_connections(stats.get("pool_size", 0))
    checks = {
        "no_errors": result["errors"] == 0,
        "pool_never_above_max": monitor.peak_pool <= max_size,
        "server_never_above_max": monitor.peak_server <= max_size,
        "all_returned": in_use == 0 and stats.get("requests_waiting", 0) == 0,
        "server_matches_pool": server == stats.get("pool_size", 0),  # no connection outside the pool
        "no_bad_returns": stats.get("returns_bad", 0) == 0 and stats.get("requests_errors", 0) == 0,
    }
    requests_num = max(1, stats.get("requests_num", 0))
    result.update({
        "pool_max": max_size,
        "peak_server_connections": monitor.peak_server,
        "peak_pool_size": monitor.peak_pool,
        "peak_requests_waiting": monitor.peak_waiting,
        "peak_server_connections_by_source": dict(monitor.peak_by_source),
        "peak_parallel_workers": monitor.peak_parallel_workers,
        "over_max_samples": list(monitor.over_max),
        "server_connections_after": server,
        "pool_stats_after": stats,
        "pool_wait_ms_per_checkout": round(stats.get("requests_wait_ms", 0) / requests_num, 3),
        "connections_opened": stats.get("connections_num", 0),
        "checks": checks,
        "ok": all(checks.values()),
    })
    return result


def median_of(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """One row for repeated runs of a level: medians of rates and latencies, worst case of the connection checks."""

    def med(get: Callable[[dict[str, Any]], float]) -> float:
        return round(statistics.median(get(r) for r in runs), 2)

    stage_names = runs[0]["stages_ms"].keys()
    return {
        "concurrency": runs[0]["concurrency"],
        "pool_max": runs[0]["pool_max"],
        "rounds": len(runs),
        "requests": sum(r["requests"] for r in runs),
        "completed": sum(r["completed"] for r in runs),
        "errors": sum(r["errors"] for r in runs),
        "throughput_rps": med(lambda r: r["throughput_rps"]),
        "throughput_rps_rounds": [r["throughput_rps"] for r in runs],
        "latency_ms": {p: med(lambda r, p=p: r["latency_ms"][p]) for p in ("p50", "p95", "p99", "max")},
        "stages_ms": {name: {"p50": med(lambda r, n=name: r["stages_ms"][n]["p50"])} for name in stage_names},
        "pool_wait_ms_per_checkout": med(lambda r: r["pool_wait_ms_per_checkout"]),
        "peak_server_connections": max(r["peak_server_connections"] for r in runs),
        "peak_server_connections_by_source": {
            name: max(r["peak_server_connections_by_source"].get(name, 0) for r in runs)
            for name in {n for r in runs for n in r["peak_server_connections_by_source"]}},
        "over_max_samples": [s for r in runs for s in r["over_max_samples"]][:5],
        "peak_parallel_workers": max(r["peak_parallel_workers"] for r in runs),
        "server_connections_after": max(r["server_connections_after"] for r in runs),
        "checks": {name: all(r["checks"][name] for r in runs) for name in runs[0]["checks"]},
        "ok": all(r["ok"] for r in runs),
    }


def closed_cleanly(monitor: Monitor) -> dict[str, Any]:
    """Close every pool of this process: no server connection of ours may remain."""
    from core.db.pool import close_pools

    close_pools()
    left = monitor.settled_server_connections(0)
    return {"server_connections_after_close": left, "ok": left == 0}


# -- processes -------------------------------------------------------------------------------------------------


def worker_main(args: argparse.Namespace) -> None:
    """A child of the processes phase: load, say ready, wait for go, run, print one JSON line, close."""
    from core.db import database_url
    from core.db.pool import close_pools, pool_stats
    from core.embeddings import make_embeddings
    from core.store import ElementStore

    url = database_url()
    store = ElementStore(url, COLLECTION, make_embeddings("use"), create=False)
    request = ask_request(store)
    items = questions(200)
    for q in items[:5]:  # model and pool warm before the clock starts
        request(q)
    print("ready", flush=True)
    sys.stdin.readline()
    result = run_threads(request, items[args.worker_offset:] + items[: args.worker_offset], args.process_threads,
                         args.requests_per_process, args.max_seconds)
    result["pid"] = os.getpid()
    result["pool_stats"] = pool_stats(url)
    result["pool_max"] = store.pool.max_size
    close_pools()
    print(json.dumps(result), flush=True)


def run_processes(args: argparse.Namespace, conninfo: str) -> dict[str, Any]:
    from core.db.pool import APPLICATION_NAME

    monitor = Monitor(conninfo, f"{APPLICATION_NAME}:%")  # every app process on this server
    before = monitor.server_connections()
    cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", "--process-threads", str(args.process_threads),
           "--requests-per-process", str(args.requests // args.processes), "--max-seconds", str(args.max_seconds)]
    children = [subprocess.Popen([*cmd, "--worker-offset", str(37 * i)], stdin=subprocess.PIPE,
                                 stdout=subprocess.PIPE, text=True, cwd=str(ROOT))
                for i in range(args.processes)]
    try:
        for child in children:  # all loaded before any starts
            line = "?"
            while line and line.strip() != "ready":  # skip anything a library printed on the way
                line = child.stdout.readline()
            if not line:
                raise RuntimeError(f"worker {child.pid} exited before it was ready (see its stderr above)")
        with monitor:
            t0 = time.perf_counter()
            for child in children:
                child.stdin.write("go\n")
                child.stdin.flush()
            outputs = [child.communicate(timeout=args.max_seconds + 60)[0] for child in children]
            wall = time.perf_counter() - t0
    finally:
        for child in children:
            if child.poll() is None:
                child.kill()
    results = [json.loads(out.strip().splitlines()[-1]) for out in outputs]
    latencies = [x for r in results for x in r["raw_latencies_ms"]]
    errors = sum(r["errors"] for r in results)
    pool_max = sum(r["pool_max"] for r in results)
    after = monitor.settled_server_connections(before)
    monitor.close()
    checks = {
        "no_errors": errors == 0,
        "server_never_above_pools_max": monitor.peak_server - before <= pool_max,
        "all_returned_in_each_process": all(
            r["pool_stats"].get("pool_size", 0) == r["pool_stats"].get("pool_available", 0) for r in results),
        "none_left_after_exit": after == before,
        "exit_codes_zero": all(child.returncode == 0 for child in children),
    }
    return {
        "processes": args.processes,
        "threads_per_process": args.process_threads,
        "concurrency": args.processes * args.process_threads,
        "requests": len(latencies) + errors,
        "completed": len(latencies),
        "errors": errors,
        "wall_s": round(wall, 2),
        "throughput_rps": round(len(latencies) / wall, 1) if wall else 0.0,
        "latency_ms": percentiles(latencies),
        "pool_max_total": pool_max,
        "peak_server_connections": monitor.peak_server - before,
        "server_connections_after": after - before,
        "checks": checks,
        "ok": all(checks.values()),
    }


# -- report ------------------------------------------------------------------------------------------------------


def row(label: str, r: dict[str, Any]) -> str:
    lat, st = r["latency_ms"], r.get("stages_ms", {})

    def stage(name: str) -> str:
        return f"{st[name]['p50']:>7.1f}" if name in st else f"{'-':>7}"

    return (f"{label:<22}{r['concurrency']:>5}{r.get('pool_max', r.get('pool_max_total', 0)):>5}{r['completed']:>6}"
            f"{r['errors']:>5}{r['throughput_rps']:>8.1f}{lat['p50']:>8.1f}{lat['p95']:>8.1f}{lat['p99']:>8.1f}"
            f"{stage('embed_query')}{stage('vector_search')}{stage('expand_render')}{stage('extractive')}"
            f"{r.get('pool_wait_ms_per_checkout', 0.0):>7.1f}"
            f"{r['peak_server_connections']:>6}{r['server_connections_after']:>6}  {verdict(r)}{over_max(r)}")


def over_max(r: dict[str, Any]) -> str:
    """The first sample in which the server held more of the pool's connections than its max, if any."""
    if not r.get("over_max_samples"):
        return ""
    sample = r["over_max_samples"][0]
    backends = "; ".join(f"{name} {kind} pid {pid} since {started[11:23]} {state}"
                         for name, kind, pid, started, state in sample["backends"])
    return f"\n    over the max: {backends}; pool: {sample['pool_stats']}"


def verdict(r: dict[str, Any]) -> str:
    failed = [name for name, passed in r["checks"].items() if not passed]
    return "ok" if not failed else "FAIL: " + ", ".join(failed)


HEADER = (f"{'phase':<22}{'conc':>5}{'pool':>5}{'done':>6}{'err':>5}{'req/s':>8}{'p50':>8}{'p95':>8}{'p99':>8}"
          f"{'embed':>7}{'search':>7}{'expand':>7}{'extr.':>7}{'wait':>7}{'peak':>6}{'after':>6}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--elements", type=int, default=100_000)
    parser.add_argument("--concurrency", default="1,4,8,16", help="thread counts of the ask phase")
    parser.add_argument("--requests", type=int, default=200, help="requests per ask level (and processes phase)")
    parser.add_argument("--pool-sizes", default="1,2,4,8,16", help="pool sizes of the sizing phase ('' = skip)")
    parser.add_argument("--sizing-concurrency", type=int, default=16)
    parser.add_argument("--sizing-requests", type=int, default=600, help="requests per retrieve-only level")
    parser.add_argument("--sizing-rounds", type=int, default=3)
    parser.add_argument("--sizing-workloads", default="retrieve",
                        help="retrieve and/or ask (the ask is embedding-bound: slow and noisy to size on)")
    parser.add_argument("--processes", type=int, default=2, help="worker processes of the processes phase (0 = skip)")
    parser.add_argument("--process-threads", type=int, default=8)
    parser.add_argument("--max-seconds", type=float, default=45.0, help="time bound of one level")
    parser.add_argument("--data-dir", default=None, help="keep the embedded database here and reuse it next time")
    parser.add_argument("--out", default="load", help="result name: bench/out/<out>.json (default: %(default)s)")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--worker-offset", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--requests-per-process", type=int, default=100, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker_main(args)
        return 0

    if args.data_dir and not os.environ.get("DATABASE_URL"):
        os.environ["HKE_DATA_DIR"] = str(Path(args.data_dir).resolve())
        from core.db import database_url

        url = database_url()
    else:
        url = scratch_database()
    try:
        return measure(args, url)
    finally:
        if not (args.data_dir or os.environ.get("DATABASE_URL")):
            remove_scratch_database()  # also after a failure: no scratch server left running
        else:
            from core.db.pool import close_pools

            close_pools()


def measure(args: argparse.Namespace, url: str) -> int:
    from core.config import load_settings
    from core.db.pool import application_name, close_pools, connection_pool
    from core.db.urls import psycopg_conninfo
    from core.embeddings import make_embeddings

    conninfo = psycopg_conninfo(url)
    settings = load_settings()
    embeddings = make_embeddings("use")
    t0 = time.perf_counter()
    store, collection = open_collection(url, args.elements, embeddings)
    collection["setup_s"] = round(time.perf_counter() - t0, 1)
    print(f"collection {COLLECTION!r}: {collection}", flush=True)
    vectors = random_queries(store, 400, seed=5)
    asks = questions(200)

    monitor = Monitor(conninfo, application_name())
    # USE runs on numpy/OpenBLAS: how many BLAS threads each call may spin up changes the ask numbers a lot.
    blas = {name: os.environ.get(name, "unset") for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS")}
    payload: dict[str, Any] = {"elements": args.elements, "collection": collection, "cpus": os.cpu_count(),
                               "configured_pool_size": settings.pool_size, "blas_env": blas, "sizing": [],
                               "ask": [], "processes": None}
    print(f"cpus {os.cpu_count()}, pool size {settings.pool_size} (HKE_POOL_SIZE), "
          + ", ".join(f"{k}={v}" for k, v in blas.items()), flush=True)
    print("latencies in ms (stages: p50); wait = mean pool wait per checkout; peak/after = server connections",
          flush=True)
    print(HEADER, flush=True)

    # 1. pool sizing: retrieval only (the heaviest database load per request) and the whole ask, at every size.
    # Rounds interleave the sizes so that a busy moment on the shared machine does not land on one size only;
    # each row is the median over the rounds.
    sizes = [int(x) for x in args.pool_sizes.split(",") if x.strip()]
    workloads = [w for w in (("retrieve", retrieve_request, vectors, args.sizing_requests),
                             ("ask", ask_request, asks, args.requests))
                 if w[0] in args.sizing_workloads.split(",")]
    runs: dict[tuple[str, int], list[dict[str, Any]]] = {}
    for round_no in range(args.sizing_rounds if sizes else 0):
        for size in sizes:
            close_pools()
            store.pool = connection_pool(url, max_size=size)
            monitor.pool = store.pool
            for workload, make, items, n in workloads:
                request = make(store)
                for item in items[:10]:
                    request(item)
                r = level(store, monitor, request, items, args.sizing_concurrency, n, args.max_seconds)
                runs.setdefault((workload, size), []).append(r)
        print(f"  sizing round {round_no + 1}/{args.sizing_rounds} done", flush=True)
    for (workload, size), rs in sorted(runs.items()):
        r = median_of(rs)
        r.update({"workload": workload, "pool_size": size})
        payload["sizing"].append(r)
        print(row(f"{workload}, pool={size}", r), flush=True)

    # 2. ask at the configured pool size
    close_pools()
    store.pool = connection_pool(url)  # Settings.pool_size
    monitor.pool = store.pool
    request = ask_request(store)
    for q in asks[:10]:
        request(q)
    for concurrency in [int(c) for c in args.concurrency.split(",")]:
        r = level(store, monitor, request, asks, concurrency, args.requests, args.max_seconds)
        payload["ask"].append(r)
        print(row("ask (USE + extractive)", r), flush=True)
    payload["close"] = closed_cleanly(monitor)
    monitor.close()
    print(f"after close_pools(): {payload['close']['server_connections_after_close']} server connections left "
          f"({'ok' if payload['close']['ok'] else 'LEAK'})", flush=True)

    # 3. processes on loopback (each its own pool)
    if args.processes > 0:
        payload["processes"] = run_processes(args, conninfo)
        print(row(f"ask, {args.processes} processes", payload["processes"]), flush=True)

    for r in [*payload["sizing"], *payload["ask"]]:
        r.pop("raw_latencies_ms", None)
    levels = [*payload["sizing"], *payload["ask"], *([payload["processes"]] if payload["processes"] else [])]
    payload["ok"] = all(r["ok"] for r in levels) and payload["close"]["ok"]
    payload["command"] = " ".join([".venv/bin/python", "bench/bench_load.py", *sys.argv[1:]])
    path = write_result(args.out, payload)
    print(f"{'all checks passed' if payload['ok'] else 'SOME CHECKS FAILED'}; written to {path}")
    return 0 if payload["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
