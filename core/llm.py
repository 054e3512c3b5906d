"""The chat model, bounded retries with backoff, and errors a user can act on.

Generic on purpose: answering and the GraphRAG code call :func:`chat_model` and :func:`invoke_with_retries`
/ :func:`stream_with_retries`, and show :class:`LLMError` ``.message`` to the user.

* The model is ``langchain-openai``'s ``ChatOpenAI``: ``HKE_CHAT_MODEL`` at OpenAI, or at any OpenAI-compatible
  server named by ``OPENAI_BASE_URL`` (Ollama, vLLM).
* The client's own retries are off (``max_retries=0``): retries happen here, through ``tenacity``, so that a 401
  is never retried, 429/5xx/timeouts/connection failures are retried a bounded number of times with exponential
  backoff plus jitter (honouring ``Retry-After`` up to a cap), and every failure ends in one clear message.
* A stream is retried only before its first chunk; after that a retry would repeat text already shown.
* Every call has a total deadline (``HKE_LLM_TIMEOUT``, :attr:`RetryPolicy.total`), retries and backoff included.
  The client's timeout is per read, so a server that sends an SSE keepalive every few seconds, or one token
  every few seconds, would otherwise hold a call forever. The HTTP work runs in a worker thread that the caller
  waits on only until the deadline; the worker's transport bounds every timeout by the time left and checks the
  deadline on each piece of the body, so it ends too, at the latest with the next bytes or read timeout.
* A reply that ends without a ``finish_reason`` (the server closed the stream early) or with ``length`` (the
  output token limit) is reported as cut off, not shown as a complete answer: streamed (:func:`stream_with_retries`)
  or whole (:func:`reply_text`, used by :func:`invoke_with_retries` and the GraphRAG calls).
* The API key never appears in a message, a log line or a repr.
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
import queue
import random
import re
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import httpx
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage
from tenacity import RetryCallState, Retrying, retry_if_exception, stop_after_attempt

from core.config import DEFAULT_LLM_TIMEOUT_S, Settings, load_settings
from core.text import first_line

__all__ = [
    "LLMError",
    "LLMNotConfiguredError",
    "DeadlineExceeded",
    "RetryPolicy",
    "call_with_retries",
    "chat_model",
    "configured_chat_model",
    "classify_error",
    "cut_off_error",
    "invoke_with_retries",
    "message_text",
    "model_label",
    "reply_text",
    "scrub",
    "stream_with_retries",
]

logger = logging.getLogger("hke.llm")
T = TypeVar("T")

DEFAULT_TIMEOUT_S = 60.0  # per read (and per connect): how long a silent server is waited for
_KEY_RE = re.compile(r"\b(sk-[A-Za-z0-9_\-*]{6,}|Bearer\s+\S+)")


@dataclass(frozen=True)
class RetryPolicy:
    """How hard to try: ``attempts`` in total (1 = no retry), exponential backoff capped at ``max_delay``,
    each read waited for at most ``timeout`` s, and the whole call (every attempt and wait) at most ``total`` s."""

    attempts: int = 3
    base_delay: float = 0.5
    max_delay: float = 8.0
    timeout: float = DEFAULT_TIMEOUT_S
    total: float = DEFAULT_LLM_TIMEOUT_S

    @classmethod
    def from_settings(cls, settings: Settings | None = None, **overrides: Any) -> RetryPolicy:
        """The default policy with the total deadline of ``HKE_LLM_TIMEOUT``."""
        total = (settings or load_settings()).llm_timeout
        return cls(**{"total": total, "timeout": min(DEFAULT_TIMEOUT_S, total), **overrides})

    def delay(self, attempt: int, retry_after: float | None = None) -> float:
        """Seconds to wait before retry number ``attempt`` (1-based)."""
        if retry_after is not None:
            return min(max(retry_after, 0.0), self.max_delay)
        backoff = min(self.base_delay * (2 ** (attempt - 1)), self.max_delay)
        return backoff + random.uniform(0, self.base_delay)  # noqa: S311 - jitter, not cryptography


class LLMNotConfiguredError(RuntimeError):
    """No ``OPENAI_API_KEY``: callers fall back to the extractive answerer."""


class LLMError(RuntimeError):
    """A failed model call, classified. ``message`` is safe to show: it names the cause and what to do."""

    def __init__(self, kind: str, message: str, *, retryable: bool, status: int | None = None, attempts: int = 1,
                 partial: str = ""):
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.retryable = retryable
        self.status = status
        self.attempts = attempts
        self.partial = partial  # kind "cut_off": the text that did arrive

    def __repr__(self) -> str:
        return f"LLMError(kind={self.kind!r}, status={self.status!r}, attempts={self.attempts})"


# -- the model -------------------------------------------------------------------------------------------


def chat_model(
    settings: Settings | None = None,
    *,
    streaming: bool = False,
    timeout: float | None = None,
    temperature: float | None = 0.0,
    **kwargs: Any,
) -> BaseChatModel:
    """``ChatOpenAI`` for ``HKE_CHAT_MODEL`` (at ``OPENAI_BASE_URL`` if set). Raises if no key is configured."""
    settings = settings or load_settings()
    if not settings.openai_api_key:
        raise LLMNotConfiguredError("no OPENAI_API_KEY is set: answers are extractive")
    from langchain_openai import ChatOpenAI

    options: dict[str, Any] = {
        "model": settings.chat_model,
        "api_key": settings.openai_api_key,
        "base_url": settings.openai_base_url,
        "timeout": timeout or DEFAULT_TIMEOUT_S,
        "max_retries": 0,  # retries are ours: classified and bounded (see module docstring)
        "streaming": streaming,
        "http_client": httpx.Client(transport=_DeadlineTransport(httpx.HTTPTransport())),
    }
    if temperature is not None:
        options["temperature"] = temperature
    options.update(kwargs)
    return ChatOpenAI(**options)


def configured_chat_model(settings: Settings | None = None, **options: Any) -> BaseChatModel | None:
    """The configured chat model (:func:`chat_model` with ``options``) when an LLM is configured
    (``settings.has_llm``), else ``None``: what the index and global search run unless given a model."""
    settings = settings or load_settings()
    return chat_model(settings, **options) if settings.has_llm else None


def model_label(settings: Settings | None = None) -> str:
    """What answers come from, for display (never the key)."""
    settings = settings or load_settings()
    where = f" at {_endpoint(settings.openai_base_url)}" if settings.openai_base_url else ""
    return f"LLM: {settings.chat_model}{where}"


def _endpoint(url: str | None) -> str:
    # Only scheme://host[:port]: a base URL may carry credentials or tokens in its path or query.
    if not url:
        return "OpenAI"
    match = re.match(r"^(https?://)(?:[^@/]*@)?([^/?#]+)", url)
    return (match.group(1) + match.group(2)) if match else "custom endpoint"


# -- errors ------------------------------------------------------------------------------------------------


def scrub(text: str, secret: str | None = None) -> str:
    """``text`` without API keys (the configured one, and anything shaped like one)."""
    if secret:
        text = text.replace(secret, "[redacted]")
    return _KEY_RE.sub("[redacted]", text)


def _status_of(exc: BaseException) -> int | None:
    status = getattr(exc, "status_code", None)
    if isinstance(status, int):
        return status
    response = getattr(exc, "response", None)
    status = getattr(response, "status_code", None)
    return status if isinstance(status, int) else None


def _retry_after(exc: BaseException) -> float | None:
    headers = getattr(getattr(exc, "response", None), "headers", None)
    if not headers:
        return None
    raw = headers.get("retry-after-ms")
    try:
        if raw is not None:
            return float(raw) / 1000.0
        raw = headers.get("retry-after")
        return float(raw) if raw is not None else None
    except (TypeError, ValueError):
        return None  # an HTTP date: fall back to our own backoff


def classify_error(exc: BaseException, *, timeout: float | None = None, secret: str | None = None) -> LLMError:
    """Map an exception from the OpenAI client (or the transport) to an :class:`LLMError`."""
    if isinstance(exc, LLMError):
        return exc
    import openai

    detail = scrub(first_line(exc), secret)
    status = _status_of(exc)
    if isinstance(exc, openai.APITimeoutError) or isinstance(exc, TimeoutError):
        limit = f" within {timeout:g} s" if timeout else ""
        return LLMError("timeout", f"The model server did not answer{limit}. It may be overloaded; try again, "
                        "or raise the timeout.", retryable=True)
    if isinstance(exc, openai.APIConnectionError) or isinstance(exc, ConnectionError):
        return LLMError("unavailable", "Cannot reach the model server. Check OPENAI_BASE_URL and that the server "
                        f"is running ({detail}).", retryable=True)
    if status == 401 or isinstance(exc, openai.AuthenticationError):
        return LLMError("auth", "The model server rejected the API key (401). Check OPENAI_API_KEY.",
                        retryable=False, status=401)
    if status == 403 or isinstance(exc, openai.PermissionDeniedError):
        return LLMError("forbidden", f"The API key may not use this model (403): {detail}", retryable=False,
                        status=403)
    if status == 404 or isinstance(exc, openai.NotFoundError):
        return LLMError("not_found", f"The model server does not know this model or path (404). Check "
                        f"HKE_CHAT_MODEL and OPENAI_BASE_URL: {detail}", retryable=False, status=404)
    if status == 429 or isinstance(exc, openai.RateLimitError):
        quota = "insufficient_quota" in detail or "quota" in detail.lower()
        if quota:
            return LLMError("quota", "The API account is out of quota (429 insufficient_quota); add credit or "
                            "use another key.", retryable=False, status=429)
        return LLMError("rate_limit", "The model server is rate limiting requests (429). Wait a moment and try "
                        "again.", retryable=True, status=429)
    if status is not None and status >= 500:
        return LLMError("server", f"The model server failed ({status}). Try again later: {detail}",
                        retryable=True, status=status)
    if status is not None and 400 <= status < 500:
        return LLMError("bad_request", f"The model server refused the request ({status}): {detail}",
                        retryable=False, status=status)
    return LLMError("unknown", f"The model call failed: {type(exc).__name__}: {detail}", retryable=False)


# -- deadlines --------------------------------------------------------------------------------------------

# When the call running in this thread must be over (time.monotonic()); read by the HTTP transport.
_CALL_DEADLINE: contextvars.ContextVar[float | None] = contextvars.ContextVar("hke_llm_deadline", default=None)


class DeadlineExceeded(TimeoutError):
    """The call's total deadline passed."""


class _DeadlineTransport(httpx.BaseTransport):
    """Ends HTTP work of a call that is past its deadline, so that its worker thread does not read forever."""

    def __init__(self, inner: httpx.BaseTransport) -> None:
        self._inner = inner

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        deadline = _CALL_DEADLINE.get()
        if deadline is None:
            return self._inner.handle_request(request)
        left = deadline - time.monotonic()
        if left <= 0:
            raise httpx.ReadTimeout("the call's deadline has passed", request=request)
        timeouts = dict(request.extensions.get("timeout") or {})
        request.extensions["timeout"] = {
            phase: left if value is None else min(value, left)
            for phase, value in {"connect": None, "read": None, "write": None, "pool": None, **timeouts}.items()
        }
        response = self._inner.handle_request(request)
        response.stream = _DeadlineStream(response.stream, deadline, request)
        return response

    def close(self) -> None:
        self._inner.close()


class _DeadlineStream(httpx.SyncByteStream):
    """A response body that stops once the deadline passes (checked on every piece: keepalives count)."""

    def __init__(self, inner: Iterable[bytes], deadline: float, request: httpx.Request) -> None:
        self._inner = inner
        self._deadline = deadline
        self._request = request

    def __iter__(self) -> Iterator[bytes]:
        for part in self._inner:
            if time.monotonic() > self._deadline:
                raise httpx.ReadTimeout("the call's deadline has passed", request=self._request)
            yield part

    def close(self) -> None:
        close = getattr(self._inner, "close", None)
        if close is not None:
            close()


def _items_before(deadline: float, produce: Callable[[], Iterable[T]]) -> Iterator[T]:
    """The items of ``produce()``, computed in a worker thread; :class:`DeadlineExceeded` once ``deadline`` passes.

    The caller never waits past the deadline. The worker sees the deadline too (``_CALL_DEADLINE``), so its HTTP
    request ends soon after; an abandoned worker is a daemon thread and closes its stream at its next item.
    """
    items: queue.SimpleQueue[tuple[str, Any]] = queue.SimpleQueue()
    abandoned = threading.Event()

    def work() -> None:
        _CALL_DEADLINE.set(deadline)
        try:
            iterable = produce()
            with contextlib.closing(iterable) if hasattr(iterable, "close") else contextlib.nullcontext():
                for item in iterable:
                    if abandoned.is_set():
                        return
                    items.put(("item", item))
        except BaseException as exc:  # handed to the caller's thread, which classifies it
            items.put(("error", exc))
        else:
            items.put(("end", None))

    threading.Thread(target=work, name="hke-llm-call", daemon=True).start()
    try:
        while True:
            left = deadline - time.monotonic()
            try:
                if left <= 0:
                    raise queue.Empty
                kind, value = items.get(timeout=left)
            except queue.Empty:
                raise DeadlineExceeded from None
            if kind == "item":
                yield value
            elif kind == "error":
                raise value
            else:
                return
    finally:
        abandoned.set()


def _deadline_error(policy: RetryPolicy, last: LLMError | None = None, *, cut_off: bool = False) -> LLMError:
    why = f" The last attempt failed: {last.message}" if last is not None and last.kind != "timeout" else ""
    if cut_off:
        text = (f"The answer was cut off: the model did not finish within {policy.total:g} s (HKE_LLM_TIMEOUT). "
                "Ask again, or raise HKE_LLM_TIMEOUT for a slow server.")
    else:
        text = (f"The model did not answer within {policy.total:g} s (HKE_LLM_TIMEOUT), retries included. The "
                f"server may be overloaded or stalled; try again, or raise HKE_LLM_TIMEOUT.{why}")
    return LLMError("deadline", text, retryable=False, attempts=last.attempts if last else 1)


# -- calls with retries -----------------------------------------------------------------------------------


def call_with_retries(
    fn: Callable[[], T],
    policy: RetryPolicy | None = None,
    *,
    sleep: Callable[[float], None] = time.sleep,
    secret: str | None = None,
    deadline: float | None = None,
) -> T:
    """``fn()``, retried on retryable errors up to ``policy.attempts`` times, all within ``policy.total`` s
    (or until ``deadline``, a ``time.monotonic()`` value); raises :class:`LLMError`.

    Each attempt runs in a worker thread that is waited for only until the deadline. ``tenacity`` decides when to
    try again: only a retryable :class:`LLMError`, never past ``policy.attempts``, and never when the next wait
    would end past the deadline (then the error says the deadline, not the last failure, ended the call).
    """
    policy = policy or RetryPolicy.from_settings()
    deadline = deadline if deadline is not None else time.monotonic() + policy.total

    def attempt() -> T:
        try:
            return next(_items_before(deadline, lambda: [fn()]))
        except DeadlineExceeded as exc:
            raise _deadline_error(policy) from exc
        except Exception as exc:  # classified; anything unknown is not retried
            raise classify_error(exc, timeout=policy.timeout, secret=secret) from exc

    def give_up(state: RetryCallState) -> T:
        error = _failure(state)
        error.attempts = state.attempt_number
        if state.attempt_number < policy.attempts:  # stopped because the next wait would pass the deadline
            raise _deadline_error(policy, error) from error.__cause__
        raise error

    retrying = Retrying(
        retry=retry_if_exception(lambda exc: isinstance(exc, LLMError) and exc.retryable),
        stop=stop_after_attempt(policy.attempts) | (lambda state: time.monotonic() + state.upcoming_sleep >= deadline),
        wait=lambda state: policy.delay(state.attempt_number, _retry_after(_failure(state).__cause__)),
        sleep=sleep,
        before_sleep=lambda state: logger.warning(
            "model call failed (%s), retry %d/%d in %.1fs", _failure(state).kind, state.attempt_number,
            policy.attempts - 1, state.upcoming_sleep),
        retry_error_callback=give_up,
    )
    try:
        return retrying(attempt)
    except LLMError as error:
        if error.kind != "deadline":
            error.attempts = retrying.statistics.get("attempt_number", 1)
            if error.attempts > 1:
                error.message += f" (gave up after {error.attempts} attempts)"
        raise


def _failure(state: RetryCallState) -> LLMError:
    """The classified error of the attempt that just failed (``attempt`` raises nothing else)."""
    error = state.outcome.exception() if state.outcome is not None else None
    assert isinstance(error, LLMError)
    return error


def message_text(message: BaseMessage | str) -> str:
    """The text of a chat message or chunk (content may be a list of parts)."""
    content = getattr(message, "content", message)
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p if isinstance(p, str) else str(p.get("text", "")) for p in content if p)
    return str(content or "")


def invoke_with_retries(
    model: BaseChatModel,
    messages: Sequence[BaseMessage],
    policy: RetryPolicy | None = None,
    *,
    sleep: Callable[[float], None] = time.sleep,
    secret: str | None = None,
) -> str:
    """The model's whole answer as text; an :class:`LLMError` of kind ``cut_off`` if it was not finished."""
    return call_with_retries(lambda: reply_text(model, model.invoke(list(messages))), policy, sleep=sleep,
                             secret=secret)


def _finish_reason(chunk: BaseMessage) -> str | None:
    response = getattr(chunk, "response_metadata", None) or {}
    reason = response.get("finish_reason")
    return reason if isinstance(reason, str) and reason else None


def _reports_finish(model: BaseChatModel) -> bool:
    """Whether the model's protocol ends every complete reply with a ``finish_reason`` (OpenAI's does; LangChain's
    fake and some other chat models never send one, so its absence proves nothing there)."""
    from langchain_openai.chat_models.base import BaseChatOpenAI

    return isinstance(model, BaseChatOpenAI)


def cut_off_error(model: BaseChatModel, finish: str | None, partial: str = "") -> LLMError | None:
    """The error for a reply that ended with ``finish`` as its finish reason, if that means it was cut off."""
    if finish == "length":
        return LLMError("cut_off", "The answer was cut off at the model's output token limit.", retryable=False,
                        partial=partial)
    if finish is None and _reports_finish(model):
        return LLMError("cut_off", "The answer was cut off: the model server ended the stream before the answer was "
                        "finished (no finish_reason). Ask again.", retryable=False, partial=partial)
    return None


def reply_text(model: BaseChatModel, message: BaseMessage) -> str:
    """The text of ``model``'s whole reply ``message``; raises the ``cut_off`` :class:`LLMError` (with the text that
    arrived as ``partial``) when the server did not finish it."""
    text = message_text(message)
    error = cut_off_error(model, _finish_reason(message), text)
    if error is not None:
        raise error
    return text


def stream_with_retries(
    model: BaseChatModel,
    messages: Sequence[BaseMessage],
    policy: RetryPolicy | None = None,
    *,
    sleep: Callable[[float], None] = time.sleep,
    secret: str | None = None,
) -> Iterator[str]:
    """Text chunks as they arrive, all within ``policy.total`` s. Retries only until the first chunk; then an
    error, the deadline or a stream that ends without a ``finish_reason`` ends it with "The answer was cut off"."""
    policy = policy or RetryPolicy.from_settings()
    deadline = time.monotonic() + policy.total
    state: dict[str, Any] = {"finish": None}

    def first_chunk() -> str:
        state["chunks"] = _items_before(deadline, lambda: model.stream(list(messages)))
        for chunk in state["chunks"]:
            state["finish"] = _finish_reason(chunk) or state["finish"]
            text = message_text(chunk)
            if text:
                return text
        state["chunks"] = iter(())
        return ""

    # The first chunk is waited for in call_with_retries' own worker; the stream's worker is started inside it.
    first = call_with_retries(first_chunk, policy, sleep=sleep, secret=secret, deadline=deadline)
    if first:
        yield first
    try:
        for chunk in state["chunks"]:
            state["finish"] = _finish_reason(chunk) or state["finish"]
            text = message_text(chunk)
            if text:
                yield text
    except DeadlineExceeded as exc:
        raise _deadline_error(policy, cut_off=True) from exc
    except Exception as exc:
        if time.monotonic() >= deadline:  # the transport ended the read at the deadline
            raise _deadline_error(policy, cut_off=True) from exc
        error = classify_error(exc, timeout=policy.timeout, secret=secret)
        error.message = "The answer was cut off: " + error.message
        raise error from exc
    error = cut_off_error(model, state["finish"])
    if error is not None:
        raise error
