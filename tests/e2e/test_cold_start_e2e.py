"""A freshly started app: its first request a deep link, then five tabs open at once; every page draws through
app.py, none shows a traceback.

The first request a new server sees is a deep link (``/document_tree``): it must still get navigation and its
collection (a fresh server routes it without app.py until ``st.navigation`` first runs, ``views.ui``). The other
tabs start while that first run imports the pages' modules: each tab's script runs in its own thread, so the first
imports happen side by side. A module whose import stopped the script (a rerun requested inside ``views.ui``'s
import) left the tabs importing it at the same moment with a half-made module: ``ImportError: cannot import name
'ui' from 'views'``, 4 times in 4. One server for both checks: each fresh server costs a Streamlit start.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from .conftest import screenshot, streamlit_app

pytestmark = pytest.mark.e2e

MAIN = "[data-testid='stMain']"
SIDEBAR = "[data-testid='stSidebar']"
# A page's path and a title it draws once its script is under way; the deep link first.
DEEP_LINK = ("document_tree", "Document tree")
PAGES = (
    ("", "Hierarchical Knowledge Explorer"),
    ("compare", "Compare: plain vs hierarchical"),
    ("reports", "Community reports"),
    ("global_search", "Global search"),
)


def test_a_deep_link_first_then_five_pages_at_once_on_a_fresh_server(browser, samples_store):
    with streamlit_app() as url:
        context = browser.new_context(viewport={"width": 1200, "height": 900})
        try:
            first = context.new_page()
            # Its websocket open, its script run is the server's first: only then do the other tabs start.
            with first.expect_websocket(timeout=90_000):
                first.goto(f"{url}/{DEEP_LINK[0]}?collection=samples", wait_until="commit")
            tabs = [first] + [context.new_page() for _ in PAGES]
            for tab, (path, _) in zip(tabs[1:], PAGES, strict=True):  # each navigation started, none awaited
                tab.goto(f"{url}/{path}?collection=samples", wait_until="commit")
            for tab, (path, title) in zip(tabs, (DEEP_LINK, *PAGES), strict=True):
                expect(tab.get_by_role("heading", name=title).first).to_be_visible(timeout=90_000)
                expect(tab.get_by_test_id("stStatusWidget")).to_have_count(0, timeout=90_000)  # the run ended
                # through app.py: its sidebar (the collection the link names), not the pages folder's bare one
                expect(tab.locator(SIDEBAR)).to_contain_text("Embeddings:", timeout=30_000)
                expect(tab.get_by_role("combobox", name="Collection")).to_have_value("samples", timeout=30_000)
                errors = tab.get_by_test_id("stException")
                if errors.count():
                    screenshot(tab, f"cold_start_{path or 'overview'}")
                assert errors.count() == 0, f"/{path}: {errors.first.inner_text()[:600]}"
                text = tab.locator("body").inner_text()
                assert "Traceback" not in text and "ImportError" not in text, f"/{path}"

            # The deep link got the app's shell: navigation, the collection picker, the sidebar, its page.
            expect(first.locator(MAIN)).to_contain_text("Search within this document", timeout=60_000)
            assert first.locator('[data-testid="stSidebarNavLink"]').count() >= 3
            expect(first.get_by_role("combobox").first).to_be_visible(timeout=30_000)
            expect(first.locator(SIDEBAR)).to_contain_text("Embeddings:", timeout=30_000)
            screenshot(first, "deep_link_fresh_server")
        finally:
            context.close()
