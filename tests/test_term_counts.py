"""The stored term counts behind full-text IDF (``core.sql.terms``) and the common-terms rule that keeps common words
out of the candidate scan (``core.retrieval.search.scanned_terms``). Guards: the counts equal a recount from the
elements after every kind of write, a collection made before them is counted when the store opens it, pruning leaves
the gold questions' top hits on the samples as they were, and a question asked twice gets byte-identical contexts.
Real Postgres; the hash embedder where the model is not under test."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from core.ingest import SourceFile, ingest, ingest_paths
from core.retrieval import RetrievalRequest, retrieve
from core.retrieval.search import fts_scored, scanned_terms
from core.store import ElementStore
from tests.helpers_embeddings import HashEmbeddings

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "data" / "samples"

WITH_COMMENT = b"# Nova 24FL\n\n<!-- history: added in v2 -->\n\n## Ports\n\n* USB-C : 65 W\n* HDMI : 2.0\n"



def _assert_counts_match(store: ElementStore) -> dict[str, int]:
    stored = store.stored_term_counts()
    assert stored == store.stored_term_counts(recount=True)
    return stored


def test_term_counts_equal_a_recount_after_ingest_replace_remove_and_drop(hash_store, db_url):
    store = hash_store
    report = ingest_paths(store, [SAMPLES])
    assert not report.errors, report.errors
    stored = _assert_counts_match(store)
    assert stored["nova"] > 10 and all(n > 0 for n in stored.values())

    ingest(store, [SourceFile("notes.md", data=WITH_COMMENT)])
    stored = _assert_counts_match(store)
    assert "history" not in stored  # the comment is metadata: never searched by default, never counted

    # The same document again with other words: its old lexemes are counted out, the new ones in.
    ingest(store, [SourceFile("notes.md", data=WITH_COMMENT.replace(b"HDMI", b"Zorblax"))])
    stored = _assert_counts_match(store)
    assert stored["zorblax"] == 1 and "hdmi" in stored  # HDMI is in the samples too
    before = stored["hdmi"]

    (notes,) = store.find_documents("notes.md")
    assert store.write.remove_document(notes.document_id)
    stored = _assert_counts_match(store)
    assert "zorblax" not in stored and stored["hdmi"] == before

    for record in store.documents():
        store.write.remove_document(record.document_id)
    assert store.stored_term_counts() == {}

    ingest(store, [SourceFile("notes.md", data=WITH_COMMENT)])
    collection_id = store.collection_id
    store.drop()
    with store.pool.connection() as conn:
        left = conn.execute("SELECT count(*) FROM hke_term_counts WHERE collection_id = %s", (collection_id,))
        assert left.fetchone()[0] == 0


def test_a_collection_without_counts_is_counted_when_opened_not_by_a_question(hash_store):
    store = hash_store
    ingest(store, [SourceFile("notes.md", data=WITH_COMMENT)])
    vector = np.asarray(store.embeddings.embed_query("q"), dtype=np.float32)
    counted = [h.element_id for h, _ in fts_scored(store, "Which USB-C port?", vector, 4)]
    with store.pool.connection() as conn:  # what a collection made before the counts (or migrated) looks like
        conn.execute("DELETE FROM hke_term_counts WHERE collection_id = %s", (store.collection_id,))
        conn.execute("DELETE FROM hke_term_state WHERE collection_id = %s", (store.collection_id,))
    first = [h.element_id for h, _ in fts_scored(store, "Which USB-C port?", vector, 4)]
    assert first == counted  # answered by reading every term's elements
    assert store.stored_term_counts() == {}, "a question only reads"
    reopened = ElementStore(store.url, store.collection, HashEmbeddings(), create=False)
    assert _assert_counts_match(reopened)["usb-c"] == 1
    assert [h.element_id for h, _ in fts_scored(reopened, "Which USB-C port?", vector, 4)] == first


def test_common_terms_score_but_do_not_scan():
    # 100,000 elements: a word every element holds, one in 3 %, one in 0.5 %, a model code in 40, an unknown word.
    counts = [100_000, 3_000, 500, 40, 0]
    assert scanned_terms(counts, 100_000) == [False, False, True, True, False]
    # Every word common: the rarest alone finds the candidates.
    assert scanned_terms([100_000, 3_000], 100_000) == [False, True]
    assert scanned_terms([0, 0], 100_000) == [False, False]
    # A small collection scans every word it holds (below the floor a scan is cheap).
    assert scanned_terms([799, 400, 0], 799) == [True, True, False]
    assert scanned_terms([799, 400], 799, share=0.1, floor=0) == [False, True]


def _gold_questions() -> list[str]:
    data = json.loads((ROOT / "data" / "questions.json").read_text(encoding="utf-8"))
    return [q["question"] for q in data["questions"]]


def test_pruning_common_terms_keeps_the_gold_questions_top_hits_on_the_samples(hash_store):
    store = hash_store
    assert not ingest_paths(store, [SAMPLES]).errors
    vector = np.asarray(store.embeddings.embed_query("q"), dtype=np.float32)
    same_first = same_top = pruned_any = 0
    worst = 0.0
    questions = _gold_questions()
    for question in questions:
        every = fts_scored(store, question, vector, 4, common_floor=10**9, common_share=1.0)
        # Forced onto the small corpus: words in more than 5 % of its elements stop finding candidates.
        pruned = fts_scored(store, question, vector, 4, common_floor=0, common_share=0.05)
        longer = fts_scored(store, question, vector, 8)
        for (a, score_a), (b, score_b) in zip(longer, longer[1:], strict=False):  # equal sums tie, by element id
            assert score_a - score_b == 0 or score_a - score_b > 1e-9, (question, score_a, score_b)
            assert score_a > score_b or a.element_id < b.element_id
        pruned_any += [h.element_id for h, _ in every] != [h.element_id for h, _ in pruned]
        if every and pruned and every[0][0].element_id == pruned[0][0].element_id:
            same_first += 1
        same_top += {h.element_id for h, _ in every} == {h.element_id for h, _ in pruned}
        # A candidate's score counts every word it holds, pruned or not; a pruned prefix term ('모니터':*) weighs
        # with the sum of its lexemes' counts, a little above its element count.
        full = {h.element_id: s for h, s in every}
        worst = max([worst, *(abs(s / full[h.element_id] - 1) for h, s in pruned if h.element_id in full)])
    print(f"pruned: {pruned_any} lists differ; same first hit {same_first}, same top-4 set {same_top} of "
          f"{len(questions)}; scores within {worst:.1%}")
    assert worst < 0.05
    assert same_first == len(questions), (same_first, same_top, pruned_any)
    assert same_top >= len(questions) - 3, (same_first, same_top, pruned_any)


def test_the_same_question_twice_gives_byte_identical_contexts(hash_store):
    store = hash_store
    # Near-twins: identical texts under different headings tie on distance and on full-text score.
    sheet = "".join(f"## Model {name}\n\n* Weight : 2.9 kg\n* Ports : USB-C, HDMI\n\n" for name in "ABCDEFGH")
    ingest(store, [SourceFile("twins.md", data=f"# Catalogue\n\n{sheet}".encode())])
    for question in ("What is the weight?", "Which ports does it have?", "Model C weight"):
        for search in ("vector", "fulltext", "hybrid"):
            first, second = (retrieve(store, RetrievalRequest(question, k=4, search=search)) for _ in range(2))
            assert [h.element_id for h in first.hits] == [h.element_id for h in second.hits]
            for a, b in ((first.plain, second.plain), (first.hierarchical, second.hierarchical)):
                assert a.text.encode() == b.text.encode()
                assert json.dumps([e.as_dict() for e in a.elements]) == json.dumps([e.as_dict() for e in b.elements])
