"""The reader on the Korean tune corpora (issue 29, korean5): a row's identifier named by its words, a word placed by
its heading's name in the other script, a section the retrieval's scope chose named at half the question's words.
The similarities are those the USE embedder gave the same questions over the tune corpora."""

from __future__ import annotations

from core.answering import ExtractiveAnswerer
from core.retrieval import Context, ContextElement
from core.statements import Lexicon, terms

ENV = ("Kakao Moment MCP", "🔧 고급 (접이식)", "환경변수 전체 목록")


def element(n: int, role: str, category: str, text: str, path: tuple[str, ...], similarity: float | None = None,
            rank: int | None = None, parent: str | None = None) -> ContextElement:
    return ContextElement(f"e{n}", f"s{n}", role, category, text, "doc-1", path,
                          None if similarity is None else 1.0 - similarity, rank, parent_id=parent)


def context(*elements: ContextElement, named: tuple[str, ...] = (), lexicon: Lexicon = Lexicon()) -> Context:
    return Context("hierarchical", "", "", list(elements), 0, named=named, lexicon=lexicon)


def pairs(*found: tuple[str, str]) -> Lexicon:
    return Lexicon(tuple((terms(a), terms(b)) for a, b in found), tuple(b for _a, b in found))


def env_rows(lexicon: Lexicon) -> Context:
    # the LOG_DIR row is the closer by the embedder, and its description says 로그
    return context(
        element(0, "ancestor", "Title", ENV[0], ()),
        element(1, "ancestor", "Title", ENV[1], ENV[:1]),
        element(2, "ancestor", "Title", ENV[2], ENV[:2]),
        element(3, "ancestor", "Table", "| 변수 | 기본값 | 설명 |\n| --- | --- | --- |", ENV),
        element(4, "hit", "TableRow", "변수: KAKAO_MCP_LOG_LEVEL · 기본값: INFO · 설명: DEBUG / INFO / WARNING / ERROR",
                ENV, 0.175, 1, parent="e3"),
        element(5, "hit", "TableRow",
                "변수: KAKAO_MCP_LOG_DIR · 기본값: ~/.kakao-moment-mcp/logs · 설명: 파일 로그 경로", ENV, 0.475, 0,
                parent="e3"),
        lexicon=lexicon,
    )


def test_a_row_identifier_named_by_its_words_answers_over_its_neighbour() -> None:
    reader = ExtractiveAnswerer()
    question = "kakao moment mcp 로그 레벨 기본값 뭐야"
    answer = reader.complete(question, env_rows(pairs(("로그", "log"), ("레벨", "level"))))
    assert answer.splitlines()[0] == "KAKAO_MCP_LOG_LEVEL — 기본값: INFO"
    # in English, no lexicon needed: the words are the identifier's
    assert reader.complete("kakao moment mcp default log level?", env_rows(Lexicon())).splitlines()[0] \
        == "KAKAO_MCP_LOG_LEVEL — 기본값: INFO"


def test_a_row_whose_identifier_holds_a_word_not_asked_is_not_named() -> None:
    # "log directory" asks LOG_DIR: LOG_LEVEL's "level" is not asked, so it is no named row
    answer = ExtractiveAnswerer().complete("kakao moment mcp log dir default?", env_rows(Lexicon()))
    assert answer.splitlines()[0].startswith("KAKAO_MCP_LOG_DIR")


def license_page() -> Context:
    return context(
        element(0, "hit", "Title", "hwpx-kit", (), 0.347, 2),
        element(1, "hit", "NarrativeText", "License PyPI Python Claude Code Tests", ("hwpx-kit",), 0.380, 0),
        element(2, "hit", "Title", "라이선스", ("hwpx-kit",), 0.517, 1),
        element(3, "child", "NarrativeText", "Apache-2.0 · © 2026 6aneffy", ("hwpx-kit", "라이선스"), 0.153),
        lexicon=pairs(("license", "라이선스")),
    )


def test_a_word_asked_in_one_script_is_answered_under_its_heading_in_the_other() -> None:
    # the badge line holds the word "License"; the section named 라이선스 holds the license
    answer = ExtractiveAnswerer().complete("hwpx-kit license?", license_page())
    assert "Apache-2.0" in answer
    assert "From hwpx-kit › 라이선스:" in answer


QUOTE = ("2. 사용 설명 ⚙️", "2.2. 라이브러리 사용 📚", "2.2.2. 시세 조회")


def quote_section(named: tuple[str, ...]) -> Context:
    # the install line is the closer by the embedder: it shares the product's name with the question
    return context(
        element(0, "ancestor", "Title", QUOTE[0], ()),
        element(1, "ancestor", "Title", "2.1. 라이브러리 설치 📦", QUOTE[:1]),
        element(2, "hit", "CodeSnippet", "pip install python-kis", (QUOTE[0], "2.1. 라이브러리 설치 📦"), 0.425, 0),
        element(3, "ancestor", "Title", QUOTE[1], QUOTE[:1]),
        element(4, "ancestor", "Title", QUOTE[2], QUOTE[:2]),
        element(5, "hit", "NarrativeText",
                "`stock.quote()` 함수를 이용하여 국내주식 및 해외주식의 시세를 조회할 수 있습니다.", QUOTE, 0.083, 1),
        named=named,
    )


def test_the_section_the_scope_chose_and_the_question_names_whole_answers() -> None:
    reader = ExtractiveAnswerer()
    answer = reader.complete("python-kis 시세 조회는 무슨 함수로 해요?", quote_section((QUOTE[2],)))
    assert "stock.quote()" in answer
    # the question naming half its words is no named section by itself: the scope's agreement makes it one
    unscoped = reader.complete("python-kis 시세 조회는 무슨 함수로 해요?", quote_section(()))
    assert "pip install python-kis" in unscoped
