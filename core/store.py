"""The element store: parent-linked markdown elements in PGVector, one collection per corpus.

Reads and schema go through langchain-postgres' tables so that ``store.vectorstore`` is an ordinary
``PGVector``. Writes of one document go through a single psycopg transaction instead of
``PGVector.add_documents``: replacing a changed document must be atomic (delete old elements, copy new ones,
update its hash, all or nothing), and ``COPY`` avoids the 65,535-parameter limit of one insert.
"""

from __future__ import annotations

import json
import unicodedata
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import astuple, dataclass, field
from datetime import datetime
from typing import Any

import numpy as np
import psycopg
from langchain_core.documents import Document
from psycopg.types.json import Jsonb

from core.config import DEFAULT_COLLECTION, Settings, load_settings
from core.db.pool import _connect_kwargs, connection_pool, read_connection, schema_lock
from core.db.urls import psycopg_conninfo, sqlalchemy_url
from core.embeddings import EmbedderInfo, NamedEmbeddings, make_embeddings
from core.sql import elements as sql

COLLECTION_NAME_MAX = 63
# Element metadata key: sha256 of the exact text the element's vector was embedded from (the embedding cache key).
EMBEDDED_TEXT_SHA256 = "embedded_text_sha256"


class StoreError(RuntimeError):
    """A store problem the user can act on; the message says what to do."""


class EmbedderMismatchError(StoreError):
    """The collection's vectors came from another model: searching them with this one would be garbage."""


@dataclass(frozen=True)
class DocumentRecord:
    document_id: str
    source: str
    filename: str
    title: str | None
    content_hash: str
    loader: str
    n_elements: int
    n_bytes: int
    encoding: str | None = None
    front_matter: dict[str, Any] | None = None
    ingested_at: datetime | None = None


@dataclass(frozen=True)
class CollectionInfo:
    name: str
    documents: int
    elements: int
    embedder: EmbedderInfo | None
    options: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class CorpusStats:
    documents: int
    elements: int
    by_category_depth: list[tuple[str, int, int]]  # (category, depth, count)

    @property
    def by_category(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for category, _depth, n in self.by_category_depth:
            out[category] = out.get(category, 0) + n
        return out


# -- connections ------------------------------------------------------------------------------------


def _engine(url: str):
    """A SQLAlchemy engine, only so that ``PGVector`` can create its tables; every other query uses the pool.
    No pool of its own (NullPool): it is used once per collection, and :func:`close_pools` need not know of it."""
    from sqlalchemy import create_engine
    from sqlalchemy.pool import NullPool

    return create_engine(sqlalchemy_url(url), poolclass=NullPool,
                         connect_args=_connect_kwargs(psycopg_conninfo(url), ":sqlalchemy"))


def validate_collection_name(name: str) -> str:
    name = (name or "").strip()
    normal = unicodedata.normalize("NFKC", name)
    if normal != name:  # "ｄｅｆａｕｌｔ" would be a second collection that looks like "default"
        raise StoreError(f"collection name {name!r} uses full-width or other look-alike characters: "
                         f"write it as {normal!r}")
    if not name or len(name) > COLLECTION_NAME_MAX or not all(c.isalnum() or c in "-_." for c in name):
        raise StoreError(
            f"collection name {name!r} is not valid: use 1–{COLLECTION_NAME_MAX} letters, digits, '-', '_' or '.'"
        )
    return name


# -- the store --------------------------------------------------------------------------------------


class ElementStore:
    """One collection of parent-linked elements.

    ``create=False`` opens an existing collection only (readers should not create empty collections by
    looking at them). ``options`` are recorded on creation, e.g. ``{"contextual": True}``.
    """

    def __init__(
        self,
        url: str,
        collection: str = DEFAULT_COLLECTION,
        embeddings: NamedEmbeddings | None = None,
        *,
        create: bool = True,
        options: dict[str, Any] | None = None,
    ) -> None:
        self.url = url
        self.collection = validate_collection_name(collection)
        self.embeddings = embeddings or make_embeddings()
        self.pool = connection_pool(url)
        self._vectorstore = None
        self.collection_id, self.options = self._open(create=create, options=options or {})

    # -- opening --

    def _open(self, *, create: bool, options: dict[str, Any]) -> tuple[uuid.UUID, dict[str, Any]]:
        info = self.embeddings.info
        with self.pool.connection() as conn, schema_lock(conn, sql.SCHEMA_LOCK_KEY):
            self._check_table_dimension(conn, info)
            row = None
            if conn.execute(sql.TABLE_EXISTS, ("langchain_pg_collection",)).fetchone()[0]:
                row = conn.execute(sql.COLLECTION_BY_NAME, (self.collection,)).fetchone()
            if row is None:
                if not create:
                    raise StoreError(
                        f"collection {self.collection!r} does not exist yet: ingest documents into it first"
                    )
                self._create_with_pgvector(info, options)
                conn.commit()
            for statement in sql.CREATE_SCHEMA:
                conn.execute(statement)
            conn.commit()
            row = conn.execute(sql.COLLECTION_BY_NAME, (self.collection,)).fetchone()
        collection_id, meta = row[0], dict(row[1] or {})
        stored = EmbedderInfo.from_metadata(meta)
        if stored is None:
            raise EmbedderMismatchError(
                f"collection {self.collection!r} records no embedding model; it was not made by this app"
            )
        # Compared as plain values: Streamlit may reload core.embeddings, and instances of the old and the new
        # EmbedderInfo class are never equal even when every field is.
        if astuple(stored) != astuple(info):
            raise EmbedderMismatchError(
                f"collection {self.collection!r} holds vectors from {stored}, but the configured embedder is {info}. "
                f"Set HKE_EMBEDDINGS={stored.provider} to use it, or ingest into another --collection."
            )
        return collection_id, {k: v for k, v in meta.items() if not k.startswith("embedding_")}

    def _check_table_dimension(self, conn: psycopg.Connection, info: EmbedderInfo) -> None:
        if not conn.execute(sql.TABLE_EXISTS, ("langchain_pg_embedding",)).fetchone()[0]:
            return
        column_type = conn.execute(sql.EMBEDDING_COLUMN_TYPE).fetchone()[0]
        if column_type != f"vector({info.dimension})":
            raise EmbedderMismatchError(
                f"this database stores {column_type} embeddings, but {info} makes {info.dimension}-d vectors. "
                "One database holds one embedding size (the HNSW index needs it): use another HKE_DATA_DIR "
                "or DATABASE_URL for this embedder."
            )

    def _create_with_pgvector(self, info: EmbedderInfo, options: dict[str, Any]) -> None:
        from langchain_postgres import PGVector

        metadata = {**info.as_metadata(), **options}
        self._vectorstore = PGVector(
            embeddings=self.embeddings,
            collection_name=self.collection,
            connection=_engine(self.url),
            use_jsonb=True,
            embedding_length=info.dimension,
            collection_metadata=metadata,
            create_extension=False,
        )

    @property
    def vectorstore(self):
        """The same collection as a plain LangChain ``PGVector`` (no HNSW-aware scoping, no hierarchy)."""
        if self._vectorstore is None:
            from langchain_postgres import PGVector

            self._vectorstore = PGVector(
                embeddings=self.embeddings,
                collection_name=self.collection,
                connection=_engine(self.url),
                use_jsonb=True,
                embedding_length=self.embeddings.info.dimension,
                create_extension=False,
            )
        return self._vectorstore

    @property
    def contextual(self) -> bool:
        return bool(self.options.get("contextual"))

    # -- documents --

    def content_hashes(self) -> dict[str, str]:
        with self.pool.connection() as conn:
            return dict(conn.execute(sql.DOCUMENT_HASHES, (self.collection_id,)).fetchall())

    def documents(self) -> list[DocumentRecord]:
        with self.pool.connection() as conn:
            return [DocumentRecord(*row) for row in conn.execute(sql.LIST_DOCUMENTS, (self.collection_id,))]

    def document(self, document_id: str) -> DocumentRecord | None:
        with self.pool.connection() as conn:
            row = conn.execute(sql.GET_DOCUMENT, (self.collection_id, document_id)).fetchone()
        return DocumentRecord(*row) if row else None

    def find_documents(self, key: str) -> list[DocumentRecord]:
        """Documents whose id, source path or file name is ``key``."""
        return [d for d in self.documents() if key in (d.document_id, d.source, d.filename)]

    def replace_document(
        self,
        record: DocumentRecord,
        elements: Sequence[Document],
        vectors: np.ndarray,
        text_hashes: Sequence[str] | None = None,
    ) -> bool:
        """Store ``record`` with exactly ``elements``, atomically. Returns False if it was already stored as is.

        ``text_hashes`` (see :func:`core.ingest.text_sha256`) name the text each vector was embedded from and make
        the vectors reusable by the embedding cache; without them the elements are stored outside the cache
        (a key copied over in the elements' metadata is dropped, since it may describe another text).

        Another process may have stored the same content meanwhile; the per-document lock plus the hash
        re-check inside the transaction make concurrent ingests of one corpus idempotent.
        """
        if len(elements) != len(vectors):
            raise ValueError("one vector per element")
        if text_hashes is not None and len(text_hashes) != len(elements):
            raise ValueError("one text hash per element")
        with self.pool.connection() as conn, conn.transaction():
            conn.execute(sql.LOCK_DOCUMENT, (str(self.collection_id), record.document_id))
            current = conn.execute(sql.DOCUMENT_HASH, (self.collection_id, record.document_id)).fetchone()
            if current and current[0] == record.content_hash:
                return False
            conn.execute(sql.DELETE_DOCUMENT_ELEMENTS, (self.collection_id, record.document_id))
            with conn.cursor() as cur, cur.copy(sql.COPY_ELEMENTS) as copy:
                copy.set_types(sql.COPY_ELEMENT_TYPES)
                for i, (doc, vector) in enumerate(zip(elements, vectors, strict=True)):
                    meta = {k: v for k, v in doc.metadata.items() if k != EMBEDDED_TEXT_SHA256}
                    if text_hashes is not None:
                        meta[EMBEDDED_TEXT_SHA256] = text_hashes[i]
                    copy.write_row(
                        (meta["element_id"], self.collection_id, np.asarray(vector, dtype=np.float32),
                         doc.page_content, Jsonb(meta))
                    )
            conn.execute(
                sql.UPSERT_DOCUMENT,
                {
                    "collection_id": self.collection_id,
                    "document_id": record.document_id,
                    "source": record.source,
                    "filename": record.filename,
                    "title": record.title,
                    "content_hash": record.content_hash,
                    "loader": record.loader,
                    "n_elements": len(elements),
                    "n_bytes": record.n_bytes,
                    "encoding": record.encoding,
                    "front_matter": Jsonb(record.front_matter) if record.front_matter else None,
                },
            )
        return True

    def cached_vectors(self, text_hashes: Iterable[str]) -> dict[str, np.ndarray]:
        """Stored vectors of this embedder for the given text hashes, from any collection (the embedding cache)."""
        hashes = list(dict.fromkeys(text_hashes))
        if not hashes:
            return {}
        info = self.embeddings.info
        params = {"hashes": hashes, "provider": info.provider, "model": info.model, "dimension": str(info.dimension)}
        with read_connection(self.pool) as conn:
            rows = conn.execute(sql.CACHED_VECTORS, params).fetchall()
        return {key: np.asarray(vector, dtype=np.float32) for key, vector in rows}

    def has_vector_index(self) -> bool:
        with self.pool.connection() as conn:
            return bool(conn.execute(sql.VECTOR_INDEX_EXISTS).fetchone()[0])

    def ensure_vector_index(self, min_rows: int = 10_000) -> bool:
        """Build the HNSW index once the table holds ``min_rows`` vectors; True if it exists afterwards.

        Below that, an exact scan answers in a few milliseconds and ingest stays cheap: HNSW maintenance on
        every insert costs about as much as embedding the element.
        """
        with self.pool.connection() as conn:
            if conn.execute(sql.VECTOR_INDEX_EXISTS).fetchone()[0]:
                return True
            if conn.execute(sql.COUNT_EMBEDDINGS).fetchone()[0] < min_rows:
                return False
            with schema_lock(conn, sql.SCHEMA_LOCK_KEY):
                conn.execute("SET LOCAL maintenance_work_mem = '256MB'")
                conn.execute(sql.CREATE_VECTOR_INDEX)
                conn.commit()
        return True

    def remove_document(self, document_id: str) -> bool:
        with self.pool.connection() as conn, conn.transaction():
            conn.execute(sql.LOCK_DOCUMENT, (str(self.collection_id), document_id))
            conn.execute(sql.DELETE_DOCUMENT_ELEMENTS, (self.collection_id, document_id))
            return conn.execute(sql.DELETE_DOCUMENT, (self.collection_id, document_id)).rowcount > 0

    # -- elements --

    def elements(self, document_id: str) -> list[Document]:
        """All elements of one document, in document order."""
        with self.pool.connection() as conn:
            rows = conn.execute(sql.ELEMENTS_OF_DOCUMENT, (self.collection_id, document_id)).fetchall()
        return [_row_to_document(row) for row in rows]

    def get(self, ids: Iterable[str]) -> list[Document]:
        ids = list(dict.fromkeys(ids))
        if not ids:
            return []
        with self.pool.connection() as conn:
            rows = conn.execute(sql.ELEMENTS_BY_ID, (self.collection_id, ids)).fetchall()
        by_id = {row[0]: _row_to_document(row) for row in rows}
        return [by_id[i] for i in ids if i in by_id]

    def ancestors(self, ids: Iterable[str]) -> dict[str, Document]:
        """The given elements and all their ancestors, fetched in one round trip, keyed by element id."""
        ids = list(dict.fromkeys(ids))
        if not ids:
            return {}
        with read_connection(self.pool) as conn:
            rows = conn.execute(sql.ANCESTORS, {"collection_id": self.collection_id, "ids": ids}).fetchall()
        return {row[0]: _row_to_document(row) for row in rows}

    def stats(self) -> CorpusStats:
        with self.pool.connection() as conn:
            counts = [
                (c or "?", int(d), int(n))
                for c, d, n in conn.execute(sql.CATEGORY_DEPTH_COUNTS, (self.collection_id,))
            ]
            documents = len(conn.execute(sql.DOCUMENT_HASHES, (self.collection_id,)).fetchall())
        return CorpusStats(documents=documents, elements=sum(n for *_, n in counts), by_category_depth=counts)

    def drop(self) -> None:
        """Delete the collection with all its documents and elements."""
        with self.pool.connection() as conn, conn.transaction():
            conn.execute(sql.DELETE_COLLECTION, (self.collection_id,))


def _row_to_document(row: tuple) -> Document:
    element_id, text, meta = row
    meta = meta if isinstance(meta, dict) else json.loads(meta)
    return Document(id=element_id, page_content=text or "", metadata=meta)


def list_collections(url: str) -> list[CollectionInfo]:
    """Every collection in the database, with counts; empty if nothing was ever ingested."""
    pool = connection_pool(url)
    with pool.connection() as conn:
        if not conn.execute(sql.TABLE_EXISTS, ("hke_documents",)).fetchone()[0]:
            return []
        rows = conn.execute(sql.LIST_COLLECTIONS).fetchall()
    out = []
    for name, meta, documents, elements in rows:
        meta = dict(meta or {})
        options = {k: v for k, v in meta.items() if not k.startswith("embedding_")}
        out.append(CollectionInfo(name, int(documents), int(elements), EmbedderInfo.from_metadata(meta), options))
    return out


def open_store(
    collection: str = DEFAULT_COLLECTION,
    *,
    settings: Settings | None = None,
    embeddings: NamedEmbeddings | None = None,
    create: bool = True,
    options: dict[str, Any] | None = None,
) -> ElementStore:
    """The store for ``collection`` on the configured database (starting the embedded one if needed)."""
    from core.db import database_url

    settings = settings or load_settings()
    return ElementStore(
        database_url(settings),
        collection,
        embeddings or make_embeddings(settings=settings),
        create=create,
        options=options,
    )
