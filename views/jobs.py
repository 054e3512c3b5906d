"""Background jobs in the app: the process's one :class:`core.ingest.jobs.JobRunner`, the sidebar's list of
running and finished jobs that every page shows (``app.py`` draws it), and the notices of an index build that the
Community reports and Graph explorer pages show.

A job runs on the runner's thread, not in the page's script run: closing the tab, or moving to another page, leaves
it running; the sidebar reads its row (``core.store.jobs``) and redraws itself every second while one is running.
Every text here that came from a document or an upload (a file name, an error) goes through ``escape_markdown``.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pandas as pd
import streamlit as st

from core.ingest import IngestReport
from core.ingest.jobs import INDEX, INGEST, JobError, JobRunner
from core.store.jobs import JobRecord
from core.text import escape_markdown
from views import ui
from views.ingest import file_names, ingest_summary

FINISHED_SHOWN = 3  # finished jobs of the current collection listed under the running ones
STATUS_ICONS = {"queued": ":material/schedule:", "running": ":material/sync:", "done": ":material/check_circle:",
                "failed": ":material/error:", "interrupted": ":material/warning:",
                "cancelled": ":material/cancel:"}  # fmt: skip
STAGE_LABELS = {
    "load": "Load elements", "text_units": "Text units", "extraction": "Entity extraction", "graph": "Entity graph",
    "communities": "Leiden communities", "structural": "Structural communities", "reports": "Community reports",
    "store": "Write the tables",
}  # fmt: skip
RECENT_S = 120  # a finished index build is announced on its pages this long after it ended


@st.cache_resource(show_spinner=False)
def runner() -> JobRunner:
    """One runner per app process: its worker thread outlives every script run (and browser tab)."""
    return JobRunner(ui.db_url())


def start_ingest(sources, problems=(), *, collection: str | None = None, paths=(), statement_tiers: bool = False
                 ) -> str:
    """Queue an ingest of ``sources`` into ``collection`` (default: the current one) as a background job;
    ``statement_tiers``: build the collection's statement tiers too, should it have none yet."""
    s = ui.settings()
    keys = [source.display for source in sources] + [problem.path for problem in problems]
    return runner().submit_ingest(ui.store(collection), sources, problems, paths=[str(p) for p in paths],
                                  names=dict(zip(keys, file_names(keys), strict=True)),
                                  max_bytes=s.max_file_bytes, batch_size=s.embed_batch_size,
                                  hnsw_min_rows=s.hnsw_min_rows, statement_tiers=statement_tiers)


def start_index(collection: str | None = None) -> str:
    """Queue a build of ``collection``'s GraphRAG index (default: the current one) as a background job; raises
    :class:`JobError` when one is already running."""
    from views import graph_explorer  # imported here, on the page's thread: it registers a component

    name = collection or ui.current_collection()
    return runner().submit_index(ui.store(name), settings=ui.settings(), after=lambda: graph_explorer.warm(name))


def index_summary(job: JobRecord) -> tuple[str, str]:
    """``(level, message)`` for an index job: what it built (with the LLM and fallback counts), or why not."""
    c = job.counts
    if job.status == "interrupted":
        return "warning", ("Interrupted (the app stopped while it ran): nothing was written, any previous index is "
                           "unchanged. Build it again.")
    if job.status == "cancelled":
        return "info", "Cancelled before it wrote anything: any previous index is unchanged."
    if job.status == "failed":
        return "error", f"Failed: {job.error or 'unknown error'}"
    llm = (f" LLM extraction {c.get('llm_units', 0)} units ({c.get('fallback_units', 0)} fell back to the offline "
           f"extractor), LLM reports {c.get('llm_reports', 0)} ({c.get('fallback_reports', 0)} fell back to the "
           "extractive report)." if c.get("extraction") == "llm" or c.get("llm_reports") else "")
    return "success", (f"Index built in {c.get('seconds', 0):.1f}s: {c.get('entities', 0)} entities, "
                       f"{c.get('relationships', 0)} relationships, {c.get('reports', 0)} reports.{llm}")


def job_summary(job: JobRecord) -> tuple[str, str]:
    """``(level, message)`` for an ingest job, in the words of :func:`views.ingest.ingest_summary` (or an index
    job, :func:`index_summary`)."""
    if job.kind == INDEX:
        return index_summary(job)
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
    if job.status == "cancelled":
        stored = c.get("added", 0) + c.get("replaced", 0)
        return "info", f"Cancelled: {stored} file{'' if stored == 1 else 's'} stored before it stopped stay stored."
    report = IngestReport(documents=c.get("documents", 0), elements=c.get("elements", 0), added=c.get("added", 0),
                          replaced=c.get("replaced", 0), unchanged=c.get("unchanged", 0),
                          skipped=c.get("skipped", 0), seconds=c.get("seconds", 0.0),
                          errors=[{}] * c.get("errors", 0))  # fmt: skip
    level, message = ingest_summary(report)
    if c.get("tiers_seconds"):  # of the seconds above: the list and statement questions read these tiers
        message += f" Statement tiers brought up to date in {c['tiers_seconds']:.1f}s."
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


def progress_text(job: JobRecord) -> str:
    """What an active job is doing, in words (an ingest's elements and file, an index's stage)."""
    if job.status == "queued":
        return "waiting for the job before it"
    if job.cancel_requested:
        return "cancelling at its next step"
    if job.kind == INDEX:
        stage = job.current_file or "load"
        number = list(STAGE_LABELS).index(stage) + 1 if stage in STAGE_LABELS else 0
        return (f"{STAGE_LABELS.get(stage, escape_markdown(stage))} (stage {number} of {len(STAGE_LABELS)})"
                + (f" {job.done}/{job.total}" if job.total > 1 else ""))
    file = f" · {escape_markdown(job.current_file)}" if job.current_file else ""
    return (f"{job.done}/{job.total} elements" if job.done else "reading files") + file


def cancel_button(job: JobRecord, key: str) -> None:
    """A Cancel button for an active job (its row is asked to stop; the job ends at its next step)."""
    if st.button("Cancel", key=f"{key}_{job.job_id}", icon=":material/cancel:", disabled=job.cancel_requested,
                 help="Stop the job at its next step: an ingest keeps the files it stored, an index build keeps "
                      "the previous index"):  # fmt: skip
        runner().cancel(job.job_id)
        st.rerun(scope="fragment")


def _rerun_button(job: JobRecord) -> None:
    helps = {INGEST: "Ingest the same files again into the same collection", INDEX: "Build the index again"}
    if st.button("Re-run", key=f"rerun_{job.job_id}", help=helps[job.kind]):
        try:
            runner().rerun(job.job_id, ui.store(job.collection), names=file_names, settings=ui.settings())
        except JobError as exc:
            st.error(escape_markdown(str(exc)))
        else:
            st.rerun()


def _draw(jobs: list[JobRecord]) -> None:
    st.markdown("**Jobs**")
    rerun = {j.rerun_of for j in jobs}
    for job in jobs:
        if job.active:
            st.progress(job.fraction if job.done else 0.0, text=f"{_title(job)}: {progress_text(job)}")
            cancel_button(job, "sidebar_cancel")
            continue
        level, message = job_summary(job) if job.kind in (INGEST, INDEX) else ("info", job.error or job.status)
        st.caption(f"{_title(job)} · {_when(job.finished_at)}")
        if job.status == "done":
            st.caption(escape_markdown(message))
        else:
            getattr(st, level)(escape_markdown(message))
            if job.job_id not in rerun and (job.kind == INDEX or job.request.get("paths")):
                _rerun_button(job)


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
        st.rerun(scope="app")  # the page's own numbers (documents, elements, the index) change with the job's end


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


def last_index_job(collection: str) -> JobRecord | None:
    return next((j for j in runner().jobs(collection, limit=10) if j.kind == INDEX), None)


@st.fragment(run_every=1.0)
def _index_running(collection: str) -> None:
    job = last_index_job(collection)
    if job is None or not job.active:
        st.rerun(scope="app")  # the page shows the new index (or says why there is none)
        return
    st.info("The index is being built in the background: you can leave this page or close the tab, it goes on. "
            "This page shows it when it is written.", icon=":material/sync:")
    st.progress(job.fraction if job.total > 1 else 0.0, text=f"Building the index: {progress_text(job)}")
    cancel_button(job, "index_cancel")


def index_job_notice(collection: str, built_at: datetime | None) -> bool:
    """The collection's last index build, on a page that shows the index (built at ``built_at``, None when there
    is none): running (its progress and a Cancel button; the page reruns when it ends), or what came of it when it
    ended lately, or did not finish after the index shown was built. Returns True while one is running."""
    job = last_index_job(collection)
    if job is None:
        return False
    if job.active:
        _index_running(collection)
        return True
    ended = job.finished_at or job.created_at
    recent = (datetime.now(UTC) - ended).total_seconds() < RECENT_S
    unfinished = job.status != "done" and (built_at is None or ended > built_at)
    if recent or unfinished:
        level, message = index_summary(job)
        getattr(st, level)(f"Last index build ({_when(job.finished_at)}): {escape_markdown(message)}")
    return False
