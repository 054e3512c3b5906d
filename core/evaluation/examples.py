"""Example questions that fit a collection: the hand-written set when the collection holds its documents,
otherwise questions generated from the collection's own elements (``generate_questions_from_store``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from core.evaluation.generator import generate_questions_from_store
from core.evaluation.questions import QuestionSetError, load_questions
from core.store import ElementStore

__all__ = ["Examples", "example_questions"]

MAX_EXAMPLES = 12


@dataclass(frozen=True)
class Examples:
    questions: tuple[str, ...]
    source: str  # where they come from, said next to the picker


def example_questions(store: ElementStore, question_file: Path, limit: int = MAX_EXAMPLES) -> Examples:
    """Questions of ``question_file`` whose documents are all in ``store`` (at least half of the set's), else up
    to ``limit`` questions generated from the stored elements; empty when neither gives any."""
    filenames = {d.filename for d in store.documents()}
    try:
        written = load_questions(question_file)
    except (OSError, QuestionSetError):
        written = None
    if written is not None:
        fitting = [q.question for q in written.questions if q.document and Path(q.document).name in filenames]
        if fitting and len(fitting) * 2 >= len(written.questions):
            return Examples(tuple(fitting), f"from {question_file.name}")
    generated = generate_questions_from_store(store, limit=limit)
    questions = tuple(q.question for q in generated.questions[:limit])
    source = f"generated from the documents of {store.collection!r}" if questions else "none fit this collection"
    return Examples(questions, source)
