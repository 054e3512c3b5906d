"""Separate processes at once on one server: one ingests, one removes, one keeps creating and dropping collections.

The clients are processes (tests/helpers_concurrency_child.py), as users run them. The module's last test checks
the invariants (tests/helpers_invariants.py) of every collection the workload touched, its contextual index
included, against a clean build of the same files: pytest runs it after the concurrent clients have finished.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path

import psycopg
import pytest

from core.db.urls import psycopg_conninfo
from core.ingest import ingest_paths
from core.ingest.contextual import build_contextual_index, find_contextual_index
from core.sql import elements as element_sql
from core.store import ElementStore
from tests.helpers_embeddings import HashEmbeddings
from tests.helpers_invariants import check_invariants

ROOT = Path(__file__).resolve().parents[1]
CHILD = ROOT / "tests" / "helpers_concurrency_child.py"
ADDED, REMOVED = 120, 8


def _write(folder: Path, prefix: str, n: int) -> list[Path]:
    folder.mkdir(parents=True)
    paths = []
    for i in range(n):
        path = folder / f"{prefix}-{i:03d}.md"
        # "shared" items repeat across files, so the embedding cache is read (and hit) for every document.
        path.write_text(f"# {prefix} {i}\n\nThe {prefix} document number {i}.\n\n## Specs\n\n* shared : value\n"
                        f"* own : {prefix}-{i}\n* size : {i % 7}\n", encoding="utf-8")
        paths.append(path)
    return paths


def _start(action: str, *args: str) -> tuple[subprocess.Popen, tempfile.SpooledTemporaryFile]:
    log = tempfile.TemporaryFile("w+")  # a file, not a pipe: a chatty child must never block on it
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1"}
    env.pop("HKE_EMBEDDINGS", None)
    proc = subprocess.Popen([sys.executable, str(CHILD), action, *args], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=log, text=True)
    return proc, log


def _result(proc: subprocess.Popen, log, timeout: float = 300) -> dict:
    out, _ = proc.communicate(timeout=timeout)
    if proc.returncode != 0:
        log.seek(0)
        raise AssertionError(f"child exited {proc.returncode}:\n{log.read()[-4000:]}")
    return json.loads(out.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def workload(db_url, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("concurrency")
    added = _write(tmp / "added", "added", ADDED)
    removed = _write(tmp / "removed", "removed", REMOVED)
    name = f"conc_{uuid.uuid4().hex[:8]}"
    store = ElementStore(db_url, name, HashEmbeddings())
    assert not ingest_paths(store, [removed[0].parent]).errors
    build_contextual_index(store)  # ingest and remove keep it up to date while they race
    stop = tmp / "stop"
    churn = _start("churn", f"{name}_churn", str(stop))
    ingest = _start("ingest", name, str(added[0].parent))
    remove = _start("remove", name, *(p.name for p in removed))
    try:
        results = {"ingest": _result(*ingest), "remove": _result(*remove)}
    finally:
        stop.touch()
        results_churn = _result(*churn)
    results["churn"] = results_churn
    clean = ElementStore(db_url, f"{name}_clean", HashEmbeddings())
    assert not ingest_paths(clean, [added[0].parent]).errors
    build_contextual_index(clean)
    yield {"store": store, "clean": clean, "results": results, "churn_prefix": f"{name}_churn"}
    store.drop()
    clean.drop()


def test_ingest_refuses_nothing_while_other_collections_are_created_and_dropped(workload):
    results = workload["results"]
    report = results["ingest"]["report"]
    assert report["errors"] == [] and report["added"] == ADDED, report["errors"][:3]
    assert results["remove"]["removed"] == REMOVED
    assert results["churn"]["cycles"] > 0 and results["churn"]["errors"] == [], results["churn"]


def test_invariants_hold_after_the_concurrent_clients(workload, db_url):
    store, clean = workload["store"], workload["clean"]
    checked = check_invariants(store, clean)
    assert checked == {"documents": ADDED, "elements": clean.stats().elements}
    index, clean_index = find_contextual_index(store), find_contextual_index(clean)
    assert index is not None and clean_index is not None
    assert check_invariants(index, clean_index)["documents"] == ADDED
    # Every churned collection is gone whole: no registry row, no element table left behind.
    with psycopg.connect(psycopg_conninfo(db_url)) as conn:
        rows = conn.execute("SELECT count(*) FROM hke_collections WHERE name LIKE %s",
                            (workload["churn_prefix"] + "%",)).fetchone()[0]
        registered = {element_sql.table_name(i) for (i,) in conn.execute("SELECT id FROM hke_collections")}
        tables = {t for (t,) in conn.execute("SELECT tablename FROM pg_tables WHERE tablename LIKE %s",
                                             (element_sql.TABLE_PREFIX.replace("_", "\\_") + "%",))}
    tables = {t.removesuffix("_history") for t in tables}  # a collection's history goes with its table
    assert rows == 0 and tables - registered == set()
