"""Question sets: the documented ``questions.json`` format, loading, validation and saving.

Format (one JSON object; ``data/questions.json`` is the reference example)::

    {"name": "samples", "description": "…", "questions": [
      {"id": "q01",
       "question": "Nova 24FL 모니터의 무게(스탠드 포함)는 얼마인가요?",
       "answers": ["2.9 kg", "2.9kg"],
       "gold_path": ["노바 Nova 24FL …", "제품사양", "크기 & 무게"],
       "document": "nova-24fl-monitor-ko.md",
       "gold_element": "무게(스탠드 포함) : 2.9 kg",
       "tags": ["spec", "disambiguation", "korean"]}
    ]}

* ``id`` (required, unique): a stable id, so results of two runs can be joined per question.
* ``question`` (required): the question text.
* ``answers`` (required for recall, MRR and answer match): acceptable short answers. Matching is
  case-insensitive (casefold) and whitespace-insensitive: "2.9kg" matches "2.9 kg".
* ``gold_path`` (optional, needed for attribution): the heading texts from the document's top heading down to the
  section holding the answer, as written but without the ``#`` marks.
* ``document`` (optional): the file the answer comes from (file name or path relative to the corpus root).
* ``gold_element`` (optional): the text of the element that holds the answer (the generator fills it in).
* ``tags`` (optional): free labels used to slice results (``korean``, ``disambiguation``, ``generated`` …).

A bare list of question objects is accepted too, and so is ``answer`` (one string) instead of ``answers``.
Unknown fields are kept in ``extra`` and written back, so a set survives a load/save round trip.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["Question", "QuestionSet", "QuestionSetError", "load_questions", "parse_questions", "save_questions"]

MAX_QUESTIONS = 10_000
_KNOWN = {"id", "question", "answers", "answer", "gold_path", "document", "gold_element", "tags"}


class QuestionSetError(ValueError):
    """A question set that cannot be used; the message lists every problem found (up to a few)."""


@dataclass(frozen=True)
class Question:
    id: str
    question: str
    answers: tuple[str, ...] = ()
    gold_path: tuple[str, ...] = ()
    document: str | None = None
    gold_element: str | None = None
    tags: tuple[str, ...] = ()
    extra: Mapping[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "question": self.question, "answers": list(self.answers),
                               "gold_path": list(self.gold_path)}
        if self.document is not None:
            out["document"] = self.document
        if self.gold_element is not None:
            out["gold_element"] = self.gold_element
        out["tags"] = list(self.tags)
        out.update({k: v for k, v in self.extra.items() if k not in out})
        return out


@dataclass(frozen=True)
class QuestionSet:
    name: str
    questions: tuple[Question, ...]
    description: str = ""

    def __len__(self) -> int:
        return len(self.questions)

    def subset(self, ids: Iterable[str] | None = None, *, limit: int | None = None,
               tags: Iterable[str] | None = None) -> QuestionSet:
        """The questions with the given ids / any of the tags, at most ``limit`` of them, in set order."""
        wanted = set(ids) if ids is not None else None
        tag_set = set(tags) if tags is not None else None
        picked = [q for q in self.questions
                  if (wanted is None or q.id in wanted) and (tag_set is None or tag_set & set(q.tags))]
        if limit is not None:
            picked = picked[: max(limit, 0)]
        return QuestionSet(self.name, tuple(picked), self.description)

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "description": self.description,
                "questions": [q.as_dict() for q in self.questions]}


def _strings(value: Any, where: str, problems: list[str]) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str | int | float) for v in value):
        problems.append(f"{where}: must be a list of strings")
        return ()
    return tuple(str(v).strip() for v in value if str(v).strip())


def parse_questions(data: Any, *, name: str = "questions") -> QuestionSet:
    """A :class:`QuestionSet` from decoded JSON; raises :class:`QuestionSetError` listing what is wrong."""
    description = ""
    if isinstance(data, Mapping):
        name = str(data.get("name") or name)
        description = str(data.get("description") or "")
        items = data.get("questions")
    else:
        items = data
    if not isinstance(items, list):
        raise QuestionSetError('expected {"questions": [...]} or a list of question objects')
    if not items:
        raise QuestionSetError("the question set is empty")
    if len(items) > MAX_QUESTIONS:
        raise QuestionSetError(f"too many questions ({len(items)}); the limit is {MAX_QUESTIONS}")
    problems: list[str] = []
    questions: list[Question] = []
    seen: set[str] = set()
    for index, item in enumerate(items):
        where = f"question {index + 1}"
        if not isinstance(item, Mapping):
            problems.append(f"{where}: not an object")
            continue
        qid = str(item.get("id") or f"q{index + 1:03d}").strip()
        where = f"question {qid!r}"
        if qid in seen:
            problems.append(f"{where}: duplicate id")
        seen.add(qid)
        text = item.get("question")
        if not isinstance(text, str) or not text.strip():
            problems.append(f"{where}: 'question' must be a non-empty string")
            continue
        answers = _strings(item.get("answers", item.get("answer")), f"{where} answers", problems)
        gold_path = _strings(item.get("gold_path"), f"{where} gold_path", problems)
        tags = _strings(item.get("tags"), f"{where} tags", problems)
        document = item.get("document")
        gold_element = item.get("gold_element")
        questions.append(Question(
            id=qid, question=text.strip(), answers=answers, gold_path=gold_path,
            document=str(document) if document not in (None, "") else None,
            gold_element=str(gold_element) if gold_element not in (None, "") else None,
            tags=tags, extra={k: v for k, v in item.items() if k not in _KNOWN},
        ))
    if problems:
        shown = "; ".join(problems[:5]) + (f"; … and {len(problems) - 5} more" if len(problems) > 5 else "")
        raise QuestionSetError(f"invalid question set: {shown}")
    return QuestionSet(name, tuple(questions), description)


def load_questions(source: str | Path | bytes | Mapping[str, Any] | Sequence[Any], *,
                   name: str | None = None) -> QuestionSet:
    """Load a question set from a path, raw JSON bytes (an upload) or already decoded JSON."""
    if isinstance(source, str | Path):
        path = Path(source)
        try:
            raw: Any = json.loads(path.read_text(encoding="utf-8-sig"))
        except OSError as exc:
            raise QuestionSetError(f"cannot read {path}: {exc.strerror or exc}") from exc
        except json.JSONDecodeError as exc:
            raise QuestionSetError(f"{path} is not valid JSON: {exc}") from exc
        return parse_questions(raw, name=name or path.stem)
    if isinstance(source, bytes | bytearray):
        try:
            raw = json.loads(bytes(source).decode("utf-8-sig"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise QuestionSetError(f"not valid UTF-8 JSON: {exc}") from exc
        return parse_questions(raw, name=name or "uploaded")
    return parse_questions(source, name=name or "questions")


def save_questions(qset: QuestionSet, path: str | Path) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(qset.as_dict(), ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return path
