"""The one door to the conversation tables: a collection's conversations, their turns and the memory kept of them.

Turns go in through :meth:`ConversationTables.append`, one statement that takes the conversation's row lock so that
concurrent appends (two tabs, two processes) get consecutive turn numbers in commit order and none is lost. Reads
and writes go to the primary: a turn must see the one written just before it. All SQL lives in
:mod:`core.sql.conversations`.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import psycopg
from psycopg.types.json import Jsonb

from core.db.pool import apply_schema, connection_pool, read_connection
from core.sql import conversations as sql
from core.sql import elements as element_sql
from core.store.records import StoreError, validate_collection_name

__all__ = ["ConversationTables", "TURN_FIELDS", "validate_conversation_id"]

# The fields of a turn row, in the order the turn statements of ``core.sql.conversations`` select them.
TURN_FIELDS = ("turn", "episode", "question", "understood_as", "entity", "attribute", "attribute_terms", "carried",
               "answer", "facts", "created_at")


def validate_conversation_id(conversation_id: str) -> str:
    """A conversation id, checked by the rules of a collection name (letters, digits, '-', '_', '.'; no look-alike
    characters); raises :class:`StoreError` with the same words, said of a conversation id."""
    try:
        return validate_collection_name(conversation_id)
    except StoreError as exc:
        raise StoreError(str(exc).replace("collection name", "conversation id")) from None


# The databases whose tables this process has made sure of: a turn does not repeat the DDL and its lock.
_SCHEMA_READY: set[str] = set()


def _tables_exist(conn: psycopg.Connection) -> bool:
    return bool(conn.execute(element_sql.TABLE_EXISTS, ("hke_conversations",)).fetchone()[0])


class ConversationTables:
    """The conversations of the collection ``collection`` in the database at ``url``."""

    def __init__(self, url: str, collection: str) -> None:
        self.url = url
        self.collection = validate_collection_name(collection)

    def _key(self, conversation_id: str) -> dict[str, Any]:
        return {"collection": self.collection, "conversation": validate_conversation_id(conversation_id)}

    def ensure_schema(self) -> None:
        """Create the tables (idempotent, serialised across processes; once per process and database)."""
        if self.url not in _SCHEMA_READY:
            apply_schema(connection_pool(self.url), sql.CREATE_SCHEMA, sql.SCHEMA_LOCK_KEY)
            _SCHEMA_READY.add(self.url)

    def append(self, conversation_id: str, turn: dict[str, Any], *, keep: int, summary_turns: int = 200,
               as_of: datetime | None = None) -> dict[str, Any]:
        """Append one turn, the conversation created when new (as of ``as_of``: a conversation's date is set by its
        first turn), in one statement: the turn's number is taken under the conversation's row lock, so concurrent
        appends get consecutive numbers in commit order. ``turn`` holds the fields (``episode``, ``question``,
        ``understood_as``, ``entity``, ``attribute``, ``attribute_terms``, ``carried``, ``answer``, ``facts``, and
        optionally ``query_vector``, the standalone question's embedding);
        ``episode`` None: the turn starts an episode, numbered after the turn. The facts of turns older than the
        last ``keep`` move into the conversation's summary (:meth:`summary`), which keeps the facts of the
        ``summary_turns`` turns past that bound, one turn's per entity and attribute. Returns the fields with the
        stored ``turn`` and ``episode``."""
        key = self._key(conversation_id)
        params = {**key, **turn, "as_of": as_of, "keep": keep, "summary_turns": summary_turns,
                  "episode": turn.get("episode"),
                  "query_vector": turn.get("query_vector"),
                  "carried": Jsonb(turn.get("carried") or {}), "facts": Jsonb(turn.get("facts") or [])}
        with read_connection(connection_pool(self.url)) as conn:  # autocommit: the statement is its transaction
            row = conn.execute(sql.APPEND_TURN, params).fetchone()
        if row is None:
            raise StoreError(f"collection {self.collection!r} does not exist: `python -m core collections` "
                             "lists the ones there are")
        return {**turn, "turn": row[0], "episode": row[1]}

    @staticmethod
    def _rows(rows: list[tuple]) -> list[dict[str, Any]]:
        return [dict(zip(TURN_FIELDS, r, strict=True)) for r in rows]

    def recent(self, conversation_id: str, limit: int) -> list[dict[str, Any]]:
        """The last ``limit`` turns, oldest first; none for an unknown conversation."""
        key = self._key(conversation_id)
        with connection_pool(self.url).connection() as conn:
            if self.url not in _SCHEMA_READY and not _tables_exist(conn):
                return []
            return self._rows(conn.execute(sql.RECENT_TURNS, {**key, "limit": limit}).fetchall())

    def memory(self, conversation_id: str, limit: int) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
        """The conversation's row (:meth:`conversation`) and its last ``limit`` turns (:meth:`recent`, oldest
        first), read in one statement and one round trip: what a turn reads before it is answered. The last turn
        also holds ``query_vector``, its standalone question's embedding (None when it was stored without)."""
        key = self._key(conversation_id)
        with read_connection(connection_pool(self.url)) as conn:
            if self.url not in _SCHEMA_READY and not _tables_exist(conn):
                return None, []
            rows = conn.execute(sql.MEMORY, {**key, "limit": limit}).fetchall()
        if not rows:
            return None, []
        conversation = dict(zip(("turns", "as_of", "created_at", "updated_at"), rows[0][:4], strict=True))
        turns = self._rows([r[4:-1] for r in rows if r[4] is not None])
        if turns:
            turns[-1]["query_vector"] = rows[-1][-1]
        return conversation, turns

    def summary(self, conversation_id: str) -> list[dict[str, Any]]:
        """The summary of the episodes past the memory's bound, oldest first: one row per fact (``turn``,
        ``episode``, ``entity``, ``attribute``, ``element_id``, ``value``); none while nothing is past it."""
        key = self._key(conversation_id)
        with read_connection(connection_pool(self.url)) as conn:
            if self.url not in _SCHEMA_READY and not _tables_exist(conn):
                return []
            rows = conn.execute(sql.SUMMARY, key).fetchall()
        return [dict(zip(("turn", "episode", "entity", "attribute", "element_id", "value"), r, strict=True))
                for r in rows]

    def conversation(self, conversation_id: str) -> dict[str, Any] | None:
        """The conversation's row (``turns``, ``as_of``, ``created_at``, ``updated_at``); None when it is new."""
        key = self._key(conversation_id)
        with connection_pool(self.url).connection() as conn:
            if self.url not in _SCHEMA_READY and not _tables_exist(conn):
                return None
            row = conn.execute(sql.CONVERSATION, key).fetchone()
        return dict(zip(("turns", "as_of", "created_at", "updated_at"), row, strict=True)) if row else None

    def turns(self, conversation_id: str) -> list[dict[str, Any]]:
        """Every turn, oldest first; none for an unknown conversation."""
        key = self._key(conversation_id)
        with connection_pool(self.url).connection() as conn:
            if not _tables_exist(conn):
                return []
            return self._rows(conn.execute(sql.ALL_TURNS, key).fetchall())

    def conversations(self) -> list[dict[str, Any]]:
        """The collection's conversations, most recently used first."""
        with connection_pool(self.url).connection() as conn:
            if not _tables_exist(conn):
                return []
            rows = conn.execute(sql.LIST_CONVERSATIONS, {"collection": self.collection}).fetchall()
        return [dict(zip(("conversation_id", "turns", "created_at", "updated_at", "as_of"), r, strict=True))
                for r in rows]

    def delete(self, conversation_id: str) -> bool:
        """Delete a conversation with its turns and memory; False when there was none."""
        key = self._key(conversation_id)
        with connection_pool(self.url).connection() as conn:
            if not _tables_exist(conn):
                return False
            return conn.execute(sql.DELETE_CONVERSATION, key).rowcount > 0
