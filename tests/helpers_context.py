"""Contexts and answers for reader tests: a hierarchical context built straight from parsed elements (no
database), a small collection ingested from markdown, and its extractive answer."""

from __future__ import annotations

import re
import textwrap
import uuid
from pathlib import Path

from core.answering import ExtractiveAnswerer
from core.elements import Element
from core.partial_tree import merge_trees, short_ids
from core.retrieval import Context, ContextElement, Retrieval, RetrievalRequest, retrieve
from core.store import ElementStore


def tree_context(elements: list[Element], hit_ids: list[str]) -> Context:
    """The hits' partial trees as the retrieval pipeline lays them out: hits ranked in order, ancestors unranked."""
    shorts = short_ids(e.element_id for e in elements)
    items = []
    for tree in merge_trees({e.element_id: e for e in elements}, hit_ids):
        for node in tree.walk():
            rank = hit_ids.index(node.element_id) if node.element_id in hit_ids else None
            items.append(ContextElement(node.element_id, shorts[node.element_id],
                                        "hit" if rank is not None else "ancestor", node.category,
                                        node.element.text, "doc-1", node.path, 0.5 if rank is not None else None,
                                        rank, parent_id=node.element.parent_id))
    return Context("hierarchical", "", "", items, 0)


def ingested_store(db_url: str, folder: Path, files: dict[str, str]) -> ElementStore:
    """A new collection (bundled embeddings) holding ``files`` (name → markdown, dedented), ingested from
    ``folder`` as a user's folder is; the caller drops it."""
    from core.embeddings import make_embeddings
    from core.ingest import ingest_paths

    for name, text in files.items():
        (folder / name).write_text(textwrap.dedent(text), encoding="utf-8")
    store = ElementStore(db_url, f"t_{folder.name[:20]}_{uuid.uuid4().hex[:6]}", make_embeddings("use"))
    report = ingest_paths(store, [folder])
    assert not report.errors, report.errors
    return store


def answer_of(store: ElementStore, question: str, k: int = 4) -> str:
    """The extractive answer from the hierarchical context of the default search's ``k`` hits."""
    return ExtractiveAnswerer().complete(question, retrieve(store, RetrievalRequest(question, k=k)).hierarchical)


def ask(store: ElementStore, question: str, k: int = 4) -> tuple[Retrieval, str]:
    """The default search's retrieval and the extractive answer from its hierarchical context."""
    result = retrieve(store, RetrievalRequest(question, k=k))
    return result, ExtractiveAnswerer().complete(question, result.hierarchical)


def cited(answer: str) -> set[str]:
    """The short element ids an answer cites (``[e:1a2b3c4d]``)."""
    return set(re.findall(r"\[e:(\w+)\]", answer))
