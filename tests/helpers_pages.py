"""Pieces the page tests share: walking an AppTest's element tree, reading escaped markdown back, and a throw-away
collection holding a few documents."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

from core.embeddings import NamedEmbeddings
from core.ingest import SourceFile, ingest
from core.store import ElementStore


def walk(node):
    """Every element of the page, in order (blocks such as columns and expanders included)."""
    children = getattr(node, "children", None)
    if isinstance(children, dict):
        for child in children.values():
            yield from walk(child)
    else:
        yield node


def unescape(markdown: str) -> str:
    """The text a reader sees for markdown written by ``escape_markdown``."""
    return re.sub(r"\\(.)", r"\1", markdown)


@contextmanager
def ingested_store(
    db_url: str, embeddings: NamedEmbeddings, prefix: str, files: dict[str, str]
) -> Iterator[ElementStore]:
    """A fresh collection ``<prefix>_<random>`` holding ``files`` (name -> markdown), dropped afterwards."""
    store = ElementStore(db_url, f"{prefix}_{uuid.uuid4().hex[:8]}", embeddings)
    try:
        assert not ingest(store, [SourceFile(name, text.encode()) for name, text in files.items()]).errors
        yield store
    finally:
        store.drop()
