"""Postgres I/O of the index: schema, the atomic replace, and row → dataclass reads.

All SQL lives in :mod:`core.sql.graph`; this module only binds parameters and converts rows.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

import psycopg
from psycopg.types.json import Jsonb

from core.db.pool import apply_schema
from core.graph.model import Community, Entity, Finding, Relationship, Report, TextUnit
from core.sql import graph as sql

if TYPE_CHECKING:
    from psycopg.abc import Params
    from psycopg_pool import ConnectionPool

    from core.db.pool import ConnectionSource

_schema_ready: set[int] = set()


def ensure_schema(pool: ConnectionPool) -> None:
    """Create the graph tables once per pool (idempotent, serialised across processes)."""
    if id(pool) in _schema_ready:
        return
    apply_schema(pool, sql.CREATE_SCHEMA, sql.GRAPH_SCHEMA_LOCK_KEY)
    _schema_ready.add(id(pool))


def tables_exist(pool: ConnectionSource) -> bool:
    if id(pool) in _schema_ready:
        return True
    with pool.connection() as conn:
        return bool(conn.execute(sql.TABLE_EXISTS, ("hke_graph_index",)).fetchone()[0])


@dataclass(frozen=True)
class IndexInfo:
    built_at: datetime
    extraction: str
    params: dict[str, Any]
    stats: dict[str, Any]


def write_index(
    conn: psycopg.Connection,
    collection_id: uuid.UUID,
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
    """Replace the collection's index inside the caller's transaction (the caller commits or rolls back)."""
    conn.execute(sql.LOCK_COLLECTION_INDEX, (str(collection_id),))
    for statement in sql.DELETE_ALL:
        conn.execute(statement, (collection_id,))
    c = collection_id
    _copy(conn, sql.COPY_TEXT_UNITS, sql.COPY_TEXT_UNIT_TYPES, (
        (c, u.id, u.human_readable_id, u.document_id, u.heading_path, u.text, u.n_tokens, u.element_ids,
         u.entity_ids, u.relationship_ids) for u in units
    ))  # fmt: skip
    _copy(conn, sql.COPY_ENTITIES, sql.COPY_ENTITY_TYPES, (
        (c, e.id, e.human_readable_id, e.title, e.type, e.description, e.degree, e.frequency, e.text_unit_ids,
         e.element_ids) for e in entities
    ))  # fmt: skip
    _copy(conn, sql.COPY_RELATIONSHIPS, sql.COPY_RELATIONSHIP_TYPES, (
        (c, r.id, r.human_readable_id, r.source, r.target, r.source_id, r.target_id, r.description, r.weight,
         r.combined_degree, r.text_unit_ids, r.element_ids) for r in relationships
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
            cur.executemany(sql.INSERT_LAYOUT, [(c, cid, Jsonb(layout)) for cid, layout in sorted(layouts.items())])
    conn.execute(sql.INSERT_INDEX_INFO, (collection_id, extraction, Jsonb(params), Jsonb(stats)))
    # Deferred foreign keys (community parents) are checked here, inside the transaction, not at COMMIT time
    # where the error would be less clear.
    conn.execute("SET CONSTRAINTS ALL IMMEDIATE")


def _copy(conn: psycopg.Connection, statement: str, types: list[str], rows: Iterable[tuple]) -> None:
    with conn.cursor() as cur, cur.copy(statement) as copy:
        copy.set_types(types)
        for row in rows:
            copy.write_row(row)


# -- reads ------------------------------------------------------------------------------------------


def index_info(pool: ConnectionSource, collection_id: uuid.UUID) -> IndexInfo | None:
    if not tables_exist(pool):
        return None
    with pool.connection() as conn:
        row = conn.execute(sql.INDEX_INFO, (collection_id,)).fetchone()
    if row is None:
        return None
    return IndexInfo(row[0], row[1], _json(row[2]), _json(row[3]))


def _json(value: Any) -> Any:
    return json.loads(value) if isinstance(value, (str, bytes)) else value


def row_text_unit(row: tuple) -> TextUnit:
    return TextUnit(row[0], row[1], row[2], list(row[3] or []), row[4], row[5], list(row[6] or []),
                    list(row[7] or []), list(row[8] or []))  # fmt: skip


def row_entity(row: tuple) -> Entity:
    return Entity(row[0], row[1], row[2], row[3], row[4], row[5], row[6], list(row[7] or []), list(row[8] or []))


def row_relationship(row: tuple) -> Relationship:
    return Relationship(row[0], row[1], row[2], row[3], row[4], row[5], row[6], float(row[7]), row[8],
                        list(row[9] or []), list(row[10] or []))  # fmt: skip


def row_community(row: tuple) -> Community:
    return Community(row[0], row[1], row[2], row[3], row[4], list(row[5] or []), row[6], list(row[7] or []),
                     list(row[8] or []), list(row[9] or []), list(row[10] or []), row[11])  # fmt: skip


def row_report(row: tuple) -> Report:
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


def fetch(pool: ConnectionSource, statement: str, params: Params) -> list[tuple]:
    with pool.connection() as conn:
        return conn.execute(statement, params).fetchall()
