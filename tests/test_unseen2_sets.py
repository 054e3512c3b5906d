"""The second batch of unseen report-only question sets (data/unseen2/): well-formed, all held out, registered and
pinned; bench/write_unseen2_sets.py's own readers; and, where a corpus is fetched, each gold answer read back from
its document under its gold path. No ingest."""

from __future__ import annotations

import json
import re

import pytest

from core.evaluation import load_questions
from core.evaluation.metrics import contains_answer

from .conftest import ROOT
from .helpers_bench import assert_gold_answers_in_their_documents, bench_module, parsed_elements

UNSEEN2 = ROOT / "data" / "unseen2"
CORPORA = ("webpack-options", "dotenv-faq", "korean-admdong", "structlog-guide")


def _sets() -> dict[str, dict]:
    return {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in sorted(UNSEEN2.glob("*.json"))}


def test_each_corpus_has_one_held_out_set_with_hand_written_and_multi_fact_questions():
    sets = _sets()
    assert set(sets) == set(CORPORA)
    ids = []
    for name, data in sets.items():
        questions = load_questions(UNSEEN2 / f"{name}.json").questions
        assert 30 <= len(questions) <= 45, name
        assert {q.extra["split"] for q in questions} == {"held_out"}, name  # report-only, never tuned on
        assert {q.extra["corpus"] for q in questions} == {name}
        for q in questions:
            assert q.answers and q.gold_path and q.document, q.id
            assert not any(contains_answer(q.question, [a]) for a in q.answers), q.id  # asks, never tells
        tags = [q["tags"] for q in data["questions"]]
        assert sum("hand" in t for t in tags) >= 10, name
        multi = [q for q in data["questions"] if "facts" in q]
        assert len(multi) >= 2, name
        for q in multi:
            assert len(q["facts"]) >= 2 and "multi-fact" in q["tags"], q["id"]
            assert all(f["answers"] and f["gold_path"] and f["document"] for f in q["facts"]), q["id"]
        ids += [q.id for q in questions]
    assert len(ids) == len(set(ids))
    first = {q["id"] for p in (ROOT / "data" / "unseen").glob("*.json")
             for q in json.loads(p.read_text(encoding="utf-8"))["questions"]}
    assert not first & set(ids)  # a second batch, not the first again
    readme = (ROOT / "data" / "unseen" / "README.md").read_text(encoding="utf-8")
    assert all(c in readme for c in CORPORA) and "unseen2-" in readme


def test_korean_set_asks_in_korean_and_in_english():
    questions = _sets()["korean-admdong"]["questions"]
    korean = [q for q in questions if re.search(r"[\uac00-\ud7a3]", q["question"])]
    assert len(korean) >= 25 and len(questions) - len(korean) >= 2


def test_each_set_is_registered_and_its_corpus_pinned():
    bench_eval = bench_module("bench_eval")
    fetch = bench_module("fetch_corpora")
    for corpus in CORPORA:
        spec = bench_eval.SETS[f"unseen2-{corpus}"]
        assert spec.questions == UNSEEN2 / f"{corpus}.json" and spec.fetched == corpus
        assert spec.collection == f"unseen2-{corpus}"
        if corpus in fetch.NPM_CORPORA:
            packages, _ = fetch.NPM_CORPORA[corpus]
            assert packages and all(re.fullmatch(r"[0-9a-f]{64}", fetch.NPM_SHA256[p]) for p in packages)
        else:
            parts = fetch.SDIST_CORPORA[corpus]
            assert parts and all(re.fullmatch(r"[0-9a-f]{64}", p.sha256) and "==" in p.requirement for p in parts)


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
    if not (ROOT / "bench" / "corpora" / corpus / ".fetched.json").exists():
        pytest.skip(f"bench/fetch_corpora.py --corpus {corpus} not run")
    assert_gold_answers_in_their_documents(corpus, _sets()[corpus]["questions"])
