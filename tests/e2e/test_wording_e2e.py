"""Words a user reads on the samples (issue 33, item 6): the hits table shows no number that disagrees with its
rank, and the search boxes' placeholders come from the collection's own words."""

from __future__ import annotations

from .conftest import wait_for_text
from .test_compare_e2e import MAIN, ask, open_compare


def test_hits_table_and_placeholders_speak_of_this_collection(app_url, page, samples_store):
    open_compare(page, app_url, "samples")
    box = page.locator(f"{MAIN} textarea").first
    box.wait_for(timeout=60_000)
    placeholder = box.get_attribute("placeholder")
    assert placeholder.startswith("e.g. "), placeholder
    ask(page, "Nova 24FL 모니터의 무게는 얼마인가요?")
    grid = page.locator(f"{MAIN} [data-testid='stDataFrame']").first
    grid.locator("[role='columnheader']").first.wait_for(state="attached", timeout=30_000)
    headers = grid.locator("[role='columnheader']").all_text_contents()
    assert "rank" in " ".join(headers) and not any("similarity" in h for h in headers), headers

    page.goto(f"{app_url}/document_tree?collection=samples")
    wait_for_text(page, "Search within this document", timeout=90_000)
    search = page.get_by_label("Search within this document")
    tree_placeholder = search.get_attribute("placeholder")
    assert tree_placeholder.startswith("e.g. ") and "무게, warranty, HDMI" not in tree_placeholder, tree_placeholder
