"""The connection pool under concurrent retrieval (issue 7, "Load"): no errors, never more connections than the
pool's max size, every connection back in the pool afterwards, and none left on the server once it is closed.

The concurrent test runs on a pool of its own (same database, its own ``application_name``) so that its counts in
``pg_stat_activity`` are exact and closing it cannot disturb the session's shared pool.
"""

from __future__ import annotations

import os
import threading
import time
import uuid

import psycopg
import pytest
from psycopg.conninfo import make_conninfo

from core.config import DEFAULT_POOL_SIZE, load_settings
from core.db.pool import application_name, connection_pool, pool_stats, read_connection
from core.db.urls import psycopg_conninfo
from core.retrieval import RetrievalRequest, Scope, embed_query, retrieve
from core.store import ElementStore

THREADS = 16
REQUESTS_PER_THREAD = 6
POOL_MAX = 4
QUESTIONS = ["Nova 24FL 무게는 얼마인가요?", "How many HDMI ports does the Nova 27QX have?", "환불 정책", "warranty"]


class ServerConnections:
    """Counts one application name's connections in ``pg_stat_activity``, from a connection of its own.

    Only client backends are connections: a parallel query's workers are listed under their leader's
    ``application_name`` too (see ``test_parallel_workers_carry_the_pools_name_but_are_not_connections``).
    """

    def __init__(self, url: str, name: str) -> None:
        self.conn = psycopg.connect(psycopg_conninfo(url), autocommit=True, application_name="hke-test-monitor")
        self.name = name

    def count(self) -> int:
        return self.conn.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE application_name = %s AND datname = current_database() "
            "AND backend_type = 'client backend'",
            (self.name,),
        ).fetchone()[0]

    def settled(self, expected: int, timeout: float = 5.0) -> int:
        """The count once closing backends have gone (they leave pg_stat_activity a moment after the close)."""
        deadline = time.monotonic() + timeout
        n = self.count()
        while n != expected and time.monotonic() < deadline:
            time.sleep(0.05)
            n = self.count()
        return n


def idle_stats(pool, timeout: float = 5.0) -> dict[str, int]:
    """The pool's stats once every connection it holds is idle, or as they are after ``timeout`` (a leak stays).

    A pool grows in the background: a connection it started adding while a caller waited (at its opening, say)
    joins a moment later, and with fast callers the checks below can run before it has.
    """
    deadline = time.monotonic() + timeout
    stats = pool.get_stats()
    while stats["pool_available"] != stats["pool_size"] and time.monotonic() < deadline:
        time.sleep(0.05)
        stats = pool.get_stats()
    return stats


@pytest.fixture
def own_pool_store(db_url, samples_store):
    """The samples collection through a pool of its own, tagged with a unique application name."""
    name = f"hke-test-pool-{uuid.uuid4().hex[:8]}"
    url = make_conninfo(psycopg_conninfo(db_url), application_name=name)
    pool = connection_pool(url, max_size=POOL_MAX)
    store = ElementStore(url, "samples", samples_store.embeddings, create=False)
    assert store.pool is pool
    monitor = ServerConnections(db_url, name)
    yield store, monitor
    pool.close()
    monitor.conn.close()


def test_concurrent_retrieval_keeps_within_the_pool_and_returns_everything(own_pool_store):
    store, server = own_pool_store
    pool = store.pool
    vectors = [embed_query(store, q) for q in QUESTIONS]
    document = store.documents()[0]
    pool.pop_stats()
    errors: list[str] = []
    peaks = {"server": 0, "pool": 0, "waiting": 0}
    done = threading.Event()

    def sample() -> None:  # the server's and the pool's view while the threads run
        while not done.is_set():
            stats = pool.get_stats()
            peaks["server"] = max(peaks["server"], server.count())
            peaks["pool"] = max(peaks["pool"], stats["pool_size"])
            peaks["waiting"] = max(peaks["waiting"], stats.get("requests_waiting", 0))
            done.wait(0.01)

    barrier = threading.Barrier(THREADS)

    def worker(i: int) -> None:
        barrier.wait()  # all at once: 16 callers on 4 connections
        # Hold a connection a moment first, so that the callers really overlap however fast the machine is
        # (on a quiet machine the retrievals alone can finish before the next thread asks).
        with pool.connection() as conn:
            conn.execute("SELECT pg_sleep(0.05)")
            conn.rollback()
        try:
            for j in range(REQUESTS_PER_THREAD):
                n = i * REQUESTS_PER_THREAD + j
                if n % 3 == 0:  # the whole ask path, embedding included
                    r = retrieve(store, RetrievalRequest(QUESTIONS[n % len(QUESTIONS)], k=4))
                else:
                    scope = Scope.document(document.document_id) if n % 3 == 2 else None
                    r = retrieve(store, RetrievalRequest("q", k=4, scope=scope, query_vector=vectors[n % len(vectors)]))
                assert r.hits and r.hierarchical.elements
        except Exception as exc:  # collected: the assertion below reports them all
            errors.append(f"{type(exc).__name__}: {exc}")

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    threads = [threading.Thread(target=worker, args=(i,)) for i in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    done.set()
    sampler.join()

    assert not errors, errors
    assert not any(t.is_alive() for t in threads)
    stats = idle_stats(pool)
    # Every request had its connection (one checkout per retrieve: a question's reads share it).
    assert stats["requests_num"] >= THREADS * REQUESTS_PER_THREAD
    assert stats.get("requests_errors", 0) == 0 and stats.get("returns_bad", 0) == 0
    # Never more connections than the pool's max, seen from both sides; the callers really had to queue.
    assert peaks["pool"] <= POOL_MAX and peaks["server"] <= POOL_MAX, peaks
    assert peaks["waiting"] > 0 or stats.get("requests_queued", 0) > 0, "16 threads on 4 connections must queue"
    # Back to idle: every connection returned, nobody waiting, and the server holds exactly the pool's connections.
    assert stats["pool_available"] == stats["pool_size"] <= POOL_MAX, stats
    assert stats.get("requests_waiting", 0) == 0
    assert server.settled(stats["pool_size"]) == stats["pool_size"]
    assert pool_stats(store.url)["pool_max"] == POOL_MAX
    # Closing the pool leaves nothing behind on the server.
    pool.close()
    assert server.settled(0) == 0


def test_a_failed_statement_returns_its_connection(own_pool_store):
    store, server = own_pool_store
    pool = store.pool
    retrieve(store, RetrievalRequest("warranty", k=2))
    for _ in range(POOL_MAX * 3):  # more failures than connections: a leak would exhaust the pool
        with pytest.raises(psycopg.errors.DivisionByZero), read_connection(pool) as conn:
            conn.execute("SELECT 1 / 0")
    stats = idle_stats(pool)
    assert stats["pool_available"] == stats["pool_size"] <= POOL_MAX
    assert server.settled(stats["pool_size"]) == stats["pool_size"]
    with pool.connection() as conn:
        assert conn.autocommit is False, "read_connection gives connections back in transaction mode"
    assert retrieve(store, RetrievalRequest("warranty", k=2)).hits, "the pool still serves"


def test_the_app_pool_is_sized_by_settings_and_tagged(db_url, samples_store, monkeypatch):
    configured = int(os.environ.get("HKE_POOL_SIZE") or DEFAULT_POOL_SIZE)  # what the session's pool was made with
    monkeypatch.delenv("HKE_POOL_SIZE", raising=False)
    assert load_settings().pool_size == DEFAULT_POOL_SIZE
    monkeypatch.setenv("HKE_POOL_SIZE", "3")
    assert load_settings().pool_size == 3
    for bad in ("0", "101", "many"):
        monkeypatch.setenv("HKE_POOL_SIZE", bad)
        with pytest.raises(ValueError, match="HKE_POOL_SIZE"):
            load_settings()
    monkeypatch.delenv("HKE_POOL_SIZE")
    # The session's shared pool: created by the fixtures with the configured size, tagged "hke:<pid>".
    pool = connection_pool(db_url)
    stats = pool_stats(db_url)
    assert stats["pool_max"] == pool.max_size == configured
    monitor = ServerConnections(db_url, application_name())
    try:
        with read_connection(pool) as conn:
            assert conn.execute("SHOW application_name").fetchone()[0] == application_name()
            assert 1 <= monitor.count() <= configured
    finally:
        monitor.conn.close()


def _with_parameter(url: str, parameter: str) -> str:
    conninfo = psycopg_conninfo(url)
    return conninfo + ("&" if "?" in conninfo else "?") + parameter


@pytest.mark.parametrize("parameter, cause", [
    ("connect_timeout=abc", "connect_timeout in DATABASE_URL (or PGCONNECT_TIMEOUT) must be a whole number of "
                            "seconds, got 'abc'"),
    ("options=-c%20statement_timeout%3D1", "statement_timeout on this database's connections is 1 ms"),
])
def test_a_bad_connection_setting_fails_at_once_with_its_cause(db_url, monkeypatch, capsys, parameter, cause):
    """Not a 30 s wait for the pool and "couldn't get a connection": the setting is named in a few seconds."""
    from core.cli import main

    monkeypatch.setenv("DATABASE_URL", _with_parameter(db_url, parameter))
    started = time.monotonic()
    code = main(["collections"])
    elapsed = time.monotonic() - started
    err = capsys.readouterr().err
    assert code == 2 and cause in err, err
    assert elapsed < 10, f"{elapsed:.1f} s"


def test_parallel_workers_carry_the_pools_name_but_are_not_connections(own_pool_store):
    """Why bench_load once saw 5 backends named like a pool of 4: a parallel worker of one of its statements.

    Postgres lists a parallel query's workers in ``pg_stat_activity`` under the leader's ``application_name``
    (``backend_type`` "parallel worker", ``leader_pid`` the leader). They are not connections (they count against
    ``max_parallel_workers``, not ``max_connections``), so counting by name alone overstates the pool.
    """
    store, server = own_pool_store
    pool = store.pool
    barrier = threading.Barrier(POOL_MAX + 1)

    def parallel_statement() -> None:
        with pool.connection() as conn:
            conn.execute("SET LOCAL debug_parallel_query = on")  # a Gather with one worker, for any safe plan
            barrier.wait()
            conn.execute("SELECT pg_sleep(1.0)")

    threads = [threading.Thread(target=parallel_statement) for _ in range(POOL_MAX)]
    for t in threads:
        t.start()
    barrier.wait()  # every connection of the pool is about to run its statement
    peak: dict[str, list[tuple[int, int | None]]] = {}
    counted = 0  # what ServerConnections (the way the pool tests and bench_load count) saw at most
    deadline = time.monotonic() + 0.9
    while time.monotonic() < deadline:
        rows = server.conn.execute(
            "SELECT backend_type, pid, leader_pid FROM pg_stat_activity WHERE application_name = %s",
            (server.name,)).fetchall()
        if len(rows) > sum(len(v) for v in peak.values()):
            peak = {}
            for kind, pid, leader in rows:
                peak.setdefault(kind, []).append((pid, leader))
        counted = max(counted, server.count())
        time.sleep(0.02)
    for t in threads:
        t.join()

    clients, workers = peak.get("client backend", []), peak.get("parallel worker", [])
    assert len(clients) == POOL_MAX, peak  # the pool's real peak: exactly its max
    assert workers, "a forced parallel statement runs a worker"
    assert len(clients) + len(workers) > POOL_MAX, "counted by name alone, the pool looks bigger than its max"
    assert {leader for _, leader in workers} <= {pid for pid, _ in clients}, "each worker serves one of the pool's"
    assert counted == POOL_MAX
