"""Questions that need two facts, third round (issue 31): the parts share the frame the question states once, a
part's line names its section's value, and a thing named by a relative clause is searched in the section its
description sits in.

Real embedded Postgres, the bundled offline embedder, small synthetic corpora.
"""

from __future__ import annotations

import re

import pytest

from core.answering import ExtractiveAnswerer
from core.changelog import asks_when
from core.ingest import SourceFile, ingest
from core.retrieval import RetrievalRequest, retrieve
from core.retrieval.parts import question_parts
from core.retrieval.strategies import DEFAULT_SEARCH

INIT = ("# Config Settings\n"
        "## init-license\n\n* Default: \"ISC\"\n* Type: String\n\n"
        "The value npm init should use by default for the package license.\n\n"
        "## init-version\n\n* Default: \"1.0.0\"\n* Type: Semver\n\n"
        "The value that npm init should use by default for the package version number.\n")
LABS = ("# Institute\n## Labs\n### Optics Lab\n* Head : Dr. Mira Santos\n* Founded : 2011\n\n"
        "The lab analyses the images of the Lumen Camera and calibrates its mirrors every month.\n\n"
        "### Radio Lab\n* Head : Tomas Reyes\n* Founded : 2015\n\n"
        "The lab runs the antenna farm and decodes the telemetry of every spacecraft.\n\n"
        "## Missions\n### Lumen Camera\n* Launched : 2019\n\nThe camera maps the polar ice every week.\n")


def _ingest(store, files: dict[str, str]) -> None:
    report = ingest(store, [SourceFile(name, text.encode()) for name, text in files.items()])
    assert not report.errors, report.errors


@pytest.mark.parametrize(("question", "parts"), [
    # the first side, a bare name, takes what the last side asks of its own
    ("hatch 1.6.0 and hatchling 1.6.0 release dates?",
     ("hatch 1.6.0 release dates?", "hatchling 1.6.0 release dates?")),
    ("default install-strategy and default auth-type for npm?",
     ("default install-strategy for npm?", "default auth-type for npm?")),
    # a later side repeating the first side's ask takes the words the first leads with
    ("가상계좌 국민은행 운영시간이랑 우리은행 운영시간은?",
     ("가상계좌 국민은행 운영시간?", "가상계좌 우리은행 운영시간은?")),
    ("white label svcDivCd description and cnclAmt description?",
     ("white label svcDivCd description?", "white label cnclAmt description?")),
    # "X의 A는 뭐고 B는?": B in A's place, X and the question word kept
    ("등록 API에서 svcAmt는 뭐고 cnclAmt는?", ("등록 API에서 svcAmt는 뭐?", "등록 API에서 cnclAmt는 뭐?")),
    # nothing to share: a side already framed, a side asking by its own (different) question word
    ("minimum macOS target for CPython 3.12 wheels on Intel vs on Apple Silicon?",
     ("minimum macOS target for CPython 3.12 wheels on Intel?",
      "minimum macOS target for CPython 3.12 wheels on Apple Silicon?")),
    ("미리내 3호를 발사할 때 원장은 누구였고, 그 원장이 취임한 건 언제야?",
     ("미리내 3호를 발사할 때 원장은 누구였?", "그 원장이 취임한 건 언제야?")),
    ("등록 API에서 svcAmt는 뭐고 조회 API의 trDt는 뭐야?", ("등록 API에서 svcAmt는 뭐?", "조회 API의 trDt는 뭐야?")),
])
def test_the_parts_share_the_frame_the_question_states_once(question, parts):
    assert question_parts(question) == parts


def test_release_dates_in_the_plural_ask_when():
    assert asks_when("hatch 1.6.0 and hatchling 1.6.0 release dates?")
    assert not asks_when("how many log files does npm keep?")


def test_each_part_is_answered_by_the_value_its_section_states_not_the_prose_around_it(store):
    _ingest(store, {"config.md": INIT})
    question = "npm init defaults: init-license and init-version?"
    found = retrieve(store, RetrievalRequest(question, k=4))
    answer = ExtractiveAnswerer().complete(question, found.hierarchical)
    assert answer.index('"ISC"') < answer.index('"1.0.0"'), answer
    assert "“Default: \"ISC\"”" in answer and "“Default: \"1.0.0\"”" in answer, answer
    assert "should use by default" not in answer, "a part's line is its value, not the sentence describing it"


def test_a_thing_named_by_a_relative_clause_is_searched_in_the_section_its_description_sits_in(store):
    _ingest(store, {"labs.md": LABS})
    question = "Who heads the lab that calibrates the mirrors of the Lumen Camera?"
    found = retrieve(store, RetrievalRequest(question, k=2))
    assert any(n.startswith("the relative clause describes ") and n.endswith("Optics Lab: searched under it as well")
               for n in found.notes), found.notes
    assert any("Dr. Mira Santos" in e.text for e in found.hierarchical.elements)
    answer = ExtractiveAnswerer().complete(question, found.hierarchical)
    assert answer.startswith("Head: Dr. Mira Santos"), answer
    assert re.search(r"\[e:\w+\]", answer), "cited"
    # without the parts search (one search per question), no second hop
    once = retrieve(store, RetrievalRequest(question, k=2, search=DEFAULT_SEARCH.but(parts=False)))
    assert not any(n.startswith("the relative clause describes") for n in once.notes)


def test_a_bridge_whose_best_unit_is_its_description_quotes_the_value_of_that_section_first(samples_store):
    # the clause's words fill the lab's description; the head's item ("실장 : …") shares only the word asked
    question = "미리내 2호의 입자 검출기 자료를 분석하는 연구실의 실장은 누구인가요?"
    found = retrieve(samples_store, RetrievalRequest(question, k=4))
    answer = ExtractiveAnswerer().complete(question, found.hierarchical)
    assert answer.splitlines()[0] == "실장: 오세린", answer
    assert "입자 검출기 자료를 분석합니다" in answer, "the description that found the lab, after the value"
    # and the clause's own thing, whose section the question names (multihop7): each hop cited
    assert "태양풍 입자 관측" in answer, answer
    assert len(set(re.findall(r"\[e:(\w+)\]", answer))) == 3, "each line cited"
