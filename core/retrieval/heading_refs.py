"""A collection's headings as the heading match reads them (:class:`HeadingRef`), and what a question's match names
(:class:`HeadingMatch`): its headings, the question words their paths hold, the score, the scope it makes."""

from __future__ import annotations

from dataclasses import dataclass

from core.elements import Element
from core.retrieval.scope import PATH_SEPARATOR, Scope, short_text
from core.store import ElementStore, StoredHeading

__all__ = ["HeadingMatch", "HeadingRef", "load_headings"]


@dataclass(frozen=True)
class HeadingRef:
    """A heading of the collection: its element, text, ancestors' texts and document."""

    element_id: str
    text: str
    path: tuple[str, ...]
    document_id: str
    filename: str
    order: int = 0

    @property
    def label(self) -> str:
        return PATH_SEPARATOR.join(short_text(p, 60) for p in (*self.path, self.text))


@dataclass(frozen=True)
class HeadingMatch:
    """The headings a question names, the question words their paths hold, and the match score."""

    headings: tuple[HeadingRef, ...]
    words: tuple[str, ...]
    score: float
    # an entry the question identifies among its class's (``core.retrieval.entries``): the answer is its name, so
    # its section holds what is asked whatever the probe finds there
    entry: bool = False
    # a scope that holds the attribute only by a field whose own key the question asks, not by a bare "Default:"
    # line read as its heading's unless a default is asked (an entry named without its class: its name is in every
    # question naming it)
    keyed: bool = False
    # an FAQ entry matched by its question heading and its answer's first paragraph read together
    # (``core.retrieval.faq_headings.faq_entry_match``): the question was read against what the section states,
    # so it holds what is asked whatever the probe's words find there
    answered: bool = False

    @property
    def documents(self) -> int:
        return len({h.document_id for h in self.headings})

    @property
    def label(self) -> str:
        labels = "; ".join(h.label for h in self.headings)
        if len(self.headings) > 1:
            labels += f" ({len(self.headings)} headings in {self.documents} document"
            labels += "s)" if self.documents != 1 else ")"
        return labels

    def contains(self, element: Element) -> bool:
        """Whether ``element`` lies in one of the matched headings' subtrees (by document and heading path)."""
        path = (*element.heading_path, element.text) if element.is_heading else element.heading_path
        return any(element.document_id == h.document_id and path[: len(h.path) + 1] == (*h.path, h.text)
                   for h in self.headings)

    def scope(self) -> Scope:
        return Scope.subtrees([h.element_id for h in self.headings], self.label, names=self.words)


def _ref(h: StoredHeading) -> HeadingRef:
    return HeadingRef(h.element_id, h.text, h.path, h.document_id, h.filename, h.order)


def load_headings(store: ElementStore) -> list[HeadingRef]:
    """Every heading of the collection read from its elements and tokenised afresh (what the stored index holds)."""
    return [_ref(h) for h in store.read.scan_headings()]
