"""What a question's reads share, and the records they return: each search's hits and the stored counts of terms,
held for one question (:class:`QuestionReads`), and the term counts kept per collection version for the next
questions."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import psycopg

from core.bounded_cache import BoundedCache
from core.elements import Element


@dataclass(frozen=True)
class Scored:
    """An element a search found, with its cosine distance to the query vector and (full text) its score."""

    element: Element
    distance: float
    score: float = 0.0


@dataclass(frozen=True)
class Expanded:
    """A row of an expansion: an element, and whether it is a heading hit's descendant (with its distance)."""

    element: Element
    distance: float | None
    is_child: bool


@dataclass(frozen=True)
class TermCounts:
    """The stored counts of a question's terms: whether the counts are complete, the collection's element count
    and, per term, how many elements hold it (``core.sql.terms.TERM_COUNTS``)."""

    complete: bool
    total: int
    counts: list[int]


@dataclass
class _KnownCounts:
    """The stored counts of the terms read at one version of a collection, and its element count then."""

    total: int
    counts: dict[tuple[str, bool], int] = field(default_factory=dict)


# (database URL, collection id, version) -> the term counts read at that version of the collection. Every write of
# the counts (a document's write, a fill) first takes the collection's next version (core.sql.terms), so a version
# names one state of them; the version is the heading index's, read once per question (QuestionReads).
_TERM_COUNTS: BoundedCache[tuple[str, str, int], _KnownCounts] = BoundedCache(16)
_TERM_COUNTS_MAX = 100_000  # terms kept per collection version; beyond, only read


@dataclass
class QuestionReads:
    """What the reads of one question share (``ElementStore.for_one_question``): each vector search's hits by its
    statement and parameters, each full-text search's by its parameters but ``k`` (with the ``k`` it was read
    with), the stored counts of each list of terms, and the collection's element count once a full-text search has
    read it. Within one question the same search reads the same rows, so a repeat is not sent again."""

    vector_hits: dict[tuple, list[Scored]] = field(default_factory=dict)
    fulltext_hits: dict[tuple, tuple[int, list[Scored]]] = field(default_factory=dict)
    term_counts: dict[tuple, TermCounts] = field(default_factory=dict)
    # The heading index the question reads (core.retrieval.heading_cache), brought up to date once per question.
    heading_index: Any = None
    # The collection's version that index was read at (None: an index as of a date, or one not current): the
    # term counts read at it are kept for the next questions (_TERM_COUNTS).
    collection_version: int | None = None
    total: int | None = None
    # The connection the question's reads are held on (``ElementStore.one_question``); ``primary_too``: the
    # reads meant for the primary too (no standby: it is the primary's).
    connection: psycopg.Connection | None = None
    primary_too: bool = False
    # Writes the question's reads led to (a collection's field pairs, computed once), made once the held connection
    # is back in the pool: made while it is held, a pool of n lent to n questions would wait for itself.
    after: list[Callable[[], None]] = field(default_factory=list)

def kept_term_counts(at: tuple[str, str, int | None], pairs: list[tuple[str, bool]]) -> TermCounts | None:
    """The counts of ``pairs`` (term, is a prefix) kept at ``at`` (database URL, collection id, version), when every
    one of them is; None otherwise, or when the version is unknown (None)."""
    known = _TERM_COUNTS.get(at) if at[2] is not None else None
    if known is None or not all(pair in known.counts for pair in pairs):
        return None
    return TermCounts(True, known.total, [known.counts[pair] for pair in pairs])


def keep_term_counts(at: tuple[str, str, int | None], pairs: list[tuple[str, bool]], found: TermCounts) -> None:
    """Keeps ``found`` (the counts of ``pairs`` read at ``at``) for the next questions at the same version. Counts
    not filled yet are not kept: they are read again until they are complete."""
    if at[2] is None or not found.complete:
        return
    known = _TERM_COUNTS.get(at)
    if known is None or known.total != found.total:
        known = _KnownCounts(found.total)
        _TERM_COUNTS.put(at, known)
    if len(known.counts) < _TERM_COUNTS_MAX:
        known.counts.update(zip(pairs, found.counts, strict=True))
