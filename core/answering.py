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
import unicodedata
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
from core.retrieval import MODES, Context, ContextElement, Mode, Retrieval, Scope, retrieve, validate_question
from core.store import ElementStore

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

_TOKEN = re.compile(r"[0-9a-z]+(?:[.\-][0-9a-z]+)*|[\uac00-\ud7a3]+")
_STOP = frozenset(
    "a an and are at be by can do does for from has have how i in is it its me much my of on or the this to "
    "what when where which who why will with you your there many".split()
)
# Korean particles and question endings, longest first. Stripped from the end of a Hangul run when at least two
# syllables remain ("무게는" → "무게", "단자가" → "단자"); a run that is only a particle ("에는" after "24FL") is
# dropped. Without this, bigrams such as "에는" or "나요" match unrelated text.
_KO_SUFFIXES = tuple(sorted(
    "인가요 있나요 없나요 되나요 하나요 습니까 입니까 인지요 일까요 을까요 할까요 에서는 에게는 으로는 이라는 "
    "나요 가요 까요 에는 에서 에게 으로 로는 까지 부터 이나 이란 이며 이고 와의 과의 은 는 이 가 을 를 에 의 "
    "과 와 로 도 만".split(), key=len, reverse=True))
_KO_PARTICLES = frozenset(_KO_SUFFIXES)
_KO_STOP = frozenset("얼마 얼마나 무엇 언제 어디 누구 어떻게 어느 무슨 몇 있나요 없나요 되나요 하나요".split())
SEMANTIC_WEIGHT = 1.0
LEXICAL_WEIGHT = 0.5
TITLE_PENALTY = 0.2  # a heading alone rarely holds the value asked for
WEAK_SCORE = 0.35
EXCERPT_CHARS = 300


def _korean_stem(run: str) -> str:
    if run in _KO_PARTICLES or run in _KO_STOP:
        return ""
    for suffix in _KO_SUFFIXES:
        if run.endswith(suffix) and len(run) - len(suffix) >= 2:
            run = run[: -len(suffix)]
            break
    return "" if run in _KO_STOP else run


def lexical_tokens(text: str) -> set[str]:
    """Lower-case words (minus a few English stop words) and Korean character bigrams.

    Korean attaches particles to words (``27QX의``, ``무게는``), so whole-word matching fails; the bigrams of
    each Hangul run, once its particle is stripped, still match ``무게`` in ``무게(스탠드 포함)``.
    """
    out: set[str] = set()
    for token in _TOKEN.findall(unicodedata.normalize("NFKC", text).lower()):
        if "\uac00" <= token[0] <= "\ud7a3":
            stem = _korean_stem(token)
            if stem:
                out.update([stem] if len(stem) == 1 else (stem[i : i + 2] for i in range(len(stem) - 1)))
        elif token not in _STOP and (len(token) > 1 or token.isdigit()):
            out.add(token)
    return out


@dataclass(frozen=True)
class Evidence:
    element: ContextElement
    score: float
    semantic: float
    lexical: float
    excerpt: str

    def as_dict(self) -> dict[str, Any]:
        return {
            "element_id": self.element.element_id,
            "score": round(self.score, 4),
            "semantic": round(self.semantic, 4),
            "lexical": round(self.lexical, 4),
            "heading_path": list(self.element.path),
            "excerpt": self.excerpt,
        }


def score_evidence(question: str, context: Context) -> list[Evidence]:
    """Context elements that can hold an answer, best first.

    Ancestors are headings that frame the evidence, not evidence themselves. The heading path of an element
    counts towards its lexical overlap only where the context has it (hierarchical mode).
    """
    wanted = lexical_tokens(question)
    candidates = [e for e in context.elements if e.role != "ancestor"]
    scored = []
    for element in candidates:
        framed = lexical_tokens(element.text) | lexical_tokens(" ".join(element.path))
        lexical = len(wanted & framed) / len(wanted) if wanted else 0.0
        semantic = element.similarity or 0.0
        score = SEMANTIC_WEIGHT * semantic + LEXICAL_WEIGHT * lexical
        if element.category == "Title":
            score -= TITLE_PENALTY
        scored.append(Evidence(element, score, semantic, lexical, _excerpt(element.text, wanted)))
    scored.sort(key=lambda e: (-e.score, e.element.rank if e.element.rank is not None else 1_000_000))
    return scored


def _excerpt(text: str, wanted: set[str]) -> str:
    """The element, or for a long one the sentence that overlaps the question most (with its neighbour)."""
    text = " ".join(text.split())
    if len(text) <= EXCERPT_CHARS:
        return text
    sentences = [s for s in re.split(r"(?<=[.!?。])\s+|(?<=다\.)\s*", text) if s.strip()]
    if len(sentences) < 2:
        return text[: EXCERPT_CHARS - 1] + "…"
    best = max(range(len(sentences)), key=lambda i: len(wanted & lexical_tokens(sentences[i])))
    excerpt = sentences[best]
    if best + 1 < len(sentences) and len(excerpt) + len(sentences[best + 1]) < EXCERPT_CHARS:
        excerpt += " " + sentences[best + 1]
    excerpt = excerpt if len(excerpt) <= EXCERPT_CHARS else excerpt[: EXCERPT_CHARS - 1] + "…"
    return ("… " if best else "") + excerpt + (" …" if best + 1 < len(sentences) else "")


class ExtractiveAnswerer:
    """Quotes the best-matching evidence with its citation (and, from a hierarchical context, its heading path)."""

    label = prompts.EXTRACTIVE_LABEL

    def evidence(self, question: str, context: Context) -> list[Evidence]:
        return score_evidence(question, context)

    def complete(self, question: str, context: Context) -> str:
        evidence = self.evidence(question, context)
        if not evidence:
            return prompts.EXTRACTIVE_EMPTY
        best = evidence[0]
        quote = f"“{best.excerpt}” [e:{best.element.short_id}]"
        if context.mode == "hierarchical" and best.element.path:
            text = f"{prompts.EXTRACTIVE_PATH_PREFIX} {' › '.join(best.element.path)}:\n{quote}"
        elif context.mode == "hierarchical":
            text = quote
        else:
            text = f"{quote}\n{prompts.EXTRACTIVE_PLAIN_NOTE}"
        if best.score < WEAK_SCORE:
            text += f"\n{prompts.EXTRACTIVE_WEAK_NOTE}"
        return text

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

    @property
    def plain(self) -> ModeResult | None:
        return self.results.get("plain")

    @property
    def hierarchical(self) -> ModeResult | None:
        return self.results.get("hierarchical")

    @classmethod
    def build(cls, collection: str, retrieval: Retrieval, results: dict[str, ModeResult], answerer: str) -> Comparison:
        return cls(retrieval.question, collection, retrieval.k, retrieval.scope, answerer, results,
                   retrieval.hierarchy_added, retrieval.hierarchical.hits)

    def to_dict(self, *, details: bool = True) -> dict[str, Any]:
        out: dict[str, Any] = {"question": self.question}
        for mode in MODES:
            if mode in self.results:
                out[mode] = self.results[mode].as_dict()
        if details:
            out["collection"] = self.collection
            out["k"] = self.k
            out["scope"] = self.scope.as_dict()
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
    children_budget: int = 0,
    modes: Sequence[Mode] = MODES,
    streaming: bool = False,
) -> Comparison:
    """Retrieve once, answer in each of ``modes``; a failed answer is recorded, never raised.

    A question that breaks the rules of :func:`core.retrieval.validate_question` raises ``QuestionError``
    before any work is done.
    """
    question = validate_question(question)
    retrieval = retrieve(store, question, k=k, scope=scope, children_budget=children_budget)
    answerer = answerer or default_answerer()
    finished = {e.mode: e.result for e in answer_concurrently(retrieval, answerer, modes, streaming=streaming)
                if e.result is not None}
    results = {mode: finished[mode] for mode in modes}  # in the order asked, whichever finished first
    return Comparison.build(store.collection, retrieval, results, answerer.label)
