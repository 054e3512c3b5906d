"""Loading a bench/ script as a module, and reading a set's gold answers back from its corpus, for tests of the
question-set writers."""

from __future__ import annotations

import importlib.util
import sys
from functools import cache
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
