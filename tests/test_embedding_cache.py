"""The element-level embedding cache: a text is embedded once per embedder, whatever collection or edit needs it.

The cache is the stored elements (each records the sha256 of the text its vector was embedded from), so these
tests also pin down pruning: a vector goes when the last element holding it goes.
"""

from __future__ import annotations

import uuid
from pathlib import Path

import numpy as np
import pytest
from langchain_core.documents import Document

from core.embeddings import NamedEmbeddings, make_embeddings
from core.ingest import embedding_text, ingest_paths, text_sha256
from core.store import EMBEDDED_TEXT_SHA256, DocumentRecord, ElementStore

from .helpers_embeddings import HashEmbeddings

N_ITEMS = 99  # + the title: a 100-element document


def _long_doc(path: Path, edited: int | None = None) -> Path:
    items = [f"* setting {i} : value {i * 7}" for i in range(N_ITEMS)]
    if edited is not None:
        items[edited] = f"* setting {edited} : edited value"
    path.write_text("# Settings reference\n\n" + "\n".join(items) + "\n", encoding="utf-8")
    return path


def _vectors(store: ElementStore) -> dict[str, np.ndarray]:
    """Stored vector per embedded text, read back from the database."""
    out = {}
    for doc in store.documents():
        elements = store.elements(doc.document_id)
        hashes = [text_sha256(embedding_text(e, store.contextual)) for e in elements]
        cached = store.cached_vectors(hashes)
        for element, key in zip(elements, hashes, strict=True):
            assert element.metadata[EMBEDDED_TEXT_SHA256] == key
            out[embedding_text(element, store.contextual)] = cached[key]
    return out


@pytest.fixture
def fresh_store(db_url):
    stores: list[ElementStore] = []

    def make(*, contextual: bool = False, embeddings: NamedEmbeddings | None = None) -> ElementStore:
        store = ElementStore(db_url, f"cache_{uuid.uuid4().hex[:10]}", embeddings or make_embeddings("use"),
                             options={"contextual": True} if contextual else None)
        stores.append(store)
        return store

    yield make
    for store in stores:
        store.drop()


def test_editing_one_list_item_embeds_one_text(fresh_store, tmp_path):
    store = fresh_store()
    path = _long_doc(tmp_path / "settings.md")
    first = ingest_paths(store, [path])
    assert first.elements == N_ITEMS + 1 and first.texts_embedded == N_ITEMS + 1 and first.cache_hits == 0
    before = _vectors(store)

    _long_doc(path, edited=42)
    second = ingest_paths(store, [path])
    assert second.replaced == 1 and second.elements == N_ITEMS + 1
    assert (second.texts_embedded, second.cache_hits, second.embedding_calls) == (1, N_ITEMS, 1)
    after = _vectors(store)
    unchanged = set(before) & set(after)
    assert len(unchanged) == N_ITEMS
    assert all(np.array_equal(before[t], after[t]) for t in unchanged)
    [edited] = set(after) - set(before)
    assert edited == "setting 42 : edited value"
    fresh = np.asarray(make_embeddings("use").embed_documents([edited])[0], np.float32)
    assert np.allclose(after[edited], fresh, atol=1e-6)


def test_a_second_collection_over_the_same_files_embeds_nothing(fresh_store, tmp_path):
    files = [_long_doc(tmp_path / "settings.md"), tmp_path / "other.md"]
    files[1].write_text("# Other\n\nA paragraph of its own.\n\n* setting 3 : value 21\n", encoding="utf-8")
    first_store, second_store = fresh_store(), fresh_store()
    first = ingest_paths(first_store, files)
    # "setting 3 : value 21" appears in both files: embedded once, the second time it is a hit.
    assert first.texts_embedded == first.elements - 1 and first.cache_hits == 1
    second = ingest_paths(second_store, files)
    assert second.added == 2 and second.elements == first.elements
    assert (second.texts_embedded, second.embedding_calls, second.cache_hits) == (0, 0, first.elements)
    first_vectors, second_vectors = _vectors(first_store), _vectors(second_store)
    assert first_vectors.keys() == second_vectors.keys()
    assert all(np.array_equal(first_vectors[t], second_vectors[t]) for t in first_vectors)


def test_contextual_texts_embed_once_per_distinct_text(fresh_store, tmp_path):
    doc = tmp_path / "guide.md"
    doc.write_text(
        "# Guide\n\n## Setup\n\n* check the cable\n\n## Repair\n\n* check the cable\n\n* check the cable\n",
        encoding="utf-8",
    )
    plain, contextual, again = fresh_store(), fresh_store(contextual=True), fresh_store(contextual=True)
    ingest_paths(plain, [doc])
    texts = [embedding_text(e, True) for d in plain.documents() for e in plain.elements(d.document_id)]
    plain_texts = {embedding_text(e, False) for d in plain.documents() for e in plain.elements(d.document_id)}
    # "Guide > Repair > check the cable" twice in the document, "Guide" itself already embedded by the plain one.
    assert len(texts) > len(set(texts))
    report = ingest_paths(contextual, [doc])
    assert report.texts_embedded == len(set(texts) - plain_texts) == len(set(texts)) - 1
    assert report.cache_hits == len(texts) - report.texts_embedded
    assert ingest_paths(again, [doc]).texts_embedded == 0


def test_removing_or_replacing_prunes_vectors_no_element_holds(fresh_store, tmp_path):
    store, other = fresh_store(), fresh_store()
    path = _long_doc(tmp_path / "settings.md")
    shared = tmp_path / "shared.md"
    shared.write_text("# Settings reference\n\n* setting 0 : value 0\n", encoding="utf-8")
    ingest_paths(store, [path])
    ingest_paths(other, [shared])  # holds two of the same texts
    all_keys = [text_sha256(f"setting {i} : value {i * 7}") for i in range(N_ITEMS)]
    assert len(store.cached_vectors(all_keys)) == N_ITEMS

    _long_doc(path, edited=5)  # the old item 5 is held by no element any more
    ingest_paths(store, [path])
    assert text_sha256("setting 5 : value 35") not in store.cached_vectors(all_keys)

    [record] = store.documents()
    assert store.write.remove_document(record.document_id)
    left = store.cached_vectors([*all_keys, text_sha256("Settings reference")])
    # Only what the other collection still holds survives.
    assert set(left) == {text_sha256("setting 0 : value 0"), text_sha256("Settings reference")}
    readded = ingest_paths(store, [path])
    assert (readded.texts_embedded, readded.cache_hits) == (N_ITEMS - 1, 2)

    other.drop()
    assert text_sha256("setting 0 : value 0") in store.cached_vectors(all_keys)  # still held by ``store``


def test_another_embedder_never_reuses_the_vectors(fresh_store, tmp_path):
    path = _long_doc(tmp_path / "settings.md")
    ingest_paths(fresh_store(), [path])
    other = fresh_store(embeddings=HashEmbeddings())
    report = ingest_paths(other, [path])
    assert (report.texts_embedded, report.cache_hits) == (N_ITEMS + 1, 0)


def test_elements_stored_without_text_hashes_stay_out_of_the_cache(fresh_store, tmp_path):
    """Copied metadata (e.g. a derived collection re-embedding elements) must not carry another text's key."""
    source, copy = fresh_store(), fresh_store()
    ingest_paths(source, [_long_doc(tmp_path / "settings.md")])
    [record] = source.documents()
    elements = source.elements(record.document_id)
    assert all(EMBEDDED_TEXT_SHA256 in e.metadata for e in elements)
    copied = [Document(page_content=e.page_content, metadata={**e.metadata, "element_id": f"copy-{i}",
                                                              "parent_id": None, "document_id": "copy"})
              for i, e in enumerate(elements)]
    noise = np.random.default_rng(0).standard_normal((len(elements), 512)).astype(np.float32)
    copy.write.replace_document(DocumentRecord("copy", "copy.md", "copy.md", None, "h", "test", len(elements), 0),
                          copied, noise)
    assert all(EMBEDDED_TEXT_SHA256 not in e.metadata for e in copy.elements("copy"))
    keys = [e.metadata[EMBEDDED_TEXT_SHA256] for e in elements]
    source.drop()
    assert copy.cached_vectors(keys) == {}
