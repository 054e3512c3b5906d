"""Words a user reads (issue 33, item 6): MyST roles read as their text, "Read at" tells two files of one name apart,
and neither the Compare page nor the Overview names the samples over another collection. The hits table's ranks and
the Compare box's placeholder are checked in test_compare_e2e.py, the tree's placeholder in test_security_e2e.py,
on tabs those tests open anyway."""

from __future__ import annotations

import pytest

from ..helpers_pages import ingested_store
from .conftest import screenshot, wait_for_text
from .test_compare_e2e import MAIN, ask, open_compare

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
    """One tab: the Compare page before and after its question, then the Overview through the sidebar (a page
    switch in the tab, not a new one)."""
    open_compare(page, app_url, same_names_collection)
    # Before any question: the conversation's caption names no sample product over another corpus.
    wait_for_text(page, "Ask a question to see both answers side by side", timeout=180_000)
    # the caption may come after the empty state in the same run of the page (a loaded machine shows it between)
    wait_for_text(page, "is read against it", timeout=60_000)
    line = next(li for li in page.locator(MAIN).inner_text().splitlines() if li.startswith("Conversation"))
    assert "is read against it" in line and "27QX" not in line, line

    page.locator(f"{MAIN} textarea").first.wait_for(timeout=180_000)  # after the first examples are checked
    ask(page, "What is the proxy port of the alpha and beta guides?")
    text = page.locator(MAIN).inner_text()
    assert "{ref}" not in text and "{pypi}" not in text, "a MyST role shown raw"
    assert "See pip cache and keyring" in text
    read_at = next(line for line in text.splitlines() if line.startswith("Read at:"))
    assert "alpha/index.md" in read_at and "beta/index.md" in read_at, read_at
    screenshot(page, "wording_myst_read_at")

    # The samples button says which collection it fills (the sidebar keeps the collection across pages).
    page.locator("[data-testid='stSidebarNavLink']").filter(has_text="Overview").click()
    wait_for_text(page, "Manage documents", timeout=120_000)
    line = next(li for li in page.locator(MAIN).inner_text().splitlines() if li.startswith("Sample corpus"))
    assert f"into the collection {same_names_collection} beside its documents" in line, line
