"""The reader on a section as a unit (issue 29): a section whose heading the question names whole documents what is
asked, and an FAQ or named section's answer leads with its first paragraph (docs/heldout-reader6.md)."""

from __future__ import annotations

from core.answering import ExtractiveAnswerer
from core.retrieval import Context, ContextElement


def element(n: int, role: str, category: str, text: str, path: tuple[str, ...], similarity: float | None = None,
            rank: int | None = None, document: str = "doc-1") -> ContextElement:
    return ContextElement(f"e{n}", f"s{n}", role, category, text, document, path,
                          None if similarity is None else 1.0 - similarity, rank)


def context(*elements: ContextElement, named: tuple[str, ...] = ()) -> Context:
    return Context("hierarchical", "", "", list(elements), 0, named=named)


SHORTING = ("PyKrx", "2. API 설명", "2.1.3 공매도 API")


def test_the_section_whose_heading_the_question_names_answers_though_its_prose_says_it_in_other_words() -> None:
    # the question says 함수, the section's prose 메서드; a sibling section's prose says 함수 and is closer
    status, volume = (*SHORTING, "2.1.3.1 종목별 공매도 현황"), (*SHORTING, "2.1.3.3 일자별 공매도 거래 현황")
    ctx = context(
        element(0, "ancestor", "Title", "PyKrx", ()),
        element(1, "ancestor", "Title", "2.1.3 공매도 API", SHORTING[:2]),
        element(2, "hit", "Title", status[-1], SHORTING, 0.24, 2),
        element(3, "child", "NarrativeText", "get_shorting_status_by_date() 메서드는 시작일/종료일/티커 "
                "세 개의 파라미터를 입력받아 공매도 현황을 DataFrame으로 반환합니다.", status, 0.08),
        element(4, "child", "CodeSnippet", 'df = stock.get_shorting_status_by_date("20181210", "20181212", "005930")',
                status, -0.01),
        element(5, "ancestor", "Title", volume[-1], SHORTING),
        element(6, "hit", "NarrativeText", "get_shorting_volume_by_date() 함수는 입력받은 종목에 대해 "
                "주어진 기간 동안의 공매도 거래 정보를 반환합니다.", volume, 0.30, 0),
        named=("PyKrx",),
    )
    answer = ExtractiveAnswerer().complete("종목별 공매도 현황은 pykrx 무슨 함수로 하나요?", ctx)
    assert "get_shorting_status_by_date" in answer and "[e:s3]" in answer
    assert "get_shorting_volume_by_date" not in answer


def test_of_two_named_headings_the_one_naming_more_of_the_question_is_the_section_and_leads_with_its_prose() -> None:
    # "종목별 공매도 현황" is named whole too, but "종목별 공매도 잔고 현황" holds its words and more; in that section
    # the printed frame shares more words, the paragraph before it says which function prints it
    status, balance = (*SHORTING, "2.1.3.1 종목별 공매도 현황"), (*SHORTING, "2.1.3.6 종목별 공매도 잔고 현황")
    ctx = context(
        element(0, "ancestor", "Title", "PyKrx", ()),
        element(1, "ancestor", "Title", status[-1], SHORTING),
        element(2, "hit", "CodeSnippet", "공매도 잔고 공매도금액 잔고금액 20190401 154884 3403293", status,
                0.13, 0),
        element(3, "hit", "Title", balance[-1], SHORTING, 0.24, 1),
        element(4, "child", "NarrativeText", "get_shorting_balance_by_date 메서드는 시작일/종료일 두 개의 "
                "파라미터를 입력받아 해당 기간동안 공매도 잔고 정보를 DataFrame으로 반환합니다.", balance, 0.09),
        element(5, "hit", "CodeSnippet", 'df = stock.get_shorting_balance_by_date("20190401", "20190405", "005930")',
                balance, 0.10, 3),
        element(6, "hit", "CodeSnippet", "공매도잔고 상장주식수 공매도금액 시가총액 비중 날짜 20190401 3403293",
                balance, 0.15, 2),
        named=("PyKrx",),
    )
    answer = ExtractiveAnswerer().complete("pykrx 종목별 공매도 잔고 현황 어떤 함수 써요?", ctx)
    assert "“get_shorting_balance_by_date 메서드는" in answer and "› 2.1.3.6 종목별 공매도 잔고 현황:" in answer


def test_a_heading_naming_one_word_of_a_longer_question_is_no_section_asked_about() -> None:
    # "Black" (a changelog release's section) is all in the question, but it names the product, not what is asked
    faq = ("Frequently Asked Questions", "Which Python versions does Black support?")
    ctx = context(
        element(0, "ancestor", "Title", faq[0], ()),
        element(1, "hit", "Title", faq[1], faq[:1], 0.5, 3),
        element(2, "hit", "NarrativeText", "Support for formatting Python 2 code was removed in version 22.0.", faq,
                0.45, 1),
        element(3, "ancestor", "Title", "Change Log", (), document="doc-2"),
        element(4, "ancestor", "Title", "21.10b0", ("Change Log",), document="doc-2"),
        element(5, "ancestor", "Title", "Black", ("Change Log", "21.10b0"), document="doc-2"),
        element(6, "hit", "ListItem", "Deprecate Python 2 formatting support (#2523)",
                ("Change Log", "21.10b0", "Black"), 0.5, 0, document="doc-2"),
    )
    answer = ExtractiveAnswerer().complete("when did black remove python 2 formatting support", ctx)
    assert "22.0" in answer and "Deprecate" not in answer


BLACK_TABS = ("Frequently Asked Questions", "Why spaces? I prefer tabs")


def test_an_faq_answer_leads_with_its_first_paragraph_when_a_later_one_is_only_a_little_closer() -> None:
    ctx = context(
        element(0, "ancestor", "Title", BLACK_TABS[0], ()),
        element(1, "hit", "Title", BLACK_TABS[1], BLACK_TABS[:1], 0.52, 2),
        element(2, "hit", "NarrativeText", "PEP 8 recommends spaces over tabs, and they are used by most of the Python "
                "community. Black provides no options to configure the indentation style, and requests for such "
                "options will not be considered.", BLACK_TABS, 0.28, 1),
        element(3, "hit", "NarrativeText", "However, we recognise that using tabs is an accessibility issue as well. "
                "While the option will never be added to Black, visually impaired developers may find conversion tools "
                "such as expand/unexpand (for Linux) useful when contributing to Python projects.", BLACK_TABS,
                0.37, 0),
        named=(BLACK_TABS[1],),
    )
    answer = ExtractiveAnswerer().complete("can i make black indent with tabs", ctx)
    assert "no options to configure the indentation style" in answer and "[e:s2]" in answer


def test_a_clearly_better_paragraph_of_the_section_still_leads_and_a_row_is_never_put_first_by_its_place() -> None:
    faq = ("Frequently Asked Questions", "How can I change the type of commits that trigger a release?")
    ctx = context(
        element(0, "ancestor", "Title", faq[0], ()),
        element(1, "hit", "Title", faq[1], faq[:1], 0.55, 5),
        element(2, "hit", "NarrativeText", "By default semantic-release uses the Angular Commit Message Conventions "
                "and triggers releases based on the following rules:", faq, 0.40, 1),
        element(3, "child", "Table", "| Commit | Release type |\n| --- | --- |", faq, 0.2),
        element(4, "child", "TableRow", "Commit: Commit with type feat · Release type: ~~Minor~~ Feature release", faq,
                0.40),
        element(5, "hit", "TableRow", "Commit: Commit with type fix · Release type: Patch release", faq, 0.45, 0),
        element(6, "child", "NarrativeText", "This is fully customizable with the @semantic-release/commit-analyzer "
                "plugin's release-rules option.", faq, 0.3),
        named=(faq[1],),
    )
    answer = ExtractiveAnswerer().complete("which commit type triggers a patch release in semantic-release", ctx)
    assert "type fix" in answer and "type feat" not in answer
