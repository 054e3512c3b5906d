"""What one question costs (issue 29, items 4 and 7): the SQL searches a comparative question sends, the pooled
connections a question takes, and that each text of a question is parsed once. Real Postgres, the sample corpus,
the product's embedder."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from core import statements
from core.answering import ExtractiveAnswerer
from core.db.pool import pool_stats
from core.retrieval import RetrievalRequest, retrieve
from core.retrieval import analysis as analysis_module
from core.retrieval import entities as entities_module
from core.retrieval import headings as headings_module
from core.store import reader as reader_module

COMPARATIVE = [
    "Which monitor is lighter, the Nova 24FL or the Nova 27QX?",
    "Nova 24FL, Nova 27QX, Nova 34WC 중 스탠드 포함 무게가 가장 가벼운 모니터는?",
    "Compare the typical power consumption of the Nova 32UX and the Nova 27QX.",
    "Nova 24FL, Nova 27QX, Nova 34WC의 보증기간을 모두 알려 주세요",
]


def _entities(notes: list[str]) -> int:
    compared = [n for n in notes if n.startswith("compared ")]
    assert compared, notes
    return int(compared[0].split()[1])


@pytest.mark.parametrize("question", COMPARATIVE)
def test_a_comparative_question_sends_one_sql_search_per_entity_plus_one(samples_store, question, monkeypatch):
    sent: Counter[str] = Counter()
    sql = reader_module.retrieval_sql
    for name in ("vector_statement", "fulltext_statement"):
        original = getattr(sql, name)
        monkeypatch.setattr(sql, name, lambda *a, _o=original, _n=name, **k: sent.update([_n]) or _o(*a, **k))
    result = retrieve(samples_store, RetrievalRequest(question, k=4))
    entities = _entities(result.notes)
    assert entities >= 2
    # a hybrid search is one vector and one full-text statement; a repeated one is read once (QuestionReads)
    assert 0 < sent["vector_statement"] <= entities + 1, (sent, result.notes)
    assert 0 < sent["fulltext_statement"] <= entities + 1, (sent, result.notes)


@pytest.mark.parametrize("question", ["What is the weight of the Nova 32UX stand?", COMPARATIVE[0]])
def test_a_question_takes_one_pooled_connection(samples_store, question):
    retrieve(samples_store, RetrievalRequest(question, k=4))  # the heading index and the statements prepared
    before = pool_stats(samples_store.url).get("requests_num", 0)
    retrieve(samples_store, RetrievalRequest(question, k=4))
    assert pool_stats(samples_store.url).get("requests_num", 0) - before == 1, \
        "every read of one question is on the connection it holds (the pool tests each one it lends)"


@pytest.mark.parametrize("question", [
    "What is the weight of the Nova 32UX stand?",
    "Nova 24FL의 무게는?",
    "In the Nova docs, what does the 34WC use by default if I don't set a refresh rate?",
    *COMPARATIVE[:2],
])
def test_each_text_of_a_question_is_parsed_once(samples_store, question, monkeypatch):
    parsed: Counter[tuple[str, str]] = Counter()
    original = statements.without_default_phrases

    def counted(text: str, replacement: str = "") -> str:
        parsed[(text, replacement)] += 1
        return original(text, replacement)

    for module in (statements, analysis_module, headings_module, entities_module):
        monkeypatch.setattr(module, "without_default_phrases", counted, raising=False)
    result = retrieve(samples_store, RetrievalRequest(question, k=4))
    assert parsed, "the question is read through without_default_phrases"
    assert max(parsed.values()) == 1, [p for p, n in parsed.items() if n > 1]
    if result.analysis is not None and result.analysis.shape is None:
        # the question for its names, and for its terms and query; its rest for its terms when a preamble leads
        assert sum(parsed.values()) <= 3, parsed
    parsed.clear()
    ExtractiveAnswerer().complete(question, result.hierarchical)
    assert max(parsed.values(), default=1) == 1, parsed


# The statements a default question sends when its texts were read before: the pool's connection check, the heading
# index's state (once per question, however many stages read the index), the whole collection's vector search and
# full-text search (its term counts were read at this version of the collection by the first ask), the scope's probe
# (its vector and full-text search) and, where the probe finds no statement of the attribute, its lookup (full text; the
# vector search is the probe's, kept), the expansion and the versions read. The named-row stage
# (core.retrieval.named_rows) adds none here: its full-text lookup of a row the question names is the whole collection's
# search read again with a smaller k, answered from the question's reads.
# A statement added fails here.
@pytest.mark.parametrize(("question", "statements"), [
    ("What is the weight of the Nova 32UX stand?", 8),
    ("How do I reset the monitor to factory settings?", 9),
])
def test_a_default_question_sends_at_most_this_many_statements(samples_store, question, statements, monkeypatch):
    import psycopg

    retrieve(samples_store, RetrievalRequest(question, k=4))
    sent: list[str] = []
    original = psycopg.Cursor.execute

    def counted(cursor, query, *args, **kwargs):
        sent.append(" ".join(str(query).split())[:70])
        return original(cursor, query, *args, **kwargs)

    monkeypatch.setattr(psycopg.Cursor, "execute", counted)
    result = retrieve(samples_store, RetrievalRequest(question, k=4))
    assert result.heading_match is not None, result.notes  # the scoped path: its probes are counted too
    assert 0 < len(sent) <= statements, sent


def test_a_question_asked_again_is_not_embedded_again(samples_store):
    from core.retrieval.search import embed_query

    question = "How long is the warranty of the Nova 27QX? (asked twice)"
    before = samples_store.embeddings.calls
    first = embed_query(samples_store, question)
    second = embed_query(samples_store, question)
    assert samples_store.embeddings.calls - before == 1
    assert second is first and not first.flags.writeable  # one vector, shared read-only
    assert np.array_equal(first, np.asarray(samples_store.embeddings.embed_query(question), dtype=np.float32))
    embed_query(samples_store, question + " ")  # another text is embedded
    assert samples_store.embeddings.calls - before == 3


def test_a_remote_or_test_embedder_is_always_called(samples_store):
    from core.retrieval.search import embed_query
    from core.store import ElementStore
    from tests.helpers_embeddings import HashEmbeddings

    store = ElementStore.__new__(ElementStore)  # only .embeddings is read
    store.embeddings = HashEmbeddings()
    embed_query(store, "a question")
    embed_query(store, "a question")
    assert store.embeddings.calls == 2


def test_jsonb_is_read_alike_by_the_fast_parser_and_json():
    import json

    from core.db.pool import _json_loads

    values = ['{"source": "a.md", "start_line": 3, "x": [1.5, null, true, "\\u00e9\\ud55c"]}', '{"n": 1e400}',
              '{"big": 123456789012345678901234567890, "neg": -12345678901234567890}', '{"id": "1234567890123456789"}',
              '[]', '"text"']
    for text in values:
        for data in (text, text.encode(), memoryview(text.encode())):
            assert _json_loads(data) == json.loads(text), text


def test_a_full_text_search_read_again_with_a_smaller_k_is_the_first_rows_of_the_read(samples_store, monkeypatch):
    import psycopg

    from core.retrieval.search import embed_query, fts_scored

    question = "What is the refresh rate of the Nova 27QX over HDMI?"
    vector = embed_query(samples_store, question)
    fresh = [(h.element_id, score) for h, score in fts_scored(samples_store, question, vector, 3)]
    sent: list[str] = []
    original = psycopg.Cursor.execute
    monkeypatch.setattr(psycopg.Cursor, "execute",
                        lambda cursor, query, *a, **k: sent.append(str(query)) or original(cursor, query, *a, **k))
    with samples_store.one_question() as asking:
        wide = fts_scored(asking, question, vector, 20)
        read = len(sent)
        narrow = fts_scored(asking, question, vector, 3)
        assert len(sent) == read, "the same search with a smaller k is not sent again"
        wider = fts_scored(asking, question, vector, 30)
        assert len(sent) > read, "a larger k than was read is read"
    assert len(wide) > 3
    assert [(h.element_id, score) for h, score in narrow] == fresh
    assert [h.element_id for h, _ in wider][:20] == [h.element_id for h, _ in wide]


def test_a_comparative_question_reads_the_heading_state_once(samples_store, monkeypatch):
    import psycopg

    question = COMPARATIVE[1]
    retrieve(samples_store, RetrievalRequest(question, k=4))
    sent: list[str] = []
    original = psycopg.Cursor.execute
    monkeypatch.setattr(psycopg.Cursor, "execute",
                        lambda cursor, query, *a, **k: sent.append(str(query)) or original(cursor, query, *a, **k))
    result = retrieve(samples_store, RetrievalRequest(question, k=4))
    assert _entities(result.notes) >= 2
    assert sum("hke_heading_changes" in q for q in sent) == 1, "every stage reads the index the question brought " \
                                                              "up to date"
