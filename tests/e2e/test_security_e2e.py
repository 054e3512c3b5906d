"""Typed and linked text in a real browser (``streamlit run app.py``, Playwright, Debian's headless Chromium):
markdown typed into a search box is shown as text and fetches nothing (every request is watched and must stay on
the app's loopback host), an unknown collection in a link is said, and the document tree runs in a frame
sandboxed with ``allow-scripts`` only (an opaque origin that cannot reach the app)."""

from __future__ import annotations

from urllib.parse import urlparse

import pytest

from .conftest import screenshot, wait_for_text

pytestmark = pytest.mark.e2e

MAIN = "[data-testid='stMain']"
TYPED = "![x](http://198.51.100.7/pixel.png) [log in](https://phish.example/login) <img src=http://198.51.100.8/i.png>"
LOCAL_HOSTS = {"127.0.0.1", "localhost"}


def _outside(urls: list[str]) -> list[str]:
    """Requests that left the app's host (data:, blob: and about: never leave the browser)."""
    return [u for u in urls if urlparse(u).scheme in ("http", "https", "ws", "wss")
            and urlparse(u).hostname not in LOCAL_HOSTS]  # fmt: skip


def _open(page, app_url: str, path: str, text: str) -> None:
    page.goto(f"{app_url}{path}")
    wait_for_text(page, text, timeout=90_000)


def test_the_tree_frame_is_sandboxed_and_markdown_typed_in_its_search_is_text(page, app_url, samples_store):
    """One tab: the tree's frame first, then a search typed on the same page."""
    requests: list[str] = []
    messages: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.on("console", lambda m: messages.append(m.text))
    _open(page, app_url, "/document_tree?collection=samples", "Search within this document")

    # The tree runs in a frame sandboxed with allow-scripts only: an opaque origin that cannot reach the app.
    frame_element = page.locator(f"{MAIN} iframe[title^='Element tree']").first
    frame_element.wait_for(timeout=60_000)
    assert frame_element.get_attribute("sandbox") == "allow-scripts"
    frame = frame_element.element_handle().content_frame()
    frame.locator("body").get_by_text("Title", exact=False).first.wait_for(timeout=30_000)  # the tree is drawn
    assert frame.evaluate("String(window.origin)") == "null", "an opaque origin: no cookies, storage or app access"
    blocked = frame.evaluate("(() => { try { return window.parent.document.title; } catch (e) { return e.name; } })()")
    assert blocked == "SecurityError"
    assert not [m for m in messages if "allow-same-origin" in m], messages
    screenshot(page, "tree-sandboxed")

    # The search box's placeholder comes from the collection's own words (issue 33, item 6).
    box = page.get_by_label("Search within this document")
    placeholder = box.get_attribute("placeholder")
    assert placeholder.startswith("e.g. ") and "무게, warranty, HDMI" not in placeholder, placeholder

    # Markdown typed into the search is shown as text and fetches nothing.
    box.fill(TYPED)
    box.press("Enter")
    warning = page.locator(MAIN).get_by_text("Nothing in this document contains", exact=False).first
    warning.wait_for(timeout=60_000)
    page.wait_for_timeout(2_000)  # time for an image the page might have made to be requested
    screenshot(page, "tree-typed-markdown")
    assert len(requests) > 5, "the watcher saw the page load"
    assert _outside(requests) == [], _outside(requests)
    shown = warning.inner_text().replace("\u2060", "")  # the word joiner that keeps URLs from autolinking
    assert "![x](http://198.51.100.7/pixel.png)" in shown and "<img src=" in shown, "the user sees what they typed"
    assert page.locator(f"{MAIN} img[src*='198.51.100'], {MAIN} a[href*='phish.example']").count() == 0


def test_an_unknown_collection_in_a_link_is_said(page, app_url, samples_store):
    _open(page, app_url, "/document_tree?collection=no_such_collection", "Document tree")
    wait_for_text(page, "which does not exist", timeout=60_000)
    text = page.locator(MAIN).inner_text()
    assert "The link names collection no_such_collection, which does not exist" in text
