"""Issue 31, tenth round: the part reader of a question asking several things (``core.answering.parts``). An
English "how many" part takes a unit stating a number, an example ranks below the line it illustrates, and a unit
found for another part (its similarity is that part's) yields to one holding the part's own words."""

from __future__ import annotations

from core.answering.evidence import Evidence
from core.answering.parts import units_for_parts
from core.retrieval.context import ContextElement
from tests.helpers_context import ask

from .test_hlg_multihop3 import _ingest
from .test_hlg_multihop9 import ERRORS, RECEIPT

LOGGING = """# Logging

## Setting Log File Location

All logs are written to a debug log.

The default location of the logs directory is a directory named _logs inside the npm cache. This can be
changed with the logs-dir config option.

For example, if you wanted to write all your logs to the current working directory, you could run:
npm install --logs-dir=. This is helpful when you diff all the log files of several runs.
"""

CONFIG = """# Config Settings

## logs-max

Default: 10

Type: Number

The maximum number of log files to store.

If set to 0, no log files will be written for the current run.
"""


def _lines(answer: str) -> list[str]:
    return [line for line in answer.splitlines() if line.startswith("“")]


def test_a_how_many_part_states_the_number_and_the_where_part_the_location(store):
    _ingest(store, {"logging.md": LOGGING, "config.md": CONFIG})
    # every element in the context (k = 12): what is measured is the reader's choice among them
    _found, answer = ask(store, "how many log files does npm keep by default and where does it write them?", k=12)
    quoted = _lines(answer)
    assert any("10" in line for line in quoted), answer
    assert any("_logs" in line for line in quoted), answer
    # the example illustrates the location; the line stating it answers "where"
    assert not any(line.startswith("“For example") for line in quoted), answer


def test_each_part_of_a_korean_question_quotes_its_own_line(store):
    _ingest(store, {"errors.md": ERRORS, "receipt.md": RECEIPT})
    _found, answer = ask(store, "현금영수증은 국세청에 언제 전송되고, 재처리 되는 오류코드는 몇 개야?")
    assert "익일(D+1)" in answer, answer
    assert "재처리 가능 오류코드 (2개)" in answer, answer


def _unit(text: str, path: tuple[str, ...], score: float) -> Evidence:
    element = ContextElement(element_id=text, short_id=text[:8], role="hit", category="NarrativeText", text=text,
                             document_id="d", path=path, distance=1.0 - score)
    return Evidence(element, score, score, 0.0, text)


def test_a_unit_found_for_another_part_yields_to_one_holding_the_parts_words():
    notice = _unit("ℹ️ 자동재처리 가능 오류코드", ("국세청 오류코드", "자동재처리 안내"), 0.9)
    sent = _unit("접수 내역은 익일(D+1) 국세청에 일괄 전송됩니다.", ("현금영수증 등록 API", "주의사항"), 0.5)
    count = _unit("자동재처리 가능 오류코드 (8개): TS1, E1, E3", ("국세청 오류코드", "자동재처리 안내"), 0.8)
    parts = ["현금영수증은 국세청에 언제 전송되?", "자동재처리 되는 오류코드는 몇 개야?"]
    evidence = {parts[0]: [notice, sent, count], parts[1]: [count, notice, sent]}
    units = units_for_parts(parts, evidence.__getitem__)
    assert [u.element.text for u in units] == [sent.element.text, count.element.text]
    # a unit sharing a word with the part ("국세청") stays where its score puts it
    shared = _unit("국세청 자동재처리 가능 오류코드", ("국세청 오류코드",), 0.9)
    evidence[parts[0]] = [shared, sent]
    assert units_for_parts(parts, evidence.__getitem__)[0] is shared
