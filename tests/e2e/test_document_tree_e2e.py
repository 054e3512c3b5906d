"""The Document tree in a real browser (issue 33): its document, view and selected element live in the URL both
ways (item 3), and its Source view renders the chosen version as markdown with the element's place marked, the
document's text still text (item 7). Screenshots go to tests/artifacts/."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest
from playwright.sync_api import expect

from ..conftest import ROOT
from ..helpers_pages import ingested_store
from .conftest import screenshot, wait_for_text

pytestmark = pytest.mark.e2e

MAIN = "[data-testid='stMain']"
WIDGET_WARNING = "had its value set via the Session State API"
HOSTILE_DOC = """# Probe guide

Text with <img src=x onerror=alert(1)> and <b>bold tags</b>.

## Settings

- timeout: 30 seconds
- retries: 5

```sh
echo "<script>alert(2)</script>"
```
"""


@pytest.fixture(scope="module")
def probe_collection(db_url, use_embeddings):
    with ingested_store(db_url, use_embeddings, "e2e_tree_probe", {"probe.md": HOSTILE_DOC}) as store:
        yield store


def _params(page) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlparse(page.url).query).items()}


def test_the_tree_s_document_view_and_element_live_in_the_url(app_url, page, samples_store):
    doc = next(d for d in samples_store.documents() if d.filename == "nova-return-warranty-policy-en.md")
    element = next(e for e in samples_store.elements(doc.document_id) if e.category == "ListItem")
    page.goto(f"{app_url}/document_tree?collection=samples&document={doc.document_id}&view=tree"
              f"&element={element.element_id}")
    wait_for_text(page, "Highlighted element", timeout=90_000)
    expect(page.get_by_role("combobox", name="Document")).to_have_value(re.compile(re.escape(doc.filename)))
    # A link from a citation names only the element: its document opens, and the URL says which.
    page.goto(f"{app_url}/document_tree?collection=samples&element={element.element_id}")
    wait_for_text(page, "Highlighted element", timeout=90_000)
    expect(page).to_have_url(re.compile(rf"document={doc.document_id}"), timeout=30_000)

    # Picking another element writes it; picking the Source view writes it; a reload keeps both.
    other = next(e for e in samples_store.elements(doc.document_id) if e.category == "Title" and e.category_depth)
    page.get_by_role("combobox", name="Selected element").click()
    page.get_by_role("option", name=re.compile(re.escape(other.text[:40]))).first.click()
    expect(page).to_have_url(re.compile(rf"element={other.element_id}"), timeout=30_000)
    page.locator(f"{MAIN} label").filter(has_text="Source").first.click()
    expect(page).to_have_url(re.compile(r"view=source"), timeout=30_000)
    page.reload()
    wait_for_text(page, "The selected element is marked below", timeout=90_000)
    assert _params(page)["element"] == other.element_id and _params(page)["document"] == doc.document_id
    marked = page.locator(".st-key-source_selected")
    expect(marked).to_contain_text(other.text)
    screenshot(page, "tree_url_state_source")

    port = urlparse(app_url).port
    log = Path(ROOT / "tests" / f".streamlit-{port}.log").read_text(encoding="utf-8", errors="replace")
    assert WIDGET_WARNING not in log


def test_the_source_view_renders_the_version_with_the_element_marked_and_text_as_text(app_url, page,
                                                                                       probe_collection):
    item = next(e for e in probe_collection.elements(probe_collection.documents()[0].document_id)
                if e.text.startswith("retries"))
    page.goto(f"{app_url}/document_tree?collection={probe_collection.collection}&view=source"
              f"&element={item.element_id}")
    wait_for_text(page, "The selected element is marked below", timeout=90_000)
    main = page.locator(MAIN)
    expect(main.get_by_role("heading", name="Settings")).to_be_visible()  # markdown rendered: a heading
    expect(page.locator(".st-key-source_selected")).to_contain_text("retries: 5")
    assert "lines 8–8 of the file" in main.inner_text()
    # The document's HTML is shown as text, never as markup.
    expect(main.locator("[data-testid='stMarkdownContainer'] p").filter(has_text="<img src=x onerror=alert(1)>")
           ).to_be_visible()
    assert main.locator("img[src='x'], b:text('bold tags')").count() == 0
    page.get_by_text("The file as ingested", exact=False).click()
    expect(main.locator("[data-testid='stCode']").last).to_contain_text('echo "<script>alert(2)</script>"')
    screenshot(page, "tree_source_view")
