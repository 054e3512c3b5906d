"""Releases as folder snapshots (``ingest DIR --valid-from D --snapshot``): documents dropped in a release are retired
as of its date and never read as of a later one; a page moved or renamed between files is linked as a move, with
the stable keys of the elements that matched; ``--label``; ``remove --valid-to``; and the bad input: an empty or
unrelated folder, a retirement before the last version, a snapshot older than what is stored, two snapshots at once.

Each release is written to one folder path (as a user copies release after release over one checkout) and
ingested through the CLI; the hash embedder stands in for the model (no test here is about similarity).
"""

from __future__ import annotations

import contextlib
import io
import json
import shutil
import uuid
from datetime import UTC, datetime
from pathlib import Path

import psycopg
import pytest

from core.cli import main
from core.db.urls import psycopg_conninfo
from core.ingest import document_id_for
from tests.helpers_embeddings import HashEmbeddings
from tests.test_migrate import scratch_url as scratch_url  # the fixture

PARAGRAPHS = [f"Paragraph {i} of the overview explains topic number {i} in enough words to be its own text."
              for i in range(6)]
USAGE = ("# Usage\n\nCall the parser on a file.\n\n## Options\n\n- strict: refuse unknown keys\n"
         "- lenient: keep going\n\n## Errors\n\nAn error names the file and the line.\n")
R1 = {
    "intro.md": "# Intro\n\nWelcome to the project.\n\n## Install\n\nRun the installer once.\n",
    "changes.md": "# Changes\n\nVersion 1.0 was the first release of the project.\n",
    "index.md": "# Overview\n\n" + "\n\n".join(PARAGRAPHS) + "\n",
    "api/usage.md": USAGE,
}
R2 = {
    "intro.md": "# Intro\n\nWelcome to the project, now in release two.\n\n## Install\n\nRun the installer once.\n",
    "overview.md": "# Overview\n\n" + "\n\n".join([*PARAGRAPHS[:5], PARAGRAPHS[5] + " It was revised."]) + "\n",
    "guide/usage.md": USAGE,
    "news.md": "# News\n\nNothing in common with any page of the first release.\n",
}
D1, D2 = "2021-03-01", "2022-03-01"


def _write_release(folder: Path, files: dict[str, str]) -> None:
    if folder.exists():
        shutil.rmtree(folder)
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text, encoding="utf-8")


def _run(*args: str) -> tuple[int, dict | None, str]:
    """(exit status, the JSON printed on success, stderr) of one CLI command."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([*args, "--json"])
    return code, (json.loads(out.getvalue()) if code == 0 else None), err.getvalue()


@pytest.fixture(scope="module")
def released(db_url, tmp_path_factory):
    """Two releases of one docs folder, snapshot-ingested at their dates with labels."""
    from core.store import open_store

    folder = tmp_path_factory.mktemp("proj") / "docs"
    collection = f"snap_{uuid.uuid4().hex[:8]}"
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("core.store.element_store.make_embeddings", lambda *a, **k: HashEmbeddings())
        reports = []
        for files, date, label in ((R1, D1, "1.0"), (R2, D2, "2.0")):
            _write_release(folder, files)
            code, report, err = _run("ingest", str(folder), "--collection", collection, "--valid-from", date,
                                     "--snapshot", "--label", label)
            assert code == 0, err
            reports.append(report)
        store = open_store(collection, create=False)
        ids = {name: document_id_for(collection, str((folder / name).resolve())) for name in {*R1, *R2}}
        yield {"collection": collection, "folder": folder, "store": store, "ids": ids, "reports": reports,
               "patch": patch}
        store.drop()


@pytest.fixture
def cli(released, monkeypatch):
    monkeypatch.setattr("core.store.element_store.make_embeddings", lambda *a, **k: HashEmbeddings())

    def run(*args: str) -> tuple[int, dict | None, str]:
        return _run(*args, "--collection", released["collection"])

    return run


def at(day: str) -> datetime:
    return datetime.fromisoformat(day).replace(tzinfo=UTC)


def test_documents_dropped_in_a_release_are_retired_as_of_its_date(released, cli):
    retired = {r["path"].rsplit("docs/", 1)[1]: r for r in released["reports"][1]["retired"]}
    assert set(retired) == {"changes.md", "index.md", "api/usage.md"}
    assert {r["retired_at"][:10] for r in retired.values()} == {D2}
    code, history, _ = cli("history", released["ids"]["changes.md"])
    assert code == 0 and history["retired"] and history["versions"][-1]["retired_at"][:10] == D2


def test_a_retired_document_is_never_read_as_of_a_later_date(released, cli):
    store, gone = released["store"], released["ids"]["changes.md"]
    assert store.as_of(at("2021-06-01")).elements(gone)  # in force between the two releases
    for day in (D2, "2022-03-02", "2030-01-01"):
        assert store.as_of(at(day)).elements(gone) == []
        assert gone not in {v.document_id for v in store.read.versions_at(at(day))}
    code, _, err = cli("show", gone, "--as-of", "2023-01-01")
    assert code != 0 and f"retired on {D2}" in err
    code, shown, _ = cli("show", gone, "--as-of", "2021-06-01")
    assert code == 0 and shown["version"] == 1
    from core.retrieval import RetrievalRequest, retrieve

    question = "Version 1.0 was the first release of the project"
    assert gone in retrieve(store, RetrievalRequest(question, k=8, as_of=at("2021-06-01"))).versions
    later = retrieve(store, RetrievalRequest(question, k=8, as_of=at("2022-06-01")))
    assert gone not in later.versions and all(h.element.document_id != gone for h in later.hits)


def test_changes_date_a_dropped_document_at_its_release_not_at_the_ingest(released, cli):
    code, found, _ = cli("changes", "--since", "2022-01-01")
    removed = [c for c in found["changes"] if c["retired"]]
    assert [c["document_id"] for c in removed] == [released["ids"]["changes.md"]]
    assert removed[0]["valid_from"] == D2
    code, later, _ = cli("changes", "--since", "2024-01-01")
    assert code == 0 and later["changes"] == []


def test_a_renamed_and_a_moved_page_are_linked_both_ways(released, cli):
    ids = released["ids"]
    for old, new in (("index.md", "overview.md"), ("api/usage.md", "guide/usage.md")):
        code, history, _ = cli("history", ids[new])
        assert code == 0 and history["versions"][0]["moved_from"] == ids[old]
        assert history["versions"][0]["moved_from_source"].endswith(f"docs/{old}")
        code, history, _ = cli("history", ids[old])
        assert history["versions"][-1]["moved_to"] == ids[new] and history["versions"][-1]["retired_at"][:10] == D2
    reported = {r["document_id"]: r.get("moved_to") for r in released["reports"][1]["retired"]}
    assert reported == {ids["index.md"]: ids["overview.md"], ids["api/usage.md"]: ids["guide/usage.md"],
                        ids["changes.md"]: None}


def test_an_unrelated_new_page_is_not_a_move(released, cli):
    code, history, _ = cli("history", released["ids"]["news.md"])
    assert code == 0 and history["versions"][0]["moved_from"] is None


def test_diff_of_a_moved_page_reports_the_move_and_keeps_the_matched_keys(released, cli):
    ids, store = released["ids"], released["store"]
    code, diff, _ = cli("diff", ids["overview.md"])
    assert code == 0 and diff["from"]["document_id"] == ids["index.md"]
    ops = [c["op"] for c in diff["changes"]]
    assert ops[0] == "moved" and diff["changes"][0]["path"] == []
    assert ops.count("modified") == 1 and "added" not in ops and "removed" not in ops
    old_keys = {e.text: e.element_key for e in store.read.version_elements(ids["index.md"], 1)}
    new_keys = {e.text: e.element_key for e in store.read.version_elements(ids["overview.md"], 1)}
    for text in ("Overview", *PARAGRAPHS[:5]):
        assert new_keys[text] == old_keys[text]
    edited = next(c for c in diff["changes"] if c["op"] == "modified")
    assert edited["key"] == old_keys[PARAGRAPHS[5]]


def test_changes_report_a_move_once_at_the_document_level(released, cli):
    code, found, _ = cli("changes", "--since", "2022-01-01")
    moved = [c for c in found["changes"] if c["op"] == "moved" and c["path"] == []]
    assert {c["document_id"] for c in moved} == {released["ids"]["overview.md"], released["ids"]["guide/usage.md"]}
    assert all(c["valid_from"] == D2 for c in moved)
    gone = {c["document_id"] for c in found["changes"] if c["retired"]}
    assert released["ids"]["index.md"] not in gone and released["ids"]["api/usage.md"] not in gone


def test_a_what_changed_answer_names_the_move_not_a_retirement(released):
    from core.answering.changes import answer_changes, change_question

    answer = answer_changes(released["store"], change_question("What changed since 2022-01-01?"))
    folder = released["folder"]
    assert f"moved on {D2}: {folder / 'index.md'} → {folder / 'overview.md'}" in answer.text
    assert {c.filename for c in answer.changes if c.retired} == {"changes.md"}
    assert answer.text.count("the whole document retired") == 1


def test_labels_are_kept_and_shown_beside_the_date(released, cli):
    code, history, _ = cli("history", released["ids"]["intro.md"])
    assert [v["label"] for v in history["versions"]] == ["1.0", "2.0"]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["history", released["ids"]["intro.md"], "--collection", released["collection"]]) == 0
    assert f"v2 [2.0]: valid from {D2}" in out.getvalue()


def test_answers_show_the_label_beside_the_date_of_the_version_read(released, cli):
    code, answer, err = cli("ask", "How do I run the installer?", "--as-of", "2022-06-01")
    assert code == 0, err
    read = [p for p in answer["provenance"] if p["document_id"] == released["ids"]["intro.md"]]
    assert read and {p["label"] for p in read} == {"2.0"}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        main(["ask", "How do I run the installer?", "--as-of", "2021-06-01", "--collection", released["collection"]])
    assert f"valid from {D1} [1.0]" in out.getvalue()


def test_an_unchanged_snapshot_again_changes_nothing(released, cli):
    code, report, err = cli("ingest", str(released["folder"]), "--valid-from", D2, "--snapshot")
    assert code == 0, err
    assert report["unchanged"] == len(R2) and "retired" not in report and report["added"] == 0


# -- bad input ------------------------------------------------------------------------------------------


@pytest.fixture
def one_release(db_url, tmp_path, monkeypatch):
    """A fresh collection holding R1 as a snapshot; (run, folder, store)."""
    from core.store import open_store

    monkeypatch.setattr("core.store.element_store.make_embeddings", lambda *a, **k: HashEmbeddings())
    collection = f"snapb_{uuid.uuid4().hex[:8]}"
    folder = tmp_path / "docs"
    _write_release(folder, R1)

    def run(*args: str) -> tuple[int, dict | None, str]:
        return _run(*args, "--collection", collection)

    assert run("ingest", str(folder), "--valid-from", D1, "--snapshot")[0] == 0
    store = open_store(collection, create=False)
    yield run, folder, store
    store.drop()


def test_an_empty_snapshot_folder_is_refused_before_anything_is_retired(one_release):
    run, folder, store = one_release
    _write_release(folder, {})
    folder.mkdir()
    code, _, err = run("ingest", str(folder), "--valid-from", D2, "--snapshot")
    assert code == 2 and f"none of the {len(R1)} document(s)" in err and "--yes" in err
    assert len(store.documents()) == len(R1)
    code, report, err = run("ingest", str(folder), "--valid-from", D2, "--snapshot", "--yes")
    assert code == 0, err
    assert len(report["retired"]) == len(R1) and store.documents() == []


def test_a_folder_holding_none_of_the_collections_documents_is_refused(one_release):
    run, folder, store = one_release
    _write_release(folder, {"other.md": "# Other\n\nA page that was never here.\n"})
    code, _, err = run("ingest", str(folder), "--valid-from", D2, "--snapshot")
    assert code == 2 and f"all {len(R1)} would be retired as of {D2}" in err
    assert len(store.documents()) == len(R1)  # nothing retired, nothing added


def test_a_snapshot_older_than_what_is_stored_is_refused(one_release):
    run, folder, store = one_release
    _write_release(folder, R2)
    code, _, err = run("ingest", str(folder), "--valid-from", "2020-01-01", "--snapshot")
    assert code == 2 and "date order" in err and D1 in err
    assert len(store.documents()) == len(R1)


def test_a_snapshot_needs_a_date_and_one_folder(one_release):
    run, folder, _store = one_release
    code, _, err = run("ingest", str(folder), "--snapshot")
    assert code == 2 and "--valid-from" in err
    code, _, err = run("ingest", str(folder), str(folder / "intro.md"), "--valid-from", D2, "--snapshot")
    assert code == 2 and "one folder" in err


def test_a_document_ingested_by_a_relative_path_belongs_to_the_folder_only_from_that_directory(one_release,
                                                                                                monkeypatch):
    run, folder, store = one_release
    (folder / "extra.md").write_text("# Extra\n\nAdded by hand, by a relative path.\n", encoding="utf-8")
    monkeypatch.chdir(folder.parent)
    assert run("ingest", "docs/extra.md", "--valid-from", "2021-06-01")[0] == 0
    (folder / "extra.md").unlink()
    elsewhere = folder.parent / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)  # "docs/extra.md" names another file from here: the snapshot leaves it alone
    code, report, err = run("ingest", str(folder), "--valid-from", D2, "--snapshot")
    assert code == 0, err
    assert "retired" not in report and len(store.documents()) == len(R1) + 1
    monkeypatch.chdir(folder.parent)
    code, report, err = run("ingest", str(folder), "--valid-from", D2, "--snapshot")
    assert code == 0, err
    assert [r["path"] for r in report["retired"]] == ["docs/extra.md"]


def test_remove_valid_to_retires_at_that_date(one_release):
    run, folder, store = one_release
    doc = document_id_for(store.collection, str((folder / "intro.md").resolve()))
    code, payload, err = run("remove", doc, "--valid-to", "2021-09-01")
    assert code == 0, err
    assert payload["retired_at"].startswith("2021-09-01")
    assert store.as_of(at("2021-08-31")).elements(doc) and store.as_of(at("2021-09-01")).elements(doc) == []


def test_remove_valid_to_before_the_last_version_is_refused_naming_both_dates(one_release):
    run, folder, store = one_release
    doc = document_id_for(store.collection, str((folder / "intro.md").resolve()))
    code, _, err = run("remove", doc, "--valid-to", "2020-06-01")
    assert code == 2 and "2020-06-01" in err and D1 in err
    assert store.read.last_version(doc).retired_at is None and store.elements(doc)


# -- two processes at once ------------------------------------------------------------------------------


def test_overlapping_snapshots_from_two_processes_serialise_in_date_order(one_release):
    from tests.test_concurrency import _result, _start

    run, folder, store = one_release
    _write_release(folder, R2)
    first = _start("snapshot", store.collection, str(folder), "2022-03-01")
    second = _start("snapshot", store.collection, str(folder), "2023-03-01")
    results = [_result(*first), _result(*second)]
    refused = [r for r in results if "refused" in r]
    assert len(refused) <= 1 and all("date order" in r["refused"] for r in refused)
    # Whichever ran first, R2's files are current and R1's dropped files each retired once, at one snapshot's date.
    current = {Path(d.source).relative_to(folder).as_posix() for d in store.documents()}
    assert current == set(R2)
    for doc, _source, _name, _retired in store.read.versioned_documents():
        versions = store.read.versions(doc)
        dates = [v.valid_from for v in versions]
        assert dates == sorted(dates)
        assert all(v.valid_to == w.valid_from for v, w in zip(versions, versions[1:], strict=False))
    retired = [store.read.last_version(document_id_for(store.collection, str((folder / n).resolve())))
               for n in set(R1) - set(R2)]
    assert all(v.retired_at is not None for v in retired) and len({v.retired_at for v in retired}) == 1
    assert store.read.orphans().total == 0


# -- migration ----------------------------------------------------------------------------------------------


def test_a_collection_made_before_labels_and_moves_gets_their_columns_on_open(scratch_url, tmp_path):  # noqa: F811
    from core.ingest import ingest_paths
    from core.sql import elements as element_sql
    from core.store import ElementStore

    with psycopg.connect(psycopg_conninfo(scratch_url), autocommit=True) as conn:
        for statement in element_sql.CREATE_SCHEMA:  # the registry in the scratch schema, not the run's public one
            conn.execute(statement)
    (tmp_path / "a.md").write_text("# A\n\nOne page.\n", encoding="utf-8")
    store = ElementStore(scratch_url, "before_moves", HashEmbeddings())
    assert ingest_paths(store, [tmp_path], valid_from=D1).added == 1
    with psycopg.connect(psycopg_conninfo(scratch_url), autocommit=True) as conn:
        conn.execute("ALTER TABLE hke_document_versions DROP COLUMN label, DROP COLUMN moved_from, "
                     "DROP COLUMN moved_to")
    reopened = ElementStore(scratch_url, "before_moves", HashEmbeddings(), create=False)
    doc = document_id_for("before_moves", str((tmp_path / "a.md").resolve()))
    versions = reopened.read.versions(doc)
    assert len(versions) == 1 and versions[0].label is None and versions[0].moved_from is None
    (tmp_path / "b.md").write_text("# B\n\nAnother page.\n", encoding="utf-8")
    report = ingest_paths(reopened, [tmp_path], valid_from=D2, snapshot=True, label="2")
    assert report.added == 1 and reopened.read.versions(doc)[0].label is None


# -- the Document tree's History view -----------------------------------------------------------------------


def test_the_history_view_shows_the_move_and_the_changes_against_the_old_document(db_url, use_embeddings, tmp_path):
    from streamlit.testing.v1 import AppTest

    from core.ingest import ingest_paths
    from core.store import ElementStore
    from tests.helpers_pages import unescape

    from .conftest import ROOT

    store = ElementStore(db_url, f"snapp_{uuid.uuid4().hex[:8]}", use_embeddings)  # the pages' own embedder
    folder = tmp_path / "docs"
    try:
        for files, date, label in ((R1, D1, "1.0"), (R2, D2, "2.0")):
            _write_release(folder, files)
            assert not ingest_paths(store, [folder], valid_from=date, label=label, snapshot=True).errors
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
        at.session_state["collection"] = store.collection
        at = at.switch_page("pages/document_tree.py").run()
        box = at.selectbox[0]
        at = box.select(next(o for o in box.options if o.endswith("overview.md"))).run()
        at = at.radio(key="tree_view").set_value("History").run()
        assert not at.exception, at.exception
        shown = unescape(" ".join(str(e.value) for kind in ("markdown", "caption", "info")
                                  for e in getattr(at, kind)))
        assert "Moved here from **index.md**:" in shown and str(folder) not in shown  # below the shared folder
        assert "This document has one version" not in shown and not at.select_slider
        assert f"Since v1 · {D1} · 1.0: " in shown  # the old document's last version, with its label
    finally:
        store.drop()
