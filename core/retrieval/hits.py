"""A search hit: what every search strategy returns and the contexts are built from.

Its own module so that the strategies (``core.retrieval.search``) and the contextual sibling's mapping back to the
base collection (``core.retrieval.contextual``) share it without importing each other.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.elements import Element

__all__ = ["Hit"]


@dataclass(frozen=True)
class Hit:
    """A hit: the element, its rank (0 = best) and its cosine distance to the query."""

    element: Element
    rank: int
    distance: float
    outside_scope: bool = False  # kept from the whole collection although the question named a heading

    @property
    def element_id(self) -> str:
        return self.element.element_id

    @property
    def similarity(self) -> float:
        return 1.0 - self.distance
