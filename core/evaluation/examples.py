"""Example questions that fit a collection: the hand-written set when the collection holds its documents,
otherwise questions generated from what the collection states, each one checked.

A generated example is the first thing a presenter clicks, so it must read as a question on any corpus and be
answered. It is worded from a fact the corpus states (a ``key : value`` item, a table row, an option's default;
:mod:`core.evaluation.generator`) in words that do not guess what the key is: "What does *Build selection* say
about Linux?" rather than "What is the Linux of Build selection?". A fact whose key or row name is not a name
(a sentence, emoji, brackets, a preposition's phrase) is not asked. Where the corpus states few facts, a section
heading that names a thing fills in ("What is netrc support in Authentication?"). Then each candidate is
asked of the product itself, offline (the default search and the extractive answerer): it is kept only if the
answer cites the element the fact came from (for a heading, an element of its section).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from core.evaluation.generator import Fact, generate_questions_from_store
from core.evaluation.generator import _question_text as korean_question
from core.evaluation.metrics import normalise
from core.evaluation.questions import Question, QuestionSetError, load_questions
from core.store import ElementStore

__all__ = ["Examples", "answered_from_source", "example_questions", "example_wording", "heading_questions"]

MAX_EXAMPLES = 12
MAX_CHECKED = 36  # candidates asked at most: each is one offline search and answer
MAX_NAME_WORDS = 6
# What a key, a column or a row name may hold to be asked about by name: words, numbers and the punctuation of
# names (C++, x86_64, macOS / iOS, v1.2, "Default value"); anything else (emoji, quotes, brackets) is prose or markup.
_NAME = re.compile(r"^[\w`][\w`+#./&' -]*$")
# A key that starts with one of these is the tail of a sentence ("on Linux: …") or a question, not a name.
_LEADING_WORDS = frozenset({"on", "in", "for", "with", "at", "by", "to", "of", "from", "and", "or", "the", "a", "an",
                            "if", "when", "see", "note", "example", "e.g", "i.e",
                            # a heading that asks ("What is cached") is a question already, not a name
                            "what", "how", "why", "where", "which", "who", "can", "do", "does", "is", "are", "should"})


@dataclass(frozen=True)
class Examples:
    questions: tuple[str, ...]
    source: str  # where they come from, said next to the picker


def _is_name(text: str) -> bool:
    words = text.split()
    return (bool(words) and len(words) <= MAX_NAME_WORDS and bool(_NAME.match(text))
            and any(c.isalpha() for c in text) and words[0].casefold().strip("`") not in _LEADING_WORDS)


def example_wording(fact: Fact, subject: Sequence[str]) -> str | None:
    """A fact's question as a presenter would ask it, or None when its names do not read as names."""
    where = " › ".join(subject)
    names = [fact.key] + ([fact.entity] if fact.entity else [])
    if not all(_is_name(n) for n in names) or not all(_is_name(h) or len(h.split()) <= MAX_NAME_WORDS * 2
                                                      for h in subject):
        return None
    if fact.korean:  # the generator's Korean templates read as questions ("…의 무게는 무엇인가요?")
        return korean_question(fact, subject, fact.code_key)
    if fact.kind == "default":
        return f"What is the default of `{fact.key}` in {where}?"
    if fact.kind == "table":  # the table may list things by row or by column: ask for the cell, not "the X of Y"
        return f"In {where}, what is given for {fact.entity} under {fact.key}?"
    if fact.code_key:
        return f"What is `{fact.key}` in {where}?"
    return f"What does {where} say about {fact.key}?"


def heading_questions(store: ElementStore) -> list[Question]:
    """"What is <heading> in <document>?" for each section heading that names a thing, once in the corpus:
    its source is the section (any element under it, in its document)."""
    headings: list[tuple[str, str, str]] = []  # (document, title, heading)
    for record in store.documents():
        elements = store.elements(record.document_id)
        title = next((e.text for e in elements if e.is_heading and e.category_depth == 0), record.title or "")
        headings += [(record.filename, title, e.text) for e in elements if e.is_heading and e.category_depth > 0]
    counts = Counter(normalise(h) for _d, _t, h in headings)
    out = []
    for document, title, heading in headings:
        if counts[normalise(heading)] != 1 or not _is_name(heading) or not _is_name(title):
            continue
        if heading.split()[0].casefold().endswith("ing"):  # "Using system stores" names a task, not a thing
            continue
        out.append(Question(id=f"h-{len(out)}", question=f"What is {heading} in {title}?",
                            document=document, gold_path=(heading,), tags=("generated", "heading")))
    return out


def answered_from_source(store: ElementStore, question: Question) -> bool:
    """Whether the product, offline, answers ``question`` citing the element it was generated from (for a heading
    question, an element of that heading's section)."""
    from core.answering import compare
    from core.answering.extractive import ExtractiveAnswerer
    from core.retrieval import QuestionError, RetrievalRequest

    try:
        result = compare(store, RetrievalRequest(question.question), answerer=ExtractiveAnswerer(),
                         modes=("hierarchical",)).results["hierarchical"]
    except (QuestionError, ValueError):
        return False
    cited = [s for s in result.sources if s.cited]
    if not cited:
        return False
    source = cited[0]
    documents = {d.document_id: d.filename for d in store.documents()}
    if documents.get(source.document_id) != question.document:
        return False
    if "heading" in question.tags:
        return question.gold_path[0] in (*source.heading_path, source.text)
    return question.gold_element is not None and normalise(source.text) == normalise(question.gold_element)


def _round_robin(groups: Sequence[Sequence[Question]]) -> list[Question]:
    out: list[Question] = []
    for depth in range(max((len(g) for g in groups), default=0)):
        out.extend(group[depth] for group in groups if depth < len(group))
    return out


def _spread(questions: Sequence[Question]) -> list[Question]:
    """Round-robin over the documents, and in each over the sections the facts sit in, so that the examples tour
    the corpus rather than ask five rows of its first table."""
    documents: dict[str | None, dict[tuple[str, ...], list[Question]]] = {}
    for q in questions:
        documents.setdefault(q.document, {}).setdefault(q.gold_path, []).append(q)
    return _round_robin([_round_robin(list(sections.values())) for sections in documents.values()])


def example_questions(store: ElementStore, question_file: Path, limit: int = MAX_EXAMPLES,
                      *, checked: int = MAX_CHECKED) -> Examples:
    """Questions of ``question_file`` whose documents are all in ``store`` (at least half of the set's), else up
    to ``limit`` generated questions the product answers from their own source (of at most ``checked``
    candidates, spread over the documents); empty when neither gives any."""
    filenames = {d.filename for d in store.documents()}
    try:
        written = load_questions(question_file)
    except (OSError, QuestionSetError):
        written = None
    if written is not None:
        fitting = [q.question for q in written.questions if q.document and Path(q.document).name in filenames]
        if fitting and len(fitting) * 2 >= len(written.questions):
            return Examples(tuple(fitting), f"from {question_file.name}")
    # Facts first (their answer is a value); a heading's section fills in where the corpus states few facts.
    candidates = _spread(generate_questions_from_store(store, phrase=example_wording).questions)
    candidates = candidates[:checked] + _spread(heading_questions(store))
    kept = []
    for question in candidates[:checked]:
        if answered_from_source(store, question):
            kept.append(question.question)
            if len(kept) == limit:
                break
    source = (f"generated from the documents of {store.collection!r}, each answered from its own source" if kept
              else "none fit this collection")
    return Examples(tuple(kept), source)
