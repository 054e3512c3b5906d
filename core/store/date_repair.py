"""Repairing a collection that holds dates Python cannot read (``core.sql.dates``): run when a collection is opened
and by ``python -m core migrate``, and reported either way."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

import psycopg

from core.sql import dates as sql
from core.sql import elements as element_sql
from core.versions.dates import ACCEPTED_RANGE, EARLIEST, LATEST

_EDGES = {"earliest": EARLIEST, "latest": LATEST}


@dataclass(frozen=True, slots=True)
class DateRepair:
    """What one collection's repair changed: versions and element rows (current or history) whose dates moved."""

    collection: str
    versions: int
    elements: int

    def describe(self) -> str:
        return (f"collection {self.collection!r}: repaired {self.versions} version(s) and {self.elements} element "
                f"row(s) whose dates fell outside {ACCEPTED_RANGE}; each such date now is the nearest one in range "
                f"({EARLIEST.isoformat()} or {LATEST.isoformat()}), so the collection can be read again")


def repair_dates(conn: psycopg.Connection, collection_id: uuid.UUID, collection: str) -> DateRepair | None:
    """Clamp the collection's out-of-range dates, inside the caller's transaction; None when it holds none."""
    params = {**_EDGES, "collection_id": collection_id}
    if not conn.execute(sql.NEEDS_REPAIR, params).fetchone()[0]:
        return None
    table = element_sql.table_name(collection_id)
    versions = conn.execute(sql.REPAIR_VERSIONS, params).rowcount
    elements = sum(conn.execute(element_sql.bind(template, table), _EDGES).rowcount
                   for template in (sql.REPAIR_ELEMENTS, sql.REPAIR_HISTORY))
    return DateRepair(collection, versions, elements)


def repair_all_dates(conn: psycopg.Connection) -> list[DateRepair]:
    """:func:`repair_dates` for every collection that needs it, inside the caller's transaction."""
    if not conn.execute(sql.VERSIONS_TABLE_EXISTS).fetchone()[0]:
        return []
    found = conn.execute(sql.COLLECTIONS_TO_REPAIR, _EDGES).fetchall()
    return [r for r in (repair_dates(conn, collection_id, name) for collection_id, name in found) if r is not None]
