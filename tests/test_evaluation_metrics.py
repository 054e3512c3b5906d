"""Evaluation metrics on a tiny fixed set with known answers: exact numbers, no database."""

from __future__ import annotations

import pytest

from core.evaluation.metrics import (
    ContextItem,
    aggregate,
    answer_match,
    bootstrap_ci,
    contains_answer,
    extract_value,
    first_hit_rank,
    grounded,
    headings_present,
    normalise,
    percentile,
    score_question,
    strict_attribution,
    wilson_interval,
)
from core.evaluation.questions import QuestionSetError, load_questions, parse_questions

from .conftest import ROOT

PRODUCT = "노바 Nova 24FL 모니터"
GOLD_PATH = (PRODUCT, "제품사양", "크기 & 무게")

# A hierarchical context: the product's headings above the hit, plus an unrelated hit from another product.
HIER = [
    ContextItem(PRODUCT, (), "ancestor", "Title"),
    ContextItem("제품사양", (PRODUCT,), "ancestor", "Title"),
    ContextItem("크기 & 무게", (PRODUCT, "제품사양"), "ancestor", "Title"),
    ContextItem("무게(스탠드 포함) : 2.9 kg", GOLD_PATH, "hit", "ListItem"),
    ContextItem("무게(스탠드 포함) : 5.4 kg", ("Nova 27QX", "제품사양", "크기 & 무게"), "hit", "ListItem"),
]
# The plain context of the same hits: no headings, no paths.
PLAIN = [ContextItem("무게(스탠드 포함) : 5.4 kg"), ContextItem("무게(스탠드 포함) : 2.9 kg")]


def test_normalise_is_casefold_nfkc_and_whitespace_free():
    assert normalise(" 2.9  KG\n") == "2.9kg"
    assert normalise("ＡＢＣ") == "abc"  # full-width → NFKC
    assert contains_answer("무게 : 2.9kg", ["2.9 kg"]) and not contains_answer("29 kg", ["2.9 kg"])


def test_headings_present_needs_every_heading_in_order_and_whole():
    assert headings_present(HIER, GOLD_PATH) is True
    assert headings_present(PLAIN, GOLD_PATH) is False
    assert headings_present(HIER, ("크기 & 무게", PRODUCT)) is False  # wrong order
    assert headings_present([ContextItem("보증기간 : 2년")], ("보증",)) is False  # a heading is matched whole
    assert headings_present(HIER, ()) is None
    # markup in a gold path written from the source does not matter
    assert headings_present([ContextItem("The Markdown class", (), "ancestor", "Title")], ("The `Markdown` class",))


def test_recall_matches_whole_tokens_only():
    assert contains_answer("Added in: v16.7.0", ["0"]) is False
    assert contains_answer("Default: 0", ["0"]) is True
    assert contains_answer("timeout (default 10)", ["0"]) is False and contains_answer("max 2.9", ["2"]) is False
    assert contains_answer("version 1.2.4", ["1.2"]) is False and contains_answer("version 1.2.", ["1.2"]) is True
    assert contains_answer("무게 : 2.9kg이며", ["2.9 kg"]) is True  # whitespace optional, particle may follow
    assert contains_answer("보증기간은 3년이다", ["3년"]) is True and contains_answer("13년", ["3년"]) is False
    assert contains_answer("Default: `utf8`", ["'utf8'"]) is True  # quotes and backticks ignored on both sides
    assert contains_answer("utf8mb4", ["utf8"]) is False and contains_answer("x", [""]) is False


def test_answer_exact_strips_quotes_on_both_sides():
    assert answer_match("Default: 'utf8'", ["'utf8'"]) == (True, True)
    assert answer_match("Default: `utf8`", ["utf8"]) == (True, True)
    assert answer_match("Defaults to `[TOC]`.", ["[TOC]"]) == (True, True)
    assert answer_match("Default: 'utf8mb4'", ["'utf8'"]) == (False, False)


def test_strict_attribution_needs_the_gold_element_under_its_gold_path():
    # The headings are all in the context, but the answer-bearing element sits under another product.
    twin = [
        ContextItem(PRODUCT, (), "ancestor", "Title"),
        ContextItem("제품사양", (PRODUCT,), "ancestor", "Title"),
        ContextItem("크기 & 무게", (PRODUCT, "제품사양"), "ancestor", "Title"),
        ContextItem("무게(스탠드 포함) : 2.9 kg", ("Nova 27QX", "제품사양", "크기 & 무게"), "hit", "ListItem"),
    ]
    assert headings_present(twin, GOLD_PATH) is True  # the loose check is fooled
    assert strict_attribution(twin, ["2.9 kg"], GOLD_PATH) is False
    assert strict_attribution(HIER, ["2.9 kg"], GOLD_PATH) is True
    assert strict_attribution(PLAIN, ["2.9 kg"], GOLD_PATH) is False  # a plain context shows no path
    gold = "무게(스탠드 포함) : 2.9 kg"
    assert strict_attribution(HIER, ["2.9 kg"], GOLD_PATH, gold) is True
    # another element holding the same value does not stand in for the gold element
    other = [ContextItem("총 무게 2.9 kg", GOLD_PATH, "hit", "ListItem")]
    assert strict_attribution(other, ["2.9 kg"], GOLD_PATH) is True
    assert strict_attribution(other, ["2.9 kg"], GOLD_PATH, gold) is False
    assert strict_attribution(HIER, [], ()) is None and strict_attribution(HIER, [], GOLD_PATH) is None


def test_grounded_needs_the_answer_under_the_gold_path():
    assert grounded(HIER, ["2.9 kg"], GOLD_PATH) is True
    assert grounded(HIER, ["5.4 kg"], GOLD_PATH) is False  # that value is under another product
    assert grounded(PLAIN, ["2.9 kg"], GOLD_PATH) is False
    assert grounded(HIER, [], GOLD_PATH) is None


def test_first_hit_rank_and_answer_match():
    assert first_hit_rank(["a", "무게 : 2.9 kg", "2.9kg"], ["2.9 kg"]) == 2
    assert first_hit_rank(["a"], ["2.9 kg"]) is None and first_hit_rank(["a"], []) is None
    assert extract_value("무게(스탠드 포함) : 2.9 kg") == "2.9 kg"
    assert extract_value("Text to find. Defaults to `[TOC]`.") == "[TOC]"
    assert answer_match("무게(스탠드 포함) : 2.9 kg", ["2.9kg"]) == (True, True)
    assert answer_match("보증기간 : 3년 (패널 포함)", ["3년"]) == (False, True)
    assert answer_match("nothing", ["3년"]) == (False, False)
    assert answer_match("x", []) == (None, None)


def test_scores_and_aggregate_on_a_fixed_set():
    # q1: answer at rank 2 under its path; q2: answer missing; q3: answer at rank 1, no gold path.
    s1 = score_question(answers=["2.9 kg"], gold_path=GOLD_PATH, items=HIER,
                        hit_texts=["무게(스탠드 포함) : 5.4 kg", "무게(스탠드 포함) : 2.9 kg"],
                        context_tokens=100, latency_ms=10.0, answer="무게(스탠드 포함) : 2.9 kg")
    s2 = score_question(answers=["7.7 kg"], gold_path=GOLD_PATH, items=PLAIN, hit_texts=[i.text for i in PLAIN],
                        context_tokens=40, latency_ms=30.0, answer="무게(스탠드 포함) : 5.4 kg")
    s3 = score_question(answers=["5.4kg"], gold_path=(), items=PLAIN, hit_texts=[i.text for i in PLAIN],
                        context_tokens=60, latency_ms=20.0, answer="무게(스탠드 포함) : 5.4 kg")
    assert (s1.recall, s1.hit_recall, s1.attribution, s1.grounded, s1.first_hit_rank, s1.reciprocal_rank) == (
        True, True, True, True, 2, 0.5)
    assert (s2.recall, s2.attribution, s2.first_hit_rank, s2.reciprocal_rank, s2.exact) == (
        False, False, None, 0.0, False)
    assert (s3.recall, s3.attribution, s3.grounded, s3.reciprocal_rank, s3.exact) == (True, None, None, 1.0, True)
    agg = aggregate([s1, s2, s3])
    assert agg.n == 3
    assert agg.recall == pytest.approx(2 / 3, abs=1e-4)
    assert agg.attribution == 0.5  # q3 has no gold path: not counted
    assert agg.grounded == 0.5
    assert agg.mrr == pytest.approx((0.5 + 0 + 1) / 3, abs=1e-4)
    assert agg.context_tokens_mean == pytest.approx(200 / 3, abs=0.01)
    assert agg.context_tokens_p50 == 60 and agg.latency_ms_p50 == 20.0
    assert agg.exact == pytest.approx(2 / 3, abs=1e-4)


def test_percentile_and_intervals():
    assert percentile([10, 20, 30, 40], 50) == 25.0 and percentile([], 50) is None
    assert wilson_interval(5, 10) == (0.2366, 0.7634)
    assert wilson_interval(0, 0) == (0.0, 1.0)
    low, high = wilson_interval(9.5, 10)
    assert low < 0.95 < high <= 1.0
    assert bootstrap_ci([1.0] * 10) == (1.0, 1.0)
    assert bootstrap_ci([0.0, 1.0] * 10) == bootstrap_ci([0.0, 1.0] * 10)  # seeded


def test_questions_format_loads_the_gold_set_and_rejects_bad_sets(tmp_path):
    gold = load_questions(ROOT / "data" / "questions.json")
    assert len(gold) == 58 and gold.questions[0].id == "q01" and gold.questions[0].gold_path
    assert load_questions(gold.as_dict()).as_dict() == gold.as_dict()  # round trip
    short = parse_questions([{"question": "x?", "answer": "y", "note": "kept"}])
    assert short.questions[0].answers == ("y",) and short.questions[0].as_dict()["note"] == "kept"
    for bad, message in [({"questions": []}, "empty"), ([{"id": "a", "question": "x"}, {"id": "a", "question": "y"}],
                                                         "duplicate"), ([{"question": ""}], "non-empty"),
                         ([{"question": "x", "answers": {"a": 1}}], "list of strings"), ("text", "expected")]:
        with pytest.raises(QuestionSetError, match=message):
            parse_questions(bad)
    broken = tmp_path / "broken.json"
    broken.write_text("{not json", encoding="utf-8")
    with pytest.raises(QuestionSetError, match="not valid JSON"):
        load_questions(broken)
