"""The row the question names by its key (issue 29, definitions above mentions): a hit row gives its place to the
row of its table that the question names, and a row named by a key that pins one thing down is found anywhere in
the collection. Real Postgres, real USE embeddings."""

from __future__ import annotations

import pytest

from core.ingest import ingest_paths
from core.retrieval import RetrievalRequest, retrieve
from core.retrieval.analysis import analyse
from core.retrieval.hits import Hit
from core.retrieval.named_rows import named_row_hit, named_rows, row_key, writes_key
from core.retrieval.search import embed_query
from core.retrieval.stages import ContextConfig, current_stages, using

PAGE = """# 입금 및 취소

가상계좌 입금과 그 취소를 처리하는 전문입니다.

## 거래 코드

| 구분 | 요구 | 응답 | 설명 |
| --- | --- | --- | --- |
| 입금이체 | 3000 | 3100 | 입금 통지 |
| 입금이체 Retry | 3001 | 3101 | 3000 응답 미수신 재요청 |
| 입금이체 취소 | 4000 | 4100 | 3000 계열 원거래 취소 |

## 요청결과 코드

| 코드 | 설명 |
| --- | --- |
| 1000 | 가맹점이 아님 |
| 2000 | 상점ID 오류 |
| TSJ | 취소거래 중복 |
"""

GUIDE = """# 실입금자명 결번요청

입금자명을 다시 받아야 할 때 요청합니다. 조회는 하루 한 번 할 수 있어요.

## 지원 범위

| 항목 | 내용 |
| --- | --- |
| 조회 가능 기간 | 요청일 기준 7일 전 거래까지 |
| 조회 | 결번 목록 |
"""


@pytest.fixture
def payments(store, tmp_path):
    (tmp_path / "deposit.md").write_text(PAGE, encoding="utf-8")
    (tmp_path / "missing.md").write_text(GUIDE, encoding="utf-8")
    report = ingest_paths(store, [tmp_path])
    assert not report.errors, report.errors
    return store


def _rows(store) -> dict[str, Hit]:
    rows = [e for d in store.documents() for e in store.elements(d.document_id) if e.category == "TableRow"]
    return {row_key(e.text): Hit(e, 0, 0.5) for e in rows}


@pytest.mark.parametrize("question, key, named", [
    ("입금이체 취소 설명은 뭐예요?", "입금이체 취소", True),
    ("입금이체 취소 설명은 뭐예요?", "입금이체 Retry", False),
    ("현금영수증 취소 API에서 2000의 설명 알려줘", "2000", True),
    ("what does error TSJ mean?", "TSJ", True),
    ("what does error TSJ mean?", "TS", False),  # a code is named as written, not as a part of another
    ("what does error -2 mean?", "2", False),
    ("Y의 방식", "Y", True),
    ("why is the y axis flat?", "Y", False),  # a one-letter code only in its own case
])
def test_a_row_key_is_named_as_the_question_writes_it(question: str, key: str, named: bool) -> None:
    assert writes_key(question, analyse(question).terms, key) is named


def test_a_hit_row_gives_its_place_to_the_row_of_its_table_the_question_names(payments) -> None:
    rows = _rows(payments)
    question = "가상계좌 입금 및 취소 입금이체 취소 설명은 뭐예요?"
    vector = embed_query(payments, question)
    hits, notes = named_rows(payments, [rows["입금이체 Retry"], rows["2000"]], question, analyse(question).terms,
                             vector)
    assert [row_key(h.element.text) for h in hits] == ["입금이체 취소", "2000"]
    assert [h.rank for h in hits] == [0, 0] and "입금이체 취소" in notes[0]
    # a hit row the question names keeps its place, and so does a row whose table holds no row it names
    kept, moved = named_rows(payments, [rows["입금이체 취소"], rows["1000"]], question, analyse(question).terms,
                             vector)
    assert [row_key(h.element.text) for h in kept] == ["입금이체 취소", "1000"] and not moved


def test_a_row_named_by_a_key_that_pins_one_thing_takes_the_last_place(payments) -> None:
    rows = _rows(payments)
    question = "what's the description for 조회 가능 기간 in the virtual account docs"
    vector = embed_query(payments, question)
    paragraph = next(Hit(e, 1, 0.6) for d in payments.documents() for e in payments.elements(d.document_id)
                     if e.category == "NarrativeText")
    hits, notes = named_row_hit(payments, [rows["1000"], paragraph], question, analyse(question).terms, vector, 8)
    assert [row_key(h.element.text) for h in hits] == ["1000", "조회 가능 기간"] and hits[1].rank == 1 and notes
    # one plain word ("조회") names a row of many tables: it pins nothing
    plain = "조회 가능한가요?"
    same, none = named_row_hit(payments, [paragraph], plain, analyse(plain).terms, embed_query(payments, plain), 8)
    assert same == [paragraph] and not none


def test_retrieve_brings_the_named_row_and_the_stage_switch_turns_it_off(payments) -> None:
    question = "가상계좌 입금 및 취소 입금이체 취소 설명은 뭐예요?"
    found = retrieve(payments, RetrievalRequest(question, k=2))
    assert "입금이체 취소" in {row_key(h.element.text) for h in found.hits if h.element.category == "TableRow"}
    with using(current_stages().but(context=ContextConfig(named_rows=False))):
        off = retrieve(payments, RetrievalRequest(question, k=2))
    assert not any("names the row" in n for n in off.notes)



def test_a_question_asking_which_release_keeps_its_entries(payments, monkeypatch) -> None:
    # asked which release, the answer is a changelog entry: the named-row stage does not run for it
    from core.retrieval import named_rows

    def moved(*_args, **_kwargs):
        raise AssertionError("rows moved")

    monkeypatch.setattr(named_rows, "named_rows", moved)
    retrieve(payments, RetrievalRequest("in what release did 조회 가능 기간 change?", k=2))
    with pytest.raises(AssertionError, match="rows moved"):
        retrieve(payments, RetrievalRequest("what is 조회 가능 기간?", k=2))


def test_row_key_named_counts_no_question_whose_answer_is_a_row_key(samples_store) -> None:
    # "Which color mode uses gamma 2.6?" → "DCI-P3", itself a row's key: another row holding "DCI-P3 98%" in a cell
    # ("Display P3") is not the row asked about, and was counted as the key the answer should name
    from core.evaluation import load_questions

    from .conftest import ROOT
    from .helpers_bench import bench_module

    questions = [q for q in load_questions(ROOT / "data" / "questions.json").questions if q.id == "q21"]
    assert questions and questions[0].answers[0] == "DCI-P3"
    assert bench_module("bench_eval").gold_row_keys(samples_store, questions) == {}
