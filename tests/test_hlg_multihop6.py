"""Questions that need two facts, sixth round (issue 31): a part pointing back at the value the part before it
found is asked of that value, each part's unit is the one it answers best, a bridge states each hop with its own
citation, and a comparison whose table states one thing is answered part by part.

Real embedded Postgres, the bundled offline embedder, small synthetic corpora (and the samples, read only).
"""

from __future__ import annotations

from core.answering import ExtractiveAnswerer
from core.answering.evidence import Evidence
from core.answering.parts import units_for_parts
from core.retrieval import RetrievalRequest, retrieve
from core.retrieval.context import Context, ContextElement
from core.retrieval.parts import question_parts, referred_value, with_referred_value
from tests.helpers_context import cited

from .test_hlg_multihop3 import LABS, _ingest

CODES = ("# 은행 코드\n## 코드표\n\n| 코드 | 금융회사 |\n| --- | --- |\n| `002` | 산업은행 |\n| `003` | 기업은행 |\n"
         "| `004` | 국민은행 |\n| `007` | 수협은행 |\n| `011` | 농협은행 |\n| `020` | 우리은행 |\n")
HOURS = ("# 은행 운영 및 점검시간\n## 참고 시간표\n\n| 은행 | 운영시간 | 정기점검 시간 |\n| --- | --- | --- |\n"
         "| 산업은행 | 00:30~23:30 | 매월 첫째 주 일요일 |\n| 기업은행 | 00:05~23:55 | 매월 둘째 주 일요일 |\n"
         "| 국민은행 | 00:10~23:40 | 매월 셋째 주 일요일 |\n| 수협은행 | 00:20~23:20 | 정해진 정기점검 없음 |\n"
         "| 농협은행 | 00:40~23:10 | 매월 셋째 주 월요일 |\n| 우리은행 | 00:15~23:25 | 매월 둘째 주 일요일 |\n")



def test_a_clause_pointing_back_at_what_the_first_asks_is_a_part_of_its_own():
    assert question_parts("은행코드 004는 어느 은행이고 그 은행 운영시간은 몇시부터 몇시까지야?") == (
        "은행코드 004는 어느 은행?", "그 은행 운영시간은 몇시부터 몇시까지야?")
    # "-고" inside one ask, pointing back at nothing, splits nothing
    assert question_parts("국민은행 운영시간을 알려주고 싶어요?") == ("국민은행 운영시간을 알려주고 싶어요?",)


def test_the_value_pointed_at_is_the_one_stated_under_the_key_naming_the_noun():
    part = "그 은행 운영시간은?"
    assert referred_value(part, ["코드: 004 · 은행명: 국민은행(구 주택은행)"]) == "국민은행"
    assert with_referred_value(part, "국민은행") == "국민은행 은행 운영시간은?"
    assert referred_value("그 원장이 취임한 건 언제야?", ["발사일 : 2024년", "원장 : 서도윤"]) == "서도윤"
    assert referred_value("what are that bank's hours?", ["Code: 004 · Bank name: Kookmin"]) == "Kookmin"
    # nothing points back, or nothing states a key naming the noun: the part is asked as it is
    assert referred_value("국민은행 운영시간은?", ["은행명: 국민은행"]) is None
    assert referred_value("그 협약 연도는?", ["대학 : 한빛대학교"]) is None
    assert referred_value("the arch that auto32 picks?", ["auto32: armv7l"]) is None


def test_a_part_pointing_back_is_searched_and_answered_with_the_value_the_first_part_found(store):
    _ingest(store, {"codes.md": CODES, "hours.md": HOURS})
    question = "은행코드 011는 어느 은행이고 그 은행 운영시간은 몇시부터 몇시까지야?"
    found = retrieve(store, RetrievalRequest(question, k=4))
    answer = ExtractiveAnswerer().complete(question, found.hierarchical)
    assert "농협은행" in answer and "00:40~23:10" in answer, answer
    assert len(cited(answer)) == 2, "each part with its own citation"


def _unit(element_id: str, score: float) -> Evidence:
    element = ContextElement(element_id, element_id, "hit", "NarrativeText", element_id, "d")
    return Evidence(element, score, 0.0, 0.0, element_id, "k", "v")


def test_a_unit_answering_two_parts_goes_to_the_part_it_answers_best():
    scored = {"container engine?": [_unit("row", 0.9), _unit("engine", 0.8)],
              "musllinux image for aarch64?": [_unit("row", 1.4), _unit("other-row", 1.1)]}
    units = units_for_parts(list(scored), lambda part: scored[part])
    assert [u.element.element_id for u in units] == ["engine", "row"]


def test_a_bridge_states_the_clauses_description_as_well_as_the_value_asked(store):
    _ingest(store, {"labs.md": LABS})
    question = "Who heads the lab that calibrates the mirrors of the Lumen Camera?"
    found = retrieve(store, RetrievalRequest(question, k=2))
    answer = ExtractiveAnswerer().complete(question, found.hierarchical)
    assert answer.startswith("Head: Dr. Mira Santos"), answer
    assert "calibrates its mirrors" in answer, "the first hop, the lab's description, stated too"
    assert len(cited(answer)) == 2


def test_a_comparison_whose_table_states_one_thing_is_answered_part_by_part(samples_store):
    question = "27QX 높낮이 조절 범위랑 32UX height adjustment 비교"
    found = retrieve(samples_store, RetrievalRequest(question, k=4))
    answer = ExtractiveAnswerer().complete(question, found.hierarchical)
    assert "130 mm" in answer and "150 mm" in answer, answer
    assert len(cited(answer)) == 2


def _context(*elements: tuple[tuple[str, ...], str]) -> Context:
    items = [ContextElement(f"e{i}", f"e{i}", "hit", "NarrativeText", text, "d", path)
             for i, (path, text) in enumerate(elements)]
    return Context("hierarchical", "", "", items, 0)


def test_a_kebab_case_option_asked_in_words_is_the_path_the_value_sits_under():
    context = _context((("Options", "Build customization", "build-frontend"), "Default: build"),
                       (("Options", "Build customization", "container-engine"), "Default: docker"))
    answer = ExtractiveAnswerer().complete("cibuildwheel defaults: which container engine?", context)
    assert answer.splitlines()[0].endswith("docker"), answer


def test_the_longest_option_name_the_question_spells_keys_its_default_line():
    context = _context((("Config Settings", "shell"), 'Default: SHELL environment variable, or "bash" on Posix'),
                       (("Config Settings", "script-shell"), "Default: '/bin/sh' on POSIX systems"),
                       (("Config Settings", "sbom-type"), 'Default: "library"'))
    answer = ExtractiveAnswerer().complete("which shell runs scripts on posix by default?", context)
    assert answer.splitlines()[0] == "script-shell: '/bin/sh'", answer
    answer = ExtractiveAnswerer().complete("what's npm's default sbom-type?", context)
    assert answer.splitlines()[0] == 'sbom-type: "library"', answer
