"""The element table: PGVectorStore's layout with the hierarchy as real columns, one table per collection.

Guards: the fields live in real, typed columns (not in a JSON blob); the table has the shape
``PGEngine.init_vectorstore_table`` makes, so ``store.vectorstore`` (a ``PGVectorStore``) reads our elements; the
parent link is enforced inside a document, and a refused write loses nothing already stored; two collections
may hold vectors of different sizes in one database.
"""

from __future__ import annotations

import time
import uuid
from pathlib import Path

import numpy as np
import psycopg
import pytest
from langchain_core.documents import Document

from core.embeddings import EmbedderInfo, NamedEmbeddings
from core.ingest import ingest_paths
from core.retrieval.search import vector_search
from core.sql import elements as sql
from core.store import DocumentRecord, ElementStore, StoreError

SAMPLES = Path(__file__).resolve().parents[1] / "data" / "samples"


def _columns(store: ElementStore, table: str) -> dict[str, tuple[str, str]]:
    with store.pool.connection() as conn:
        rows = conn.execute("SELECT column_name, udt_name, is_nullable FROM information_schema.columns "
                            "WHERE table_schema = 'public' AND table_name = %s", (table,)).fetchall()
    return {name: (udt, nullable) for name, udt, nullable in rows}


@pytest.fixture
def spec_store(store):
    report = ingest_paths(store, [SAMPLES / "nova-24fl-monitor-ko.md", SAMPLES / "nova-32ux-monitor-en.md"])
    assert not report.errors, report.errors
    return store


def test_hierarchy_fields_are_typed_columns_that_match_the_metadata(spec_store):
    store = spec_store
    assert _columns(store, store.table) == {
        "element_id": ("text", "NO"), "content": ("text", "NO"), "embedding": ("vector", "NO"),
        "parent_id": ("text", "YES"), "document_id": ("text", "NO"), "category": ("text", "NO"),
        "category_depth": ("int4", "NO"), "order": ("int4", "NO"), "heading_path": ("_text", "NO"),
        "embedded_text_sha256": ("text", "YES"), "metadata": ("jsonb", "NO"), "fts": ("tsvector", "YES"),
        "since_version": ("int4", "NO"), "element_key": ("text", "YES"), "valid_from": ("timestamptz", "YES"),
    }
    doc = store.documents()[0]
    elements = store.elements(doc.document_id)
    with store.pool.connection() as conn:
        rows = conn.execute(store.statement(
            'SELECT element_id, parent_id, document_id, category, category_depth, "order", heading_path, metadata '
            'FROM {elements} WHERE document_id = %s ORDER BY "order"'), (doc.document_id,)).fetchall()
    assert len(rows) == len(elements) > 10
    for (element_id, parent_id, document_id, category, depth, order, path, rest), element in zip(
            rows, elements, strict=True):
        meta = element.metadata
        assert (element_id, parent_id, document_id, category, depth, order, path) == (
            meta["element_id"], meta["parent_id"], meta["document_id"], meta["category"], meta["category_depth"],
            meta["order"], meta["heading_path"])
        assert not set(rest) & {"element_id", "parent_id", "document_id", "heading_path"}, "stored once, as columns"
        assert rest["filename"] == meta["filename"] == doc.filename  # the other keys stay in the JSON column
        assert len(meta["embedded_text_sha256"]) == 64
    assert sum(1 for e in elements if e.metadata["parent_id"] is None) >= 1


def test_the_table_has_the_shape_pgvectorstore_creates(spec_store):
    """PGEngine.init_vectorstore_table with our column list makes the same table (but for json -> jsonb)."""
    from langchain_postgres import Column

    store = spec_store
    reference = f"hke_shape_{uuid.uuid4().hex[:8]}"
    columns = _columns(store, store.table)
    assert columns.pop(sql.FTS_COLUMN) == ("tsvector", "YES")  # ours only: generated, never written by a client
    # Ours only too: the version the row appeared in, its key across versions and the date it takes effect
    # (core.sql.versions); defaulted, so a row PGVectorStore adds is version 1 and its own key, and no read as of a
    # date sees it (no version holds it).
    assert (columns.pop("since_version"), columns.pop("element_key"), columns.pop("valid_from")) == (
        ("int4", "NO"), ("text", "YES"), ("timestamptz", "YES"))
    kinds = {"text": "TEXT", "int4": "INTEGER", "_text": "TEXT[]"}
    store.vectorstore  # noqa: B018 - makes the engine
    from core.store import pg_engine

    pg_engine(store.url).init_vectorstore_table(
        reference, store.embeddings.info.dimension, id_column=Column("element_id", "TEXT", nullable=False),
        content_column="content", embedding_column="embedding", metadata_json_column="metadata",
        metadata_columns=[Column(name, kinds[columns[name][0]], nullable=columns[name][1] == "YES")
                          for name in sql.METADATA_COLUMNS],
    )
    try:
        theirs = _columns(store, reference)
        assert theirs.pop("metadata") == ("json", "YES")
        ours = dict(columns)
        assert ours.pop("metadata") == ("jsonb", "NO")  # UNION in the recursive walks needs equality on it
        assert ours == theirs
    finally:
        with store.pool.connection() as conn:
            conn.execute(sql.bind("DROP TABLE {elements}", reference))


def test_pgvectorstore_returns_our_elements_from_the_real_columns(spec_store):
    store = spec_store
    vs = store.vectorstore
    from langchain_postgres import PGVectorStore

    assert isinstance(vs, PGVectorStore)
    found = vs.similarity_search("Nova 24FL 무게", k=4)
    assert len(found) == 4
    ours = {d.id: d for d in store.get([d.id for d in found])}
    for doc in found:
        mine = ours[doc.id]
        assert doc.page_content == mine.page_content
        for key in ("parent_id", "document_id", "category", "category_depth", "order", "heading_path"):
            assert doc.metadata[key] == mine.metadata[key], key
        assert doc.metadata["filename"] == mine.metadata["filename"]  # the JSON column's keys come along
    one = store.documents()[1]
    scoped = vs.similarity_search("warranty", k=3, filter={"document_id": one.document_id})
    assert scoped and {d.metadata["document_id"] for d in scoped} == {one.document_id}
    assert [d.id for d in vs.get_by_ids([found[0].id])] == [found[0].id]
    from sqlalchemy.pool import NullPool

    from core.store import pg_engine

    assert isinstance(pg_engine(store.url)._pool.pool, NullPool)  # PGEngine exposes its AsyncEngine only as _pool
    # So no connection of it stays open between calls. A server backend exits a moment after its client closed
    # the connection, so a closed one may still be listed briefly: a connection kept open stays listed.
    deadline = time.monotonic() + 5.0
    while True:
        with store.pool.connection() as conn:
            left = conn.execute("SELECT count(*) FROM pg_stat_activity WHERE application_name LIKE %s",
                                ("%:pgvectorstore",)).fetchone()[0]
        if left == 0 or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert left == 0


def _doc(document_id: str, element_id: str, parent_id: str | None, order: int, text: str) -> Document:
    return Document(id=element_id, page_content=text, metadata={
        "element_id": element_id, "parent_id": parent_id, "document_id": document_id, "category": "ListItem",
        "category_depth": 0, "order": order, "heading_path": [], "filename": f"{document_id}.md"})


def _record(document_id: str, content_hash: str, n: int) -> DocumentRecord:
    return DocumentRecord(document_id, f"{document_id}.md", f"{document_id}.md", None, content_hash, "test", n, 0)


def _vectors(n: int, dim: int, seed: int) -> np.ndarray:
    v = np.random.default_rng(seed).standard_normal((n, dim)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def test_a_parent_outside_the_document_is_refused_and_nothing_stored_is_lost(store):
    dim = store.embeddings.info.dimension
    a = [_doc("A", "a1", None, 0, "root of A"), _doc("A", "a2", "a1", 1, "child of A")]
    b = [_doc("B", "b1", None, 0, "root of B")]
    assert store.write.replace_document(_record("A", "h1", 2), a, _vectors(2, dim, 1))
    assert store.write.replace_document(_record("B", "h1", 1), b, _vectors(1, dim, 2))
    before = store.elements("A")

    # A new version of A whose child names B's root: the parent exists, but not in this document.
    bad = [_doc("A", "a1", None, 0, "root of A, v2"), _doc("A", "a3", "b1", 1, "child naming B's root")]
    with pytest.raises(StoreError, match=r"'A' was not stored: an element names a parent that is not in it.*b1"):
        store.write.replace_document(_record("A", "h2", 2), bad, _vectors(2, dim, 3))
    assert store.elements("A") == before and store.document("A").content_hash == "h1"

    # A new document whose child names a parent that does not exist at all: not stored, no record.
    with pytest.raises(StoreError, match="parent"):
        store.write.replace_document(_record("C", "h1", 1), [_doc("C", "c2", "missing", 0, "orphan")],
                                     _vectors(1, dim, 4))
    assert store.document("C") is None and store.elements("C") == []
    with store.pool.connection() as conn, pytest.raises(psycopg.errors.ForeignKeyViolation):
        conn.execute(store.statement('INSERT INTO {elements} (element_id, content, embedding, document_id, category, '
                                     '"order", parent_id) VALUES (%s, %s, %s, %s, %s, %s, %s)'),
                     ("x", "x", _vectors(1, dim, 5)[0], "B", "ListItem", 1, "a1"))  # the database refuses too


class _Hash384(NamedEmbeddings):
    info = EmbedderInfo("hash", "test-hash-384", 384)

    def embed_documents(self, texts):
        return [self.embed_query(t) for t in texts]

    def embed_query(self, text):
        return _vectors(1, 384, abs(hash(text)) % 2**32)[0].tolist()


def test_two_collections_hold_vectors_of_different_sizes_in_one_database(store):
    other = ElementStore(store.url, f"t_{uuid.uuid4().hex[:10]}", _Hash384())
    try:
        for s, seed in ((store, 1), (other, 2)):
            dim = s.embeddings.info.dimension
            vectors = _vectors(2, dim, seed)
            s.write.replace_document(_record("D", "h", 2), [_doc("D", "d1", None, 0, "root"), _doc("D", "d2", "d1", 1,
                                                                                              "leaf")], vectors)
            hits = vector_search(s, vectors[1], 1)
            assert [h.element_id for h in hits] == ["d2"]
        assert other.table != store.table
        assert _columns(store, other.table)["embedding"] == ("vector", "NO")
    finally:
        other.drop()
    with store.pool.connection() as conn:
        assert conn.execute(sql.TABLE_EXISTS, (other.table,)).fetchone()[0] is False  # drop removes the table


def _toasted_vectors(store: ElementStore) -> int:
    """How many stored vectors are kept out of line (in the table's TOAST relation)."""
    with store.pool.connection() as conn:
        return conn.execute(store.statement("SELECT count(*) FROM {elements} "
                                            "WHERE pg_column_toast_chunk_id(embedding) IS NOT NULL")).fetchone()[0]


def test_vectors_are_stored_inline_and_an_older_table_gets_the_setting_when_opened(store):
    dim = store.embeddings.info.dimension
    assert dim * 4 + 4 > 2032  # a 512-dimension vector is larger than Postgres' default row target
    docs = [_doc("A", "a1", None, 0, "root of A"), _doc("A", "a2", "a1", 1, "child of A")]
    assert store.write.replace_document(_record("A", "h1", 2), docs, _vectors(2, dim, 1))
    assert _toasted_vectors(store) == 0  # an exact scan reads no vector through the TOAST index
    # a row larger than a page is still stored whole: its largest values go out of line
    long_text = " ".join(f"word{i}" for i in range(20_000))
    assert store.write.replace_document(_record("B", "h1", 1), [_doc("B", "b1", None, 0, long_text)],
                                        _vectors(1, dim, 2))
    assert [e.text for e in store.elements("B")] == [long_text]
    history = f"{store.table}_history"
    with store.pool.connection() as conn:  # a table made before the setting: the default target
        for table in (store.table, history):
            conn.execute(f'ALTER TABLE "{table}" RESET (toast_tuple_target)')
    ElementStore(store.url, store.collection, store.embeddings)  # opening brings the table up to date
    with store.pool.connection() as conn:
        options = dict(conn.execute("SELECT relname, reloptions FROM pg_class WHERE relname = ANY(%s)",
                                    ([store.table, history],)).fetchall())
    assert options == {t: [sql.INLINE_ROWS_OPTION] for t in (store.table, history)}
