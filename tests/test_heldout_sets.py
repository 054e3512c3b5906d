"""The held-out question sets (data/heldout/): well-formed, split by corpus, multi-fact questions with their facts;
bench/write_heldout_sets.py's fact readers and bench/fetch_corpora.py's pinned sdist path. No ingest."""

from __future__ import annotations

import hashlib
import io
import json
import tarfile

import pytest

from core.evaluation import load_questions
from core.evaluation.metrics import contains_answer

from .conftest import ROOT
from .helpers_bench import bench_module

HELDOUT = ROOT / "data" / "heldout"
CORPORA = ("cibuildwheel", "npm-cli", "korean-nlp", "copier", "pdm-changelog")
TUNE = {"cibuildwheel", "npm-cli"}
SHAPE_TUNE = ("black-faq", "hatch-changelog", "korean-payments")  # issue 29's FAQ/policy, changelog and Korean tune
# corpora: a generated or hand-written set each, and a multi-fact set


def _corpus(name: str) -> str:
    """The corpus of a set file: "black-faq-multi" → "black-faq", "copier-faq" → "copier"."""
    base = name.removesuffix("-multi")
    return base if base in SHAPE_TUNE else base.removesuffix("-faq")


def _sets() -> dict[str, dict]:
    return {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in sorted(HELDOUT.glob("*.json"))}


def test_every_corpus_has_a_generated_and_a_multi_fact_set_that_load():
    sets = _sets()
    assert set(sets) == {*CORPORA, *(f"{c}-multi" for c in (*CORPORA, *SHAPE_TUNE)), "samples-multi", "copier-faq",
                         *SHAPE_TUNE}
    ids = []
    for name in sets:
        questions = load_questions(HELDOUT / f"{name}.json").questions
        assert len(questions) >= (4 if name.endswith(("-multi", "-faq")) else 25), name
        for q in questions:
            assert q.answers and q.gold_path and q.document, q.id
            assert q.extra["corpus"] == _corpus(name)
            ids.append(q.id)
    assert len(ids) == len(set(ids))


def test_the_split_is_by_corpus_two_tune_three_reported():
    for name, data in _sets().items():
        corpus = _corpus(name)
        splits = {q["split"] for q in data["questions"]}
        shapes = {q["shape"] for q in data["questions"]}
        assert len(shapes) == 1, name
        if corpus == "samples":
            assert splits == {"tune"}  # the samples were tuned on long ago
        else:
            assert splits == {"tune" if corpus in {*TUNE, *SHAPE_TUNE} else "held_out"}, name
    readme = (HELDOUT / "README.md").read_text(encoding="utf-8")
    assert all(c in readme for c in (*CORPORA, *SHAPE_TUNE))


def test_multi_fact_questions_list_two_or_more_facts_with_paths():
    for name, data in _sets().items():
        if not name.endswith("-multi"):
            continue
        for q in data["questions"]:
            assert len(q["facts"]) >= 2, q["id"]
            assert all(f["answers"] and f["gold_path"] and f["document"] for f in q["facts"]), q["id"]
            assert "multi-fact" in q["tags"]


def test_sample_bridge_facts_are_in_the_samples_under_their_paths():
    """The one multi-fact set whose corpus is in the repository: each fact read back from the parsed document."""
    from core.elements import Element
    from core.ingest import parse

    for q in _sets()["samples-multi"]["questions"]:
        for fact in [*q["facts"], {"answers": q["answers"], "gold_path": q["gold_path"], "document": q["document"]}]:
            text = (ROOT / "data" / "samples" / fact["document"]).read_text(encoding="utf-8")
            elements = [Element.from_document(d) for d in parse(text, source=fact["document"], document_id="d")]
            assert any(contains_answer(e.text, fact["answers"])
                       and tuple(e.heading_path[: len(fact["gold_path"])]) == tuple(fact["gold_path"])
                       for e in elements), (q["id"], fact)


def _elements(text: str, document: str) -> list:
    from core.elements import Element
    from core.ingest import parse

    return [Element.from_document(d) for d in parse(text, source=document, document_id=document)]


def test_changelog_facts_give_release_dates_and_the_release_of_an_issue():
    sets = bench_module("write_heldout_sets")
    text = ("## Release v2.1.0 (2026-01-02)\n\n### Bug Fixes\n\n- Fix a crash. ([#3903](https://x/3903))\n\n"
            "## Release v2.0.0 (2025-12-01)\n\n### Features\n\n- Add a thing. (#12)\n")
    facts = sets.changelog_facts(_elements(text, "CHANGELOG.md"), "CHANGELOG.md")
    by_kind = {(f.kind, f.key if f.kind == "fixed_in" else f.subject): f for f in facts}
    assert by_kind[("release_date", "2.1.0")].value == "2026-01-02"
    assert by_kind[("fixed_in", "3903")].answers == ("v2.1.0", "2.1.0")
    assert by_kind[("fixed_in", "3903")].path == ("Release v2.1.0 (2026-01-02)",)  # the heading holds the answer
    assert by_kind[("fixed_in", "12")].value == "2.0.0"


def test_keep_a_changelog_facts_give_release_dates_and_the_release_of_an_entry():
    sets = bench_module("write_heldout_sets")
    text = ("# Hatch history\n\n## [1.12.0](https://x/v1.12.0) - 2024-05-28 ## {: #v1.12.0 }\n\n***Added:***\n\n"
            "- Upgrade PyApp to 0.22.0 for binary builds\n- Fix it\n")
    facts = sets.keep_a_changelog_facts(_elements(text, "history/hatch.md"), "history/hatch.md", "hatch")
    date = next(f for f in facts if f.kind == "release_date")
    assert (date.subject, date.value, date.path[-1]) == ("1.12.0", "2024-05-28", "1.12.0 - 2024-05-28")
    entries = [f for f in facts if f.kind == "changed_in"]
    assert [(f.subject, f.value) for f in entries] == [("Upgrade PyApp to 0.22.0 for binary builds", "1.12.0")]
    assert entries[0].path == ("Hatch history", "1.12.0 - 2024-05-28")  # the heading holds the answer
    assert sets.ask("hatch-changelog", entries[0], "x").count("upgrade PyApp to 0.22.0 for binary builds") == 1


def test_korean_facts_read_html_tag_rows_and_version_history():
    sets = bench_module("write_heldout_sets")
    text = ("# 키위\n\n## 태그 목록\n\n<table>\n<tr><th>대분류</th><th>태그</th><th>설명</th></tr>\n"
            "<tr><th rowspan='2'>체언(N)</th><td>NNG</td><td>일반 명사</td></tr>\n"
            "<tr><td>NNB</td><td>의존 명사</td></tr>\n"
            "</table>\n\n## 역사\n\n* 0.24.1 (2026-10-20)\n    * 버그 수정\n")
    facts = sets.korean_facts(_elements(text, "k.md"), "k.md")
    assert {(f.kind, f.entity or f.subject, f.value) for f in facts} == {
        ("tag", "NNG", "일반 명사"), ("tag", "NNB", "의존 명사"), ("version_date", "0.24.1", "2026-10-20")}
    question = sets.ask("korean-nlp", facts[0], "seed")
    assert "NNG" in question and "일반 명사" not in question  # asks, never tells


def test_gold_forms_strip_only_one_quoted_string():
    sets = bench_module("write_heldout_sets")
    assert sets.gold_forms('"~/.npmrc"') == ['"~/.npmrc"', "~/.npmrc"]
    assert sets.gold_forms('"always" or Boolean') == ['"always" or Boolean']  # quotes inside: as written


def _sdist(tmp_path, files: dict[str, bytes]):
    path = tmp_path / "demo-1.0.tar.gz"
    with tarfile.open(path, "w:gz") as tf:
        for member, data in files.items():
            info = tarfile.TarInfo(member)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    return path


def test_sdist_members_and_checksum(tmp_path):
    fetch = bench_module("fetch_corpora")
    sdist = _sdist(tmp_path, {"demo-1.0/README.md": b"# demo\n", "demo-1.0/docs/a/b.md": b"# b\n",
                              "demo-1.0/docs/x.png": b"png", "demo-1.0/src/notes.md": b"# no\n",
                              "demo-1.0/CHANGELOG.md": b"# log\n"})
    out = tmp_path / "out"
    written = fetch.extract_sdist_members(sdist, ("docs", "README.md"), out)
    assert sorted(p.relative_to(out).as_posix() for p in written) == ["README.md", "a/b.md"]
    with pytest.raises(fetch.FetchError, match="lacks HISTORY.md"):
        fetch.extract_sdist_members(sdist, ("HISTORY.md",), tmp_path / "none")
    fetch.check_sha256(sdist, hashlib.sha256(sdist.read_bytes()).hexdigest())
    with pytest.raises(fetch.FetchError, match="refusing"):
        fetch.check_sha256(sdist, "0" * 64)
