"""Example questions in a real browser (issue 33, item 5): on a collection without a hand-written set they read as
questions ("What does … say about Linux?", never "What is the Linux of …?"), and one picked is answered from the
element it was generated from."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from ..helpers_pages import ingested_store
from ..test_examples import DOC
from .conftest import screenshot, wait_for_text
from .test_compare_e2e import MAIN, open_compare

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def watcher_collection(db_url, use_embeddings):
    with ingested_store(db_url, use_embeddings, "e2e_examples", {"watcher.md": DOC}) as store:
        yield store.collection


def test_generated_examples_read_as_questions_and_are_answered_from_their_source(app_url, page,
                                                                                watcher_collection):
    open_compare(page, app_url, watcher_collection)
    picker = page.locator(f"{MAIN} [data-testid='stSelectbox']").filter(has_text="Example questions")
    try:
        picker.wait_for(timeout=90_000)
    finally:
        screenshot(page, "examples_generated")
    picker.click()
    expect(page.get_by_role("option").first).to_contain_text("each answered from its own source")
    options = [o.strip() for o in page.get_by_role("option").all_inner_texts() if o.strip().endswith("?")]
    assert "What does Watcher manual say about Linux?" in options, options
    assert not [o for o in options if re.match(r"What is the \w+ of ", o) or "💼" in o], options
    page.get_by_role("option", name="What does Watcher manual say about Linux?").click()
    expect(page.locator(f"{MAIN} textarea").first).to_have_value("What does Watcher manual say about Linux?")
    page.get_by_role("button", name="Ask").click()
    wait_for_text(page, "What the hierarchy added", timeout=120_000)
    assert "inotify with a polling fallback" in page.locator(MAIN).inner_text()
    screenshot(page, "examples_generated")
