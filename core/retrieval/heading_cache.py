"""This process's copies of each collection's heading index (``core.retrieval.headings.HeadingIndex``), kept up to
date with the stored one a document at a time, and the index of the versions valid at a date; and the match of a
question's headings against them."""

from __future__ import annotations

import threading
from dataclasses import dataclass

from core.bounded_cache import BoundedCache
from core.retrieval.headings import FULL_RELOAD_DOCUMENTS, HeadingIndex, HeadingMatch, best_headings
from core.store import ElementStore


@dataclass
class _Held:
    version: int
    index: HeadingIndex


# (database, collection id) -> the version of the stored index this process holds, and its copy.
_INDEXES: dict[tuple[str, str], _Held] = {}
_INDEXES_MAX = 16
_INDEXES_LOCK = threading.Lock()


# (database, collection id, the (document, version, recorded) set valid at a date) -> the heading index of those
# versions: questions as of nearby dates read the same versions, and the set changes with any new version.
_AS_OF_INDEXES: BoundedCache[tuple, HeadingIndex] = BoundedCache(_INDEXES_MAX)


def _as_of_index(store: ElementStore) -> HeadingIndex:
    versions = (list(store.as_of_versions.values()) if store.as_of_versions is not None
                else store.read.versions_at(store.as_of_date))
    key = (store.url, str(store.collection_id), tuple((v.document_id, v.version, v.recorded_at) for v in versions))
    index = _AS_OF_INDEXES.get(key)
    if index is None:
        index = HeadingIndex(store.read.scan_headings())
        _AS_OF_INDEXES.put(key, index)
    return index


def heading_index(store: ElementStore) -> HeadingIndex:
    """This process's copy of the collection's heading index, brought up to date with the stored one.

    One small query per question says whether any document was written since the copy was taken; only the
    documents written since are read again. The first call in a process reads the stored index whole (no
    tokenising). A question never writes: the store fills the stored index when it opens a collection made before
    it; a stored index that is not current (another normaliser's words) is passed over for the headings read from
    the elements and tokenised now, not kept. The stages of one question (``ElementStore.for_one_question``) read
    the index brought up to date for its first.
    """
    shared = store.question_reads
    if shared is not None and shared.heading_index is not None:
        return shared.heading_index
    index, version = _current_index(store)
    if shared is not None:
        shared.heading_index = index
        shared.collection_version = version
    return index


def _current_index(store: ElementStore) -> tuple[HeadingIndex, int | None]:
    """The index, and the collection's version read with it (None as of a date, or when the stored one is not
    current)."""
    if store.as_of_date is not None:  # the headings of the versions valid then; the stored index is current only
        return _as_of_index(store), None
    key = (store.url, str(store.collection_id))
    held = _INDEXES.get(key)
    state = store.read.heading_state(held.version if held else -1)
    if not state.current:
        return HeadingIndex(store.read.scan_headings()), None
    if held is not None and state.version == held.version:
        return held.index, state.version
    if held is None or state.filled > held.version or len(state.changed) > FULL_RELOAD_DOCUMENTS:
        held = _Held(state.version, HeadingIndex(store.read.headings()))
    else:
        changed = store.read.headings(state.changed)
        with held.index.lock:
            if state.version > held.version:  # another thread may have applied a later version meanwhile
                held.index.replace_documents(state.changed, changed)
                held.version = state.version
        return held.index, state.version
    with _INDEXES_LOCK:  # Streamlit sessions ask from several threads
        if len(_INDEXES) >= _INDEXES_MAX and key not in _INDEXES:
            _INDEXES.pop(next(iter(_INDEXES)))
        current = _INDEXES.get(key)
        if current is None or current.version <= held.version:
            _INDEXES[key] = held
    return held.index, state.version


def held_version(store: ElementStore) -> int | None:
    """The version of the stored heading index this process's copy of ``store``'s collection holds (read by
    :func:`heading_index`), ``None`` when it holds none (a stored index that is not current is never kept)."""
    held = _INDEXES.get((store.url, str(store.collection_id)))
    return held.version if held is not None else None


def match_headings(store: ElementStore, question: str) -> HeadingMatch | None:
    """The headings of ``store``'s collection that ``question`` names (matched in memory against this process's
    copy of the heading index)."""
    index = heading_index(store)
    with index.lock:
        return best_headings(question, index)
