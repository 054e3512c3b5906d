"""A freshly started app opened in five tabs at once: every page draws through app.py, none shows a traceback.

Each tab's script runs in its own thread, so the first imports of the pages' modules happen side by side. A module
whose import stopped the script (a rerun requested inside ``views.ui``'s import) left the tabs importing it at the
same moment with a half-made module: ``ImportError: cannot import name 'ui' from 'views'``, 4 times in 4.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from .conftest import screenshot, streamlit_app

pytestmark = pytest.mark.e2e

# A page's path and a title it draws once its script is under way.
PAGES = (
    ("", "Hierarchical Knowledge Explorer"),
    ("document_tree", "Document tree"),
    ("compare", "Compare: plain vs hierarchical"),
    ("reports", "Community reports"),
    ("global_search", "Global search"),
)


def test_five_pages_opened_at_once_on_a_fresh_server_show_no_traceback(browser, samples_store):
    with streamlit_app() as url:
        context = browser.new_context(viewport={"width": 1200, "height": 900})
        try:
            tabs = [context.new_page() for _ in PAGES]
            for tab, (path, _) in zip(tabs, PAGES, strict=True):  # each navigation started, none awaited
                tab.goto(f"{url}/{path}?collection=samples", wait_until="commit")
            for tab, (path, title) in zip(tabs, PAGES, strict=True):
                expect(tab.get_by_role("heading", name=title).first).to_be_visible(timeout=90_000)
                expect(tab.get_by_test_id("stStatusWidget")).to_have_count(0, timeout=90_000)  # the run ended
                expect(tab.get_by_test_id("stSidebarNavLink").first).to_be_visible(timeout=30_000)  # via app.py
                errors = tab.get_by_test_id("stException")
                if errors.count():
                    screenshot(tab, f"cold_start_{path or 'overview'}")
                assert errors.count() == 0, f"/{path}: {errors.first.inner_text()[:600]}"
                text = tab.locator("body").inner_text()
                assert "Traceback" not in text and "ImportError" not in text, f"/{path}"
        finally:
            context.close()
