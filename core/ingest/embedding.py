"""What ingest embeds for an element, and embedding a batch of texts once each through the cache."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from langchain_core.documents import Document

if TYPE_CHECKING:
    from core.store import ElementStore

# Only this much of an element is embedded (the stored text stays whole). The bundled USE model's time and
# memory grow with the text (100 KB: 6 s; a 10 MB line was OOM-killed), and OpenAI refuses inputs over 8,191
# tokens: 2,000 characters are at most 8,000 UTF-8 bytes, so at most 8,000 byte-level BPE tokens whatever the
# script (4,000 random Hangul syllables were 10,331 cl100k tokens). Real elements are far shorter.
MAX_EMBED_CHARS = 2000


def embedding_text(doc: Document, contextual: bool) -> str:
    """What gets embedded for an element: its text, or with ``contextual`` its heading path too.

    At most :data:`MAX_EMBED_CHARS` of it (the head: with ``contextual``, the path comes first).
    """
    if not contextual:
        return doc.page_content[:MAX_EMBED_CHARS]
    path = [p for p in doc.metadata.get("heading_path") or [] if p]
    text = " > ".join([*path, doc.page_content]) if path else doc.page_content
    return text[:MAX_EMBED_CHARS]


def text_sha256(text: str) -> str:
    """The embedding cache's key for a text (with the embedder's identity)."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass(frozen=True)
class EmbeddedTexts:
    vectors: np.ndarray  # one row per text, in order
    hashes: list[str]  # text_sha256 of each text, for store.write.replace_document
    embedded: int  # texts sent to the embedder (each distinct uncached text once)
    reused: int  # texts whose vector came from the cache or from the same text earlier in the list


def embed_texts(
    store: ElementStore,
    texts: Sequence[str],
    *,
    batch_size: int = 64,
    advance: Callable[[int], None] | None = None,
    pending: Mapping[str, np.ndarray] | None = None,
) -> EmbeddedTexts:
    """Vectors for ``texts`` with ``store``'s embedder, embedding each distinct text the cache lacks once.

    ``pending`` holds vectors by text hash that are not committed yet (a write still in flight), looked at
    before the database. ``advance(n)`` reports progress in texts: the reused ones at once, then each embedded
    batch. Raises ValueError if the embedder returns vectors of the wrong shape.
    """
    embeddings = store.embeddings
    dimension = embeddings.info.dimension
    hashes = [text_sha256(t) for t in texts]
    vectors = {h: pending[h] for h in hashes if h in pending} if pending else {}
    vectors.update(store.cached_vectors(h for h in hashes if h not in vectors))
    missing = {h: t for h, t in zip(hashes, texts, strict=True) if h not in vectors}
    if advance and len(texts) > len(missing):
        advance(len(texts) - len(missing))
    todo = list(missing.items())
    for start in range(0, len(todo), batch_size):
        batch = todo[start : start + batch_size]
        matrix = np.asarray(embeddings.embed_documents([t for _, t in batch]), np.float32)
        if matrix.shape != (len(batch), dimension):
            raise ValueError(f"embedder returned vectors of shape {matrix.shape}, expected ({len(batch)}, {dimension})")
        vectors.update(zip((h for h, _ in batch), matrix, strict=True))
        if advance:
            advance(len(batch))
    stacked = np.stack([vectors[h] for h in hashes]) if hashes else np.zeros((0, dimension), np.float32)
    return EmbeddedTexts(stacked, hashes, len(todo), len(texts) - len(todo))
