"""The unseen report-only question sets (data/unseen/): well-formed, all held out, registered and pinned;
bench/write_unseen_sets.py's fact readers; and, where a corpus is fetched, each gold answer read back from its
document under its gold path. No ingest."""

from __future__ import annotations

import pytest

from .conftest import ROOT
from .helpers_bench import (
    assert_gold_read_back,
    assert_held_out_batch,
    assert_registered_and_pinned,
    bench_module,
    parsed_elements,
)

UNSEEN = ROOT / "data" / "unseen"
CORPORA = ("bumpversion-ref", "httpie-cli", "korean-caselaw", "jupytext-faq", "pydantic-history")


def test_each_corpus_has_one_held_out_set_that_loads_with_multi_fact_questions():
    sets = assert_held_out_batch(UNSEEN, CORPORA, fewest=20)
    assert all(len({q["shape"] for q in questions}) == 1 for questions in sets)
    readme = (UNSEEN / "README.md").read_text(encoding="utf-8")
    assert all(c in readme for c in CORPORA) and "report" in readme.lower()


def test_each_set_is_registered_and_its_corpus_pinned():
    assert_registered_and_pinned("unseen", UNSEEN, CORPORA)


def test_field_list_facts_read_each_pair_under_the_option_heading():
    sets = bench_module("write_unseen_sets")
    text = ("# Global\n\n## allow_dirty\n\n::: field-list\n    required\n    :   No\n\n    default\n    :   `False`\n\n"
            "    command line option\n    :   `--allow-dirty | --no-allow-dirty`\n\n    environment var\n"
            "    :   `BUMPVERSION_ALLOW_DIRTY`\n\nAbort when the tree is dirty.\n")
    facts = sets.field_list_facts(parsed_elements(text, "global.md"), "global.md")
    assert {(f.subject, f.key, f.value) for f in facts} == {
        ("allow_dirty", "default", "False"), ("allow_dirty", "cli flag", "--allow-dirty"),
        ("allow_dirty", "env var", "BUMPVERSION_ALLOW_DIRTY")}
    assert all(f.path == ("Global", "allow_dirty") for f in facts)


def test_dated_changelog_facts_give_dates_pr_numbers_and_entry_words():
    sets = bench_module("write_unseen_sets")
    text = ("## v2.11.7 (2025-06-14)\n\n### What's Changed\n\n#### Fixes\n\n"
            "* Copy `FieldInfo` instance if necessary during build by @Viicos in [#11898](https://x/11898)\n")
    facts = sets.dated_changelog_facts(parsed_elements(text, "HISTORY.md"), "HISTORY.md", "pydantic")
    by_kind = {f.kind: f for f in facts}
    assert (by_kind["release_date"].subject, by_kind["release_date"].value) == ("2.11.7", "2025-06-14")
    assert (by_kind["fixed_in"].key, by_kind["fixed_in"].answers) == ("11898", ("v2.11.7", "2.11.7"))
    assert by_kind["changed_in"].subject == "Copy FieldInfo instance if necessary during build"  # no author, no PR
    assert by_kind["fixed_in"].path == ("v2.11.7 (2025-06-14)",)  # the release heading holds the answer


def test_heading_flag_facts_take_one_flag_the_section_opens_with():
    sets = bench_module("write_unseen_sets")
    text = ("# Docs\n\n## Offline mode\n\nUse `--offline` to build the request and print it.\n\n"
            "## Two flags\n\nEither `--a-flag` or `--b-flag`.\n")
    facts = sets.heading_flag_facts(parsed_elements(text, "README.md"), "README.md")
    assert [(f.subject, f.value) for f in facts] == [("Offline mode", "--offline")]


@pytest.mark.parametrize("corpus", CORPORA)
def test_gold_answers_are_in_their_documents_under_their_gold_paths(corpus):
    assert_gold_read_back(corpus, UNSEEN)
