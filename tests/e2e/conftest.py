"""Browser tests: the real app under ``streamlit run``, driven by Playwright in Debian's headless Chromium.

Playwright's own browser download is unreachable here, so the tests use ``/usr/bin/chromium`` and skip with
that reason when it is absent. Screenshots land in ``tests/artifacts/`` for a person to look at; under CI (``CI`` set,
where no one looks at them) none are taken unless ``HKE_SCREENSHOTS=1``: a full-page shot of a tall page is about a
CPU-second of Chromium's.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from ..conftest import ROOT

CHROMIUM = os.environ.get("HKE_CHROMIUM", "/usr/bin/chromium")
ARTIFACTS = ROOT / "tests" / "artifacts"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def streamlit_app() -> Iterator[str]:
    """``streamlit run app.py`` on a free loopback port, sharing the test session's database; yields its URL."""
    port = _free_port()
    log_path = ROOT / "tests" / f".streamlit-{port}.log"
    with open(log_path, "w") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"), "--server.headless", "true",
             "--server.port", str(port), "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false"],
            cwd=ROOT, env=dict(os.environ), stdout=log, stderr=subprocess.STDOUT,
        )
        url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 90
            while not _healthy(url):
                if proc.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"streamlit did not start: see {log_path}")
                time.sleep(0.5)
            yield url
        finally:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                proc.kill()
    log_path.unlink(missing_ok=True)


def _healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
            return r.status == 200
    except OSError:
        return False


@pytest.fixture(scope="session")
def app_url(db_url, browser) -> Iterator[str]:
    """The app under test for the whole session, its first run done: the Overview opened once, so that the
    server's first imports of the pages' modules are paid here, under this long timeout, not inside the first
    test's waits. Tests then open their page's deep link directly."""
    with streamlit_app() as url:
        context = browser.new_context()
        try:
            context.new_page().goto(f"{url}/")
            wait_for_text(context.pages[0], "Hierarchical Knowledge Explorer", timeout=180_000)
        finally:
            context.close()
        yield url


@pytest.fixture(scope="session")
def browser():
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM}: apt-get install chromium to run the browser tests")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture(scope="session")
def browser_context(browser):
    """The session's pages share one context, so the app's scripts and styles come from its cache, compiled once
    (0.6 CPU-s a page load less than a fresh context's). Streamlit keeps a session per tab, not per context: each
    test's page still starts a fresh app session."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    yield context
    context.close()


@pytest.fixture
def page(browser_context):
    """A fresh page that fails the test if any JavaScript dialog (an injected ``alert``) opens; it and any page the
    test opened in its context are closed after the test, and the cookies cleared (servers on other ports get
    none)."""
    context = browser_context
    p = context.new_page()
    dialogs: list[str] = []

    def on_dialog(dialog) -> None:
        dialogs.append(dialog.message)
        dialog.dismiss()

    p.on("dialog", on_dialog)
    p.dialogs = dialogs
    yield p
    for opened in list(context.pages):
        opened.close()
    context.clear_cookies()
    assert not dialogs, f"a dialog opened: {dialogs} (document text ran as code)"


def screenshots_wanted() -> bool:
    wanted = os.environ.get("HKE_SCREENSHOTS", "")
    return wanted == "1" if wanted else not os.environ.get("CI")


def screenshot(page, name: str, *, viewport: dict[str, int] | None = None, settle_ms: int = 0,
               full_page: bool = True) -> Path | None:
    """``tests/artifacts/<name>.png`` (None where none are taken, see above). ``viewport``: the size to show all of a
    page whose main area scrolls inside Streamlit's container; ``settle_ms``: time for the page to redraw first.
    Both apply only when the shot is taken: nothing a test asserts may depend on them."""
    if not screenshots_wanted():
        return None
    if viewport:
        page.set_viewport_size(viewport)
    if settle_ms:
        page.wait_for_timeout(settle_ms)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=full_page)
    return path


def wait_for_text(page, text: str, timeout: float = 60_000) -> None:
    """Streamlit draws over a websocket after load: wait for real content, not the empty frame."""
    page.get_by_text(text, exact=False).first.wait_for(timeout=timeout)


_NEAR_CENTRE = ((4, 4), (0, 0), (6, 0), (0, 6), (6, 6), (8, 2), (2, 8))


def hover_node(frame, mouse, node_id: str, timeout: float = 20.0, starts_with: str | None = None):
    """Move the mouse onto a node of a network page (``frame``: the page or its iframe's frame) until vis.js shows
    the node's tooltip; returns the tooltip's locator.

    The node's place is read again on every try: with physics on, vis.js may still be settling the layout (and
    Streamlit may still be shifting the page) after the first draw, so one reading can point at where the node was.
    With ``starts_with``, a tooltip that does not start with it (an edge's, where one crosses the node) is not the
    node's: the mouse leaves and tries again.
    """
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    tooltip = frame.locator(".vis-tooltip")
    deadline = time.monotonic() + timeout
    # The node is set apart first, below and right of every other node, with the layout stopped: a neighbour
    # drawn over it, or still drifting onto it, took the hover and showed its own tooltip in CI. Its edges then
    # leave it up and to the left, away from the points tried below and right of its centre.
    frame.evaluate(f"""(() => {{
        network.setOptions({{physics: false}});
        const at = Object.values(network.getPositions());
        network.moveNode({node_id!r}, Math.max(...at.map(p => p.x)) + 150, Math.max(...at.map(p => p.y)) + 150);
        network.fit({{animation: false}});
    }})()""")
    for attempt in itertools.count():
        point = frame.evaluate(f"network.canvasToDOM(network.getPositions([{node_id!r}])[{node_id!r}])")
        box = frame.locator("#mynetwork canvas").bounding_box()
        # Each try a little off the centre, in turn: the node's edges all start at its centre, and one lying over
        # it there can take the hover try after try.
        dx, dy = _NEAR_CENTRE[attempt % len(_NEAR_CENTRE)]
        mouse.move(box["x"] + point["x"] + dx, box["y"] + point["y"] + dy)
        mouse.move(box["x"] + point["x"] + dx + 2, box["y"] + point["y"] + dy + 1)
        try:
            tooltip.wait_for(state="visible", timeout=2_000)
            if starts_with is None or tooltip.inner_text().startswith(starts_with):
                return tooltip
            if time.monotonic() > deadline:
                return tooltip  # the caller's assertion says what was shown instead
        except PlaywrightTimeout:
            if time.monotonic() > deadline:
                raise
        mouse.move(box["x"] + 1, box["y"] + 1)  # leave the node so that the next move is a fresh hover
