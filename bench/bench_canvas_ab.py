"""Two saved canvas pages of the Graph explorer (say, before and after a change), loaded in headless Chromium in turn
until vis.js has drawn them with their labels: seconds, and the CPU seconds Chromium spent (which the machine's load
does not inflate), medians of ``--rounds``.

Save the pages with ``bench/bench_graph_explorer.py --save-html DIR`` on each side of the change, then:
``python bench/bench_canvas_ab.py OLD.html NEW.html --rounds 5``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

from bench_graph_explorer import CHROMIUM, CHROMIUM_ARGS, browser_processes, cpu_seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pages", nargs=2, type=Path)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    pages = {path: path.read_text(encoding="utf-8") for path in args.pages}
    seconds: dict[Path, list[float]] = {path: [] for path in pages}
    cpu: dict[Path, list[float]] = {path: [] for path in pages}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        for _ in range(args.rounds):
            for path, html in pages.items():  # in turn, so both see the same load
                page = browser.new_page(viewport={"width": 900, "height": 760})
                chromium = browser_processes()
                used, start = cpu_seconds(chromium), time.perf_counter()
                page.set_content(html, wait_until="load")
                page.wait_for_function("window.hkeLabelled && window.hkeLabelled.length > 0", timeout=120_000)
                seconds[path].append(time.perf_counter() - start)
                cpu[path].append(cpu_seconds(chromium) - used)
                page.close()
        browser.close()
    for path, values in seconds.items():
        print(f"{path}: {len(pages[path]) / 1e6:.2f} MB, median {statistics.median(values):.2f} s, min "
              f"{min(values):.2f} s over {len(values)} rounds; Chromium CPU median "
              f"{statistics.median(cpu[path]):.2f} s")
    print(f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
