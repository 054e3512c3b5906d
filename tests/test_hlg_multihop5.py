"""Issue 31, fifth round: each fact of a multi-fact question attributed under its own path, and the question's one
gold path the place of its own gold answer."""

from __future__ import annotations

import json

import pytest

from core.evaluation.metrics import contains_answer
from core.retrieval.context import Context, ContextElement

from .conftest import ROOT
from .helpers_bench import bench_module

HELDOUT = ROOT / "data" / "heldout"
# Report-only sets: only their totals are read, never a question (data/heldout/README.md).
REPORT_ONLY = ("korean-nlp", "copier", "pdm-changelog")


def _context(*elements: tuple[tuple[str, ...], str]) -> Context:
    items = [ContextElement(f"e{i}", f"e{i}", "hit", "NarrativeText", text, "d", path)
             for i, (path, text) in enumerate(elements)]
    return Context("hierarchical", "", "", items, 0)


def _tune_multi_sets() -> dict[str, dict]:
    return {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in sorted(HELDOUT.glob("*-multi.json"))
            if not p.stem.removesuffix("-multi").startswith(REPORT_ONLY)}


FACTS = [{"answers": ["Default: 900"], "gold_path": ["Config Settings", "searchstaleness"]},
         {"answers": ["Default: 20"], "gold_path": ["Config Settings", "searchlimit"]}]


def test_each_fact_is_attributed_only_under_its_own_gold_path():
    bench_eval = bench_module("bench_eval")
    both = _context((("Config Settings", "searchstaleness"), "Default: 900"),
                    (("Config Settings", "searchlimit"), "Default: 20"))
    assert bench_eval.facts_attributed(both, FACTS) is True
    # the value present, but under the other setting's heading: held, not attributed
    swapped = _context((("Config Settings", "searchlimit"), "Default: 900"),
                       (("Config Settings", "searchlimit"), "Default: 20"))
    assert bench_eval.facts_attributed(swapped, FACTS) is False
    one = _context((("Config Settings", "searchstaleness"), "Default: 900"))
    assert bench_eval.facts_attributed(one, FACTS) is False


def test_the_fact_columns_are_aggregated_per_mode():
    bench_eval = bench_module("bench_eval")
    rows = [{"recall": True, "attribution": True, "answer_contains": True, "answer_exact": None, "tokens": 10,
             "old_recall": True, "old_attribution": True, "latency_ms": 1.0, "search_ms": 1.0,
             "all_facts": True, "facts_attributed": attributed, "facts_answered": False}
            for attributed in (True, False)]
    agg = bench_eval._aggregate(rows)
    assert (agg["all_facts"], agg["facts_attributed"], agg["facts_answered"]) == (1.0, 0.5, 0.0)
    assert "facts_attributed" in bench_eval.EXTRA_COLUMNS


def test_a_multi_fact_question_names_the_path_of_the_fact_holding_its_gold_answer():
    """Strict attribution reads the question's one gold path against its gold answer: that path must be the place
    of the fact the answer belongs to (four tune questions named another fact's), or it can never be true."""
    for name, data in _tune_multi_sets().items():
        for q in data["questions"]:
            holders = [f for f in q["facts"] if contains_answer("\n".join([*f["answers"], *f["gold_path"]]),
                                                                q["answers"])]
            assert any((f["gold_path"], f["document"]) == (q["gold_path"], q["document"]) for f in holders), \
                (name, q["id"])


def test_the_tune_multi_fact_answers_are_in_their_documents_under_their_gold_paths():
    from .helpers_bench import assert_gold_answers_in_their_documents

    for corpus in ("cibuildwheel", "npm-cli"):
        if not (ROOT / "bench" / "corpora" / corpus / ".fetched.json").exists():
            pytest.skip(f"bench/fetch_corpora.py --corpus {corpus} not run")
        questions = json.loads((HELDOUT / f"{corpus}-multi.json").read_text(encoding="utf-8"))["questions"]
        assert_gold_answers_in_their_documents(corpus, questions)


def _refs(*paths: tuple[str, ...]) -> list:
    from core.retrieval.headings import HeadingRef

    return [HeadingRef(f"h{i}", path[-1], path[:-1], path[0], f"{path[0]}.md", i) for i, path in enumerate(paths)]


WIDENING = _refs(("Options",), ("Options", "Build customization"), ("Options", "Build customization", "build-frontend"),
                 ("Options", "Build customization", "container-engine"),
                 *(("Options", "Build customization", f"tool-{n}") for n in range(30)),
                 ("Nova 32UX",), ("Nova 32UX", "Specifications"), ("Nova 32UX", "Specifications", "Stand"),
                 ("Nova 27QX",), ("Nova 27QX", "Specifications"), ("Nova 27QX", "Specifications", "Stand"))


def test_a_heading_repeating_its_sections_word_is_the_scope_not_that_section():
    """"which build frontend" names the option ``build-frontend``: the section above it ("Build customization")
    shares only the word the option repeats, so the scope is not widened to it (it was: its k hits were other
    options' examples). A path whose root holds a word the heading lacks (the product) still widens to it."""
    from core.retrieval.headings import rank_headings

    ranked = rank_headings("cibuildwheel defaults: which build frontend?", WIDENING)
    assert ranked and [h.text for h in ranked[0].headings] == ["build-frontend"], ranked
    ranked = rank_headings("how high does the Nova 32UX stand go?", WIDENING)
    assert ranked and [h.text for h in ranked[0].headings] == ["Nova 32UX"], ranked
