"""What one question keeps for the next (issue 29, item 7): the stored term counts read at a version of the
collection answer the next questions at that version, and a write (a new version) is read afresh; the lexemes of a
question's texts are read in one round trip. Real Postgres; the hash embedder (the model is not under test)."""

from __future__ import annotations

import psycopg

from core.ingest import SourceFile, ingest
from core.retrieval import RetrievalRequest, retrieve
from core.store import question_reads
from core.store import reader as reader_module

SHEET = b"# Nova 24FL\n\n## Specifications\n\n* Weight : 4.1 kg\n* HDMI : 2 ports\n\n## Warranty\n\nThree years.\n"
NEW_SHEET = b"# Nova 99ZB\n\n## Specifications\n\n* Weight : 7.3 kg\n* Zorblax : fitted\n"



def _sent(monkeypatch) -> list[str]:
    sent: list[str] = []
    original = psycopg.Cursor.execute

    def counted(cursor, query, *args, **kwargs):
        sent.append(" ".join(str(query).split()))
        return original(cursor, query, *args, **kwargs)

    monkeypatch.setattr(psycopg.Cursor, "execute", counted)
    return sent


def _term_count_reads(sent: list[str]) -> int:
    """Reads of the question's words' counts (the whole vocabulary, read for loanword pairs, is counted apart)."""
    return sum("FROM hke_term_counts" in s and not _is_vocabulary_read(s) for s in sent)


def _vocabulary_reads(sent: list[str]) -> int:
    return sum(_is_vocabulary_read(s) for s in sent)


def _is_vocabulary_read(statement: str) -> bool:
    return statement.startswith("SELECT lexeme, n_elements FROM hke_term_counts")


def test_term_counts_read_at_a_version_answer_the_next_question_and_a_write_is_read_afresh(hash_store, monkeypatch):
    store = hash_store
    ingest(store, [SourceFile("nova-24fl.md", data=SHEET)])
    sent = _sent(monkeypatch)
    retrieve(store, RetrievalRequest("What is the weight of the Nova 24FL?", k=4))
    assert _term_count_reads(sent) == 1
    assert _vocabulary_reads(sent) == 1, "the collection's words for loanword pairs: once per version"
    sent.clear()
    # other words, all of them read at this version already (a new text: its lexemes are read, its counts not)
    retrieve(store, RetrievalRequest("Nova 24FL weight?", k=4))
    assert _term_count_reads(sent) == 0, sent
    assert _vocabulary_reads(sent) == 0, sent
    # a word no element holds is counted 0 at this version: kept as such
    retrieve(store, RetrievalRequest("What is the zorblax of the Nova 24FL?", k=4))
    sent.clear()
    retrieve(store, RetrievalRequest("Which zorblax has the Nova 24FL?", k=4))
    assert _term_count_reads(sent) == 0, sent

    ingest(store, [SourceFile("nova-99zb.md", data=NEW_SHEET)])  # the next version holds the word
    sent.clear()
    result = retrieve(store, RetrievalRequest("Which zorblax has the Nova 24FL?", k=4))
    assert _term_count_reads(sent) == 1, "a write is a new version: its counts are read"
    assert _vocabulary_reads(sent) == 1, "and its words"
    assert any("Zorblax" in h.element.text for h in result.hits), [h.element.text for h in result.hits]


def test_kept_counts_rank_as_the_counts_read_now(hash_store):
    store = hash_store
    ingest(store, [SourceFile("nova-24fl.md", data=SHEET), SourceFile("nova-99zb.md", data=NEW_SHEET)])
    questions = ["What is the weight of the Nova 24FL?", "Nova 99ZB weight?", "Which Nova has HDMI ports?"]
    kept = [[h.element_id for h in retrieve(store, RetrievalRequest(q, k=4)).hits] for q in questions * 2]
    question_reads._TERM_COUNTS._values.clear()
    fresh = [[h.element_id for h in retrieve(store, RetrievalRequest(q, k=4)).hits] for q in questions]
    assert kept == fresh * 2


def test_the_lexemes_of_several_texts_are_read_in_one_round_trip_as_each_alone(hash_store, monkeypatch):
    store = hash_store
    ingest(store, [SourceFile("nova-24fl.md", data=SHEET)])
    texts = ["Nova 24FL의 무게는?", "What's the USB-C port's power (v2.9.1)?", "title_class NV-24FL"]
    alone = []
    for text in texts:
        reader_module._LEXEMES._values.pop((store.url, text), None)
        alone.append(store.read.question_lexemes(text))
        reader_module._LEXEMES._values.pop((store.url, text), None)
    sent = _sent(monkeypatch)
    store.read.read_lexemes(texts)
    assert len(sent) == 2  # the pool's connection check, then the one statement
    assert [store.read.question_lexemes(text) for text in texts] == alone
    assert len(sent) == 2, "then answered from memory"
