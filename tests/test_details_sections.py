"""A ``<details>`` block is a section named by its ``<summary>``: what it holds is found, read and cited under it."""

from __future__ import annotations

import textwrap

from core.answering import ExtractiveAnswerer
from core.answering.extractive import score_evidence
from core.elements import Element
from core.html_blocks import html_events, html_text_parts
from core.markdown_loader import parse_markdown
from core.statements import is_lead_in

from .helpers_context import tree_context


def parse(text: str) -> list[Element]:
    docs = parse_markdown(textwrap.dedent(text), source="readme.md", document_id="doc-1")
    return [Element.from_document(d) for d in docs]


def by_text(elements: list[Element], start: str) -> Element:
    return next(e for e in elements if e.text.startswith(start))


SETUP = """\
    # 도구

    ## 고급 설정

    <details><summary><b>환경변수 전체 목록</b></summary>

    | 변수 | 기본값 | 설명 |
    | --- | --- | --- |
    | `LOG_LEVEL` | `INFO` | DEBUG / INFO / WARNING |
    | `LOG_DIR` | `~/.tool/logs` | 파일 로그 경로 |

    </details>

    <details><summary>수동 설치</summary>

    ```bash
    pip install tool
    ```

    </details>

    설정 후 다시 시작하세요.

    ## 보안
    토큰은 홈 디렉토리에만 저장됩니다.
    """


def test_a_summary_folding_a_table_is_a_title_whose_section_ends_at_details_close() -> None:
    elements = parse(SETUP)
    listing = by_text(elements, "환경변수 전체 목록")
    assert listing.category == "Title"
    row = by_text(elements, "변수: LOG_LEVEL")
    assert row.heading_path == ("도구", "고급 설정", "환경변수 전체 목록")
    assert not any("details>" in e.text for e in elements if e.start_line is not None and e.start_line < 12)
    # a summary over markdown prose or code stays raw HTML, its content under the heading (as before)
    assert by_text(elements, "<details><summary>수동 설치").category == "UncategorizedText"
    assert by_text(elements, "pip install tool").heading_path == ("도구", "고급 설정")
    # after </details> the section goes on under its heading, and the next heading is no child of a summary
    assert by_text(elements, "설정 후 다시 시작하세요").heading_path == ("도구", "고급 설정")
    assert by_text(elements, "토큰은").heading_path == ("도구", "보안")


def test_a_details_block_in_one_piece_gives_its_items_and_text_without_tags() -> None:
    elements = parse("""\
        # 라이브러리

        ## 특징
        <details>
        <summary>🔗 복구 가능한 웹소켓 클라이언트</summary>
        <ul>
        <li>연결이 끊겼을 때 <b>완벽히 복구</b>합니다.</li>
        <li>구독도 다시 등록합니다.<script>alert(1)</script></li>
        </ul>
        &lt;script&gt; 는 글자로 남습니다.
        </details>
        """)
    title = by_text(elements, "🔗 복구 가능한")
    items = [e for e in elements if e.category == "ListItem"]
    assert [i.text for i in items] == ["연결이 끊겼을 때 완벽히 복구 합니다.", "구독도 다시 등록합니다."]
    assert all(i.parent_id == title.element_id for i in items)
    assert by_text(elements, "<script> 는 글자로").heading_path == ("라이브러리", "특징", title.text)


def test_details_inside_a_list_item_stay_that_items_text() -> None:
    elements = parse("""\
        # 설치

        - 윈도우
          <details><summary>PowerShell</summary>설치 스크립트를 실행합니다.</details>

        끝.
        """)
    assert not any(e.category == "Title" and e.text == "PowerShell" for e in elements)
    item = by_text(elements, "윈도우")
    assert by_text(elements, "PowerShell").parent_id == item.element_id
    assert by_text(elements, "설치 스크립트를").parent_id == item.element_id
    assert by_text(elements, "끝.").heading_path == ("설치",)


def test_an_unclosed_details_ends_at_the_next_heading_and_a_stray_close_is_ignored() -> None:
    elements = parse("""\
        # A

        </details>

        <details><summary>Notes</summary>

        inside

        | k | v |
        | --- | --- |
        | a | 1 |

        # B

        after
        """)
    assert by_text(elements, "inside").heading_path == ("A", "Notes")
    assert by_text(elements, "after").heading_path == ("B",)


def test_html_events_read_in_order_and_hostile_markup_stays_text() -> None:
    kinds = [(e.kind, e.text) for e in html_events("</details><details open><summary><i>X</i> &amp; Y</summary>")]
    assert kinds == [("close", ""), ("open", ""), ("summary", "X & Y")]
    texts, items = html_text_parts("<p>a<style>b{}</style></p><ol><li>one<ul><li>nested</li></ul></li></ol>tail")
    assert items == ["one nested"] and texts == ["a tail"]
    assert html_text_parts("") == ([], [])


def test_a_korean_lead_in_that_counts_what_follows() -> None:
    assert is_lead_in("KRX 로그인이 필요한 API를 사용하려면 아래 두 환경변수를 반드시 설정해야 합니다.")
    assert is_lead_in("다음 세 가지 방식을 지원합니다.")
    assert not is_lead_in("다음 버전에서 제거됩니다.")
    assert not is_lead_in("KOSPI가 기본값입니다.")


def test_a_row_inside_details_is_quoted_with_its_key_and_summary_path() -> None:
    elements = parse(SETUP)
    rows = [e for e in elements if e.category == "TableRow"]
    answer = ExtractiveAnswerer().complete("LOG_LEVEL 기본값은?", tree_context(elements, [r.element_id for r in rows]))
    assert answer.splitlines()[0].startswith("LOG_LEVEL — 기본값: INFO")
    assert "고급 설정 › 환경변수 전체 목록" in answer


def test_a_counted_lead_in_is_quoted_with_the_rows_it_introduces() -> None:
    elements = parse("""\
        # 설정

        ## 환경변수

        로그인이 필요한 API를 쓰려면 아래 두 환경변수를 설정해야 합니다.

        | 변수명 | 설명 |
        | --- | --- |
        | `KRX_ID` | 회원 로그인 ID |
        | `KRX_PW` | 회원 로그인 비밀번호 |
        """)
    lead = by_text(elements, "로그인이 필요한")
    rows = [e for e in elements if e.category == "TableRow"]
    context = tree_context(elements, [lead.element_id, *(r.element_id for r in rows)])
    quoted = score_evidence("로그인에 필요한 환경변수는?", context)[0].excerpt
    assert "KRX_ID" in quoted and "KRX_PW" in quoted
