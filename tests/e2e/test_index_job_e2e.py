"""An index build as a background job, in a real browser: the Graph explorer and Community reports pages show one
running (its stage and progress) in any tab, a Cancel button stops it, and an interrupted one is flagged.

The job here is driven by the test itself through the jobs table, as the app's worker would be (a row it starts,
reports progress on, and ends when it reads the cancel request back): what is under test is what the pages show
and send. The worker is ``tests/test_jobs.py``'s, and the real build from the page is ``test_reports_page``'s.
Screenshots go to tests/artifacts/.
"""

from __future__ import annotations

import time
import uuid

import pytest

from core.ingest import SourceFile, ingest
from core.ingest.jobs import INDEX
from core.store import ElementStore
from core.store.jobs import JobTables

from .conftest import screenshot, wait_for_text

pytestmark = pytest.mark.e2e

SIDEBAR = "[data-testid='stSidebar']"
MAIN = "[data-testid='stMain']"


@pytest.fixture
def unindexed(db_url, use_embeddings):
    store = ElementStore(db_url, f"e2e_index_job_{uuid.uuid4().hex[:8]}", use_embeddings)
    assert not ingest(store, [SourceFile("pumps.md", b"# Pumps\n\nThe Acme Pump feeds the Valve Controller.\n")]
                      ).errors
    yield store
    store.drop()


def test_a_running_index_build_shows_on_its_pages_and_cancels(page, app_url, db_url, unindexed):
    collection, tables = unindexed.collection, JobTables(db_url)
    job_id = tables.create(collection, INDEX)
    assert tables.start(job_id)
    assert not tables.progress(job_id, 3, 10, "extraction")

    page.set_default_timeout(60_000)
    page.goto(f"{app_url}/graph_explorer?collection={collection}")
    wait_for_text(page, "being built in the background")
    wait_for_text(page, "Entity extraction (stage 3 of 8) 3/10")
    screenshot(page, "index_job_running_explorer")
    page.close()  # the tab goes; the job goes on

    again = page.context.new_page()
    again.set_default_timeout(60_000)
    again.goto(f"{app_url}/reports?collection={collection}")
    wait_for_text(again, "being built in the background")
    again.locator(SIDEBAR).get_by_text("index into", exact=False).first.wait_for()
    again.locator(MAIN).get_by_role("button", name="Cancel").click()
    for _ in range(100):
        if tables.get(job_id).cancel_requested:
            break
        time.sleep(0.1)
    assert tables.progress(job_id, 4, 10, "extraction"), "the worker reads the request back at its next step"
    tables.finish_cancelled(job_id, "cancelled before its write: the previous index is unchanged")
    wait_for_text(again, "Cancelled before it wrote anything: any previous index is unchanged")
    again.locator(MAIN).get_by_text("No index yet: click Build index").wait_for()
    screenshot(again, "index_job_cancelled")

    dead = tables.create(collection, INDEX)
    tables.start(dead)
    assert dead in tables.flag_interrupted(0.0)  # as the heartbeat of a process that died would leave it
    again.reload()
    wait_for_text(again, "Interrupted (the app stopped while it ran)")
    again.locator(SIDEBAR).get_by_role("button", name="Re-run").first.wait_for()
    screenshot(again, "index_job_interrupted")
    again.close()
