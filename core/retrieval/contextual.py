"""The contextual sibling collection: the same elements, embedded as "heading › path › text".

``<name>__ctx`` holds a copy of every element of ``<name>`` (ids derived from the collection name, so the two
never collide) whose vector embeds the heading path with the text. The ``contextual`` search strategy searches
its vectors and maps each hit back to the element of the base collection (``source_element_id``), so contexts,
citations and links are the base collection's.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from langchain_core.documents import Document

from core.ingest import embed_texts, embedding_text
from core.progress import Progress, ProgressCallback, no_progress
from core.retrieval.scope import Scope
from core.store import COLLECTION_NAME_MAX, ElementStore

if TYPE_CHECKING:  # search builds on this module (the contextual strategy); a Hit is only copied here
    from core.retrieval.search import Hit

__all__ = ["CONTEXTUAL_SUFFIX", "ContextualSync", "contextual_collection_name", "ensure_contextual_store",
           "sibling_scope", "to_base_hits"]

CONTEXTUAL_SUFFIX = "__ctx"
EMBED_BATCH = 64


def contextual_collection_name(name: str) -> str:
    """``<name>__ctx``, shortened with a hash when the name would exceed the collection-name limit."""
    candidate = f"{name}{CONTEXTUAL_SUFFIX}"
    if len(candidate) <= COLLECTION_NAME_MAX:
        return candidate
    digest = hashlib.sha256(name.encode()).hexdigest()[:8]
    return f"{name[: COLLECTION_NAME_MAX - len(CONTEXTUAL_SUFFIX) - 9]}_{digest}{CONTEXTUAL_SUFFIX}"


def _derived_id(collection: str, base_id: str, length: int) -> str:
    return hashlib.sha256(f"{collection}\x1f{base_id}".encode()).hexdigest()[:length]


def _remap(elements: Sequence[Document], collection: str, document_id: str) -> list[Document]:
    out = []
    for doc in elements:
        meta = dict(doc.metadata)
        base_id = str(meta["element_id"])
        meta["source_element_id"] = base_id
        meta["element_id"] = _derived_id(collection, base_id, 32)
        if meta.get("parent_id"):
            meta["parent_id"] = _derived_id(collection, str(meta["parent_id"]), 32)
        meta["document_id"] = document_id
        out.append(Document(id=meta["element_id"], page_content=doc.page_content, metadata=meta))
    return out


def sibling_scope(sibling: ElementStore, scope: Scope) -> Scope:
    """``scope`` (of the base collection) expressed in the sibling's ids."""
    if scope.kind == "collection":
        return scope
    length = 16 if scope.kind == "document" else 32
    ids = tuple(_derived_id(sibling.collection, i, length) for i in (scope.ids or (scope.id or "",)))
    return replace(scope, id=ids[0], ids=ids)


def to_base_hits(store: ElementStore, hits: Sequence[Hit]) -> list[Hit]:
    """Sibling hits as hits on the base collection's elements (same ranks and distances)."""
    ids = [str(h.element.metadata.get("source_element_id") or h.element_id) for h in hits]
    docs = {str(d.metadata["element_id"]): d for d in store.get(ids)}
    return [replace(h, element=docs[i]) for i, h in zip(ids, hits, strict=True) if i in docs]


@dataclass(frozen=True)
class ContextualSync:
    collection: str
    documents: int
    embedded_documents: int
    embedded_elements: int
    removed_documents: int
    seconds: float


def ensure_contextual_store(
    store: ElementStore, *, progress: ProgressCallback = no_progress, batch_size: int = EMBED_BATCH
) -> tuple[ElementStore, ContextualSync]:
    """The contextual sibling of ``store``, brought up to date with it (documents whose hash changed are
    re-embedded, removed ones dropped). A store that is itself contextual is its own sibling."""
    started = time.perf_counter()
    if store.contextual:
        docs = len(store.documents())
        return store, ContextualSync(store.collection, docs, 0, 0, 0, 0.0)
    name = contextual_collection_name(store.collection)
    sibling = ElementStore(store.url, name, store.embeddings, create=True,
                           options={"contextual": True, "contextual_of": store.collection})
    base = store.primary_only()  # what to copy is decided on the primary, where the copies are written
    base_docs = base.documents()
    known = {d.document_id: d.content_hash for d in sibling.primary_only().documents()}
    wanted = {_derived_id(name, d.document_id, 16): d for d in base_docs}
    stale = [(doc_id, d) for doc_id, d in wanted.items() if known.get(doc_id) != d.content_hash]
    total = sum(d.n_elements for _, d in stale)
    done = 0
    embedded = 0
    if stale:
        progress(Progress("contextual", 0, total,
                          f"contextual collection {name}: embedding {len(stale)} documents with heading paths"))
    for doc_id, record in stale:
        elements = _remap(base.elements(record.document_id), name, doc_id)
        texts = [embedding_text(e, contextual=True) for e in elements]

        def advance(n: int, filename: str = record.filename) -> None:
            nonlocal done
            done += n
            progress(Progress("contextual", done, total, f"contextual: {filename}"))

        # Through the embedding cache: a heading-path text any collection of this embedder holds is not re-embedded.
        vectors = embed_texts(sibling, texts, batch_size=batch_size, advance=advance)
        sibling.replace_document(replace(record, document_id=doc_id, n_elements=len(elements)), elements,
                                 vectors.vectors, vectors.hashes)
        embedded += len(elements)
    removed = 0
    for doc_id in set(known) - set(wanted):
        removed += sibling.remove_document(doc_id)
    sync = ContextualSync(name, len(base_docs), len(stale), embedded, removed, time.perf_counter() - started)
    return sibling, sync
