"""A browser walk of the app, as a new user and a demo presenter would: every page of one or more collections, a
screenshot of each (``bench/out/walk/<collection>-<page>.png``) and the page's text (``.txt``) to read and look at.

Needs the collections ingested (and indexed, for the graph pages) in the database of HKE_DATA_DIR/DATABASE_URL.

Run: HKE_DATA_DIR=DIR .venv/bin/python bench/app_walk.py --collection samples --collection pino \
         [--ask "question" ...]   (each question asked on Compare, in the first collection)
         [--ingest-samples NAME]  (first, as a new user: "Ingest the samples" clicked on the empty collection NAME,
                                   which then comes first among the collections walked)
         [--out DIR]              (default bench/out/walk)
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

from _common import ROOT, start_streamlit

CHROMIUM = os.environ.get("HKE_CHROMIUM", "/usr/bin/chromium")
OUT = ROOT / "bench" / "out" / "walk"
MAIN = "[data-testid='stMain']"
PAGES = [("overview", "", "Hierarchical Knowledge Explorer"), ("tree", "document_tree", "Document tree"),
         ("compare", "compare", "Compare: plain vs hierarchical"), ("evaluation", "evaluation", "Evaluation"),
         ("reports", "reports", "Community reports"), ("graph", "graph_explorer", "Graph explorer"),
         ("global", "global_search", "Global search")]  # fmt: skip


def settle(page) -> None:
    page.wait_for_timeout(500)
    page.locator("[data-testid='stStatusWidget']").wait_for(state="detached", timeout=180_000)
    page.wait_for_timeout(1500)


def shot(page, name: str) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    # Streamlit's main area scrolls inside the window: a window as tall as its content shows all of it.
    tall = page.evaluate("document.querySelector(\"[data-testid='stMain']\").scrollHeight")
    page.set_viewport_size({"width": 1400, "height": min(max(int(tall) + 40, 1000), 6000)})
    page.wait_for_timeout(1200)
    page.screenshot(path=str(OUT / f"{name}.png"))
    page.set_viewport_size({"width": 1400, "height": 1000})
    (OUT / f"{name}.txt").write_text(page.locator(MAIN).inner_text(), encoding="utf-8")
    print(f"  {name}.png")


def ingest_samples(page, url: str, collection: str) -> None:
    """As a new user: the empty collection's Overview, "Ingest the samples", until its job is done."""
    # A link to a collection that does not exist falls back to the default one, so the empty one is made first.
    subprocess.run([sys.executable, "-m", "core", "collections", "--create", collection], cwd=ROOT, check=True,
                   capture_output=True)  # fmt: skip
    page.goto(f"{url}/?collection={collection}")
    page.get_by_text("Hierarchical Knowledge Explorer").first.wait_for()
    settle(page)
    shot(page, f"{collection}-overview-empty")
    started = time.perf_counter()
    page.get_by_role("button", name="Ingest the samples").click()
    page.locator("[data-testid='stSidebar']").get_by_text("done", exact=False).first.wait_for(timeout=900_000)
    print(f"  the samples' ingest job done in {time.perf_counter() - started:.0f} s (load {os.getloadavg()[0]:.1f})")
    page.reload()
    page.get_by_text("Manage documents").first.wait_for()
    settle(page)
    shot(page, f"{collection}-overview-ingested")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--collection", action="append", default=[])
    parser.add_argument("--ask", action="append", default=[])
    parser.add_argument("--pages", default=",".join(p[0] for p in PAGES))
    parser.add_argument("--ingest-samples", default="", metavar="NAME")
    parser.add_argument("--out", default=str(OUT))
    args = parser.parse_args()
    globals()["OUT"] = Path(args.out)
    if args.ingest_samples:
        args.collection.insert(0, args.ingest_samples)
    from playwright.sync_api import sync_playwright

    wanted = set(args.pages.split(","))
    proc, url = start_streamlit("walk")
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True,
                                         args=["--no-sandbox", "--disable-gpu"])  # fmt: skip
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.set_default_timeout(180_000)
            if args.ingest_samples:
                ingest_samples(page, url, args.ingest_samples)
            for collection in args.collection:
                for name, path, title in PAGES:
                    if name not in wanted:
                        continue
                    page.goto(f"{url}/{path}?collection={collection}")
                    page.get_by_text(title).first.wait_for()
                    settle(page)
                    shot(page, f"{collection}-{name}")
            for i, question in enumerate(args.ask):
                page.goto(f"{url}/compare?collection={args.collection[0]}")
                page.get_by_text("Compare: plain vs hierarchical").first.wait_for()
                box = page.locator(f"{MAIN} textarea").first
                box.fill(question)
                page.get_by_role("button", name="Ask").click()
                page.get_by_text("What the hierarchy added").first.wait_for()
                settle(page)
                slug = re.sub(r"[^a-z0-9]+", "-", question.lower()).strip("-")[:40] or f"q{i}"
                shot(page, f"ask-{i:02d}-{slug}")
            browser.close()
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(30)


if __name__ == "__main__":
    main()
