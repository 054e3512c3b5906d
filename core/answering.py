"""Answers from the plain and the hierarchical context, and the side-by-side comparison.

* :class:`LLMAnswerer`: the RAG prompt of ``core.prompts`` through ``core.llm`` (retries, clear errors).
* :class:`ExtractiveAnswerer`: no model. It scores every element of the context against the question
  (the vector search's cosine similarity plus lexical overlap, with Korean character bigrams) and quotes the
  best one with its citation. With a hierarchical context the heading path is part of the evidence, both for
  scoring (a model name in the question matches the product heading) and in the answer (it says which
  product or section the value belongs to); a plain context has no path, so it can only quote the element.
* :func:`compare`: one retrieval, both answers; a failure in one mode never hides the other.
* :func:`answer_concurrently`: the modes answered at the same time (one thread each), their chunks as they
  arrive: with a slow model the two columns take as long as the slower one, not the sum.
"""

from __future__ import annotations

import queue
import re
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage

from core import prompts
from core.config import Settings, load_settings
from core.llm import (
    LLMError,
    RetryPolicy,
    chat_model,
    classify_error,
    invoke_with_retries,
    model_label,
    stream_with_retries,
)
from core.partial_tree import resolve_citations
from core.retrieval import (
    MODES,
    Context,
    ContextElement,
    Mode,
    Retrieval,
    Scope,
    SearchConfig,
    retrieve,
    validate_question,
)
from core.store import ElementStore
from core.textnorm import english_stem, match_terms

__all__ = [
    "Answer",
    "AnswerStream",
    "Answerer",
    "Comparison",
    "ExtractiveAnswerer",
    "LLMAnswerer",
    "ModeResult",
    "Source",
    "AnswerEvent",
    "answer_concurrently",
    "compare",
    "default_answerer",
    "score_evidence",
]


# -- answerers ------------------------------------------------------------------------------------------


class Answerer(Protocol):
    label: str

    def stream(self, question: str, context: Context) -> Iterator[str]:
        """Text chunks of the answer; raises :class:`core.llm.LLMError` on failure."""

    def complete(self, question: str, context: Context) -> str:
        """The whole answer; raises :class:`core.llm.LLMError` on failure."""


class LLMAnswerer:
    """A chat model answering with the RAG prompt (same prompt for both modes)."""

    def __init__(
        self,
        model: BaseChatModel,
        label: str = "LLM",
        policy: RetryPolicy | None = None,
        *,
        secret: str | None = None,
    ) -> None:
        self.model = model
        self.label = label
        self.policy = policy or RetryPolicy.from_settings()
        self._secret = secret  # only to scrub it from error messages

    @classmethod
    def from_settings(cls, settings: Settings | None = None, policy: RetryPolicy | None = None) -> LLMAnswerer:
        settings = settings or load_settings()
        policy = policy or RetryPolicy.from_settings(settings)
        model = chat_model(settings, streaming=True, timeout=policy.timeout)
        return cls(model, model_label(settings), policy, secret=settings.openai_api_key)

    def stream(self, question: str, context: Context) -> Iterator[str]:
        yield from stream_with_retries(self.model, _messages(question, context), self.policy, secret=self._secret)

    def complete(self, question: str, context: Context) -> str:
        return invoke_with_retries(self.model, _messages(question, context), self.policy, secret=self._secret)


def _messages(question: str, context: Context) -> list[BaseMessage]:
    """The RAG prompt. The question's own ``<context>`` tags are neutralised too: questions can come from
    generated question sets built from document text, and the prompt's structure must stay unambiguous."""
    return prompts.rag_messages(prompts.neutralize_delimiters(question), context.text)


def default_answerer(settings: Settings | None = None, policy: RetryPolicy | None = None) -> Answerer:
    """The LLM when ``OPENAI_API_KEY`` is set, else the extractive answerer."""
    settings = settings or load_settings()
    if settings.has_llm:
        return LLMAnswerer.from_settings(settings, policy)
    return ExtractiveAnswerer()


# -- extractive ---------------------------------------------------------------------------------------------

SEMANTIC_WEIGHT = 1.0
TEXT_WEIGHT = 0.5  # share of the question's terms in the element's own text
PATH_WEIGHT = 0.6  # share found only in its heading path: the product, API or section the question names
ATTRIBUTE_WEIGHT = 0.35  # the element states the attribute asked about ("Weight : …", "`timeout` … Default: …")
VALUE_WEIGHT = 0.1  # the element states a value at all (key : value, Default:, table cell)
TITLE_PENALTY = 0.3  # a heading alone rarely holds the value asked for
WEAK_SCORE = 0.35
EXCERPT_CHARS = 300
# Without a stated attribute, an element answers when this share of the question's terms (other than those
# naming a heading) is in its text, or when the vector search found it this close.
ANSWER_MIN_TEXT_OVERLAP = 0.2
ANSWER_MIN_SIMILARITY = 0.5

# Words a question uses for the attribute a sheet names with a noun ("How heavy…" asks for "Weight").
_ATTRIBUTE_WORDS: dict[str, frozenset[str]] = {
    "heavy": frozenset({"weight"}),
    "weigh": frozenset({"weight"}),
    "weighs": frozenset({"weight"}),
    "wide": frozenset({"width"}),
    "tall": frozenset({"height"}),
    "high": frozenset({"height"}),
    "long": frozenset({"length", "life", "duration"}),
    "far": frozenset({"range", "distance"}),
    "fast": frozenset({"speed"}),
    "cost": frozenset({"price"}),
    "costs": frozenset({"price"}),
    "expensive": frozenset({"price"}),
    "big": frozenset({"size"}),
    "large": frozenset({"size"}),
}

_KEY_VALUE = re.compile(r"^\s*(?:[-*+]\s+)?(?P<key>[^:：\n]{1,60}?)\s*[:：]\s+(?P<value>\S[^\n]*)$")
_DEFAULT = re.compile(
    r"\bdefaults?(?:\s+value)?(?:\s+(?:to|is)\s+|\s*:\s*|\s+(?=`))"
    r"(?P<value>`[^`\n]+`|'[^'\n]*'|\"[^\"\n]*\"|[^\s,;]+)",
    re.I,
)
# The option a "Default:" item documents: its leading code span or bold name ("* **`marker`**:", "`timeout` :").
_LEADING_NAME = re.compile(r"^\s*(?:[-*+]\s+)?(?:\*\*`?(?P<bold>[^*`\n]+)`?\*\*|`(?P<code>[^`\n]+)`)")
# Without markup ("idempotent boolean (optional) - Default: true") the option is the item's first word.
_FIRST_WORD = re.compile(r"^\s*(?:[-*+]\s+)?(?P<word>[A-Za-z_$][\w.$-]*)")
_TABLE_SPLIT = re.compile(r"(?<!\\)\|")
_MAX_VALUE_CHARS = 200


def _terms(text: str) -> frozenset[str]:
    """The text's match terms, English ones lightly stemmed (released ~ release)."""
    return frozenset(english_stem(t) for t in match_terms(text))


def _question_terms(question: str) -> frozenset[str]:
    terms = match_terms(question)
    return frozenset(english_stem(t) for t in terms | {w for t in terms for w in _ATTRIBUTE_WORDS.get(t, ())})


def _clean_value(value: str) -> str:
    return value.strip().rstrip(".").strip()


def _table_cell(wanted: frozenset[str], text: str) -> tuple[str, str, str] | None:
    """``(row — column, cell, the row as "header: cell; …")`` of a pipe table: the row and the column the
    question's terms name."""
    rows = []
    for line in text.splitlines():
        line = line.strip()
        if not line.startswith("|"):
            continue
        cells = [c.strip().replace("\\|", "|") for c in _TABLE_SPLIT.split(line.strip("|"))]
        if not all(set(c) <= set("-: ") for c in cells):
            rows.append(cells)
    if len(rows) < 2:
        return None
    header, body = rows[0], rows[1:]
    # The row first (the entity the question names), then the column among the words left: "Description of
    # type" must not pick a "Type" column because of the row's name.
    row_terms = [_terms(" ".join(r[:1])) for r in body]
    row = max(range(len(body)), key=lambda i: len(wanted & row_terms[i]))
    left = wanted - row_terms[row]
    column_scores = [len(left & _terms(h)) for h in header]
    column = max(range(1, len(header)), key=lambda i: column_scores[i], default=None)
    if column is None or not column_scores[column] or not wanted & row_terms[row] or column >= len(body[row]):
        return None
    value = body[row][column]
    line = "; ".join(f"{h}: {c}" if h else c for h, c in zip(header, body[row], strict=False) if c)
    return (f"{body[row][0]} — {header[column]}", value, line) if value else None


def _statement(wanted: frozenset[str], element: ContextElement) -> tuple[str, str] | None:
    """``(key, value)`` the element states: a ``Default:`` line, a ``key : value`` item, or a table cell."""
    text = element.text.strip()
    if element.category == "Table" or text.startswith("|"):
        cell = _table_cell(wanted, text)
        return cell[:2] if cell else None
    default = _DEFAULT.search(text)
    if default:
        name = _LEADING_NAME.match(text)
        first = _FIRST_WORD.match(text)
        key = (name.group("bold") or name.group("code")) if name else (first.group("word") if first else "default")
        return key.strip("`* "), _clean_value(default.group("value"))
    kv = _KEY_VALUE.match(text.splitlines()[0]) if text else None
    if kv and len(kv.group("value")) <= _MAX_VALUE_CHARS:
        return kv.group("key").strip("`*- "), _clean_value(kv.group("value"))
    return None


@dataclass(frozen=True)
class Evidence:
    element: ContextElement
    score: float
    semantic: float
    lexical: float
    excerpt: str
    key: str | None = None  # the attribute the element states, when it states one
    value: str | None = None  # its value
    answers: bool = True  # False: the best the context has, but it does not answer the question

    def as_dict(self) -> dict[str, Any]:
        return {
            "element_id": self.element.element_id,
            "score": round(self.score, 4),
            "semantic": round(self.semantic, 4),
            "lexical": round(self.lexical, 4),
            "heading_path": list(self.element.path),
            "excerpt": self.excerpt,
            "key": self.key,
            "value": self.value,
            "answers": self.answers,
        }


def score_evidence(question: str, context: Context) -> list[Evidence]:
    """Context elements that can hold an answer, best first.

    Ancestors are headings that frame the evidence, not evidence themselves. An element scores by its vector
    similarity, the question's terms in its text, the terms found only in its heading path (where the context
    has one: the product or API the question names), and whether it states the attribute asked about.
    """
    wanted = _question_terms(question)
    # A heading the question names whole ("Dispatcher", "Class: Pool", "Aster H2") is where to look, wherever it
    # sits in the context: its terms never count as the attribute asked about.
    headings = {e.text for e in context.elements if e.category == "Title"}
    headings |= {p for e in context.elements for p in e.path}
    named = frozenset(t for h in headings if (terms := _terms(h)) and terms <= wanted for t in terms)
    scored = []
    for element in (e for e in context.elements if e.role != "ancestor"):
        text_terms = _terms(element.text)
        own_path_terms = _terms(" ".join(element.path))
        path_terms = own_path_terms - text_terms
        # Terms naming a heading above this element (the product, the API) say where, not what: the element
        # answers by the rest ("weight", "default", "bodyTimeout"). A path that restates the whole question (an
        # FAQ heading) leaves nothing to ask: any content under it answers.
        unplaced = wanted - own_path_terms  # names a table row may carry ("Markdown in HTML" is also a heading)
        asked = unplaced - named
        text_lex = len(wanted & text_terms) / len(wanted) if wanted else 0.0
        path_lex = len(wanted & path_terms) / len(wanted) if wanted else 0.0
        statement = _statement(unplaced, element)
        key_terms = _terms(statement[0]) if statement else frozenset()
        # the share of the stated key the question asks for ("Weight (with stand)" fully, "Dimensions without
        # stand" a quarter); names of headings do not count, they say where, not what
        attribute = len(asked & key_terms) / len(key_terms) if key_terms else 0.0
        if not attribute and key_terms:
            # the key repeats a section heading above it ("Dimensions & Weight › Weight with stand"): still the
            # attribute asked about, counted at half weight
            attribute = 0.5 * len((wanted - named) & key_terms) / len(key_terms)
        semantic = element.similarity or 0.0
        is_title = element.category == "Title"
        score = (SEMANTIC_WEIGHT * semantic + TEXT_WEIGHT * text_lex + PATH_WEIGHT * path_lex
                 + ATTRIBUTE_WEIGHT * attribute + VALUE_WEIGHT * bool(statement) - TITLE_PENALTY * is_title)
        asked_overlap = len(asked & text_terms) / len(asked) if asked else 1.0
        answers = not is_title and (
            attribute > 0 or asked_overlap >= ANSWER_MIN_TEXT_OVERLAP or semantic >= ANSWER_MIN_SIMILARITY
        )
        key, value = statement if statement else (None, None)
        cell = _table_cell(unplaced, element.text) if statement and element.text.lstrip().startswith("|") else None
        excerpt = cell[2] if cell else _excerpt(element.text, wanted, value)
        scored.append(Evidence(element, score, semantic, text_lex + path_lex, excerpt, key, value, answers))
    scored.sort(key=lambda e: (-e.answers, -e.score, e.element.rank if e.element.rank is not None else 1_000_000))
    return scored


def _excerpt(text: str, wanted: frozenset[str], value: str | None = None) -> str:
    """The element, or for a long one the sentence stating the value (else overlapping the question most)."""
    text = " ".join(text.split())
    if len(text) <= EXCERPT_CHARS:
        return text
    sentences = [s for s in re.split(r"(?<=[.!?。])\s+|(?<=다\.)\s*", text) if s.strip()]
    if len(sentences) < 2:
        return text[: EXCERPT_CHARS - 1] + "…"
    holding = [i for i, s in enumerate(sentences) if value and value in s]
    best = holding[0] if holding else max(range(len(sentences)), key=lambda i: len(wanted & _terms(sentences[i])))
    excerpt = sentences[best]
    if best + 1 < len(sentences) and len(excerpt) + len(sentences[best + 1]) < EXCERPT_CHARS:
        excerpt += " " + sentences[best + 1]
    excerpt = excerpt if len(excerpt) <= EXCERPT_CHARS else excerpt[: EXCERPT_CHARS - 1] + "…"
    return ("… " if best else "") + excerpt + (" …" if best + 1 < len(sentences) else "")


class ExtractiveAnswerer:
    """Answers without a model: the value the best element states, with its heading path and citation.

    The best element is the one that states the attribute asked about (``key : value`` items, ``Default:``
    lines, table cells) under the heading path that names the question's product or API. Its value leads the
    answer; the element is quoted below it. When no element of the context answers, it says so instead of
    quoting the nearest heading.
    """

    label = prompts.EXTRACTIVE_LABEL

    def evidence(self, question: str, context: Context) -> list[Evidence]:
        return score_evidence(question, context)

    def complete(self, question: str, context: Context) -> str:
        evidence = self.evidence(question, context)
        if not evidence:
            return prompts.EXTRACTIVE_EMPTY
        best = evidence[0]
        if not best.answers:
            return prompts.EXTRACTIVE_NOT_FOUND
        quote = f"“{best.excerpt}” [e:{best.element.short_id}]"
        lines = [f"{best.key}: {best.value}"] if best.value else []
        if context.mode == "hierarchical" and best.element.path:
            lines += [f"{prompts.EXTRACTIVE_PATH_PREFIX} {' › '.join(best.element.path)}:", quote]
        elif context.mode == "hierarchical":
            lines.append(quote)
        else:
            lines += [quote, prompts.EXTRACTIVE_PLAIN_NOTE]
        if best.score < WEAK_SCORE:
            lines.append(prompts.EXTRACTIVE_WEAK_NOTE)
        return "\n".join(lines)

    def stream(self, question: str, context: Context) -> Iterator[str]:
        yield self.complete(question, context)


# -- results ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Source:
    """An element an answer rests on: cited by the answer, or a search hit of its context."""

    element_id: str
    short_id: str
    cited: bool
    role: str
    category: str
    text: str
    heading_path: tuple[str, ...]
    document_id: str

    def as_dict(self) -> dict[str, Any]:
        return {
            "element_id": self.element_id,
            "short_id": self.short_id,
            "cited": self.cited,
            "role": self.role,
            "category": self.category,
            "text": self.text,
            "heading_path": list(self.heading_path),
            "document_id": self.document_id,
        }


@dataclass
class Answer:
    text: str
    answerer: str
    cited: list[str] = field(default_factory=list)
    error: str | None = None
    error_kind: str | None = None
    evidence: list[dict[str, Any]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.error is None


@dataclass
class ModeResult:
    mode: Mode
    answer: Answer
    context: Context
    timings: dict[str, float]

    @property
    def sources(self) -> list[Source]:
        """Cited elements first (in citation order), then the context's other hits by rank."""
        cited = set(self.answer.cited)
        order = self.answer.cited + [e.element_id for e in self.context.hits if e.element_id not in cited]
        out = []
        for element_id in order:
            element = self.context.get(element_id)
            if element is not None:
                out.append(Source(element.element_id, element.short_id, element_id in cited, element.role,
                                  element.category, element.text, element.path, element.document_id))
        return out

    def as_dict(self) -> dict[str, Any]:
        return {
            "answer": self.answer.text,
            "answerer": self.answer.answerer,
            "error": self.answer.error,
            "context": self.context.text,
            "sources": [s.as_dict() for s in self.sources],
            "context_tokens": self.context.tokens,
            "timings": self.timings,
            "evidence": self.answer.evidence,
        }


class AnswerStream:
    """Iterate to get the answer's text chunks (for ``st.write_stream``); then :meth:`result`.

    Never raises: a model failure ends the stream and is recorded in the result's ``answer.error``.
    """

    def __init__(self, retrieval: Retrieval, mode: Mode, answerer: Answerer, *, streaming: bool = True) -> None:
        self.retrieval = retrieval
        self.mode = mode
        self.answerer = answerer
        self.streaming = streaming
        self._chunks: list[str] = []
        self._error: LLMError | None = None
        self._elapsed = 0.0
        self._done = False

    def __iter__(self) -> Iterator[str]:
        if self._done:
            return
        context = self.retrieval.context(self.mode)
        started = time.perf_counter()
        try:
            if self.streaming:
                for chunk in self.answerer.stream(self.retrieval.question, context):
                    self._chunks.append(chunk)
                    yield chunk
            else:
                text = self.answerer.complete(self.retrieval.question, context)
                self._chunks.append(text)
                yield text
        except Exception as exc:  # every failure becomes a message in this column, never a crash of the page
            self._error = classify_error(exc)
        finally:
            self._elapsed += time.perf_counter() - started
            self._done = True

    def result(self) -> ModeResult:
        for _ in self:  # consume whatever the caller did not
            pass
        context = self.retrieval.context(self.mode)
        text = "".join(self._chunks)
        explain = getattr(self.answerer, "evidence", None)
        evidence = explain(self.retrieval.question, context) if callable(explain) and not self._error else []
        answer = Answer(
            text=text,
            answerer=self.answerer.label,
            cited=resolve_citations(text, context.element_ids),
            error=self._error.message if self._error else None,
            error_kind=self._error.kind if self._error else None,
            evidence=[e.as_dict() for e in evidence[:3]],
        )
        timings = {**self.retrieval.timings_for(self.mode), "generate": round(self._elapsed * 1000.0, 3)}
        return ModeResult(self.mode, answer, context, timings)


@dataclass
class Comparison:
    """Both modes' results for one question, from one retrieval."""

    question: str
    collection: str
    k: int
    scope: Scope
    answerer: str
    results: dict[str, ModeResult]
    hierarchy_added: list[ContextElement]
    hits: list[ContextElement]
    created_at: str = field(default_factory=lambda: datetime.now(UTC).isoformat(timespec="seconds"))
    search: dict[str, Any] = field(default_factory=dict)  # Retrieval.describe(): strategy, scope, notes

    @property
    def plain(self) -> ModeResult | None:
        return self.results.get("plain")

    @property
    def hierarchical(self) -> ModeResult | None:
        return self.results.get("hierarchical")

    @classmethod
    def build(cls, collection: str, retrieval: Retrieval, results: dict[str, ModeResult], answerer: str) -> Comparison:
        return cls(retrieval.question, collection, retrieval.k, retrieval.scope, answerer, results,
                   retrieval.hierarchy_added, retrieval.hierarchical.hits, search=retrieval.describe())

    def to_dict(self, *, details: bool = True) -> dict[str, Any]:
        out: dict[str, Any] = {"question": self.question}
        for mode in MODES:
            if mode in self.results:
                out[mode] = self.results[mode].as_dict()
        if details:
            out["collection"] = self.collection
            out["k"] = self.k
            out["scope"] = self.scope.as_dict()
            out["search"] = self.search
            out["answerer"] = self.answerer
            out["hits"] = [h.as_dict() for h in self.hits]
            out["hierarchy_added"] = [e.as_dict() for e in self.hierarchy_added]
            out["created_at"] = self.created_at
        return out


@dataclass(frozen=True)
class AnswerEvent:
    """One step of :func:`answer_concurrently`: a chunk of ``mode``'s answer, or (``result`` set) its end."""

    mode: Mode
    text: str = ""
    result: ModeResult | None = None


def answer_concurrently(
    retrieval: Retrieval,
    answerer: Answerer,
    modes: Sequence[Mode] = MODES,
    *,
    streaming: bool = True,
) -> Iterator[AnswerEvent]:
    """Answer every mode at once, one thread each; yield chunks as they arrive and one result per mode.

    Never raises for a model failure (it is in that mode's ``result.answer.error``); each mode's call is bounded
    by its own total deadline (``HKE_LLM_TIMEOUT``), so this ends within that plus retrieval-free bookkeeping.
    """
    events: queue.SimpleQueue[AnswerEvent | BaseException] = queue.SimpleQueue()

    def run(mode: Mode) -> None:
        stream = AnswerStream(retrieval, mode, answerer, streaming=streaming)
        try:
            for chunk in stream:
                events.put(AnswerEvent(mode, chunk))
            events.put(AnswerEvent(mode, result=stream.result()))
        except BaseException as exc:  # a bug, not a model failure: re-raised in the caller's thread
            events.put(exc)

    for mode in modes:
        threading.Thread(target=run, args=(mode,), name=f"hke-answer-{mode}", daemon=True).start()
    pending = len(modes)
    while pending:
        event = events.get()
        if isinstance(event, BaseException):
            raise event
        if event.result is not None:
            pending -= 1
        yield event


def compare(
    store: ElementStore,
    question: str,
    *,
    k: int = 4,
    scope: Scope | None = None,
    answerer: Answerer | None = None,
    children_budget: int | None = None,
    modes: Sequence[Mode] = MODES,
    streaming: bool = False,
    search: SearchConfig | str | None = None,
) -> Comparison:
    """Retrieve once, answer in each of ``modes``; a failed answer is recorded, never raised.

    A question that breaks the rules of :func:`core.retrieval.validate_question` raises ``QuestionError``
    before any work is done.
    """
    question = validate_question(question)
    retrieval = retrieve(store, question, k=k, scope=scope, children_budget=children_budget, search=search)
    answerer = answerer or default_answerer()
    finished = {e.mode: e.result for e in answer_concurrently(retrieval, answerer, modes, streaming=streaming)
                if e.result is not None}
    results = {mode: finished[mode] for mode in modes}  # in the order asked, whichever finished first
    return Comparison.build(store.collection, retrieval, results, answerer.label)
