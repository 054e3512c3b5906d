"""The home page and the Document tree render the sample corpus in a real browser (a deep link as a fresh server's
first request: test_cold_start_e2e.py)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from .conftest import screenshot, wait_for_text

pytestmark = pytest.mark.e2e


def test_home_and_tree_render_the_samples(app_url, page, samples_store):
    page.goto(f"{app_url}/?collection=samples")
    wait_for_text(page, "Elements by category and depth")
    wait_for_text(page, "Documents")
    page.locator(".js-plotly-plot").first.wait_for(timeout=30_000)  # plotly draws after the text arrives
    screenshot(page, "home")

    # The tree through the sidebar: a page switch in the tab, which keeps the collection.
    page.locator("[data-testid='stSidebarNavLink']").filter(has_text="Document tree").click()
    wait_for_text(page, "Search within this document")
    frame = page.frame_locator("iframe").first
    frame.locator("details").first.wait_for(timeout=30_000)
    assert frame.locator(".badge").count() > 10
    screenshot(page, "document_tree")


def test_tree_highlights_a_cited_element(app_url, page, samples_store):
    doc = next(d for d in samples_store.documents() if d.filename == "nova-27qx-monitor-ko.md")
    target = next(e for e in samples_store.elements(doc.document_id)
                  if e.metadata["category"] == "ListItem" and e.page_content.startswith("무게"))
    element_id = target.metadata["element_id"]
    page.goto(f"{app_url}/document_tree?collection=samples&element={element_id}")
    wait_for_text(page, "Highlighted element")
    hit = page.frame_locator("iframe").first.locator(".hit")
    hit.wait_for(timeout=30_000)
    assert hit.inner_text().startswith("ListItem") and target.page_content in hit.inner_text()
    expect(page.get_by_text("Search within this document")).to_be_visible(timeout=30_000)
    screenshot(page, "document_tree_highlight")

