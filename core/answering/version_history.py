"""A document's history read from the store: which document a name means, which version a number or a date means,
the diff between two versions with the stored stable keys, every change since a date, and a version's source bytes.

The CLI (``history``, ``diff``, ``changes``, ``show``) and "what changed" questions (:mod:`core.answering.changes`)
read versions through these functions; the store (``store.read``) stays the only place with SQL.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Any

from core.elements import Element
from core.store import ElementStore, StoreError, VersionRecord
from core.versions import Change, DateError, as_json, diff_elements, parse_date, version_as_of

FIND_DOCUMENTS_HINT = ("`python -m core collections` lists the collections; a document is named by its id, its source "
                       "path or its file name as `ingest` reported them")


class UnknownDocumentError(StoreError):
    """No document (current or retired) of the collection has that id, source path or file name."""


class VersionChoiceError(StoreError):
    """A version number or date that names no version of the document (the message says which exist)."""


# The category of the change that stands for a whole document's retirement (``remove``): its last version's
# number, the retirement date, and the document's title as the text removed.
RETIRED_CATEGORY = "Document"


@dataclass(frozen=True)
class DocumentRef:
    """A document with a history: its id, source path, file name, and whether it was retired."""

    document_id: str
    source: str
    filename: str
    retired: bool


@dataclass(frozen=True)
class DocumentChange:
    """One change of one document's version, with what cites it: document, version, the date it took effect."""

    document_id: str
    source: str
    filename: str
    version: int
    valid_from: datetime
    change: Change

    def as_dict(self) -> dict[str, Any]:
        return {"document_id": self.document_id, "source": self.source, "filename": self.filename,
                "version": self.version, "valid_from": self.valid_from.date().isoformat(), **change_dict(self.change),
                "retired": self.retired}

    @property
    def retired(self) -> bool:
        """Whether this change is the retirement of the whole document (``remove``), dated by it."""
        return self.change.category == RETIRED_CATEGORY and self.change.op == "removed"


def change_dict(change: Change) -> dict[str, Any]:
    """A change as JSON-ready values: ``{op, path, key, before, after, words?, old_path?}``."""
    return as_json([change])["changes"][0]


def resolve_document(store: ElementStore, name: str) -> DocumentRef:
    """The document ``name`` means (id, source path or file name), retired ones included.

    :class:`UnknownDocumentError` when none or several match; the message says how to name one.
    """
    known = [DocumentRef(*row) for row in store.read.versioned_documents()]
    matches = [d for d in known if name in (d.document_id, d.source, d.filename)]
    if not matches:
        listing = ", ".join(sorted(d.filename for d in known)[:10]) or "none yet"
        raise UnknownDocumentError(f"no document {name!r} in collection {store.collection!r} (its documents: "
                                   f"{listing}); {FIND_DOCUMENTS_HINT}")
    if len(matches) > 1:
        listing = ", ".join(f"{d.document_id} ({d.source})" for d in matches)
        raise UnknownDocumentError(f"{name!r} names several documents: {listing}; pass a document id")
    return matches[0]


def parse_moment(text: str, *, what: str) -> datetime:
    """A date given on the command line or in a question (:data:`core.versions.dates.ACCEPTED_FORMS`)."""
    return parse_date(text, what=what)[0]


def version_on(versions: list[VersionRecord], when: datetime, name: str) -> VersionRecord:
    """The version in force on ``when``; :class:`VersionChoiceError` before the first one or after a retirement."""
    found = version_as_of([(v.valid_from, v) for v in versions], when)
    if found is None:
        first = versions[0].valid_from.date().isoformat() if versions else "never"
        raise VersionChoiceError(f"no version of {name} existed on {when.date().isoformat()} "
                                 f"(its first version takes effect on {first})")
    if found.retired_at is not None and when >= found.retired_at:
        raise VersionChoiceError(f"{name} was retired on {found.retired_at.date().isoformat()}: no version of it "
                                 f"existed on {when.date().isoformat()} (its last was version {found.version})")
    return found


def choose_version(versions: list[VersionRecord], spec: str, name: str, *, what: str) -> VersionRecord:
    """The version ``spec`` names: a version number (``3``) or a date (the version in force then)."""
    if not versions:
        raise VersionChoiceError(f"{name} has no versions")
    text = spec.strip()
    if text.isdigit():
        number = int(text)
        for v in versions:
            if v.version == number:
                return v
        raise VersionChoiceError(f"{name} has no version {number} (it has versions 1 to {versions[-1].version})")
    try:
        when = parse_moment(text, what=what)
    except DateError as exc:
        raise DateError(f"{exc}; or a version number") from None
    return version_on(versions, when, name)


def _keyed(elements: Iterable[Element]) -> dict[str, str]:
    return {e.element_id: e.element_key for e in elements}


def version_diff(store: ElementStore, document_id: str, old: int | None, new: int, *,
                 include_unchanged: bool = False,
                 old_document: str | None = None) -> tuple[list[Element], list[Element], list[Change]]:
    """The elements of version ``old`` (None: none) and version ``new`` of one document, and the changes between
    them in diff order, each with the element's stored stable key. ``old_document``: version ``old`` is that
    document's (the one this one continues, for a move)."""
    before = store.read.version_elements(old_document or document_id, old) if old is not None else []
    after = store.read.version_elements(document_id, new)
    old_keys, new_keys = _keyed(before), _keyed(after)
    changes = diff_elements(before, after, old_keys=old_keys, include_unchanged=include_unchanged)
    out = []
    for change in changes:
        stored = new_keys.get(change.new_id or "") or old_keys.get(change.old_id or "")
        out.append(replace(change, key=stored) if stored else change)
    return before, after, out


def diff_versions(store: ElementStore, document_id: str, old: int | None, new: int) -> list[Change]:
    """The changes from version ``old`` (None: from nothing) to version ``new`` of one document."""
    return version_diff(store, document_id, old, new)[2]


def move_origin(store: ElementStore, version: VersionRecord) -> VersionRecord | None:
    """The last version of the document ``version`` continues (a move or rename), or None."""
    return store.read.last_version(version.moved_from) if version.moved_from else None


def moved_changes(store: ElementStore, version: VersionRecord) -> list[Change]:
    """The changes a moved document's first version made: the move itself (document level: the old source as
    ``before``, the new as ``after``), then each element's change from the old document's last version, with the
    stable keys the matched elements kept. Empty for a version that continues no document."""
    origin = move_origin(store, version)
    if origin is None:
        return []
    move = Change("moved", version.document_id, (), origin.source, version.source, RETIRED_CATEGORY,
                  old_id=origin.document_id, new_id=version.document_id)
    return [move, *version_diff(store, version.document_id, origin.version, version.version,
                                old_document=origin.document_id)[2]]


def heading_matches(change: Change, heading: str) -> bool:
    """Whether ``change`` is under a heading containing ``heading`` (case-insensitive), where it is or was, or is
    such a heading itself (a renamed or repealed article)."""
    wanted = heading.casefold().strip()
    texts = [part for path in (change.path, change.old_path or ()) for part in path]
    if change.category == "Title":
        texts += [change.before or "", change.after or ""]
    return any(wanted in text.casefold() for text in texts)


def changes_since(
    store: ElementStore,
    since: datetime | None = None,
    *,
    until: datetime | None = None,
    under: str | None = None,
    document_ids: Iterable[str] | None = None,
) -> list[DocumentChange]:
    """Every change of every version (after each document's first) that took effect on or after ``since`` (None:
    any time) and before ``until``, in date order; ``under`` keeps changes under a heading containing that text;
    ``document_ids`` keeps those documents only."""
    start = since - timedelta(microseconds=1) if since is not None else datetime.min.replace(tzinfo=UTC)
    wanted = set(document_ids) if document_ids is not None else None
    out: list[DocumentChange] = []
    for v in store.read.versions_since(start):
        if until is not None and v.valid_from >= until:
            continue
        if wanted is not None and v.document_id not in wanted:
            continue
        made = moved_changes(store, v) if v.moved_from else diff_versions(store, v.document_id, v.version - 1,
                                                                             v.version)
        for change in made:
            if under and not heading_matches(change, under):
                continue
            out.append(DocumentChange(v.document_id, v.source, v.filename, v.version, v.valid_from, change))
    if not under:  # a retirement removes the whole document, under no heading
        for v in store.read.retired_since(start):
            if v.retired_at is None or (until is not None and v.retired_at >= until) or \
                    (wanted is not None and v.document_id not in wanted):
                continue
            if v.moved_to:  # not gone: the document that continues it reports the move
                continue
            whole = Change("removed", v.document_id, (), v.title or v.filename, None, RETIRED_CATEGORY)
            out.append(DocumentChange(v.document_id, v.source, v.filename, v.version, v.retired_at, whole))
        out.sort(key=lambda c: c.valid_from)  # stable: a version's changes keep their document order
    return out


def source_of(store: ElementStore, document_id: str, version: VersionRecord, name: str) -> bytes:
    """The file of ``version`` as it was ingested, byte for byte, joined from its source blocks.

    :class:`VersionChoiceError` for a version stored before sources were kept.
    """
    layout = store.read.layout(document_id, version.version)
    if layout is None or layout.blocks is None:
        raise VersionChoiceError(f"version {version.version} of {name} was stored before source files were kept, "
                                 "so its bytes cannot be given back; ingest the file again to keep its next version")
    blocks = store.read.blocks(layout.blocks)
    missing = [h for h in layout.blocks if h not in blocks]
    if missing:
        raise StoreError(f"version {version.version} of {name} misses {len(missing)} source block(s)")
    return b"".join(blocks[h] for h in layout.blocks)
