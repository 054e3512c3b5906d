"""The Compare page in a real browser: ``streamlit run app.py`` driven by Playwright in Debian's headless Chromium.

Asks a sample question and finds both answers on the page; asks about a hostile document and checks that its
``<script>`` is shown as text, that no JavaScript dialog fires (the shared ``page`` fixture fails the test if one
does) and that nothing the document links to is fetched. Screenshots go to tests/artifacts/.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import parse_qs, quote, urlparse

import pytest
from playwright.sync_api import expect

from ..helpers_pages import ingested_store
from ..test_compare_page import HOSTILE
from .conftest import screenshot, screenshots_wanted, wait_for_text

pytestmark = pytest.mark.e2e

MAIN = "[data-testid='stMain']"
ALL_OF_IT = {"width": 1500, "height": 3400}  # the main area scrolls: a viewport this tall shows all of it


@pytest.fixture(scope="module")
def hostile_collection(db_url, use_embeddings):
    with ingested_store(db_url, use_embeddings, "e2e_hostile", {"hostile.md": HOSTILE}) as store:
        yield store.collection


def open_compare(page, app_url: str, collection: str) -> None:
    # The deep link itself: it goes through app.py even as a fresh server's first request (test_shell_e2e.py).
    page.goto(f"{app_url}/compare?collection={collection}")
    wait_for_text(page, "Compare: plain vs hierarchical", timeout=90_000)


def ask(page, question: str, *, open_contexts: bool = True) -> None:
    """Ask in the Compare box and wait for both answers; ``open_contexts`` opens each column's context too (drawing
    them is most of Chromium's work on the page: only for tests that read them)."""
    box = page.locator(f"{MAIN} textarea").first
    box.wait_for(timeout=60_000)
    box.fill(question)
    page.get_by_role("button", name="Ask").click()
    # Wait for content, not for the frame: this section appears once both answers are done.
    wait_for_text(page, "What the hierarchy added", timeout=180_000)
    if not open_contexts:
        return
    for expander in page.locator(f"{MAIN} summary").filter(has_text="Context (").all():
        expander.click()
    page.wait_for_timeout(800)


def new_conversation(page) -> None:
    """Clear the turns in the same tab, so that the next question is asked afresh: a new tab costs Chromium about
    5 CPU-seconds, this one rerun a fraction of that."""
    page.get_by_role("button", name="New conversation").click()
    wait_for_text(page, "Ask a question to see both answers side by side", timeout=60_000)
    # Streamlit keeps the last run's elements on screen (stale) until the new run replaces them.
    expect(page.get_by_text("What the hierarchy added")).to_have_count(0, timeout=60_000)


def _params(page) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlparse(page.url).query).items()}


def test_compare_page_shows_both_answers(app_url, page, samples_store):
    open_compare(page, app_url, "samples")
    box = page.locator(f"{MAIN} textarea").first
    box.wait_for(timeout=90_000)  # the session's first Compare run loads the embedding model before the form
    placeholder = box.get_attribute("placeholder")
    assert placeholder.startswith("e.g. "), f"the placeholder comes from the collection's words: {placeholder}"
    question = "Nova 24FL에는 HDMI 단자가 몇 개 있나요?"
    ask(page, question)
    text = page.locator(MAIN).inner_text()
    assert "Plain" in text and "Hierarchical" in text
    assert text.count("Answered by: extractive (no LLM configured)") == 2
    assert "From 노바 Nova 24FL 60.5cm VA FHD 100Hz 슬림 베젤 사무용 모니터 › 제품사양 › 연결단자" in text
    assert "HDMI : 1개 (HDMI 1.4)" in text
    links = page.locator(f"{MAIN} a[href*='/document_tree?collection=samples&element=']")
    links.nth(7).wait_for(timeout=30_000)  # each column lists its sources with links to the tree
    charts = page.locator(f"{MAIN} .js-plotly-plot")
    charts.nth(1).wait_for(timeout=30_000)  # plotly draws after the text arrives
    assert charts.count() == 2, "a latency chart per column"
    # The hits table shows ranks, not a similarity that may disagree with them (issue 33, item 6).
    grid = page.locator(f"{MAIN} [data-testid='stDataFrame']").first
    grid.locator("[role='columnheader']").first.wait_for(state="attached", timeout=30_000)
    headers = grid.locator("[role='columnheader']").all_text_contents()
    assert "rank" in " ".join(headers) and not any("similarity" in h for h in headers), headers
    # A typed question and its search go into the URL (issue 33, item 3), written by the run after the answer, not
    # always in one URL update.
    expect(page).to_have_url(re.compile(r"^(?=.*[?&]q=)(?=.*[?&]search=)"), timeout=120_000)
    assert _params(page)["q"] == question and _params(page)["search"] == "default", page.url
    screenshot(page, "compare_samples", viewport=ALL_OF_IT, settle_ms=800)


def test_hostile_document_is_shown_as_text_in_the_browser(app_url, page, hostile_collection):
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    open_compare(page, app_url, hostile_collection)
    ask(page, "How heavy is the hostile monitor?")
    text = page.locator(MAIN).inner_text()
    assert "Weight : 9.9 kg <script>alert('weight')</script>" in text, "the tag is visible as text"
    assert "<img src=x onerror=alert(1)>" in text
    page.wait_for_timeout(1000)  # give any injected handler time to fire (the page fixture checks dialogs)
    screenshot(page, "compare_hostile", viewport=ALL_OF_IT, settle_ms=800)
    assert page.locator(f"{MAIN} img[src='x'], {MAIN} script").count() == 0
    assert page.locator("a[href*='127.0.0.1:9']").count() == 0, "a URL in the document became a link"
    assert not [u for u in requests if "127.0.0.1:9/" in u], "something the document links to was fetched"


# New questions on the samples, one of each shape: a comparison (Korean), an English question over a Korean sheet
# whose key names what is asked only in Korean, a superlative naming no product, and a list.
SHAPES_IN_THE_BROWSER = [
    ("Nova 24FL과 Nova 27QX 중 어느 쪽이 더 가벼운가요?", ["Lowest: 노바 Nova 24FL", "2.9 kg", "5.4 kg"],
     "compare_lighter"),
    ("max refresh rate of the 34WC over HDMI", ["최대 주사율: DisplayPort 144Hz, USB-C 100Hz, HDMI 100Hz"],
     "compare_refresh_hdmi"),
    ("Which Nova monitor is the lightest?", ["Lowest: 노바 Nova 24FL", "7.6 kg", "5.4 kg", "8.2 kg"],
     "compare_lightest"),
    ("List the warranty period of the Nova 24FL, Nova 27QX and Nova 34WC.",
     ["보증기간: 1년", "보증기간: 3년 (패널 포함)", "보증기간: 2년"], "compare_list_warranty"),
]


def test_comparisons_superlatives_and_lists_in_the_browser(app_url, page, samples_store):
    """One tab for every shape, each asked afresh (a new conversation): a tab per question cost Chromium about
    5 CPU-seconds more each."""
    open_compare(page, app_url, "samples")
    for n, (question, expected, shot) in enumerate(SHAPES_IN_THE_BROWSER):
        if n:
            new_conversation(page)
        ask(page, question, open_contexts=screenshots_wanted())
        for value in expected:  # each waited for, not a fixed pause: the page may still be drawing its last run
            expect(page.locator(MAIN), f"{shot}: {value}").to_contain_text(value, timeout=30_000)
        text = page.locator(MAIN).inner_text()
        hierarchical = text.split("Hierarchical", 1)[-1].split("What the hierarchy added", 1)[0]
        assert "Not stated for" not in hierarchical, f"{shot}: {hierarchical[:600]}"
        screenshot(page, shot, viewport=ALL_OF_IT, settle_ms=800)


@pytest.fixture(scope="module")
def bridge_collection(db_url, use_embeddings):
    from core.ingest.tiers import sync_tiers

    name = "hanbit-space-institute-overview-ko.md"
    text = (Path(__file__).resolve().parents[2] / "data" / "samples" / name).read_text(encoding="utf-8")
    with ingested_store(db_url, use_embeddings, "e2e_bridge", {name: text}) as store:
        sync_tiers(store)
        yield store.collection


def test_compare_shows_the_statement_path_of_a_bridge_question(app_url, page, bridge_collection):
    # The samples' bridge question (payload → the lab that built it → the lab's head), asked through a link with
    # the statements search: the path that joined the two statements is drawn, each step cited.
    question = "미리내 3호에 실린 레이저 통신 탑재체를 만든 연구실의 실장은 누구예요?"
    page.goto(f"{app_url}/compare?collection={bridge_collection}&q={quote(question)}&search=statements")
    wait_for_text(page, "What the hierarchy added", timeout=180_000)
    main = page.locator(MAIN)
    text = main.inner_text()
    assert "Statement path: 미리내 3호 — 미리내 3호에 탑재된 레이저 통신 탑재체" in text
    assert "→ 광통신연구실 — 실장" in text and "→ 백승우" in text
    cites = main.locator("a[href*='/document_tree?'][href*='&element=']").filter(has_text="e:")
    assert cites.count() >= 2, "each step links to the element stating it"
    screenshot(page, "compare_statement_path", viewport={"width": 1500, "height": 2400}, settle_ms=800)
