"""The question: the one set of rules every entry point applies before searching.

Every entry point (``retrieve()`` and so ``compare()``, the CLI ``ask``, the Compare page, the LangChain
retrievers, evaluation) goes through :func:`validate_question`, so the rules below hold everywhere and are
written once.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["EMPTY_QUESTION", "MAX_QUESTION_CHARS", "QuestionError", "validate_question"]

# Long enough for any real question with some pasted context (the sample questions are < 100 characters);
# short enough that a pasted document is refused instead of being embedded and sent to a model as a question.
MAX_QUESTION_CHARS = 2_000
# C0 and C1 control characters except tab and newline (carriage returns become newlines first). NUL cannot be
# stored in Postgres text and the others are invisible; none carries meaning in a question.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
# Lone surrogates: what Python makes of invalid UTF-8 in argv; they cannot be encoded to print or to store.
_SURROGATE = re.compile(r"[\ud800-\udfff]")
EMPTY_QUESTION = "Ask a question: the question is empty (or only spaces and control characters)."


class QuestionError(ValueError):
    """A question that cannot be asked; the message says why and what to do (shown as is by the CLI and UI)."""


def validate_question(question: str | None) -> str:
    """The question as it will be embedded, searched and answered; raises :class:`QuestionError` otherwise.

    Rules: line breaks are normalised to ``\\n``; control characters (NUL included) are removed and invalid
    code points replaced by U+FFFD; the text is NFC-normalised (decomposed Hangul from some keyboards and file
    systems embeds differently) and stripped. Then it must be non-empty and at most
    :data:`MAX_QUESTION_CHARS` characters: a longer one is refused with the limit named, not truncated,
    because a cut question silently asks something else. Everything else is kept verbatim: SQL-looking text,
    markup and "ignore previous instructions" are just text here, since every statement takes parameters,
    every view escapes, and the prompt marks what is data.
    """
    if question is None:
        question = ""
    if not isinstance(question, str):
        raise QuestionError(f"the question must be text, not {type(question).__name__}")
    text = question.replace("\r\n", "\n").replace("\r", "\n")
    text = _CONTROL.sub("", _SURROGATE.sub("\ufffd", text))
    text = unicodedata.normalize("NFC", text).strip()
    if not text:
        raise QuestionError(EMPTY_QUESTION)
    if len(text) > MAX_QUESTION_CHARS:
        raise QuestionError(
            f"The question is too long: {len(text):,} characters, the limit is {MAX_QUESTION_CHARS:,}. "
            "Ask the question itself; the search finds the documents."
        )
    return text
