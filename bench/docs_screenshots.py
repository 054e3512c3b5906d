"""The README's two screenshots (docs/img/overview.png, docs/img/compare.png), taken in headless Chromium.

Starts ``streamlit run app.py`` on a free loopback port against the configured database (set ``HKE_DATA_DIR`` to a
scratch folder to keep them apart from your own collections), ingests the samples into ``default`` if it is empty,
opens the Overview and asks one question on Compare. The images are quantised to 256 colours so that they stay
small in the repository.

    .venv/bin/python bench/docs_screenshots.py [--chromium /usr/bin/chromium] [--out docs/img]
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
QUESTION = "Nova 24FL 모니터의 무게는 얼마인가요?"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--disable-quic"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
            return r.status == 200
    except OSError:
        return False


def shrink(path: Path) -> None:
    from PIL import Image

    with Image.open(path) as image:
        small = image.convert("RGB").quantize(colors=256, method=Image.Quantize.MEDIANCUT)
        small.save(path, optimize=True)


def take(url: str, chromium: str, out: Path) -> list[Path]:
    from playwright.sync_api import sync_playwright

    out.mkdir(parents=True, exist_ok=True)
    taken = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, headless=True, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 860})
        page.goto(f"{url}/?collection=default")
        page.get_by_text("Elements by category and depth").first.wait_for(timeout=120_000)
        page.wait_for_timeout(1500)  # the chart's animation
        taken.append(out / "overview.png")
        page.screenshot(path=str(taken[-1]))

        page.goto(f"{url}/compare?collection=default")
        page.get_by_text("Compare: plain vs hierarchical").first.wait_for(timeout=120_000)
        box = page.locator("[data-testid='stMain'] textarea").first
        box.wait_for(timeout=120_000)
        box.fill(QUESTION)
        page.get_by_role("button", name="Ask").click()
        page.get_by_text("What the hierarchy added").first.wait_for(timeout=180_000)
        page.wait_for_timeout(1500)
        page.get_by_text("Plain", exact=True).first.scroll_into_view_if_needed()
        page.mouse.wheel(0, -250)
        page.wait_for_timeout(500)
        taken.append(out / "compare.png")
        page.screenshot(path=str(taken[-1]))
        browser.close()
    for path in taken:
        shrink(path)
    return taken


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "img")
    args = parser.parse_args()
    subprocess.run([sys.executable, "-m", "core", "ingest", str(ROOT / "data" / "samples")], cwd=ROOT, check=True,
                   stdout=subprocess.DEVNULL)
    port = free_port()
    app = subprocess.Popen([sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"), "--server.headless",
                            "true", "--server.port", str(port), "--server.address", "127.0.0.1"],
                           cwd=ROOT, env=dict(os.environ), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while not healthy(url):
            if app.poll() is not None or time.monotonic() > deadline:
                raise SystemExit("streamlit did not start")
            time.sleep(0.5)
        for path in take(url, args.chromium, args.out):
            print(f"{path.relative_to(ROOT)}: {path.stat().st_size // 1024} KB")
    finally:
        app.send_signal(signal.SIGTERM)
        app.wait(30)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
