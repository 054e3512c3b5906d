"""Answer assembly: one retrieval answered in each mode, the answers' sources, and the side-by-side comparison.

* :class:`AnswerStream`: one mode's answer as chunks, then its :class:`ModeResult` (a failure is recorded).
* :func:`compare`: one retrieval, both answers; a failure in one mode never hides the other.
* :func:`answer_concurrently`: the modes answered at the same time (one thread each), their chunks as they
  arrive: with a slow model the two columns take as long as the slower one, not the sum. A server that answers
  one request at a time (``HKE_LLM_CONCURRENCY=1``, the default for one on this machine), or one seen ending a
  stream when a second arrives (llama.cpp's ``interrupt_requests``), gets the modes one after the other.
* A model's answer that cites nothing, or cites an element outside its context, gets its citations from
  :mod:`core.answering.citations`; one that is only a citation is answered extractively instead.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import Any

from core.answering.answerers import Answerer, default_answerer
from core.answering.citations import is_bare_citation, repair_citations
from core.answering.extractive import ExtractiveAnswerer
from core.llm import LLMError, classify_error
from core.partial_tree import cited_element_ids
from core.retrieval import (
    MODES,
    Context,
    ContextElement,
    Mode,
    Retrieval,
    RetrievalRequest,
    Scope,
    retrieve,
    validate_question,
)
from core.store import ElementStore, VersionRecord

__all__ = ["Answer", "AnswerEvent", "AnswerStream", "Comparison", "ModeResult", "Source", "answer_concurrently",
           "compare"]


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
        return {**asdict(self), "heading_path": list(self.heading_path)}


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
            if self._error.partial and not self._chunks:  # a whole reply cut off: keep what arrived, marked
                self._chunks.append(self._error.partial)
        finally:
            self._elapsed += time.perf_counter() - started
            self._done = True

    def result(self) -> ModeResult:
        for _ in self:  # consume whatever the caller did not
            pass
        context = self.retrieval.context(self.mode)
        text = "".join(self._chunks)
        if not self._error and text.strip() and not isinstance(self.answerer, ExtractiveAnswerer):
            text = _with_citations(self.retrieval.question, text, context)
        explain = getattr(self.answerer, "evidence", None)
        evidence = explain(self.retrieval.question, context) if callable(explain) and not self._error else []
        answer = Answer(
            text=text,
            answerer=self.answerer.label,
            cited=cited_element_ids(text, context.element_ids),
            error=self._error.message if self._error else None,
            error_kind=self._error.kind if self._error else None,
            evidence=[e.as_dict() for e in evidence[:3]],
        )
        timings = {**self.retrieval.timings_for(self.mode), "generate": round(self._elapsed * 1000.0, 3)}
        return ModeResult(self.mode, answer, context, timings)


BARE_CITATION_NOTE = "_(The model answered with a citation and nothing else; this answer is extractive.)_"


def _with_citations(question: str, text: str, context: Context) -> str:
    """A model's answer whose citations all point into ``context`` (see :mod:`core.answering.citations`)."""
    if is_bare_citation(text):
        return f"{ExtractiveAnswerer().complete(question, context)}\n\n{BARE_CITATION_NOTE}"
    repair = repair_citations(text, context)
    return repair.text if repair is not None else text


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
    provenance: list[dict[str, Any]] = field(default_factory=list)  # per hit: document, version, validity, key
    as_of: datetime | None = None  # the moment the documents were read at (None: the current collection)
    versions: dict[str, VersionRecord] = field(default_factory=dict)  # the version each hit's document was read at

    @property
    def plain(self) -> ModeResult | None:
        return self.results.get("plain")

    @property
    def hierarchical(self) -> ModeResult | None:
        return self.results.get("hierarchical")

    @classmethod
    def build(cls, collection: str, retrieval: Retrieval, results: dict[str, ModeResult], answerer: str) -> Comparison:
        return cls(retrieval.question, collection, retrieval.k, retrieval.scope, answerer, results,
                   retrieval.hierarchy_added, retrieval.hierarchical.hits, search=retrieval.describe(),
                   provenance=hit_provenance(retrieval), as_of=retrieval.as_of, versions=dict(retrieval.versions))

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
            out["as_of"] = self.as_of.isoformat() if self.as_of is not None else None
            out["versions"] = {d: {"version": v.version, "valid_from": v.valid_from.isoformat(),
                                   "filename": v.filename, "label": v.label} for d, v in self.versions.items()}
        return out


def hit_provenance(retrieval: Retrieval) -> list[dict[str, Any]]:
    """Where each hit was read: its document, the version read (``Retrieval.versions``) with its validity, and the
    element's stable key across versions."""
    out = []
    for hit in retrieval.hits:
        element = hit.element
        version = retrieval.versions.get(element.document_id)
        out.append({
            "element_id": element.element_id, "document_id": element.document_id, "key": element.element_key,
            "filename": version.filename if version else None, "version": version.version if version else None,
            "valid_from": version.valid_from.isoformat() if version else None,
            "valid_to": version.valid_to.isoformat() if version and version.valid_to else None,
            "label": version.label if version else None,
        })
    return out


@dataclass(frozen=True)
class AnswerEvent:
    """One step of :func:`answer_concurrently`: a chunk of ``mode``'s answer, or (``result`` set) its end.
    ``restart``: the text of ``mode`` shown so far is void; it is being answered again (from the next chunk)."""

    mode: Mode
    text: str = ""
    result: ModeResult | None = None
    restart: bool = False


# Servers seen ending one stream when another request arrives (by answerer label): their modes go one by one.
_INTERRUPTING: set[str] = set()


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

    An answerer whose ``concurrency`` is 1 answers the modes one after the other. When, answered at once, a mode's
    stream ends without a ``finish_reason`` while another mode was answering, the server interrupts parallel
    requests: that mode is answered again after the others (a ``restart`` event first), and this server's modes
    go one after the other from then on.
    """
    parallel = len(modes) > 1 and getattr(answerer, "concurrency", 2) > 1 and answerer.label not in _INTERRUPTING
    if not parallel:
        for mode in modes:
            yield from _answer_one(retrieval, mode, answerer, streaming)
        return
    events: queue.SimpleQueue[AnswerEvent | BaseException] = queue.SimpleQueue()
    errors: dict[Mode, LLMError | None] = {}

    def run(mode: Mode) -> None:
        stream = AnswerStream(retrieval, mode, answerer, streaming=streaming)
        try:
            for chunk in stream:
                events.put(AnswerEvent(mode, chunk))
            result = stream.result()
            errors[mode] = stream._error
            events.put(AnswerEvent(mode, result=result))
        except BaseException as exc:  # a bug, not a model failure: re-raised in the caller's thread
            events.put(exc)

    for mode in modes:
        threading.Thread(target=run, args=(mode,), name=f"hke-answer-{mode}", daemon=True).start()
    pending = len(modes)
    again: list[Mode] = []
    while pending:
        event = events.get()
        if isinstance(event, BaseException):
            raise event
        if event.result is not None:
            pending -= 1
            if _interrupted(errors.get(event.mode)):
                again.append(event.mode)  # ended early while another mode was answering: asked again below
                continue
        yield event
    if again:
        _INTERRUPTING.add(answerer.label)
        for mode in again:
            yield AnswerEvent(mode, restart=True)
            yield from _answer_one(retrieval, mode, answerer, streaming)


def _interrupted(error: LLMError | None) -> bool:
    """Whether a mode's stream was ended by the server before its answer was finished (no ``finish_reason``)."""
    return error is not None and error.kind == "cut_off" and "finish_reason" in error.message


def _answer_one(retrieval: Retrieval, mode: Mode, answerer: Answerer, streaming: bool) -> Iterator[AnswerEvent]:
    stream = AnswerStream(retrieval, mode, answerer, streaming=streaming)
    for chunk in stream:
        yield AnswerEvent(mode, chunk)
    yield AnswerEvent(mode, result=stream.result())


def compare(
    store: ElementStore,
    request: RetrievalRequest,
    *,
    answerer: Answerer | None = None,
    modes: Sequence[Mode] = MODES,
    streaming: bool = False,
) -> Comparison:
    """Retrieve once (``request``), answer in each of ``modes``; a failed answer is recorded, never raised.

    A question that breaks the rules of :func:`core.retrieval.validate_question` raises ``QuestionError``
    before any work is done.
    """
    validate_question(request.question)
    retrieval = retrieve(store, request)
    answerer = answerer or default_answerer()
    finished = {e.mode: e.result for e in answer_concurrently(retrieval, answerer, modes, streaming=streaming)
                if e.result is not None}
    results = {mode: finished[mode] for mode in modes}  # in the order asked, whichever finished first
    return Comparison.build(store.collection, retrieval, results, answerer.label)
