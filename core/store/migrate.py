"""``python -m core migrate``: move a database from the layout before issue 14 to the current one.

The old layout kept elements in langchain-postgres' deprecated ``PGVector`` tables. Each of this app's
collections there is copied into its own element table (``core.sql.elements``) with the same collection id, so
``hke_documents`` and the graph and evaluation tables stay valid; vectors are copied, never re-embedded. Counts
are verified per collection before anything old is deleted, and everything happens in one transaction: either
the whole database is migrated or nothing changed. Running it again finds nothing to do.

It also repairs, in every collection, the dates no read could return (:mod:`core.store.date_repair`).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field

import psycopg
from psycopg import sql as pgsql
from psycopg.types.json import Jsonb
from psycopg_pool import ConnectionPool

from core.db.pool import connection_pool, schema_lock
from core.sql import elements as element_sql
from core.sql import migration as sql
from core.store import StoreError, create_element_table, old_layout
from core.store.date_repair import DateRepair, repair_all_dates

HNSW_MIN_ROWS = 10_000  # the ingest default (core.ingest): smaller collections are searched exactly


@dataclass
class MigratedCollection:
    name: str
    collection_id: uuid.UUID
    elements: int


@dataclass
class MigrationReport:
    collections: list[MigratedCollection] = field(default_factory=list)
    links: list[str] = field(default_factory=list)  # "table.constraint" re-pointed at hke_collections
    dropped_old_tables: bool = False
    kept_old_tables: int = 0  # rows of other programs' PGVector collections left in the old tables
    vector_indexes: list[str] = field(default_factory=list)
    date_repairs: list[DateRepair] = field(default_factory=list)

    @property
    def nothing_to_do(self) -> bool:
        return not self.collections and not self.links and not self.dropped_old_tables and not self.date_repairs

    def summary(self) -> str:
        if self.nothing_to_do:
            return "nothing to migrate: this database already uses the current layout"
        lines = [f"migrated {c.name!r}: {c.elements} element(s), vectors copied" for c in self.collections]
        lines += [f"re-pointed {link} at hke_collections" for link in self.links]
        if self.dropped_old_tables:
            lines.append("dropped langchain_pg_embedding and langchain_pg_collection")
        elif self.kept_old_tables:
            lines.append(f"kept langchain_pg_* tables: {self.kept_old_tables} row(s) of other programs' collections")
        lines += [f"built HNSW index {name}" for name in self.vector_indexes]
        lines += [repair.describe() for repair in self.date_repairs]
        return "\n".join(lines)


def migrate(url: str) -> MigrationReport:
    """Migrate the database at ``url`` in one transaction (see the module docstring)."""
    pool = connection_pool(url)
    report = MigrationReport()
    try:
        build_indexes = _migrate_in_one_transaction(pool, report)
    except psycopg.errors.IntegrityError as exc:
        detail = (exc.diag.message_primary or str(exc)).strip()
        detail += f" ({exc.diag.message_detail.strip()})" if exc.diag.message_detail else ""
        raise StoreError(f"the migration stopped and changed nothing: {detail}") from exc
    for table in build_indexes:  # after the commit: the data is safe, an index build may take minutes
        with pool.connection() as conn:
            conn.execute("SET LOCAL maintenance_work_mem = '256MB'")  # this build only, not the pooled session
            conn.execute(element_sql.bind(element_sql.CREATE_VECTOR_INDEX, table))
            conn.commit()
        report.vector_indexes.append(f"{table}_hnsw")
    with pool.connection() as conn, conn.transaction():
        report.date_repairs = repair_all_dates(conn)
    return report


def _migrate_in_one_transaction(pool: ConnectionPool, report: MigrationReport) -> list[str]:
    """Everything but the index builds; returns the tables that should get an HNSW index."""
    build_indexes: list[str] = []
    with pool.connection() as conn, schema_lock(conn, element_sql.SCHEMA_LOCK_KEY):
        if not conn.execute(element_sql.TABLE_EXISTS, ("langchain_pg_collection",)).fetchone()[0]:
            return build_indexes
        if not old_layout.is_pgvector(conn):  # another program's table of that name: nothing of ours is in it
            return build_indexes
        conn.execute(sql.LOCK_OLD_TABLES)
        had_hnsw = bool(conn.execute(sql.OLD_HNSW_EXISTS).fetchone()[0])
        for statement in element_sql.CREATE_SCHEMA:
            conn.execute(statement)
        for collection_id, name, meta in conn.execute(sql.OLD_COLLECTIONS).fetchall():
            report.collections.append(_copy_collection(conn, collection_id, name, meta))
            if had_hnsw and report.collections[-1].elements >= HNSW_MIN_ROWS:
                build_indexes.append(element_sql.table_name(collection_id))
        for table, constraint, column in conn.execute(sql.OLD_LINKS).fetchall():
            names = {"table": pgsql.Identifier(table), "constraint": pgsql.Identifier(constraint),
                     "column": pgsql.Identifier(column)}
            conn.execute(pgsql.SQL(sql.DROP_LINK).format(**names))
            conn.execute(pgsql.SQL(sql.ADD_LINK).format(**names))  # validates every row against the registry
            report.links.append(f"{table}.{constraint}")
        for moved in report.collections:
            conn.execute(sql.DELETE_OLD_ELEMENTS, (moved.collection_id,))
            conn.execute(sql.DELETE_OLD_COLLECTION, (moved.collection_id,))
        conn.execute(element_sql.MARK_OLD_SIBLINGS)  # contextual siblings moved here join their base
        report.kept_old_tables = int(conn.execute(sql.OLD_LEFT).fetchone()[0])
        if report.kept_old_tables:
            for statement in sql.DROP_OLD_INDEXES:
                conn.execute(statement)
        else:
            conn.execute(sql.DROP_OLD_TABLES)
            report.dropped_old_tables = True
        conn.commit()
    return build_indexes


def _copy_collection(conn: psycopg.Connection, collection_id: uuid.UUID, name: str, meta: dict) -> MigratedCollection:
    if conn.execute(sql.COLLECTION_REGISTERED, (collection_id, name)).fetchone()[0]:
        raise StoreError(
            f"collection {name!r} exists in both layouts; nothing was changed. Drop one of them first"
        )
    try:
        dimension = int(meta["embedding_dimension"])
    except (KeyError, TypeError, ValueError) as exc:
        raise StoreError(f"collection {name!r} records no embedding dimension; nothing was changed") from exc
    table = element_sql.table_name(collection_id)
    conn.execute(element_sql.INSERT_COLLECTION, (collection_id, name, Jsonb(meta), None))
    create_element_table(conn, table, dimension)
    conn.execute(element_sql.bind(sql.COPY_COLLECTION, table), (collection_id,))
    old = int(conn.execute(sql.OLD_ELEMENT_COUNT, (collection_id,)).fetchone()[0])
    new = int(conn.execute(element_sql.bind(sql.COUNT_NEW, table)).fetchone()[0])
    if old != new:  # pragma: no cover - INSERT ... SELECT copies every row or fails
        raise StoreError(f"collection {name!r}: copied {new} of {old} elements; nothing was changed")
    return MigratedCollection(name, collection_id, new)
