"""Each document's contribution to its collection's field words is stored (``hke_document_fields``), so that the
question after a change reads only the documents changed, and the words equal a reading of the whole collection.
Real Postgres; the hash embedder (nothing here is about similarity)."""

from __future__ import annotations

from core.ingest import SourceFile, ingest
from core.retrieval.lexicon import _read_fields, field_texts
from core.store.field_pairs import FieldPairTables
from core.store.reader import ElementReader

SHEETS = {
    "a.md": "# Nova 24FL\n\n## 사양\n\n* 무게 : 2.9 kg\n* 소비전력 : 20 W\n\n"
            "| 포트 | 개수 |\n| --- | --- |\n| HDMI | 2 |\n",
    "b.md": "# Nova 27QX\n\n## Specs\n\n* Weight : 4.1 kg\n* Panel type : IPS\n",
    "c.md": "# Sora Tote\n\n## 상품 정보\n\n* 제조국 : 중국\n* 소재 : 나일론\n",
}


def _whole(store, headings):
    texts = [(e.text, e.category or "") for d in store.read.document_ids() for e in store.read.elements(d)]
    return field_texts(texts, headings)


def _ingest(store, files):
    report = ingest(store, [SourceFile(name, data=text.encode()) for name, text in files.items()])
    assert not report.errors, report.errors


def test_a_change_reads_only_the_changed_document_and_the_words_equal_a_whole_reading(hash_store, monkeypatch):
    store = hash_store
    _ingest(store, SHEETS)
    headings = ["사양", "Specs", "상품 정보"]
    words, items = _read_fields(store, headings)
    assert words == _whole(store, headings)
    assert {"무게", "weight", "제조국", "포트"} <= set(words)
    assert set(items) >= {"무게", "Weight", "제조국"} and all(len(h) == 64 for hs in items.values() for h in hs)
    assert len(FieldPairTables(store).read_documents()) == 3

    read = []
    elements = ElementReader.elements
    monkeypatch.setattr(ElementReader, "elements", lambda self, d: read.append(d) or elements(self, d))
    assert _read_fields(store, headings) == (words, items)
    assert read == []  # nothing changed: no document read again

    _ingest(store, {"b.md": SHEETS["b.md"].replace("Panel type", "Refresh rate")})
    read.clear()  # the ingest's own reads
    changed, _ = _read_fields(store, headings)
    assert len(read) == 1  # the one document changed
    assert "refresh rate" in changed and "panel type" not in changed
    monkeypatch.undo()
    assert changed == _whole(store, headings)


def test_a_removed_document_leaves_the_words_and_its_row_is_forgotten(hash_store):
    store = hash_store
    _ingest(store, SHEETS)
    assert "제조국" in _read_fields(store, [])[0]
    store.write.remove_document(next(d.document_id for d in store.documents() if d.filename == "c.md"))
    words, items = _read_fields(store, [])
    assert "제조국" not in words and "제조국" not in items
    assert len(FieldPairTables(store).read_documents()) == 2
