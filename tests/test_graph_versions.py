"""The graph index knows the versions it was built from: the documents that changed since are listed, and a
finding that cites text no longer current is withheld (with its report's summary) until the index is rebuilt."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.graph import current_reports, index_changes, load_reports
from core.graph.indexing.pipeline import IndexConfig, run_index
from core.ingest import SourceFile, ingest
from core.store import ElementStore
from tests.helpers_embeddings import HashEmbeddings

LEGAL = Path(__file__).resolve().parent.parent / "data" / "versions" / "legal" / "en"
OFFLINE = IndexConfig(extraction="offline", reports="extractive")
EXTRA = ("# Reading room rules\n\n## Quiet\n\n- Hanbit City Library members keep the reading room quiet.\n"
         "- The Hanbit City Library director sets reading room hours.\n")


def _put(store: ElementStore, name: str, text: str, day: str) -> None:
    assert not ingest(store, [SourceFile(name, text.encode())], valid_from=day).errors


@pytest.fixture
def indexed(db_url, collection_name):
    store = ElementStore(db_url, collection_name, HashEmbeddings())
    _put(store, "ordinance.md", (LEGAL / "library-ordinance-v1.md").read_text(encoding="utf-8"), "2020-01-01")
    _put(store, "rules.md", EXTRA, "2020-01-01")
    run_index(store, config=OFFLINE)
    yield store
    store.drop()


def _all_reports(store: ElementStore):
    return load_reports(store, kind=None)


def test_an_index_lists_no_change_until_a_document_gets_a_new_version(indexed):
    store = indexed
    assert index_changes(store) == []
    shown = current_reports(store, _all_reports(store))
    assert shown and all(c.withheld == 0 for c in shown)

    _put(store, "ordinance.md", (LEGAL / "library-ordinance-v2.md").read_text(encoding="utf-8"), "2021-07-01")
    changes = index_changes(store)
    assert [(c.filename, c.indexed, c.current) for c in changes] == [("ordinance.md", 1, 2)]

    current_ids = {e.element_id for d in store.documents() for e in store.elements(d.document_id)}
    shown = current_reports(store, _all_reports(store))
    assert any(c.withheld for c in shown), "some finding cited text that v2 changed"
    for c in shown:  # nothing shown in current mode cites text that left the collection
        assert all(i in current_ids for f in c.report.findings for i in f.element_ids)
        if c.withheld:
            assert c.report.summary == "" and c.report.full_content == ""

    run_index(store, config=OFFLINE)  # rebuilding brings every report up to date
    assert index_changes(store) == []
    assert all(c.withheld == 0 for c in current_reports(store, _all_reports(store)))


def test_a_retired_document_is_listed_and_its_facts_are_withheld(indexed):
    store = indexed
    rules = next(d for d in store.documents() if d.filename == "rules.md")
    cited_rules = {e.element_id for e in store.elements(rules.document_id)}
    assert store.write.remove_document(rules.document_id)
    assert [(c.filename, c.indexed, c.current) for c in index_changes(store)] == [("rules.md", 1, None)]
    for c in current_reports(store, _all_reports(store)):
        assert not any(i in cited_rules for f in c.report.findings for i in f.element_ids)
