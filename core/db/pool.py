"""The one psycopg connection pool per database and process, and idempotent schema changes under a lock.

Pool settings, chosen on purpose (issue 7, "Load"; numbers in bench/out/load.json from bench/bench_load.py). The
size is Settings.pool_size (HKE_POOL_SIZE, default 4 = 2x the 2 cores measured on). Our statements are CPU-bound on
the server (HNSW search, ancestor walk), so connections beyond ~2x cores only move the queue from the pool into
Postgres, where the backends then compete for the same cores (and each is a server process). With 16 threads of
retrieval only, 4 connections gave ~90% of the best throughput with the best or near-best p99; 8 and 16 added little
throughput and worse tails. A whole ask is embedding-bound (the database is ~10 ms of it), so requests beyond the
size wait briefly in the pool (FIFO, a few ms at 16 threads).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import threading
from collections.abc import Iterable, Iterator
from typing import Literal, Protocol

import psycopg
from psycopg.conninfo import conninfo_to_dict
from psycopg.pq import TransactionStatus
from psycopg.types.json import set_json_loads
from psycopg_pool import ConnectionPool

from core.config import load_settings
from core.db.urls import (
    DatabaseError,
    DatabaseUnavailableError,
    check_conninfo,
    psycopg_conninfo,
    unavailable_message,
)

try:
    import orjson as _orjson
except ImportError:  # a transitive dependency (langsmith); json serves without it
    _orjson = None

POOL_TIMEOUT_S = 30.0  # a request that cannot get a connection for this long fails with PoolTimeout
POOL_MAX_IDLE_S = 120.0  # an idle app gives back connections above min_size after 2 minutes (default 10)
POOL_MAX_LIFETIME_S = 1800.0  # recycle backends every 30 min: per-backend caches and memory do not grow forever
# pg_stat_activity.application_name of our connections: "hke:<pid>" for the primary's pool, so connections can be
# counted per process (bench_load, tests/test_pool.py); every other source adds its own suffix (*_SUFFIX below).
APPLICATION_NAME = "hke"
# A statement_timeout below this (from the URL's options, the role or the database) cancels HKE's own set-up
# statements: refused at once with the cause named, instead of a pool that retries for POOL_TIMEOUT_S.
MIN_STATEMENT_TIMEOUT_MS = 1000
REPLICA_SUFFIX = ":replica"  # the pools of DATABASE_READ_URL's standbys (core.db.replicas)
SETUP_SUFFIX = ":setup"  # the one connection that makes sure the vector extension exists, before a pool opens
PROBE_SUFFIX = ":probe"  # one-off checks: is a standby back, is the server reachable (status, ingest)
PGVECTORSTORE_SUFFIX = ":pgvectorstore"  # langchain-postgres' engine behind ElementStore.vectorstore (NullPool)
_ADVISORY_LOCK = "SELECT pg_advisory_lock(%s)"
_ADVISORY_UNLOCK = "SELECT pg_advisory_unlock(%s)"
# The end of the WAL the primary has written: once a standby has replayed up to here, it has every commit this
# process has seen. As bytes since 0/0, so positions compare as integers.
CURRENT_WAL_POSITION = "SELECT pg_current_wal_lsn() - '0/0'::pg_lsn"

Role = Literal["primary", "replica"]
_pools: dict[tuple[Role, str], Pool] = {}
_noting_wal: set[str] = set()  # primaries with standbys: their pools note the WAL position after each use
_lock = threading.Lock()


def application_name(suffix: str = "") -> str:
    return f"{APPLICATION_NAME}:{os.getpid()}{suffix}"


class ConnectionSource(Protocol):
    """Anything that lends connections like a pool: a :class:`Pool`, or :class:`core.db.replicas.ReadRouter`."""

    def connection(self, timeout: float | None = None) -> contextlib.AbstractContextManager[psycopg.Connection]: ...


class Pool(ConnectionPool):
    """A psycopg pool that, for a primary with standbys, notes where the WAL ends after each use.

    ``core.db.replicas`` turns ``notes_wal_position`` on and waits, before a standby serves this process a read,
    until the standby has replayed up to ``written_position``: the process reads its own writes. The position is
    read after the commit, in the caller's thread, so the next read already sees it; one round trip per use of
    the primary, and none while no standby is configured.
    """

    def __init__(self, *args: object, **kwargs: object) -> None:
        self.notes_wal_position = False
        self.written_position = 0
        self._position_lock = threading.Lock()
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]

    @contextlib.contextmanager
    def connection(self, timeout: float | None = None) -> Iterator[psycopg.Connection]:
        with super().connection(timeout) as conn:
            yield conn
            if self.notes_wal_position:
                self._note_wal_position(conn)

    def _note_wal_position(self, conn: psycopg.Connection) -> None:
        if conn.closed or conn.info.transaction_status not in (TransactionStatus.IDLE, TransactionStatus.INTRANS):
            return
        conn.commit()  # what the pool's context would do next: the position must include this transaction
        autocommit, conn.autocommit = conn.autocommit, True
        try:
            position = int(conn.execute(CURRENT_WAL_POSITION).fetchone()[0])
        except psycopg.errors.ObjectNotInPrerequisiteState:  # DATABASE_URL names a standby: it has no WAL of its own
            return
        finally:
            conn.autocommit = autocommit
        with self._position_lock:
            self.written_position = max(self.written_position, position)


def _connect_kwargs(conninfo: str, suffix: str = "") -> dict[str, str]:
    """Tag our connections in ``pg_stat_activity``, unless the URL names its own ``application_name``."""
    try:
        given = conninfo_to_dict(conninfo)
    except psycopg.ProgrammingError:
        return {}
    return {} if "application_name" in given else {"application_name": application_name(suffix)}


# A run of digits orjson may read otherwise than json: beyond 64 bits it gives a float where json gives the int.
_LONG_DIGITS = re.compile(rb"\d{19}")


def _json_loads(data: bytes | bytearray | memoryview | str) -> object:
    """A jsonb value (every element read carries its metadata as one) parsed by orjson where it is installed: about
    three times faster than json for the hundred rows a question reads. A value holding a run of 19 digits, or one
    orjson refuses (a number beyond a double), is parsed by json, so every value reads as json reads it."""
    raw = data.encode() if isinstance(data, str) else data
    if _orjson is not None and not _LONG_DIGITS.search(raw):
        try:
            return _orjson.loads(raw)
        except _orjson.JSONDecodeError:
            pass
    return json.loads(bytes(raw))


def _configure_connection(conn: psycopg.Connection) -> None:
    from pgvector.psycopg import register_vector

    register_vector(conn)
    set_json_loads(_json_loads, conn)
    # Filtered HNSW searches (scoped search) otherwise return fewer than k rows.
    conn.execute("SET hnsw.iterative_scan = relaxed_order")
    # Dates are read back in UTC: a session in another zone shifts the edge of the accepted range
    # (core.versions.dates.ACCEPTED_RANGE) out of what Python can hold, and a date-only version onto the day before.
    conn.execute("SET TIME ZONE 'UTC'")
    conn.commit()


def _statement_timeout_error(value: str | None) -> DatabaseError:
    shown = f"{value} ms" if value and value.isdigit() else value or "so short that a set-up statement was cancelled"
    return DatabaseError(
        f"statement_timeout on this database's connections is {shown} (set by DATABASE_URL's options, or by the "
        f"role's or the database's settings): HKE's statements cannot run. Raise it to at least "
        f"{MIN_STATEMENT_TIMEOUT_MS} ms, or 0 for no limit."
    )


def _ensure_extension(conninfo: str) -> None:
    params = check_conninfo(conninfo)
    # The value the URL asks for, to name it when even the check below is cancelled.
    asked = re.search(r"statement_timeout\s*=\s*(\S+)", params.get("options") or "")
    try:
        with psycopg.connect(conninfo, autocommit=True, connect_timeout=10,
                             **_connect_kwargs(conninfo, SETUP_SUFFIX)) as conn:
            row = conn.execute("SELECT setting::bigint FROM pg_settings WHERE name = 'statement_timeout'").fetchone()
            if row and 0 < row[0] < MIN_STATEMENT_TIMEOUT_MS:
                raise _statement_timeout_error(str(row[0]))
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
    except psycopg.errors.QueryCanceled as exc:
        raise _statement_timeout_error(asked.group(1) if asked else None) from exc
    except psycopg.OperationalError as exc:
        raise DatabaseUnavailableError(unavailable_message(exc, conninfo)) from exc
    except (psycopg.errors.FeatureNotSupported, psycopg.errors.UndefinedFile) as exc:  # depends on the server
        raise DatabaseError("the database has no pgvector extension; install it (or use the pgvector/pgvector "
                            "image, or a managed Postgres that offers `vector`)") from exc


def connection_pool(url: str, *, max_size: int | None = None, role: Role = "primary") -> Pool:
    """This process's pool for ``url``, created on first use (a primary's after making sure the vector extension
    exists; a standby is read-only and has it from its primary).

    ``max_size`` defaults to ``Settings.pool_size``; it only applies when the pool is created (benchmarks that
    compare sizes call :func:`close_pools` first). A ``"replica"`` pool does not test connections before lending
    them: :class:`core.db.replicas.ReadRouter` asks each one how far it has replayed instead, the same round trip.
    """
    conninfo = psycopg_conninfo(url)
    with _lock:
        pool = _pools.get((role, conninfo))
        if pool is None or pool.closed:
            if role == "primary":
                _ensure_extension(conninfo)
            pool = Pool(
                conninfo,
                min_size=1,
                max_size=max_size or load_settings().pool_size,
                kwargs=_connect_kwargs(conninfo, "" if role == "primary" else REPLICA_SUFFIX),
                configure=_configure_connection,
                # A pooled connection to a server that has since died or restarted is dead: test each one before
                # handing it out (one round trip), so a restarted server is used without a manual step.
                check=ConnectionPool.check_connection if role == "primary" else None,
                open=True,
                timeout=POOL_TIMEOUT_S,
                max_idle=POOL_MAX_IDLE_S,
                max_lifetime=POOL_MAX_LIFETIME_S,
                name="hke" if role == "primary" else "hke-replica",
            )
            pool.notes_wal_position = role == "primary" and conninfo in _noting_wal
            _pools[(role, conninfo)] = pool
        return pool


def note_wal_positions(url: str) -> None:
    """From now on, this process's pool for the primary ``url`` notes the WAL position after each use (it has
    standbys that must not serve this process a read older than its own writes), whenever the pool is made."""
    conninfo = psycopg_conninfo(url)
    with _lock:
        _noting_wal.add(conninfo)
        pool = _pools.get(("primary", conninfo))
        if pool is not None:
            pool.notes_wal_position = True


def pool_stats(url: str, role: Role = "primary") -> dict[str, int]:
    """``ConnectionPool.get_stats()`` of this process's pool for ``url`` (empty if none is open).

    ``pool_size`` is the connections the pool holds (in use + idle), ``pool_available`` the idle ones,
    ``requests_waiting`` the callers queued for one; counters such as ``requests_num`` are since the pool opened.
    """
    pool = _pools.get((role, psycopg_conninfo(url)))
    return dict(pool.get_stats()) if pool is not None and not pool.closed else {}


@contextlib.contextmanager
def read_connection(pool: ConnectionSource) -> Iterator[psycopg.Connection]:
    """A pooled connection in autocommit for reads: one statement is one round trip.

    Outside autocommit psycopg sends ``BEGIN`` before the first statement and the pool's context sends
    ``COMMIT`` after it, so a single read would cost three round trips.
    """
    with pool.connection() as conn:
        conn.autocommit = True
        try:
            yield conn
        finally:
            if not conn.closed:
                conn.autocommit = False  # the pool hands the connection to writers that expect transactions


def close_pool(url: str, role: Role = "primary") -> None:
    """Close and forget this process's pool for ``url``, if it has one (its connections in use close on return)."""
    with _lock:
        pool = _pools.pop((role, psycopg_conninfo(url)), None)
    if pool is not None:
        pool.close(timeout=0.5)


def close_pools() -> None:
    with _lock:
        for pool in _pools.values():
            pool.close()
        _pools.clear()


@contextlib.contextmanager
def schema_lock(conn: psycopg.Connection, key: int) -> Iterator[None]:
    """Hold a session advisory lock across processes; a failed statement inside must not block the unlock."""
    conn.execute(_ADVISORY_LOCK, (key,))
    try:
        yield
    finally:
        conn.rollback()
        conn.execute(_ADVISORY_UNLOCK, (key,))
        conn.commit()


def apply_schema(pool: ConnectionSource, statements: Iterable[str], lock_key: int) -> None:
    """Run idempotent DDL once, serialised across processes by the advisory lock ``lock_key``."""
    with pool.connection() as conn, schema_lock(conn, lock_key):
        for statement in statements:
            conn.execute(statement)
        conn.commit()
