"""Background jobs in the app: the process's one :class:`core.ingest.jobs.JobRunner`, and the sidebar's list of
running and finished jobs that every page shows (``app.py`` draws it).

A job runs on the runner's thread, not in the page's script run: closing the tab, or moving to another page, leaves
it running; the sidebar reads its row (``core.store.jobs``) and redraws itself every second while one is running.
Every text here that came from a document or an upload (a file name, an error) goes through ``escape_markdown``.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pandas as pd
import streamlit as st

from core.ingest import IngestReport
from core.ingest.jobs import JobError, JobRunner
from core.store.jobs import JobRecord
from core.text import escape_markdown
from views import ui
from views.ingest import file_names, ingest_summary

FINISHED_SHOWN = 3  # finished jobs of the current collection listed under the running ones
STATUS_ICONS = {"queued": ":material/schedule:", "running": ":material/sync:", "done": ":material/check_circle:",
                "failed": ":material/error:", "interrupted": ":material/warning:"}


@st.cache_resource(show_spinner=False)
def runner() -> JobRunner:
    """One runner per app process: its worker thread outlives every script run (and browser tab)."""
    return JobRunner(ui.db_url())


def start_ingest(sources, problems=(), *, collection: str | None = None, paths=()) -> str:
    """Queue an ingest of ``sources`` into ``collection`` (default: the current one) as a background job."""
    s = ui.settings()
    keys = [source.display for source in sources] + [problem.path for problem in problems]
    return runner().submit_ingest(ui.store(collection), sources, problems, paths=[str(p) for p in paths],
                                  names=dict(zip(keys, file_names(keys), strict=True)),
                                  max_bytes=s.max_file_bytes, batch_size=s.embed_batch_size,
                                  hnsw_min_rows=s.hnsw_min_rows)


def job_summary(job: JobRecord) -> tuple[str, str]:
    """``(level, message)`` for an ingest job, in the words of :func:`views.ingest.ingest_summary`."""
    c = job.counts
    if job.status == "interrupted":
        stored = c.get("added", 0) + c.get("replaced", 0)
        again = ("Re-run it to store the rest: files already stored are skipped as unchanged."
                 if job.request.get("paths") else "Uploaded files are not kept: upload them again to store the rest.")
        files = job.request.get("files", job.total)
        return "warning", (f"Interrupted (the app stopped while it ran): {stored} of {files} "
                           f"file{'' if files == 1 else 's'} stored before it stopped. {again}")
    if job.status == "failed" and not c:
        return "error", f"Failed: {job.error or 'unknown error'}"
    report = IngestReport(documents=c.get("documents", 0), elements=c.get("elements", 0), added=c.get("added", 0),
                          replaced=c.get("replaced", 0), unchanged=c.get("unchanged", 0),
                          skipped=c.get("skipped", 0), seconds=c.get("seconds", 0.0),
                          errors=[{}] * c.get("errors", 0))  # fmt: skip
    level, message = ingest_summary(report)
    if job.error:
        return "error", f"{message} Stopped: {job.error}"
    return level, message


def _when(moment: datetime | None) -> str:
    if moment is None:
        return ""
    seconds = (datetime.now(UTC) - moment).total_seconds()
    return "just now" if seconds < 60 else (f"{seconds / 60:.0f} min ago" if seconds < 3600 else
                                            moment.strftime("%Y-%m-%d %H:%M"))


def _title(job: JobRecord) -> str:
    return (f"{STATUS_ICONS.get(job.status, '')} **{job.kind}** into {escape_markdown(job.collection)} · "
            f"{job.status}")


def _draw(jobs: list[JobRecord]) -> None:
    st.markdown("**Jobs**")
    rerun = {j.rerun_of for j in jobs}
    for job in jobs:
        if job.active:
            file = f" · {escape_markdown(job.current_file)}" if job.current_file else ""
            done = ("waiting for the job before it" if job.status == "queued" else
                    f"{job.done}/{job.total} elements" if job.done else "reading files")
            st.progress(job.fraction if job.done else 0.0, text=f"{_title(job)}: {done}{file}")
            continue
        level, message = job_summary(job) if job.kind == "ingest" else ("info", job.error or job.status)
        st.caption(f"{_title(job)} · {_when(job.finished_at)}")
        if job.status == "done":
            st.caption(escape_markdown(message))
        else:
            getattr(st, level)(escape_markdown(message))
            if job.request.get("paths") and job.job_id not in rerun and st.button("Re-run", key=f"rerun_{job.job_id}",
                                                      help="Ingest the same files again into the same collection"):
                try:
                    runner().rerun(job.job_id, ui.store(job.collection), names=file_names)
                except JobError as exc:
                    st.error(escape_markdown(str(exc)))
                else:
                    st.rerun()


def _jobs(collection: str) -> list[JobRecord]:
    jobs = runner().jobs(limit=50)
    running = [j for j in jobs if j.active]
    finished = [j for j in jobs if not j.active and j.collection == collection][:FINISHED_SHOWN]
    return running + finished


@st.fragment(run_every=1.0)
def _watch(collection: str) -> None:
    jobs = _jobs(collection)
    _draw(jobs)
    if not any(j.active for j in jobs):
        st.rerun(scope="app")  # the page's own numbers (documents, elements) change with the job's end


def sidebar_jobs() -> None:
    """Running jobs (of any collection) and the last finished ones of the current collection, in the sidebar."""
    collection = ui.current_collection()
    jobs = _jobs(collection)
    if not jobs:
        return
    with st.sidebar:
        if any(j.active for j in jobs):
            _watch(collection)
        else:
            _draw(jobs)


def last_ingest(collection: str) -> None:
    """The Overview's account of the collection's last ingest job: running (it goes on without this tab), or its
    summary and one row per file."""
    last = next((j for j in runner().tables.list(collection, limit=5) if j.kind == "ingest"), None)
    if last is None:
        return
    if last.active:
        st.info("An ingest into this collection is running in the background (progress in the sidebar): you can "
                "leave this page or close the tab, it goes on.", icon=":material/sync:")
        return
    level, message = job_summary(last)
    getattr(st, level)(escape_markdown(message))
    files = last.counts.get("files") or []
    if files:
        st.dataframe(pd.DataFrame(files), hide_index=True, width="stretch")
