"""The one door to the jobs table (``core.sql.jobs``): background jobs' rows, their progress and their end.

Reads go to the primary: a job's progress read from a standby would lag behind the job.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from psycopg.types.json import Jsonb

from core.db.pool import apply_schema, connection_pool, read_connection
from core.sql import jobs as sql

# A queued or running job whose heartbeat is this old belongs to a process that died (the runner beats every 5 s).
STALE_AFTER_S = 30.0


@dataclass(frozen=True)
class JobRecord:
    """One job as its row holds it. ``current_file`` is a file name; ``request`` (what a re-run reads) is the
    runner's, never shown."""

    job_id: str
    collection: str
    kind: str
    status: str  # queued | running | done | failed | interrupted | cancelled
    done: int
    total: int
    current_file: str | None
    counts: dict[str, Any]
    error: str | None
    request: dict[str, Any] = field(repr=False)
    rerun_of: str | None
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    heartbeat_at: datetime
    cancel_requested: bool = False

    @property
    def active(self) -> bool:
        return self.status in sql.ACTIVE

    @property
    def fraction(self) -> float:
        return 1.0 if self.total <= 0 else min(1.0, max(0.0, self.done / self.total))


def _record(row: tuple) -> JobRecord:
    values = list(row)
    values[0] = str(values[0])
    values[10] = str(values[10]) if values[10] is not None else None
    return JobRecord(*values)


class JobTables:
    """The jobs table of the database at ``url``; made on first use."""

    def __init__(self, url: str) -> None:
        self.url = url
        self._ready = False

    def _pool(self):
        if not self._ready:
            apply_schema(connection_pool(self.url), sql.CREATE_SCHEMA, sql.SCHEMA_LOCK_KEY)
            self._ready = True
        return connection_pool(self.url)

    def create(self, collection: str, kind: str, *, total: int = 0, request: Mapping[str, Any] | None = None,
               rerun_of: str | None = None) -> str:
        """A new ``queued`` job; returns its id."""
        job_id = str(uuid.uuid4())
        with self._pool().connection() as conn:
            conn.execute(sql.INSERT_JOB, {"job_id": job_id, "collection": collection, "kind": kind, "total": total,
                                          "counts": Jsonb({}), "request": Jsonb(dict(request or {})),
                                          "rerun_of": rerun_of})  # fmt: skip
        return job_id

    def start(self, job_id: str) -> bool:
        """``queued`` → ``running``; False when the job is no longer queued (flagged interrupted meanwhile)."""
        with self._pool().connection() as conn:
            return conn.execute(sql.START_JOB, {"job_id": job_id}).rowcount == 1

    def progress(self, job_id: str, done: int, total: int, current_file: str | None) -> bool:
        """Record the running job's progress; True when someone asked it to stop (:meth:`cancel`)."""
        with self._pool().connection() as conn:
            row = conn.execute(sql.PROGRESS, {"job_id": job_id, "done": done, "total": total,
                                              "current_file": current_file}).fetchone()  # fmt: skip
        return bool(row and row[0])

    def cancel(self, job_id: str) -> str | None:
        """Cancel a job: a queued one is ``cancelled`` at once, a running one is asked to stop (its runner ends it
        ``cancelled`` at its next progress write). Returns ``"cancelled"``, ``"running"`` (asked), or None when the
        job is not queued or running (over already, or unknown)."""
        with self._pool().connection() as conn:
            for statement in (sql.CANCEL_QUEUED, sql.CANCEL_RUNNING):
                row = conn.execute(statement, {"job_id": job_id}).fetchone()
                if row is not None:
                    return str(row[0])
        return None

    def finish_cancelled(self, job_id: str, note: str | None = None) -> None:
        """The job stopped on request; the counts it recorded stay."""
        with self._pool().connection() as conn:
            conn.execute(sql.FINISH_CANCELLED, {"job_id": job_id, "error": note})

    def counts(self, job_id: str, counts: Mapping[str, Any]) -> None:
        """What the running job has stored so far (kept if its process dies)."""
        with self._pool().connection() as conn:
            conn.execute(sql.COUNTS, {"job_id": job_id, "counts": Jsonb(dict(counts))})

    def finish(self, job_id: str, status: str, *, counts: Mapping[str, Any], error: str | None = None) -> None:
        if status not in sql.STATUSES:
            raise ValueError(f"unknown job status {status!r}")
        with self._pool().connection() as conn:
            conn.execute(sql.FINISH_JOB, {"job_id": job_id, "status": status, "counts": Jsonb(dict(counts)),
                                          "error": error})  # fmt: skip

    def heartbeat(self, job_ids: Iterable[str]) -> None:
        """The process running these jobs is alive."""
        ids = list(job_ids)
        if ids:
            with self._pool().connection() as conn:
                conn.execute(sql.HEARTBEAT, {"job_ids": ids})

    def flag_interrupted(self, stale_after_s: float) -> list[str]:
        """Flag ``interrupted`` every queued or running job whose heartbeat is older than ``stale_after_s``: the
        process running it died (the app was restarted). Returns their ids."""
        with self._pool().connection() as conn:
            rows = conn.execute(sql.FLAG_INTERRUPTED, {"stale_after_s": float(stale_after_s)}).fetchall()
        return [str(r[0]) for r in rows]

    def list(self, collection: str | None = None, limit: int = 20) -> list[JobRecord]:
        """Jobs, newest first (of one collection, or of all)."""
        with read_connection(self._pool()) as conn:
            rows = conn.execute(sql.LIST_JOBS, {"collection": collection, "limit": limit}).fetchall()
        return [_record(r) for r in rows]

    def get(self, job_id: str) -> JobRecord | None:
        with read_connection(self._pool()) as conn:
            row = conn.execute(sql.GET_JOB, {"job_id": job_id}).fetchone()
        return _record(row) if row is not None else None
