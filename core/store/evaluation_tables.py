"""The one door to the evaluation tables: stored runs, their per-question results and judge verdicts.

Rows go in and come out as plain values (JSON columns as dicts and lists); :mod:`core.evaluation.runs` turns them
into its run objects. Writes go to the primary of the database at ``url``; reads go where reads are routed
(a standby when one can serve). All SQL lives in :mod:`core.sql.evaluation`.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

import psycopg
from psycopg.types.json import Jsonb

from core.db.pool import apply_schema, connection_pool, read_connection
from core.db.replicas import reader
from core.sql import elements as element_sql
from core.sql import evaluation as sql

# The JSON columns of each row kind, wrapped for psycopg on the way in.
_RUN_JSON = ("config",)
_RESULT_JSON = ("details",)
_JUDGEMENT_JSON = ("verdicts",)
# Where a run row (``core.sql.evaluation._RUN_COLUMNS``) holds the run's modes, which order its results.
_RUN_MODES = 4


def _with_json(row: dict[str, Any], columns: Sequence[str]) -> dict[str, Any]:
    return {k: Jsonb(v) if k in columns else v for k, v in row.items()}


def _tables_exist(conn: psycopg.Connection) -> bool:
    return bool(conn.execute(element_sql.TABLE_EXISTS, ("hke_eval_runs",)).fetchone()[0])


class EvaluationTables:
    """The evaluation tables of the database at ``url``."""

    def __init__(self, url: str) -> None:
        self.url = url

    def ensure_schema(self) -> None:
        """Create the tables (idempotent, serialised across processes)."""
        apply_schema(connection_pool(self.url), sql.CREATE_SCHEMA, sql.SCHEMA_LOCK_KEY)

    # -- writes, as a run goes --

    def start_run(self, run: dict[str, Any]) -> None:
        """Insert a run with status ``running``: ``run_id``, ``collection_id``, ``question_set``, ``n_questions``,
        ``modes``, ``k``, ``judged``, ``config``."""
        with connection_pool(self.url).connection() as conn:
            conn.execute(sql.INSERT_RUN, _with_json(run, _RUN_JSON))

    def add_question(self, results: Sequence[dict[str, Any]], judgements: Sequence[dict[str, Any]]) -> None:
        """One question's result rows and judgement rows, in one transaction."""
        with connection_pool(self.url).connection() as conn, conn.transaction():
            with conn.cursor() as cur:
                cur.executemany(sql.INSERT_RESULT, [_with_json(r, _RESULT_JSON) for r in results])
                cur.executemany(sql.INSERT_JUDGEMENT, [_with_json(j, _JUDGEMENT_JSON) for j in judgements])

    def finish_run(self, run_id: str, *, summary: dict[str, Any], status: str, error: str | None) -> None:
        with connection_pool(self.url).connection() as conn:
            conn.execute(sql.FINISH_RUN, {"run_id": run_id, "summary": Jsonb(summary), "status": status,
                                          "error": error})  # fmt: skip

    def delete_run(self, run_id: str) -> bool:
        with connection_pool(self.url).connection() as conn:
            if not _tables_exist(conn):
                return False
            return conn.execute(sql.DELETE_RUN, {"run_id": run_id}).rowcount > 0

    # -- reads --

    def list_runs(self, collection: str | None, limit: int) -> list[tuple]:
        """Run rows (``core.sql.evaluation.LIST_RUNS`` columns), newest first; none before any run was stored."""
        with read_connection(reader(self.url)) as conn:
            if not _tables_exist(conn):
                return []
            return conn.execute(sql.LIST_RUNS, {"collection": collection, "limit": limit}).fetchall()

    def run(self, run_id: uuid.UUID | str) -> tuple[tuple, list[tuple], list[tuple]] | None:
        """(the run row, its result rows in the order of its modes, its judgement rows), or None."""
        with read_connection(reader(self.url)) as conn:
            if not _tables_exist(conn):
                return None
            row = conn.execute(sql.GET_RUN, {"run_id": run_id}).fetchone()
            if row is None:
                return None
            results = conn.execute(sql.RESULTS_OF_RUN, {"run_id": run_id, "modes": list(row[_RUN_MODES])}).fetchall()
            judgements = conn.execute(sql.JUDGEMENTS_OF_RUN, {"run_id": run_id}).fetchall()
        return row, results, judgements
