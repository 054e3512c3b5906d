"""Versions in the store: every changed ingest is a version that shares unchanged elements, reads as of a date see
the version valid then, retire keeps the history and purge removes it, with no orphan rows either way."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

import numpy as np
import pytest

from core.ingest import SourceFile, ingest
from core.store import ElementStore, VersionOrderError
from core.versions import resolve_valid_from
from tests.helpers_embeddings import HashEmbeddings

ITEMS = [f"* Rule {i}: the fee for item {i} is {10 + i} won." for i in range(98)]
V1 = "# Fee schedule\n\n## Items\n\n" + "\n".join(ITEMS) + "\n"
V2 = V1.replace("the fee for item 41 is 51 won.", "the fee for item 41 is 999 won.")


def at(day: str) -> datetime:
    return datetime.fromisoformat(day).replace(tzinfo=UTC)


@pytest.fixture
def versioned(db_url, collection_name):
    store = ElementStore(db_url, collection_name, HashEmbeddings())
    yield store
    store.drop()


def _ingest(store: ElementStore, text: str, day: str):
    report = ingest(store, [SourceFile("fees.md", text.encode())], valid_from=day)
    assert not report.errors, report.errors
    return report


def test_one_edited_item_is_one_new_element_and_one_embedded_text(versioned):
    store = versioned
    first = _ingest(store, V1, "2024-01-01")
    assert first.texts_embedded == 100
    again = _ingest(store, V1, "2024-06-01")  # identical: no version, nothing embedded
    assert again.texts_embedded == 0 and again.unchanged == 1
    doc_id = store.documents()[0].document_id
    assert [v.version for v in store.read.versions(doc_id)] == [1]

    second = _ingest(store, V2, "2024-03-01")
    assert second.texts_embedded == 1
    versions = store.read.versions(doc_id)
    assert [(v.version, v.modified, v.added, v.removed) for v in versions] == [(1, 0, 100, 0), (2, 1, 0, 0)]
    assert versions[0].valid_to == versions[1].valid_from == at("2024-03-01")
    assert store.read.storage(doc_id)["history_rows"] > 0
    # The edited item's old text is history: current reads never see it, reads as of February do.
    current = [e.text for e in store.elements(doc_id)]
    assert "Rule 41: the fee for item 41 is 999 won." in current
    assert not any("51 won" in t for t in current)
    old = [e.text for e in store.as_of(at("2024-02-01")).elements(doc_id)]
    assert "Rule 41: the fee for item 41 is 51 won." in old and not any("999 won" in t for t in old)
    assert len(old) == len(current) == 100
    # The edited item keeps its key across versions.
    key_then = next(e.element_key for e in store.as_of(at("2024-02-01")).elements(doc_id) if "51 won" in e.text)
    key_now = next(e.element_key for e in store.elements(doc_id) if "999 won" in e.text)
    assert key_then == key_now
    assert store.read.orphans().total == 0


def test_reads_as_of_a_date_before_the_first_version_find_nothing(versioned):
    store = versioned
    _ingest(store, V1, "2024-01-01")
    doc_id = store.documents()[0].document_id
    assert store.as_of(at("2023-12-31")).elements(doc_id) == []
    assert len(store.as_of(at("2024-01-01")).elements(doc_id)) == 100


def test_a_renamed_heading_gives_its_subtree_old_order_back_as_of_then(versioned):
    store = versioned
    _ingest(store, V1, "2024-01-01")
    _ingest(store, V1.replace("## Items", "## Items and fees"), "2024-05-01")
    doc_id = store.documents()[0].document_id
    then = store.as_of(at("2024-02-01")).elements(doc_id)
    assert [e.text for e in then[:2]] == ["Fee schedule", "Items"]
    assert [e.order for e in then] == list(range(100))
    now = store.elements(doc_id)
    assert now[1].text == "Items and fees"
    versions = store.read.versions(doc_id)
    assert versions[-1].renamed == 1 and versions[-1].modified == 0


def test_a_version_dated_before_the_latest_is_refused_and_nothing_changes(versioned):
    store = versioned
    _ingest(store, V1, "2024-05-01")
    report = ingest(store, [SourceFile("fees.md", V2.encode())], valid_from="2024-01-01")
    assert report.errors and "date order" in report.errors[0]["reason"]
    doc_id = store.documents()[0].document_id
    assert [v.version for v in store.read.versions(doc_id)] == [1]
    assert any("51 won" in e.text for e in store.elements(doc_id))
    with pytest.raises(VersionOrderError, match="date order"):
        record = store.documents()[0]
        elements = store.elements(doc_id)
        store.write.replace_document(replace(record, content_hash="other"), elements,
                               np.zeros((len(elements), store.embeddings.info.dimension), dtype=np.float32),
                               valid_from=resolve_valid_from(explicit="2020-01-01"))


def test_retire_keeps_the_history_and_purge_removes_it(versioned):
    store = versioned
    _ingest(store, V1, "2024-01-01")
    _ingest(store, V2, "2024-03-01")
    doc_id = store.documents()[0].document_id
    assert store.write.remove_document(doc_id, when=at("2024-06-01"))
    assert store.documents() == [] and store.elements(doc_id) == []
    assert len(store.as_of(at("2024-04-01")).elements(doc_id)) == 100
    assert store.as_of(at("2024-07-01")).elements(doc_id) == []
    versions = store.read.versions(doc_id)
    assert versions[-1].retired_at == at("2024-06-01") and versions[-1].valid_to == at("2024-06-01")
    assert store.read.orphans().total == 0
    # Ingested again after retirement: version 3, the history intact.
    _ingest(store, V2, "2024-08-01")
    assert [v.version for v in store.read.versions(doc_id)] == [1, 2, 3]
    assert store.as_of(at("2024-07-01")).elements(doc_id) == []
    assert store.read.orphans().total == 0
    assert store.write.remove_document(doc_id, purge=True)
    assert store.read.versions(doc_id) == []
    assert store.as_of(at("2024-04-01")).elements(doc_id) == []
    assert store.read.storage(doc_id) == {"current_rows": 0, "history_rows": 0, "version_rows": 0,
                                          "source_blocks": 0}
    assert store.read.orphans().total == 0


def test_a_question_as_of_a_date_reads_only_the_version_valid_then(versioned):
    from core.retrieval import QuestionError, RetrievalRequest, retrieve

    store = versioned
    _ingest(store, V1, "2024-01-01")
    _ingest(store, V2, "2024-03-01")
    question = "What is the fee for item 41?"
    then = retrieve(store, RetrievalRequest(question, k=3, as_of=at("2024-02-01")))
    now = retrieve(store, RetrievalRequest(question, k=3))
    for retrieval, right, wrong in ((then, "51 won", "999 won"), (now, "999 won", "51 won")):
        for context in (retrieval.plain, retrieval.hierarchical):
            assert right in context.text and wrong not in context.text, context.text
    assert {v.version for v in then.versions.values()} == {1}
    assert {v.version for v in now.versions.values()} == {2}
    again = retrieve(store, RetrievalRequest(question, k=3, as_of=at("2024-02-01")))
    assert again.hierarchical.text == then.hierarchical.text and again.plain.text == then.plain.text
    with pytest.raises(QuestionError, match="no version of any document .* existed on 2023-06-01"):
        retrieve(store, RetrievalRequest(question, as_of=at("2023-06-01")))


def test_two_ingests_of_one_document_at_once_serialise_and_keep_the_history_in_date_order(versioned):
    from concurrent.futures import ThreadPoolExecutor

    store = versioned
    _ingest(store, V1, "2024-01-01")
    fees = {"2024-02-01": "111 won", "2024-03-01": "222 won", "2024-04-01": "333 won"}
    texts = {day: V1.replace("is 10 won.", f"is {fee}.") for day, fee in fees.items()}
    with ThreadPoolExecutor(max_workers=3) as pool:
        reports = dict(zip(texts, pool.map(
            lambda day: ingest(store, [SourceFile("fees.md", texts[day].encode())], valid_from=day), texts),
            strict=True))
    doc_id = store.documents()[0].document_id
    versions = store.read.versions(doc_id)
    stored = [v.valid_from for v in versions]
    assert stored == sorted(stored) and [v.version for v in versions] == list(range(1, len(versions) + 1))
    for day, report in reports.items():  # each one is stored, or refused because a later-dated one came first
        assert not report.errors or "date order" in report.errors[0]["reason"], report.errors
        assert (at(day) in stored) == (not report.errors)
    latest = max(d for d, r in reports.items() if not r.errors)
    assert [e.text for e in store.elements(doc_id)] == [e.text for e in store.as_of(at(latest)).elements(doc_id)]
    assert any(fees[latest] in e.text for e in store.elements(doc_id))
    assert store.read.orphans().total == 0


def test_a_future_front_matter_date_is_kept_and_marked_not_yet_valid(versioned):
    store = versioned
    _ingest(store, V1, "2024-01-01")
    future = "---\neffective: 2099-01-01\n---\n" + V2
    assert not ingest(store, [SourceFile("fees.md", future.encode())]).errors
    doc_id = store.documents()[0].document_id
    latest = store.read.versions(doc_id)[-1]
    assert (latest.valid_from, latest.valid_from_source, latest.not_yet_valid) == (at("2099-01-01"), "front_matter",
                                                                                    True)
    assert any("999 won" in e.text for e in store.elements(doc_id)), "current mode shows the latest version"
    today = [e.text for e in store.as_of(datetime.now(UTC)).elements(doc_id)]
    assert any("51 won" in t for t in today) and not any("999 won" in t for t in today)


def test_a_front_matter_date_that_does_not_parse_is_refused_and_the_stored_version_stays(versioned):
    store = versioned
    _ingest(store, V1, "2024-01-01")
    bad = "---\neffective: 1 March 2024\n---\n" + V2
    report = ingest(store, [SourceFile("fees.md", bad.encode())])
    assert report.errors and "YYYY-MM-DD" in report.errors[0]["reason"], report.errors
    doc_id = store.documents()[0].document_id
    assert [v.version for v in store.read.versions(doc_id)] == [1]
    assert any("51 won" in e.text for e in store.elements(doc_id))


def test_elements_a_later_version_moved_are_read_as_of_then_in_their_place_then(versioned):
    """A row a later version keeps stores that version's order and lines; read as of a date it is where the
    version valid then had it, in element reads, in hits and in the children a heading brings."""
    from core.retrieval import RetrievalRequest, retrieve

    store = versioned
    _ingest(store, V1, "2024-01-01")
    doc_id = store.documents()[0].document_id
    question = "What is the fee for item 50?"
    before = retrieve(store, RetrievalRequest(question, k=3, as_of=at("2024-02-01")))
    then_before = {e.element_id: (e.order, e.start_line, e.end_line) for e in store.elements(doc_id)}
    new_items = "\n".join(f"* New rule {i}: item {i} is free." for i in range(5))
    _ingest(store, V1.replace("## Items\n\n", f"## Items\n\n{new_items}\n"), "2024-06-01")
    moved = {e.element_id: (e.order, e.start_line) for e in store.elements(doc_id)}
    kept = [i for i in then_before if i in moved]
    assert all(moved[i] != then_before[i][:2] for i in kept[2:])  # every kept item moved down by five

    then = store.as_of(at("2024-02-01"))
    assert {e.element_id: (e.order, e.start_line, e.end_line) for e in then.elements(doc_id)} == then_before
    assert {i: (e.order, e.start_line, e.end_line) for i, e in then.read.ancestors(kept[-3:]).items()} == {
        i: then_before[i] for i in then.read.ancestors(kept[-3:])}
    # The same question and date give the same result, byte for byte, after a later version is recorded.
    after = retrieve(store, RetrievalRequest(question, k=3, as_of=at("2024-02-01")))
    assert [(h.element.element_id, h.element.order, h.element.start_line) for h in after.hits] == [
        (h.element.element_id, h.element.order, h.element.start_line) for h in before.hits]
    assert after.hierarchical.text == before.hierarchical.text and after.plain.text == before.plain.text
    assert "New rule" not in after.hierarchical.text + after.plain.text


def test_rows_stored_before_they_carried_their_dates_get_them_when_the_collection_opens(versioned, db_url):
    store = versioned
    _ingest(store, V1, "2024-01-01")
    _ingest(store, V2, "2024-03-01")
    store.write.remove_document(store.documents()[0].document_id, when=at("2024-09-01"))
    doc_id = store.read.versioned_documents()[0][0]
    expected = {day: [(e.element_id, e.order, e.text) for e in store.as_of(at(day)).elements(doc_id)]
                for day in ("2024-02-01", "2024-04-01", "2024-10-01")}
    assert len(expected["2024-02-01"]) == len(expected["2024-04-01"]) == 100 and expected["2024-10-01"] == []
    with store.pool.connection() as conn:  # the tables as the release before row dates made them
        conn.execute(store.statement("ALTER TABLE {elements} DROP COLUMN valid_from"))
        conn.execute(store.statement("ALTER TABLE {history} DROP COLUMN valid_from, DROP COLUMN valid_to"))

    reopened = ElementStore(db_url, store.collection, HashEmbeddings(), create=False)
    assert {day: [(e.element_id, e.order, e.text) for e in reopened.as_of(at(day)).elements(doc_id)]
            for day in expected} == expected
    assert reopened.read.orphans().total == 0


def test_a_version_dated_by_its_ingest_is_in_force_at_once(versioned):
    # Its valid_from is read in Python while its file is prepared, after the write's transaction (whose start is
    # recorded_at) began: the ingest's own date is never "not yet valid".
    store = versioned
    report = ingest(store, [SourceFile("a.md", b"# A\n\nOne.\n"), SourceFile("b.md", b"# B\n\nTwo.\n")])
    assert not report.errors
    for doc in store.documents():
        version = store.read.versions(doc.document_id)[-1]
        assert (version.valid_from_source, version.not_yet_valid) == ("ingest", False)
    assert not any(f.not_yet_valid for f in report.files)
