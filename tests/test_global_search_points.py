"""Global search on specific questions, on the sample corpus indexed by the real offline pipeline: the points are
about the question (ranked by what their evidence says), none is made twice, and an uncovered question says so."""

from __future__ import annotations

import json
import re

import pytest

from core.graph import GlobalSearchOptions, global_search
from core.graph.indexing.pipeline import IndexConfig, run_index
from core.textnorm import english_stem, match_terms

from .helpers_graph import FakeGraphModel

RETURN_WINDOW = "What is the return window for opened items?"
SPECIFIC = [RETURN_WINDOW, "What ports does the Nova 32UX have?", "How long is the warranty on monitors?",
            "Who is the director of the space institute?", "Nova 24FL 무게는 얼마인가요?"]  # fmt: skip
QUOTE = re.compile(r"“(.+?)”")


@pytest.fixture(scope="module")
def indexed(samples_store):
    run_index(samples_store, config=IndexConfig(extraction="offline", reports="extractive"))
    return samples_store


def _stems(text: str) -> set[str]:
    return {english_stem(t) for t in match_terms(text)}


def test_the_return_window_for_opened_items_is_answered_from_the_policy(indexed):
    answer = global_search(indexed, RETURN_WINDOW, GlobalSearchOptions(use_llm="extractive"))
    assert answer.points, answer.answer
    first = answer.points[0].description
    # The policy's answer (2.1.2 Opened Items: "Window : within 7 days of the delivery date."), first.
    assert "within 7 days of the delivery date" in first and "2.1.2 Opened Items" in first, answer.answer
    assert "14 days" not in first, "the unopened-items window is another answer"
    assert answer.points[0].score == max(p.score for p in answer.points)


@pytest.mark.parametrize("question", SPECIFIC)
def test_no_point_is_made_twice(indexed, question):
    answer = global_search(indexed, question, GlobalSearchOptions(use_llm="extractive"))
    quotes = [QUOTE.search(p.description).group(1) for p in answer.points]
    assert len(quotes) == len(set(quotes)), quotes
    descriptions = [p.description for p in answer.points]
    assert len(descriptions) == len(set(descriptions))
    for rid in set(answer.report_ids):
        assert sum(rid in p.report_ids for p in answer.points) <= 2, "at most two points per report"
    assert answer.points == sorted(answer.points, key=lambda p: -p.score)


@pytest.mark.parametrize("question", [RETURN_WINDOW, "What ports does the Nova 32UX have?"])
def test_every_point_is_about_the_question(indexed, question):
    """Each point's quoted evidence (or the headings it sits under) states a content word of the question: a point
    that only sounds like the question is not offered."""
    answer = global_search(indexed, question, GlobalSearchOptions(use_llm="extractive"))
    asked = _stems(question)
    for p in answer.points:
        quote_and_place = p.description.split(", from the finding")[0]
        assert _stems(quote_and_place) & asked, p.description


def test_a_question_no_report_covers_says_so(indexed):
    answer = global_search(indexed, "What is the recipe for kimchi stew?", GlobalSearchOptions(use_llm="extractive"))
    assert answer.points == [] and answer.report_ids == []
    assert "no community report covers" in answer.answer


class _RepeatingModel(FakeGraphModel):
    """Every map batch makes the same point (citing its first report), as models do when reports overlap."""

    def _reply(self, prompt, messages):
        if prompt.startswith("Below are community reports"):
            rid = re.findall(r"^Report id: (\S+)$", prompt, re.M)[0]
            return json.dumps({"points": [
                {"description": f"Opened items can be returned within 7 days. [Data: Reports ({rid})]", "score": 70},
                {"description": f"Batch note on {rid}. [Data: Reports ({rid})]", "score": 20},
            ]})  # fmt: skip
        return super()._reply(prompt, messages)


def test_llm_points_repeated_across_batches_are_merged(indexed):
    answer = global_search(indexed, RETURN_WINDOW, GlobalSearchOptions(level=1, batch_tokens=800, concurrency=1),
                           chat_model=_RepeatingModel())
    same = [p for p in answer.points if p.description.startswith("Opened items can be returned within 7 days.")]
    assert len(same) == 1, [p.description for p in answer.points]
    batch_notes = [p for p in answer.points if p.description.startswith("Batch note")]
    assert len(batch_notes) >= 2, "the test needs several batches"
    assert set(same[0].report_ids) == {p.report_ids[0] for p in batch_notes}, "the merged point cites every report"
    assert same[0].score == 70 and f"({', '.join(same[0].report_ids)})" in same[0].description


def test_the_map_prompt_asks_for_answers_not_topics_and_each_point_once():
    from core.graph import prompts

    text = prompts.map_messages("Q?", "Report id: e1")[-1][1]
    assert "answer the question itself" in text and "Make each point once" in text
