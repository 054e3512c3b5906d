"""The reader on a lead-in sentence and the items after it as one unit (issue 29, docs/lead-in-units.md): the
sentence holds the words of its value-stating items and states a value through them, so a key : value item from
another list no longer outranks the sentence whose own clause answers."""

from __future__ import annotations

from core.answering import ExtractiveAnswerer
from core.answering.extractive import score_evidence
from core.retrieval import Context, ContextElement


def element(n: int, role: str, category: str, text: str, similarity: float | None = None,
            rank: int | None = None) -> ContextElement:
    return ContextElement(f"e{n}", f"s{n}", role, category, text, "contributing", (),
                          None if similarity is None else 1.0 - similarity, rank)


LEAD_IN = "Integration 테스트는 vcrpy를 사용하여 HTTP 요청을 녹화/재생합니다:"


def _context(mode: str = "hierarchical") -> Context:
    return Context(mode, "", "", [
        element(0, "hit", "ListItem", "tests/cassettes/: HTTP 요청/응답이 녹화된 YAML 파일들", 0.43, 3),
        element(1, "hit", "CodeSnippet", "pytest -v  # integration 테스트 실행", 0.46, 2),
        element(2, "hit", "NarrativeText", LEAD_IN, 0.67, 0),
        element(3, "hit", "ListItem", "첫 실행: 실제 HTTP 요청 발생 → tests/cassettes/에 녹화", 0.56, 1),
    ], 0)


QUESTION = "pykrx 통합 테스트는 HTTP 요청을 어떻게 녹화하나요?"


def test_the_lead_in_read_with_its_items_answers_over_a_key_value_item_of_another_list() -> None:
    answer = ExtractiveAnswerer().complete(QUESTION, _context())
    assert "vcrpy" in answer and "첫 실행" in answer and "[e:s2]" in answer
    assert "YAML 파일들" not in answer


def test_a_plain_context_has_no_units_and_the_sentence_scores_alone() -> None:
    # a plain context is in rank order: nothing there follows a sentence, so it holds no item's words
    hierarchical = {e.element.element_id: e for e in score_evidence(QUESTION, _context())}
    plain = {e.element.element_id: e for e in score_evidence(QUESTION, _context("plain"))}
    assert plain["e2"].score < hierarchical["e2"].score
    assert plain["e3"].score == hierarchical["e3"].score


def test_a_unit_too_long_to_quote_whole_keeps_its_best_item() -> None:
    # the item that answers is the last of a long list: the quote is the sentence and that item, not a clipped list
    steps = [f"단계 {n}: 설정 파일의 항목 {n}번을 확인하고 필요하면 기본값으로 되돌린 다음 다시 실행합니다"
             for n in range(1, 6)]
    ctx = Context("hierarchical", "", "", [
        element(0, "hit", "ListItem", "tests/cassettes/: HTTP 요청/응답이 녹화된 YAML 파일들", 0.43, 3),
        element(2, "hit", "NarrativeText", LEAD_IN, 0.67, 0),
        *(element(10 + n, "child", "ListItem", step, 0.2) for n, step in enumerate(steps)),
        element(3, "hit", "ListItem", "첫 실행: 실제 HTTP 요청 발생 → tests/cassettes/에 녹화", 0.56, 1),
    ], 0)
    answer = ExtractiveAnswerer().complete(QUESTION, ctx)
    assert "vcrpy" in answer and "첫 실행: 실제 HTTP 요청 발생" in answer and "단계 1" not in answer
