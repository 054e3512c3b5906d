"""The CLI on the same database server: its entry point in process for what a command does, a separate process as
a user runs it for usage errors and for a database URL the test process must not take on."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from .conftest import ROOT, SAMPLES
from .helpers_cli import cli

SAMPLE = SAMPLES / "nova-27qx-monitor-ko.md"


def run_cli(*args: str, env: dict | None = None, check: bool = True) -> subprocess.CompletedProcess:
    return _checked(cli(*args, env=env), check)


def run_process(*args: str, env: dict | None = None, check: bool = True) -> subprocess.CompletedProcess:
    proc = subprocess.run(
        [sys.executable, "-m", "core", *args],
        cwd=ROOT,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=180,
    )
    return _checked(proc, check)


def _checked(proc: subprocess.CompletedProcess, check: bool) -> subprocess.CompletedProcess:
    if check and proc.returncode != 0:
        raise AssertionError(f"exit {proc.returncode}\nstdout: {proc.stdout}\nstderr: {proc.stderr}")
    return proc


def test_parse_json_touches_no_database(tmp_path):
    # An unreachable DATABASE_URL proves parse never connects.
    proc = run_cli("parse", str(SAMPLE), "--json", env={"DATABASE_URL": "postgresql://nobody@127.0.0.1:1/none"})
    rows = json.loads(proc.stdout)
    assert rows and set(rows[0]) == {"element_id", "parent_id", "category", "category_depth", "text"}
    ids = {r["element_id"] for r in rows}
    assert all(r["parent_id"] is None or r["parent_id"] in ids for r in rows)
    assert rows[0]["category"] == "Title" and rows[0]["parent_id"] is None


def test_parse_refuses_binary_with_a_reason(tmp_path):
    bad = tmp_path / "bad.md"
    bad.write_bytes(b"\x00\x01\x02 binary")
    proc = run_cli("parse", str(bad), check=False)
    assert proc.returncode == 2 and "binary" in proc.stderr


def test_ingest_reingest_remove_roundtrip(db_url, tmp_path):
    collection = f"cli_{uuid.uuid4().hex[:8]}"
    docs = tmp_path / "docs"
    docs.mkdir()
    for src in sorted(SAMPLES.glob("*.md"))[:3]:
        (docs / src.name).write_bytes(src.read_bytes())
    (docs / "empty.md").write_bytes(b"")

    first = json.loads(run_cli("ingest", str(docs), "--collection", collection, "--json", check=False).stdout)
    assert set(first) >= {"documents", "elements", "added", "replaced", "unchanged", "skipped", "errors", "seconds",
                          "embedding_calls", "texts_embedded", "cache_hits"}
    assert first["texts_embedded"] + first["cache_hits"] == first["elements"] > 0
    assert (first["documents"], first["added"], first["unchanged"]) == (3, 3, 0)
    assert [Path(e["path"]).name for e in first["errors"]] == ["empty.md"]
    assert "empty" in first["errors"][0]["reason"]

    (docs / "empty.md").unlink()
    second = json.loads(run_cli("ingest", str(docs), "--collection", collection, "--json").stdout)
    assert (second["unchanged"], second["added"], second["elements"], second["embedding_calls"]) == (3, 0, 0, 0)

    listed = json.loads(run_cli("collections", "--json").stdout)
    mine = next(c for c in listed if c["name"] == collection)
    assert mine["documents"] == 3 and mine["elements"] == first["elements"]

    removed = json.loads(run_cli("remove", "nova-24fl-monitor-ko.md", "--collection", collection, "--json").stdout)
    assert removed["source"].endswith("nova-24fl-monitor-ko.md")
    missing = run_cli("remove", "nova-24fl-monitor-ko.md", "--collection", collection, check=False)
    assert missing.returncode == 1 and "no document" in missing.stderr


def test_db_status_reports_the_shared_server(db_url):
    status = json.loads(run_cli("db", "status", "--json").stdout)
    assert status["running"] is True
    assert status["pgvector_version"]
    if not os.environ.get("DATABASE_URL"):
        assert status["mode"] == "embedded" and status["server_pid"]


def test_external_url_password_is_never_printed():
    env = {"DATABASE_URL": "postgresql://analyst:s3cr3t-pw@127.0.0.1:1/corpus"}
    url = run_cli("db", "url", env=env)
    assert "s3cr3t-pw" not in url.stdout and "analyst" in url.stdout
    status = run_cli("db", "status", "--json", env=env, check=False)
    assert "s3cr3t-pw" not in status.stdout + status.stderr
    ingest = run_cli("ingest", str(SAMPLE), "--json", env=env, check=False)
    assert ingest.returncode == 2 and "s3cr3t-pw" not in ingest.stdout + ingest.stderr
    assert ingest.stderr.startswith("error: the database is unavailable (")


@pytest.mark.parametrize("args", [["ingest"], ["remove"], ["nonsense"]])
def test_usage_errors_exit_2(args):
    assert run_process(*args, check=False).returncode == 2
