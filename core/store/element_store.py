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
import logging
import threading
import uuid
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import astuple
from datetime import datetime
from typing import TYPE_CHECKING, Any

import numpy as np
import psycopg
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
from core.store.date_repair import DateRepair, repair_dates
from core.store.question_reads import QuestionReads
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
    VersionRecord,
    validate_collection_name,
)
from core.store.rows import EMBEDDED_TEXT_SHA256 as EMBEDDED_TEXT_SHA256  # the metadata key, public here
from core.store.writer import DocumentWriter
from core.textnorm import NAME_WORDS_VERSION

if TYPE_CHECKING:
    from langchain_postgres import PGEngine, PGVectorStore

logger = logging.getLogger(__name__)

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
        self.as_of_versions: Mapping[str, VersionRecord] | None = None
        self.question_reads: QuestionReads | None = None  # see for_one_question
        self.date_repair: DateRepair | None = None  # what opening it repaired (_fill_derived_tables)
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
    def write(self) -> DocumentWriter:
        """The writes of this collection's documents and of what is derived from them (``core.store.writer``)."""
        return DocumentWriter(self)

    @property
    def read(self) -> ElementReader:
        """The reads of this collection's elements, its term counts and its heading index (``core.store.reader``)."""
        return ElementReader(self, as_of=self.as_of_date, versions=self.as_of_versions)

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
                upgrade_element_table(conn, row[0])
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
        or whose heading words came from another normaliser) when it is opened: a question only ever reads them.
        Dates no read could return (:mod:`core.store.date_repair`) are repaired first, and logged."""
        with self.pool.connection() as conn, conn.transaction():
            self.date_repair = repair_dates(conn, self.collection_id, self.collection)
        if self.date_repair is not None:
            logger.warning("%s", self.date_repair.describe())
        if not self.read.heading_state().current:
            self.fill_headings()
        if not self.read.terms_complete():
            self.fill_term_counts()
        if self.read.needs_version_backfill():
            with self.pool.connection() as conn, conn.transaction():
                conn.execute(self.statement(version_sql.BACKFILL), {"collection_id": self.collection_id})
                for template in version_sql.FILL_ROW_DATES:
                    conn.execute(self.statement(template), {"collection_id": self.collection_id})

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

    def cached_vectors(self, text_hashes: Iterable[str], *, primary: bool = True) -> dict[str, np.ndarray]:
        """Stored vectors of this embedder for the given text hashes, from any collection (the embedding cache):
        on the primary, or (not ``primary``) where the store's other reads go."""
        return self.read.cached_vectors(text_hashes, primary=primary)

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

    def fill_term_counts(self) -> None:
        self.write.fill_term_counts()

    def fill_headings(self) -> None:
        self.write.fill_headings()

    def as_of(self, when: datetime | None, versions: Iterable[VersionRecord] | None = None) -> ElementStore:
        """This store with every element read made as of ``when`` (each document's version valid then); ``None``
        is the current collection. ``versions``, the versions valid at ``when`` as one question just read them
        (``read.versions_at``), spares its reads asking again; a store kept across writes is made without them."""
        twin = copy.copy(self)
        twin.as_of_date = when
        twin.as_of_versions = ({v.document_id: v for v in versions}
                               if when is not None and versions is not None else None)
        return twin

    def for_one_question(self) -> ElementStore:
        """This store with the reads of one question shared
        (:class:`~core.store.question_reads.QuestionReads`): a search made twice (the scope probed for evidence,
        then for the attribute's own words) reads once, and the collection's size is read once."""
        twin = copy.copy(self)
        twin.question_reads = QuestionReads()
        return twin

    @contextlib.contextmanager
    def one_question(self, *, hold: bool = True) -> Iterator[ElementStore]:
        """:meth:`for_one_question`, its reads on one connection held for the block (``hold``): a question's dozen
        reads otherwise take a pooled connection each, and the pool tests every one it lends with a round trip.
        With standbys the held connection is a standby's, and the reads meant for the primary still go to it. Hold
        none where the block opens other stores or tables on connections of their own (a pool of one would wait
        for the held one)."""
        twin = self.for_one_question()
        assert twin.question_reads is not None
        if not hold:
            yield twin
            return
        with read_connection(self.reader) as conn:
            twin.question_reads.connection = conn
            twin.question_reads.primary_too = not self.read_urls
            try:
                yield twin
            finally:
                twin.question_reads.connection = None
        for write in twin.question_reads.after:
            write()

    # -- the stored term counts (core.sql.terms) --

    def stored_term_counts(self, *, recount: bool = False) -> dict[str, int]:
        """The stored term counts, or (``recount``) the same counted from the elements now."""
        return self.read.stored_term_counts(recount=recount)

    # -- the stored heading index (core.sql.headings) --

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
    for template in (*sql.CREATE_ELEMENT_TABLE, *version_sql.CREATE_HISTORY, *sql.SET_INLINE_ROWS):
        conn.execute(sql.bind(template, table, dimension))


def upgrade_element_table(conn: psycopg.Connection, collection_id: uuid.UUID) -> None:
    """Give a collection table made by an earlier version what this one reads (inside the schema lock): the stored
    full-text lexemes and their index, computed once for every row; the version columns, the history table and the
    rows' dates; rows kept whole in their page (``core.sql.elements.INLINE_ROW_BYTES``)."""
    table = sql.table_name(collection_id)
    if conn.execute(sql.bind(sql.FTS_COLUMN_MISSING, table), (sql.FTS_COLUMN,)).fetchone()[0]:
        for template in sql.ADD_FTS_COLUMN:
            conn.execute(sql.bind(template, table))
    if conn.execute(sql.bind(version_sql.VERSION_COLUMNS_MISSING, table)).fetchone()[0]:
        for template in (*version_sql.ADD_VERSION_COLUMNS, *version_sql.CREATE_HISTORY, *version_sql.ADD_HISTORY_DATES):
            conn.execute(sql.bind(template, table))
        for template in version_sql.FILL_ROW_DATES:
            conn.execute(sql.bind(template, table), {"collection_id": collection_id})
    # the rows written from now on; those stored before keep their layout until rewritten
    if conn.execute(sql.bind(sql.INLINE_ROWS_MISSING, table), (sql.INLINE_ROWS_OPTION,)).fetchone()[0]:
        for template in sql.SET_INLINE_ROWS:
            conn.execute(sql.bind(template, table))


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
