"""Dates that cannot poison a collection (issue 28): every date the app takes is refused outside years 1 to 9999 in
UTC, a batch names the refused file and stores the others, a collection that already holds such a date is repaired
when it is opened (or by ``migrate``) and keeps answering; and two ingests of one document with no date both land."""

from __future__ import annotations

import contextlib
import io
import json
import logging
import threading
import uuid
from dataclasses import replace
from datetime import UTC, datetime

import numpy as np
import psycopg
import pytest
from psycopg import sql as pgsql

from core.answering.changes import change_question
from core.cli import main
from core.ingest import ingest
from core.ingest.pipeline import _embed_and_store, _plan, _stored_hashes, document_id_for
from core.ingest.report import IngestReport
from core.ingest.sources import SourceFile
from core.store import ElementStore, open_store
from core.store.migrate import migrate
from core.versions import (
    ACCEPTED_RANGE,
    DateError,
    ValidFrom,
    check_date_range,
    check_not_before,
    parse_date,
    resolve_valid_from,
)
from core.versions.dates import EARLIEST, LATEST, DateSource
from tests.helpers_embeddings import HashEmbeddings

RULES_V1 = "# Library rules\n\n## Loans\n\nA loan lasts 14 days.\n\n## Fines\n\nA late book costs 100 won a day.\n"
RULES_V2 = RULES_V1.replace("14 days", "21 days")
OLD = "# Old notice\n\n## Hours\n\nThe reading room opens at nine.\n"
BEFORE_YEAR_1 = "0001-01-01T00:00+01:00"  # UTC: 31 December of 1 BC
AFTER_YEAR_9999 = "9999-12-31T23:59-01:00"  # UTC: 1 January 10000


@pytest.fixture
def hashed(monkeypatch):
    """Every store the CLI opens embeds with the hash embedder: no test here is about similarity."""
    monkeypatch.setattr("core.store.element_store.make_embeddings", lambda *a, **k: HashEmbeddings())


@pytest.fixture
def collection(db_url, hashed):
    name = f"dates_{uuid.uuid4().hex[:8]}"
    yield name
    with contextlib.suppress(Exception):
        ElementStore(db_url, name, HashEmbeddings(), create=False).drop()


def run(*args: str) -> tuple[int, dict | None, str]:
    """(exit status, the JSON printed on success, stderr) of one command."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([*args, "--json"])
    text = out.getvalue()
    return code, (json.loads(text) if text.strip() else None), err.getvalue()


def test_every_date_outside_years_1_to_9999_utc_is_refused_with_the_range():
    for text in (BEFORE_YEAR_1, AFTER_YEAR_9999, "0001-01-01T00:59+01:00"):
        with pytest.raises(DateError, match="outside the accepted range") as caught:
            parse_date(text, what="--valid-from")
        assert ACCEPTED_RANGE in str(caught.value) and text in str(caught.value)
    with pytest.raises(DateError, match="year 0 is out of range"):
        parse_date("0000-06-01", what="--as-of")
    for text in ("0001-01-01", "0001-01-01T00:00Z", "0001-01-01T01:00+01:00", "9999-12-31",
                 "9999-12-31T23:59+01:00", "9999-12-31T23:59:59.999999Z"):
        value, _ = parse_date(text)
        assert EARLIEST <= value <= LATEST
    for key in ("valid_from", "effective", "date"):
        with pytest.raises(DateError, match=f"front matter {key}:.*outside the accepted range"):
            resolve_valid_from(text=f"---\n{key}: {AFTER_YEAR_9999}\n---\n# T\n")
    with pytest.raises(DateError, match="outside the accepted range"):
        check_date_range(datetime.fromisoformat("0001-01-01T00:30+00:45"), what="a git date")
    assert change_question("What changed in the rules since 0001-01-01?").since == EARLIEST


def test_a_date_before_a_documents_last_version_is_refused_naming_both_dates():
    last = datetime(2024, 3, 1, tzinfo=UTC)
    with pytest.raises(DateError) as caught:
        check_not_before(datetime(2023, 12, 31, tzinfo=UTC), last, what="--valid-to", earliest_is="version 2 of a.md")
    assert str(caught.value) == ("--valid-to 2023-12-31T00:00:00+00:00 is before version 2 of a.md, which takes "
                                 "effect on 2024-03-01T00:00:00+00:00: give a date on or after it")
    assert check_not_before(last, last, what="--valid-to", earliest_is="version 2 of a.md") == last
    with pytest.raises(DateError, match="outside the accepted range"):
        check_not_before(datetime.fromisoformat(AFTER_YEAR_9999), last, what="--valid-to", earliest_is="v2")


def test_a_batch_names_each_refused_file_and_stores_the_others(collection, tmp_path):
    folder = tmp_path / "batch"
    folder.mkdir()
    (folder / "a.md").write_text(RULES_V1, encoding="utf-8")
    (folder / "b.md").write_text(f"---\neffective: {BEFORE_YEAR_1}\n---\n{OLD}", encoding="utf-8")
    (folder / "c.md").write_text(f"---\ndate: {AFTER_YEAR_9999}\n---\n# C\n\nText c.\n", encoding="utf-8")
    (folder / "d.md").write_text("---\neffective: 2024-05-01\n---\n# D\n\nText d.\n", encoding="utf-8")
    code, report, _ = run("ingest", str(folder), "--collection", collection)
    assert code == 1 and report is not None
    refused = {e["path"].rsplit("/", 1)[-1]: e["reason"] for e in report["errors"]}
    assert set(refused) == {"b.md", "c.md"}
    assert "effective:" in refused["b.md"] and "date:" in refused["c.md"]
    assert all("outside the accepted range" in r and ACCEPTED_RANGE in r for r in refused.values())
    stored = {d.filename for d in open_store(collection, create=False).documents()}
    assert stored == {"a.md", "d.md"}
    code, answer, err = run("ask", "How long does a loan last?", "--collection", collection)
    assert code == 0 and "14 days" in json.dumps(answer), err


@pytest.mark.parametrize("args", [
    ("ingest", "{file}", "--valid-from", BEFORE_YEAR_1),
    ("ask", "How long is a loan?", "--as-of", AFTER_YEAR_9999),
    ("changes", "--since", BEFORE_YEAR_1),
    ("changes", "--since", "2020-01-01", "--until", AFTER_YEAR_9999),
    ("show", "a.md", "--as-of", BEFORE_YEAR_1),
])
def test_each_date_flag_refuses_a_date_outside_the_range_before_any_work(args, collection, tmp_path):
    (tmp_path / "a.md").write_text(RULES_V1, encoding="utf-8")
    code, _, err = run(*(a.format(file=tmp_path / "a.md") for a in args), "--collection", collection)
    assert code == 2 and "outside the accepted range" in err and ACCEPTED_RANGE in err
    assert "Traceback" not in err


def test_the_store_refuses_such_a_date_from_a_library_caller(db_url, collection, tmp_path):
    (tmp_path / "a.md").write_text(RULES_V1, encoding="utf-8")
    assert run("ingest", str(tmp_path / "a.md"), "--collection", collection)[0] == 0
    store = open_store(collection, create=False)
    (doc,) = store.documents()
    elements = store.elements(doc.document_id)
    vectors = np.array(HashEmbeddings().embed_documents([e.text for e in elements]))
    bad = ValidFrom(datetime.fromisoformat(AFTER_YEAR_9999), DateSource.EXPLICIT)
    with pytest.raises(DateError, match="outside the accepted range"):
        store.write.replace_document(replace(doc, content_hash="another"), elements, vectors, valid_from=bad)
    with pytest.raises(DateError, match="outside the accepted range"):
        store.write.remove_document(doc.document_id, when=datetime.fromisoformat(BEFORE_YEAR_1))
    (version,) = store.read.versions(doc.document_id)
    assert version.retired_at is None and version.content_hash == doc.content_hash


def _poison(db_url: str, store: ElementStore, document_id: str, before: datetime, value: str) -> None:
    """What an ingest before the date check left: ``value`` wherever the document's versions and element rows hold
    the date ``before`` (a version's start, the previous one's end, a retirement)."""
    versions = pgsql.SQL("UPDATE hke_document_versions SET {c} = %(value)s::timestamptz WHERE collection_id = %(id)s "
                         "AND document_id = %(doc)s AND {c} = %(before)s")
    rows = pgsql.SQL("UPDATE {t} SET {c} = %(value)s::timestamptz WHERE document_id = %(doc)s AND {c} = %(before)s")
    statements = [versions.format(c=pgsql.Identifier(c)) for c in ("valid_from", "valid_to", "retired_at")]
    statements += [rows.format(t=pgsql.Identifier(t), c=pgsql.Identifier(c))
                   for t, c in ((store.table, "valid_from"), (f"{store.table}_history", "valid_from"),
                                (f"{store.table}_history", "valid_to"))]
    with psycopg.connect(db_url, autocommit=True) as conn:
        for statement in statements:
            conn.execute(statement, {"value": value, "id": store.collection_id, "doc": document_id,
                                     "before": before})


def _unreadable(db_url: str, store: ElementStore) -> bool:
    """Whether psycopg fails to read the collection's version dates back, as every read did before the repair."""
    with psycopg.connect(db_url, autocommit=True) as conn:
        conn.execute("SET TIME ZONE 'UTC'")
        try:
            conn.execute("SELECT valid_from, valid_to, retired_at FROM hke_document_versions "
                         "WHERE collection_id = %s", (store.collection_id,)).fetchall()
        except psycopg.DataError:
            return True
    return False


def test_a_collection_holding_such_dates_is_repaired_when_opened_and_keeps_answering(
        db_url, collection, tmp_path, caplog):
    rules, old = tmp_path / "rules.md", tmp_path / "old.md"
    rules.write_text(RULES_V1, encoding="utf-8")
    old.write_text(OLD, encoding="utf-8")
    assert run("ingest", str(rules), str(old), "--collection", collection, "--valid-from", "2020-01-01")[0] == 0
    rules.write_text(RULES_V2, encoding="utf-8")
    assert run("ingest", str(rules), "--collection", collection, "--valid-from", "2021-01-01")[0] == 0
    assert run("remove", "old.md", "--collection", collection)[0] == 0
    store = open_store(collection, create=False)
    rules_id, old_id = (document_id_for(collection, str(p.resolve())) for p in (rules, old))
    retired = store.read.versions(old_id)[-1].retired_at
    _poison(db_url, store, rules_id, datetime(2020, 1, 1, tzinfo=UTC), BEFORE_YEAR_1)
    _poison(db_url, store, old_id, retired, AFTER_YEAR_9999)
    assert _unreadable(db_url, store), "the simulated rows must be what broke every read"

    with caplog.at_level(logging.WARNING, logger="core.store.element_store"):
        code, history, err = run("history", "rules.md", "--collection", collection)
    assert code == 0, err
    repaired = [r.getMessage() for r in caplog.records if "repaired" in r.getMessage()]
    assert len(repaired) == 1 and repr(collection) in repaired[0] and ACCEPTED_RANGE in repaired[0]
    assert "2 version(s)" in repaired[0]  # rules v1 (valid_from) and old's last version (retired_at)
    assert [v["valid_from"][:10] for v in history["versions"]] == ["0001-01-01", "2021-01-01"]
    assert history["versions"][0]["valid_to"][:10] == "2021-01-01"
    assert not _unreadable(db_url, store)

    code, current, err = run("ask", "How long does a loan last?", "--collection", collection)
    assert code == 0 and "21 days" in json.dumps(current), err
    code, then, err = run("ask", "How long does a loan last?", "--as-of", "2020-06-01", "--collection", collection)
    assert code == 0 and "14 days" in json.dumps(then), err
    code, early, err = run("ask", "How long does a loan last?", "--as-of", "0001-06-01", "--collection", collection)
    assert code == 0 and "14 days" in json.dumps(early), err
    code, changes, err = run("changes", "--since", "0001-01-01", "--collection", collection)
    assert code == 0 and "Traceback" not in err
    assert any(c["filename"] == "rules.md" and c["op"] == "modified" for c in changes["changes"])
    code, retired, err = run("history", "old.md", "--collection", collection)
    assert code == 0 and retired["versions"][-1]["retired_at"].startswith("9999-12-31T23:59:59.999999"), err
    code, said, err = run("ask", "What changed in the rules since 0001-01-01?", "--collection", collection)
    assert code == 0 and said["answered_from"] == "stored diffs", err
    assert open_store(collection, create=False).date_repair is None, "repaired once"
    for name in ("rules.md", "old.md"):
        code, purged, err = run("remove", name, "--purge", "--collection", collection)
        assert code == 0 and purged["purged"], err


def test_migrate_repairs_every_collection_holding_such_dates_and_says_so(db_url, collection, tmp_path):
    (tmp_path / "rules.md").write_text(RULES_V1, encoding="utf-8")
    assert run("ingest", str(tmp_path / "rules.md"), "--collection", collection,
               "--valid-from", "2020-01-01")[0] == 0
    store = open_store(collection, create=False)
    (doc,) = store.documents()
    _poison(db_url, store, doc.document_id, datetime(2020, 1, 1, tzinfo=UTC), "10000-01-01 00:00+00")
    assert _unreadable(db_url, store)
    report = migrate(db_url)
    assert [r.collection for r in report.date_repairs] == [collection]
    assert (report.date_repairs[0].versions, report.date_repairs[0].elements) == (1, doc.n_elements)
    assert not report.nothing_to_do and f"collection {collection!r}: repaired 1 version(s)" in report.summary()
    assert not _unreadable(db_url, store)
    assert open_store(collection, create=False).date_repair is None
    again = migrate(db_url)
    assert again.nothing_to_do and "nothing to migrate" in again.summary()
    code, history, err = run("history", "rules.md", "--collection", collection)
    assert code == 0 and history["versions"][0]["valid_from"].startswith("9999-12-31"), err
    assert history["versions"][0]["not_yet_valid"]


# -- M1: the ingest-time date is read under the document's lock ----------------------------------------------------


def _planned(store: ElementStore, source: SourceFile, valid_from: str | None = None):
    report = IngestReport()
    return _plan(store, [source], _stored_hashes(store), report, loader="markdown-it", max_bytes=1 << 20,
                 valid_from=valid_from), report


@pytest.mark.parametrize("valid_from", [None, "2024-01-01"])
def test_an_ingest_planned_before_another_stored_the_document_still_lands_as_a_replace(
        db_url, collection, valid_from):
    store = ElementStore(db_url, collection, HashEmbeddings())
    first, report = _planned(store, SourceFile("same.md", RULES_V1.encode()), valid_from)  # planned, not stored
    other = ingest(store, [SourceFile("same.md", RULES_V2.encode())], valid_from=valid_from)
    assert [f.status for f in other.files] == ["added"]
    _embed_and_store(store, first, report, batch_size=64, progress=None)
    assert not report.errors, report.errors
    assert [(f.status, f.version) for f in report.files] == [("replaced", 2)]
    assert report.added == 0 and report.replaced == 1
    (doc,) = store.documents()
    versions = store.read.versions(doc.document_id)
    assert [v.version for v in versions] == [1, 2] and versions[0].valid_from <= versions[1].valid_from
    source = "explicit" if valid_from else "ingest"
    assert {v.valid_from_source for v in versions} == {source}


def test_two_concurrent_ingests_of_one_file_name_with_no_date_both_succeed(db_url, collection):
    store = ElementStore(db_url, collection, HashEmbeddings())
    for round_ in range(3):
        reports: list[IngestReport] = []
        barrier = threading.Barrier(2)

        def one(text: str, barrier: threading.Barrier = barrier, reports: list[IngestReport] = reports) -> None:
            barrier.wait()
            reports.append(ingest(store, [SourceFile("shared.md", text.encode())]))

        texts = [RULES_V1.replace("100 won", f"{round_}{n} won") for n in (1, 2)]
        threads = [threading.Thread(target=one, args=(t,)) for t in texts]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert all(not r.errors for r in reports), [r.errors for r in reports]
    (doc,) = store.documents()
    versions = store.read.versions(doc.document_id)
    assert [v.version for v in versions] == list(range(1, 7))
    assert all(a.valid_from <= b.valid_from for a, b in zip(versions, versions[1:], strict=False))


def test_a_real_valid_from_conflict_keeps_its_message(db_url, collection):
    store = ElementStore(db_url, collection, HashEmbeddings())
    assert not ingest(store, [SourceFile("late.md", RULES_V1.encode())], valid_from="2024-01-01").errors
    report = ingest(store, [SourceFile("late.md", RULES_V2.encode())], valid_from="2023-01-01")
    (error,) = report.errors
    assert "before version 1" in error["reason"] and "Give a later --valid-from" in error["reason"]


def test_the_last_moment_of_year_9999_is_stored_and_read_back(db_url, collection):
    store = ElementStore(db_url, collection, HashEmbeddings())
    assert not ingest(store, [SourceFile("edge.md", RULES_V1.encode())], valid_from="9999-12-31T23:59:59Z").errors
    (doc,) = store.documents()
    (version,) = store.read.versions(doc.document_id)
    assert version.valid_from == datetime(9999, 12, 31, 23, 59, 59, tzinfo=UTC) and version.not_yet_valid


def test_changes_since_the_first_day_of_year_1_lists_every_change(collection, tmp_path):
    rules = tmp_path / "rules.md"
    rules.write_text(RULES_V1, encoding="utf-8")
    assert run("ingest", str(rules), "--collection", collection, "--valid-from", "2020-01-01")[0] == 0
    rules.write_text(RULES_V2, encoding="utf-8")
    assert run("ingest", str(rules), "--collection", collection, "--valid-from", "2021-01-01")[0] == 0
    code, listed, err = run("changes", "--since", "0001-01-01", "--collection", collection)
    assert code == 0 and "Traceback" not in err and "OverflowError" not in err
    # version(0001-01-01) -> version(now): the document was not yet in force at A, so it came in whole
    assert [(c["version"], c["op"]) for c in listed["changes"]] == [(2, "added")]
    code, said, err = run("ask", "What changed in the library rules since 0001-01-01?", "--collection", collection)
    assert code == 0 and said["answered_from"] == "stored diffs" and len(said["changes"]) == 1, err
