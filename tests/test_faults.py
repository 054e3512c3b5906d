"""Faults against the real embedded Postgres, nothing mocked: the database dies mid-ingest, two processes
ingest one corpus at once, the data directory is full or read-only at start.

The ingest clients are separate processes (the code in ``CHILD`` below, run with ``python -c``) because a
database crash and a race between processes are both about more than one process. Each prints JSON lines.
They embed with a deterministic hash embedder: the model is not what is under test, and loading it costs every
process seconds of the 2 shared cores.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil
import pytest

from core import db
from core.config import load_settings
from core.db.urls import DatabaseError, psycopg_conninfo
from core.sql import elements as element_sql

ROOT = Path(__file__).resolve().parents[1]

embedded_only = pytest.mark.skipif(
    bool(os.environ.get("DATABASE_URL")),
    reason="DATABASE_URL is set: these tests stop and start the embedded server, which is then not in use",
)

CHILD = r'''
import json, sys, threading, time
from pathlib import Path

import psycopg

from core import db
from core.config import load_settings
from core.db.pool import close_pools
from core.db.server import pg_ctl
from core.db.urls import psycopg_conninfo
from core.ingest import content_hash, document_id_for, ingest_paths
from core.store import ElementStore
from tests.helpers_embeddings import HashEmbeddings


def emit(**payload):
    print(json.dumps(payload, default=str), flush=True)


def verify(store, corpus):
    """What is stored, checked against the files: per document, rows == n_elements and the hash is the file's."""
    conninfo = psycopg_conninfo(store.url)
    with psycopg.connect(conninfo, autocommit=True) as conn:
        rows = dict(conn.execute(store.statement(
            "SELECT document_id, count(*) FROM {elements} GROUP BY 1")).fetchall())
        total, distinct = conn.execute(store.statement(
            "SELECT count(*), count(DISTINCT element_id) FROM {elements}")).fetchone()
        collections = conn.execute("SELECT count(*) FROM hke_collections WHERE name = %s",
                                   (store.collection,)).fetchone()[0]
    records = store.documents()
    docs = {
        r.filename: {
            "n_elements": r.n_elements,
            "rows": rows.get(r.document_id, 0),
            "hash_ok": r.content_hash == content_hash((Path(corpus) / r.filename).read_bytes(), "markdown-it", False),
        }
        for r in records
    }
    orphans = sorted(set(rows) - {r.document_id for r in records})  # elements without their document record
    return {"docs": docs, "total": total, "distinct_ids": distinct, "orphans": orphans, "collections": collections}


def stop_now():
    """pg_ctl stop -m immediate: every backend dies at once, as in a crash (recovery runs at the next start)."""
    pg_ctl(load_settings().pgdata, "-m", "immediate", "-w", "stop")


def blocker(store, document_id, ready, seen):
    """Hold an uncommitted row for ``document_id`` so the ingest's own insert of that row waits behind it, after
    its DELETE and COPY of the elements, then stop the server: a crash in the middle of a write."""
    conninfo = psycopg_conninfo(store.url)
    try:
        conn = psycopg.connect(conninfo)
        conn.execute(
            "INSERT INTO hke_documents (collection_id, document_id, source, filename, content_hash, loader, "
            "n_elements, n_bytes) VALUES (%s, %s, 'blocker', 'blocker', 'x', 'x', 0, 0)",
            (store.collection_id, document_id))
        ready.set()
        deadline = time.monotonic() + 60
        with psycopg.connect(conninfo, autocommit=True) as monitor:
            while time.monotonic() < deadline and not seen:
                waiting = monitor.execute(
                    "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                    "AND query LIKE %s AND pid <> %s", ("%INSERT INTO hke_documents%", conn.info.backend_pid)
                ).fetchone()[0]
                if waiting:
                    seen.append(time.monotonic())
                time.sleep(0.02)
        stop_now()
    finally:
        ready.set()


def main():
    action, corpus, collection = sys.argv[1:4]
    url = db.database_url()
    embeddings = HashEmbeddings()
    if action == "crash":
        threshold = int(sys.argv[4])
        store = ElementStore(url, collection, embeddings)
        ready, seen, threads = threading.Event(), [], []

        def progress(p):
            if not threads and p.done >= threshold and p.message.startswith("embedding "):
                path = p.message.removeprefix("embedding ")
                target = document_id_for(collection, str(Path(path).resolve()))
                thread = threading.Thread(target=blocker, args=(store, target, ready, seen), daemon=True)
                threads.append((thread, Path(path).name))
                thread.start()
                ready.wait(30)

        t0 = time.monotonic()
        report = ingest_paths(store, [corpus], batch_size=16, progress=progress)
        seconds = time.monotonic() - t0
        threads[0][0].join(30)
        emit(report=report.as_dict(files=True), cut_in=threads[0][1], blocked_write_seen=bool(seen),
             seconds=seconds, running_after=db.status().running)
    elif action == "retry":
        store = ElementStore(url, collection, embeddings)
        before = verify(store, corpus)
        report = ingest_paths(store, [corpus], batch_size=16)
        emit(before=before, report=report.as_dict(files=True), after=verify(store, corpus))
    elif action == "race":
        emit(event="ready")
        for line in sys.stdin:
            if line.strip() != "go":
                break
            store = ElementStore(url, collection, embeddings)  # a fresh collection on the first round
            report = ingest_paths(store, [corpus], batch_size=8)
            emit(event="done", report=report.as_dict(files=True), after=verify(store, corpus))
    close_pools()


main()
'''


def write_corpus(folder: Path, n: int, items: int = 30) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for i in range(n):
        path = folder / f"doc-{i:02d}.md"
        lines = [f"# Product {i}", "", f"Product {i} is a monitor of the test corpus. It exists to be ingested.", "",
                 "## Specs", ""]
        lines += [f"* key {j} : value {i}-{j}" for j in range(items)]
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        paths.append(path)
    return paths


def child_env(data_dir: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("HKE_EMBEDDINGS",)}
    env.update(HKE_DATA_DIR=str(data_dir), PYTHONPATH=str(ROOT), PYTHONUNBUFFERED="1")
    return env


def run_child(action: str, data_dir: Path, *args: str, timeout: float = 240) -> tuple[dict, str]:
    done = subprocess.run([sys.executable, "-c", CHILD, action, *args], cwd=ROOT, env=child_env(data_dir),
                          capture_output=True, text=True, timeout=timeout, check=False)
    assert done.returncode == 0, f"{action} child failed ({done.returncode}):\n{done.stderr[-4000:]}"
    return json.loads(done.stdout.strip().splitlines()[-1]), done.stderr


def postgres_in(data_dir: Path) -> list[psutil.Process]:
    found = []
    for proc in psutil.process_iter(["name"]):
        if proc.info["name"] == "postgres":
            with contextlib.suppress(psutil.Error):
                if proc.status() != psutil.STATUS_ZOMBIE and proc.cwd().startswith(str(data_dir) + os.sep):
                    found.append(proc)
    return found


@pytest.fixture
def own_data_dir():
    """A fresh HKE_DATA_DIR (short: Unix socket paths) whose server is stopped and removed afterwards."""
    path = Path(tempfile.mkdtemp(prefix="hke-fault-", dir="/tmp"))
    yield path
    settings = dataclasses.replace(load_settings(), data_dir=path, database_url=None)
    with contextlib.suppress(Exception):
        db.stop_embedded(settings)
    for proc in postgres_in(path):
        with contextlib.suppress(psutil.Error):
            proc.kill()
    shutil.rmtree(path, ignore_errors=True)


def check_consistent(state: dict) -> None:
    """Nothing half-written: every document whole and matching its file, no stray or duplicate rows."""
    for name, doc in state["docs"].items():
        assert doc["rows"] == doc["n_elements"] and doc["hash_ok"], (name, doc)
    assert state["orphans"] == [], "elements stored without their document"
    assert state["total"] == state["distinct_ids"] == sum(d["n_elements"] for d in state["docs"].values())
    assert state["collections"] == 1


# -- the database goes away mid-ingest ----------------------------------------------------------------


@embedded_only
def test_database_stopped_mid_write_then_retry_completes(own_data_dir: Path, tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    files = write_corpus(corpus, 8)
    per_doc = 33  # title, paragraph, section, 30 items
    # Stop inside the third document: its transaction has deleted and copied its elements and waits to insert
    # its record when the server dies, so this is a crash in the middle of a write.
    crashed, stderr = run_child("crash", own_data_dir, str(corpus), "fault", str(2 * per_doc + 1))
    report = crashed["report"]
    assert crashed["blocked_write_seen"], "the third document's write must have been in flight at the crash"
    assert crashed["cut_in"] == "doc-02.md" and not crashed["running_after"]
    assert report["added"] == 2 and report["documents"] == 2
    assert report["stopped"].startswith("the database is unavailable (")
    reasons = {Path(e["path"]).name: e["reason"] for e in report["errors"]}
    assert sorted(reasons) == [p.name for p in files[2:]]
    assert reasons["doc-02.md"].startswith("not stored: the database is unavailable (")
    assert reasons["doc-02.md"].endswith("start it and ingest again; files already stored are skipped as unchanged")
    for name in reasons.keys() - {"doc-02.md"}:
        assert "database is unavailable" in reasons[name] and "the ingest stopped" in reasons[name]
    assert "Traceback" not in stderr, stderr[-3000:]
    # Stopping at the first lost file instead of failing every later one on the pool's 30 s timeout.
    assert crashed["seconds"] < 30, crashed["seconds"]

    retried, _ = run_child("retry", own_data_dir, str(corpus), "fault")
    before, after = retried["before"], retried["after"]
    # After crash recovery: exactly the two committed documents, whole; nothing of the third.
    assert sorted(before["docs"]) == ["doc-00.md", "doc-01.md"]
    check_consistent(before)
    assert before["total"] == 2 * per_doc
    # The retry skips those as unchanged and stores the rest, with no duplicates.
    again = retried["report"]
    assert (again["unchanged"], again["added"], again["errors"]) == (2, 6, [])
    assert sorted(after["docs"]) == [p.name for p in files]
    check_consistent(after)
    assert after["total"] == 8 * per_doc
    print(f"crash child ingest {crashed['seconds']:.1f}s; stopped: {report['stopped']}")


# -- two ingests of one corpus at once ------------------------------------------------------------------


def test_two_processes_ingest_the_same_corpus_at_once(db_url: str, tmp_path: Path) -> None:
    import psycopg

    corpus = tmp_path / "corpus"
    files = write_corpus(corpus, 10, items=20)
    collection = f"race_{os.getpid()}_{int(time.time() * 1000) % 10**8}"  # fresh: both create it at once
    data_dir = Path(os.environ["HKE_DATA_DIR"])  # the session's server (conftest); the children attach to it
    procs, logs = [], []
    for _ in range(2):
        logs.append(tempfile.TemporaryFile("w+"))  # a file, not a pipe: a chatty child must never block on it
        procs.append(subprocess.Popen(
            [sys.executable, "-c", CHILD, "race", str(corpus), collection], cwd=ROOT, env=child_env(data_dir),
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=logs[-1], text=True,
        ))

    def events() -> list[dict]:
        out = []
        for proc, log in zip(procs, logs, strict=True):
            line = proc.stdout.readline()
            if not line:
                log.seek(0)
                raise AssertionError(f"child exited ({proc.wait(10)}):\n{log.read()[-4000:]}")
            out.append(json.loads(line))
        return out

    def go() -> list[dict]:
        for proc in procs:  # both start within a millisecond or so of each other
            proc.stdin.write("go\n")
            proc.stdin.flush()
        return events()

    try:
        assert [e["event"] for e in events()] == ["ready", "ready"]
        first = go()
        reports = [e["report"] for e in first]
        assert all(r["errors"] == [] for r in reports), reports
        print("round 1 added/unchanged per process:", [(r["added"], r["unchanged"]) for r in reports])
        # Every document added exactly once, by one process or the other; the other found it unchanged.
        assert sum(r["added"] for r in reports) == 10
        assert all(r["added"] + r["unchanged"] == 10 for r in reports)
        for event in first:
            assert sorted(event["after"]["docs"]) == [p.name for p in files]
            check_consistent(event["after"])

        # Round two: three documents changed, both replace them at once.
        for path in files[:3]:
            path.write_text(path.read_text(encoding="utf-8") + "* added later : yes\n", encoding="utf-8")
        second = go()
        reports = [e["report"] for e in second]
        assert all(r["errors"] == [] for r in reports), reports
        print("round 2 replaced/unchanged per process:", [(r["replaced"], r["unchanged"]) for r in reports])
        assert sum(r["replaced"] for r in reports) == 3 and sum(r["added"] for r in reports) == 0
        for event in second:
            check_consistent(event["after"])
            assert {name: d["n_elements"] for name, d in event["after"]["docs"].items()} == {
                p.name: 24 if p in files[:3] else 23 for p in files
            }
    finally:
        for proc in procs:
            with contextlib.suppress(OSError):
                proc.stdin.close()
        for proc in procs:
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
        with contextlib.suppress(Exception), psycopg.connect(psycopg_conninfo(db_url)) as conn:
            (collection_id,) = conn.execute("SELECT id FROM hke_collections WHERE name = %s", (collection,)).fetchone()
            conn.execute(element_sql.bind(element_sql.DROP_ELEMENT_TABLE, element_sql.table_name(collection_id)))
            conn.execute(element_sql.DELETE_COLLECTION, (collection_id,))  # cascades to its documents
    assert [p.returncode for p in procs] == [0, 0]


# -- the data directory is full or read-only at start -----------------------------------------------------


@contextlib.contextmanager
def tmpfs(size: str, *options: str):
    """A tiny tmpfs mounted for the test; skips when this machine cannot mount (not root, no privileges)."""
    mount_point = Path(tempfile.mkdtemp(prefix="hke-mnt-", dir="/tmp"))
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", ",".join([f"size={size}", "mode=0755", *options]), "tmpfs",
                           str(mount_point)], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        mount_point.rmdir()
        pytest.skip(f"cannot mount a tmpfs here to simulate the disk ({done.stderr.strip() or 'mount failed'})")
    try:
        yield mount_point
    finally:
        for proc in postgres_in(mount_point):
            with contextlib.suppress(psutil.Error):
                proc.kill()
        subprocess.run(["umount", "-l", str(mount_point)], capture_output=True, check=False)
        shutil.rmtree(mount_point, ignore_errors=True)


def settings_in(data_dir: Path):
    return dataclasses.replace(load_settings(), data_dir=data_dir, database_url=None)


@embedded_only
def test_read_only_file_system_is_a_clear_error_at_start() -> None:
    # tests/test_database.py covers a directory without write permission; this is a read-only *file system*.
    with tmpfs("1m", "ro") as mount_point:
        with pytest.raises(DatabaseError) as err:
            db.database_url(settings_in(mount_point))
        message = str(err.value)
        assert f"The data directory {mount_point} is not writable (read-only file system)" in message
        assert "HKE_DATA_DIR" in message and "DATABASE_URL" in message
        with pytest.raises(DatabaseError, match="Cannot create the data directory .*Read-only file system"):
            db.database_url(settings_in(mount_point / "data"))


@embedded_only
def test_full_disk_is_a_clear_error_at_start() -> None:
    with tmpfs("1m") as mount_point:  # initdb needs ~40 MB
        data_dir = mount_point / "data"
        started = time.monotonic()
        with pytest.raises(DatabaseError) as err:
            db.database_url(settings_in(data_dir))
        assert time.monotonic() - started < 30
        message = str(err.value)
        assert str(data_dir) in message and "HKE_DATA_DIR" in message
        assert "No space left on device" in message or "disk is full" in message or "free" in message, message
