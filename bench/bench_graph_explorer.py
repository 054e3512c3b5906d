"""The Graph explorer's whole-graph view: how long it takes to draw, against the raw SQL read of the same graph.

For each collection (default: the samples, ~310 entities, ingested and indexed offline in a scratch database; or
``--collection NAME``, repeated, from the database in HKE_DATA_DIR/DATABASE_URL), medians of ``--rounds``:
- ``sql_s``: the raw read, the entity and relationship rows through psycopg (core.sql.graph's statements), no objects;
- ``read_s``: the page's read through core.graph (entities, relationships, entity communities) as objects;
- ``layout_s``: ``core.graph.communities.explore.packed_layout`` clustered by ``layout_clusters`` (computed once
  per index build:
  the page caches it);
- ``html_s``: the canvas page (``views.graph_explorer.explorer_html``, pyvis through our template, vis.js inlined);
- ``browser_s``: headless Chromium loading that page until vis.js has drawn it with its labels;
- ``draw_s`` = read + layout + html + browser: a cold draw, nothing cached;
- ``app_first_s`` / ``app_again_s`` / ``app_click_s``: a fresh ``streamlit run``: from navigating to the Graph
  explorer to the canvas drawn: a new tab first in the process, a new tab again, then from the Overview by the
  sidebar's link (see :func:`app_seconds`; ``*_framed_s``: the part before the canvas' frame was on the page).
Then synthetic graphs of 1,200 and 3,000 entities in 40 communities (no database): layout, html and browser, with the
number of labels drawn at the first zoom and how many of them overlap (0 expected).

Run: .venv/bin/python bench/bench_graph_explorer.py [--rounds 3] [--collection NAME ...] [--no-app]
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import statistics
import time
from pathlib import Path

from _common import SAMPLES, scratch_database, start_streamlit, write_result

CHROMIUM = os.environ.get("HKE_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--disable-quic"]
OVERLAPS = """(() => { const r = window.hkeLabelRects || []; let n = 0;
  for (let i = 0; i < r.length; i++) for (let j = 0; j < i; j++) {
    const a = r[i], b = r[j]; if (a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3]) n++; }
  return n; })()"""


def stores(names: list[str]) -> list:
    from core.embeddings import make_embeddings
    from core.graph import IndexConfig, build_index, index_info
    from core.ingest import ingest_paths
    from core.store import ElementStore

    if not names:
        store = ElementStore(scratch_database(), "bench_graph_samples", make_embeddings("use"))
        assert not ingest_paths(store, [SAMPLES]).errors
        build_index(store, config=IndexConfig(extraction="offline", reports="extractive"))
        return [store]
    if not os.environ.get("DATABASE_URL") and not os.environ.get("HKE_DATA_DIR"):
        raise SystemExit("--collection needs HKE_DATA_DIR or DATABASE_URL: the database that holds it")
    from core.db import database_url

    out = [ElementStore(database_url(), n, make_embeddings("use"), create=False) for n in names]
    for s in out:
        if index_info(s) is None:
            raise SystemExit(f"collection {s.collection} has no index: python -m core index --collection ...")
    return out


def raw_sql_seconds(store) -> float:
    import psycopg

    from core.db.urls import psycopg_conninfo
    from core.sql import graph as sql

    with psycopg.connect(psycopg_conninfo(store.url)) as conn:
        start = time.perf_counter()
        conn.execute(sql.ALL_ENTITIES, (store.collection_id,)).fetchall()
        conn.execute(sql.ALL_RELATIONSHIPS, (store.collection_id,)).fetchall()
        return time.perf_counter() - start


def draw_in_browser(browser, html: str) -> tuple[float, int, int]:
    """Seconds from loading ``html`` to vis.js drawn with its labels; labels drawn; labels overlapping."""
    page = browser.new_page(viewport={"width": 900, "height": 760})
    start = time.perf_counter()
    page.set_content(html, wait_until="load")
    page.wait_for_function("window.hkeLabelled && window.hkeLabelled.length > 0", timeout=120_000)
    seconds = time.perf_counter() - start
    labelled, overlaps = page.evaluate("window.hkeLabelled.length"), page.evaluate(OVERLAPS)
    page.close()
    return seconds, labelled, overlaps


def one_collection(store, browser, rounds: int, save_html: Path | None = None) -> dict:
    from core.graph import communities, entities, relationships
    from core.graph.communities.explore import layout_clusters, packed_layout
    from views.graph_explorer import explorer_html

    runs = []
    for _ in range(rounds):
        sql_s = raw_sql_seconds(store)
        t = time.perf_counter()
        ents, rels, comms = entities(store), relationships(store), communities(store, kind="entity")
        read_s = time.perf_counter() - t
        t = time.perf_counter()
        layout = packed_layout([e.id for e in ents], [(r.source_id, r.target_id, r.weight) for r in rels],
                               layout_clusters(comms), {e.id: e.degree for e in ents})
        layout_s = time.perf_counter() - t
        t = time.perf_counter()
        colour = {e: c.id for c in comms if c.level == 0 for e in c.entity_ids}
        html = explorer_html(ents, rels, layout, group_of=colour, edge_text=False)
        html_s = time.perf_counter() - t
        browser_s, labelled, overlaps = draw_in_browser(browser, html)
        if save_html is not None:
            save_html.mkdir(parents=True, exist_ok=True)
            (save_html / f"{store.collection}.html").write_text(html, encoding="utf-8")
        runs.append({"sql_s": sql_s, "read_s": read_s, "layout_s": layout_s, "html_s": html_s,
                     "browser_s": browser_s, "draw_s": read_s + layout_s + html_s + browser_s,
                     "labelled": labelled, "overlaps": overlaps, "html_mb": len(html) / 1e6})
    median = {k: round(statistics.median(r[k] for r in runs), 3) for k in runs[0]}
    return {"collection": store.collection, "entities": len(ents), "relationships": len(rels), **median}


def synthetic(n: int, browser) -> dict:
    from core.graph.communities.explore import packed_layout
    from core.store.graph_records import Entity, Relationship
    from views.graph_explorer import explorer_html

    rng = random.Random(n)
    ents = [Entity(f"n{i}", i, f"Entity name {i}", "TERM", f"About {i}.", degree=0) for i in range(n)]
    groups = {e.id: f"c{i % 40}" for i, e in enumerate(ents)}
    rels = []
    for i in range(n * 3):
        a = rng.randrange(n)
        b = rng.randrange(n) if i % 5 == 0 else (a + 40 * rng.randrange(1, 6)) % n  # mostly within a community
        if a != b:
            rels.append(Relationship(f"r{i}", i, ents[a].title, ents[b].title, ents[a].id, ents[b].id, "", 1.0))
    for r in rels:
        ents[int(r.source_id[1:])].degree += 1
        ents[int(r.target_id[1:])].degree += 1
    t = time.perf_counter()
    layout = packed_layout([e.id for e in ents], [(r.source_id, r.target_id, 1.0) for r in rels], groups,
                           {e.id: e.degree for e in ents})
    layout_s = time.perf_counter() - t
    t = time.perf_counter()
    html = explorer_html(ents, rels, layout, group_of=groups, edge_text=False)
    html_s = time.perf_counter() - t
    browser_s, labelled, overlaps = draw_in_browser(browser, html)
    return {"entities": n, "relationships": len(rels), "layout_s": round(layout_s, 3), "html_s": round(html_s, 3),
            "browser_s": round(browser_s, 3), "labelled": labelled, "overlaps": overlaps}


def app_seconds(browser, collection: str) -> dict[str, float]:
    """A fresh ``streamlit run``: seconds from navigating to the Graph explorer to its canvas drawn with labels.

    ``first_s``: ``/graph_explorer`` loaded in a new tab, first in the process (its caches cold); ``again_s``: the
    same in another new tab (the process' caches warm); ``click_s``: then, in that tab, from the Overview by the
    sidebar's link, as a user moves between pages (no reload of Streamlit's own page), the second time
    (``click_first_s``: the first, which also waits for the Overview's charts to finish drawing). ``*_framed_s``:
    the part of each before the canvas' frame was on the page (Streamlit's page, the server's run and its
    delivery; the rest is the frame drawing)."""
    proc, url = start_streamlit("bench-graph")

    def drawn(page, start: float, name: str, out: dict[str, float]) -> None:
        page.locator("iframe[title='Entity graph']").wait_for(timeout=120_000)
        out[f"{name}_framed_s"] = round(time.perf_counter() - start, 2)
        frame = page.locator("iframe[title='Entity graph']").element_handle().content_frame()
        frame.wait_for_function("window.hkeLabelled && window.hkeLabelled.length > 0", timeout=120_000)
        out[f"{name}_s"] = round(time.perf_counter() - start, 2)

    try:
        out: dict[str, float] = {}
        for name in ("first", "again"):
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.set_default_timeout(120_000)  # a click waits while the browser is busy drawing the Overview
            page.goto(f"{url}/?collection={collection}")
            page.get_by_text("Hierarchical Knowledge Explorer").first.wait_for(timeout=120_000)
            page.wait_for_load_state("networkidle")
            start = time.perf_counter()
            page.goto(f"{url}/graph_explorer?collection={collection}")
            drawn(page, start, name, out)
            if name == "again":
                # Twice: the first move from the Overview waits for the Overview's own charts (plotly's first
                # drawing in the tab holds the browser for seconds), which is not the explorer's time.
                for click in ("click_first", "click"):
                    page.locator("[data-testid='stSidebarNav']").get_by_text("Overview").click()
                    page.get_by_text("Manage documents").first.wait_for(timeout=120_000)
                    page.locator("[data-testid='stStatusWidget']").wait_for(state="detached", timeout=120_000)
                    start = time.perf_counter()
                    page.locator("[data-testid='stSidebarNav']").get_by_text("Graph explorer").click()
                    drawn(page, start, click, out)
            page.close()
        return out
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--collection", action="append", default=[])
    parser.add_argument("--no-app", action="store_true", help="skip the streamlit round trip")
    parser.add_argument("--save-html", type=Path, default=None, metavar="DIR",
                        help="also write each collection's whole-graph page to DIR/NAME.html (bench_canvas_ab.py)")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    results, scale = [], []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        for store in stores(args.collection):
            row = one_collection(store, browser, args.rounds, args.save_html)
            if not args.no_app:
                row.update({f"app_{k}": v for k, v in app_seconds(browser, store.collection).items()})
            row["load_average"] = round(os.getloadavg()[0], 1)
            results.append(row)
            print(f"{row['collection']}: {row['entities']} entities, {row['relationships']} relationships: raw SQL "
                  f"read {row['sql_s']:.3f} s; drawn cold in {row['draw_s']:.2f} s (read {row['read_s']:.2f}, layout "
                  f"{row['layout_s']:.2f}, html {row['html_s']:.2f}, browser {row['browser_s']:.2f}); "
                  f"{row['labelled']} labels, {row['overlaps']} overlapping"
                  + (f"; in the app {row['app_first_s']:.2f} s first, {row['app_again_s']:.2f} s again, "
                     f"{row['app_click_s']:.2f} s by the sidebar link" if "app_first_s" in row else "")
                  + f" (load {row['load_average']})")
        for n in (1200, 3000):
            s = synthetic(n, browser)
            scale.append(s)
            print(f"synthetic {n} entities, {s['relationships']} relationships: layout {s['layout_s']:.2f} s, html "
                  f"{s['html_s']:.2f} s, browser {s['browser_s']:.2f} s; {s['labelled']} labels, {s['overlaps']} "
                  "overlapping")
        browser.close()
    print(f"wrote {write_result('bench_graph_explorer', {'collections': results, 'synthetic': scale})}")


if __name__ == "__main__":
    main()
