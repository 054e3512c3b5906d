"""The store's writes of a collection's documents: a document's new version, its retirement or purge, and what is
derived from its elements (term counts, heading index), each in the document's one transaction.

:class:`DocumentWriter` is reached as ``store.write``: ``store.write.replace_document(...)`` stores a document's new
version, ``store.write.remove_document(...)`` retires or purges one. Statements are ``core.sql`` templates bound to
the collection's tables; the reads a write decides on go through ``store.read.on(conn)``, inside the same
transaction.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
import psycopg
from langchain_core.documents import Document
from psycopg.types.json import Jsonb

from core.elements import Element
from core.sql import elements as sql
from core.sql import graph as graph_sql
from core.sql import headings as heading_sql
from core.sql import terms as term_sql
from core.sql import versions as version_sql
from core.store.records import CollectionGoneError, DocumentRecord, StoreError, VersionOrderError, VersionRecord
from core.store.rows import element_row, heading_row
from core.textnorm import NAME_WORDS_VERSION
from core.versions import ValidFrom, check_date_range, match_versions
from core.versions.dates import DateSource

if TYPE_CHECKING:
    import uuid

    from core.db.pool import ConnectionSource
    from core.store.reader import ElementReader

# The kinds of change a version counts (core.versions.matching's ops but "unchanged").
CHANGE_OPS = ("added", "removed", "modified", "moved", "renamed")
_BLOCK_END = re.compile(rb"(?<=\n\n)")


@dataclass(frozen=True, slots=True)
class StoredVersion:
    """The version a write made, as read back inside its transaction, and whether it replaced a current one (not
    a first version, nor one after a retirement)."""

    record: VersionRecord
    replaced: bool


class Collection(Protocol):
    """What a writer needs of its store (``core.store.ElementStore`` is one)."""

    collection_id: uuid.UUID
    table: str
    collection: str
    pool: ConnectionSource

    @property
    def read(self) -> ElementReader: ...

    def statement(self, template: str) -> str: ...

    def gone(self) -> CollectionGoneError: ...


class DocumentWriter:
    """The writes of one collection's documents (see the module docstring)."""

    def __init__(self, store: Collection) -> None:
        self._store = store
        self.collection_id = store.collection_id
        self.table = store.table
        self.collection = store.collection
        self.pool = store.pool

    @property
    def read(self) -> ElementReader:
        return self._store.read

    def statement(self, template: str) -> str:
        return self._store.statement(template)

    def gone(self) -> CollectionGoneError:
        return self._store.gone()

    def replace_document(
        self,
        record: DocumentRecord,
        elements: Sequence[Document | Element],
        vectors: np.ndarray,
        text_hashes: Sequence[str] | None = None,
        *,
        valid_from: ValidFrom | None = None,
        source_bytes: bytes | None = None,
        label: str | None = None,
        moved_from: str | None = None,
    ) -> bool:
        """Store ``record`` with exactly ``elements`` as its new version, atomically. Returns False if it was already
        stored as is (no version is made); :meth:`store_version` says which version was made.

        The new version shares every element it did not change with the one before (``core.sql.versions``): only
        elements whose id is new are written, and those it dropped move to the history. ``valid_from`` says when the
        version takes effect (``core.versions.resolve_valid_from``; default: now, taken under the document's lock and
        never before its latest version); a version may not take effect before the document's latest one
        (:class:`VersionOrderError`), nor outside ``core.versions.ACCEPTED_RANGE`` (``DateError``).
        ``source_bytes`` is the file as ingested, kept in shared blocks so ``core show`` can give it back. ``label``
        names the release the version belongs to. ``moved_from`` (a new document only) is the document this one
        continues, a move or rename found in a snapshot: its elements are matched against that document's last
        version, so matched elements keep their stable keys and the version counts its changes from there.

        ``text_hashes`` (see :func:`core.ingest.text_sha256`) name the text each vector was embedded from and make
        the vectors reusable by the embedding cache; without them the elements are stored outside the cache
        (a key copied over in the elements' metadata is dropped, since it may describe another text).

        Another process may have stored the same content meanwhile; the per-document lock plus the hash
        re-check inside the transaction make concurrent ingests of one corpus idempotent and put their versions
        in commit order. An element whose parent is not among the document's elements is refused (the table's
        foreign key) and nothing changes.
        """
        return self.store_version(record, elements, vectors, text_hashes, valid_from=valid_from,
                                  source_bytes=source_bytes, label=label, moved_from=moved_from) is not None

    def store_version(
        self,
        record: DocumentRecord,
        elements: Sequence[Document | Element],
        vectors: np.ndarray,
        text_hashes: Sequence[str] | None = None,
        *,
        valid_from: ValidFrom | None = None,
        source_bytes: bytes | None = None,
        label: str | None = None,
        moved_from: str | None = None,
    ) -> StoredVersion | None:
        """:meth:`replace_document`, returning the version it made (None: already stored as is). Read inside the
        write, it is this write's version even when another process stores the document right after."""
        if len(elements) != len(vectors):
            raise ValueError("one vector per element")
        if text_hashes is not None and len(text_hashes) != len(elements):
            raise ValueError("one text hash per element")
        new = [e if isinstance(e, Element) else Element.from_document(e) for e in elements]
        try:
            with self.pool.connection() as conn, conn.transaction():
                conn.execute(sql.LOCK_DOCUMENT, (str(self.collection_id), record.document_id))
                current = conn.execute(sql.DOCUMENT_HASH, (self.collection_id, record.document_id)).fetchone()
                if current and current[0] == record.content_hash:
                    return None
                replaced = self._write_version(conn, record, new, vectors, text_hashes, valid_from, source_bytes,
                                               label=label, moved_from=moved_from)
                made = self.read.on(conn).last_version(record.document_id)
                if made is None:  # pragma: no cover - written in this transaction
                    raise StoreError(f"document {record.document_id!r}: its new version was not found")
                return StoredVersion(made, replaced)
        except psycopg.errors.ForeignKeyViolation as exc:
            if exc.diag.constraint_name != f"{self.table}_parent_fk":  # the collection was dropped meanwhile
                raise StoreError(f"collection {self.collection!r} no longer exists; "
                                 f"document {record.document_id!r} was not stored") from exc
            raise StoreError(
                f"document {record.document_id!r} was not stored: {_missing_parent(exc)}; "
                "an element's parent must be an element of the same document (what was stored before is kept)"
            ) from exc

    def _write_version(self, conn: psycopg.Connection, record: DocumentRecord, new: Sequence[Element],
                       vectors: np.ndarray, text_hashes: Sequence[str] | None, valid_from: ValidFrom | None,
                       source_bytes: bytes | None, *, label: str | None = None,
                       moved_from: str | None = None) -> bool:
        """The new version of one document, inside its write (the document's lock is held); True if it replaced a
        current version."""
        read = self.read.on(conn)
        doc_id = record.document_id
        last = read.last_version(doc_id)
        if valid_from is None or valid_from.source == DateSource.INGEST:
            # The ingest time is read here, under the lock: a time read earlier may fall before a version another
            # process stored meanwhile. Never before the latest version (one that takes effect later than now).
            when = datetime.now(UTC)
            if last is not None:
                when = max(when, last.retired_at or last.valid_from)
        else:
            when = check_date_range(valid_from.value, what=f"{record.filename}: valid_from")
        if last is not None and when < (last.retired_at or last.valid_from):
            after = "its retirement" if last.retired_at else f"version {last.version}"
            raise VersionOrderError(
                f"{record.filename}: this version would take effect on {when.isoformat()}, before {after} "
                f"({(last.retired_at or last.valid_from).isoformat()}); a document's versions are kept in date "
                "order. Give a later --valid-from, or `remove --purge` it and ingest its versions oldest first"
            )
        version = last.version + 1 if last else 1
        current_rows = read.elements(doc_id)  # none once retired
        old = current_rows if last is None or last.retired_at is None else read.version_elements(doc_id, last.version)
        moved_from = moved_from if last is None else None
        if moved_from is not None:
            origin = read.last_version(moved_from)
            old = read.version_elements(moved_from, origin.version) if origin is not None else []
            moved_from = moved_from if origin is not None else None
        match = match_versions(old, new, old_keys={e.element_id: e.element_key for e in old})
        ops = Counter(m.op for m in match.matches)
        # The rows a version keeps: same id and same content (a caller may reuse an id for other content).
        current = {e.element_id: _row_content(e) for e in current_rows}
        kept_ids = {e.element_id for i, e in enumerate(new)
                    if current.get(e.element_id) == _row_content(e, text_hashes[i] if text_hashes else None)}
        gone = sorted(set(current) - kept_ids)

        heading_version = self._next_heading_version(conn)
        terms = self._count_out_terms(conn, doc_id)
        if gone:
            conn.execute(self.statement(version_sql.RETIRE_ELEMENTS),
                         {"document_id": doc_id, "ids": gone, "version": version, "valid_to": when})
        kept = [e for e in new if e.element_id in kept_ids]
        if kept:
            conn.execute(self.statement(version_sql.UPDATE_KEPT), {
                "document_id": doc_id, "ids": [e.element_id for e in kept], "orders": [e.order for e in kept],
                "lines": [Jsonb({"start_line": e.start_line, "end_line": e.end_line}) for e in kept]})
        with conn.cursor() as cur, cur.copy(self.statement(sql.COPY_ELEMENTS)) as copy:
            copy.set_types(sql.COPY_ELEMENT_TYPES)
            for i, (element, vector) in enumerate(zip(new, vectors, strict=True)):
                if element.element_id in kept_ids:
                    continue
                copy.write_row(element_row(doc_id, element, vector,
                                           text_hashes[i] if text_hashes is not None else None,
                                           match.keys.get(element.element_id), version, when))
        conn.execute(self.statement(term_sql.ADD_DOCUMENT), terms)
        self._write_headings(conn, doc_id, new, heading_version)
        conn.execute(sql.UPSERT_DOCUMENT, _document_params(self.collection_id, record, len(new)))

        params = {"collection_id": self.collection_id, "document_id": doc_id}
        if last is not None and last.valid_to is None:
            conn.execute(version_sql.CLOSE_VERSION, {**params, "version": last.version, "valid_to": when})
        blocks = source_blocks(source_bytes) if source_bytes is not None else None
        if blocks:
            conn.execute(version_sql.INSERT_BLOCKS, {**params, "hashes": [h for h, _ in blocks],
                                                     "data": [d for _, d in blocks]})
        ordered = sorted(new, key=lambda e: e.order)
        conn.execute(version_sql.INSERT_VERSION, {
            **params, "version": version, "valid_from": when,
            "valid_from_source": str(valid_from.source) if valid_from is not None else "ingest",
            "date_only": bool(valid_from and valid_from.date_only), "content_hash": record.content_hash,
            "source": record.source, "filename": record.filename, "title": record.title, "n_elements": len(new),
            "n_bytes": record.n_bytes, **{op: ops.get(op, 0) for op in CHANGE_OPS},
            "element_ids": [e.element_id for e in ordered],
            "start_lines": [e.start_line or 0 for e in ordered], "end_lines": [e.end_line or 0 for e in ordered],
            "blocks": [h for h, _ in blocks] if blocks is not None else None,
            "label": label, "moved_from": moved_from,
        })
        return last is not None and last.retired_at is None

    def remove_document(self, document_id: str, *, purge: bool = False, when: datetime | None = None,
                        moved_to: str | None = None) -> bool:
        """Retire a document: its elements leave the current collection, its history stays (``valid_to`` is set, to
        ``when`` or now). ``purge`` deletes the history as well: every version, its element rows and vectors, the
        source blocks no other version holds, and what the GraphRAG index holds of it
        (:meth:`_purge_graph_rows`). Returns False if there was nothing to retire or purge.

        A ``when`` before the document's last version takes effect is refused (:class:`VersionOrderError`, naming
        both dates); without one, a version not yet valid is retired when it takes effect. ``moved_to`` records
        the document that continues this one (a move or rename)."""
        params = {"collection_id": self.collection_id, "document_id": document_id}
        with self.pool.connection() as conn, conn.transaction():
            conn.execute(sql.LOCK_DOCUMENT, (str(self.collection_id), document_id))
            read = self.read.on(conn)
            last = read.last_version(document_id)
            heading_version = self._next_heading_version(conn)
            self._count_out_terms(conn, document_id)
            if last is not None and last.retired_at is None:
                if when is not None:
                    check_date_range(when, what="the retirement date")
                if when is not None and when < last.valid_from:
                    raise VersionOrderError(
                        f"{last.filename}: a retirement on {when.isoformat()} would come before its version "
                        f"{last.version}, which takes effect on {last.valid_from.isoformat()}; give a date on or "
                        "after that one")
                retired_at = max(when or datetime.now(UTC), last.valid_from)
                conn.execute(self.statement(version_sql.RETIRE_DOCUMENT),
                             {"document_id": document_id, "version": last.version + 1,
                              "valid_to": retired_at})
                conn.execute(version_sql.RETIRE_VERSION, {**params, "version": last.version,
                                                          "retired_at": retired_at, "moved_to": moved_to})
            else:
                conn.execute(self.statement(sql.DELETE_DOCUMENT_ELEMENTS), (document_id,))
            self._write_headings(conn, document_id, (), heading_version)
            removed = conn.execute(sql.DELETE_DOCUMENT, (self.collection_id, document_id)).rowcount > 0
            if purge:
                conn.execute(self.statement(version_sql.PURGE_HISTORY), {"document_id": document_id})
                purged = conn.execute(version_sql.DELETE_VERSIONS, params).rowcount > 0
                conn.execute(version_sql.DELETE_UNUSED_BLOCKS, params)
                self._purge_graph_rows(conn, document_id)
                return removed or purged
            return removed

    def _purge_graph_rows(self, conn: psycopg.Connection, document_id: str) -> None:
        """Delete what the collection's GraphRAG index holds of one document (``core.sql.graph.PURGE_DOCUMENT``),
        after any index write in progress (the index's lock)."""
        if not conn.execute(graph_sql.TABLE_EXISTS, ("hke_text_units",)).fetchone()[0]:
            return
        conn.execute(graph_sql.LOCK_COLLECTION_INDEX, (str(self.collection_id),))
        params = {"collection_id": self.collection_id, "document_id": document_id}
        units, elements = conn.execute(graph_sql.PURGED_UNITS, params).fetchone()
        params.update(units=list(units), elements=list(elements))
        for statement in graph_sql.PURGE_DOCUMENT:
            conn.execute(statement, params)

    def _count_out_terms(self, conn: psycopg.Connection, document_id: str) -> dict[str, Any]:
        """Subtract a document's stored elements from the term counts (inside its write, before they go)."""
        params: dict[str, Any] = {"collection_id": self.collection_id, "document_id": document_id}
        unused = [lexeme for lexeme, n in conn.execute(self.statement(term_sql.SUBTRACT_DOCUMENT), params) if n <= 0]
        if unused:
            conn.execute(term_sql.DELETE_UNUSED, {**params, "lexemes": unused})
        return params

    def fill_term_counts(self) -> None:
        """Count every element's lexemes once, for a collection whose counts are not complete (made before them,
        or moved by ``migrate``), under the collection's write lock; a no-op when another process just did it."""
        params = {"collection_id": self.collection_id}
        with self.pool.connection() as conn, conn.transaction():
            self._next_heading_version(conn)
            if conn.execute(term_sql.TERMS_COMPLETE, params).fetchone()[0]:
                return
            conn.execute(term_sql.DELETE_COLLECTION_COUNTS, params)
            conn.execute(self.statement(term_sql.FILL), params)
            conn.execute(term_sql.MARK_COMPLETE, params)

    def _next_heading_version(self, conn: psycopg.Connection) -> int:
        """Takes the collection's heading-state lock for this transaction; returns the version it writes."""
        return int(conn.execute(heading_sql.NEXT_VERSION, {"collection_id": self.collection_id}).fetchone()[0])

    def _write_headings(self, conn: psycopg.Connection, document_id: str, elements: Iterable[Document],
                        version: int) -> None:
        """Replace one document's rows of the heading index and record the change (inside its write)."""
        params = {"collection_id": self.collection_id, "document_id": document_id, "version": version}
        conn.execute(heading_sql.DELETE_DOCUMENT_HEADINGS, params)
        rows = [row for row in (heading_row(document_id, doc) for doc in elements) if row is not None]
        if rows:
            with conn.cursor() as cur, cur.copy(heading_sql.COPY_HEADINGS) as copy:
                copy.set_types(heading_sql.COPY_HEADING_TYPES)
                for row in rows:
                    copy.write_row((self.collection_id, *row))
        conn.execute(heading_sql.RECORD_CHANGE, params)

    def fill_headings(self) -> None:
        """Make the stored heading index hold every document's headings under this normaliser (once, for a
        collection made before it or under another normaliser; a no-op when another process just did it)."""
        params = {"collection_id": self.collection_id, "words_version": NAME_WORDS_VERSION}
        with self.pool.connection() as conn, conn.transaction():
            try:
                _version, complete, words_version = conn.execute(heading_sql.NEXT_VERSION, params).fetchone()
            except psycopg.errors.ForeignKeyViolation as exc:  # another process dropped the collection meanwhile
                raise self.gone() from exc
            if complete and words_version == NAME_WORDS_VERSION:
                return
            conn.execute(heading_sql.DELETE_COLLECTION_HEADINGS, params)
            headings = self.read.on(conn).scan_headings()
            with conn.cursor() as cur, cur.copy(heading_sql.COPY_HEADINGS) as copy:
                copy.set_types(heading_sql.COPY_HEADING_TYPES)
                for h in headings:
                    copy.write_row((self.collection_id, h.document_id, h.order, h.element_id, h.text, list(h.path),
                                    h.filename, sorted(h.words)))
            conn.execute(heading_sql.MARK_COMPLETE, params)


def source_blocks(data: bytes) -> list[tuple[str, bytes]]:
    """A file's bytes as blocks, each ending after a blank line, with their hashes: joined, they are the file; a
    version stores only the blocks no other version of the collection holds."""
    parts = [part for part in _BLOCK_END.split(data) if part]
    return [(hashlib.sha256(part).hexdigest()[:32], part) for part in parts]


def _row_content(element: Element, text_hash: str | None = None) -> tuple:
    """What must be equal for a version to keep a stored row: text, place in the tree, and the embedded text (the
    stored row's hash, or the one a write passes)."""
    sha = text_hash if text_hash is not None else element.embedded_text_sha256
    return (element.text, element.parent_id, element.category, element.category_depth, element.heading_path, sha)


def _document_params(collection_id: uuid.UUID, record: DocumentRecord, n_elements: int) -> dict[str, Any]:
    return {
        "collection_id": collection_id,
        "document_id": record.document_id,
        "source": record.source,
        "filename": record.filename,
        "title": record.title,
        "content_hash": record.content_hash,
        "loader": record.loader,
        "n_elements": n_elements,
        "n_bytes": record.n_bytes,
        "encoding": record.encoding,
        "front_matter": Jsonb(record.front_matter) if record.front_matter else None,
    }


def _missing_parent(exc: psycopg.errors.ForeignKeyViolation) -> str:
    detail = exc.diag.message_detail or ""
    # "Key (document_id, parent_id)=(doc, p) is not present in table ..." names the missing parent.
    if not detail:
        return "an element's parent is missing"
    return f"an element names a parent that is not in it ({detail.strip()})"
