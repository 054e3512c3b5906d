"""Reads on PostgreSQL standbys (``DATABASE_READ_URL``), writes on the primary (``DATABASE_URL``).

Questions, pages and evaluation read through a :class:`ReadRouter` (``ElementStore.reader``); ingest, index,
migrate and every write use the primary's pool (``ElementStore.pool``). Streaming replication is asynchronous, so
a standby may not have replayed a commit yet when the next read arrives. Three rules keep reads honest:

* **Read your writes.** After each use of the primary the pool notes where the primary's WAL ends
  (:class:`core.db.pool.Pool`); a standby serves this process only once it has replayed up to there, waiting at
  most ``Settings.replica_lag_timeout`` (``HKE_REPLICA_LAG_TIMEOUT``), else that read goes to the primary. Other
  processes' writes appear on the standby as it replays them (usually milliseconds).
* **A lost standby is skipped.** A standby that cannot be reached, fails a check, or is no longer in recovery (it
  was promoted: its data no longer follows the primary) leaves the rotation with one warning in the log; reads go to
  the other standbys or the primary. It is probed again (one direct connection) at the next read, then every
  :data:`RETRY_S` seconds, and rejoins with a log line when it answers as a standby.
* **A statement in flight fails once.** A read whose standby dies under it raises like any lost connection; the
  next read goes elsewhere.

Every URL is shown redacted (``core.db.urls``).
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import psycopg
from psycopg.pq import TransactionStatus
from psycopg_pool import PoolClosed

from core.config import Settings, load_settings
from core.db.pool import (
    CURRENT_WAL_POSITION,
    PROBE_SUFFIX,
    ConnectionSource,
    Pool,
    _connect_kwargs,
    close_pool,
    connection_pool,
    note_wal_positions,
)
from core.db.urls import CONNECT_TIMEOUT_S, check_conninfo, connection_lost, psycopg_conninfo, redact_text, redact_url
from core.text import first_line

logger = logging.getLogger("hke.database")

RETRY_S = 5.0  # a standby that was lost is probed again after this long (one connection attempt)
CHECKOUT_TIMEOUT_S = 5.0  # a standby's pool that cannot lend a connection in this long counts as lost
POLL_FIRST_S = 0.002  # the first pause while waiting for a standby to replay; doubles up to POLL_MAX_S
POLL_MAX_S = 0.05
# Whether a server is a standby, and how far it has replayed (bytes since 0/0, as CURRENT_WAL_POSITION).
REPLAY_POSITION = "SELECT pg_is_in_recovery(), pg_last_wal_replay_lsn() - '0/0'::pg_lsn"


class NotAStandbyError(RuntimeError):
    """A server named in DATABASE_READ_URL is not in recovery: it does not follow the primary."""


@dataclass(frozen=True)
class ReplicaState:
    """One standby as this process sees it. ``url`` is redacted."""

    url: str
    up: bool | None  # None: not tried yet
    error: str | None
    replayed_position: int  # bytes since 0/0 replayed when last asked


class _Replica:
    def __init__(self, url: str) -> None:
        self.conninfo = psycopg_conninfo(url)
        self.shown = redact_url(self.conninfo)
        self.up: bool | None = None
        self.error: str | None = None
        self.retry_at = 0.0  # monotonic time of the next probe while not up
        self.probing = False
        self.replayed = 0
        self.lock = threading.Lock()

    def state(self) -> ReplicaState:
        return ReplicaState(self.shown, self.up, self.error, self.replayed)


class ReadRouter:
    """Lends read connections from the standbys in turn, or from the primary when none can serve.

    It quacks like a pool for readers (``connection()``; see :class:`core.db.pool.ConnectionSource`).
    ``served`` counts where reads went: ``"replica"``, ``"primary"`` (no standby could serve) and, among the
    latter, ``"behind"`` (a standby had not replayed this process's last write in time).
    """

    def __init__(self, primary_url: str, read_urls: Sequence[str], lag_timeout: float) -> None:
        if not read_urls:
            raise ValueError("a ReadRouter needs at least one standby URL")
        self.primary_url = psycopg_conninfo(primary_url)
        note_wal_positions(self.primary_url)  # writes made before the first read count too
        self.replicas = [_Replica(url) for url in read_urls]
        self.lag_timeout = lag_timeout
        self.served = {"replica": 0, "primary": 0, "behind": 0}
        self._turn = itertools.count()
        self._count_lock = threading.Lock()

    def primary(self) -> Pool:
        return connection_pool(self.primary_url)

    def states(self) -> list[ReplicaState]:
        return [replica.state() for replica in self.replicas]

    @contextlib.contextmanager
    def connection(self, timeout: float | None = None) -> Iterator[psycopg.Connection]:
        primary = self.primary()
        target = primary.written_position
        start = next(self._turn) % len(self.replicas)
        for replica in self.replicas[start:] + self.replicas[:start]:
            if not self._usable(replica):
                continue
            found = self._checkout(replica, target)
            if found is not None:
                pool, conn = found
                break
        else:
            self._count("primary")
            with primary.connection(timeout) as conn:
                yield conn
            return
        self._count("replica")
        try:
            yield conn
            if conn.info.transaction_status == TransactionStatus.INTRANS:
                conn.commit()  # as a pool's context does; a standby only ran reads
        except BaseException as exc:
            if connection_lost(exc):
                self._lose(replica, exc)
            raise
        finally:
            pool.putconn(conn)  # rolls back a failed transaction, drops a broken connection

    # -- health --

    def _usable(self, replica: _Replica) -> bool:
        """Up, or due for a probe that this thread wins and that succeeds."""
        with replica.lock:
            if replica.up:
                return True
            if replica.probing or time.monotonic() < replica.retry_at:
                return False
            replica.probing = True
        try:
            with psycopg.connect(replica.conninfo, autocommit=True, connect_timeout=CONNECT_TIMEOUT_S,
                                 **_connect_kwargs(replica.conninfo, PROBE_SUFFIX)) as conn:
                if not conn.execute(REPLAY_POSITION).fetchone()[0]:
                    raise NotAStandbyError("it is not a standby (pg_is_in_recovery() is false)")
        except (psycopg.Error, NotAStandbyError) as exc:
            self._lose(replica, exc)
            return False
        finally:
            replica.probing = False
        with replica.lock:
            was, replica.up, replica.error = replica.up, True, None
        if was is False:
            logger.warning("read replica %s is back: reads go to it again", replica.shown)
        return True

    def _lose(self, replica: _Replica, exc: BaseException) -> None:
        reason = redact_text(first_line(exc), replica.conninfo)
        with replica.lock:
            was, replica.up, replica.error = replica.up, False, reason
            # Lost while in use: probe at the next read (a restarted standby is back at once). A failed probe: wait.
            replica.retry_at = time.monotonic() + (0.0 if was else RETRY_S)
        if was is not False:
            logger.warning("read replica %s is unavailable (%s): reads go to the primary%s until it is back "
                           "(checked every %g s)", replica.shown, reason,
                           " or the other replicas" if len(self.replicas) > 1 else "", RETRY_S)
        close_pool(replica.conninfo, role="replica")  # its connections are dead; a probe that succeeds opens anew

    def _checkout(self, replica: _Replica, target: int) -> tuple[Pool, psycopg.Connection] | None:
        """A connection of ``replica`` that has replayed up to ``target``, or None (lost, or still behind)."""
        if not replica.up:  # lost by another thread since: do not open a pool for it again before a probe
            return None
        try:
            pool = connection_pool(replica.conninfo, role="replica")
            conn = pool.getconn(CHECKOUT_TIMEOUT_S)
        except PoolClosed:  # another thread has just lost this standby
            return None
        except psycopg.Error as exc:  # PoolTimeout included
            self._lose(replica, exc)
            return None
        try:
            if self._caught_up(replica, conn, target):
                return pool, conn
            self._count("behind")
        except (psycopg.Error, NotAStandbyError) as exc:
            self._lose(replica, exc)
        pool.putconn(conn)
        return None

    def _caught_up(self, replica: _Replica, conn: psycopg.Connection, target: int) -> bool:
        """Whether the standby has replayed up to ``target``, polling for at most the lag timeout.

        The first poll doubles as the health check that a pool's ``check`` would make (one round trip).
        """
        deadline = time.monotonic() + self.lag_timeout
        pause = POLL_FIRST_S
        conn.autocommit = True
        try:
            while True:
                in_recovery, replayed = conn.execute(REPLAY_POSITION).fetchone()
                if not in_recovery:
                    raise NotAStandbyError("it is no longer a standby (pg_is_in_recovery() is false)")
                replica.replayed = int(replayed or 0)  # NULL before a fresh standby has replayed anything
                if replica.replayed >= target:
                    return True
                if time.monotonic() + pause > deadline:
                    return False
                time.sleep(pause)
                pause = min(pause * 2, POLL_MAX_S)
        finally:
            if not conn.closed:
                conn.autocommit = False  # as the pool lends connections: writers' code expects transactions

    def _count(self, where: str) -> None:
        with self._count_lock:
            self.served[where] += 1


_routers: dict[tuple[str, tuple[str, ...]], ReadRouter] = {}
_routers_lock = threading.Lock()


def configured_read_urls(url: str, settings: Settings | None = None) -> tuple[str, ...]:
    """``DATABASE_READ_URL``'s standbys when ``url`` is the configured ``DATABASE_URL`` (their primary), else none;
    a :class:`~core.db.urls.DatabaseError` that says how to write one libpq cannot read as typed."""
    settings = settings or load_settings()
    if not settings.database_read_urls or not settings.database_url:
        return ()
    if psycopg_conninfo(settings.database_url) != psycopg_conninfo(url):
        return ()
    for i, read_url in enumerate(settings.database_read_urls, 1):  # a typo is an error here, not a lost standby
        check_conninfo(read_url, name=f"DATABASE_READ_URL entry {i}")
    return settings.database_read_urls


def reader(url: str, read_urls: Sequence[str] | None = None) -> ConnectionSource:
    """Where this process reads ``url``'s data: a :class:`ReadRouter` over its standbys, or the primary's pool.

    ``read_urls`` defaults to :func:`configured_read_urls`. One router per primary and standby set per process.
    """
    urls = configured_read_urls(url) if read_urls is None else tuple(read_urls)
    if not urls:
        return connection_pool(url)
    key = (psycopg_conninfo(url), tuple(psycopg_conninfo(u) for u in urls))
    with _routers_lock:
        router = _routers.get(key)
        if router is None:
            router = ReadRouter(url, urls, load_settings().replica_lag_timeout)
            _routers[key] = router
        return router


def router_states() -> list[ReplicaState]:
    """Every standby this process has routed reads to, as it last saw it (for status displays)."""
    with _routers_lock:
        routers = list(_routers.values())
    return [state for router in routers for state in router.states()]


def forget_routers() -> None:
    """Drop every router (their pools are closed by :func:`core.db.pool.close_pools`)."""
    with _routers_lock:
        _routers.clear()


# -- db status ---------------------------------------------------------------------------------------------------

STANDBY_STATUS = ("SELECT pg_is_in_recovery(), pg_last_wal_replay_lsn() - '0/0'::pg_lsn, "
                  "extract(epoch FROM now() - pg_last_xact_replay_timestamp())")


def standby_status(primary_url: str, read_urls: Sequence[str]) -> list[dict[str, object]]:
    """Each standby, checked now with one connection: reachable, a standby, and how far behind the primary.

    ``behind_bytes`` is the primary's WAL end minus what the standby has replayed; ``last_replay_s_ago`` is the age
    of the last transaction it replayed (it grows while the primary is idle, so it is not lag by itself).
    """
    primary_position: int | None = None
    try:
        with psycopg.connect(psycopg_conninfo(primary_url), autocommit=True, connect_timeout=CONNECT_TIMEOUT_S,
                             **_connect_kwargs(psycopg_conninfo(primary_url), PROBE_SUFFIX)) as conn:
            primary_position = int(conn.execute(CURRENT_WAL_POSITION).fetchone()[0])
    except psycopg.Error:
        pass  # the primary's own status says why
    out: list[dict[str, object]] = []
    for url in read_urls:
        conninfo = psycopg_conninfo(url)
        row: dict[str, object] = {"url": redact_url(conninfo), "serves_reads": False}
        try:
            with psycopg.connect(conninfo, autocommit=True, connect_timeout=CONNECT_TIMEOUT_S,
                                 **_connect_kwargs(conninfo, PROBE_SUFFIX)) as conn:
                in_recovery, replayed, age = conn.execute(STANDBY_STATUS).fetchone()
        except psycopg.Error as exc:
            row["error"] = f"unreachable ({redact_text(first_line(exc), conninfo)}): reads go to the primary"
            out.append(row)
            continue
        if not in_recovery:
            row["error"] = "not a standby (pg_is_in_recovery() is false): reads go to the primary"
        else:
            row["serves_reads"] = True
            if primary_position is not None and replayed is not None:
                row["behind_bytes"] = max(0, primary_position - int(replayed))
            row["last_replay_s_ago"] = round(float(age), 1) if age is not None else None
        out.append(row)
    return out
