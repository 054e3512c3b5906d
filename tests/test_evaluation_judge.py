"""The pairwise judge through fake chat models: swapped-order aggregation, position bias, malformed verdicts."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from langchain_core.language_models import BaseChatModel
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from core.evaluation.judge import CRITERIA, Judge, combine, judge_pairs_for, parse_verdict, win_rates
from core.llm import RetryPolicy

NO_RETRY = RetryPolicy(attempts=1)


def verdict(winner: str) -> str:
    return json.dumps({c: {"winner": winner, "reason": "because"} for c in CRITERIA})


class PrefersMarkedAnswer(BaseChatModel):
    """A judge with a real preference: the answer containing GOOD wins, wherever it is shown."""

    @property
    def _llm_type(self) -> str:
        return "prefers-marked"

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None,
                  **kwargs: Any) -> ChatResult:
        text = messages[-1].content
        a = re.search(r"<answer_a>(.*?)</answer_a>", text, re.S).group(1)
        winner = "A" if "GOOD" in a else "B"
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=verdict(winner)))])


def test_combine_swapped_orders():
    assert combine("A", "B") == "a"  # a wins as A, and wins again when shown as B
    assert combine("B", "A") == "b"
    assert combine("A", "A") == "tie"  # position bias: each mode wins once
    assert combine("tie", "tie") == "tie"
    assert combine("A", "tie") == "a" and combine("tie", "A") == "b"
    assert combine(None, "A") == "invalid" and combine("A", None) == "invalid"


def test_a_real_preference_wins_in_both_orders():
    judge = Judge(PrefersMarkedAnswer(), policy=NO_RETRY)
    result = judge.judge("q1", "What?", "plain", "bad answer", "hierarchical", "GOOD answer")
    assert set(result.outcomes.values()) == {"b"}
    assert [v.shown_as_a for v in result.verdicts] == ["plain", "hierarchical"]
    rates = {w.criterion: w for w in win_rates([result])}
    assert rates["directness"].win_rate == 1.0 and rates["directness"].wins == 1


def test_a_position_biased_judge_comes_out_as_a_tie():
    # Always "A", whatever the answers: the swap gives each mode one win, so every criterion is a tie.
    model = FakeListChatModel(responses=[verdict("A")] * 20)
    judge = Judge(model, policy=NO_RETRY)
    judgements = [judge.judge(f"q{i}", "What?", "plain", "x", "hierarchical", "y") for i in range(5)]
    assert all(set(j.outcomes.values()) == {"tie"} for j in judgements)
    for rate in win_rates(judgements):
        assert (rate.wins, rate.ties, rate.losses, rate.invalid) == (0, 5, 0, 0)
        assert rate.win_rate == 0.5
        assert rate.ci_low < 0.5 < rate.ci_high


def test_malformed_verdicts_are_counted_invalid_not_fatal():
    replies = [
        "I think both are fine.",  # q1, first order: unreadable → every criterion invalid
        verdict("B"),
        # q2: a partial verdict in a code fence; missing criteria are invalid, the rest count
        "```json\n" + json.dumps({"comprehensiveness": {"winner": "B"}, "diversity": "maybe"}) + "\n```",
        json.dumps({"comprehensiveness": "A", "diversity": "A"}),
    ]
    judge = Judge(FakeListChatModel(responses=replies), policy=NO_RETRY)
    first = judge.judge("q1", "What?", "plain", "x", "hybrid", "y")
    second = judge.judge("q2", "What?", "plain", "x", "hybrid", "y")
    assert set(first.outcomes.values()) == {"invalid"}
    assert first.verdicts[0].error == "unreadable verdict"
    assert second.outcomes["comprehensiveness"] == "b"  # B as first, A when swapped: hybrid both times
    assert second.outcomes["diversity"] == "invalid" and second.outcomes["directness"] == "invalid"
    rates = {w.criterion: w for w in win_rates([first, second])}
    assert (rates["comprehensiveness"].wins, rates["comprehensiveness"].invalid) == (1, 1)
    assert rates["directness"].win_rate is None and rates["directness"].invalid == 2
    assert rates["directness"].as_dict()["n"] == 0


def test_a_failing_model_is_an_invalid_verdict():
    class Broken(FakeListChatModel):
        def _call(self, *args: Any, **kwargs: Any) -> str:
            raise RuntimeError("boom")

    judge = Judge(Broken(responses=["x"]), policy=NO_RETRY)
    result = judge.judge("q", "What?", "plain", "x", "hybrid", "y")
    assert set(result.outcomes.values()) == {"invalid"}
    assert "boom" in (result.verdicts[0].error or "")


def test_parse_verdict_tolerates_shapes():
    assert parse_verdict(verdict("tie"))["empowerment"] == "tie"
    assert parse_verdict('Here you go: {"directness": "Answer B"} thanks')["directness"] == "B"
    assert parse_verdict("Comprehensiveness: A\nDirectness - winner: B")["directness"] == "B"
    assert parse_verdict("")["diversity"] is None


def test_pairs():
    assert judge_pairs_for(["plain", "hierarchical", "hybrid"]) == [("plain", "hierarchical"), ("plain", "hybrid")]
    assert judge_pairs_for(["hierarchical", "hybrid"]) == [("hierarchical", "hybrid")]
    assert len(judge_pairs_for(["plain", "hierarchical", "contextual", "hybrid"], "all")) == 6
    with pytest.raises(ValueError):
        judge_pairs_for(["plain"], "some")
