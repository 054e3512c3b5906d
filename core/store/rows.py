"""An element as a row of its collection's table, and back (the columns are ``core.sql.elements``').

The hierarchy fields are real columns; every other metadata key (source, filename, lines, inline marks, …)
goes to the JSON column, and reading makes an :class:`~core.elements.Element` of them (its ``metadata`` is the dict
ingest produced).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any

import numpy as np
from langchain_core.documents import Document
from psycopg.types.json import Jsonb

from core import textnorm
from core.elements import Element
from core.sql import elements as sql

# Element metadata key: sha256 of the exact text the element's vector was embedded from (the embedding cache key).
EMBEDDED_TEXT_SHA256 = "embedded_text_sha256"

# Keys stored as columns; a stale embedded_text_sha256 copied over in the metadata is dropped (the caller passes
# the hash of the text it embedded, or none).
COLUMN_KEYS = frozenset((sql.ID_COLUMN, *sql.METADATA_COLUMNS, *sql.VERSION_COLUMNS))


def element_row(document_id: str, doc: Document | Element, vector: np.ndarray, text_hash: str | None,
                key: str | None, since_version: int, valid_from: datetime) -> tuple:
    """One COPY row (``core.sql.elements.COPY_ELEMENTS``): the real columns, the rest of the metadata, then the
    element's stable key, the version it appears in and the date that version takes effect."""
    meta = doc.metadata
    rest = {k: v for k, v in meta.items() if k not in COLUMN_KEYS}
    return (
        meta["element_id"], doc.page_content, np.asarray(vector, dtype=np.float32), meta.get("parent_id"),
        meta.get("document_id") or document_id, meta.get("category") or "UncategorizedText",
        int(meta.get("category_depth") or 0), int(meta.get("order") or 0), list(meta.get("heading_path") or ()),
        text_hash, Jsonb(rest), key or meta["element_id"], since_version, valid_from,
    )


def element_from_row(row: Sequence[Any]) -> Element:
    """An element as ingest gave it, from a row that starts with ``core.sql.elements.ELEMENT_COLUMNS``: the real
    columns are its fields, the JSON column holds the rest (source, lines, a loader's own keys)."""
    element_id, content, parent_id, document_id, category, depth, order, heading_path, text_sha, rest = row[:10]
    key, since = row[10:12]
    extra = dict(rest) if isinstance(rest, dict) else json.loads(rest or "{}")
    source, filename = extra.pop("source", None), extra.pop("filename", None)
    return Element(
        element_id=element_id, text=content or "", parent_id=parent_id, category=category,
        category_depth=depth, document_id=document_id, order=order, heading_path=tuple(heading_path or ()),
        source=str(source or ""), filename=str(filename or ""), start_line=extra.pop("start_line", None),
        end_line=extra.pop("end_line", None), embedded_text_sha256=text_sha, element_key=key or element_id,
        since_version=int(since or 1), extra=extra,
    )


def heading_row(document_id: str, doc: Document | Element) -> tuple | None:
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
