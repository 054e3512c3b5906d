"""The third batch of unseen report-only question sets (data/unseen3/): well-formed, all held out, registered and
pinned, no package of an earlier set; bench/write_unseen3_sets.py's own reader; and, where a corpus is fetched,
each gold answer read back from its document under its gold path. No ingest."""

from __future__ import annotations

import json
import re

import pytest

from core.evaluation import load_questions
from core.evaluation.metrics import contains_answer

from .conftest import ROOT
from .helpers_bench import assert_gold_answers_in_their_documents, bench_module, parsed_elements

UNSEEN3 = ROOT / "data" / "unseen3"
CORPORA = ("jupyterbook-guide", "aider-faq", "terser-options", "korean-manseryeok")


def _sets() -> dict[str, dict]:
    return {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in sorted(UNSEEN3.glob("*.json"))}


def test_each_corpus_has_one_held_out_set_mostly_hand_written_with_multi_fact_questions():
    sets = _sets()
    assert set(sets) == set(CORPORA)
    ids = []
    for name, data in sets.items():
        questions = load_questions(UNSEEN3 / f"{name}.json").questions
        assert 30 <= len(questions) <= 45, name
        assert {q.extra["split"] for q in questions} == {"held_out"}, name  # report-only, never tuned on
        assert {q.extra["corpus"] for q in questions} == {name}
        for q in questions:
            assert q.answers and q.gold_path and q.document, q.id
            assert not any(contains_answer(q.question, [a]) for a in q.answers), q.id  # asks, never tells
        tags = [q["tags"] for q in data["questions"]]
        assert 2 * sum("hand" in t or "multi-fact" in t for t in tags) >= len(tags), name  # at least half by hand
        multi = [q for q in data["questions"] if "facts" in q]
        assert len(multi) >= 2, name
        for q in multi:
            assert len(q["facts"]) >= 2 and "multi-fact" in q["tags"], q["id"]
            assert all(f["answers"] and f["gold_path"] and f["document"] for f in q["facts"]), q["id"]
        ids += [q.id for q in questions]
    assert len(ids) == len(set(ids))
    earlier = {q["id"] for folder in ("unseen", "unseen2") for p in (ROOT / "data" / folder).glob("*.json")
               for q in json.loads(p.read_text(encoding="utf-8"))["questions"]}
    assert not earlier & set(ids)  # a third batch, not an earlier one again
    readme = (ROOT / "data" / "unseen" / "README.md").read_text(encoding="utf-8")
    assert all(c in readme for c in CORPORA) and "unseen3-" in readme


def test_korean_set_asks_in_korean_and_in_english():
    questions = _sets()["korean-manseryeok"]["questions"]
    korean = [q for q in questions if re.search(r"[\uac00-\ud7a3]", q["question"])]
    assert len(korean) >= 25 and len(questions) - len(korean) >= 2


def test_each_set_is_registered_and_its_corpus_pinned_from_a_package_no_earlier_set_uses():
    bench_eval = bench_module("bench_eval")
    fetch = bench_module("fetch_corpora")

    def packages(corpus: str) -> set[str]:
        if corpus in fetch.NPM_CORPORA:
            return {spec.rsplit("@", 1)[0] for spec in fetch.NPM_CORPORA[corpus][0]}
        return {fetch.normalize(part.requirement.split("==")[0]) for part in fetch.SDIST_CORPORA.get(corpus, ())}

    others = set().union(*(packages(c) for c in [*fetch.NPM_CORPORA, *fetch.SDIST_CORPORA] if c not in CORPORA))
    for corpus in CORPORA:
        spec = bench_eval.SETS[f"unseen3-{corpus}"]
        assert spec.questions == UNSEEN3 / f"{corpus}.json" and spec.fetched == corpus
        assert spec.collection == f"unseen3-{corpus}"
        if corpus in fetch.NPM_CORPORA:
            specs, _ = fetch.NPM_CORPORA[corpus]
            assert specs and all(re.fullmatch(r"[0-9a-f]{64}", fetch.NPM_SHA256[p]) for p in specs)
        else:
            parts = fetch.SDIST_CORPORA[corpus]
            assert parts and all(re.fullmatch(r"[0-9a-f]{64}", p.sha256) and "==" in p.requirement for p in parts)
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
    if not (ROOT / "bench" / "corpora" / corpus / ".fetched.json").exists():
        pytest.skip(f"bench/fetch_corpora.py --corpus {corpus} not run")
    assert_gold_answers_in_their_documents(corpus, _sets()[corpus]["questions"])
