"""The largest report's first open in a fresh app process, in headless Chromium, and where its time goes.

The corpus is the Python-Markdown + pymdown-extensions docs (~1 MB, ~4,800 elements, fetched through pip), indexed
offline. For each round a fresh ``streamlit run app.py`` starts; the browser opens the app's root (the Overview page,
as a user does first), then the Reports page's link to the largest community. Timed, from that navigation to the
report's findings on screen, to its network drawn (vis.js' canvas in the component iframe, our labels applied;
watched in the frame itself, which Chromium runs in its own process) and to its hierarchy sunburst drawn (plotly's
sectors on screen; a tab's first run draws it in the rerun that the network's frame asks for once loaded, so that
plotly's first chart does not hold the findings and the network back):
- ``first``: the first open in the fresh process;
- ``again``: the same link opened again in the same process, in a new browser tab: what is left once the process
  has imported the page's modules and Streamlit has compiled the page (its caches are per session, so a new tab
  shares none of them);
- ``imports``: importing the page's modules (views.reports, views.report_parts, views.network, views.hierarchy,
  core.graph) in a fresh interpreter, without Streamlit running.
``--rounds`` fresh processes; medians are reported, and the load average beside them.

Run: .venv/bin/python bench/bench_report_open.py [--rounds 3] [--collection NAME]
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from pathlib import Path

from _common import ROOT, ensure_corpora, scratch_database, write_result

CHROMIUM = os.environ.get("HKE_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--disable-quic"]


def indexed_collection(name: str | None) -> tuple[str, str]:
    """(collection, largest community id) of an indexed collection: ``name``'s, or a fresh one of the corpus."""
    from core.embeddings import make_embeddings
    from core.graph import IndexConfig, build_index, index_info
    from core.graph.read import communities
    from core.ingest import ingest_paths
    from core.store import ElementStore

    if name is None:
        url = scratch_database()
    else:
        from core.db import database_url

        url = database_url()
    collection = name or f"bench_open_{uuid.uuid4().hex[:6]}"
    store = ElementStore(url, collection, make_embeddings("use"), create=name is None)
    if name is None:
        report = ingest_paths(store, [ensure_corpora()], batch_size=64)
        assert not report.errors, report.errors
    if index_info(store) is None:
        build_index(store, config=IndexConfig(extraction="offline", reports="extractive"))
    largest = max(communities(store), key=lambda c: (c.size, c.kind == "entity"))
    print(f"collection {collection}: largest community {largest.id} ({largest.kind}, {largest.size} members)")
    return collection, largest.id


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_app(log_path: Path, warm: bool) -> tuple[subprocess.Popen, str]:
    port = free_port()
    env = {**os.environ, "HKE_WARM_PAGES": "1" if warm else "0"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"), "--server.headless", "true",
         "--server.port", str(port), "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false"],
        cwd=ROOT, env=env, stdout=log_path.open("w"), stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2):
                return proc, url
        except OSError:
            time.sleep(0.2)
    proc.kill()
    raise SystemExit(f"streamlit did not start: {log_path}")


def import_seconds() -> float:
    code = ("import time; t = time.perf_counter(); import core.graph, views.reports, views.report_parts, "
            "views.network, views.hierarchy; print(time.perf_counter() - t)")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    return round(float(out.stdout.strip().splitlines()[-1]), 2)


def network_frame(page):
    """The network's sandboxed frame (the Reports page's one ``srcdoc`` frame), found in Playwright's list of frames
    rather than through the page's DOM: a DOM query waits for the page's main thread, which the sunburst's first
    plotly chart holds for about a second, and would time that instead of the network."""
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        for frame in page.frames:
            if frame.parent_frame == page.main_frame and frame.url == "about:srcdoc":
                return frame
        page.wait_for_timeout(20)
    raise TimeoutError("no network frame")


def open_report(browser, url: str, collection: str, community: str) -> tuple[float, float, float]:
    """Seconds to the findings, to the network drawn and to the sunburst drawn, from navigating to the report's
    link."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.goto(f"{url}/?collection={collection}")
    page.get_by_text("Hierarchical Knowledge Explorer").first.wait_for(timeout=90_000)
    page.wait_for_load_state("networkidle")
    start = time.perf_counter()
    page.goto(f"{url}/reports?collection={collection}&community={community}")
    page.get_by_text("Findings (").first.wait_for(timeout=90_000)
    findings = time.perf_counter() - start
    network_frame(page).wait_for_function("document.body !== null && document.body.dataset.hkeReady === '1'",
                                          timeout=90_000)
    drawn = time.perf_counter() - start
    page.locator("[data-testid='stMain'] .js-plotly-plot g.slice").first.wait_for(timeout=90_000)
    chart = time.perf_counter() - start
    title = network_frame(page).frame_element().get_attribute("title") or ""
    assert title.startswith("Network of community"), title
    context.close()
    return round(findings, 2), round(drawn, 2), round(chart, 2)


def one_round(browser, collection: str, community: str, log_path: Path, warm: bool) -> dict[str, float]:
    proc, url = start_app(log_path, warm)
    try:
        first_findings, first_drawn, first_chart = open_report(browser, url, collection, community)
        again_findings, again_drawn, again_chart = open_report(browser, url, collection, community)
        return {"first_findings_s": first_findings, "first_drawn_s": first_drawn, "first_chart_s": first_chart,
                "again_findings_s": again_findings, "again_drawn_s": again_drawn, "again_chart_s": again_chart}
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--collection", help="an indexed collection of the database in HKE_DATA_DIR/DATABASE_URL")
    args = parser.parse_args()
    if args.collection and not os.environ.get("DATABASE_URL") and not os.environ.get("HKE_DATA_DIR"):
        raise SystemExit("--collection needs HKE_DATA_DIR or DATABASE_URL: the database that holds it")
    collection, community = indexed_collection(args.collection)

    from playwright.sync_api import sync_playwright

    rounds = []
    log_dir = Path(tempfile.mkdtemp(prefix="hke-bench-open-"))
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        for r in range(args.rounds):
            for warm in (True, False):  # alternated, so that a drift in the machine's load hits both alike
                result = one_round(browser, collection, community, log_dir / f"streamlit-{r}.log", warm)
                result.update(warm_pages=warm, load_average=round(os.getloadavg()[0], 2))
                rounds.append(result)
                print(f"round {r + 1}: {result}")
        browser.close()
    imports = statistics.median(import_seconds() for _ in range(3))
    median = {}
    for warm in (True, False):
        mine = [r for r in rounds if r["warm_pages"] is warm]
        median[warm] = m = {key: statistics.median(r[key] for r in mine) for key in mine[0] if key.endswith("_s")}
        print(f"largest report, HKE_WARM_PAGES={int(warm)}, median of {args.rounds} fresh app processes: first open "
              f"{m['first_findings_s']:.2f} s to the findings, {m['first_drawn_s']:.2f} s to the network drawn "
              f"(target < 3 s), {m['first_chart_s']:.2f} s to the sunburst; opened again in the same process "
              f"{m['again_findings_s']:.2f} / {m['again_drawn_s']:.2f} / {m['again_chart_s']:.2f} s")
    print(f"the page's imports in a fresh interpreter: {imports:.2f} s")
    payload = {"community": community, "rounds": rounds, "imports_s": imports,
               "median": {f"warm_pages={int(k)}": v for k, v in median.items()}}
    print(f"wrote {write_result('bench_report_open', payload)}")


if __name__ == "__main__":
    main()
