"""Managing a collection's documents and the collections themselves: what the CLI (``remove``, ``collections``) and
the Overview page's document manager both call, so the two do the same thing.

- :func:`list_documents`: every document with a history, current or retired, with its last version and status;
- :func:`remove_document`: retire one (as of a date) or purge it (every version, vectors, source blocks, graph rows),
  and keep the contextual index in step;
- :func:`removal_preview`: what a purge would delete, said before it happens;
- :func:`create_collection` and :func:`drop_collection`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from core.answering.version_history import UnknownDocumentError, resolve_document
from core.store import ElementStore, StoreError

if TYPE_CHECKING:
    from core.embeddings import NamedEmbeddings

CURRENT, RETIRED, NOT_YET_VALID = "current", "retired", "not yet valid"


@dataclass(frozen=True)
class DocumentRow:
    """One document of a collection as the manager lists it; ``source`` is the stored path (a key, not shown)."""

    document_id: str
    filename: str
    title: str | None
    version: int | None  # its last version (None for a document stored before versions were kept)
    valid_from: datetime | None
    retired_at: datetime | None
    status: str  # current | retired | not yet valid
    elements: int
    n_bytes: int
    source: str


@dataclass(frozen=True)
class Removal:
    """What :func:`remove_document` did."""

    document_id: str
    source: str
    filename: str
    purged: bool
    removed: bool
    versions: int  # the versions the document had (kept by a retirement, deleted by a purge)
    graph_text_units: int  # the GraphRAG text units a purge deleted
    retired_at: datetime | None

    def as_dict(self) -> dict[str, Any]:
        return {"removed": self.document_id, "source": self.source, "purged": self.purged,
                "history_kept": not self.purged, "versions": self.versions,
                "graph_text_units_deleted": self.graph_text_units,
                "retired_at": self.retired_at.isoformat() if self.retired_at and self.removed and not self.purged
                else None}  # fmt: skip


class NotCurrentError(StoreError):
    """A retirement of a document that is already retired."""


def list_documents(store: ElementStore) -> list[DocumentRow]:
    """Every document of the collection, current and retired, by file name."""
    now = datetime.now(UTC)
    current = {d.document_id: d for d in store.documents()}
    rows = []
    for document_id, source, filename, _retired in store.read.versioned_documents():
        last = store.read.last_version(document_id)
        if last is None:
            continue
        status = RETIRED if last.retired_at is not None and last.retired_at <= now else (
            NOT_YET_VALID if last.valid_from > now else CURRENT)
        rows.append(DocumentRow(document_id, filename, last.title, last.version, last.valid_from, last.retired_at,
                                status, last.n_elements, last.n_bytes, source))
    listed = {r.document_id for r in rows}
    rows += [DocumentRow(d.document_id, d.filename, d.title, None, d.ingested_at, None, CURRENT, d.n_elements,
                         d.n_bytes, d.source) for d in current.values() if d.document_id not in listed]  # fmt: skip
    return sorted(rows, key=lambda r: (r.filename.lower(), r.document_id))


def _resolve(store: ElementStore, name: str) -> tuple[str, str, str, bool]:
    try:
        doc = resolve_document(store, name)
    except UnknownDocumentError:
        found = store.find_documents(name)  # a document stored before versions were kept
        if len(found) != 1:
            raise
        return found[0].document_id, found[0].source, found[0].filename, False
    return doc.document_id, doc.source, doc.filename, doc.retired


def removal_preview(store: ElementStore, name: str, *, purge: bool) -> Removal:
    """What :func:`remove_document` would do to ``name``, without doing it (``removed`` is False)."""
    from core.graph.read import document_rows

    document_id, source, filename, _retired = _resolve(store, name)
    versions = len(store.read.versions(document_id))
    units = document_rows(store, document_id)["text_units"] if purge else 0
    return Removal(document_id, source, filename, purge, False, versions, units, None)


def remove_document(store: ElementStore, name: str, *, purge: bool = False, when: datetime | None = None) -> Removal:
    """Retire the document ``name`` (its id, source path or file name) as of ``when`` (default now): it leaves the
    collection, its history stays. ``purge`` deletes its history too. :class:`NotCurrentError` to retire a document
    already retired; :class:`core.answering.version_history.UnknownDocumentError` for a name that names none."""
    from core.ingest.contextual import update_contextual_index

    if purge and when is not None:
        raise ValueError("a retirement date dates a retirement; a purge deletes the history instead: give one")
    document_id, source, filename, retired = _resolve(store, name)
    if retired and not purge:
        raise NotCurrentError(f"no document {name!r} is current in collection {store.collection!r}: it was retired "
                              "(its history is kept; a purge deletes it)")
    preview = removal_preview(store, document_id, purge=purge)
    removed = store.write.remove_document(document_id, purge=purge, when=when)
    update_contextual_index(store)  # the document leaves the contextual index too (nothing is embedded)
    retired_at = None
    if removed and not purge:
        last = store.read.last_version(document_id)
        retired_at = last.retired_at if last is not None else when
    return Removal(document_id, source, filename, purge, removed, preview.versions, preview.graph_text_units,
                   retired_at)


def create_collection(url: str, name: str, embeddings: NamedEmbeddings) -> ElementStore:
    """Make the empty collection ``name`` for ``embeddings``; StoreError if it exists already."""
    from core.store import CollectionMissingError

    try:
        ElementStore(url, name, embeddings, create=False)
    except CollectionMissingError:
        return ElementStore(url, name, embeddings, create=True)
    raise StoreError(f"collection {name!r} already exists")


def drop_collection(store: ElementStore) -> None:
    """Delete the collection with every document, version, index and stored run of it."""
    store.drop()
