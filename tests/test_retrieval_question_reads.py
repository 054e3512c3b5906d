"""What one question's search reads, and that reading less changes nothing: the full-text statement that holds a
candidate's terms as a bit mask ranks exactly as the one that holds them as an array (scores, order, ties, Korean
prefix terms, every scope); a question's repeated vector search is read once and the collection's size is read
with the term counts, with the same hits as reading everything again. Real Postgres, the sample corpus, the
product's embedder."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from core.retrieval import RetrievalRequest, Scope, retrieve
from core.retrieval.search import fts_scored, vector_search
from core.sql import retrieval as retrieval_sql

ROOT = Path(__file__).resolve().parents[1]


def _questions() -> list[str]:
    data = json.loads((ROOT / "data" / "questions.json").read_text(encoding="utf-8"))
    return [q["question"] for q in data["questions"]]


def _scopes(store) -> list[Scope]:
    docs = store.documents()
    heading = next(e for e in store.elements(docs[0].document_id) if e.metadata.get("category") == "Title"
                   and e.metadata.get("category_depth") == 1)
    return [Scope.whole(), Scope.document(docs[1].document_id), Scope.subtree(heading.metadata["element_id"])]


def test_terms_held_as_a_bit_mask_rank_exactly_as_an_array(samples_store, monkeypatch):
    store = samples_store
    questions = _questions()
    assert len(questions) >= 50 and any("의" in q or "은" in q for q in questions)  # Korean: prefix terms too
    vector = np.asarray(store.embeddings.embed_query("무게 weight"), dtype=np.float32)
    masked = {(q, i): fts_scored(store, q, vector, 20, scope) for q in questions for i, scope in
              enumerate(_scopes(store))}
    monkeypatch.setattr(retrieval_sql, "MASK_TERMS", 0)  # every statement holds the terms as an array
    found = 0
    for (q, i), hits in masked.items():
        as_array = fts_scored(store, q, vector, 20, _scopes(store)[i])
        assert [(h.element_id, s, h.distance) for h, s in hits] == \
               [(h.element_id, s, h.distance) for h, s in as_array], (q, i)
        found += bool(hits)
    assert found > 100


def test_a_question_of_more_terms_than_a_mask_holds_is_ranked_from_an_array(samples_store):
    store = samples_store
    words = [f"w{i}x" for i in range(retrieval_sql.MASK_TERMS + 10)]
    question = "Nova 24FL weight " + " ".join(words)
    vector = np.asarray(store.embeddings.embed_query(question), dtype=np.float32)
    hits = fts_scored(store, question, vector, 5)
    short = fts_scored(store, "Nova 24FL weight", vector, 5)
    assert [h.element_id for h, _ in hits] == [h.element_id for h, _ in short], "words no element holds change nothing"


def test_one_question_reads_a_repeated_vector_search_once_with_the_same_hits(samples_store):
    store = samples_store
    vector = np.asarray(store.embeddings.embed_query("How heavy is the Nova 24FL?"), dtype=np.float32)
    scope = _scopes(store)[2]
    asking = store.for_one_question()
    first = vector_search(asking, vector, 8, scope)
    assert len(asking.question_reads.vector_hits) == 1
    assert vector_search(asking, vector, 8, scope) == first == vector_search(store, vector, 8, scope)
    assert len(asking.question_reads.vector_hits) == 1, "read once"
    vector_search(asking, vector, 9, scope)
    vector_search(asking, vector, 8, Scope.whole())
    assert len(asking.question_reads.vector_hits) == 3, "another k or scope is another search"
    assert store.question_reads is None, "the store itself shares nothing between questions"


def test_the_size_read_with_the_term_counts_ranks_as_the_size_read_by_each_search(samples_store):
    store = samples_store
    vector = np.asarray(store.embeddings.embed_query("무게"), dtype=np.float32)
    for q in _questions()[:20]:
        asking = store.for_one_question()
        whole = fts_scored(asking, q, vector, 20)
        assert asking.question_reads.total == sum(d.n_elements for d in store.documents()) or not whole
        for scope in _scopes(store):
            assert fts_scored(asking, q, vector, 20, scope) == fts_scored(store, q, vector, 20, scope), q


@pytest.mark.parametrize("question", ["Nova 24FL의 무게는?", "What is the weight of the Nova 32UX stand?",
                                      "Which monitor is lighter, the Nova 24FL or the Nova 27QX?"])
def test_a_retrieval_finds_the_same_hits_with_its_reads_shared(samples_store, question):
    from core.retrieval.analysis import analyse
    from core.retrieval.pipeline import find_hits
    from core.retrieval.search import search_config
    from core.retrieval.stages import SearchContext

    store = samples_store
    vector = np.asarray(store.embeddings.embed_query(question), dtype=np.float32)
    config = search_config(None)
    shared = find_hits(SearchContext(store.for_one_question(), vector, 4, config, analyse(question)), Scope.whole())
    alone = find_hits(SearchContext(store, vector, 4, config, analyse(question)), Scope.whole())
    assert [(h.element_id, h.rank, h.distance) for h in shared.hits] == \
           [(h.element_id, h.rank, h.distance) for h in alone.hits]
    assert shared.notes == alone.notes
    assert len(shared.hits) == 4 and retrieve(store, RetrievalRequest(question, k=4, query_vector=vector)).hits
