"""The contextual strategy's side of a collection's contextual index (``core.ingest.contextual``): reading it.

A question never writes: :func:`contextual_index` opens the index read-only and refuses, with the command that
builds it, when it is missing or behind its collection. Its hits are mapped back to the base collection's elements
(:func:`to_base_hits`), so contexts, citations and links are the base collection's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from core.ingest.contextual import build_command, derived_id, find_contextual_index, index_gap
from core.retrieval.hits import Hit
from core.retrieval.scope import Scope
from core.store import ElementStore, StoreError

__all__ = ["ContextualIndexError", "contextual_index", "index_dropped", "sibling_scope", "to_base_hits"]


class ContextualIndexError(StoreError):
    """The contextual search was asked for, but the collection's contextual index is missing or out of date."""


def contextual_index(store: ElementStore) -> ElementStore:
    """The contextual index of ``store``, up to date with it; :class:`ContextualIndexError` says how to build it."""
    sibling = find_contextual_index(store)
    if sibling is None and not store.exists():  # dropped with its collection, by another process
        raise store.gone()
    if sibling is None:
        raise ContextualIndexError(
            f"collection {store.collection!r} has no contextual index, which the contextual search needs: build it "
            f"with `{build_command(store.collection)}` (it embeds every element again with its heading path; "
            "ingests and removals keep it up to date afterwards)"
        )
    if sibling is store:
        return store
    stale, removed = index_gap(store, sibling)
    if stale or removed:
        raise ContextualIndexError(
            f"the contextual index of collection {store.collection!r} is out of date ({len(stale)} documents to "
            f"embed, {len(removed)} to remove): update it with `{build_command(store.collection)}`"
        )
    return sibling


def index_dropped(store: ElementStore) -> ContextualIndexError:
    return ContextualIndexError(
        f"the contextual index of collection {store.collection!r} was dropped while the question was being answered:"
        f" build it again with `{build_command(store.collection)}`"
    )


def sibling_scope(sibling: ElementStore, scope: Scope) -> Scope:
    """``scope`` (of the base collection) expressed in the sibling's ids."""
    if scope.kind == "collection" or sibling.sibling_of is None:  # a collection embedded with its paths: same ids
        return scope
    length = 16 if scope.kind == "document" else 32
    ids = tuple(derived_id(sibling, i, length) for i in (scope.ids or (scope.id or "",)))
    return replace(scope, id=ids[0], ids=ids)


def to_base_hits(store: ElementStore, hits: Sequence[Hit]) -> list[Hit]:
    """Sibling hits as hits on the base collection's elements (same ranks and distances)."""
    ids = [str(h.element.get("source_element_id") or h.element_id) for h in hits]
    docs = {e.element_id: e for e in store.read.get(ids)}
    return [replace(h, element=docs[i]) for i, h in zip(ids, hits, strict=True) if i in docs]
