"""Answers from the plain and the hierarchical context, and the side-by-side comparison.

* :mod:`core.answering.answerers`: the :class:`Answerer` protocol, :class:`LLMAnswerer` (the RAG prompt through
  ``core.llm``: retries, a total deadline, clear errors) and :func:`default_answerer`.
* :mod:`core.answering.extractive`: :class:`ExtractiveAnswerer`, answers without a model.
* :mod:`core.answering.table`: the comparison table (entities × attribute) of comparative, superlative and
  list questions, values read as quantities (:mod:`core.quantities`).
* :mod:`core.answering.comparison`: one retrieval answered in each mode (:func:`compare`,
  :func:`answer_concurrently`), with each answer's sources.
* :mod:`core.answering.version_history`: a document's versions read from the store (which one a name or date
  means, diffs with the stored keys, changes since a date, a version's bytes); :mod:`core.answering.changes`:
  "what changed" questions answered from those diffs, without a model.
* :mod:`core.answering.prompts`: the wording (the RAG prompt, the extractive answer's labels).
"""

from __future__ import annotations

from core.answering.answerers import Answerer, LLMAnswerer, default_answerer
from core.answering.comparison import (
    Answer,
    AnswerEvent,
    AnswerStream,
    Comparison,
    ModeResult,
    Source,
    answer_concurrently,
    compare,
)
from core.answering.evidence import Evidence
from core.answering.extractive import ExtractiveAnswerer, score_evidence
from core.answering.table import ComparisonTable, TableRow, build_table

__all__ = [
    "Answer",
    "AnswerEvent",
    "AnswerStream",
    "Answerer",
    "Comparison",
    "ComparisonTable",
    "Evidence",
    "ExtractiveAnswerer",
    "LLMAnswerer",
    "ModeResult",
    "Source",
    "TableRow",
    "answer_concurrently",
    "build_table",
    "compare",
    "default_answerer",
    "score_evidence",
]
