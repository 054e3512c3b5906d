"""What one question costs (issue 29, items 4 and 7): the SQL searches a comparative question sends, the pooled
connections a question takes, and that each text of a question is parsed once. Real Postgres, the sample corpus,
the product's embedder."""

from __future__ import annotations

from collections import Counter

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
