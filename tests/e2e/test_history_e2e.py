"""The Document tree's History view and "As of" picker in a real browser (``streamlit run app.py``, Playwright,
Debian's headless Chromium).

The English legal corpus v1..v4 (data/versions/legal, dates from their front matter) and a fifth version whose
edited line carries an ``<img onerror>``, ``**bold**`` and a ``javascript:`` link are ingested as one document. The
test opens History, moves the version slider with the keyboard, finds the marks and the word diff in the tree's
frame, checks the hostile edit is text (no element, no dialog: the ``page`` fixture fails on one), and turns the
"As of" picker to a date that shows the older text. Screenshots go to tests/artifacts/.
"""

from __future__ import annotations

import uuid

import pytest

from core.ingest import SourceFile, ingest
from core.store import ElementStore

from ..conftest import ROOT
from .conftest import screenshot, wait_for_text

pytestmark = pytest.mark.e2e

MAIN = "[data-testid='stMain']"
LEGAL = ROOT / "data" / "versions" / "legal" / "en"
NAME = "library-ordinance.md"
HOSTILE = "<img src=x onerror=alert(1)> **bold** [link](javascript:alert(1))"


def fifth_version() -> str:
    v4 = (LEGAL / "library-ordinance-v4.md").read_text("utf-8")
    edited = v4.replace("effective: 2024-09-01", "effective: 2025-01-01").replace(
        "disturbed the order of the library", f"disturbed the order of the library {HOSTILE}")
    assert edited.count(HOSTILE) == 1
    return edited


@pytest.fixture(scope="module")
def legal_collection(db_url, use_embeddings):
    store = ElementStore(db_url, f"e2e_legal_{uuid.uuid4().hex[:8]}", use_embeddings)
    try:
        texts = [(LEGAL / f"library-ordinance-v{n}.md").read_text("utf-8") for n in range(1, 5)]
        for text in [*texts, fifth_version()]:
            assert not ingest(store, [SourceFile(NAME, text.encode())]).errors
        yield store.collection
    finally:
        store.drop()


def open_tree(page, app_url: str, collection: str) -> None:
    page.goto(f"{app_url}/document_tree?collection={collection}")
    wait_for_text(page, "Search within this document", timeout=90_000)


def frame_text(page, title_part: str, expected: str) -> str:
    """The text of the tree frame whose title contains ``title_part``, once it shows ``expected``."""
    frame = page.frame_locator(f"iframe[title*='{title_part}']")
    frame.get_by_text(expected, exact=False).first.wait_for(timeout=60_000)
    return frame.locator("body").inner_text()


def test_history_view_marks_changes_and_the_as_of_picker_shows_older_text(app_url, page, legal_collection):
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    open_tree(page, app_url, legal_collection)
    page.get_by_text("History", exact=True).click()
    wait_for_text(page, "Valid-from date from the front matter")

    # The latest version (v5): the hostile words are an insertion, shown as text.
    text = frame_text(page, "v5 · 2025-01-01", "modified")
    assert HOSTILE.replace("**bold**", "bold") in text, text  # the parser takes emphasis markers off, no more
    frame = page.frame_locator("iframe[title*='v5 · 2025-01-01']")
    assert frame.locator("img, a, script").count() == 0, "document text became markup"
    assert frame.locator("ins").filter(has_text="onerror").count() == 1
    screenshot(page, "history_hostile", viewport={"width": 1400, "height": 1400})

    # Three steps back: v2, whose changes since v1 are two edits and an added item.
    slider = page.locator(f"{MAIN} [data-testid='stSlider'] input[type='range']").first
    for step in ("v4 · 2024-09-01", "v3 · 2023-03-01", "v2 · 2021-07-01"):
        slider.focus()
        slider.press("ArrowLeft")
        page.locator(f"iframe[title*='{step}']").wait_for(timeout=60_000)
    text = frame_text(page, "v2 · 2021-07-01", "e-books: three per person")
    frame = page.frame_locator("iframe[title*='v2 · 2021-07-01']")
    assert frame.locator("del").filter(has_text="three").count() == 1
    assert frame.locator("ins").filter(has_text="six").count() == 1
    assert frame.locator("del").filter(has_text="14").count() == 1 and frame.locator("ins", has_text="21").count() == 1
    assert frame.locator(".change-added").count() == 1 and frame.locator(".change-modified").count() == 2
    assert "Since v1 · 2020-01-01: 1 added · 0 removed · 2 modified · 0 moved · 0 renamed." in \
        page.locator(MAIN).inner_text()
    screenshot(page, "history_v2", settle_ms=500)

    # The Tree view as of 2021-06-30: version 1's text.
    page.get_by_text("Tree", exact=True).click()
    wait_for_text(page, "Search within this document")
    page.get_by_text("As of a date").click()
    box = page.locator(f"{MAIN} [data-testid='stDateInput'] input").first
    box.wait_for(timeout=30_000)
    box.fill("2021-06-30")
    box.press("Enter")
    page.locator(f"{MAIN} h1").first.click()  # close the calendar
    wait_for_text(page, "Version v1 · 2020-01-01, in force at the end of 2021-06-30")
    text = frame_text(page, "Element tree", "The loan period is 14 days.")
    assert "21 days" not in text and "e-books" not in text
    page.wait_for_timeout(500)
    screenshot(page, "history_as_of")
    assert not [u for u in requests if "javascript:" in u or u.endswith("/x")], requests
