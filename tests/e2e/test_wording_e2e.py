"""Words a user reads on the samples (issue 33, item 6): the hits table shows no number that disagrees with its
rank, the search boxes' placeholders come from the collection's own words, MyST roles read as their text, and
"Read at" tells two files of one name apart."""

from __future__ import annotations

import pytest

from ..helpers_pages import ingested_store
from .conftest import screenshot, wait_for_text
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


MYST_DOC = """# {DIR} guide

See {ref}`pip cache <cache-ref>` and {pypi}`keyring` for the {DIR} proxy port.

- proxy port: {PORT}
"""


@pytest.fixture(scope="module")
def same_names_collection(db_url, use_embeddings):
    files = {f"{d}/index.md": MYST_DOC.replace("{DIR}", d).replace("{PORT}", p)
             for d, p in (("alpha", "8080"), ("beta", "9090"))}
    with ingested_store(db_url, use_embeddings, "e2e_wording", files) as store:
        yield store.collection


def test_myst_roles_read_as_text_and_read_at_tells_same_named_files_apart(app_url, page, same_names_collection):
    open_compare(page, app_url, same_names_collection)
    page.locator(f"{MAIN} textarea").first.wait_for(timeout=180_000)  # after the first examples are checked
    ask(page, "What is the proxy port of the alpha and beta guides?")
    text = page.locator(MAIN).inner_text()
    assert "{ref}" not in text and "{pypi}" not in text, "a MyST role shown raw"
    assert "See pip cache and keyring" in text
    read_at = next(line for line in text.splitlines() if line.startswith("Read at:"))
    assert "alpha/index.md" in read_at and "beta/index.md" in read_at, read_at
    screenshot(page, "wording_myst_read_at")



def test_compare_names_no_sample_product_over_another_corpus(app_url, page, same_names_collection):
    open_compare(page, app_url, same_names_collection)
    wait_for_text(page, "Ask a question to see both answers side by side", timeout=120_000)
    line = next(li for li in page.locator(MAIN).inner_text().splitlines() if li.startswith("Conversation"))
    assert "is read against it" in line and "27QX" not in line, line


def test_the_samples_button_says_which_collection_it_fills(app_url, page, same_names_collection):
    page.goto(f"{app_url}/?collection={same_names_collection}")
    wait_for_text(page, "Manage documents", timeout=120_000)
    line = next(li for li in page.locator(MAIN).inner_text().splitlines() if li.startswith("Sample corpus"))
    assert f"into the collection {same_names_collection} beside its documents" in line, line
