"""The one door to a collection's GraphRAG tables and its LLM reply cache.

:class:`GraphTables` (one per :class:`~core.store.ElementStore`) creates the graph tables, replaces a collection's
index in one transaction, reads it back as :mod:`core.store.graph_records` objects, and reads the element vectors the
index and global search score with. :class:`LLMCacheTable` is the ``hke_llm_cache`` table of one collection. All
SQL lives in :mod:`core.sql.graph`; this module binds parameters and converts rows. Writes go to the store's
primary pool; reads go where the store reads (``store.reader``).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

import numpy as np
import psycopg
from psycopg.types.json import Jsonb

from core.db.pool import apply_schema, connection_pool
from core.sql import graph as sql
from core.store.graph_records import Community, Entity, Finding, HierarchyRow, Relationship, Report, TextUnit

if TYPE_CHECKING:
    from psycopg.abc import Params

    from core.db.pool import ConnectionSource
    from core.store.element_store import ElementStore

_schema_ready: set[int] = set()


def ensure_graph_schema(pool: ConnectionSource) -> None:
    """Create the graph tables and the LLM cache once per pool (idempotent, serialised across processes)."""
    if id(pool) in _schema_ready:
        return
    apply_schema(pool, sql.CREATE_SCHEMA, sql.GRAPH_SCHEMA_LOCK_KEY)
    _schema_ready.add(id(pool))


def _tables_exist(source: ConnectionSource) -> bool:
    if id(source) in _schema_ready:
        return True
    with source.connection() as conn:
        return bool(conn.execute(sql.TABLE_EXISTS, ("hke_graph_index",)).fetchone()[0])


def _fetch(source: ConnectionSource, statement: str, params: Params) -> list[tuple]:
    with source.connection() as conn:
        return conn.execute(statement, params).fetchall()


def _json(value: Any) -> Any:
    return json.loads(value) if isinstance(value, (str, bytes)) else value


@dataclass(frozen=True)
class IndexInfo:
    built_at: datetime
    extraction: str
    params: dict[str, Any]
    stats: dict[str, Any]


class GraphTables:
    """The graph tables of one collection, seen through ``store`` (its pool, its reader, its element table)."""

    def __init__(self, store: ElementStore) -> None:
        self.store = store
        self.collection_id = store.collection_id

    def ensure_schema(self) -> None:
        ensure_graph_schema(self.store.pool)

    def exist(self) -> bool:
        """Whether the graph tables exist where the store reads (no index was ever built in this database else)."""
        return _tables_exist(self.store.reader)

    def document_rows(self, document_id: str, element_ids: Sequence[str] = ()) -> dict[str, int]:
        """What the index holds of one document: its text units, and the entities, relationships and communities
        that cite one of ``element_ids`` (all 0 once it is purged)."""
        if not self.exist():
            return {"text_units": 0, "entities": 0, "relationships": 0, "communities": 0}
        row = self._rows(sql.DOCUMENT_ROWS, {"collection_id": self.collection_id, "document_id": document_id,
                                              "elements": list(element_ids)})[0]
        return dict(zip(("text_units", "entities", "relationships", "communities"), map(int, row), strict=True))

    # -- writes --

    def replace_index(
        self,
        *,
        units: Sequence[TextUnit],
        entities: Sequence[Entity],
        relationships: Sequence[Relationship],
        communities: Sequence[Community],
        reports: Sequence[Report],
        extraction: str,
        params: dict[str, Any],
        stats: dict[str, Any],
        layouts: dict[str, dict[str, list[float]]] | None = None,
    ) -> None:
        """Replace the collection's index in one transaction: on any error the previous index stays as it was."""
        c = self.collection_id
        with self.store.pool.connection() as conn, conn.transaction():
            conn.execute(sql.LOCK_COLLECTION_INDEX, (str(c),))
            for statement in sql.DELETE_ALL:
                conn.execute(statement, (c,))
            _copy(conn, sql.COPY_TEXT_UNITS, sql.COPY_TEXT_UNIT_TYPES, (
                (c, u.id, u.human_readable_id, u.document_id, u.heading_path, u.text, u.n_tokens, u.element_ids,
                 u.entity_ids, u.relationship_ids) for u in units
            ))  # fmt: skip
            _copy(conn, sql.COPY_ENTITIES, sql.COPY_ENTITY_TYPES, (
                (c, e.id, e.human_readable_id, e.title, e.type, e.description, e.degree, e.frequency,
                 e.text_unit_ids, e.element_ids) for e in entities
            ))  # fmt: skip
            _copy(conn, sql.COPY_RELATIONSHIPS, sql.COPY_RELATIONSHIP_TYPES, (
                (c, r.id, r.human_readable_id, r.source, r.target, r.source_id, r.target_id, r.description,
                 r.weight, r.combined_degree, r.text_unit_ids, r.element_ids) for r in relationships
            ))  # fmt: skip
            _copy(conn, sql.COPY_COMMUNITIES, sql.COPY_COMMUNITY_TYPES, (
                (c, m.id, m.human_readable_id, m.kind, m.level, m.parent, m.children, m.title, m.entity_ids,
                 m.relationship_ids, m.text_unit_ids, m.element_ids, m.size)
                for m in sorted(communities, key=lambda m: (m.level, m.kind, m.human_readable_id))
            ))  # fmt: skip
            _copy(conn, sql.COPY_REPORTS, sql.COPY_REPORT_TYPES, (
                (c, r.community_id, r.kind, r.level, r.title, r.summary, r.rating, r.rating_explanation,
                 Jsonb([f.to_dict() for f in r.findings]), r.full_content, r.generated_by) for r in reports
            ))  # fmt: skip
            if layouts:
                with conn.cursor() as cur:
                    cur.executemany(sql.INSERT_LAYOUT,
                                    [(c, cid, Jsonb(layout)) for cid, layout in sorted(layouts.items())])
            conn.execute(sql.INSERT_INDEX_INFO, (c, extraction, Jsonb(params), Jsonb(stats)))
            conn.execute(sql.CONSTRAINTS_IMMEDIATE)

    # -- reads --

    def _rows(self, statement: str, params: Params) -> list[tuple]:
        """The rows of one read of the index; none when the database has no graph tables."""
        return _fetch(self.store.reader, statement, params) if self.exist() else []

    def index_info(self) -> IndexInfo | None:
        rows = self._rows(sql.INDEX_INFO, (self.collection_id,))
        if not rows:
            return None
        row = rows[0]
        return IndexInfo(row[0], row[1], _json(row[2]), _json(row[3]))

    def _rows_of_kind(self, statement: str, kind: str | None, **params: int | None) -> list[tuple]:
        """:meth:`_rows` of a statement filtered by community kind (``kind`` is checked once the tables exist)."""
        if not self.exist():
            return []
        if kind is not None and kind not in ("entity", "structural"):
            raise ValueError(f"kind must be 'entity' or 'structural', not {kind!r}")
        return _fetch(self.store.reader, statement, {"collection_id": self.collection_id, "kind": kind, **params})

    def reports(self, *, kind: str | None, level: int | None) -> list[Report]:
        """Reports of one kind (``None``: both) and level (``None``: all), best rated first within a level."""
        return [_report(r) for r in self._rows_of_kind(sql.REPORTS_FILTERED, kind, level=level)]

    def report(self, community_id: str) -> Report | None:
        rows = self._rows(sql.REPORT_BY_COMMUNITY, (self.collection_id, community_id))
        return _report(rows[0]) if rows else None

    def communities(self, *, kind: str | None, level: int | None) -> list[Community]:
        return [_community(r) for r in self._rows_of_kind(sql.COMMUNITIES_FILTERED, kind, level=level)]

    def community(self, community_id: str) -> Community | None:
        rows = self._rows(sql.COMMUNITY_BY_ID, (self.collection_id, community_id))
        return _community(rows[0]) if rows else None

    def children(self, community_id: str) -> list[Community]:
        """Direct sub-communities, largest first."""
        return [_community(r) for r in self._rows(sql.COMMUNITY_CHILDREN, (self.collection_id, community_id))]

    def community_layout(self, community_id: str) -> dict[str, tuple[float, float]]:
        """The network layout stored for a big community (node key → x, y), else ``{}``."""
        rows = self._rows(sql.COMMUNITY_LAYOUT, (self.collection_id, community_id))
        layout = (_json(rows[0][0]) or {}) if rows else {}
        return {key: (float(xy[0]), float(xy[1])) for key, xy in layout.items()}

    def level_counts(self) -> list[tuple[str, int, int]]:
        """``(kind, level, communities)`` for every level of the index."""
        return [(k, int(level), int(n)) for k, level, n in self._rows(sql.LEVEL_COUNTS, (self.collection_id,))]

    def hierarchy(self, kind: str | None) -> list[HierarchyRow]:
        """Every community of ``kind`` (``None``: both) as hierarchy rows, parents first."""
        return [
            HierarchyRow(r[0], r[1], int(r[2]), r[3], int(r[4]), None if r[5] is None else round(float(r[5]), 1),
                         r[6], int(r[7]))  # fmt: skip
            for r in self._rows_of_kind(sql.HIERARCHY, kind)
        ]

    def _all_or_by_id(self, ids: Iterable[str] | None, all_rows: str, rows_by_id: str) -> list[tuple]:
        if ids is None:
            return self._rows(all_rows, (self.collection_id,))
        return self._rows(rows_by_id, (self.collection_id, list(dict.fromkeys(ids))))

    def entities(self, ids: Iterable[str] | None = None) -> list[Entity]:
        """Entities by id (most connected first), or all of them in document order when ``ids`` is None."""
        return [_entity(r) for r in self._all_or_by_id(ids, sql.ALL_ENTITIES, sql.ENTITIES_BY_ID)]

    def relationships(self, ids: Iterable[str] | None = None) -> list[Relationship]:
        """Relationships by id (strongest first), or all of them when ``ids`` is None."""
        return [_relationship(r) for r in self._all_or_by_id(ids, sql.ALL_RELATIONSHIPS, sql.RELATIONSHIPS_BY_ID)]

    def text_units(self, ids: Iterable[str] | None = None) -> list[TextUnit]:
        return [_text_unit(r) for r in self._all_or_by_id(ids, sql.ALL_TEXT_UNITS, sql.TEXT_UNITS_BY_ID)]

    def search_entities(self, text: str, limit: int) -> list[Entity]:
        """Entities whose title or description contains ``text`` (case-insensitive, no wildcards), best first."""
        literal = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        params = {"collection_id": self.collection_id, "text": text, "pattern": f"%{literal}%",
                  "prefix": f"{literal}%", "limit": int(limit)}  # fmt: skip
        return [_entity(r) for r in self._rows(sql.ENTITY_SEARCH, params)]

    def relationships_touching(self, entity_ids: Iterable[str]) -> list[Relationship]:
        """The relationships with an end in ``entity_ids``, strongest first."""
        ids = list(dict.fromkeys(entity_ids))
        if not ids:
            return []
        params = {"collection_id": self.collection_id, "ids": ids}
        return [_relationship(r) for r in self._rows(sql.RELATIONSHIPS_TOUCHING, params)]

    def communities_of_entity(self, entity_id: str) -> list[Community]:
        """The communities of both kinds, every level, that hold ``entity_id``."""
        params = {"collection_id": self.collection_id, "entity_id": entity_id}
        return [_community(r) for r in self._rows(sql.COMMUNITIES_OF_ENTITY, params)]

    # -- the element table, as the index and global search read it --

    def element_vectors(self) -> dict[str, np.ndarray]:
        """Element id → stored embedding, from the primary (the index is built from what it writes beside)."""
        rows = _fetch(self.store.pool, self.store.statement(sql.ELEMENT_VECTORS),
                      {"collection_id": self.collection_id})  # fmt: skip
        return {row[0]: row[1] for row in rows if row[1] is not None}

    def evidence_similarity(self, query: np.ndarray, cited: Sequence[str]) -> list[tuple[str, str, float, str, list]]:
        """For each cited element (a heading: the content directly under it), ``(cited id, element id, cosine
        similarity to query, text, heading path)``."""
        return _fetch(self.store.reader, self.store.statement(sql.EVIDENCE_SIMILARITY),
                      {"query": query, "ids": list(cited)})  # fmt: skip

    def llm_cache(self) -> LLMCacheTable:
        return LLMCacheTable(self.store.pool, self.collection_id)


def _copy(conn: psycopg.Connection, statement: str, types: list[str], rows: Iterable[tuple]) -> None:
    with conn.cursor() as cur, cur.copy(statement) as copy:
        copy.set_types(types)
        for row in rows:
            copy.write_row(row)


# -- rows → model objects -------------------------------------------------------------------------------------


def _text_unit(row: tuple) -> TextUnit:
    return TextUnit(row[0], row[1], row[2], list(row[3] or []), row[4], row[5], list(row[6] or []),
                    list(row[7] or []), list(row[8] or []))  # fmt: skip


def _entity(row: tuple) -> Entity:
    return Entity(row[0], row[1], row[2], row[3], row[4], row[5], row[6], list(row[7] or []), list(row[8] or []))


def _relationship(row: tuple) -> Relationship:
    return Relationship(row[0], row[1], row[2], row[3], row[4], row[5], row[6], float(row[7]), row[8],
                        list(row[9] or []), list(row[10] or []))  # fmt: skip


def _community(row: tuple) -> Community:
    return Community(row[0], row[1], row[2], row[3], row[4], list(row[5] or []), row[6], list(row[7] or []),
                     list(row[8] or []), list(row[9] or []), list(row[10] or []), row[11])  # fmt: skip


def _report(row: tuple) -> Report:
    findings = [Finding.from_dict(f) for f in _json(row[7]) or []]
    return Report(
        community_id=row[0],
        kind=row[1],
        level=row[2],
        title=row[3],
        summary=row[4],
        rating=round(float(row[5]), 1),
        rating_explanation=row[6],
        findings=findings,
        full_content=row[8],
        generated_by=row[9],
        parent=row[10],
        children=list(row[11] or []),
        size=row[12],
    )


# -- the LLM reply cache ---------------------------------------------------------------------------------------


class LLMCacheTable:
    """``hke_llm_cache`` rows of one collection: a reply by (model identity, prompt SHA-256)."""

    def __init__(self, pool: ConnectionSource, collection_id: uuid.UUID) -> None:
        self.pool = pool
        self.collection_id = collection_id

    def get(self, model: str, prompt_sha256: str) -> str | None:
        with self.pool.connection() as conn:
            row = conn.execute(sql.CACHE_GET, (self.collection_id, model, prompt_sha256)).fetchone()
        return row[0] if row else None

    def put(self, model: str, prompt_sha256: str, reply: str) -> None:
        with self.pool.connection() as conn:
            conn.execute(sql.CACHE_PUT, (self.collection_id, model, prompt_sha256, reply))

    def count(self) -> int:
        with self.pool.connection() as conn:
            return int(conn.execute(sql.CACHE_COUNT, (self.collection_id,)).fetchone()[0])

    def clear(self) -> int:
        """Delete this collection's cached replies; how many there were."""
        return _clear_cache(self.pool, self.collection_id)


def clear_every_llm_cache(url: str) -> int:
    """Delete the cached replies of every collection in the database at ``url``; how many there were."""
    return _clear_cache(connection_pool(url), None)


def _clear_cache(pool: ConnectionSource, collection_id: uuid.UUID | None) -> int:
    with pool.connection() as conn:
        if not conn.execute(sql.TABLE_EXISTS, ("hke_llm_cache",)).fetchone()[0]:
            return 0  # no index was ever built here
        if collection_id is None:
            return conn.execute(sql.CACHE_CLEAR_ALL).rowcount
        return conn.execute(sql.CACHE_CLEAR, (collection_id,)).rowcount
