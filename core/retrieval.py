"""Plain and hierarchical retrieval from the same vector hits.

One search, two contexts:

* **plain**: the hit elements as they are, best first;
* **hierarchical**: every hit expanded to its root-to-leaf partial tree (all ancestors of all hits fetched
  in one round trip by ``ElementStore.ancestors``), the trees merged and rendered as markdown.

:func:`retrieve` does the search once and builds both contexts, timing each stage (``embed_query``,
``vector_search``, ``expand``) in milliseconds, so a comparison never searches twice. :class:`PlainRetriever`
and :class:`HierarchicalRetriever` wrap the same functions as LangChain retrievers.
"""

from __future__ import annotations

import re
import time
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import ConfigDict

from core.partial_tree import PartialTree, merge_trees, render_markdown, render_plain, short_ids
from core.sql import retrieval as sql
from core.store import ElementStore, read_connection
from core.tokens import count_tokens

__all__ = [
    "MAX_K",
    "MAX_QUESTION_CHARS",
    "Context",
    "ContextElement",
    "HierarchicalRetriever",
    "Hit",
    "PlainRetriever",
    "QuestionError",
    "Retrieval",
    "Scope",
    "build_hierarchical_context",
    "build_plain_context",
    "embed_query",
    "expand",
    "resolve_scope",
    "retrieve",
    "validate_question",
    "vector_search",
]

Mode = Literal["plain", "hierarchical"]
MODES: tuple[Mode, Mode] = ("plain", "hierarchical")
MAX_K = 50
# Bounds of the "a heading hit brings its children" walk; the token budget then trims what was fetched.
CHILD_MAX_DEPTH = 6
CHILD_MAX_ROWS = 400
_HEX = re.compile(r"[0-9a-f]{6,64}")
# The UI shows contexts in half-width columns, where a document title as <h1> would fill the screen.
DISPLAY_HEADING_OFFSET = 2


def _ms(seconds: float) -> float:
    return round(seconds * 1000.0, 3)


# -- the question ------------------------------------------------------------------------------------
# Every entry point (retrieve() and so compare(), the CLI ``ask``, the Compare page, the LangChain retrievers)
# goes through validate_question(), so the rules below hold everywhere and are written once.

# Long enough for any real question with some pasted context (the sample questions are < 100 characters);
# short enough that a pasted document is refused instead of being embedded and sent to a model as a question.
MAX_QUESTION_CHARS = 2_000
# C0 and C1 control characters except tab and newline (carriage returns become newlines first). NUL cannot be
# stored in Postgres text and the others are invisible; none carries meaning in a question.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
# Lone surrogates: what Python makes of invalid UTF-8 in argv; they cannot be encoded to print or to store.
_SURROGATE = re.compile(r"[\ud800-\udfff]")
EMPTY_QUESTION = "Ask a question: the question is empty (or only spaces and control characters)."


class QuestionError(ValueError):
    """A question that cannot be asked; the message says why and what to do (shown as is by the CLI and UI)."""


def validate_question(question: str | None) -> str:
    """The question as it will be embedded, searched and answered; raises :class:`QuestionError` otherwise.

    Rules: line breaks are normalised to ``\\n``; control characters (NUL included) are removed and invalid
    code points replaced by U+FFFD; the text is NFC-normalised (decomposed Hangul from some keyboards and file
    systems embeds differently) and stripped. Then it must be non-empty and at most
    :data:`MAX_QUESTION_CHARS` characters: a longer one is refused with the limit named, not truncated,
    because a cut question silently asks something else. Everything else is kept verbatim: SQL-looking text,
    markup and "ignore previous instructions" are just text here, since every statement takes parameters,
    every view escapes, and the prompt marks what is data.
    """
    if question is None:
        question = ""
    if not isinstance(question, str):
        raise QuestionError(f"the question must be text, not {type(question).__name__}")
    text = question.replace("\r\n", "\n").replace("\r", "\n")
    text = _CONTROL.sub("", _SURROGATE.sub("\ufffd", text))
    text = unicodedata.normalize("NFC", text).strip()
    if not text:
        raise QuestionError(EMPTY_QUESTION)
    if len(text) > MAX_QUESTION_CHARS:
        raise QuestionError(
            f"The question is too long: {len(text):,} characters, the limit is {MAX_QUESTION_CHARS:,}. "
            "Ask the question itself; the search finds the documents."
        )
    return text


# -- scope -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Scope:
    """Where a search may look: the whole collection, one document, or one heading's subtree."""

    kind: Literal["collection", "document", "subtree"] = "collection"
    id: str | None = None
    label: str = "whole collection"

    @classmethod
    def whole(cls) -> Scope:
        return cls()

    @classmethod
    def document(cls, document_id: str, label: str | None = None) -> Scope:
        return cls("document", document_id, label or f"document {document_id}")

    @classmethod
    def subtree(cls, element_id: str, label: str | None = None) -> Scope:
        return cls("subtree", element_id, label or f"subtree of {element_id[:8]}")

    def as_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "id": self.id, "label": self.label}


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
        with read_connection(store.pool) as conn:
            rows = conn.execute(
                sql.ELEMENTS_BY_PREFIX, {"collection_id": store.collection_id, "prefix": key.lower()}
            ).fetchall()
        if len(rows) > 1:
            raise ValueError(f"scope {key!r} is the prefix of several elements: give more characters")
        found = [Document(id=r[0], page_content=r[1] or "", metadata=r[2]) for r in rows]
    if not found:
        raise ValueError(f"scope {key!r} is neither a document id nor an element id in collection {store.collection!r}")
    element = found[0]
    path = [*element.metadata.get("heading_path", []), element.page_content]
    return Scope.subtree(str(element.metadata["element_id"]), " › ".join(_short(p, 60) for p in path))


def _short(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


# -- search --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Hit:
    """A vector hit: the element, its rank (0 = best) and its cosine distance to the query."""

    element: Document
    rank: int
    distance: float

    @property
    def element_id(self) -> str:
        return str(self.element.metadata["element_id"])

    @property
    def similarity(self) -> float:
        return 1.0 - self.distance


def embed_query(store: ElementStore, question: str) -> np.ndarray:
    return np.asarray(store.embeddings.embed_query(question), dtype=np.float32)


def vector_search(store: ElementStore, query_vector: np.ndarray, k: int = 4, scope: Scope | None = None) -> list[Hit]:
    """The ``k`` nearest elements inside ``scope`` (one statement, scope applied in SQL)."""
    if not 1 <= k <= MAX_K:
        raise ValueError(f"k must be between 1 and {MAX_K}, got {k}")
    scope = scope or Scope.whole()
    params: dict[str, Any] = {"collection_id": store.collection_id, "query": query_vector, "k": k}
    if scope.kind == "collection":
        statement = sql.SEARCH_COLLECTION
    elif scope.kind == "document":
        statement, params["document_id"] = sql.SEARCH_DOCUMENT, scope.id
    elif scope.kind == "subtree":
        statement, params["root_id"] = sql.SEARCH_SUBTREE, scope.id
    else:  # pragma: no cover - Scope.kind is a Literal
        raise ValueError(f"unknown scope kind {scope.kind!r}")
    with read_connection(store.pool) as conn:
        rows = conn.execute(statement, params).fetchall()
    return [
        Hit(Document(id=row[0], page_content=row[1] or "", metadata=row[2]), rank, float(row[3]))
        for rank, row in enumerate(rows)
    ]


def expand(
    store: ElementStore,
    hits: Sequence[Hit],
    *,
    children_budget: int = 0,
    query_vector: np.ndarray | None = None,
) -> tuple[dict[str, Document], list[str], dict[str, float]]:
    """Every hit's ancestors, in one round trip; optionally a heading hit's children within a token budget.

    Returns ``(elements by id, ids of children brought in, distances of those children)``.
    """
    hit_ids = [h.element_id for h in hits]
    headings = [h.element_id for h in hits if h.element.metadata.get("category") == "Title"]
    if children_budget <= 0 or not headings:
        return store.ancestors(hit_ids), [], {}
    if query_vector is None:
        raise ValueError("children_budget needs the query vector to score the children")
    with read_connection(store.pool) as conn:
        rows = conn.execute(
            sql.EXPAND_WITH_CHILDREN,
            {
                "collection_id": store.collection_id,
                "ids": hit_ids,
                "heading_ids": headings,
                "query": query_vector,
                "max_depth": CHILD_MAX_DEPTH,
                "max_children": CHILD_MAX_ROWS,
            },
        ).fetchall()
    elements: dict[str, Document] = {}
    candidates: dict[str, Document] = {}
    distances: dict[str, float] = {}
    for element_id, text, meta, distance, is_child in rows:
        doc = Document(id=element_id, page_content=text or "", metadata=meta)
        if is_child:
            candidates.setdefault(element_id, doc)
            distances[element_id] = float(distance)
        else:
            elements[element_id] = doc
    children = _within_budget(headings, elements, candidates, children_budget)
    for element_id in children:
        elements[element_id] = candidates[element_id]
    return elements, children, {c: distances[c] for c in children}


def _within_budget(
    headings: Sequence[str], present: Mapping[str, Document], candidates: Mapping[str, Document], budget: int
) -> list[str]:
    """Children of the heading hits (best hit first, document order below each), while the budget lasts.

    An element that does not fit is skipped with its whole subtree, so no child is ever shown without its
    parent; a smaller sibling after it may still fit.
    """
    kids: dict[str, list[Document]] = {}
    for doc in candidates.values():
        kids.setdefault(str(doc.metadata.get("parent_id")), []).append(doc)
    for siblings in kids.values():
        siblings.sort(key=lambda d: int(d.metadata.get("order", 0)))
    chosen: list[str] = []
    spent = 0
    for heading in headings:
        stack = list(reversed(kids.get(heading, [])))
        while stack:
            doc = stack.pop()
            element_id = str(doc.metadata["element_id"])
            if element_id in present or element_id in chosen:
                stack.extend(reversed(kids.get(element_id, [])))
                continue
            cost = count_tokens(doc.page_content) + 8  # + marker, bullet and newline
            if spent + cost > budget:
                continue
            spent += cost
            chosen.append(element_id)
            stack.extend(reversed(kids.get(element_id, [])))
    return chosen


# -- contexts ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ContextElement:
    """One element of a context as the answerers and the UI see it.

    ``path`` holds the heading texts above the element *in this context*: empty in a plain context, which
    carries no hierarchy; in a hierarchical one it is the partial tree's root-to-leaf heading path.
    """

    element_id: str
    short_id: str
    role: Literal["hit", "ancestor", "child"]
    category: str
    text: str
    document_id: str
    path: tuple[str, ...] = ()
    distance: float | None = None
    rank: int | None = None

    @property
    def similarity(self) -> float | None:
        return None if self.distance is None else 1.0 - self.distance

    def as_dict(self) -> dict[str, Any]:
        return {
            "element_id": self.element_id,
            "short_id": self.short_id,
            "role": self.role,
            "category": self.category,
            "text": self.text,
            "document_id": self.document_id,
            "heading_path": list(self.path),
            "similarity": None if self.distance is None else round(1.0 - self.distance, 4),
            "rank": self.rank,
        }


@dataclass
class Context:
    """What one mode hands to the answerer: markdown for the model, escaped markdown for the UI."""

    mode: Mode
    text: str
    display: str
    elements: list[ContextElement]
    tokens: int
    trees: list[PartialTree] = field(default_factory=list)

    @property
    def hits(self) -> list[ContextElement]:
        return sorted((e for e in self.elements if e.role == "hit"), key=lambda e: e.rank or 0)

    @property
    def element_ids(self) -> list[str]:
        return [e.element_id for e in self.elements]

    def get(self, element_id: str) -> ContextElement | None:
        return next((e for e in self.elements if e.element_id == element_id), None)


def build_plain_context(hits: Sequence[Hit]) -> Context:
    docs = [h.element for h in hits]
    shorts = short_ids(h.element_id for h in hits)
    elements = [
        ContextElement(
            h.element_id, shorts[h.element_id], "hit", str(h.element.metadata.get("category") or ""),
            h.element.page_content, str(h.element.metadata.get("document_id") or ""), (), h.distance, h.rank,
        )
        for h in hits
    ]  # fmt: skip
    text = render_plain(docs, shorts=shorts)
    display = render_plain(docs, escape=True, shorts=shorts, heading_offset=DISPLAY_HEADING_OFFSET)
    return Context("plain", text, display, elements, count_tokens(text))


def build_hierarchical_context(
    hits: Sequence[Hit],
    elements: Mapping[str, Document],
    child_ids: Sequence[str] = (),
    child_distances: Mapping[str, float] | None = None,
) -> Context:
    hit_ids = [h.element_id for h in hits]
    # A hit whose row vanished between search and expansion (concurrent re-ingest) still appears, as a root.
    merged = dict(elements)
    for h in hits:
        merged.setdefault(h.element_id, h.element)
    trees = merge_trees(merged, hit_ids, child_ids)
    shorts = short_ids(merged)
    by_hit = {h.element_id: h for h in hits}
    child_distances = child_distances or {}
    items: list[ContextElement] = []
    for tree in trees:
        for node in tree.walk():
            hit = by_hit.get(node.element_id)
            distance = hit.distance if hit else child_distances.get(node.element_id)
            items.append(
                ContextElement(
                    node.element_id, shorts[node.element_id], node.role, node.category, node.element.page_content,
                    tree.document_id, node.path, distance, hit.rank if hit else None,
                )
            )  # fmt: skip
    text = render_markdown(trees, shorts=shorts)
    display = render_markdown(trees, escape=True, shorts=shorts, heading_offset=DISPLAY_HEADING_OFFSET)
    return Context("hierarchical", text, display, items, count_tokens(text), trees)


@dataclass
class Retrieval:
    """One search and the two contexts built from its hits, with stage timings in milliseconds."""

    question: str
    k: int
    scope: Scope
    hits: list[Hit]
    plain: Context
    hierarchical: Context
    timings: dict[str, float]
    query_vector: np.ndarray = field(repr=False)

    def context(self, mode: Mode) -> Context:
        return self.plain if mode == "plain" else self.hierarchical

    def timings_for(self, mode: Mode) -> dict[str, float]:
        """Stages of ``mode``: the search is shared; only the hierarchical context pays for expansion."""
        return {
            "embed_query": self.timings["embed_query"],
            "vector_search": self.timings["vector_search"],
            "expand": self.timings["expand"] if mode == "hierarchical" else 0.0,
        }

    @property
    def hierarchy_added(self) -> list[ContextElement]:
        """Elements only the hierarchical context has: the ancestors (and children) around the hits."""
        plain = set(self.plain.element_ids)
        return [e for e in self.hierarchical.elements if e.element_id not in plain]


def retrieve(
    store: ElementStore,
    question: str,
    *,
    k: int = 4,
    scope: Scope | None = None,
    children_budget: int = 0,
    query_vector: np.ndarray | None = None,
) -> Retrieval:
    """Embed ``question`` once, search once, and build both contexts from the same hits.

    ``query_vector`` skips the embedding (benchmarks, or a caller that embedded the question already).
    """
    question = validate_question(question)  # raises QuestionError (a ValueError) with a message for the user
    scope = scope or Scope.whole()
    t0 = time.perf_counter()
    vector = embed_query(store, question) if query_vector is None else np.asarray(query_vector, dtype=np.float32)
    t1 = time.perf_counter()
    hits = vector_search(store, vector, k, scope)
    t2 = time.perf_counter()
    plain = build_plain_context(hits)
    t3 = time.perf_counter()
    elements, children, child_distances = expand(store, hits, children_budget=children_budget, query_vector=vector)
    hierarchical = build_hierarchical_context(hits, elements, children, child_distances)
    t4 = time.perf_counter()
    timings = {
        "embed_query": _ms(t1 - t0),
        "vector_search": _ms(t2 - t1),
        "plain_context": _ms(t3 - t2),
        "expand": _ms(t4 - t3),
    }
    return Retrieval(question, k, scope, hits, plain, hierarchical, timings, vector)


# -- LangChain retrievers --------------------------------------------------------------------------------


class _StoreRetriever(BaseRetriever):
    model_config = ConfigDict(arbitrary_types_allowed=True)

    store: Any  # ElementStore; Any keeps pydantic from introspecting it
    k: int = 4
    scope: Scope | None = None

    def _hits(self, query: str) -> list[Hit]:
        query = validate_question(query)  # the same question rules as retrieve()
        return vector_search(self.store, embed_query(self.store, query), self.k, self.scope)


class PlainRetriever(_StoreRetriever):
    """The top-k elements as they are (metadata gains ``score``, ``rank`` and ``short_id``)."""

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        hits = self._hits(query)
        shorts = short_ids(h.element_id for h in hits)
        return [
            Document(
                id=h.element_id,
                page_content=h.element.page_content,
                metadata={
                    **h.element.metadata, "score": h.similarity, "rank": h.rank, "short_id": shorts[h.element_id]
                },
            )
            for h in hits
        ]


class HierarchicalRetriever(_StoreRetriever):
    """One document per source document: the merged partial tree of its hits, rendered as markdown."""

    children_budget: int = 0

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        vector = embed_query(self.store, validate_question(query))  # the same question rules as retrieve()
        hits = vector_search(self.store, vector, self.k, self.scope)
        elements, children, distances = expand(
            self.store, hits, children_budget=self.children_budget, query_vector=vector
        )
        context = build_hierarchical_context(hits, elements, children, distances)
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
