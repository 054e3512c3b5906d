"""Retrieval against the real database: one round trip for expansion, scopes that never leak, both contexts
from the same hits, the HNSW-shaped search, the LangChain retrievers.

Round trips are counted at the protocol level: libpq's own trace of the connection (``PGconn.trace``) logs
every message the client sends; a round trip is one ``Sync`` (extended protocol) or one ``Query`` (simple
protocol). Nothing is mocked.
"""

from __future__ import annotations

import re
import uuid
from collections import Counter
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest
from langchain_core.documents import Document
from psycopg import pq
from psycopg_pool import ConnectionPool

from core.db.pool import _configure_connection, read_connection
from core.db.urls import psycopg_conninfo
from core.ingest import SourceFile, ingest
from core.retrieval import (
    HierarchicalRetriever,
    PlainRetriever,
    RetrievalRequest,
    Scope,
    embed_query,
    expand,
    resolve_scope,
    retrieve,
    vector_search,
)
from core.sql import retrieval as sql
from core.store import DocumentRecord, ElementStore

ALPHA = """\
# Alpha monitor
## Specs
* Model : AL-1
### Weight
* Weight with stand : 2.9 kg
* Size : 50 cm
  * measured without the cable
### Ports
* HDMI : 1 (HDMI 1.4)
## Support
* Call 1599-0000 for help
"""

BETA = """\
# Beta satellite
## Orbit
* Altitude : 610 km sun-synchronous orbit
* Inclination : 97.8 degrees
## Payload
* Laser communication terminal built by the optics lab
  * Data rate : 1.2 Gbps
"""

ORBIT_QUESTION = "What is the orbit altitude of the satellite?"


@pytest.fixture(scope="module")
def two_docs(db_url, use_embeddings):
    """Two small documents in their own collection, ingested once for this module's read-only tests."""
    store = ElementStore(db_url, f"t_retr_{uuid.uuid4().hex[:8]}", use_embeddings)
    report = ingest(store, [SourceFile("alpha.md", ALPHA.encode()), SourceFile("beta.md", BETA.encode())])
    assert not report.errors, report.errors
    docs = {d.filename: d for d in store.documents()}
    yield store, docs["alpha.md"].document_id, docs["beta.md"].document_id
    store.drop()


def by_text(store, document_id: str, text: str) -> Document:
    return next(e for e in store.elements(document_id) if e.page_content == text)


# -- round trips --------------------------------------------------------------------------------------------


@contextmanager
def traced_pool(store, trace_file: Path):
    """Swap the store's pool for a one-connection pool whose every protocol message is traced by libpq."""
    handle = trace_file.open("w")

    def configure(conn):
        _configure_connection(conn)  # the store's own set-up (pgvector types, iterative HNSW scans)
        conn.pgconn.trace(handle.fileno())
        conn.pgconn.set_trace_flags(pq.Trace.SUPPRESS_TIMESTAMPS | pq.Trace.REGRESS_MODE)

    pool = ConnectionPool(psycopg_conninfo(store.url), min_size=1, max_size=1, configure=configure, open=True)
    original = store.pool
    store.pool = pool
    try:
        yield lambda: _sent(trace_file, handle)
    finally:
        store.pool = original
        pool.close()
        handle.close()


def _sent(trace_file: Path, handle) -> Counter:
    """Messages the client sent since the last call, by type (Parse, Bind, Execute, Sync, Query…)."""
    handle.flush()
    text = trace_file.read_text()
    trace_file.write_text("")
    handle.seek(0)
    handle.truncate()
    return Counter(line.split("\t")[2].strip().split(" ")[0] for line in text.splitlines() if line.startswith("F\t"))


def round_trips(sent: Counter) -> int:
    return sent["Sync"] + sent["Query"]


def test_expansion_of_all_hits_is_one_round_trip(two_docs, tmp_path):
    store, alpha, beta = two_docs
    hits = [
        by_text(store, alpha, "measured without the cable"),  # depth 4: item > item > ### > ## > #
        by_text(store, alpha, "HDMI : 1 (HDMI 1.4)"),
        by_text(store, beta, "Data rate : 1.2 Gbps"),
        by_text(store, beta, "Altitude : 610 km sun-synchronous orbit"),
    ]
    ids = [h.metadata["element_id"] for h in hits]
    with traced_pool(store, tmp_path / "trace.txt") as sent:
        sent()  # forget the pool's connection set-up
        one = store.ancestors(ids[:1])
        assert round_trips(sent()) == 1
        four = store.ancestors(ids)
        messages = sent()
    assert round_trips(messages) == 1, messages
    assert messages["Execute"] == 1 and "BEGIN" not in str(messages)
    # And it really fetched every ancestor of every hit, shared ones once.
    assert {d.page_content for d in one.values()} == {
        "Alpha monitor", "Specs", "Weight", "Size : 50 cm", "measured without the cable"}
    texts = sorted(d.page_content for d in four.values())
    assert texts == sorted([
        "Alpha monitor", "Specs", "Weight", "Size : 50 cm", "measured without the cable", "Ports",
        "HDMI : 1 (HDMI 1.4)", "Beta satellite", "Payload", "Laser communication terminal built by the optics lab",
        "Data rate : 1.2 Gbps", "Orbit", "Altitude : 610 km sun-synchronous orbit"])


def test_search_and_expansion_with_children_are_one_round_trip_each(two_docs, tmp_path):
    store, alpha, _ = two_docs
    from core.retrieval import Hit

    vector = embed_query(store, "weight of the alpha monitor")
    heading = by_text(store, alpha, "Weight")
    with traced_pool(store, tmp_path / "trace.txt") as sent:
        sent()
        hits = vector_search(store, vector, 4)
        assert round_trips(sent()) == 1
        elements, children, _ = expand(store, [Hit(heading, 0, 0.1), *hits], children_budget=500,
                                       query_vector=vector)
        assert round_trips(sent()) == 1
    assert children, "the heading hit brought children"


# -- both contexts from the same hits ------------------------------------------------------------------------


def test_plain_and_hierarchical_contexts_come_from_the_same_hits(two_docs):
    store, alpha, beta = two_docs
    # The vector strategy over the whole collection, no sections brought in: the contexts differ by ancestors only.
    result = retrieve(store, RetrievalRequest("How heavy is the monitor with its stand?", k=3, search="vector",
                                              everywhere=True, children_budget=0))
    hit_ids = [h.element_id for h in result.hits]
    assert len(hit_ids) == 3
    assert [e.element_id for e in result.plain.hits] == hit_ids
    assert [e.element_id for e in result.hierarchical.hits] == hit_ids
    assert set(result.timings) >= {"embed_query", "vector_search", "expand"}
    assert all(v >= 0 for v in result.timings.values())
    assert result.timings_for("plain")["expand"] == 0.0
    assert result.hierarchical.tokens > result.plain.tokens
    # Every hit in the hierarchical context sits under its own document's title; the plain one has no headings.
    for hit in result.hierarchical.hits:
        doc_title = "Alpha monitor" if hit.document_id == alpha else "Beta satellite"
        assert ((*hit.path, hit.text) if hit.category == "Title" else hit.path)[0] == doc_title
    assert all(e.role == "hit" and e.path == () for e in result.plain.elements)
    added = {e.element_id for e in result.hierarchy_added}
    assert added and added == {e.element_id for e in result.hierarchical.elements if e.role == "ancestor"}
    assert not added & set(hit_ids)


def test_heading_hit_brings_its_children_within_the_token_budget(two_docs):
    store, alpha, _ = two_docs
    from core.retrieval import Hit, build_hierarchical_context
    from core.tokens import count_tokens

    heading = by_text(store, alpha, "Specs")
    vector = embed_query(store, "alpha specs")
    none, children0, _ = expand(store, [Hit(heading, 0, 0.2)], children_budget=0, query_vector=vector)
    assert children0 == [] and {d.page_content for d in none.values()} == {"Alpha monitor", "Specs"}

    elements, children, distances = expand(store, [Hit(heading, 0, 0.2)], children_budget=30, query_vector=vector)
    texts = [elements[c].page_content for c in children]
    assert texts[0] == "Model : AL-1"  # document order under the heading
    assert sum(count_tokens(t) + 8 for t in texts) <= 30
    assert len(texts) < 7  # the budget cut it short
    assert set(distances) == set(children)
    everything, _, _ = expand(store, [Hit(heading, 0, 0.2)], children_budget=10_000, query_vector=vector)
    assert {d.page_content for d in everything.values()} >= {"Weight", "Size : 50 cm", "measured without the cable",
                                                              "Ports", "HDMI : 1 (HDMI 1.4)"}
    # No child is shown without its parent.
    context = build_hierarchical_context([Hit(heading, 0, 0.2)], elements, children, distances)
    shown = {e.element_id for e in context.elements}
    for c in children:
        assert elements[c].metadata["parent_id"] in shown


# -- scopes ---------------------------------------------------------------------------------------------------


def test_document_scope_never_leaks_even_when_the_best_matches_are_elsewhere(two_docs):
    store, alpha, beta = two_docs
    vector = embed_query(store, ORBIT_QUESTION)
    everywhere = vector_search(store, vector, 3)
    assert {h.element.metadata["document_id"] for h in everywhere} == {beta}, "the question is about beta"

    hits = vector_search(store, vector, 4, Scope.document(alpha))
    assert len(hits) == 4, "the filter is in SQL: k results inside the scope, not k results filtered afterwards"
    assert {h.element.metadata["document_id"] for h in hits} == {alpha}
    assert [h.distance for h in hits] == sorted(h.distance for h in hits)
    n_alpha = len(store.elements(alpha))
    assert len(vector_search(store, vector, 50, Scope.document(alpha))) == n_alpha


def test_subtree_scope_never_leaks(two_docs):
    store, alpha, beta = two_docs
    weight = by_text(store, alpha, "Weight")
    subtree = {"Weight", "Weight with stand : 2.9 kg", "Size : 50 cm", "measured without the cable"}
    vector = embed_query(store, ORBIT_QUESTION)
    hits = vector_search(store, vector, 3, Scope.subtree(weight.metadata["element_id"]))
    assert len(hits) == 3 and {h.element.page_content for h in hits} <= subtree
    hits = vector_search(store, vector, 10, Scope.subtree(weight.metadata["element_id"]))
    assert {h.element.page_content for h in hits} == subtree

    result = retrieve(store, RetrievalRequest(ORBIT_QUESTION, k=2, scope=Scope.subtree(weight.metadata["element_id"])))
    assert {h.element.page_content for h in result.hits} <= subtree
    assert "Beta satellite" not in result.hierarchical.text


def test_resolve_scope_accepts_document_ids_element_ids_and_prefixes(two_docs):
    store, alpha, _ = two_docs
    assert resolve_scope(store, None) == Scope.whole()
    doc_scope = resolve_scope(store, alpha)
    assert (doc_scope.kind, doc_scope.id, doc_scope.label) == ("document", alpha, "Alpha monitor")
    weight = by_text(store, alpha, "Weight").metadata["element_id"]
    full = resolve_scope(store, weight)
    assert (full.kind, full.id) == ("subtree", weight) and full.label.endswith("Specs › Weight")
    assert resolve_scope(store, weight[:10]).id == weight
    with pytest.raises(ValueError, match="neither a document id nor an element id"):
        resolve_scope(store, "no-such-thing")
    with pytest.raises(ValueError, match="neither"):
        resolve_scope(store, "%' OR 1=1 --")


def test_k_is_bounded(two_docs):
    store, _, _ = two_docs
    vector = embed_query(store, "x")
    for bad in (0, 51):
        with pytest.raises(ValueError, match="k must be between"):
            vector_search(store, vector, bad)


# -- the search statement can use HNSW --------------------------------------------------------------------


def test_collection_search_is_served_by_the_hnsw_index(store):
    """At scale the planner picks HNSW by itself (bench/bench_retrieval.py prints the plan at 100k); on a
    small test table a sequential scan is cheaper, so sorting is priced out here to show that the statement's
    ORDER BY matches the index (cosine operator on the raw column, plain LIMIT)."""
    rng = np.random.default_rng(3)
    dim = store.embeddings.info.dimension
    docs = [Document(id=f"h{i:05d}", page_content=f"item {i}", metadata={
        "element_id": f"h{i:05d}", "parent_id": None, "category": "NarrativeText", "document_id": "hnsw",
        "order": i}) for i in range(300)]
    vectors = rng.standard_normal((300, dim)).astype(np.float32)
    store.write.replace_document(DocumentRecord("hnsw", "hnsw.md", "hnsw.md", None, "h", "synthetic", 300, 0), docs,
                           vectors / np.linalg.norm(vectors, axis=1, keepdims=True))
    query = vectors[0] / np.linalg.norm(vectors[0])
    assert store.ensure_vector_index(min_rows=0)
    with store.pool.connection() as conn:
        conn.execute("SET LOCAL enable_seqscan = off")
        conn.execute("SET LOCAL enable_sort = off")
        plan = "\n".join(r[0] for r in conn.execute(
            "EXPLAIN " + store.statement(sql.SEARCH_COLLECTION), {"query": query, "k": 4}))
        conn.rollback()
    assert re.search(rf"Index Scan using {store.table}_hnsw", plan), plan
    hits = vector_search(store, query, 4)
    assert hits[0].element_id == "h00000" and hits[0].distance == pytest.approx(0.0, abs=1e-5)


def test_read_connection_leaves_pool_connections_transactional(store):
    with read_connection(store.pool) as conn:
        assert conn.autocommit
    with store.pool.connection() as conn:
        assert not conn.autocommit


# -- LangChain retrievers ------------------------------------------------------------------------------------


def test_langchain_retrievers_share_the_search(two_docs):
    store, alpha, beta = two_docs
    plain = PlainRetriever(store=store, request=RetrievalRequest("", k=3)).invoke(ORBIT_QUESTION)
    assert len(plain) == 3 and all("score" in d.metadata and "short_id" in d.metadata for d in plain)
    trees = HierarchicalRetriever(store=store, request=RetrievalRequest("", k=3)).invoke(ORBIT_QUESTION)
    assert trees and trees[0].metadata["document_id"] == beta
    assert set(trees[0].metadata["hit_ids"]) <= {d.id for d in plain}
    assert sum(len(t.metadata["hit_ids"]) for t in trees) == 3
    assert trees[0].page_content.startswith("# Beta satellite")
    in_alpha = RetrievalRequest("", k=3, scope=Scope.document(alpha))  # each query's question replaces ""
    scoped = PlainRetriever(store=store, request=in_alpha).invoke(ORBIT_QUESTION)
    assert {d.metadata["document_id"] for d in scoped} == {alpha}
