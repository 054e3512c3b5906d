"""The reader on Korean API pages (issue 29): the thing an element documents, named by the question, and a lead-in
read with what follows it."""

from __future__ import annotations

import uuid

from core.answering import ExtractiveAnswerer
from core.retrieval import Context, ContextElement

API = ("현금영수증 발급상태 조회 API", "요청 파라미터")


def element(n: int, role: str, category: str, text: str, path: tuple[str, ...], similarity: float | None = None,
            rank: int | None = None) -> ContextElement:
    return ContextElement(f"e{n}", f"s{n}", role, category, text, "doc-1", path,
                          None if similarity is None else 1.0 - similarity, rank)


def context(*elements: ContextElement) -> Context:
    return Context("hierarchical", "", "", list(elements), 0)


def test_the_item_under_the_option_heading_the_question_names_beats_a_closer_sibling() -> None:
    # the vector search finds the sibling's item closer; the question names "trDt", the heading above the other
    ctx = context(
        element(0, "ancestor", "Title", "현금영수증 발급상태 조회 API", ()),
        element(1, "ancestor", "Title", "요청 파라미터", API[:1]),
        element(2, "ancestor", "Title", "trDt", API),
        element(3, "hit", "ListItem", "**설명**: 발행/취소 요청일자 (yyyyMMddHHmmss)", (*API, "trDt"), 0.25, 1),
        element(4, "ancestor", "Title", "authNo", API),
        element(5, "hit", "ListItem", "**설명**: 발행/취소 시 응답받은 국세청 승인번호", (*API, "authNo"), 0.41, 0),
    )
    answer = ExtractiveAnswerer().complete("현금영수증 발급상태 조회 API에서 trDt 파라미터 설명 알려줘", ctx)
    assert answer.splitlines()[0] == "설명: 발행/취소 요청일자 (yyyyMMddHHmmss)"
    assert "› trDt:" in answer


def test_an_english_question_reads_the_korean_item_of_the_parameter_it_names() -> None:
    # "description" is no word of "설명": the item answers as a statement about the thing the question names, and
    # the multilingual embedder tells its key from a sibling's; a code object that happens to hold the English
    # word does not win
    ctx = context(
        element(0, "hit", "NarrativeText", "{ id: 'general', description: '간편현금결제' }", (), 0.27, 0),
        element(1, "ancestor", "Title", "현금영수증 발급상태 조회 API", ()),
        element(2, "ancestor", "Title", "요청 파라미터", API[:1]),
        element(3, "ancestor", "Title", "trDt", API),
        element(4, "hit", "ListItem", "**타입**: AN(14)", (*API, "trDt"), 0.05, 2),
        element(5, "hit", "ListItem", "**설명**: 발행/취소 요청일자 (yyyyMMddHHmmss)", (*API, "trDt"), 0.28, 1),
    )
    answer = ExtractiveAnswerer().complete("trDt description in the cash receipt api?", ctx)
    assert answer.splitlines()[0] == "설명: 발행/취소 요청일자 (yyyyMMddHHmmss)"


def test_the_row_whose_first_cell_the_question_names_beats_a_closer_row() -> None:
    path = ("은행 운영 및 점검시간", "참고 시간표")
    ctx = context(
        element(0, "ancestor", "Title", "은행 운영 및 점검시간", ()),
        element(1, "ancestor", "Title", "참고 시간표", path[:1]),
        element(2, "hit", "TableRow", "은행: 국민은행 · 운영시간: 00:10~23:40 · 정기점검 시간: 매월 셋째 주 일요일 "
                "00:00~06:00 · 비고: 00:00~00:50, 05:00~05:50 및 대외계 01:00~06:00 간헐적 거래 불가", path, 0.43, 1),
        element(3, "hit", "TableRow", "은행: KEB하나은행 · 운영시간: 00:06~23:35 · 정기점검 시간: 정해진 정기점검 없음",
                path, 0.67, 0),
    )
    answer = ExtractiveAnswerer().complete("국민은행 정기점검 시간? (가상계좌 은행 운영 및 점검시간)", ctx)
    assert answer.splitlines()[0] == "국민은행 — 정기점검 시간: 매월 셋째 주 일요일 00:00~06:00"


def test_a_lead_in_is_quoted_with_the_items_after_it() -> None:
    path = ("간편현금결제 API 연동 구조", "5. 정기 결제 API")
    ctx = context(
        element(0, "ancestor", "Title", path[0], ()),
        element(1, "ancestor", "Title", path[1], path[:1]),
        element(2, "hit", "NarrativeText", "정기 결제 관련 API는 다음과 같아요.", path, 0.45, 0),
        element(3, "child", "ListItem", "정기결제 승인", path, 0.19),
        element(4, "child", "ListItem", "정기결제 해지", path, 0.21),
        element(5, "child", "NarrativeText", "이 기능으로 구독형 결제를 구현할 수 있어요.", path, 0.25),
    )
    answer = ExtractiveAnswerer().complete("간편현금결제 정기 결제 관련 api 뭐가 있어?", ctx)
    assert "“정기 결제 관련 API는 다음과 같아요. · 정기결제 승인 · 정기결제 해지” [e:s2]" in answer
    assert "구독형" not in answer  # the section goes on after the list: that is not what the lead-in introduces


def test_a_code_block_ranked_first_is_quoted_after_the_paragraph_that_says_what_it_shows() -> None:
    path = ("Terminating Commands", "Configuring termination", "Timeout")
    ctx = context(
        element(0, "ancestor", "Title", path[0], ()),
        element(1, "hit", "NarrativeText", "In case you have a misbehaving process that ignores the kill signal, you "
                "can force kill it after some timeout (in milliseconds) by using the --kill-timeout flag.", path, 0.43,
                1),
        element(2, "hit", "CodeSnippet", "$ concurrently --kill-others --kill-timeout 1000 'sleep 1' './misbehaving'",
                path, 0.36, 0),
    )
    answer = ExtractiveAnswerer().complete("concurrently --kill-timeout unit?", ctx)
    assert "(in milliseconds) by using the --kill-timeout flag. $ concurrently --kill-others --kill-timeout 1000" \
        in answer
    assert answer.count("[e:") == 1 and "[e:s2]" in answer  # one unit, cited by the element that ranked first


def test_a_paragraph_ranked_first_is_quoted_with_the_code_it_introduces() -> None:
    path = ("PyKrx", "1 환경설정", "1.1 Installation")
    ctx = context(
        element(0, "ancestor", "Title", path[0], ()),
        element(1, "hit", "NarrativeText", "pykrx는 pip을 사용해서 쉽게 설치할 수 있습니다.", path, 0.61, 0),
        element(2, "child", "CodeSnippet", "pip install pykrx", path, 0.62),
        element(3, "hit", "NarrativeText", "pykrx는 증권시장의 주식 정보를 스크래핑 합니다.", path, 0.2, 1),
    )
    answer = ExtractiveAnswerer().complete("pykrx 설치 어떻게 해요?", ctx)
    assert "“pykrx는 pip을 사용해서 쉽게 설치할 수 있습니다. pip install pykrx” [e:s1]" in answer


def test_a_paragraph_stating_a_value_is_quoted_without_the_example_after_it() -> None:
    path = ("API", "pino([options])", "levelComparison")
    ctx = context(
        element(0, "ancestor", "Title", path[0], ()),
        element(1, "hit", "NarrativeText", "Default: ASC", path, 0.6, 0),
        element(2, "child", "CodeSnippet", "const logger = pino({ levelComparison: 'DESC' })", path, 0.3),
    )
    answer = ExtractiveAnswerer().complete("pino levelComparison default?", ctx)
    assert "“Default: ASC” [e:s1]" in answer and "DESC" not in answer


def test_code_is_no_unit_with_a_paragraph_of_another_section_or_a_plain_context() -> None:
    ctx = context(
        element(0, "hit", "NarrativeText", "pykrx는 pip을 사용해서 쉽게 설치할 수 있습니다.", ("A",), 0.61, 0),
        element(1, "child", "CodeSnippet", "pip install -e .[dev]", ("B",), 0.3),
    )
    assert "pip install -e" not in ExtractiveAnswerer().complete("pykrx 설치 어떻게 해요?", ctx)
    plain = Context("plain", "", "", [element(0, "hit", "NarrativeText", "Install it with pip:", (), 0.6, 0),
                                      element(1, "hit", "CodeSnippet", "pip install pykrx", (), 0.3, 1)], 0)
    answer = ExtractiveAnswerer().complete("how to install pykrx?", plain)
    assert not ("Install it with pip:" in answer and "pip install pykrx" in answer)  # rank order: no neighbours


LEAD_IN_DOC = """\
# 간편현금결제 API 연동 구조

간편현금결제 API는 인증, 계좌 등록, 결제, 거래 관리 순서로 구성돼요. 각 단계마다 여러 API가 있어요.

## 4. 결제 API

결제 관련 API는 결제를 요청하고 취소하는 기능을 제공해요. 결제 요청 API를 호출하면 계좌에서 금액을 출금해요.

## 5. 정기 결제 API

간편현금결제는 구독 서비스나 자동 결제 서비스에도 활용할 수 있어요.

정기 결제 관련 API는 다음과 같아요.

- 정기결제 승인
- 정기결제 해지
- 정기결제 정보 조회
"""


def test_a_lead_in_hit_brings_the_items_of_its_section_first(db_url, use_embeddings) -> None:
    from core.ingest import SourceFile, ingest
    from core.retrieval import Hit, embed_query, expand
    from core.store import ElementStore

    store = ElementStore(db_url, f"t_lead_{uuid.uuid4().hex[:8]}", use_embeddings)
    try:
        report = ingest(store, [SourceFile("api.md", LEAD_IN_DOC.encode())])
        assert not report.errors, report.errors
        elements = store.elements(store.documents()[0].document_id)
        top = next(e for e in elements if e.page_content == "간편현금결제 API 연동 구조")
        lead = next(e for e in elements if e.page_content.startswith("정기 결제 관련 API"))
        vector = embed_query(store, "간편현금결제 정기 결제 관련 api 뭐가 있어?")
        # the page's heading is the better hit and its section would spend the budget on the closest parts
        found, children, _ = expand(store, [Hit(top, 0, 0.2), Hit(lead, 1, 0.3)], children_budget=60,
                                    query_vector=vector)
        texts = [found[c].page_content for c in children]
        assert {"정기결제 승인", "정기결제 해지", "정기결제 정보 조회"} <= set(texts)
    finally:
        store.drop()
