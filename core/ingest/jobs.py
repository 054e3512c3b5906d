"""Background jobs: an ingest, or a GraphRAG index build, that runs in the app's process, outliving the page (or
browser tab) that started it.

A :class:`JobRunner` owns one worker thread that runs its jobs one at a time, in the order they were submitted, and a
heartbeat thread that keeps their rows (``core.store.jobs``) fresh. Each job's row holds its status, progress, the
name of the file being worked on and what it has stored so far, so any page (of any process) can show it. When the
process dies, the heartbeat stops: listing jobs flags those whose heartbeat is older than ``stale_after_s``
``interrupted``, with the counts they had stored. An ingest is idempotent by content hash, so re-running an
interrupted one (:meth:`JobRunner.rerun`) stores only what it had not stored yet. An index build writes its tables
in one transaction at its end, so an interrupted or cancelled one leaves the previous index as it was.

Cancelling (:meth:`JobRunner.cancel`, from any process) sets a flag on the job's row; the running job reads it back
from its next progress write and stops there (:class:`JobCancelled`), keeping what it had stored.

No Streamlit here: the app holds one runner per process (``views.jobs``); tests drive one directly.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import PurePath
from typing import Any

from core.ingest import FileResult, IngestReport, SourceFile, discover, ingest
from core.progress import Progress
from core.store import ElementStore
from core.store.database import redact_text
from core.store.jobs import STALE_AFTER_S, JobRecord, JobTables
from core.text import first_line

logger = logging.getLogger(__name__)

INGEST = "ingest"
INDEX = "index"
# Progress rows are written at most this often (and whenever the file changes): a row per element would make the
# job's own writes compete with the ingest's.
PROGRESS_EVERY_S = 0.3


class JobError(ValueError):
    """A job that cannot be started or re-run (unknown, still running, its files were uploads that were not kept, or
    an index build of the same collection is already under way)."""


class JobCancelled(Exception):  # noqa: N818  (a request honoured, not an error)
    """Raised from a job's progress report when its row asks it to stop."""


@dataclass
class JobContext:
    """What a job's work reports through: progress (elements, the current file's name) and counts stored so far."""

    job_id: str
    tables: JobTables
    _last_write: float = 0.0
    _last_file: str | None = None
    cancelled: bool = False  # the row asked this job to stop, and it was told (JobCancelled)

    def progress(self, done: int, total: int, current_file: str | None, *, may_stop: bool = True) -> None:
        """Record progress (at most every ``PROGRESS_EVERY_S`` within one file or stage); raises
        :class:`JobCancelled` when the job was asked to stop, unless ``may_stop`` is False (past the point of no
        return, such as an index's one write)."""
        now = time.monotonic()
        if current_file == self._last_file and done < total and now - self._last_write < PROGRESS_EVERY_S:
            return
        self._last_write, self._last_file = now, current_file
        if self.tables.progress(self.job_id, done, total, current_file) and may_stop:
            self.cancelled = True
            raise JobCancelled(self.job_id)

    def counts(self, counts: Mapping[str, Any]) -> None:
        self.tables.counts(self.job_id, counts)


# A job's work: runs on the worker thread, returns (counts, error); an error (or an exception) makes it ``failed``.
Work = Callable[[JobContext], tuple[dict[str, Any], str | None]]


class JobRunner:
    """Runs jobs on one worker thread of this process; their rows live in the database at ``url``."""

    def __init__(self, url: str, *, heartbeat_s: float = 5.0, stale_after_s: float = STALE_AFTER_S) -> None:
        if stale_after_s <= heartbeat_s:
            raise ValueError("stale_after_s must be longer than heartbeat_s, or live jobs would be flagged")
        self.url = url
        self.tables = JobTables(url)
        self.heartbeat_s = heartbeat_s
        self.stale_after_s = stale_after_s
        self._queue: queue.Queue[tuple[str, Work, Callable[[], None] | None] | None] = queue.Queue()
        self._mine: set[str] = set()  # queued or running here: this process beats for them
        self._finished: dict[str, threading.Event] = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        # Daemon threads: a stopped app must not wait for a job; its row is then flagged interrupted.
        self._worker = threading.Thread(target=self._work_loop, name="hke-job-worker", daemon=True)
        self._beat = threading.Thread(target=self._beat_loop, name="hke-job-heartbeat", daemon=True)
        self._worker.start()
        self._beat.start()

    # -- submitting --

    def submit(self, collection: str, kind: str, work: Work, *, request: Mapping[str, Any] | None = None,
               total: int = 0, rerun_of: str | None = None, after: Callable[[], None] | None = None) -> str:
        """Queue ``work`` as a job of ``kind`` on ``collection``; returns the job's id at once. ``after`` runs on a
        thread of its own once the job is done (not when it failed or was cancelled): a warm-up of what the
        job's result is read through, say; its failure is logged, never the job's."""
        job_id = self.tables.create(collection, kind, total=total, request=request, rerun_of=rerun_of)
        with self._lock:
            self._mine.add(job_id)
            self._finished[job_id] = threading.Event()
        self._queue.put((job_id, work, after))
        return job_id

    def submit_ingest(self, store: ElementStore, sources: Sequence[SourceFile], problems: Sequence[FileResult] = (),
                      *, paths: Sequence[str] = (), names: Mapping[str, str] | None = None,
                      rerun_of: str | None = None, **options: Any) -> str:
        """Ingest ``sources`` into ``store`` as a job (``options``: :func:`core.ingest.ingest`'s keywords).

        ``paths``: the files or folders on disk ``sources`` were found in, kept for a re-run; none for uploads,
        whose bytes are not kept (a re-run then asks for the files again). ``names``: what the job's row calls
        each source path (default: its file name); never the server's path."""
        request = {"paths": [str(p) for p in paths], "options": dict(options), "files": len(sources) + len(problems)}
        return self.submit(store.collection, INGEST, _ingest_work(store, sources, problems, options, names),
                           request=request, total=len(sources) + len(problems), rerun_of=rerun_of)

    def submit_index(self, store: ElementStore, *, settings: Any = None, config: Any = None,
                     chat_model: Any = None, rerun_of: str | None = None, after: Callable[[], None] | None = None
                     ) -> str:
        """Build ``store``'s GraphRAG index as a job (:func:`core.graph.build_index` with ``settings``, an
        ``IndexConfig`` and ``chat_model``, default the configured one); its counts are the index's (entities,
        relationships, reports, LLM and fallback units and reports). One build per collection at a time."""
        if any(j.active and j.kind == INDEX for j in self.jobs(store.collection)):
            raise JobError(f"an index build of {store.collection!r} is already running: wait for it, or cancel it")
        request = {"config": asdict(config) if config is not None else {}}
        return self.submit(store.collection, INDEX, _index_work(store, settings, config, chat_model),
                           request=request, rerun_of=rerun_of, after=after)

    def cancel(self, job_id: str) -> str | None:
        """Ask a job to stop; see :meth:`core.store.jobs.JobTables.cancel`."""
        return self.tables.cancel(job_id)

    def rerun(self, job_id: str, store: ElementStore, names: Callable[[Sequence[str]], list[str]] | None = None,
              *, settings: Any = None) -> str:
        """Run an interrupted, failed or cancelled job again, into ``store`` (its collection's). An ingest's files
        it stored are recognised by their content hash and skipped as unchanged (``names``: the names of source
        paths, as for :meth:`submit_ingest`); an index is built again from the start, with ``settings``."""
        job = self.tables.get(job_id)
        if job is None or job.kind not in (INGEST, INDEX):
            raise JobError(f"no ingest or index job {job_id}")
        if job.active:
            raise JobError("the job is still running: wait for it to finish")
        if store.collection != job.collection:
            raise JobError(f"the job ran on {job.collection!r}, not {store.collection!r}")
        if job.kind == INDEX:
            from core.graph import IndexConfig

            config = IndexConfig(**_config_fields(job.request.get("config") or {}))
            return self.submit_index(store, settings=settings, config=config, rerun_of=job_id)
        paths = job.request.get("paths") or []
        if not paths:
            raise JobError("the job ingested uploaded files, which are not kept: upload them again")
        sources, problems = discover(paths)
        named = None
        if names is not None:
            keys = [s.display for s in sources] + [p.path for p in problems]
            named = dict(zip(keys, names(keys), strict=True))
        return self.submit_ingest(store, sources, problems, paths=paths, names=named, rerun_of=job_id,
                                  **job.request.get("options", {}))

    # -- reading --

    def jobs(self, collection: str | None = None, limit: int = 20) -> list[JobRecord]:
        """Jobs, newest first; jobs of a dead process are flagged ``interrupted`` first."""
        self.tables.flag_interrupted(self.stale_after_s)
        return self.tables.list(collection, limit)

    def wait(self, job_id: str, timeout: float | None = None) -> JobRecord | None:
        """Block until a job of this runner ends (or ``timeout``); its row."""
        with self._lock:
            event = self._finished.get(job_id)
        if event is not None:
            event.wait(timeout)
        return self.tables.get(job_id)

    def close(self) -> None:
        """Stop taking jobs; the one running ends first (tests; the app's runner lives as long as its process)."""
        self._stop.set()
        self._queue.put(None)
        self._worker.join()

    # -- the threads --

    def _work_loop(self) -> None:
        while (item := self._queue.get()) is not None:
            job_id, work, after = item
            try:
                if self._run(job_id, work) and after is not None:
                    threading.Thread(target=_quietly, args=(after, job_id), name="hke-job-after", daemon=True).start()
            finally:
                with self._lock:
                    self._mine.discard(job_id)
                    event = self._finished.pop(job_id, None)
                if event is not None:
                    event.set()

    def _run(self, job_id: str, work: Work) -> bool:
        """Run one job and record its end; True when it is done."""
        try:
            if not self.tables.start(job_id):
                return False  # cancelled, or flagged interrupted while it waited (this process stalled)
            context = JobContext(job_id, self.tables)
            try:
                counts, error = work(context)
            except Exception as exc:
                if not context.cancelled:  # a cancel may reach here wrapped (an index run's GraphIndexError)
                    raise
                self.tables.finish_cancelled(job_id, _CANCEL_NOTES.get(self.tables.get(job_id).kind))
                logger.info("job %s cancelled (%s)", job_id, first_line(exc))
                return False
            self.tables.finish(job_id, "failed" if error else "done", counts=counts, error=error)
            return not error
        except Exception as exc:  # noqa: BLE001  (the job's row says why; the worker goes on with the next)
            logger.exception("job %s failed", job_id)
            try:
                self.tables.finish(job_id, "failed", counts={}, error=redact_text(first_line(exc), self.url))
            except Exception:  # noqa: BLE001  (the database is gone: the heartbeat stops and the row is flagged)
                logger.warning("could not record the failure of job %s", job_id)
            return False

    def _beat_loop(self) -> None:
        while not self._stop.wait(self.heartbeat_s):
            with self._lock:
                mine = list(self._mine)
            try:
                self.tables.heartbeat(mine)
            except Exception:  # noqa: BLE001  (the database is away; the next beat tries again)
                logger.warning("job heartbeat failed", exc_info=True)


def _quietly(after: Callable[[], None], job_id: str) -> None:
    try:
        after()
    except Exception:  # noqa: BLE001  (a warm-up that failed costs the next reader the time it would have saved)
        logger.warning("what runs after job %s failed", job_id, exc_info=True)


_CANCEL_NOTES = {INGEST: "cancelled: the files stored before stay",
                 INDEX: "cancelled before its write: any previous index is unchanged"}


# -- the index job ------------------------------------------------------------------------------------------------


def index_counts(report: Any) -> dict[str, Any]:
    """What an index build made, as a job's row keeps it (from :class:`core.graph.IndexReport`)."""
    return {"entities": report.entities, "relationships": report.relationships, "reports": report.reports,
            "communities": sum(report.communities.values()), "text_units": report.text_units,
            "llm_units": report.llm_units, "fallback_units": report.fallback_units,
            "llm_reports": report.llm_reports, "fallback_reports": report.fallback_reports,
            "llm_calls": report.llm_calls, "cached_calls": report.cached_calls, "extraction": report.extraction,
            "seconds": report.seconds}  # fmt: skip


def _config_fields(values: Mapping[str, Any]) -> dict[str, Any]:
    from dataclasses import fields

    from core.graph import IndexConfig

    known = {f.name for f in fields(IndexConfig)}
    out = {k: v for k, v in values.items() if k in known}
    if "entity_types" in out:
        out["entity_types"] = tuple(out["entity_types"])
    return out


def _index_work(store: ElementStore, settings: Any, config: Any, chat_model: Any) -> Work:
    def work(job: JobContext) -> tuple[dict[str, Any], str | None]:
        from core.graph import STAGES, build_index

        def on_progress(p: Progress) -> None:
            # The stage is what is being worked on; once the write has begun it goes through (one transaction).
            job.progress(p.done, p.total, p.stage, may_stop=p.stage != STAGES[-1])

        # the statement tiers first, as `core index` builds them: the `statements` and `topics` searches and the
        # lists of things that have something read them, and ingest keeps them up to date once built
        from core.ingest.tiers import sync_tiers

        job.progress(0, 1, "statement tiers", may_stop=True)
        sync_tiers(store, chat_model=chat_model)
        report = build_index(store, settings=settings, config=config, chat_model=chat_model, progress=on_progress)
        return index_counts(report), None

    return work


# -- the ingest job -----------------------------------------------------------------------------------------------


def _name(path: str, names: Mapping[str, str]) -> str:
    return names.get(path) or PurePath(path.removeprefix("upload:")).name


def ingest_counts(report: IngestReport, names: Mapping[str, str] | None = None, *, files: bool = False
                  ) -> dict[str, Any]:
    """What an ingest stored, as a job's row keeps it; ``files``: one row per file, by its name."""
    counts: dict[str, Any] = {"documents": report.documents, "elements": report.elements, "added": report.added,
                              "replaced": report.replaced, "unchanged": report.unchanged,
                              "skipped": report.skipped, "errors": len(report.errors)}  # fmt: skip
    if files:
        names = names or {}
        counts["files"] = [{"file": _name(f.path, names), "status": f.status, "elements": f.elements,
                            "reason": _without_paths(f.reason or "", names)} for f in report.files]  # fmt: skip
        counts["seconds"] = round(report.seconds, 2)
        if report.tiers_seconds:
            counts["tiers_seconds"] = round(report.tiers_seconds, 2)
    return counts


def _without_paths(text: str, names: Mapping[str, str]) -> str:
    for path, name in names.items():
        text = text.replace(path, name)
    return text


def _ingest_work(store: ElementStore, sources: Sequence[SourceFile], problems: Sequence[FileResult],
                 options: Mapping[str, Any], named: Mapping[str, str] | None) -> Work:
    names = {s.display: s.name for s in sources} | {p.path: PurePath(p.path).name for p in problems}
    names |= dict(named or {})

    def work(job: JobContext) -> tuple[dict[str, Any], str | None]:
        def on_progress(p: Progress) -> None:
            current = next((name for path, name in names.items() if path and p.message.endswith(path)), None)
            job.progress(p.done, p.total, current)

        def on_file(report: IngestReport) -> None:
            try:
                job.counts(ingest_counts(report))
            except Exception:  # noqa: BLE001  (a missed count must not stop the ingest)
                logger.warning("could not record job %s's counts", job.job_id, exc_info=True)

        report = ingest(store, sources, problems=problems, progress=on_progress, on_file=on_file, **options)
        stopped = _without_paths(report.stopped, names) if report.stopped else None
        return ingest_counts(report, names, files=True), stopped

    return work
