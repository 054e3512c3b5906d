"""Background jobs against the real Postgres: the jobs table (``core.store.jobs``), the runner
(``core.ingest.jobs``) and ``python -m core jobs``."""

from __future__ import annotations

import json
import time

import pytest

from core.ingest import discover
from core.ingest.jobs import INDEX, INGEST, JobError, JobRunner
from core.store.jobs import JobTables

from .conftest import SAMPLES


@pytest.fixture
def tables(db_url) -> JobTables:
    return JobTables(db_url)


@pytest.fixture
def runner(db_url):
    r = JobRunner(db_url, heartbeat_s=0.2, stale_after_s=1.0)
    yield r
    r.close()


def test_a_job_row_goes_from_queued_to_done_with_its_progress_and_counts(tables, collection_name):
    job_id = tables.create(collection_name, INGEST, total=3, request={"paths": ["/srv/x"]})
    assert tables.get(job_id).status == "queued"
    assert tables.start(job_id)
    assert not tables.start(job_id)  # started once
    tables.progress(job_id, 5, 10, "a.md")
    tables.counts(job_id, {"added": 1})
    running = tables.get(job_id)
    assert (running.status, running.done, running.total, running.current_file) == ("running", 5, 10, "a.md")
    assert running.counts == {"added": 1} and running.fraction == 0.5 and running.active
    tables.finish(job_id, "done", counts={"added": 2})
    done = tables.get(job_id)
    assert (done.status, done.counts, done.current_file) == ("done", {"added": 2}, None)
    assert done.finished_at is not None and not done.active
    with pytest.raises(ValueError, match="unknown job status"):
        tables.finish(job_id, "exploded", counts={})
    later = tables.create(collection_name, INGEST)
    assert [j.job_id for j in tables.list(collection_name)] == [later, job_id]  # newest first


def test_a_job_whose_heartbeat_stopped_is_flagged_interrupted_with_what_it_stored(tables, collection_name):
    dead = tables.create(collection_name, INGEST)
    tables.start(dead)
    tables.counts(dead, {"added": 1, "documents": 1})
    time.sleep(0.6)
    alive = tables.create(collection_name, INGEST)
    flagged = tables.flag_interrupted(0.5)
    assert dead in flagged and alive not in flagged
    row = tables.get(dead)
    assert row.status == "interrupted" and row.counts == {"added": 1, "documents": 1}
    assert tables.get(alive).status == "queued"
    assert not tables.start(dead)  # an interrupted job never runs again: it is re-run as a new job


def test_the_runner_ingests_in_the_background_and_names_files_never_server_paths(runner, store, samples_store):
    """``samples_store`` embedded the samples once: this job finds their vectors in the cache and only writes."""
    sources, problems = discover([SAMPLES])
    job_id = runner.submit_ingest(store, sources, problems, paths=[str(SAMPLES)])
    job = runner.wait(job_id, timeout=120)
    assert job.status == "done", job.error
    assert job.counts["added"] == len(sources) and job.counts["errors"] == 0
    assert {f["file"] for f in job.counts["files"]} == {s.name for s in sources}
    assert str(SAMPLES) not in repr(job.counts) and job.current_file is None
    assert job.done == job.total > 0
    assert len(store.documents()) == len(sources)
    assert job_id in [j.job_id for j in runner.jobs(store.collection)]


def test_an_interrupted_ingest_reruns_and_stores_only_what_it_had_not(runner, store, tables, samples_store):
    sources, _ = discover([SAMPLES])
    first = sorted(sources, key=lambda s: s.name)[:1]
    runner.wait(runner.submit_ingest(store, first, paths=[str(SAMPLES)]), timeout=60)
    # The job of a process that died after storing one file: its row says running, its heartbeat stopped.
    dead = tables.create(store.collection, INGEST, request={"paths": [str(SAMPLES)], "options": {}})
    tables.start(dead)
    tables.counts(dead, {"added": 1})
    time.sleep(1.2)
    assert next(j for j in runner.jobs(store.collection) if j.job_id == dead).status == "interrupted"
    again = runner.wait(runner.rerun(dead, store), timeout=120)
    assert again.status == "done" and again.rerun_of == dead
    assert (again.counts["unchanged"], again.counts["added"]) == (1, len(sources) - 1)


def test_a_rerun_needs_files_it_can_read_again(runner, store, tables):
    upload = tables.create(store.collection, INGEST, request={"paths": []})
    tables.finish(upload, "failed", counts={}, error="boom")
    with pytest.raises(JobError, match="upload them again"):
        runner.rerun(upload, store)
    running = tables.create(store.collection, INGEST, request={"paths": [str(SAMPLES)]})
    with pytest.raises(JobError, match="still running"):
        runner.rerun(running, store)


def test_a_job_that_raises_is_failed_with_its_reason_and_the_next_one_runs(runner, collection_name):
    def explode(job):
        job.progress(1, 2, "x.md")
        raise RuntimeError("the parser fell over")

    failed = runner.wait(runner.submit(collection_name, "test", explode), timeout=10)
    assert (failed.status, failed.error) == ("failed", "the parser fell over")
    ok = runner.wait(runner.submit(collection_name, "test", lambda job: ({"n": 1}, None)), timeout=10)
    assert (ok.status, ok.counts) == ("done", {"n": 1})


def test_the_cli_lists_jobs_and_creates_and_drops_a_collection(db_url, tables, collection_name, capsys):
    from core.cli import main
    from core.store import list_collections

    job_id = tables.create(collection_name, INGEST, request={"paths": [str(SAMPLES)]})
    tables.start(job_id)
    tables.finish(job_id, "done", counts={"added": 3, "files": [{"file": "a.md"}]})
    assert main(["jobs", "--collection", collection_name, "--json"]) == 0
    [row] = json.loads(capsys.readouterr().out)
    assert (row["id"], row["status"], row["counts"]) == (job_id, "done", {"added": 3})
    assert str(SAMPLES) not in json.dumps(row)

    assert main(["collections", "--create", collection_name, "--json"]) == 0
    assert collection_name in {c.name for c in list_collections(db_url)}
    assert main(["collections", "--drop", collection_name]) == 2  # not without --yes
    assert "add --yes" in capsys.readouterr().err
    assert main(["collections", "--drop", collection_name, "--yes"]) == 0
    assert collection_name not in {c.name for c in list_collections(db_url)}


def test_an_interrupted_job_says_how_many_of_its_files_it_stored_and_how_to_finish():
    from datetime import UTC, datetime

    from core.store.jobs import JobRecord
    from views.jobs import job_summary

    now = datetime.now(UTC)
    job = JobRecord("j", "c", INGEST, "interrupted", 93, 805, None, {"added": 1, "documents": 1}, None,
                    {"paths": ["/srv/data/samples"], "files": 10}, None, now, now, now, now)
    level, message = job_summary(job)
    assert level == "warning" and "1 of 10 files stored" in message and "Re-run" in message
    assert "/srv" not in message
    upload = JobRecord(**{**job.__dict__, "request": {"paths": [], "files": 2}})
    assert "upload them again" in job_summary(upload)[1]


def test_an_ingest_job_asked_for_the_tiers_builds_them_and_says_how_long_they_took(runner, store):
    # What "Ingest the samples" asks for; a re-run asks for them again (the option is kept in the job's request).
    from core.ingest import SourceFile
    from core.ingest.tiers import tiers_built
    from views.jobs import job_summary

    sources = [SourceFile(name, text.encode()) for name, text in SMALL_CORPUS]
    job = runner.wait(runner.submit_ingest(store, sources, statement_tiers=True), timeout=120)
    assert job.status == "done" and tiers_built(store)
    assert job.counts["tiers_seconds"] > 0 and job.request["options"] == {"statement_tiers": True}
    level, message = job_summary(job)
    assert level == "success" and "Statement tiers brought up to date in" in message, message


# -- index builds as jobs, and cancelling ------------------------------------------------------------------------

OFFLINE = {"extraction": "offline", "reports": "extractive", "english_ner": "heuristic"}
SMALL_CORPUS = [
    ("pumps.md", "# Pumps\n\nThe Acme Pump connects to the Valve Controller. The Valve Controller reads the Flow "
                 "Sensor.\n\n## Maintenance\n\nThe Acme Pump needs the Service Kit every year. The Service Kit "
                 "holds the Seal Ring and the Valve Controller manual.\n"),
    ("sensors.md", "# Sensors\n\nThe Flow Sensor reports to the Control Panel. The Control Panel shows the Acme "
                   "Pump status.\n\n## Calibration\n\nThe Calibration Tool sets the Flow Sensor. The Control "
                   "Panel stores the Calibration Tool log.\n"),
]  # fmt: skip


@pytest.fixture
def small_store(store):
    from core.ingest import SourceFile, ingest

    assert not ingest(store, [SourceFile(name, text.encode()) for name, text in SMALL_CORPUS]).errors
    return store


def _wait_for(predicate, timeout: float = 10.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if (value := predicate()):
            return value
        time.sleep(0.05)
    raise AssertionError("timed out")


def test_an_index_build_runs_as_a_job_with_its_counts(runner, small_store, tables):
    from core.graph import IndexConfig, index_info

    job_id = runner.submit_index(small_store, config=IndexConfig(**OFFLINE))
    job = runner.wait(job_id, timeout=60)
    assert (job.kind, job.status, job.error, job.current_file) == (INDEX, "done", None, None)
    stats = index_info(small_store).stats
    assert job.counts["entities"] == stats["entities"] > 0 and job.counts["reports"] == stats["reports"] > 0
    assert (job.counts["llm_units"], job.counts["fallback_reports"]) == (0, 0)
    assert job.request["config"]["extraction"] == "offline"
    from core.ingest.tiers import tiers_built

    assert tiers_built(small_store)  # the statement tiers too, as `core index` builds them
    # One build per collection at a time.
    busy = tables.create(small_store.collection, INDEX)
    with pytest.raises(JobError, match="already running"):
        runner.submit_index(small_store, config=IndexConfig(**OFFLINE))
    tables.finish(busy, "failed", counts={})
    again = runner.wait(runner.rerun(job_id, small_store), timeout=60)  # a re-run builds it again, same knobs
    assert again.status == "done" and again.rerun_of == job_id and again.counts["entities"] == stats["entities"]


def test_a_cancelled_index_build_stops_and_leaves_the_previous_index(runner, small_store, tables):
    from langchain_core.language_models.fake_chat_models import FakeListChatModel

    from core.graph import IndexConfig, index_info

    runner.wait(runner.submit_index(small_store, config=IndexConfig(**OFFLINE)), timeout=60)
    before = index_info(small_store)
    # A slow model: each extraction call takes 0.3 s, so the build is still extracting when it is cancelled.
    slow = FakeListChatModel(responses=["no records here"], sleep=0.3)
    job_id = runner.submit_index(small_store, chat_model=slow, config=IndexConfig(extraction="llm",
                                 reports="extractive", english_ner="heuristic", gleanings=0, concurrency=1))
    _wait_for(lambda: (j := tables.get(job_id)).current_file == "extraction" and j.status == "running")
    assert runner.cancel(job_id) == "running"
    job = runner.wait(job_id, timeout=30)
    assert job.status == "cancelled" and "previous index is unchanged" in job.error
    assert index_info(small_store).built_at == before.built_at
    assert runner.cancel(job_id) is None  # over already


def test_a_queued_job_is_cancelled_before_it_starts_and_a_running_one_at_its_next_progress(runner, collection_name):
    import threading

    release = threading.Event()
    ran: list[str] = []

    def blocker(job):
        release.wait(10)
        return {}, None

    def counting(job):
        for i in range(1000):
            job.progress(i, 1000, "step")
            ran.append("step")
            time.sleep(0.01)
        return {"n": len(ran)}, None

    first = runner.submit(collection_name, "test", blocker)
    queued = runner.submit(collection_name, "test", lambda job: ran.append("queued") or ({}, None))
    assert runner.cancel(queued) == "cancelled"
    release.set()
    assert runner.wait(first, timeout=10).status == "done"
    assert runner.wait(queued, timeout=10).status == "cancelled" and "queued" not in ran

    long = runner.submit(collection_name, "test", counting)
    _wait_for(lambda: len(ran) > 3)
    assert runner.cancel(long) == "running"
    job = runner.wait(long, timeout=10)
    assert job.status == "cancelled" and len(ran) < 1000


def test_the_cli_cancels_a_job_by_the_id_it_lists(tables, collection_name, capsys):
    from core.cli import main

    queued = tables.create(collection_name, INDEX)
    assert main(["jobs", "--cancel", queued[:8], "--collection", collection_name]) == 0
    assert "cancelled" in capsys.readouterr().out and tables.get(queued).status == "cancelled"
    running = tables.create(collection_name, INDEX)
    tables.start(running)
    assert main(["jobs", "--cancel", running, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["status"] == "running"
    assert tables.get(running).cancel_requested and tables.progress(running, 1, 2, "reports")
    assert main(["jobs", "--cancel", queued]) == 1  # over already
    assert "only a queued or running job" in capsys.readouterr().err
    assert main(["jobs", "--cancel", "zzzz"]) == 2


def test_an_index_job_says_what_it_built_or_that_the_previous_index_stays():
    from datetime import UTC, datetime

    from core.store.jobs import JobRecord
    from views.jobs import job_summary, progress_text

    now = datetime.now(UTC)
    job = JobRecord("j", "c", INDEX, "running", 40, 120, "extraction", {}, None, {}, None, now, now, None, now)
    assert progress_text(job) == "Entity extraction (stage 3 of 8) 40/120"
    assert progress_text(JobRecord(**{**job.__dict__, "cancel_requested": True})) == "cancelling at its next step"
    built = {"entities": 9, "relationships": 12, "reports": 4, "seconds": 2.5, "extraction": "llm", "llm_units": 5,
             "fallback_units": 2, "llm_reports": 3, "fallback_reports": 1}
    level, message = job_summary(JobRecord(**{**job.__dict__, "status": "done", "counts": built}))
    assert level == "success" and "9 entities, 12 relationships, 4 reports" in message
    assert "5 units (2 fell back" in message and "LLM reports 3 (1 fell back" in message
    for status, words in (("interrupted", "Interrupted"), ("cancelled", "Cancelled")):
        level, message = job_summary(JobRecord(**{**job.__dict__, "status": status}))
        assert words in message and "previous index is unchanged" in message


def test_what_runs_after_a_job_runs_only_when_it_is_done(runner, collection_name):
    import threading

    after_done, after_failed = threading.Event(), threading.Event()
    runner.wait(runner.submit(collection_name, "test", lambda job: ({}, None), after=after_done.set), timeout=10)
    assert after_done.wait(5)
    failed = runner.submit(collection_name, "test", lambda job: ({}, "it broke"), after=after_failed.set)
    assert runner.wait(failed, timeout=10).status == "failed"
    broken = runner.submit(collection_name, "test", lambda job: ({}, None), after=lambda: 1 / 0)
    assert runner.wait(broken, timeout=10).status == "done"  # a failing warm-up is logged, never the job's
    time.sleep(0.2)
    assert not after_failed.is_set()
