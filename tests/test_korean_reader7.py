"""Korean API pages asked the way people type (issues 29 and 31, korean7): a parameter written with its particle
("svcAmt는"), a bank code read in its column ("은행코드 005는 어느 은행이고 그 은행 운영시간은"), and a question that
says how many things it asks for ("필수 환경변수 두 개"). Real Postgres, the product's embedder."""

from __future__ import annotations

import pytest

from core.answering.parts import asked_count
from core.retrieval.named_rows import code_label, states_other_codes
from core.textnorm import without_particle
from tests.helpers_context import answer_of, ingested_store

BANKS = ["기업은행", "KB국민은행", "KEB하나은행(구 외환은행)", "수협은행", "농협은행", "지역농축협", "우리은행",
         "SC제일은행", "한국씨티은행", "대구은행", "부산은행", "광주은행", "제주은행", "전북은행", "경남은행",
         "새마을금고", "신협", "우체국", "신한은행", "케이뱅크", "카카오뱅크", "토스뱅크"]
CODES = ["003", "004", "005", "007", "011", "012", "020", "023", "027", "031", "032", "034", "035", "037", "039",
         "045", "048", "071", "088", "089", "090", "092"]
# the parameters of an API page: many sections of one shape, so the vector alone does not single one out
PARAMETERS = [("mchtId", "상점아이디"), ("transNo", "거래번호"), ("amt", "공급가액"), ("vat", "부가세"),
              ("svcAmt", "봉사료"), ("bizRegNo", "사업자번호"), ("identityGb", "현금영수증 등록번호 구분"),
              ("identity", "현금영수증 등록번호"), ("purpose", "용도 구분"), ("prdtNm", "상품명"),
              ("custNm", "고객명"), ("email", "이메일")]


def _table(header: str, rows: list[str]) -> str:
    return "\n".join([header, *rows])


GUIDE = {
    "bank-codes.md": "# 금융회사 코드\n\n가상계좌 발급에 쓰는 금융회사 코드입니다.\n\n## 코드표\n\n"
                     + _table("| 코드 | 금융회사 |\n| --- | --- |",
                              [f"| {c} | {b} |" for c, b in zip(CODES, BANKS, strict=True)]),
    # rows of other codes that share the question's words ("은행코드", "은행"), two banks a row as such tables are
    "message.md": "# 전문 공통부\n\n가상계좌 전문의 공통 항목입니다.\n\n## 자동취소\n\n자동취소 지원 은행입니다.\n\n"
                  + _table("| 은행코드 | 은행명 | 은행코드 | 은행명 |\n| --- | --- | --- | --- |",
                           [f"| {CODES[i]} | {BANKS[i]} | {CODES[i + 1]} | {BANKS[i + 1]} |" for i in range(6, 20, 2)])
                  + "\n\n## 전문전송방식구분\n\n" + _table("| 은행코드 | 은행명 |\n| --- | --- |",
                                                       [f"| {c} | {b} |" for c, b in zip(CODES[6:], BANKS[6:],
                                                                                          strict=True)]),
    "bank-hours.md": """\
# 은행 운영 및 점검시간

가상계좌 입금 가능 여부는 은행 운영시간과 점검 상황에 따라 달라질 수 있습니다.

## 참고 시간표

| 은행 | 운영시간 | 정기점검 시간 |
| --- | --- | --- |
| KB국민은행 | 00:10~23:40 | 매월 셋째 주 일요일 00:00~06:00 |
| KEB하나은행 | 00:06~23:35 | 정해진 정기점검 없음 |
| 우리은행 | 00:15~23:25 | 매월 둘째 주 일요일 02:00~06:00 |
| 농협은행 | 00:30~23:30 | 매월 셋째 주 월요일 00:00~04:00 |
""",
    "register.md": "# 현금영수증 등록 API\n\n현금영수증을 국세청에 등록하는 API입니다.\n\n## 요청 파라미터\n\n"
                   + "\n".join(f"### {name}\n- **타입**: AN(20)\n- **설명**: {what}\n" for name, what in PARAMETERS),
    "flow.md": """\
# 전체 연동 플로우

## 타임아웃 처리

결제승인 API에서 타임아웃(35초)이 발생한 경우, 아래 순서로 처리합니다.
""",
    "env.md": """\
# Quote Kit

## 환경변수 설정

| 변수명 | 필수 여부 | 설명 |
| --- | --- | --- |
| QK_ID | 필수 | 회원 로그인 ID |
| QK_PW | 필수 | 회원 로그인 비밀번호 |
| QK_CACHE | 선택 | 캐시 폴더 경로 |
""",
}


@pytest.fixture(scope="module")
def bank_store(db_url, tmp_path_factory):
    store = ingested_store(db_url, tmp_path_factory.mktemp("banks"), GUIDE)
    yield store
    store.drop()


def test_a_parameter_written_with_its_particle_is_searched_as_its_word(bank_store):
    # "svcAmt는" is one lexeme to Postgres's parser; the heading "### svcAmt" holds "svcamt"
    answer = answer_of(bank_store, "현금영수증 등록 API에서 svcAmt는 뭐야?")
    assert "봉사료" in answer
    assert "등록번호" not in answer.split("\n")[0]


def test_a_bank_code_read_in_its_column_answers_with_its_row_and_bridges_to_the_hours(bank_store):
    first = answer_of(bank_store, "가상계좌 은행코드 005는 어느 은행?")
    assert "KEB하나은행" in first
    assert "우리은행" not in first  # "은행코드: 020 · 은행명: 우리은행" shares more words, and states another code
    both = answer_of(bank_store, "가상계좌 은행코드 005는 어느 은행이고 그 은행 운영시간은 몇시부터 몇시까지야?")
    assert "KEB하나은행" in both and "00:06~23:35" in both


def test_a_question_saying_how_many_it_asks_quotes_that_many_rows(bank_store):
    answer = answer_of(bank_store, "quote kit 필수 환경변수 두 개 뭐예요?")
    assert "QK_ID" in answer and "QK_PW" in answer
    assert "QK_CACHE" not in answer


def test_without_particle_cuts_only_a_particle_after_a_latin_or_number_word():
    assert without_particle("svcamt는") == "svcamt"
    assert without_particle("005는") == "005"
    assert without_particle("api에서") == "api"
    assert without_particle("kb국민은행") == "kb국민은행"  # a compound's Korean noun stays
    assert without_particle("현금영수증은") == "현금영수증은"  # a Korean word is the analyser's, not this
    assert without_particle("svcamt") == "svcamt"


def test_asked_count_reads_a_number_of_things_not_how_many_nor_an_ordinal():
    assert asked_count("필수 환경변수 두 개 뭐예요?") == 2
    assert asked_count("지원 시장 세 가지는?") == 3
    assert asked_count("what are the two required variables?") == 2
    assert asked_count("자동재처리 되는 오류코드는 몇 개야?") == 0
    assert asked_count("두 번째 파라미터는?") == 0


def test_the_word_before_a_code_is_its_column_and_other_codes_rows_are_neighbours():
    assert code_label("가상계좌 은행코드 005는 어느 은행?", "005") == "은행코드"
    assert code_label("가상계좌 은행코드 005는 어느 은행?", "020") == ""
    assert code_label("국민은행 운영시간?", "국민은행") == ""  # a name, no code
    named = frozenset({"005"})
    assert states_other_codes("은행코드: 020 · 은행명: 우리은행", named)
    assert not states_other_codes("코드: 004 · 금융회사: 국민은행 · 코드: 005 · 금융회사: 외환은행", named)
    assert not states_other_codes("은행: 우리은행 · 운영시간: 00:15~23:25", named)
    assert not states_other_codes("은행코드: 020 · 은행명: 우리은행", frozenset())
