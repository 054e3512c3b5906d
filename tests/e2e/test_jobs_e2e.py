"""Background ingest jobs and the Overview's document manager in a real browser (``streamlit run app.py``,
Playwright, Debian's headless Chromium).

- "Ingest the samples" starts a job; the tab is closed while it runs; a new tab (on another page) shows it in the
  sidebar, and it ends with every sample stored.
- The document manager retires one document as of a date and purges another, after a confirmation that names it;
  a hostile file name and title are shown as text (the ``page`` fixture fails on a dialog).

Screenshots go to tests/artifacts/.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

import pytest
from playwright.sync_api import expect

from core.documents import list_documents
from core.ingest import SourceFile, discover, ingest
from core.store import ElementStore
from core.store.jobs import JobTables

from ..conftest import SAMPLES
from .conftest import screenshot, wait_for_text

pytestmark = pytest.mark.e2e

SIDEBAR = "[data-testid='stSidebar']"
HOSTILE_NAME = "<img src=x onerror=alert(1)>.md"


@pytest.fixture
def empty_collection(db_url, use_embeddings):
    store = ElementStore(db_url, f"e2e_jobs_{uuid.uuid4().hex[:8]}", use_embeddings)
    yield store
    store.drop()


def open_overview(page, app_url: str, collection: str) -> None:
    page.set_default_timeout(90_000)  # each rerun is slow on a loaded CI machine
    page.goto(f"{app_url}/?collection={collection}")
    wait_for_text(page, "Manage documents", timeout=60_000)


def test_an_ingest_goes_on_after_its_tab_is_closed(browser, page, app_url, db_url, samples_store, empty_collection):
    """``samples_store`` embeds the samples once: this ingest finds their vectors in the cache and only writes."""
    collection = empty_collection.collection
    open_overview(page, app_url, collection)
    page.get_by_role("button", name="Ingest the samples").click()
    page.locator(SIDEBAR).get_by_text("ingest into", exact=False).first.wait_for(timeout=30_000)
    job = JobTables(db_url).list(collection, limit=1)[0]
    page.close()  # the tab goes while the job runs
    assert job.status in ("queued", "running"), "the job ended before the tab closed: nothing was proved"

    again = page.context.new_page()
    again.goto(f"{app_url}/compare?collection={collection}")
    sidebar = again.locator(SIDEBAR)
    sidebar.get_by_text("done", exact=False).first.wait_for(timeout=120_000)  # the 10 samples: over a minute at load 20
    # the job's line and what it stored are drawn apart: the status may show "done" a rerun before the summary
    sidebar.get_by_text("added", exact=False).first.wait_for(timeout=30_000)
    screenshot(again, "jobs_after_the_tab_closed")
    text = sidebar.inner_text()
    assert "added" in text and str(SAMPLES) not in text
    assert JobTables(db_url).get(job.job_id).status == "done"
    assert len(empty_collection.documents()) == len(discover([SAMPLES])[0])
    again.close()


def test_the_document_manager_retires_and_purges(page, app_url, empty_collection):
    store = empty_collection
    files = [SourceFile("a-guide.md", b"# A guide\n\n- Step : one\n"),
             SourceFile(HOSTILE_NAME, b"# <script>alert(2)</script> **Notes**\n\nText.\n")]
    assert not ingest(store, files).errors
    open_overview(page, app_url, store.collection)
    main = page.locator("[data-testid='stMain']")
    main.get_by_text("Retire", exact=True).first.click()  # the action picker
    main.get_by_role("button", name="Retire", exact=True).click()
    wait_for_text(page, f"Retired {HOSTILE_NAME} as of", timeout=90_000)  # the first by name is picked
    assert [d.filename for d in store.documents()] == ["a-guide.md"]
    retired = {r.filename: r for r in list_documents(store)}[HOSTILE_NAME]
    assert retired.status == "retired" and retired.retired_at.date() == datetime.now(UTC).date()
    # The message shows before the rerun that drew it ends; until then the old form may still be on the page beside
    # the new one (three "Document" pickers at once, when the page loads quickly).
    expect(page.get_by_test_id("stStatusWidget")).to_have_count(0, timeout=90_000)

    # The retire's rerun gives the picker a new key (the retired document may be gone) and starts it on the first
    # document: a pick made in the old picker before that rerun reaches the browser is lost, so pick until it holds.
    picker = main.locator("[data-testid='stSelectbox']").filter(has_text="Document")
    expect(picker).to_have_count(1, timeout=90_000)
    for _ in range(3):
        picker.click()
        page.get_by_role("option", name="a-guide.md", exact=False).click()
        main.get_by_text("Purge", exact=True).first.click()
        expect(page.get_by_test_id("stStatusWidget")).to_have_count(0, timeout=90_000)
        if main.get_by_text("Purging deletes a-guide.md for good").count():
            break
    wait_for_text(page, "Purging deletes a-guide.md for good", timeout=90_000)
    purge = main.get_by_role("button", name="Purge", exact=True)
    assert purge.is_disabled()  # until the confirmation is ticked
    main.get_by_text("Yes, purge a-guide.md").click()
    purge.click()
    wait_for_text(page, "Purged a-guide.md", timeout=90_000)
    screenshot(page, "jobs_document_manager")
    assert [(r.filename, r.status) for r in list_documents(store)] == [(HOSTILE_NAME, "retired")]
    assert page.locator("img[src='x']").count() == 0
