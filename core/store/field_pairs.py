"""The one door to ``hke_field_pairs`` (``core.sql.field_pairs``): a collection's field words, their vectors and
their cross-script pairs, computed once per collection version by ``core.retrieval.lexicon`` and read by every
process after. Reads go where the question's other reads go (its held connection, or the store's readers: a standby
that lags shows an older version's row, which is computed again); writes go to the primary."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import psycopg
from psycopg.types.json import Jsonb

from core.db.pool import apply_schema, read_connection
from core.sql import field_pairs as sql

if TYPE_CHECKING:
    from core.store.element_store import ElementStore

__all__ = ["DocumentFields", "FieldPairTables", "StoredFieldHead", "StoredFieldPairs"]

_schema_ready: set[int] = set()


@dataclass(frozen=True)
class StoredFieldHead:
    """What every process reads of a collection's row: computed at ``version`` with ``fingerprint`` (embedder,
    config, format) by ``embedder``; the scripts its fields are in (``True``: Hangul); the pairs (source terms,
    target terms) with their targets' spellings."""

    version: int
    fingerprint: str
    embedder: str
    scripts: frozenset[bool]
    pairs: tuple[tuple[frozenset[str], frozenset[str]], ...]
    spellings: tuple[str, ...]


@dataclass(frozen=True)
class StoredFieldPairs:
    """One collection's whole stored row: the head's fields, and the words with their terms, loanword outlines and
    unit vectors."""

    version: int
    fingerprint: str
    embedder: str
    scripts: frozenset[bool]
    texts: tuple[str, ...]
    terms: tuple[frozenset[str], ...]
    outlines: tuple[str, ...]
    vectors: np.ndarray
    pairs: tuple[tuple[frozenset[str], frozenset[str]], ...]
    spellings: tuple[str, ...] = ()  # each pair's target as the collection writes it


@dataclass(frozen=True)
class DocumentFields:
    """What one document contributes to its collection's field words, computed from its elements as parsed from
    ``source_key`` (content hash and loader) by code and limits ``format``: each field unit with how many of its
    elements name it, and its ``key : value`` items (key, sha256 of the item's text) in document order."""

    source_key: str
    format: str
    units: dict[str, int]
    items: tuple[tuple[str, str], ...]


def _pairs(rows: list) -> tuple[tuple[tuple[frozenset[str], frozenset[str]], ...], tuple[str, ...]]:
    return tuple((frozenset(a), frozenset(b)) for a, b, _ in rows), tuple(w for _, _, w in rows)


class FieldPairTables:
    """The stored field pairs of ``store``'s collection."""

    def __init__(self, store: ElementStore) -> None:
        self.store = store

    def ensure_schema(self) -> None:
        """Create the table (idempotent, serialised across processes; once per process and pool)."""
        if id(self.store.pool) in _schema_ready:
            return
        apply_schema(self.store.pool, sql.CREATE_SCHEMA, sql.SCHEMA_LOCK_KEY)
        _schema_ready.add(id(self.store.pool))

    def _rows(self, statement: str) -> list[tuple]:
        """The collection's rows of ``statement``; a database no process has written one to yet has no table (a
        read never makes it: no DDL and its lock on a question's path)."""
        params = {"collection_id": self.store.collection_id}
        shared = self.store.question_reads
        try:
            if shared is not None and shared.connection is not None:  # a pool of one would wait for it
                return shared.connection.execute(statement, params).fetchall()
            with read_connection(self.store.reader) as conn:
                return conn.execute(statement, params).fetchall()
        except psycopg.errors.UndefinedTable:
            return []

    def _row(self, statement: str) -> tuple | None:
        rows = self._rows(statement)
        return rows[0] if rows else None

    def read_documents(self) -> dict[str, DocumentFields]:
        """Every stored document contribution of the collection, by document id (none before any was written)."""
        return {document_id: DocumentFields(source_key, fmt, dict(units), tuple((k, h) for k, h in items))
                for document_id, source_key, fmt, units, items in self._rows(sql.READ_DOCUMENT_FIELDS)}

    def write_documents(self, fresh: dict[str, DocumentFields], kept: list[str]) -> None:
        """Store the ``fresh`` contributions and forget those of documents not in ``kept`` (the collection's
        documents now); deferred, like :meth:`write`, past a question that holds a connection."""
        shared = self.store.question_reads
        if shared is not None and shared.connection is not None:
            shared.after.append(lambda: self.write_documents(fresh, kept))
            return
        self.ensure_schema()
        ids = list(fresh)
        try:
            with self.store.pool.connection() as conn, conn.transaction():
                conn.execute(sql.FORGET_DOCUMENT_FIELDS, {"collection_id": self.store.collection_id,
                                                          "document_ids": kept})
                conn.execute(sql.WRITE_DOCUMENT_FIELDS, {
                    "collection_id": self.store.collection_id, "document_ids": ids,
                    "source_keys": [fresh[d].source_key for d in ids], "formats": [fresh[d].format for d in ids],
                    "units": [Jsonb(fresh[d].units) for d in ids],
                    "items": [Jsonb([list(i) for i in fresh[d].items]) for d in ids]})
        except psycopg.errors.ForeignKeyViolation:
            pass

    def read_head(self) -> StoredFieldHead | None:
        """The collection's stored pairs, without the words; ``None`` when it has none."""
        row = self._row(sql.READ_HEAD)
        if row is None:
            return None
        version, fingerprint, embedder, scripts, pairs = row
        return StoredFieldHead(int(version), fingerprint, embedder, frozenset(scripts), *_pairs(pairs))

    def read(self) -> StoredFieldPairs | None:
        """The collection's whole stored row, ``None`` when it has none."""
        row = self._row(sql.READ)
        if row is None:
            return None
        version, fingerprint, embedder, scripts, pairs, texts, terms, outlines, dimension, vectors = row
        matrix = np.frombuffer(bytes(vectors), dtype="<f4").reshape(len(texts), int(dimension)) if texts \
            else np.zeros((0, max(int(dimension), 1)), np.float32)
        found, spellings = _pairs(pairs)
        return StoredFieldPairs(int(version), fingerprint, embedder, frozenset(scripts), tuple(texts),
                                tuple(frozenset(t) for t in terms), tuple(outlines), matrix, found, spellings)

    def write(self, row: StoredFieldPairs) -> None:
        """Store ``row`` unless a row of a later version is stored already; a collection dropped meanwhile is left
        alone (the row only spares the next process the computing). Asked within a question that holds a
        connection, it is made once the question gives it back (``QuestionReads.after``)."""
        shared = self.store.question_reads
        if shared is not None and shared.connection is not None:
            shared.after.append(lambda: self.write(row))
            return
        self.ensure_schema()
        vectors = np.ascontiguousarray(row.vectors, dtype="<f4")
        params = {"collection_id": self.store.collection_id, "version": row.version,
                  "fingerprint": row.fingerprint, "embedder": row.embedder, "scripts": sorted(row.scripts),
                  "texts": list(row.texts),
                  "terms": Jsonb([sorted(t) for t in row.terms]), "outlines": list(row.outlines),
                  "dimension": int(vectors.shape[1]) if vectors.ndim == 2 else 0, "vectors": vectors.tobytes(),
                  "pairs": Jsonb([[sorted(a), sorted(b), w] for (a, b), w in
                                  zip(row.pairs, row.spellings or ("",) * len(row.pairs), strict=True)])}
        try:
            with read_connection(self.store.pool) as conn:  # autocommit: the statement is its transaction
                conn.execute(sql.WRITE, params)
        except psycopg.errors.ForeignKeyViolation:
            pass
