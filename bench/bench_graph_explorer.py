"""The Graph explorer's whole-graph view: how long it takes to draw, against the raw SQL read of the same graph.

For each collection (default: the samples, ~310 entities, and pino's docs from bench/corpora, ~500 entities, each
ingested and indexed offline in a scratch database; ``--corpus NAME`` picks other folders of bench/corpora; or
``--collection NAME``, repeated, from the database in HKE_DATA_DIR/DATABASE_URL), medians of ``--rounds``:
- ``sql_s``: the raw read, the entity and relationship rows through psycopg (core.sql.graph's statements), no objects;
- ``read_s``: the page's read through core.graph (entities, relationships, entity communities) as objects;
- ``layout_s``: ``core.graph.communities.explore.packed_layout`` clustered by ``layout_clusters`` (computed once
  per index build:
  the page caches it);
- ``html_s``: the canvas page (``views.graph_explorer.explorer_html``, pyvis through our template, vis.js inlined);
- ``browser_s``: headless Chromium loading that page until vis.js has drawn it with its labels (``browser_cpu_s``:
  the CPU seconds Chromium's processes spent on it, which the machine's load does not inflate);
- ``draw_s`` = read + layout + html + browser: a cold draw, nothing cached;
- ``app_first_s`` / ``app_again_s`` / ``app_click_s``: a fresh ``streamlit run``: from navigating to the Graph
  explorer to the canvas drawn: a new tab first in the process, a new tab again, then from the Overview by the
  sidebar's link (see :func:`app_seconds`; ``*_framed_s``: the part before the canvas' frame was on the page).
  The sidebar move is repeated ``--reps`` times; each is listed with the load average beside it and the CPU seconds
  the app's server and Chromium spent on it (``app_clicks``), and their medians are ``app_click_*``.
Then synthetic graphs of 1,200 and 3,000 entities in 40 communities (no database): layout, html and browser, with the
number of labels drawn at the first zoom and how many of them overlap (0 expected).

The machine's load average (``uptime``) is printed beside every figure: on a shared machine wall times are upper
bounds, and the CPU seconds are what an idle one would need.

Run: .venv/bin/python bench/bench_graph_explorer.py [--rounds 3] [--reps 5] [--corpus NAME ...]
     [--collection NAME ...] [--no-app] [--no-synthetic]
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import statistics
import time
from pathlib import Path

from _common import CORPORA, SAMPLES, scratch_database, start_streamlit, write_result

CHROMIUM = os.environ.get("HKE_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--disable-quic"]
OVERLAPS = """(() => { const r = window.hkeLabelRects || []; let n = 0;
  for (let i = 0; i < r.length; i++) for (let j = 0; j < i; j++) {
    const a = r[i], b = r[j]; if (a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3]) n++; }
  return n; })()"""


DEFAULT_CORPORA = ["samples", "pino"]


def load() -> float:
    return round(os.getloadavg()[0], 1)


def cpu_seconds(processes: list) -> float:
    """User + system CPU seconds of ``processes`` so far (those gone since count nothing)."""
    import psutil

    total = 0.0
    for p in processes:
        try:
            times = p.cpu_times()
            total += times.user + times.system
        except psutil.Error:
            pass
    return total


def browser_processes() -> list:
    """Chromium's processes (Playwright's children's children): their CPU is the browser's work."""
    import psutil

    return [p for p in psutil.Process().children(recursive=True) if "chrom" in p.name().lower()]


def stores(names: list[str], corpora: list[str]) -> list:
    from core.embeddings import make_embeddings
    from core.graph import IndexConfig, build_index, index_info
    from core.ingest import ingest_paths
    from core.store import ElementStore

    if not names:
        url, out = scratch_database(), []
        for corpus in corpora or DEFAULT_CORPORA:
            folder = SAMPLES if corpus == "samples" else CORPORA / corpus
            if not folder.is_dir():
                raise SystemExit(f"no corpus {corpus}: bench/fetch_corpora.py --corpus {corpus} fetches it")
            store = ElementStore(url, f"bench_graph_{corpus.replace('-', '_')}", make_embeddings("use"))
            t = time.perf_counter()
            assert not ingest_paths(store, [folder]).errors
            build_index(store, config=IndexConfig(extraction="offline", reports="extractive"))
            print(f"{corpus}: ingested and indexed offline in {time.perf_counter() - t:.0f} s (load {load()})")
            out.append(store)
        return out
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


def draw_in_browser(browser, html: str) -> tuple[float, float, int, int]:
    """Seconds from loading ``html`` to vis.js drawn with its labels; Chromium's CPU seconds over that; labels
    drawn; labels overlapping."""
    page = browser.new_page(viewport={"width": 900, "height": 760})
    chromium = browser_processes()
    cpu, start = cpu_seconds(chromium), time.perf_counter()
    page.set_content(html, wait_until="load")
    page.wait_for_function("window.hkeLabelled && window.hkeLabelled.length > 0", timeout=120_000)
    seconds, cpu = time.perf_counter() - start, cpu_seconds(chromium) - cpu
    labelled, overlaps = page.evaluate("window.hkeLabelled.length"), page.evaluate(OVERLAPS)
    page.close()
    return seconds, cpu, labelled, overlaps


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
        t, cpu = time.perf_counter(), time.process_time()
        layout = packed_layout([e.id for e in ents], [(r.source_id, r.target_id, r.weight) for r in rels],
                               layout_clusters(comms), {e.id: e.degree for e in ents})
        layout_s, layout_cpu_s = time.perf_counter() - t, time.process_time() - cpu
        t, cpu = time.perf_counter(), time.process_time()
        colour = {e: c.id for c in comms if c.level == 0 for e in c.entity_ids}
        html = explorer_html(ents, rels, layout, group_of=colour, edge_text=False)
        html_s, html_cpu_s = time.perf_counter() - t, time.process_time() - cpu
        browser_s, browser_cpu_s, labelled, overlaps = draw_in_browser(browser, html)
        if save_html is not None:
            save_html.mkdir(parents=True, exist_ok=True)
            (save_html / f"{store.collection}.html").write_text(html, encoding="utf-8")
        runs.append({"sql_s": sql_s, "read_s": read_s, "layout_s": layout_s, "layout_cpu_s": layout_cpu_s,
                     "html_s": html_s, "html_cpu_s": html_cpu_s,
                     "browser_s": browser_s, "browser_cpu_s": browser_cpu_s,
                     "draw_s": read_s + layout_s + html_s + browser_s,
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
    browser_s, _cpu, labelled, overlaps = draw_in_browser(browser, html)
    return {"entities": n, "relationships": len(rels), "layout_s": round(layout_s, 3), "html_s": round(html_s, 3),
            "browser_s": round(browser_s, 3), "labelled": labelled, "overlaps": overlaps}


def app_seconds(browser, collection: str, reps: int) -> dict:
    """A fresh ``streamlit run``: seconds from navigating to the Graph explorer to its canvas drawn with labels.

    ``first_s``: ``/graph_explorer`` loaded in a new tab, first in the process (its caches cold); ``again_s``: the
    same in another new tab (the process' caches warm); then, in that tab, ``reps`` moves from the Overview by the
    sidebar's link, as a user moves between pages (no reload of Streamlit's own page): ``clicks``, each with the
    load average and the CPU seconds of the app's server and of Chromium over it, and ``click_*`` their medians
    (``click_first_s``: a move before those, which also waits for the Overview's charts' first drawing in the tab).
    ``*_framed_s``: the part of each before the canvas' frame was on the page (Streamlit's page, the server's run
    and its delivery; the rest is the frame drawing)."""
    import psutil

    proc, url = start_streamlit("bench-graph")
    server = [psutil.Process(proc.pid)]

    def drawn(page, start: float) -> tuple[float, float]:
        page.locator("iframe[title='Entity graph']").wait_for(timeout=120_000)
        framed = time.perf_counter() - start
        frame = page.locator("iframe[title='Entity graph']").element_handle().content_frame()
        frame.wait_for_function("window.hkeLabelled && window.hkeLabelled.length > 0", timeout=120_000)
        return round(framed, 2), round(time.perf_counter() - start, 2)

    def from_overview(page) -> dict[str, float]:
        page.locator("[data-testid='stSidebarNav']").get_by_text("Overview").click()
        page.get_by_text("Manage documents").first.wait_for(timeout=120_000)
        page.locator("[data-testid='stStatusWidget']").wait_for(state="detached", timeout=120_000)
        page.wait_for_timeout(300)  # the Overview's last deltas
        chromium = browser_processes()
        before, start, server_cpu = cpu_seconds(chromium), time.perf_counter(), cpu_seconds(server)
        page.locator("[data-testid='stSidebarNav']").get_by_text("Graph explorer").click()
        framed, total = drawn(page, start)
        return {"s": total, "framed_s": framed, "server_cpu_s": round(cpu_seconds(server) - server_cpu, 2),
                "browser_cpu_s": round(cpu_seconds(chromium) - before, 2), "load": load()}

    try:
        out: dict = {}
        for name in ("first", "again"):
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.set_default_timeout(120_000)  # a click waits while the browser is busy drawing the Overview
            page.goto(f"{url}/?collection={collection}")
            page.get_by_text("Hierarchical Knowledge Explorer").first.wait_for(timeout=120_000)
            page.wait_for_load_state("networkidle")
            start = time.perf_counter()
            page.goto(f"{url}/graph_explorer?collection={collection}")
            out[f"{name}_framed_s"], out[f"{name}_s"] = drawn(page, start)
            if name == "again":
                first = from_overview(page)
                out["click_first_s"], out["click_first_framed_s"] = first["s"], first["framed_s"]
                out["clicks"] = [from_overview(page) for _ in range(reps)]
                for key in ("s", "framed_s", "server_cpu_s", "browser_cpu_s"):
                    out[f"click_{key}"] = round(statistics.median(c[key] for c in out["clicks"]), 2)
            page.close()
        return out
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--reps", type=int, default=5, help="moves from the Overview by the sidebar link")
    parser.add_argument("--corpus", action="append", default=[],
                        help="a folder of bench/corpora (or 'samples'), ingested and indexed offline in a scratch "
                             f"database; default: {', '.join(DEFAULT_CORPORA)}")
    parser.add_argument("--collection", action="append", default=[])
    parser.add_argument("--no-app", action="store_true", help="skip the streamlit round trip")
    parser.add_argument("--no-synthetic", action="store_true", help="skip the synthetic 1,200 and 3,000 entities")
    parser.add_argument("--save-html", type=Path, default=None, metavar="DIR",
                        help="also write each collection's whole-graph page to DIR/NAME.html (bench_canvas_ab.py)")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    results, scale = [], []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        for store in stores(args.collection, args.corpus):
            row = one_collection(store, browser, args.rounds, args.save_html)
            row["load_average"] = load()
            print(f"{row['collection']}: {row['entities']} entities, {row['relationships']} relationships: raw SQL "
                  f"read {row['sql_s']:.3f} s; drawn cold in {row['draw_s']:.2f} s (read {row['read_s']:.2f}, layout "
                  f"{row['layout_s']:.2f} [CPU {row['layout_cpu_s']:.2f}], html {row['html_s']:.2f} [CPU "
                  f"{row['html_cpu_s']:.2f}], browser {row['browser_s']:.2f} [Chromium CPU "
                  f"{row['browser_cpu_s']:.2f}]); {row['labelled']} labels, {row['overlaps']} overlapping "
                  f"(load {row['load_average']})", flush=True)
            if not args.no_app:
                app = app_seconds(browser, store.collection, args.reps)
                row.update({f"app_{k}": v for k, v in app.items()})
                print(f"  in the app: a new tab {app['first_s']:.2f} s first, {app['again_s']:.2f} s again; by the "
                      f"sidebar link (median of {args.reps}) {app['click_s']:.2f} s ({app['click_framed_s']:.2f} s "
                      f"before the frame), CPU: server {app['click_server_cpu_s']:.2f} s, Chromium "
                      f"{app['click_browser_cpu_s']:.2f} s", flush=True)
                for c in app["clicks"]:
                    print(f"    {c['s']:.2f} s (framed {c['framed_s']:.2f}; CPU server {c['server_cpu_s']:.2f}, "
                          f"Chromium {c['browser_cpu_s']:.2f}) load {c['load']}", flush=True)
            results.append(row)
        for n in () if args.no_synthetic else (1200, 3000):
            s = synthetic(n, browser)
            scale.append(s)
            print(f"synthetic {n} entities, {s['relationships']} relationships: layout {s['layout_s']:.2f} s, html "
                  f"{s['html_s']:.2f} s, browser {s['browser_s']:.2f} s; {s['labelled']} labels, {s['overlaps']} "
                  f"overlapping (load {load()})")
        browser.close()
    print(f"wrote {write_result('bench_graph_explorer', {'collections': results, 'synthetic': scale})}")


if __name__ == "__main__":
    try:
        main()
    finally:
        if os.path.basename(os.environ.get("HKE_DATA_DIR", "")).startswith("hke-bench-"):  # our scratch database
            from _synthetic import remove_scratch_database

            remove_scratch_database()
