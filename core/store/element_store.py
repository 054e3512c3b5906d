"""The element store: parent-linked markdown elements, one collection per corpus, one table per collection.

A collection is a row of ``hke_collections`` and a table in ``PGVectorStore``'s layout (langchain-postgres' v2
API) whose hierarchy fields are real columns (``core.sql.elements``), so ``store.vectorstore`` is an ordinary
``PGVectorStore`` over the same rows. The product's own reads and writes go through the one psycopg pool:
replacing a document must be atomic (delete old elements, copy new ones, update its hash, all or nothing), and
``COPY`` avoids the 65,535-parameter limit of one insert; the hierarchy walks, scoped search and full-text
ranking are SQL of our own (``core.sql.retrieval``).

Writes, and the reads an ingest decides on (stored hashes, the embedding cache, the registry when a collection is
opened), use the primary's pool (``store.pool``); reads for questions, pages and evaluation use ``store.reader``:
the standbys of ``DATABASE_READ_URL`` when there are any (``core.db.replicas``), else the same pool.
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import re
import threading
import uuid
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import astuple
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import numpy as np
import psycopg
from langchain_core.documents import Document
from psycopg.types.json import Jsonb

from core.config import DEFAULT_COLLECTION, Settings, load_settings
from core.db.pool import (
    PGVECTORSTORE_SUFFIX,
    ConnectionSource,
    _connect_kwargs,
    connection_pool,
    read_connection,
    schema_lock,
)
from core.db.replicas import configured_read_urls, reader
from core.db.urls import psycopg_conninfo, sqlalchemy_url
from core.elements import Element
from core.embeddings import EmbedderInfo, NamedEmbeddings, make_embeddings
from core.sql import elements as sql
from core.sql import headings as heading_sql
from core.sql import terms as term_sql
from core.sql import versions as version_sql
from core.store import old_layout
from core.store.reader import ElementReader
from core.store.records import (
    SIBLING_SEPARATOR,
    CollectionGoneError,
    CollectionInfo,
    CollectionMissingError,
    CorpusStats,
    DocumentRecord,
    EmbedderMismatchError,
    StoreError,
    VersionOrderError,
    validate_collection_name,
)
from core.store.rows import EMBEDDED_TEXT_SHA256 as EMBEDDED_TEXT_SHA256  # the metadata key, public here
from core.store.rows import element_row, heading_row
from core.textnorm import NAME_WORDS_VERSION
from core.versions import ValidFrom, match_versions

# The kinds of change a version counts (core.versions.matching's ops but "unchanged").
CHANGE_OPS = ("added", "removed", "modified", "moved", "renamed")
_BLOCK_END = re.compile(rb"(?<=\n\n)")

if TYPE_CHECKING:
    from langchain_postgres import PGEngine, PGVectorStore


# -- the old layout ---------------------------------------------------------------------------------


def _refuse_legacy_layout(conn: psycopg.Connection) -> None:
    if old_layout.pending(conn):
        raise StoreError(old_layout.message())


def _ensure_schema(conn: psycopg.Connection) -> None:
    """The registry and document tables, brought up to the current shape; call under the schema lock."""
    if not conn.execute(sql.SCHEMA_READY).fetchone()[0]:
        for statement in sql.CREATE_SCHEMA:
            conn.execute(statement)
        conn.execute(sql.MARK_OLD_SIBLINGS)


# -- the store --------------------------------------------------------------------------------------


class ElementStore:
    """One collection of parent-linked elements, in its own table.

    ``create=False`` opens an existing collection only (readers should not create empty collections by
    looking at them). ``options`` are recorded on creation, e.g. ``{"contextual": True}``. A sibling (see
    :meth:`sibling`) is opened with ``sibling_of``, its base's id. ``read_urls`` are the standbys that serve its
    reads; by default ``DATABASE_READ_URL``'s when ``url`` is ``DATABASE_URL``.
    """

    def __init__(
        self,
        url: str,
        collection: str = DEFAULT_COLLECTION,
        embeddings: NamedEmbeddings | None = None,
        *,
        create: bool = True,
        options: dict[str, Any] | None = None,
        sibling_of: uuid.UUID | None = None,
        read_urls: Sequence[str] | None = None,
    ) -> None:
        self.url = url
        self.sibling_of = sibling_of
        self.read_urls = tuple(read_urls) if read_urls is not None else configured_read_urls(url)
        self.collection = validate_collection_name(collection) if sibling_of is None else collection
        self.embeddings = embeddings or make_embeddings()
        self.pool = connection_pool(url)
        if self.read_urls:
            reader(url, self.read_urls)  # the router exists before the first write: that write's position counts
        self._vectorstore: PGVectorStore | None = None
        self.as_of_date: datetime | None = None  # see as_of
        self.collection_id, self.options = self._open(create=create, options=options or {})
        self.table = sql.table_name(self.collection_id)
        self._fill_derived_tables()

    def sibling(self, kind: str, *, create: bool = False, options: dict[str, Any] | None = None) -> ElementStore:
        """The collection's sibling of ``kind`` (``<name>:<kind>``): a collection of its own that no user name can
        collide with, hidden from listings and dropped with this one. ``create=False`` raises StoreError if there
        is none."""
        return ElementStore(self.url, f"{self.collection}{SIBLING_SEPARATOR}{kind}", self.embeddings, create=create,
                            options=options, sibling_of=self.collection_id, read_urls=self.read_urls)

    @contextlib.contextmanager
    def job_lock(self, job: str) -> Iterator[None]:
        """Held by one process (or thread) at a time for ``job`` on this collection. On a connection of its own: a
        long job holding one of the pool's few connections while it needs another could starve the pool."""
        digest = hashlib.sha256(f"{job}\x1f{self.collection_id}".encode()).digest()
        conninfo = psycopg_conninfo(self.url)
        with psycopg.connect(conninfo, **_connect_kwargs(conninfo)) as conn, \
                schema_lock(conn, int.from_bytes(digest[:8], "big", signed=True)):
            yield

    def exists(self) -> bool:
        """Whether the collection is still registered (another process may have dropped it)."""
        with read_connection(self.pool) as conn:
            return bool(conn.execute(sql.COLLECTION_EXISTS, (self.collection_id,)).fetchone()[0])

    def gone_error(self, exc: psycopg.errors.UndefinedTable) -> CollectionGoneError | None:
        """What to tell the user when ``exc`` says this collection's table vanished; None if it is about another."""
        return self.gone() if self.table in str(exc) else None

    def gone(self) -> CollectionGoneError:
        return CollectionGoneError(
            f"collection {self.collection!r} no longer exists: it was dropped while this was running. Pick another "
            "collection (`python -m core collections` lists them) or ingest into this one again"
        )

    @property
    def reader(self) -> ConnectionSource:
        """Where reads for questions, pages and evaluation go: a standby, or the primary when none can serve."""
        return reader(self.url, self.read_urls) if self.read_urls else self.pool

    def primary_only(self) -> ElementStore:
        """This store with its reads on the primary too, for work that writes from what it reads (index, sync)."""
        twin = copy.copy(self)
        twin.read_urls = ()
        return twin

    @property
    def read(self) -> ElementReader:
        """The reads of this collection's elements, its term counts and its heading index (``core.store.reader``)."""
        return ElementReader(self, as_of=self.as_of_date)

    def statement(self, template: str) -> str:
        """A statement template of ``core.sql`` bound to this collection's element table."""
        return sql.bind(template, self.table)

    # -- opening --

    def _open(self, *, create: bool, options: dict[str, Any]) -> tuple[uuid.UUID, dict[str, Any]]:
        info = self.embeddings.info
        with self.pool.connection() as conn, schema_lock(conn, sql.SCHEMA_LOCK_KEY):
            _refuse_legacy_layout(conn)
            _ensure_schema(conn)
            row = conn.execute(sql.COLLECTION_BY_NAME, (self.collection,)).fetchone()
            if row is None:
                if not create:
                    raise CollectionMissingError(
                        f"collection {self.collection!r} does not exist yet: ingest documents into it first"
                    )
                row = (uuid.uuid4(), {**info.as_metadata(), **options}, self.sibling_of)
                conn.execute(sql.INSERT_COLLECTION, (row[0], self.collection, Jsonb(row[1]), self.sibling_of))
                create_element_table(conn, sql.table_name(row[0]), info.dimension)
                conn.execute(heading_sql.NEW_STATE, {"collection_id": row[0], "words_version": NAME_WORDS_VERSION})
                conn.execute(term_sql.MARK_COMPLETE, {"collection_id": row[0]})
            else:
                upgrade_element_table(conn, sql.table_name(row[0]))
            conn.commit()
        if row[2] != self.sibling_of:  # only a registry edited by hand: names with ':' are refused to users
            raise StoreError(f"{self.collection!r} is registered as another collection's sibling, not as this one")
        collection_id, meta = row[0], dict(row[1] or {})
        stored = EmbedderInfo.from_metadata(meta)
        if stored is None:
            raise EmbedderMismatchError(
                f"collection {self.collection!r} records no embedding model; it was not made by this app"
            )
        # Compared as plain values: Streamlit may reload core.embeddings, and instances of the old and the new
        # EmbedderInfo class are never equal even when every field is.
        if astuple(stored) != astuple(info):
            size = (f" (its table stores vector({stored.dimension}), this embedder makes {info.dimension}-d vectors)"
                    if stored.dimension != info.dimension else "")
            raise EmbedderMismatchError(
                f"collection {self.collection!r} holds vectors from {stored}, but the configured embedder is {info}"
                f"{size}. Set HKE_EMBEDDINGS={stored.provider} to use it, or ingest into another --collection."
            )
        return collection_id, {k: v for k, v in meta.items() if not k.startswith("embedding_")}

    def _fill_derived_tables(self) -> None:
        """Fill the stored heading index and term counts of a collection made before them (or moved by ``migrate``,
        or whose heading words came from another normaliser) when it is opened: a question only ever reads them."""
        if not self.read.heading_state().current:
            self.fill_headings()
        if not self.read.terms_complete():
            self.fill_term_counts()
        if self.read.needs_version_backfill():
            with self.pool.connection() as conn, conn.transaction():
                conn.execute(self.statement(version_sql.BACKFILL), {"collection_id": self.collection_id})

    @property
    def vectorstore(self) -> PGVectorStore:
        """The same collection as a plain LangChain ``PGVectorStore`` (no scoping, no hierarchy), made lazily.

        Its engine opens a connection per call (NullPool): the product's own statements go through the psycopg
        pool sized for the machine (``connection_pool``), and a second pool would keep idle server backends for a
        path that is used rarely, outside that budget.
        """
        if self._vectorstore is None:
            from langchain_postgres import PGVectorStore

            schema = self.read.table_schema()
            self._vectorstore = PGVectorStore.create_sync(
                engine=pg_engine(self.url),
                embedding_service=self.embeddings,
                table_name=self.table,
                schema_name=schema,
                id_column=sql.ID_COLUMN,
                content_column=sql.CONTENT_COLUMN,
                embedding_column=sql.EMBEDDING_COLUMN,
                metadata_columns=list(sql.METADATA_COLUMNS),
                metadata_json_column=sql.METADATA_JSON_COLUMN,
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
        with read_connection(self.reader) as conn:
            return [DocumentRecord(*row) for row in conn.execute(sql.LIST_DOCUMENTS, (self.collection_id,))]

    def document(self, document_id: str) -> DocumentRecord | None:
        with read_connection(self.reader) as conn:
            row = conn.execute(sql.GET_DOCUMENT, (self.collection_id, document_id)).fetchone()
        return DocumentRecord(*row) if row else None

    def find_documents(self, key: str) -> list[DocumentRecord]:
        """Documents whose id, source path or file name is ``key``."""
        return [d for d in self.documents() if key in (d.document_id, d.source, d.filename)]

    def replace_document(
        self,
        record: DocumentRecord,
        elements: Sequence[Document | Element],
        vectors: np.ndarray,
        text_hashes: Sequence[str] | None = None,
        *,
        valid_from: ValidFrom | None = None,
        source_bytes: bytes | None = None,
    ) -> bool:
        """Store ``record`` with exactly ``elements`` as its new version, atomically. Returns False if it was already
        stored as is (no version is made).

        The new version shares every element it did not change with the one before (``core.sql.versions``): only
        elements whose id is new are written, and those it dropped move to the history. ``valid_from`` says when the
        version takes effect (``core.versions.resolve_valid_from``; default: now); a version may not take effect
        before the document's latest one (:class:`VersionOrderError`). ``source_bytes`` is the file as ingested,
        kept in shared blocks so ``core show`` can give it back.

        ``text_hashes`` (see :func:`core.ingest.text_sha256`) name the text each vector was embedded from and make
        the vectors reusable by the embedding cache; without them the elements are stored outside the cache
        (a key copied over in the elements' metadata is dropped, since it may describe another text).

        Another process may have stored the same content meanwhile; the per-document lock plus the hash
        re-check inside the transaction make concurrent ingests of one corpus idempotent and put their versions
        in commit order. An element whose parent is not among the document's elements is refused (the table's
        foreign key) and nothing changes.
        """
        if len(elements) != len(vectors):
            raise ValueError("one vector per element")
        if text_hashes is not None and len(text_hashes) != len(elements):
            raise ValueError("one text hash per element")
        new = [e if isinstance(e, Element) else Element.from_document(e) for e in elements]
        try:
            with self.pool.connection() as conn, conn.transaction():
                conn.execute(sql.LOCK_DOCUMENT, (str(self.collection_id), record.document_id))
                current = conn.execute(sql.DOCUMENT_HASH, (self.collection_id, record.document_id)).fetchone()
                if current and current[0] == record.content_hash:
                    return False
                self._write_version(conn, record, new, vectors, text_hashes, valid_from, source_bytes)
        except psycopg.errors.ForeignKeyViolation as exc:
            if exc.diag.constraint_name != f"{self.table}_parent_fk":  # the collection was dropped meanwhile
                raise StoreError(f"collection {self.collection!r} no longer exists; "
                                 f"document {record.document_id!r} was not stored") from exc
            raise StoreError(
                f"document {record.document_id!r} was not stored: {_missing_parent(exc)}; "
                "an element's parent must be an element of the same document (what was stored before is kept)"
            ) from exc
        return True

    def _write_version(self, conn: psycopg.Connection, record: DocumentRecord, new: Sequence[Element],
                       vectors: np.ndarray, text_hashes: Sequence[str] | None, valid_from: ValidFrom | None,
                       source_bytes: bytes | None) -> None:
        """The new version of one document, inside its write (the document's lock is held)."""
        read = self.read.on(conn)
        doc_id = record.document_id
        last = read.last_version(doc_id)
        when = valid_from.value if valid_from is not None else datetime.now(UTC)
        if last is not None and when < (last.retired_at or last.valid_from):
            after = "its retirement" if last.retired_at else f"version {last.version}"
            raise VersionOrderError(
                f"{record.filename}: this version would take effect on {when.isoformat()}, before {after} "
                f"({(last.retired_at or last.valid_from).isoformat()}); a document's versions are kept in date "
                "order. Give a later --valid-from, or `remove --purge` it and ingest its versions oldest first"
            )
        version = last.version + 1 if last else 1
        old = read.elements(doc_id) if last is None or last.retired_at is None else \
            read.version_elements(doc_id, last.version)
        match = match_versions(old, new, old_keys={e.element_id: e.element_key for e in old})
        ops = Counter(m.op for m in match.matches)
        # The rows a version keeps: same id and same content (a caller may reuse an id for other content).
        current = {e.element_id: _row_content(e) for e in read.elements(doc_id)}  # none once retired
        kept_ids = {e.element_id for i, e in enumerate(new)
                    if current.get(e.element_id) == _row_content(e, text_hashes[i] if text_hashes else None)}
        gone = sorted(set(current) - kept_ids)

        heading_version = self._next_heading_version(conn)
        terms = self._count_out_terms(conn, doc_id)
        if gone:
            conn.execute(self.statement(version_sql.RETIRE_ELEMENTS),
                         {"document_id": doc_id, "ids": gone, "version": version})
        kept = [e for e in new if e.element_id in kept_ids]
        if kept:
            conn.execute(self.statement(version_sql.UPDATE_KEPT), {
                "document_id": doc_id, "ids": [e.element_id for e in kept], "orders": [e.order for e in kept],
                "lines": [Jsonb({"start_line": e.start_line, "end_line": e.end_line}) for e in kept]})
        with conn.cursor() as cur, cur.copy(self.statement(sql.COPY_ELEMENTS)) as copy:
            copy.set_types(sql.COPY_ELEMENT_TYPES)
            for i, (element, vector) in enumerate(zip(new, vectors, strict=True)):
                if element.element_id in kept_ids:
                    continue
                copy.write_row(element_row(doc_id, element, vector,
                                           text_hashes[i] if text_hashes is not None else None,
                                           match.keys.get(element.element_id), version))
        conn.execute(self.statement(term_sql.ADD_DOCUMENT), terms)
        self._write_headings(conn, doc_id, new, heading_version)
        conn.execute(sql.UPSERT_DOCUMENT, _document_params(self.collection_id, record, len(new)))

        params = {"collection_id": self.collection_id, "document_id": doc_id}
        if last is not None and last.valid_to is None:
            conn.execute(version_sql.CLOSE_VERSION, {**params, "version": last.version, "valid_to": when})
        blocks = source_blocks(source_bytes) if source_bytes is not None else None
        if blocks:
            conn.execute(version_sql.INSERT_BLOCKS, {**params, "hashes": [h for h, _ in blocks],
                                                     "data": [d for _, d in blocks]})
        ordered = sorted(new, key=lambda e: e.order)
        conn.execute(version_sql.INSERT_VERSION, {
            **params, "version": version, "valid_from": when,
            "valid_from_source": str(valid_from.source) if valid_from is not None else "ingest",
            "date_only": bool(valid_from and valid_from.date_only), "content_hash": record.content_hash,
            "source": record.source, "filename": record.filename, "title": record.title, "n_elements": len(new),
            "n_bytes": record.n_bytes, **{op: ops.get(op, 0) for op in CHANGE_OPS},
            "element_ids": [e.element_id for e in ordered],
            "start_lines": [e.start_line or 0 for e in ordered], "end_lines": [e.end_line or 0 for e in ordered],
            "blocks": [h for h, _ in blocks] if blocks is not None else None,
        })

    def cached_vectors(self, text_hashes: Iterable[str]) -> dict[str, np.ndarray]:
        """Stored vectors of this embedder for the given text hashes, from any collection (the embedding cache)."""
        return self.read.cached_vectors(text_hashes)

    def has_vector_index(self) -> bool:
        with self.pool.connection() as conn:
            return bool(conn.execute(self.statement(sql.VECTOR_INDEX_EXISTS)).fetchone()[0])

    def ensure_vector_index(self, min_rows: int = 10_000, maintenance_work_mem: str = "256MB") -> bool:
        """Build the collection's HNSW index once its table holds ``min_rows`` vectors; True if it exists after.

        Below that, an exact scan answers in a few milliseconds and ingest stays cheap: HNSW maintenance on
        every insert costs about as much as embedding the element.
        """
        with self.pool.connection() as conn:
            if conn.execute(self.statement(sql.VECTOR_INDEX_EXISTS)).fetchone()[0]:
                return True
            if conn.execute(self.statement(sql.COUNT_ELEMENTS)).fetchone()[0] < min_rows:
                return False
            with schema_lock(conn, sql.SCHEMA_LOCK_KEY):
                conn.execute("SELECT set_config('maintenance_work_mem', %s, true)", (maintenance_work_mem,))
                conn.execute(self.statement(sql.CREATE_VECTOR_INDEX))
                conn.commit()
        return True

    def remove_document(self, document_id: str, *, purge: bool = False, when: datetime | None = None) -> bool:
        """Retire a document: its elements leave the current collection, its history stays (``valid_to`` is set, to
        ``when`` or now). ``purge`` deletes the history as well: every version, its element rows and vectors, and
        the source blocks no other version holds. Returns False if there was nothing to retire or purge."""
        params = {"collection_id": self.collection_id, "document_id": document_id}
        with self.pool.connection() as conn, conn.transaction():
            conn.execute(sql.LOCK_DOCUMENT, (str(self.collection_id), document_id))
            read = self.read.on(conn)
            last = read.last_version(document_id)
            heading_version = self._next_heading_version(conn)
            self._count_out_terms(conn, document_id)
            if last is not None and last.retired_at is None:
                retired_at = max(when or datetime.now(UTC), last.valid_from)
                conn.execute(self.statement(version_sql.RETIRE_DOCUMENT),
                             {"document_id": document_id, "version": last.version + 1})
                conn.execute(version_sql.RETIRE_VERSION, {**params, "version": last.version,
                                                          "retired_at": retired_at})
            else:
                conn.execute(self.statement(sql.DELETE_DOCUMENT_ELEMENTS), (document_id,))
            self._write_headings(conn, document_id, (), heading_version)
            removed = conn.execute(sql.DELETE_DOCUMENT, (self.collection_id, document_id)).rowcount > 0
            if purge:
                conn.execute(self.statement(version_sql.PURGE_HISTORY), {"document_id": document_id})
                purged = conn.execute(version_sql.DELETE_VERSIONS, params).rowcount > 0
                conn.execute(version_sql.DELETE_UNUSED_BLOCKS, params)
                return removed or purged
            return removed

    def as_of(self, when: datetime | None) -> ElementStore:
        """This store with every element read made as of ``when`` (each document's version valid then); ``None``
        is the current collection."""
        twin = copy.copy(self)
        twin.as_of_date = when
        return twin

    # -- the stored term counts (core.sql.terms) --

    def _count_out_terms(self, conn: psycopg.Connection, document_id: str) -> dict[str, Any]:
        """Subtract a document's stored elements from the term counts (inside its write, before they go)."""
        params: dict[str, Any] = {"collection_id": self.collection_id, "document_id": document_id}
        unused = [lexeme for lexeme, n in conn.execute(self.statement(term_sql.SUBTRACT_DOCUMENT), params) if n <= 0]
        if unused:
            conn.execute(term_sql.DELETE_UNUSED, {**params, "lexemes": unused})
        return params

    def fill_term_counts(self) -> None:
        """Count every element's lexemes once, for a collection whose counts are not complete (made before them,
        or moved by ``migrate``), under the collection's write lock; a no-op when another process just did it."""
        params = {"collection_id": self.collection_id}
        with self.pool.connection() as conn, conn.transaction():
            self._next_heading_version(conn)
            if conn.execute(term_sql.TERMS_COMPLETE, params).fetchone()[0]:
                return
            conn.execute(term_sql.DELETE_COLLECTION_COUNTS, params)
            conn.execute(self.statement(term_sql.FILL), params)
            conn.execute(term_sql.MARK_COMPLETE, params)

    def stored_term_counts(self, *, recount: bool = False) -> dict[str, int]:
        """The stored term counts, or (``recount``) the same counted from the elements now."""
        return self.read.stored_term_counts(recount=recount)

    # -- the stored heading index (core.sql.headings) --

    def _next_heading_version(self, conn: psycopg.Connection) -> int:
        """Takes the collection's heading-state lock for this transaction; returns the version it writes."""
        return int(conn.execute(heading_sql.NEXT_VERSION, {"collection_id": self.collection_id}).fetchone()[0])

    def _write_headings(self, conn: psycopg.Connection, document_id: str, elements: Iterable[Document],
                        version: int) -> None:
        """Replace one document's rows of the heading index and record the change (inside its write)."""
        params = {"collection_id": self.collection_id, "document_id": document_id, "version": version}
        conn.execute(heading_sql.DELETE_DOCUMENT_HEADINGS, params)
        rows = [row for row in (heading_row(document_id, doc) for doc in elements) if row is not None]
        if rows:
            with conn.cursor() as cur, cur.copy(heading_sql.COPY_HEADINGS) as copy:
                copy.set_types(heading_sql.COPY_HEADING_TYPES)
                for row in rows:
                    copy.write_row((self.collection_id, *row))
        conn.execute(heading_sql.RECORD_CHANGE, params)

    def fill_headings(self) -> None:
        """Make the stored heading index hold every document's headings under this normaliser (once, for a
        collection made before it or under another normaliser; a no-op when another process just did it)."""
        params = {"collection_id": self.collection_id, "words_version": NAME_WORDS_VERSION}
        with self.pool.connection() as conn, conn.transaction():
            try:
                _version, complete, words_version = conn.execute(heading_sql.NEXT_VERSION, params).fetchone()
            except psycopg.errors.ForeignKeyViolation as exc:  # another process dropped the collection meanwhile
                raise self.gone() from exc
            if complete and words_version == NAME_WORDS_VERSION:
                return
            conn.execute(heading_sql.DELETE_COLLECTION_HEADINGS, params)
            headings = self.read.on(conn).scan_headings()
            with conn.cursor() as cur, cur.copy(heading_sql.COPY_HEADINGS) as copy:
                copy.set_types(heading_sql.COPY_HEADING_TYPES)
                for h in headings:
                    copy.write_row((self.collection_id, h.document_id, h.order, h.element_id, h.text, list(h.path),
                                    h.filename, sorted(h.words)))
            conn.execute(heading_sql.MARK_COMPLETE, params)

    # -- elements (read through ``self.read``) --

    def elements(self, document_id: str) -> list[Element]:
        """All elements of one document, in document order."""
        return self.read.elements(document_id)

    def get(self, ids: Iterable[str]) -> list[Element]:
        """The elements with these ids, in the order given (ids not stored are left out)."""
        return self.read.get(ids)

    def ancestors(self, ids: Iterable[str]) -> dict[str, Element]:
        """The given elements and all their ancestors, fetched in one round trip, keyed by element id."""
        return self.read.ancestors(ids)

    def stats(self) -> CorpusStats:
        return self.read.stats()

    def drop(self) -> None:
        """Delete the collection with all its documents and elements, and its siblings."""
        with self.pool.connection() as conn, conn.transaction():
            for (sibling_id,) in conn.execute(sql.SIBLINGS, (self.collection_id,)).fetchall():
                conn.execute(sql.bind(sql.DROP_ELEMENT_TABLE, sql.table_name(sibling_id)))
                conn.execute(sql.DELETE_COLLECTION, (sibling_id,))
            conn.execute(self.statement(sql.DROP_ELEMENT_TABLE))
            conn.execute(sql.DELETE_COLLECTION, (self.collection_id,))


def create_element_table(conn: psycopg.Connection, table: str, dimension: int) -> None:
    """A collection's element table with its keys and indexes (no HNSW yet: see ``ensure_vector_index``), and its
    history."""
    for template in (*sql.CREATE_ELEMENT_TABLE, *version_sql.CREATE_HISTORY):
        conn.execute(sql.bind(template, table, dimension))


def upgrade_element_table(conn: psycopg.Connection, table: str) -> None:
    """Give a collection table made by an earlier version what this one reads (inside the schema lock): the stored
    full-text lexemes and their index, computed once for every row; the version columns and the history table."""
    if conn.execute(sql.bind(sql.FTS_COLUMN_MISSING, table), (sql.FTS_COLUMN,)).fetchone()[0]:
        for template in sql.ADD_FTS_COLUMN:
            conn.execute(sql.bind(template, table))
    if conn.execute(sql.bind(version_sql.VERSION_COLUMNS_MISSING, table)).fetchone()[0]:
        for template in (*version_sql.ADD_VERSION_COLUMNS, *version_sql.CREATE_HISTORY):
            conn.execute(sql.bind(template, table))


def source_blocks(data: bytes) -> list[tuple[str, bytes]]:
    """A file's bytes as blocks, each ending after a blank line, with their hashes: joined, they are the file; a
    version stores only the blocks no other version of the collection holds."""
    parts = [part for part in _BLOCK_END.split(data) if part]
    return [(hashlib.sha256(part).hexdigest()[:32], part) for part in parts]


def _row_content(element: Element, text_hash: str | None = None) -> tuple:
    """What must be equal for a version to keep a stored row: text, place in the tree, and the embedded text (the
    stored row's hash, or the one a write passes)."""
    sha = text_hash if text_hash is not None else element.embedded_text_sha256
    return (element.text, element.parent_id, element.category, element.category_depth, element.heading_path, sha)


def _document_params(collection_id: uuid.UUID, record: DocumentRecord, n_elements: int) -> dict[str, Any]:
    return {
        "collection_id": collection_id,
        "document_id": record.document_id,
        "source": record.source,
        "filename": record.filename,
        "title": record.title,
        "content_hash": record.content_hash,
        "loader": record.loader,
        "n_elements": n_elements,
        "n_bytes": record.n_bytes,
        "encoding": record.encoding,
        "front_matter": Jsonb(record.front_matter) if record.front_matter else None,
    }


def _missing_parent(exc: psycopg.errors.ForeignKeyViolation) -> str:
    detail = exc.diag.message_detail or ""
    # "Key (document_id, parent_id)=(doc, p) is not present in table ..." names the missing parent.
    if not detail:
        return "an element's parent is missing"
    return f"an element names a parent that is not in it ({detail.strip()})"


_pg_engines: dict[str, PGEngine] = {}
_pg_engines_lock = threading.Lock()


def pg_engine(url: str) -> PGEngine:
    """langchain-postgres' engine for ``PGVectorStore``, one per database and process, holding no pool (NullPool)."""
    from langchain_postgres import PGEngine
    from sqlalchemy.pool import NullPool

    key = sqlalchemy_url(url)
    with _pg_engines_lock:
        engine = _pg_engines.get(key)
        if engine is None:
            engine = PGEngine.from_connection_string(
                key, poolclass=NullPool,
                connect_args=_connect_kwargs(psycopg_conninfo(url), PGVECTORSTORE_SUFFIX),
            )
            _pg_engines[key] = engine
        return engine


def list_collections(url: str) -> list[CollectionInfo]:
    """Every collection in the database, with counts; empty if nothing was ever ingested (read on a standby if any)."""
    with read_connection(reader(url)) as conn:
        _refuse_legacy_layout(conn)
        if not conn.execute(sql.TABLE_EXISTS, ("hke_collections",)).fetchone()[0]:
            return []
        if not conn.execute(sql.SCHEMA_READY).fetchone()[0]:  # a registry from before siblings: upgrade it first
            with schema_lock(conn, sql.SCHEMA_LOCK_KEY):
                _ensure_schema(conn)
                conn.commit()
        rows = conn.execute(sql.LIST_COLLECTIONS).fetchall()
    out = []
    for name, meta, documents, elements, siblings in rows:
        meta = dict(meta or {})
        options = {k: v for k, v in meta.items() if not k.startswith("embedding_")}
        kinds = tuple(s.rpartition(SIBLING_SEPARATOR)[2] for s in siblings)
        out.append(CollectionInfo(name, int(documents), int(elements), EmbedderInfo.from_metadata(meta), options,
                                  kinds))
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
    return ElementStore(database_url(settings), collection, embeddings or make_embeddings(settings=settings),
                        create=create, options=options)
