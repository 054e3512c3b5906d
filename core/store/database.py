"""The database as the rest of the app sees it: where it is, its errors shown without secrets, its lifecycle.

Only the store (with ``core.db``, ``core.sql``, the migration and ``core.cli.db``) reaches the database; the pages,
the CLI and the ingest pipeline get what they need about it from here.
"""

from __future__ import annotations

import psycopg

from core.db import database_url
from core.db.pool import PROBE_SUFFIX, _connect_kwargs
from core.db.server import install_shutdown_hooks
from core.db.urls import (
    DatabaseError,
    connection_lost,
    psycopg_conninfo,
    redact_text,
    redact_url,
    unavailable_message,
)
from core.sql.elements import TABLE_PREFIX

__all__ = [
    "DatabaseError",
    "connection_lost",
    "database_url",
    "element_table_gone",
    "install_shutdown_hooks",
    "probe_connection",
    "redact_text",
    "redact_url",
    "unavailable_message",
]


def probe_connection(url: str) -> None:
    """Open one fresh connection to ``url`` (outside every pool) and run a trivial query; raises if it cannot."""
    conninfo = psycopg_conninfo(url)
    with psycopg.connect(conninfo, connect_timeout=3, autocommit=True,
                         **_connect_kwargs(conninfo, PROBE_SUFFIX)) as conn:
        conn.execute("SELECT 1")


def element_table_gone(exc: BaseException) -> bool:
    """Whether ``exc`` says a collection's element table was dropped under a running command."""
    return isinstance(exc, psycopg.errors.UndefinedTable) and TABLE_PREFIX in str(exc)
