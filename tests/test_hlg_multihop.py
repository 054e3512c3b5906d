"""Questions that need two facts (issue 31): a question of several asks is read as its parts, searched part by part
by the router and answered with one quoted unit per part, each cited; the ``statements`` search gives the statement
path that joined two documents ("X — built by → Y — headed by → Z") as data, each step the element stating it.

Real embedded Postgres, the bundled offline embedder, small synthetic corpora.
"""

from __future__ import annotations

import re

import pytest

from core.answering import ExtractiveAnswerer
from core.ingest import SourceFile, ingest
from core.ingest.tiers import sync_tiers
from core.retrieval import RetrievalRequest, retrieve
from core.retrieval.analysis import analyse
from core.retrieval.parts import question_parts
from core.retrieval.router import route
from core.retrieval.strategies import DEFAULT_SEARCH
from tests.test_hlg import LAB, OTHER, PAYLOAD

CONFIG = ("# Config Settings\n"
          "## fetch-retries\n\n* Default: 2\n* Type: Number\n\nThe number of times to retry a fetch of a package.\n\n"
          "## fetch-timeout\n\n* Default: 300000\n* Type: Number\n\nThe longest time to wait for a response.\n\n"
          "## loglevel\n\n* Default: notice\n* Type: String\n\nWhat level of logs to report.\n\n"
          "## maxsockets\n\n* Default: 15\n* Type: Number\n\nThe most connections to use per origin.\n")
CHANGELOG = ("# Changelog\n## 9.1.0\n\n* Added the fetch-timeout option to the registry client.\n"
             "* The loglevel now defaults to notice for every command.\n")


def _ingest(store, files: dict[str, str]) -> None:
    report = ingest(store, [SourceFile(name, text.encode()) for name, text in files.items()])
    assert not report.errors, report.errors


@pytest.mark.parametrize(("question", "parts"), [
    ("default loglevel and default maxsockets?", ("default loglevel?", "default maxsockets?")),
    ("cibuildwheel defaults: which build frontend and which container engine?",
     ("cibuildwheel defaults: which build frontend?", "cibuildwheel defaults: which container engine?")),
    ("minimum macOS target for CPython 3.12 wheels on Intel vs on Apple Silicon?",
     ("minimum macOS target for CPython 3.12 wheels on Intel?",
      "minimum macOS target for CPython 3.12 wheels on Apple Silicon?")),
    ("which is bigger by default, searchlimit or fetch-retry-factor?",
     ("which is bigger by default, searchlimit?", "which is bigger by default, fetch-retry-factor?")),
    # a later side naming only the alternative to a word of the first is asked in the first side's frame
    ("which is bigger by default in npm, searchstaleness or searchlimit?",
     ("which is bigger by default in npm, searchstaleness?", "which is bigger by default in npm, searchlimit?")),
    ("cibuildwheel default cache folder on linux vs windows?",
     ("cibuildwheel default cache folder on linux?", "cibuildwheel default cache folder on windows?")),
    ("minimum macos target for cpython 3.9-3.11 on intel and for pypy?",
     ("minimum macos target for cpython 3.9-3.11 on intel?", "minimum macos target for pypy on intel?")),
    # Korean: the particle "(이)랑", "-고" after a question word or before a comma
    ("가상계좌 국민은행 운영시간이랑 우리은행 운영시간은?",
     ("가상계좌 국민은행 운영시간?", "가상계좌 우리은행 운영시간은?")),
    ("등록 API에서 svcAmt는 뭐고 조회 API의 trDt는 뭐야?", ("등록 API에서 svcAmt는 뭐?", "조회 API의 trDt는 뭐야?")),
    ("현금영수증은 언제 전송되고, 자동재처리 오류코드는 몇 개야?",
     ("현금영수증은 언제 전송되?", "자동재처리 오류코드는 몇 개야?")),
    # two attributes of one owner named once: after the last in English, before the first in Korean
    ("What are the weight and the warranty of the Nova 24FL?",
     ("What are the weight of the Nova 24FL?", "the warranty of the Nova 24FL?")),
    ("weight and warranty of the Nova 24FL", ("weight of the Nova 24FL?", "warranty of the Nova 24FL?")),
    ("Nova 24FL 무게와 보증기간은?", ("Nova 24FL 무게?", "Nova 24FL 보증기간은?")),
    ("Nova 27QX의 주사율과 응답속도를 알려줘", ("Nova 27QX의 주사율?", "Nova 27QX의 응답속도를 알려줘?")),
    ("24FL 밝기랑 명암비는?", ("24FL 밝기?", "24FL 명암비는?")),
    ("hatch build data: type of build_hooks and type of force_include?",  # each side names its own owner
     ("hatch build data: type of build_hooks?", "hatch build data: type of force_include?")),
])
def test_a_question_of_several_asks_is_read_as_its_parts(question, parts):
    assert question_parts(question) == parts


@pytest.mark.parametrize("question", [
    "How do I search and replace in the editor?",  # a side too thin to be asked alone
    "What is the warranty period for accessories sold separately, such as cables and wall brackets?",  # examples
    "소득공제 등록 수단? (대상별 처리 방법 (소득공제 vs 지출증빙))",  # a join inside parentheses qualifies one ask
    "What is the default of `a and b`?",  # inside a code span
    "Is the timeout in seconds or milliseconds?",  # "or" outside a which-question names alternatives of one thing
    "What is the weight of the Nova 24FL?",
    "사랑 노래 추천해 주세요",  # "랑" ending a word of two syllables is no particle
    "결제 결과 조회 API는 뭐예요?",
    "Nova 24FL과 Nova 27QX 중 더 무거운 것은?",  # names joined: things compared, the table's reading
    "국민은행과 우리은행 운영시간은?",
])
def test_a_question_asking_one_thing_stays_whole(question):
    assert question_parts(question) == (question,)


def test_the_router_sends_a_question_of_two_asks_to_the_parts_search_and_a_comparison_to_its_table():
    assert route(analyse("default loglevel and default maxsockets?")).search == "parts"
    assert route(analyse("What is the weight of the Nova 24FL?")).search == ""
    assert route(analyse("Which is heavier, the Aster H1 or the Aster H2?")).search == ""  # the comparison's table
    assert route(analyse("Who heads the lab that built the Lumen Camera?")).search == "statements"


def test_two_asks_are_searched_part_by_part_and_answered_one_cited_unit_each(store):
    _ingest(store, {"config.md": CONFIG, "changelog.md": CHANGELOG})
    question = "what is the default of fetch-retries, and what's the default fetch-timeout?"
    routed = retrieve(store, RetrievalRequest(question, k=4))  # the default searches a question's parts
    assert routed.notes[0] == "routed to the parts search: the question asks 2 things at once"
    assert {"fetch-retries", "fetch-timeout"} <= {p for e in routed.hierarchical.elements for p in e.path}
    answer = ExtractiveAnswerer().complete(question, routed.hierarchical)
    assert answer.index("Default: 2") < answer.index("Default: 300000"), "one unit per part, in the order asked"
    assert "From Config Settings › fetch-retries:" in answer and "From Config Settings › fetch-timeout:" in answer
    assert len(set(re.findall(r"\[e:(\w+)\]", answer))) == 2, "each unit cited"
    # the same question without the parts search: one search
    whole = retrieve(store, RetrievalRequest(question, k=2, search=DEFAULT_SEARCH.but(parts=False)))
    assert not any(n.startswith("routed") for n in whole.notes)
    # the statements search, too, searches each part on its own
    sync_tiers(store)
    joined = retrieve(store, RetrievalRequest("default loglevel and default maxsockets?", k=2, search="statements"))
    assert joined.notes[0] == "routed to the parts search: the question asks 2 things at once"
    assert {"loglevel", "maxsockets"} <= {p for e in joined.hierarchical.elements for p in e.path}


def test_a_question_asking_one_thing_is_answered_with_one_quote(store):
    _ingest(store, {"config.md": CONFIG})
    question = "What is the default fetch-timeout?"
    found = retrieve(store, RetrievalRequest(question, k=4, search=DEFAULT_SEARCH.but(route=True)))
    answer = ExtractiveAnswerer().complete(question, found.hierarchical)
    assert len(re.findall(r"\[e:\w+\]", answer)) == 1 and "300000" in answer


def test_the_statements_search_gives_the_path_that_joined_two_documents_each_step_cited(store):
    _ingest(store, {"payload.md": PAYLOAD, "lab.md": LAB, "ground.md": OTHER})
    sync_tiers(store)
    found = retrieve(store, RetrievalRequest("Who heads the lab that built the Lumen Camera?", k=3,
                                             search="statements"))
    steps = [(s.source, s.relation, s.target) for s in found.path]
    assert steps == [("Lumen Camera", "Built by", "Aurora Optics Lab"),
                     ("Aurora Optics Lab", "Head", "Dr. Mira Santos")]
    by_id = {h.element.element_id: h.element for h in found.hits}
    assert [by_id[s.element_id].text for s in found.path] == ["Built by : Aurora Optics Lab", "Head : Dr. Mira Santos"]
    assert found.describe()["path"][1]["heading_path"] == ["Research Labs", "Aurora Optics Lab"]
    # a question that joins nothing has no path; nor does the default search
    assert retrieve(store, RetrievalRequest("What is the resolution of the Lumen Camera?", k=3)).path == ()


def test_the_compare_page_draws_the_statement_path_escaped_each_step_linked_to_its_element():
    from streamlit.testing.v1 import AppTest

    def page() -> None:
        from views.comparison import show_statement_path

        show_statement_path([
            {"source": "<script>alert(1)</script>", "relation": "[built](http://127.0.0.1:9/x) by",
             "target": "**Lab**", "element_id": "abcdef0123456789", "heading_path": ["A"], "statement": "s"},
            {"source": "**Lab**", "relation": "Head", "target": "Dr. <b>Kim</b>", "element_id": "0123456789abcdef",
             "heading_path": ["A", "Lab"], "statement": "Head : Dr. <b>Kim</b>"},
        ], "things")

    at = AppTest.from_function(page, default_timeout=120).run()
    shown = at.markdown[0].value
    assert shown.startswith("Statement path: **\\<script\\>alert")
    # the document's tags, link and emphasis are text: no raw tag, no link but the two citations
    assert "<script>" not in shown and "<b>" not in shown and "\\*\\*Lab\\*\\*" in shown
    assert shown.count("](") == 2
    assert "[e:abcdef01](/document_tree?collection=things&element=abcdef0123456789)" in shown
    assert "[e:01234567](/document_tree?collection=things&element=0123456789abcdef)" in shown


@pytest.mark.parametrize("question", ["Nova 24FL 무게와 보증기간은?",
                                      "What are the weight and the warranty of the Nova 24FL?"])
def test_two_attributes_of_one_product_are_both_answered_on_the_samples(samples_store, question):
    # read whole, each question was answered by one of the two (the warranty alone, or "not stated")
    context = retrieve(samples_store, RetrievalRequest(question)).hierarchical
    text = ExtractiveAnswerer().complete(question, context)
    assert "2.9 kg" in text and ("1년" in text or "1 year" in text), text
