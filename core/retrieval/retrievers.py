"""The LangChain retrievers over :func:`core.retrieval.pipeline.retrieve`: the top-k elements as they are
(:class:`PlainRetriever`), or one document per source document holding the merged partial tree of its hits
(:class:`HierarchicalRetriever`)."""

from __future__ import annotations

from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import ConfigDict, SkipValidation

from core.partial_tree import render_markdown, short_ids
from core.retrieval.pipeline import Retrieval, retrieve
from core.retrieval.request import RetrievalRequest
from core.store import ElementStore

__all__ = ["HierarchicalRetriever", "PlainRetriever"]


class _StoreRetriever(BaseRetriever):
    model_config = ConfigDict(arbitrary_types_allowed=True)

    # Not validated: Streamlit's module reloads make a live store an instance of an older ElementStore class.
    store: SkipValidation[ElementStore]
    # The question of each query replaces the request's; the rest (k, scope, search, budgets) holds for all.
    request: RetrievalRequest = RetrievalRequest("")

    def _retrieve(self, query: str) -> Retrieval:
        return retrieve(self.store, self.request.asking(query))


class PlainRetriever(_StoreRetriever):
    """The top-k elements as they are (metadata gains ``score``, ``rank`` and ``short_id``)."""

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        hits = self._retrieve(query).hits
        shorts = short_ids(h.element_id for h in hits)
        return [
            Document(
                id=h.element_id,
                page_content=h.element.text,
                metadata={
                    **h.element.metadata, "score": h.similarity, "rank": h.rank, "short_id": shorts[h.element_id]
                },
            )
            for h in hits
        ]


class HierarchicalRetriever(_StoreRetriever):
    """One document per source document: the merged partial tree of its hits, rendered as markdown."""

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        context = self._retrieve(query).hierarchical
        shorts = {e.element_id: e.short_id for e in context.elements}
        out = []
        for tree in context.trees:
            nodes = list(tree.walk())
            first = nodes[0].element.metadata if nodes else {}
            out.append(
                Document(
                    page_content=render_markdown([tree], shorts=shorts),
                    metadata={
                        "document_id": tree.document_id,
                        "source": first.get("source"),
                        "filename": first.get("filename"),
                        "hit_ids": [n.element_id for n in nodes if n.role == "hit"],
                        "element_ids": [n.element_id for n in nodes],
                        "best_rank": tree.best_rank,
                    },
                )
            )
        return out

