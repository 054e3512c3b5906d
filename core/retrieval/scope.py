"""Where a search may look: the whole collection, one document, or one or more heading subtrees."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from core.store import ElementStore

__all__ = ["PATH_SEPARATOR", "Scope", "resolve_scope", "short_text"]

_HEX = re.compile(r"[0-9a-f]{6,64}")
PATH_SEPARATOR = " › "


@dataclass(frozen=True)
class Scope:
    """Where a search may look.

    ``kind`` is ``collection``, ``document`` or ``subtree``. A subtree scope holds one or more heading element
    ids (``ids``): a heading named in the question can exist in several documents, and then all of them are
    searched. ``id`` is the first of them (or the document id), kept for callers that name one place.
    """

    kind: Literal["collection", "document", "subtree"] = "collection"
    id: str | None = None
    label: str = "whole collection"
    ids: tuple[str, ...] = ()
    # The question words that named this scope (a scope read from the question): inside it every element carries
    # them in its heading path, so full-text search leaves them out there.
    names: tuple[str, ...] = ()

    @classmethod
    def whole(cls) -> Scope:
        return cls()

    @classmethod
    def document(cls, document_id: str, label: str | None = None) -> Scope:
        return cls("document", document_id, label or f"document {document_id}", (document_id,))

    @classmethod
    def subtree(cls, element_id: str, label: str | None = None) -> Scope:
        return cls("subtree", element_id, label or f"subtree of {element_id[:8]}", (element_id,))

    @classmethod
    def subtrees(cls, element_ids: Sequence[str], label: str, names: Sequence[str] = ()) -> Scope:
        if not element_ids:
            raise ValueError("a subtree scope needs at least one heading")
        return cls("subtree", element_ids[0], label, tuple(element_ids), tuple(names))

    @property
    def is_whole(self) -> bool:
        return self.kind == "collection"

    def as_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "id": self.id, "ids": list(self.ids), "label": self.label, "names": list(self.names)}


def resolve_scope(store: ElementStore, key: str | None) -> Scope:
    """A scope from a document id, an element id or a unique element id prefix (≥ 6 hex chars).

    Raises ``ValueError`` with a message for the user when ``key`` names nothing or several elements.
    """
    key = (key or "").strip()
    if not key:
        return Scope.whole()
    record = store.document(key)
    if record is not None:
        return Scope.document(record.document_id, record.title or record.filename)
    found = store.get([key])
    if not found and _HEX.fullmatch(key.lower()):
        found = store.read.by_prefix(key.lower())
        if len(found) > 1:
            raise ValueError(f"scope {key!r} is the prefix of several elements: give more characters")
    if not found:
        raise ValueError(f"scope {key!r} is neither a document id nor an element id in collection {store.collection!r}")
    element = found[0]
    path = [*element.heading_path, element.text]
    return Scope.subtree(element.element_id, PATH_SEPARATOR.join(short_text(p, 60) for p in path))


def short_text(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
