"""A document's history read from the store: which document a name means, which version a number or a date means,
the diff between two versions with the stored stable keys, every change since a date, and a version's source bytes.

The CLI (``history``, ``diff``, ``changes``, ``show``) and "what changed" questions (:mod:`core.answering.changes`)
read versions through these functions; the store (``store.read``) stays the only place with SQL.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import UTC, datetime, time
from typing import Any

from core.elements import Element
from core.store import ElementStore, StoreError, VersionRecord
from core.text import clip
from core.versions import Change, DateError, as_json, diff_elements, parse_date, version_as_of
from core.versions.dates import EARLIEST, LATEST

FIND_DOCUMENTS_HINT = ("`python -m core collections` lists the collections; a document is named by its id, its source "
                       "path or its file name as `ingest` reported them")


class UnknownDocumentError(StoreError):
    """No document (current or retired) of the collection has that id, source path or file name."""


class VersionChoiceError(StoreError):
    """A version number or date that names no version of the document (the message says which exist)."""


# The category of the change that stands for a whole document: its retirement (``remove``: its last version's
# number, the retirement date, its title as the text removed) or its coming into force (its title as the text added).
RETIRED_CATEGORY = "Document"
SNIPPET_CHARS = 140
SNIPPET_CONTEXT_WORDS = 4  # equal words kept on each side of an edit in a one-line word diff


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
    base: int | None = None  # the version the change is measured from (the one in force at the window's start)

    def as_dict(self) -> dict[str, Any]:
        return {"document_id": self.document_id, "source": self.source, "filename": self.filename,
                "version": self.version, "from_version": self.base, "valid_from": self.valid_from.date().isoformat(),
                **change_dict(self.change), "retired": self.retired, "new_document": self.new_document,
                "snippet": change_snippet(self.change)}

    @property
    def whole_document(self) -> bool:
        """Whether this change is a whole document coming into force or retired, not one element."""
        return self.change.category == RETIRED_CATEGORY

    @property
    def retired(self) -> bool:
        """Whether this change is the retirement of the whole document (``remove``), dated by it."""
        return self.whole_document and self.change.op == "removed"

    @property
    def new_document(self) -> bool:
        """Whether this change is a whole document that came into force (its first version in the window)."""
        return self.whole_document and self.change.op == "added"


def change_dict(change: Change) -> dict[str, Any]:
    """A change as JSON-ready values: ``{op, path, key, before, after, words?, old_path?}``."""
    return as_json([change])["changes"][0]


def _word_line(words: tuple[tuple[str, str], ...]) -> str:
    parts = []
    n = SNIPPET_CONTEXT_WORDS
    for i, (op, text) in enumerate(words):
        if op == "delete":
            parts.append(f"[-{text}-]")
        elif op == "insert":
            parts.append(f"{{+{text}+}}")
        else:
            w = text.split()
            first, last = i == 0, i == len(words) - 1
            if first and last:
                parts.append(text)
            elif first and len(w) > n:
                parts.append("… " + " ".join(w[-n:]))
            elif last and len(w) > n:
                parts.append(" ".join(w[:n]) + " …")
            elif len(w) > 2 * n:
                parts.append(" ".join(w[:n]) + " … " + " ".join(w[-n:]))
            else:
                parts.append(text)
    return " ".join(parts)


def change_snippet(change: Change, limit: int = SNIPPET_CHARS) -> str:
    """One line saying what ``change`` did: an edit's word diff around its changed words ("… is [-14-] {+21+}
    days"), a move's old and new place, or the text added or removed."""
    if change.op in ("modified", "renamed") and change.words:
        return clip(_word_line(change.words), limit, at_word=False)
    if change.op == "moved" and change.old_path is not None and change.old_path != change.path:
        return clip(f"{' › '.join(change.old_path) or '-'} → {' › '.join(change.path) or '-'}", limit, at_word=False)
    return clip((change.after if change.op != "removed" else change.before) or "", limit, at_word=False)


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


FAR_FUTURE = LATEST  # "no end": versions dated in the future count too


def end_of_day(moment: datetime) -> datetime:
    """The last instant of ``moment``'s day (UTC): where a plain date given as a bound ends."""
    return datetime.combine(moment.astimezone(UTC).date(), time.max, tzinfo=UTC)


@dataclass(frozen=True)
class Window:
    """"Between A and B": from the version in force at ``start`` to the version in force at ``end``, that is the
    changes that took effect after ``start``, up to and including ``end``.

    A plain date (``start_is_day``, ``end_is_day``) stands for its whole day, as "as of D" does: "after 2024-04-20"
    leaves out what took effect on the 20th, "up to and including 2024-08-30" keeps all of the 30th. ``start`` None:
    from each document's first version; ``end`` None: no end (future-dated versions too). A label is the release
    name a bound was given by (shown beside its date)."""

    start: datetime | None = None
    end: datetime | None = None
    start_is_day: bool = True
    end_is_day: bool = True
    start_label: str | None = None
    end_label: str | None = None

    @property
    def after(self) -> datetime | None:
        """The last instant left out (exclusive lower bound)."""
        if self.start is None:
            return None
        return end_of_day(self.start) if self.start_is_day else self.start

    @property
    def through(self) -> datetime | None:
        """The last instant kept (inclusive upper bound)."""
        if self.end is None:
            return None
        return end_of_day(self.end) if self.end_is_day else self.end

    @property
    def empty(self) -> bool:
        return self.after is not None and self.through is not None and self.through <= self.after

    def holds(self, when: datetime) -> bool:
        """Whether a change that took effect at ``when`` is in the window."""
        return (self.after is None or when > self.after) and (self.through is None or when <= self.through)

    def _bound(self, moment: datetime, is_day: bool, label: str | None, korean: bool) -> str:
        whole_day = is_day or moment.astimezone(UTC).time() == time(0)  # a release dated by a plain date
        day = moment.date().isoformat() if whole_day else moment.isoformat(timespec="minutes")
        if label is None:
            return day
        return f"{label}판({day})" if korean else f"release {label} ({day})"

    def words(self, korean: bool = False) -> str:
        """The window in words: "changes after 2024-04-20 up to and including 2024-08-30"."""
        start = self._bound(self.start, self.start_is_day, self.start_label, korean) if self.start else None
        end = self._bound(self.end, self.end_is_day, self.end_label, korean) if self.end else None
        if korean:
            if start and end:
                return f"{start} 이후부터 {end}까지(당일 포함)의 변경"
            return (f"{start} 이후의 변경" if start else f"첫 판 이후 {end}까지(당일 포함)의 변경" if end
                    else "첫 판 이후의 변경")
        if start and end:
            return f"changes after {start} up to and including {end}"
        return (f"changes after {start}" if start else
                f"changes since each document's first version up to and including {end}" if end
                else "changes since each document's first version")


def _in_force(v: VersionRecord, when: datetime) -> bool:
    return v.retired_at is None or v.retired_at > when


def _document_change(v: VersionRecord, when: datetime, change: Change, base: int | None) -> DocumentChange:
    return DocumentChange(v.document_id, v.source, v.filename, v.version, when, change, base)


def changes_between(
    store: ElementStore,
    window: Window,
    *,
    under: str | None = None,
    document_ids: Iterable[str] | None = None,
) -> list[DocumentChange]:
    """What changed from the version of each document in force at the window's start to the one in force at its
    end (:class:`Window`), grouped by document (source path), then version, each version's changes in document order.

    Each document's changes are the diff of those two versions (an element edited twice in the window is one change,
    one added and removed again is none), each put under the version of the window that last changed that element.
    A document that came into force in the window is one ``added`` change, one retired in it one ``removed`` change
    (category :data:`RETIRED_CATEGORY`, under no heading, so ``under`` leaves both out). ``document_ids`` keeps
    those documents only."""
    after, top = window.after, window.through or FAR_FUTURE
    wanted = set(document_ids) if document_ids is not None else None

    def keep(document_id: str) -> bool:
        return wanted is None or document_id in wanted

    new = {v.document_id: v for v in store.read.versions_at(top) if _in_force(v, top) and keep(v.document_id)}
    old = ({v.document_id: v for v in store.read.versions_at(after) if _in_force(v, after) and keep(v.document_id)}
           if after is not None else None)
    steps: dict[str, list[VersionRecord]] = {}
    for v in store.read.versions_since(after or EARLIEST):  # every version after each document's first
        if v.valid_from <= top and keep(v.document_id):
            steps.setdefault(v.document_id, []).append(v)
    out: list[DocumentChange] = []
    if not under:
        last = {v.document_id: v for v in store.read.retired_since(after or EARLIEST)}
        gone = (set(old) - set(new)) if old is not None else {d for d, v in last.items()
                                                                if v.retired_at is not None and v.retired_at <= top}
        for document_id in gone:
            v = last.get(document_id) or store.read.versions(document_id)[-1]
            if v.moved_to:  # not gone: the document that continues it reports the move
                continue
            when = v.retired_at or v.valid_to or v.valid_from
            whole = Change("removed", document_id, (), v.title or v.filename, None, RETIRED_CATEGORY)
            out.append(_document_change(v, when, whole, v.version))
    for document_id, v in new.items():
        if old is not None and document_id not in old:  # came into force in the window
            first = v if v.version == 1 else next(
                (r for r in store.read.versions(document_id) if window.holds(r.valid_from)), v)
            if first.moved_from:
                moved = moved_changes(store, first)
                if first.version < v.version:
                    moved += diff_versions(store, document_id, first.version, v.version)
                for change in moved:
                    if not under or (change.category != RETIRED_CATEGORY and heading_matches(change, under)):
                        out.append(_document_change(v, first.valid_from, change, None))
            elif not under:
                whole = Change("added", document_id, (), None, v.title or v.filename, RETIRED_CATEGORY)
                out.append(_document_change(v, first.valid_from, whole, None))
            continue
        doc_steps = steps.get(document_id, [])
        base = old[document_id].version if old is not None else (doc_steps[0].version - 1 if doc_steps else None)
        if not doc_steps or base is None or base >= v.version:
            continue
        by_key: dict[str, VersionRecord] = {}
        if len(doc_steps) > 1:
            for step in doc_steps:
                for change in diff_versions(store, document_id, step.version - 1, step.version):
                    by_key[change.key] = step
        for change in diff_versions(store, document_id, base, v.version):
            if under and not heading_matches(change, under):
                continue
            step = by_key.get(change.key, doc_steps[-1])
            out.append(_document_change(step, step.valid_from, change, base))
    out.sort(key=lambda c: (c.source, c.document_id, c.version, c.change.category != RETIRED_CATEGORY))
    return out


@dataclass(frozen=True)
class VersionGroup:
    """The changes of one version of one document in a window, with their count by operation."""

    version: int
    valid_from: datetime
    base: int | None
    changes: tuple[DocumentChange, ...]

    @property
    def counts(self) -> dict[str, int]:
        return op_counts(self.changes)


@dataclass(frozen=True)
class DocumentGroup:
    """One document's changes in a window, version by version."""

    document_id: str
    source: str
    filename: str
    versions: tuple[VersionGroup, ...]

    @property
    def changes(self) -> list[DocumentChange]:
        return [c for v in self.versions for c in v.changes]

    @property
    def counts(self) -> dict[str, int]:
        return op_counts(self.changes)


OPS = ("added", "removed", "modified", "moved", "renamed")


def op_counts(changes: Iterable[DocumentChange]) -> dict[str, int]:
    """How many of ``changes`` are of each operation (only those that occur, in :data:`OPS` order)."""
    found: dict[str, int] = {}
    for c in changes:
        found[c.change.op] = found.get(c.change.op, 0) + 1
    return {op: found[op] for op in (*OPS, *sorted(set(found) - set(OPS))) if op in found}


def counts_words(counts: dict[str, int]) -> str:
    """``{"added": 3, "modified": 1}`` as "added 3, modified 1"."""
    return ", ".join(f"{op} {n}" for op, n in counts.items())


def group_changes(changes: Iterable[DocumentChange]) -> list[DocumentGroup]:
    """``changes`` by document (in the order they come), then by version."""
    by_document: dict[str, list[DocumentChange]] = {}
    for c in changes:
        by_document.setdefault(c.document_id, []).append(c)
    out = []
    for document_id, items in by_document.items():
        by_version: dict[int, list[DocumentChange]] = {}
        for c in items:
            by_version.setdefault(c.version, []).append(c)
        versions = tuple(VersionGroup(n, cs[0].valid_from, cs[0].base, tuple(cs)) for n, cs in by_version.items())
        out.append(DocumentGroup(document_id, items[0].source, items[0].filename, versions))
    return out


def matches_name(change: DocumentChange, pattern: str) -> bool:
    """Whether ``pattern`` names the change's document: its id, source path or file name, or a glob over the source
    path or file name (``*release-notes*``, ``docs/about/*``)."""
    if pattern in (change.document_id, change.source, change.filename):
        return True
    return any(fnmatch.fnmatchcase(name, pattern) for name in (change.source, change.filename))


def filter_changes(changes: Iterable[DocumentChange], *, exclude: Iterable[str] = (),
                   ops: Iterable[str] | None = None) -> list[DocumentChange]:
    """``changes`` without those of the documents ``exclude`` names (:func:`matches_name`), and, with ``ops``, only
    those operations."""
    patterns = list(exclude)
    wanted = set(ops) if ops is not None else None
    return [c for c in changes if not any(matches_name(c, p) for p in patterns)
            and (wanted is None or c.change.op in wanted)]


def release_labels(store: ElementStore) -> dict[str, datetime]:
    """Each release label the collection's versions carry, with the date its release took effect (the latest
    ``valid_from`` of the versions labelled so). Empty while versions carry no label.

    The one place a label is looked up: where labels are kept is read here only."""
    if "label" not in VersionRecord.__dataclass_fields__:
        return {}
    labels: dict[str, datetime] = {}
    for document_id, *_ in store.read.versioned_documents():
        for v in store.read.versions(document_id):
            label = getattr(v, "label", None)
            if label:
                labels[label] = max(labels.get(label, v.valid_from), v.valid_from)
    return labels


def label_key(label: str) -> str:
    """A label as compared: case folded, without a leading "v" ("v1.6.1" and "1.6.1" name one release)."""
    folded = label.strip().casefold()
    return folded[1:] if folded[:1] == "v" and folded[1:2].isdigit() else folded


def parse_bound(text: str, *, what: str, labels: dict[str, datetime] | None = None) -> tuple[datetime, bool,
                                                                                             str | None]:
    """A window bound given on the command line: a date, a date-time, or a release label; (moment, whether a plain
    date, the label). :class:`DateError` names the accepted forms and the labels known."""
    try:
        moment, is_day = parse_date(text, what=what)
        return moment, is_day, None
    except DateError as exc:
        known = {label_key(k): (k, v) for k, v in (labels or {}).items()}
        found = known.get(label_key(text))
        if found is not None:
            return found[1], False, found[0]
        if known:
            listing = ", ".join(sorted(k for k, _ in known.values())[:12])
            raise DateError(f"{exc}; or a release label ({listing})") from None
        raise


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
