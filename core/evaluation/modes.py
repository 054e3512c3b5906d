"""The four evaluation modes: how the k elements are found, and how they become a context.

=============  ==========================================================  ==========================
mode           hits                                                        context
=============  ==========================================================  ==========================
plain          vector search over the element texts                        the hits as they are
hierarchical   the same hits                                               partial trees (ancestors)
contextual     vector search over the sibling collection ``<name>__ctx``,  partial trees
               whose vectors embed "heading › path › text"
hybrid         vector search + Postgres full-text search (``simple``       partial trees
               configuration) over heading path + text, fused by
               reciprocal rank (RRF)
=============  ==========================================================  ==========================

``contextual`` and ``hybrid`` are *retrieval* variants, so they render their hits the way the hierarchical mode
does: their attribution is then comparable with it, and ``hit_recall``/MRR (which look at the hits only) isolate
what the different search buys.

Everything reuses the retrieval layer (``core.retrieval``): one query embedding is shared by all modes (each mode
is charged for it in its latency, since each would pay it alone), ``vector_search`` does the nearest-neighbour
search, ``expand`` fetches the ancestors in one round trip, and ``build_plain_context`` /
``build_hierarchical_context`` render. The full-text SQL lives in ``core.sql.evaluation``.

The full-text side indexes each element's heading path with its text (``core.sql.evaluation.FTS_VECTOR``): the
lexical counterpart of contextual embeddings, at the cost of a GIN index instead of a second collection. With it
(and the relative score cut-off in :func:`hybrid_hits`) hybrid recall@4 rose from 0.55 (element text only, no
cut-off) to 0.81 on the sample gold set, from 0.64 to 0.92 on the set generated from the Python-Markdown docs, and
from 0.19 to 0.90 on the set generated from the samples (bench/bench_eval.py; README).
"""

from __future__ import annotations

import hashlib
import re
import time
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

import numpy as np
from langchain_core.documents import Document

from core.ingest import embed_texts, embedding_text
from core.retrieval import (
    MAX_K,
    Context,
    Hit,
    build_hierarchical_context,
    build_plain_context,
    embed_query,
    expand,
    vector_search,
)
from core.sql import evaluation as sql
from core.store import COLLECTION_NAME_MAX, ElementStore, apply_schema, read_connection
from core.tokens import count_tokens

__all__ = [
    "ALL_MODES",
    "CONTEXTUAL_SUFFIX",
    "ModeRetrieval",
    "ModeRunner",
    "ProgressFn",
    "contextual_collection_name",
    "ensure_contextual_store",
    "ensure_schema",
    "fts_scored",
    "fts_search",
    "fts_terms",
    "hybrid_hits",
    "parse_modes",
    "rrf_fuse",
    "tsquery_lexeme",
]

ALL_MODES: tuple[str, ...] = ("plain", "hierarchical", "contextual", "hybrid")
CONTEXTUAL_SUFFIX = "__ctx"
RRF_K = 60  # the constant of Cormack et al.; large enough that rank 1 vs 2 in one list does not dominate
HYBRID_MIN_CANDIDATES = 20  # each list contributes this many (or 4·k) candidates before fusion
# Lexical candidates scoring below this share of the best lexical score are left out of the fusion (see
# hybrid_hits). Chosen as a round number; on the bench sets 0.3-0.7 all beat no cut-off (0.0).
FTS_RELATIVE_CUTOFF = 0.5
EMBED_BATCH = 64

ProgressFn = Callable[[int, int, str], None]

# Question words that the 'simple' configuration would keep as terms; they match half the corpus and add noise.
_STOPWORDS_SET = frozenset(
    "a an and are as at be by can could do does did for from has have how i if in into is it its me my of on or "
    "should so than that the their them then there these this those to was were what when where which who whom "
    "whose why will with would you your".split()
)
_HANGUL_RUN = re.compile(r"[\uac00-\ud7a3]+")
# Particles and endings glued to Korean words in questions, longest first. Stripping them gives a stem that is
# searched as a prefix ('모니터':*) so "모니터의" finds "모니터" and "모니터는".
_KO_SUFFIXES = tuple(sorted(
    "인가요 있나요 없나요 되나요 하나요 습니까 입니까 일까요 에서는 에게는 으로는 이라는 나요 가요 까요 에는 에서 에게 "
    "으로 로는 까지 부터 이나 이란 와의 과의 은 는 이 가 을 를 에 의 과 와 로 도 만".split(), key=len, reverse=True))
_KO_STOP = frozenset(
    "얼마 얼마나 무엇 무엇인 언제 어디 누구 어떻게 어느 무슨 몇 있나요 없나요 되나요 하나요 인가요".split()
)


def parse_modes(value: str | Sequence[str] | None) -> tuple[str, ...]:
    """``"plain,hybrid"`` or a list → validated modes in canonical order; raises ``ValueError`` for unknown ones."""
    if value is None:
        return ALL_MODES
    items = [m.strip().lower() for m in (value.split(",") if isinstance(value, str) else value) if m.strip()]
    unknown = [m for m in items if m not in ALL_MODES]
    if unknown:
        raise ValueError(f"unknown mode(s) {', '.join(unknown)}; choose from {', '.join(ALL_MODES)}")
    if not items:
        raise ValueError("no modes given")
    return tuple(m for m in ALL_MODES if m in items)


# -- schema ---------------------------------------------------------------------------------------------------


def ensure_schema(store: ElementStore) -> None:
    """The evaluation tables and the full-text index (idempotent, serialised across processes)."""
    apply_schema(store.pool, sql.CREATE_SCHEMA, sql.SCHEMA_LOCK_KEY)


# -- contextual sibling collection ----------------------------------------------------------------------------


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


@dataclass(frozen=True)
class ContextualSync:
    collection: str
    documents: int
    embedded_documents: int
    embedded_elements: int
    removed_documents: int
    seconds: float


def ensure_contextual_store(
    store: ElementStore, *, progress: ProgressFn | None = None, batch_size: int = EMBED_BATCH
) -> tuple[ElementStore, ContextualSync]:
    """The contextual sibling of ``store``, brought up to date with it (see the module docstring).

    A store that is itself contextual is its own sibling.
    """
    started = time.perf_counter()
    if store.contextual:
        docs = len(store.documents())
        return store, ContextualSync(store.collection, docs, 0, 0, 0, 0.0)
    name = contextual_collection_name(store.collection)
    sibling = ElementStore(store.url, name, store.embeddings, create=True,
                           options={"contextual": True, "contextual_of": store.collection})
    base_docs = store.documents()
    known = {d.document_id: d.content_hash for d in sibling.documents()}
    wanted = {_derived_id(name, d.document_id, 16): d for d in base_docs}
    stale = [(doc_id, d) for doc_id, d in wanted.items() if known.get(doc_id) != d.content_hash]
    total = sum(d.n_elements for _, d in stale)
    done = 0
    embedded = 0
    if progress and stale:
        progress(0, total, f"contextual collection {name}: embedding {len(stale)} documents with heading paths")
    for doc_id, record in stale:
        elements = _remap(store.elements(record.document_id), name, doc_id)
        texts = [embedding_text(e, contextual=True) for e in elements]

        def advance(n: int, filename: str = record.filename) -> None:
            nonlocal done
            done += n
            if progress:
                progress(done, total, f"contextual: {filename}")

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


# -- hybrid ---------------------------------------------------------------------------------------------------


def _korean_stem(run: str) -> str:
    if run in _KO_STOP:
        return ""
    for suffix in _KO_SUFFIXES:
        if run.endswith(suffix) and len(run) - len(suffix) >= 2:
            run = run[: -len(suffix)]
            break
    return "" if run in _KO_STOP or len(run) < 2 else run


def fts_terms(question: str) -> list[str]:
    """Prefix stems of the question's Hangul words (particles stripped, at least 2 syllables)."""
    stems = {_korean_stem(run) for run in _HANGUL_RUN.findall(unicodedata.normalize("NFKC", question))}
    return sorted(s for s in stems if s)


def tsquery_lexeme(lexeme: str, *, prefix: bool = False) -> str:
    """``lexeme`` quoted as tsquery text: inside single quotes, quotes and backslashes doubled (so no operator
    in it is ever interpreted), plus ``:*`` for a prefix match."""
    quoted = "'" + lexeme.replace("\\", "\\\\").replace("'", "''") + "'"
    return quoted + (":*" if prefix else "")


def fts_scored(store: ElementStore, question: str, query_vector: np.ndarray, k: int) -> list[tuple[Hit, float]]:
    """The ``k`` elements that best match the question's words, best first, with their IDF-sum scores."""
    question = unicodedata.normalize("NFKC", question)
    with read_connection(store.pool) as conn:
        lexemes = conn.execute(sql.QUESTION_LEXEMES, {"question": question}).fetchone()[0] or []
        terms = [tsquery_lexeme(lex) for lex in lexemes if lex not in _STOPWORDS_SET]
        terms += [tsquery_lexeme(stem, prefix=True) for stem in fts_terms(question) if stem not in lexemes]
        if not terms:
            return []
        rows = conn.execute(sql.FTS_SEARCH, {
            "collection_id": store.collection_id,
            "terms": terms,
            "query": " | ".join(terms),
            "query_vector": query_vector,
            "k": k,
        }).fetchall()
    return [(Hit(Document(id=r[0], page_content=r[1] or "", metadata=r[2]), rank, float(r[3])), float(r[4]))
            for rank, r in enumerate(rows)]


def fts_search(store: ElementStore, question: str, query_vector: np.ndarray, k: int) -> list[Hit]:
    """The ``k`` elements that best match the question's words (IDF-weighted), best first."""
    return [hit for hit, _score in fts_scored(store, question, query_vector, k)]


def rrf_fuse(rankings: Sequence[Sequence[Hit]], k: int, rrf_k: int = RRF_K) -> list[Hit]:
    """Reciprocal rank fusion: score = Σ 1/(rrf_k + rank), rank 1-based per list; ties keep the earlier list's order."""
    scores: dict[str, float] = {}
    first_seen: dict[str, tuple[int, int]] = {}
    hits: dict[str, Hit] = {}
    for list_index, ranking in enumerate(rankings):
        for position, hit in enumerate(ranking, start=1):
            scores[hit.element_id] = scores.get(hit.element_id, 0.0) + 1.0 / (rrf_k + position)
            first_seen.setdefault(hit.element_id, (position, list_index))
            hits.setdefault(hit.element_id, hit)
    order = sorted(scores, key=lambda e: (-scores[e], first_seen[e], e))[:k]
    return [Hit(hits[e].element, rank, hits[e].distance) for rank, e in enumerate(order)]


def hybrid_hits(
    store: ElementStore, question: str, query_vector: np.ndarray, k: int
) -> tuple[list[Hit], dict[str, float]]:
    """Vector and full-text candidates fused by RRF, with the timing of each stage in ms."""
    candidates = min(MAX_K, max(HYBRID_MIN_CANDIDATES, 4 * k))
    t0 = time.perf_counter()
    vector = vector_search(store, query_vector, candidates)
    t1 = time.perf_counter()
    scored = fts_scored(store, question, query_vector, candidates)
    # RRF looks at ranks only, so a long tail of elements that merely share a common word ("part", "monitor")
    # would outvote the one element holding the rare token. Keep the lexical candidates that score at least
    # FTS_RELATIVE_CUTOFF of the best one.
    best = scored[0][1] if scored else 0.0
    text = [hit for hit, score in scored if score >= FTS_RELATIVE_CUTOFF * best]
    t2 = time.perf_counter()
    fused = rrf_fuse([vector, text], k)
    t3 = time.perf_counter()
    return fused, {"vector_search": _ms(t1 - t0), "fts_search": _ms(t2 - t1), "fuse": _ms(t3 - t2)}


# -- running the modes ----------------------------------------------------------------------------------------


def _ms(seconds: float) -> float:
    return round(seconds * 1000.0, 3)


@dataclass
class ModeRetrieval:
    """What one mode produced for one question: ranked hits, the context, and stage timings (ms)."""

    mode: str
    hits: list[Hit]
    context: Context
    timings: dict[str, float] = field(default_factory=dict)

    @property
    def latency_ms(self) -> float:
        return round(sum(self.timings.values()), 3)


def _tree(store: ElementStore, hits: Sequence[Hit]) -> tuple[Context, float]:
    t0 = time.perf_counter()
    elements, children, distances = expand(store, hits)
    context = build_hierarchical_context(hits, elements, children, distances)
    return context, _ms(time.perf_counter() - t0)


class ModeRunner:
    """Runs the chosen modes for one question at a time against one collection.

    Construction prepares what the modes need: the evaluation schema (incl. the full-text index) and, for
    ``contextual``, the up-to-date sibling collection (which may embed documents: pass ``progress``).
    """

    def __init__(self, store: ElementStore, modes: Sequence[str] = ALL_MODES, *, k: int = 4,
                 progress: ProgressFn | None = None) -> None:
        if not 1 <= k <= MAX_K:
            raise ValueError(f"k must be between 1 and {MAX_K}, got {k}")
        self.store = store
        self.modes = parse_modes(list(modes))
        self.k = k
        ensure_schema(store)
        self.contextual_store: ElementStore | None = None
        self.contextual_sync: ContextualSync | None = None
        if "contextual" in self.modes:
            self.contextual_store, self.contextual_sync = ensure_contextual_store(store, progress=progress)
        # The first call of the tokenizer and of the embedder loads tables (hundreds of ms): keep that out of
        # the first question's latency.
        count_tokens("warm up")
        embed_query(store, "warm up")

    def run(self, question: str) -> dict[str, ModeRetrieval]:
        question = question.strip()
        if not question:
            raise ValueError("the question is empty")
        t0 = time.perf_counter()
        vector = embed_query(self.store, question)
        embed_ms = _ms(time.perf_counter() - t0)
        out: dict[str, ModeRetrieval] = {}
        if {"plain", "hierarchical"} & set(self.modes):
            t0 = time.perf_counter()
            hits = vector_search(self.store, vector, self.k)
            search_ms = _ms(time.perf_counter() - t0)
            if "plain" in self.modes:
                t0 = time.perf_counter()
                context = build_plain_context(hits)
                out["plain"] = ModeRetrieval("plain", hits, context, {
                    "embed_query": embed_ms, "vector_search": search_ms, "context": _ms(time.perf_counter() - t0)})
            if "hierarchical" in self.modes:
                context, tree_ms = _tree(self.store, hits)
                out["hierarchical"] = ModeRetrieval("hierarchical", hits, context, {
                    "embed_query": embed_ms, "vector_search": search_ms, "expand": tree_ms})
        if "contextual" in self.modes:
            assert self.contextual_store is not None
            t0 = time.perf_counter()
            hits = vector_search(self.contextual_store, vector, self.k)
            search_ms = _ms(time.perf_counter() - t0)
            context, tree_ms = _tree(self.contextual_store, hits)
            out["contextual"] = ModeRetrieval("contextual", hits, context, {
                "embed_query": embed_ms, "vector_search": search_ms, "expand": tree_ms})
        if "hybrid" in self.modes:
            hits, timings = hybrid_hits(self.store, question, vector, self.k)
            context, tree_ms = _tree(self.store, hits)
            out["hybrid"] = ModeRetrieval("hybrid", hits, context, {"embed_query": embed_ms, **timings,
                                                                     "expand": tree_ms})
        return {m: out[m] for m in self.modes}
