"""The second batch of unseen report-only question sets (data/unseen2/): well-formed, all held out, registered and
pinned; bench/write_unseen2_sets.py's own readers; and, where a corpus is fetched, each gold answer read back from
its document under its gold path. No ingest."""

from __future__ import annotations

import pytest

from .conftest import ROOT
from .helpers_bench import (
    assert_asks_in_korean_and_english,
    assert_gold_read_back,
    assert_held_out_batch,
    assert_registered_and_pinned,
    bench_module,
    parsed_elements,
    question_sets,
)

UNSEEN2 = ROOT / "data" / "unseen2"
CORPORA = ("webpack-options", "dotenv-faq", "korean-admdong", "structlog-guide")


def test_each_corpus_has_one_held_out_set_with_hand_written_and_multi_fact_questions():
    sets = assert_held_out_batch(UNSEEN2, CORPORA, fewest=30, most=45)
    assert all(sum("hand" in q["tags"] for q in questions) >= 10 for questions in sets)
    first = {q["id"] for questions in question_sets(ROOT / "data" / "unseen").values() for q in questions["questions"]}
    assert not first & {q["id"] for questions in sets for q in questions}  # a second batch, not the first again
    readme = (ROOT / "data" / "unseen" / "README.md").read_text(encoding="utf-8")
    assert all(c in readme for c in CORPORA) and "unseen2-" in readme


def test_korean_set_asks_in_korean_and_in_english():
    assert_asks_in_korean_and_english(question_sets(UNSEEN2)["korean-admdong"]["questions"])


def test_each_set_is_registered_and_its_corpus_pinned():
    assert_registered_and_pinned("unseen2", UNSEEN2, CORPORA)
    assert all(bench_module("bench_eval").SETS[f"unseen2-{c}"].collection == f"unseen2-{c}" for c in CORPORA)


def test_option_facts_name_the_package_and_keep_rows_under_a_heading():
    sets = bench_module("write_unseen2_sets")
    text = ("# css-loader\n\n## Options\n\n### `importLoaders`\n\nDefault: `0`\n\nHow many loaders run first.\n\n"
            "### `exportType`\n\nDefault: `'array'`\n")
    facts = sets.option_facts(parsed_elements(text, "css-loader.md"), "css-loader.md")
    assert {(f.subject, f.value) for f in facts} == {("css-loader importLoaders", "0"),
                                                   ("css-loader exportType", "'array'")}
    assert all(f.kind == "default" and f.path[-1] in ("importLoaders", "exportType") for f in facts)


def test_keep_a_changelog_pr_facts_give_dates_pr_numbers_and_words_without_the_pr():
    sets = bench_module("write_unseen2_sets")
    text = ("# Changelog\n\n## [25.4.0](https://x/compare/25.3.0...25.4.0) - 2025-06-02\n\n### Added\n\n"
            "- Support for Python 3.14 and Python 3.13.4.\n  [#723](https://x/pull/723)\n")
    facts = sets.keep_a_changelog_pr_facts(parsed_elements(text, "CHANGELOG.md"), "CHANGELOG.md", "structlog")
    by_kind = {f.kind: f for f in facts}
    assert (by_kind["release_date"].subject, by_kind["release_date"].value) == ("25.4.0", "2025-06-02")
    assert (by_kind["fixed_in"].key, by_kind["fixed_in"].answers) == ("723", ("25.4.0",))
    assert by_kind["changed_in"].subject == "Support for Python 3.14 and Python 3.13.4"
    assert by_kind["fixed_in"].path == ("Changelog", "25.4.0 - 2025-06-02")


@pytest.mark.parametrize("corpus", CORPORA)
def test_gold_answers_are_in_their_documents_under_their_gold_paths(corpus):
    assert_gold_read_back(corpus, UNSEEN2)
