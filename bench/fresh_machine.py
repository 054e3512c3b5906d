"""Fresh-machine check: the README's two commands, exactly as written, in a brand-new clone, venv and HOME.

1. "Install and start the app" runs in the background; a headless Chromium then walks the whole flow with
   no API key: ingest the samples → compare → build the index → browse a report → run an evaluation.
   The time from nothing (before `python3 -m venv`) to the first answer on screen is recorded.
2. "Install and run the tests" runs to the end (skip with --skip-tests; it takes the longest).

The one deviation from a new laptop: HKE_DATA_DIR points into the temporary folder, so the check never
touches (or reuses) the database of the machine it runs on.

Run: .venv/bin/python bench/fresh_machine.py [--skip-tests] [--keep]
Writes bench/out/fresh_machine.json and screenshots to bench/out/fresh_machine/.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "bench" / "out"
SHOTS = OUT / "fresh_machine"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--disable-quic"]


def readme_command(heading: str) -> str:
    """The shell command in the fenced block that follows ``heading`` in README.md."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    at = text.index(heading)
    block = re.search(r"```bash\n(.*?)```", text[at:], re.S)
    assert block, f"no command after {heading!r} in README.md"
    return block.group(1).strip()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_healthy(url: str, proc: subprocess.Popen, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the app command exited with {proc.returncode}")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            pass
        time.sleep(1)
    raise RuntimeError("the app did not come up in time")


def walk_the_flow(url: str, marks: dict[str, float], t0: float) -> list[str]:
    from playwright.sync_api import sync_playwright

    SHOTS.mkdir(parents=True, exist_ok=True)
    seen: list[str] = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        dialogs: list[str] = []
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))

        def text(t: str, timeout: float = 300_000) -> None:
            page.get_by_text(t, exact=False).first.wait_for(timeout=timeout)

        def shot(name: str) -> None:
            page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)
            seen.append(name)

        page.goto(url)
        text("Ingest the samples")
        shot("1_empty")
        page.get_by_role("button", name="Ingest the samples").click()
        text("added", timeout=600_000)
        marks["samples_ingested"] = time.monotonic() - t0
        shot("2_ingested")

        page.goto(f"{url}/compare")
        text("Compare: plain vs hierarchical")
        box = page.locator("section.main textarea, [data-testid='stMain'] textarea").first
        box.wait_for(timeout=120_000)
        box.fill("Nova 24FL에는 HDMI 단자가 몇 개 있나요?")
        page.get_by_role("button", name="Ask").click(timeout=120_000)
        text("What the hierarchy added", timeout=300_000)
        marks["first_answer"] = time.monotonic() - t0
        shot("3_compare")

        page.goto(f"{url}/reports")
        page.get_by_role("button", name=re.compile("Build index")).first.click()
        text("Level", timeout=600_000)
        page.locator(".js-plotly-plot").first.wait_for(timeout=300_000)
        marks["index_built"] = time.monotonic() - t0
        shot("4_reports")
        page.get_by_role("button", name="Open report", exact=True).first.click()
        page.get_by_role("heading", name=re.compile("Findings")).first.wait_for(timeout=120_000)
        shot("5_report")

        page.goto(f"{url}/evaluation")
        page.get_by_role("button", name=re.compile("Run evaluation")).click()
        text("Per mode", timeout=900_000)
        marks["evaluation_done"] = time.monotonic() - t0
        shot("6_evaluation")
        browser.close()
        if dialogs:
            raise RuntimeError(f"a JavaScript dialog opened: {dialogs}")
    return seen


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip-tests", action="store_true", help="skip the README's test command")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    args = parser.parse_args()

    app_cmd = readme_command("**Install and start the app**")
    test_cmd = readme_command("**Install and run the tests**")
    tmp = Path(tempfile.mkdtemp(prefix="hke-fresh-", dir="/tmp"))
    repo = tmp / "repo"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(repo)], check=True)
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "HKE_", "VIRTUAL_ENV"))}
    env.pop("DATABASE_URL", None)
    env.update(HOME=str(tmp / "home"), HKE_DATA_DIR=str(tmp / "data"), STREAMLIT_SERVER_PORT=str(port),
               PATH=":".join(p for p in env["PATH"].split(":") if ".venv" not in p))
    (tmp / "home").mkdir()
    result: dict = {"app_command": app_cmd, "test_command": test_cmd, "port": port}
    marks: dict[str, float] = {}
    t0 = time.monotonic()
    app = subprocess.Popen(["bash", "-c", app_cmd], cwd=repo, env=env, stdout=open(tmp / "app.log", "w"),
                           stderr=subprocess.STDOUT, start_new_session=True)
    try:
        wait_healthy(f"http://127.0.0.1:{port}", app, timeout=1200)
        marks["app_up"] = time.monotonic() - t0
        result["screenshots"] = walk_the_flow(f"http://127.0.0.1:{port}", marks, t0)
        result["flow"] = "ok"
    except Exception as exc:
        result["flow"] = f"failed: {exc}"
    finally:
        os.killpg(app.pid, signal.SIGTERM)
        try:
            app.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(app.pid, signal.SIGKILL)
        leftover = subprocess.run(["pgrep", "-f", str(tmp / "data")], capture_output=True, text=True).stdout.split()
        result["postgres_left_running_after_sigterm"] = leftover
    result["seconds_from_nothing"] = {k: round(v, 1) for k, v in marks.items()}

    if not args.skip_tests:
        shutil.rmtree(repo / ".venv", ignore_errors=True)
        t1 = time.monotonic()
        tests = subprocess.run(["bash", "-c", test_cmd], cwd=repo, env=env, capture_output=True, text=True)
        tail = (tests.stdout + tests.stderr).strip().splitlines()[-3:]
        result["tests"] = {"exit": tests.returncode, "seconds": round(time.monotonic() - t1), "tail": tail}

    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "fresh_machine.json").write_text(json.dumps(result, indent=2, ensure_ascii=False), encoding="utf-8")
    print(json.dumps(result, indent=2, ensure_ascii=False))
    if not args.keep:
        shutil.rmtree(tmp, ignore_errors=True)
    ok = result["flow"] == "ok" and not result["postgres_left_running_after_sigterm"]
    ok = ok and (args.skip_tests or result["tests"]["exit"] == 0)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
