"""An element as a row of its collection's table, and back (the columns are ``core.sql.elements``').

The hierarchy fields are real columns; every other metadata key (source, filename, lines, inline marks, …)
goes to the JSON column, and reading puts them back together into the metadata dict ingest produced.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import numpy as np
from langchain_core.documents import Document
from psycopg.types.json import Jsonb

from core import textnorm
from core.sql import elements as sql

# Element metadata key: sha256 of the exact text the element's vector was embedded from (the embedding cache key).
EMBEDDED_TEXT_SHA256 = "embedded_text_sha256"

# Keys stored as columns; a stale embedded_text_sha256 copied over in the metadata is dropped (the caller passes
# the hash of the text it embedded, or none).
COLUMN_KEYS = frozenset((sql.ID_COLUMN, *sql.METADATA_COLUMNS))


def element_row(document_id: str, doc: Document, vector: np.ndarray, text_hash: str | None) -> tuple:
    """One COPY row (``core.sql.elements.COPY_ELEMENTS``): the real columns, then the rest of the metadata."""
    meta = doc.metadata
    rest = {k: v for k, v in meta.items() if k not in COLUMN_KEYS}
    return (
        meta["element_id"], doc.page_content, np.asarray(vector, dtype=np.float32), meta.get("parent_id"),
        meta.get("document_id") or document_id, meta.get("category") or "UncategorizedText",
        int(meta.get("category_depth") or 0), int(meta.get("order") or 0), list(meta.get("heading_path") or ()),
        text_hash, Jsonb(rest),
    )


def element_from_row(row: Sequence[Any]) -> Document:
    """An element as ingest gave it, from a row that starts with ``core.sql.elements.ELEMENT_COLUMNS``.

    The metadata is the JSON column plus the real columns; ``embedded_text_sha256`` only where one is stored.
    """
    element_id, content, parent_id, document_id, category, depth, order, heading_path, text_sha, rest = row[:10]
    meta = dict(rest) if isinstance(rest, dict) else json.loads(rest or "{}")
    meta.update(element_id=element_id, parent_id=parent_id, document_id=document_id, category=category,
                category_depth=depth, order=order, heading_path=list(heading_path or ()))
    if text_sha is not None:
        meta[EMBEDDED_TEXT_SHA256] = text_sha
    return Document(id=element_id, page_content=content or "", metadata=meta)


def heading_row(document_id: str, doc: Document) -> tuple | None:
    """A heading element as a row of the stored heading index (``core.sql.headings.COPY_HEADINGS``, after the
    collection id) with its matchable words; ``None`` for other elements."""
    meta = doc.metadata
    if meta.get("category") != "Title":
        return None
    return (
        meta.get("document_id") or document_id, int(meta.get("order") or 0), meta["element_id"], doc.page_content,
        list(meta.get("heading_path") or ()), str(meta.get("filename") or ""),
        sorted(textnorm.name_words(doc.page_content)),
    )
