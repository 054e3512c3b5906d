"""The reader picks the unit that answers (issue 29): the row of the thing the question spells, not its neighbour in
the same named table; asked what a thing is, its description item, not its type or example. The similarities are
those the USE embedder gave the same question over the Korean tune corpora."""

from __future__ import annotations

from core.answering import ExtractiveAnswerer
from core.retrieval import Context, ContextElement

TABLE = ("Kakao Moment MCP", "🔧 고급 (접이식)", "환경변수 전체 목록")
API = ("현금영수증 등록 API", "요청 파라미터", "svcAmt")


def element(n: int, role: str, category: str, text: str, path: tuple[str, ...], similarity: float | None = None,
            rank: int | None = None, parent: str | None = None) -> ContextElement:
    return ContextElement(f"e{n}", f"s{n}", role, category, text, "doc-1", path,
                          None if similarity is None else 1.0 - similarity, rank, parent_id=parent)


def context(*elements: ContextElement) -> Context:
    return Context("hierarchical", "", "", list(elements), 0)


def env_table() -> Context:
    # the neighbour's row is the closer by the embedder (its path holds the product's name the question adds)
    return context(
        element(0, "ancestor", "Title", TABLE[0], ()),
        element(1, "ancestor", "Title", TABLE[1], TABLE[:1]),
        element(2, "ancestor", "Title", TABLE[2], TABLE[:2]),
        element(3, "ancestor", "Table", "| 변수 | 기본값 | 설명 |\n| --- | --- | --- |", TABLE),
        element(4, "hit", "TableRow", "변수: KAKAO_MCP_LOG_LEVEL · 기본값: INFO · 설명: DEBUG / INFO / WARNING / ERROR",
                TABLE, 0.333, 1, parent="e3"),
        element(5, "hit", "TableRow",
                "변수: KAKAO_MCP_LOG_DIR · 기본값: ~/.kakao-moment-mcp/logs · 설명: 파일 로그 경로",
                TABLE, 0.591, 0, parent="e3"),
    )


def test_the_row_whose_key_the_question_spells_beats_its_neighbour_in_the_named_table() -> None:
    answer = ExtractiveAnswerer().complete("KAKAO_MCP_LOG_LEVEL 설명 뭐예요? (kakao-moment-mcp 환경변수 전체 목록)",
                                           env_table())
    assert answer.splitlines()[0] == "KAKAO_MCP_LOG_LEVEL — 설명: DEBUG / INFO / WARNING / ERROR"


def test_a_question_naming_no_row_keeps_the_closer_row_of_the_named_table() -> None:
    # no row is spelled: both rows are the named table's, measured as before
    answer = ExtractiveAnswerer().complete("kakao-moment-mcp 환경변수 전체 목록 로그 경로 설명", env_table())
    assert "KAKAO_MCP_LOG_DIR" in answer.splitlines()[0]


def items() -> Context:
    # the type and example items are the closer by the embedder; none of the three keys is a word of the question
    return context(
        element(0, "ancestor", "Title", API[0], ()),
        element(1, "ancestor", "Title", API[1], API[:1]),
        element(2, "ancestor", "Title", API[2], API[:2]),
        element(3, "hit", "ListItem", "타입: N(10)", API, 0.077, 0),
        element(4, "hit", "ListItem", "예시: 0", API, 0.016, 1),
        element(5, "hit", "ListItem", "설명: 봉사료", API, -0.007, 2),
    )


def test_asked_what_a_parameter_is_its_description_item_answers() -> None:
    reader = ExtractiveAnswerer()
    assert reader.complete("현금영수증 등록 api svcAmt 파라미터가 뭐야?", items()).splitlines()[0] == "설명: 봉사료"
    assert reader.complete("what is svcAmt in the cash receipt api?", items()).splitlines()[0] == "설명: 봉사료"


def test_a_question_naming_a_key_or_asking_no_what_keeps_that_key() -> None:
    reader = ExtractiveAnswerer()
    assert reader.complete("svcAmt 타입이 뭐야?", items()).splitlines()[0] == "타입: N(10)"
    assert reader.complete("svcAmt 예시 값 알려줘", items()).splitlines()[0] == "예시: 0"
