"""Versions at corpus scale: the bilingual legal ordinance (data/versions/legal, four dated versions in Korean and
English) ingested in date order with real embeddings; every gold as-of question is answered from the version valid
then and from nothing else; the repealed article and the renumbered one; identical re-ingest; retire and purge
leave no orphan rows."""

from __future__ import annotations

import json
from datetime import datetime

import pytest

from core.ingest import SourceFile, ingest
from core.ingest.parsing import parse_source
from core.ingest.pipeline import document_id_for
from core.retrieval import QuestionError, RetrievalRequest, retrieve
from core.versions import parse_date

from .conftest import ROOT

LEGAL = ROOT / "data" / "versions" / "legal"
GOLD = json.loads((LEGAL / "gold.json").read_text(encoding="utf-8"))
QUESTIONS = [(lang, q) for lang, qs in GOLD["as_of"].items() for q in qs]


def _moment(text: str) -> datetime:
    return parse_date(text)[0]


def _file(lang: str, version: str) -> tuple[str, bytes]:
    return f"{lang}/library-ordinance.md", (LEGAL / GOLD["files"][lang].format(version=version)).read_bytes()


@pytest.fixture(scope="module")
def legal(db_url, use_embeddings):
    """The ordinance's four versions in both languages, each dated by its front matter (`effective:`)."""
    from core.store import ElementStore

    store = ElementStore(db_url, "legal_versions", use_embeddings)
    for version in GOLD["versions"]:
        report = ingest(store, [SourceFile(*_file(lang, version)) for lang in GOLD["files"]])
        assert not report.errors, report.errors
        assert report.added + report.replaced == 2
    yield store
    store.drop()


def _doc(store, lang: str) -> str:
    return document_id_for(store.collection, f"upload:{lang}/library-ordinance.md")


def test_each_version_takes_effect_on_its_front_matter_date(legal):
    for lang in GOLD["files"]:
        versions = legal.read.versions(_doc(legal, lang))
        assert [v.valid_from for v in versions] == [_moment(d) for d in GOLD["versions"].values()]
        assert {v.valid_from_source for v in versions} == {"front_matter"}
        assert [v.valid_to for v in versions[:-1]] == [v.valid_from for v in versions[1:]]
    assert legal.read.orphans().total == 0


@pytest.mark.parametrize(("lang", "question"), QUESTIONS, ids=[f"{lang}-{q['date']}-{q['question'][:12]}"
                                                                for lang, q in QUESTIONS])
def test_an_as_of_question_reads_only_the_version_valid_then(legal, lang, question):
    when = _moment(question["date"]) if len(question["date"]) == 10 else datetime.fromisoformat(
        question["date"].replace("Z", "+00:00"))
    if question["version"] is None:  # before the first version: nothing to answer from
        with pytest.raises(QuestionError, match="no version of any document"):
            retrieve(legal, RetrievalRequest(question["question"], k=4, as_of=when))
        return
    got = retrieve(legal, RetrievalRequest(question["question"], k=4, as_of=when))
    expected = {}  # per document: the element ids of the file valid at D, parsed apart from the store
    for doc_lang in GOLD["files"]:
        doc_id = _doc(legal, doc_lang)
        name, data = _file(doc_lang, question["version"])
        expected[doc_id] = {d.metadata["element_id"] for d in parse_source(data, name=name, source=name,
                                                                           document_id=doc_id)[0]}
    assert got.versions, "no hit"
    for doc_id, version in got.versions.items():
        assert version.valid_from == _moment(GOLD["versions"][question["version"]])
        assert set(legal.read.layout(doc_id, version.version).element_ids) == expected[doc_id]
    shown = [(h.element.document_id, h.element_id) for h in got.hits]
    shown += [(e.document_id, e.element_id) for c in (got.plain, got.hierarchical) for e in c.elements]
    assert shown and all(element_id in expected[doc_id] for doc_id, element_id in shown)
    text = got.plain.text + got.hierarchical.text
    if question.get("absent"):
        assert question["absent"] not in text
    elif question["answer"]:
        assert question["answer"] in got.hierarchical.text


@pytest.mark.parametrize(("lang", "heading", "items"), [
    ("ko", "제6조(휴관일)", "도서관의 정기휴관일은 매주 월요일로 한다"),
    ("en", "Article 6 (Closing days)", "closed every Monday"),
])
def test_the_repealed_article_is_there_until_the_repeal_and_gone_after(legal, lang, heading, items):
    doc_id = _doc(legal, lang)
    before = legal.as_of(_moment("2023-02-28")).elements(doc_id)
    after = legal.as_of(_moment("2023-03-01")).elements(doc_id)
    assert heading in [e.text for e in before] and any(items in e.text for e in before)
    assert heading not in [e.text for e in after] and not any(items in e.text for e in after)
    assert [e.order for e in before] == list(range(len(before)))
    assert [e.order for e in after] == list(range(len(after)))


@pytest.mark.parametrize(("lang", "old", "new"), [("ko", "제7조(준용)", "제8조(준용)"),
                                                  ("en", "Article 7 (Other matters)", "Article 8 (Other matters)")])
def test_the_renumbered_article_keeps_its_key_and_shows_its_number_of_the_day(legal, lang, old, new):
    doc_id = _doc(legal, lang)
    then = {e.text: e for e in legal.as_of(_moment("2024-08-31")).elements(doc_id)}
    now = {e.text: e for e in legal.as_of(_moment("2024-09-01")).elements(doc_id)}
    assert old in then and new not in then
    assert new in now and old not in now
    assert then[old].element_key == now[new].element_key
    assert legal.read.versions(doc_id)[-1].renamed >= 1


def test_identical_reingest_makes_no_version_and_embeds_nothing(legal):
    before = {lang: len(legal.read.versions(_doc(legal, lang))) for lang in GOLD["files"]}
    report = ingest(legal, [SourceFile(*_file(lang, "v4")) for lang in GOLD["files"]])
    assert report.unchanged == 2 and report.texts_embedded == 0
    assert {lang: len(legal.read.versions(_doc(legal, lang))) for lang in GOLD["files"]} == before


def test_retire_then_purge_leave_no_orphans(db_url, use_embeddings, collection_name):
    from core.store import ElementStore

    store = ElementStore(db_url, collection_name, use_embeddings)
    try:
        for version in GOLD["versions"]:
            ingest(store, [SourceFile(*_file("en", version))])
        doc_id = _doc(store, "en")
        assert store.write.remove_document(doc_id, when=_moment("2025-01-01"))
        assert store.read.orphans().total == 0
        assert store.elements(doc_id) == []
        assert store.as_of(_moment("2025-01-02")).elements(doc_id) == []
        assert any("14 days" in e.text for e in store.as_of(_moment("2020-06-01")).elements(doc_id))
        assert store.write.remove_document(doc_id, purge=True)
        assert store.read.orphans().total == 0
        assert store.read.versions(doc_id) == []
        assert store.as_of(_moment("2020-06-01")).elements(doc_id) == []
    finally:
        store.drop()


def test_headings_as_of_a_date_follow_a_version_recorded_after_they_were_read(db_url, collection_name):
    from core.retrieval.heading_cache import heading_index
    from core.store import ElementStore
    from tests.helpers_embeddings import HashEmbeddings

    def heading_texts(at: ElementStore) -> list[str]:
        return [h.text for h in heading_index(at).headings.values()]

    store = ElementStore(db_url, collection_name, HashEmbeddings())
    try:
        ingest(store, [SourceFile("en/library-ordinance.md", _file("en", "v3")[1])], valid_from="2024-01-01")
        then = store.as_of(_moment("2024-10-01"))
        assert "Article 7 (Other matters)" in heading_texts(then)
        assert heading_index(then) is heading_index(store.as_of(_moment("2024-11-01"))), "same versions: one index"
        ingest(store, [SourceFile("en/library-ordinance.md", _file("en", "v4")[1])], valid_from="2024-09-01")
        texts = heading_texts(then)
        assert "Article 8 (Other matters)" in texts and "Article 7 (Other matters)" not in texts
        assert "Article 7 (Other matters)" in heading_texts(store.as_of(_moment("2024-08-01")))
    finally:
        store.drop()
