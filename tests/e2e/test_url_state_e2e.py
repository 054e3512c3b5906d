"""The view lives in the URL, both ways (issue 33, item 3): a link reproduces it, a reload keeps it, and the
server logs no widget-key warning for a deep link. A question typed on Compare going into the URL is checked after
the first question of test_compare_e2e.py, the tree's document, view and element in test_document_tree_e2e.py."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import parse_qs, quote, urlparse

from playwright.sync_api import expect

from ..conftest import ROOT
from .conftest import wait_for_text
from .test_compare_e2e import MAIN

QUESTION = "Nova 24FL 모니터의 무게는 얼마인가요?"
WIDGET_WARNING = "had its value set via the Session State API"


def _params(page) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlparse(page.url).query).items()}


def test_collection_question_and_search_live_in_the_url(app_url, page, samples_store):
    # A link asks its question with its search, as if typed.
    page.goto(f"{app_url}/compare?collection=samples&q={quote(QUESTION)}&search=hybrid")
    wait_for_text(page, "What the hierarchy added", timeout=180_000)
    # after the answer the page writes the URL and runs again: the box is back once that run has drawn it
    expect(page.locator(f"{MAIN} textarea").first).to_have_value(QUESTION, timeout=60_000)
    # the page writes back the search it ran: "hybrid" only if the link's search was applied
    assert _params(page)["search"] == "hybrid" and _params(page)["q"] == QUESTION

    # Picking a collection in the sidebar writes it; a reload keeps it. The Overview is reached through the sidebar:
    # a page switch in the same tab, not a new one.
    page.locator("[data-testid='stSidebarNavLink']").filter(has_text="Overview").click()
    wait_for_text(page, "Elements by category and depth", timeout=90_000)
    page.locator("[data-testid='stSidebar'] [data-testid='stSelectbox']").filter(has_text="Collection").click()
    page.get_by_role("option", name=re.compile(r"^default$")).click()
    expect(page).to_have_url(re.compile(r"[?&]collection=default\b"), timeout=30_000)
    page.reload()
    expect(page.get_by_role("combobox", name="Collection")).to_have_value("default", timeout=60_000)
    assert _params(page)["collection"] == "default"

    port = urlparse(app_url).port
    log = Path(ROOT / "tests" / f".streamlit-{port}.log").read_text(encoding="utf-8", errors="replace")
    assert WIDGET_WARNING not in log
