"""A collection's contextual index: its sibling collection whose vectors embed "heading › path › text".

The sibling (``<name>:contextual``, :meth:`core.store.ElementStore.sibling`) holds a copy of every element of its
base collection, with ids derived from the sibling (so the two sets never mix), whose vector embeds the heading
path with the text. The ``contextual`` search strategy searches its vectors and maps each hit back to the base
collection's element (``source_element_id``; ``core.retrieval.contextual``).

It is built on request, never by a question: :func:`build_contextual_index` (``python -m core contextual build``,
or an evaluation run told to build it) makes it; from then on every ingest into the base collection and every
removal from it bring it up to date (:func:`update_contextual_index`).
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace

from langchain_core.documents import Document

from core.ingest.embedding import embed_texts, embedding_text
from core.progress import Progress, ProgressCallback, no_progress
from core.store import CollectionMissingError, DocumentRecord, ElementStore

__all__ = ["CONTEXTUAL", "ContextualSync", "build_command", "build_contextual_index", "derived_id",
           "drop_contextual_index", "find_contextual_index", "index_gap", "update_contextual_index"]

CONTEXTUAL = "contextual"  # the sibling's kind
EMBED_BATCH = 64


def build_command(collection: str) -> str:
    return f"python -m core contextual build --collection {collection}"


def derived_id(sibling: ElementStore, base_id: str, length: int) -> str:
    """The sibling's id for the base collection's element or document ``base_id``."""
    # A sibling made before siblings had their own names records the name its ids were derived from.
    salt = str(sibling.options.get("id_salt") or sibling.collection)
    return hashlib.sha256(f"{salt}\x1f{base_id}".encode()).hexdigest()[:length]


def find_contextual_index(store: ElementStore) -> ElementStore | None:
    """The contextual index of ``store`` as it stands (a collection embedded with heading paths is its own), or
    None when there is none. Reads only."""
    if store.contextual:
        return store
    try:
        return store.sibling(CONTEXTUAL, create=False)
    except CollectionMissingError:
        return None


def index_gap(store: ElementStore, sibling: ElementStore) -> tuple[list[tuple[str, DocumentRecord]], list[str]]:
    """What the sibling lacks: base documents to (re-)embed, with their sibling ids, and sibling documents whose
    base document is gone."""
    known = sibling.content_hashes()
    wanted = {derived_id(sibling, d.document_id, 16): d for d in store.documents()}
    stale = [(doc_id, d) for doc_id, d in wanted.items() if known.get(doc_id) != d.content_hash]
    return stale, sorted(set(known) - set(wanted))


@dataclass(frozen=True)
class ContextualSync:
    collection: str
    documents: int
    embedded_documents: int
    embedded_elements: int
    removed_documents: int
    seconds: float


def build_contextual_index(
    store: ElementStore, *, progress: ProgressCallback = no_progress, batch_size: int = EMBED_BATCH
) -> tuple[ElementStore, ContextualSync]:
    """Make the contextual index of ``store`` if it has none, and bring it up to date (documents whose hash changed
    are embedded again, removed ones dropped; texts any collection of this embedder holds come from the cache)."""
    if store.contextual:
        return store, ContextualSync(store.collection, len(store.documents()), 0, 0, 0, 0.0)
    sibling = store.sibling(CONTEXTUAL, create=True, options={"contextual": True})
    return sibling, _sync(store, sibling, progress, batch_size)


def update_contextual_index(
    store: ElementStore, *, progress: ProgressCallback = no_progress, batch_size: int = EMBED_BATCH
) -> ContextualSync | None:
    """Bring the contextual index of ``store`` up to date if it has one (ingest and removal call this); None if
    it has none (then nothing is made)."""
    sibling = find_contextual_index(store)
    if sibling is None or sibling is store:
        return None
    return _sync(store, sibling, progress, batch_size)


def drop_contextual_index(store: ElementStore) -> bool:
    """Delete the contextual index of ``store``; False if it had none."""
    sibling = find_contextual_index(store)
    if sibling is None or sibling is store:
        return False
    sibling.drop()
    return True


def _sync(store: ElementStore, sibling: ElementStore, progress: ProgressCallback, batch_size: int) -> ContextualSync:
    started = time.perf_counter()
    # What to copy is decided on the primary, where the copies are written: a standby may lag behind it.
    store, sibling = store.primary_only(), sibling.primary_only()
    # One update per base collection at a time: it reads the base's documents only once it holds the lock, so two
    # ingests finishing together cannot undo each other's additions.
    with store.job_lock(CONTEXTUAL):
        stale, removed_ids = index_gap(store, sibling)
        total = sum(d.n_elements for _, d in stale)
        done = 0
        embedded = 0
        if stale:
            progress(Progress(CONTEXTUAL, 0, total, f"contextual index of {store.collection}: embedding "
                                                    f"{len(stale)} documents with their heading paths"))
        for doc_id, record in stale:
            elements = _remap(sibling, store.elements(record.document_id), doc_id)
            texts = [embedding_text(e, contextual=True) for e in elements]

            def advance(n: int, filename: str = record.filename) -> None:
                nonlocal done
                done += n
                progress(Progress(CONTEXTUAL, done, total, f"contextual: {filename}"))

            vectors = embed_texts(sibling, texts, batch_size=batch_size, advance=advance)
            sibling.write.replace_document(replace(record, document_id=doc_id, n_elements=len(elements)), elements,
                                     vectors.vectors, vectors.hashes)
            embedded += len(elements)
        removed = sum(sibling.write.remove_document(doc_id) for doc_id in removed_ids)
        documents = len(sibling.content_hashes())
    return ContextualSync(sibling.collection, documents, len(stale), embedded, removed,
                          time.perf_counter() - started)


def _remap(sibling: ElementStore, elements: Sequence[Document], document_id: str) -> list[Document]:
    out = []
    for doc in elements:
        meta = dict(doc.metadata)
        base_id = str(meta["element_id"])
        meta["source_element_id"] = base_id
        meta["element_id"] = derived_id(sibling, base_id, 32)
        if meta.get("parent_id"):
            meta["parent_id"] = derived_id(sibling, str(meta["parent_id"]), 32)
        meta["document_id"] = document_id
        out.append(Document(id=meta["element_id"], page_content=doc.page_content, metadata=meta))
    return out
