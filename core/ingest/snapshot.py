"""A folder ingested as the whole corpus at a date (``ingest DIR --valid-from D --snapshot``): the documents stored
from that folder that it no longer holds are retired as of D, and a retired document whose elements mostly live on
in a new one is linked to it as a move.

Which documents a folder holds: a document's id is its collection and its resolved file path
(:func:`core.ingest.sources.document_id_for`), and its stored ``source`` is the path as it was given to ``ingest``.
A stored document belongs to the folder when that path, made absolute against the current directory when it was
given relative, resolves to a file under the folder *and* hashes back to the document's id; so a document ingested
with a relative path from another directory, or uploaded, is never placed in a folder, and never retired by one.

A move: in one snapshot, a document that leaves the folder and a document new to the collection that share at least
:data:`MOVE_MIN_SHARE` of their elements (the pairs :func:`core.versions.match_versions` matches, over the larger
of the two) are one document that moved or was renamed. Each document pairs at most once, best share first.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from core.elements import Element
from core.ingest.report import FileResult, IngestError
from core.ingest.sources import SourceFile, document_id_for
from core.store import ElementStore, VersionRecord
from core.versions import match_versions

MOVE_MIN_SHARE = 0.5


class SnapshotRefusedError(IngestError):
    """A snapshot that would retire what the user likely did not mean to (the message says how many and why)."""


@dataclass(frozen=True)
class SnapshotPlan:
    """What a snapshot of ``folder`` at ``when`` finds: the documents stored from the folder (current ones, by id,
    with their last version) and the ids of the files the folder holds now."""

    folder: Path
    when: datetime
    stored: dict[str, VersionRecord]
    present: frozenset[str]

    @property
    def missing(self) -> list[str]:
        """The current documents of the folder that it no longer holds, in source order."""
        gone = [v for d, v in self.stored.items() if d not in self.present and v.retired_at is None]
        return [v.document_id for v in sorted(gone, key=lambda v: v.source)]


def in_folder(store: ElementStore, document_id: str, source: str, folder: Path) -> bool:
    """Whether the stored document ``document_id`` (stored from ``source``) is a file under ``folder`` (resolved)."""
    path = Path(source)
    if not path.is_absolute():
        path = Path.cwd() / path
    resolved = path.resolve()
    return resolved.is_relative_to(folder) and document_id_for(store.collection, str(resolved)) == document_id


def plan_snapshot(store: ElementStore, folder: Path, when: datetime, sources: Sequence[SourceFile],
                  problems: Iterable[FileResult], *, confirmed: bool) -> SnapshotPlan:
    """The snapshot's plan, or :class:`SnapshotRefusedError` before anything is written: for a folder that holds
    none of the documents stored from it (``confirmed`` lets that through), or for a date before a change already
    stored from the folder (a folder's snapshots are kept in date order)."""
    folder = folder.resolve()
    placed = [d for d, source, _name, _retired in store.read.versioned_documents()
              if in_folder(store, d, source, folder)]
    stored = store.read.versions_of(placed)
    present = {document_id_for(store.collection, s.key) for s in sources}
    present |= {document_id_for(store.collection, str(Path(p.path).resolve())) for p in problems
                if Path(p.path).resolve().is_relative_to(folder)}
    plan = SnapshotPlan(folder, when, stored, frozenset(present))
    current = [d for d, v in stored.items() if v.retired_at is None]
    if current and not (plan.present & set(current)) and not confirmed:
        raise SnapshotRefusedError(
            f"snapshot refused: {folder} holds none of the {len(current)} document(s) stored from it in collection "
            f"{store.collection!r}, so all {len(current)} would be retired as of {when.date().isoformat()}. Check "
            "the folder (an empty or wrong folder is the usual cause); pass --yes to retire them")
    later = [v for v in stored.values() if max(v.valid_from, v.retired_at or v.valid_from) > when]
    if later:
        last = max(later, key=lambda v: max(v.valid_from, v.retired_at or v.valid_from))
        at = max(last.valid_from, last.retired_at or last.valid_from)
        raise SnapshotRefusedError(
            f"snapshot refused: {folder} already holds a later change ({last.source}, "
            f"{'retired' if last.retired_at else f'version {last.version}'} on {at.isoformat()}) than this "
            f"snapshot's date ({when.isoformat()}); a folder's snapshots are kept in date order, so ingest the "
            "older release first")
    return plan


def share(old: Sequence[Element], new: Sequence[Element]) -> float:
    """The part of two documents' elements that match (over the larger of the two; 0 when either is empty)."""
    if not old or not new:
        return 0.0
    if min(len(old), len(new)) < MOVE_MIN_SHARE * max(len(old), len(new)):
        return 0.0  # the matched pairs cannot reach the threshold: skip the matching
    result = match_versions(old, new)
    paired = sum(1 for m in result.matches if m.old is not None and m.new is not None)
    return paired / max(len(old), len(new))


def pair_moves(store: ElementStore, leaving: Sequence[str],
               arriving: dict[str, Sequence[Element]]) -> dict[str, tuple[str, float]]:
    """New document id → (the leaving document it continues, their share), for the pairs sharing at least
    :data:`MOVE_MIN_SHARE`, best share first, each document in one pair at most."""
    if not leaving or not arriving:
        return {}
    old = {d: store.read.elements(d) for d in leaving}
    scored = sorted(((share(old[r], elements), n, r) for n, elements in arriving.items() for r in leaving),
                    key=lambda t: (-t[0], t[1], t[2]))
    pairs: dict[str, tuple[str, float]] = {}
    taken: set[str] = set()
    for score, new_id, old_id in scored:
        if score < MOVE_MIN_SHARE:
            break
        if new_id in pairs or old_id in taken:
            continue
        pairs[new_id] = (old_id, score)
        taken.add(old_id)
    return pairs
