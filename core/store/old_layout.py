"""The store's layout before issue 14 (langchain-postgres' ``PGVector`` tables): telling that it is there.

Moving it is ``python -m core migrate`` (``core.store.migrate``); until then stores refuse to open with this message.
"""

from __future__ import annotations

import psycopg

from core.sql import elements as element_sql
from core.sql import migration as sql

MIGRATE_COMMAND = "python -m core migrate"


def pending(conn: psycopg.Connection) -> int:
    """How many things still sit in the old layout; 0 when there are none.

    Counts this app's collections in ``langchain_pg_collection`` (they record an embedder) plus our tables'
    foreign keys that still point there. Other programs' PGVector collections in the same database are left be,
    and so is a table of that name in another shape (another program's, not PGVector's).
    """
    if not conn.execute(element_sql.TABLE_EXISTS, ("langchain_pg_collection",)).fetchone()[0]:
        return 0
    links = int(conn.execute(sql.PENDING_LINKS).fetchone()[0])
    if not is_pgvector(conn):
        return links
    return links + int(conn.execute(sql.PENDING_COLLECTIONS).fetchone()[0])


def is_pgvector(conn: psycopg.Connection) -> bool:
    """Whether ``langchain_pg_collection`` and ``langchain_pg_embedding`` have PGVector's columns."""
    return bool(conn.execute(sql.PGVECTOR_SHAPED).fetchone()[0])


def message() -> str:
    return (
        "this database holds elements in the old layout (langchain_pg_collection / langchain_pg_embedding): "
        f"run `{MIGRATE_COMMAND}` once to move them into the new tables (vectors are copied, nothing is "
        "re-embedded, nothing is deleted before it is verified)"
    )
