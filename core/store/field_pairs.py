"""The one door to ``hke_field_pairs`` (``core.sql.field_pairs``): a collection's field words, their vectors and
their cross-script pairs, computed once per collection version by ``core.retrieval.lexicon`` and read by every
process after. Reads and writes go to the store's primary pool: the row is keyed by the collection's version, which
the primary holds."""

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

__all__ = ["FieldPairTables", "StoredFieldPairs"]

_schema_ready: set[int] = set()


@dataclass(frozen=True)
class StoredFieldPairs:
    """One collection's stored row: the words, their terms and unit vectors, and the pairs (source terms, target
    terms), computed at ``version`` with ``fingerprint`` (embedder, config, format) by ``embedder``."""

    version: int
    fingerprint: str
    embedder: str
    texts: tuple[str, ...]
    terms: tuple[frozenset[str], ...]
    vectors: np.ndarray
    pairs: tuple[tuple[frozenset[str], frozenset[str]], ...]
    spellings: tuple[str, ...] = ()  # each pair's target as the collection writes it


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

    def read(self) -> StoredFieldPairs | None:
        """The collection's stored row, ``None`` when it has none."""
        self.ensure_schema()
        with read_connection(self.store.pool) as conn:
            row = conn.execute(sql.READ, {"collection_id": self.store.collection_id}).fetchone()
        if row is None:
            return None
        version, fingerprint, embedder, texts, terms, dimension, vectors, pairs = row
        matrix = np.frombuffer(bytes(vectors), dtype="<f4").reshape(len(texts), int(dimension)) if texts \
            else np.zeros((0, max(int(dimension), 1)), np.float32)
        return StoredFieldPairs(int(version), fingerprint, embedder, tuple(texts),
                                tuple(frozenset(t) for t in terms), matrix,
                                tuple((frozenset(a), frozenset(b)) for a, b, _ in pairs),
                                tuple(w for _, _, w in pairs))

    def write(self, row: StoredFieldPairs) -> None:
        """Store ``row`` unless a row of a later version is stored already; a collection dropped meanwhile is left
        alone (the row only spares the next process the computing)."""
        self.ensure_schema()
        vectors = np.ascontiguousarray(row.vectors, dtype="<f4")
        params = {"collection_id": self.store.collection_id, "version": row.version,
                  "fingerprint": row.fingerprint, "embedder": row.embedder, "texts": list(row.texts),
                  "terms": Jsonb([sorted(t) for t in row.terms]),
                  "dimension": int(vectors.shape[1]) if vectors.ndim == 2 else 0, "vectors": vectors.tobytes(),
                  "pairs": Jsonb([[sorted(a), sorted(b), w] for (a, b), w in
                                  zip(row.pairs, row.spellings or ("",) * len(row.pairs), strict=True)])}
        try:
            with read_connection(self.store.pool) as conn:  # autocommit: the statement is its transaction
                conn.execute(sql.WRITE, params)
        except psycopg.errors.ForeignKeyViolation:
            pass
