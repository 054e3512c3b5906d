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
* Every call is bounded: it names its kind (:data:`CALL_TOKENS`: answer, extraction, report, map, reduce, judge,
  check) and sends that kind's ``max_tokens`` scaled by ``HKE_LLM_MAX_TOKENS``, so a small model that never stops is
  stopped by the server, not only abandoned by us. The calls that want JSON ask for JSON mode
  (``response_format``). A server that refuses either option (400 naming it) is asked once more without it, and is
  not sent it again.
* Reads wait as long as ``HKE_LLM_TIMEOUT`` allows (a local server may take minutes before its first byte); connects
  are bounded by :data:`CONNECT_TIMEOUT_S`. A call given up at its deadline closes its connection, so a server that
  honours disconnects stops generating.
* A reply that is not a chat completion (an HTML page, an empty body, a 200 carrying an error object) is an
  :class:`LLMError` of kind ``bad_reply`` naming the endpoint and the kind of call; it is never cached.
* The API key never appears in a message, a log line or a repr.
"""

from __future__ import annotations

import contextlib
import contextvars
import json
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
    "BadReplyError",
    "call_with_retries",
    "chat_model",
    "configured_chat_model",
    "classify_error",
    "CALL_TOKENS",
    "call_options",
    "cut_off_error",
    "invoke_with_retries",
    "message_text",
    "model_label",
    "reply_text",
    "scrub",
    "stream_with_retries",
    "with_call_options",
]

logger = logging.getLogger("hke.llm")
T = TypeVar("T")

DEFAULT_TIMEOUT_S = 60.0  # per read when no total deadline is known (a RetryPolicy built by hand)
CONNECT_TIMEOUT_S = 10.0  # a server that does not accept the connection in this time is not there
# Output tokens each kind of call may use before HKE_LLM_MAX_TOKENS scales them: room for a full reply of that
# kind from a verbose model, and a stop for one that never ends.
CALL_TOKENS: dict[str, int] = {
    "answer": 1024,
    "extraction": 1500,
    "check": 16,  # extraction's "anything left? Y/N"
    "report": 1500,
    "map": 800,
    "reduce": 1024,
    "judge": 400,
    "rewrite": 200,  # a follow-up made standalone: one question
}
JSON_CALLS = frozenset({"report", "map", "judge"})  # their prompts ask for one JSON object
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
    token_scale: float = 1.0  # HKE_LLM_MAX_TOKENS: multiplies CALL_TOKENS

    @classmethod
    def from_settings(cls, settings: Settings | None = None, **overrides: Any) -> RetryPolicy:
        """The default policy: reads and the whole call bounded by ``HKE_LLM_TIMEOUT``, tokens scaled by
        ``HKE_LLM_MAX_TOKENS``."""
        settings = settings or load_settings()
        total = settings.llm_timeout
        return cls(**{"total": total, "timeout": total, "token_scale": settings.llm_max_tokens, **overrides})

    def max_tokens(self, kind: str) -> int:
        """The output token bound of a call of ``kind`` (:data:`CALL_TOKENS`)."""
        return max(1, round(CALL_TOKENS[kind] * self.token_scale))

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

    read = timeout or settings.llm_timeout  # the call's deadline ends a read sooner (_DeadlineTransport)
    options: dict[str, Any] = {
        "model": settings.chat_model,
        "api_key": settings.openai_api_key,
        "base_url": settings.openai_base_url,
        "timeout": httpx.Timeout(read, connect=min(CONNECT_TIMEOUT_S, read)),
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
    bad = exc if isinstance(exc, BadReplyError) else next(
        (e for e in _causes(exc) if isinstance(e, BadReplyError)), None)
    if isinstance(exc, openai.LengthFinishReasonError):  # the JSON-mode path of langchain-openai says "length" so
        completion = getattr(exc, "completion", None)
        choices = getattr(completion, "choices", None) or []
        partial = (getattr(choices[0].message, "content", None) or "") if choices else ""
        return cut_off_error_length(partial)
    if bad is not None:
        kind = _CALL_KIND.get()
        call = f"the {kind} call" if kind else "a model call"
        return LLMError("bad_reply", f"The model server at {_endpoint(bad.url)} returned {scrub(bad.what, secret)} "
                        f"to {call}. Check OPENAI_BASE_URL and the server's log.", retryable=False)
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


def _causes(exc: BaseException) -> Iterator[BaseException]:
    seen = 0
    while exc is not None and seen < 8:
        exc = exc.__cause__ or exc.__context__  # type: ignore[assignment]
        seen += 1
        if exc is not None:
            yield exc


# -- deadlines --------------------------------------------------------------------------------------------

# When the call running in this thread must be over (time.monotonic()); read by the HTTP transport.
_CALL_DEADLINE: contextvars.ContextVar[float | None] = contextvars.ContextVar("hke_llm_deadline", default=None)


class DeadlineExceeded(TimeoutError):
    """The call's total deadline passed."""


# The kind of call running in this thread (CALL_TOKENS' keys), for messages about a reply that is not one.
_CALL_KIND: contextvars.ContextVar[str | None] = contextvars.ContextVar("hke_llm_kind", default=None)


class BadReplyError(RuntimeError):
    """The server answered 200 with something that is not a chat completion."""

    def __init__(self, what: str, url: str) -> None:
        super().__init__(what)
        self.what = what
        self.url = url


class _DeadlineTransport(httpx.BaseTransport):
    """Ends HTTP work of a call that is past its deadline, so that its worker thread does not read forever, and
    refuses a 200 reply that is not a completion (HTML, an empty body, an error object) with a clear error."""

    def __init__(self, inner: httpx.BaseTransport) -> None:
        self._inner = inner

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        deadline = _CALL_DEADLINE.get()
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0:
                raise httpx.ReadTimeout("the call's deadline has passed", request=request)
            timeouts = dict(request.extensions.get("timeout") or {})
            request.extensions["timeout"] = {
                phase: left if value is None else min(value, left)
                for phase, value in {"connect": None, "read": None, "write": None, "pool": None, **timeouts}.items()
            }
        response = self._inner.handle_request(request)
        if deadline is not None:
            response.stream = _DeadlineStream(response.stream, deadline, request)
        if response.status_code == 200:
            _check_reply(response, request)
        return response

    def close(self) -> None:
        self._inner.close()


def _check_reply(response: httpx.Response, request: httpx.Request) -> None:
    """Raise :class:`BadReplyError` for a 200 that is not a completion; a stream is left to the SSE parser."""
    content_type = response.headers.get("content-type", "").lower()
    if "event-stream" in content_type:
        return
    url = str(request.url)
    if "html" in content_type:
        response.close()
        raise BadReplyError("an HTML page instead of a chat completion (is OPENAI_BASE_URL the API's /v1 URL?)", url)
    body = response.read()
    if not body.strip():
        raise BadReplyError("an empty body", url)
    try:
        data = json.loads(body)
    except ValueError:
        start = body[:200].lstrip().lower()
        what = "an HTML page" if start.startswith((b"<!doctype", b"<html")) else "a body that is not JSON"
        raise BadReplyError(f"{what} instead of a chat completion", url) from None
    if isinstance(data, dict) and data.get("error") and not data.get("choices"):
        error = data["error"]
        detail = error.get("message") if isinstance(error, dict) else error
        raise BadReplyError(f"an error with status 200: {first_line(str(detail))[:300]}", url)
    if not isinstance(data, dict) or not isinstance(data.get("choices"), list) or not data["choices"]:
        raise BadReplyError("JSON without any choices", url)


class _DeadlineStream(httpx.SyncByteStream):
    """A response body that stops once the deadline passes (checked on every piece: keepalives count)."""

    def __init__(self, inner: Iterable[bytes], deadline: float, request: httpx.Request) -> None:
        self._inner = inner
        self._deadline = deadline
        self._request = request

    def __iter__(self) -> Iterator[bytes]:
        for part in self._inner:
            if time.monotonic() > self._deadline:
                self.close()  # the connection, not only the read: a server that notices stops generating
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
    kind: str | None = None,
) -> T:
    """``fn()``, retried on retryable errors up to ``policy.attempts`` times, all within ``policy.total`` s
    (or until ``deadline``, a ``time.monotonic()`` value); raises :class:`LLMError`.

    Each attempt runs in a worker thread that is waited for only until the deadline. ``tenacity`` decides when to
    try again: only a retryable :class:`LLMError`, never past ``policy.attempts``, and never when the next wait
    would end past the deadline (then the error says the deadline, not the last failure, ended the call).
    """
    policy = policy or RetryPolicy.from_settings()
    deadline = deadline if deadline is not None else time.monotonic() + policy.total
    kind_token = _CALL_KIND.set(kind) if kind is not None else None

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
    finally:
        if kind_token is not None:
            _CALL_KIND.reset(kind_token)


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
    kind: str = "answer",
) -> str:
    """The model's whole answer as text; an :class:`LLMError` of kind ``cut_off`` if it was not finished.
    ``kind`` (:data:`CALL_TOKENS`) bounds its output and says whether it asks for JSON."""
    policy = policy or RetryPolicy.from_settings()
    return with_call_options(model, kind, policy, lambda options: call_with_retries(
        lambda: reply_text(model, model.invoke(list(messages), **options)), policy, sleep=sleep, secret=secret,
        kind=kind))


# -- per-call options: the token bound and JSON mode ---------------------------------------------------------

# Options a server refused (a 400 naming them), by server and model: they are not sent there again.
_REFUSED: dict[str, set[str]] = {}
_REFUSED_LOCK = threading.Lock()
_OPTION_WORDS = {"max_tokens": ("max_tokens", "max_completion_tokens"), "response_format": ("response_format",)}


def _server_key(model: BaseChatModel) -> str:
    return f"{getattr(model, 'openai_api_base', None)}|{getattr(model, 'model_name', None)}"


def call_options(model: BaseChatModel, kind: str, policy: RetryPolicy) -> dict[str, Any]:
    """What a call of ``kind`` sends besides its messages: its ``max_tokens`` and, for the calls that want JSON,
    JSON mode; none of those the server refused before. Only for OpenAI-protocol models (others send nothing).

    ``langchain-openai`` sends ``max_tokens`` as ``max_completion_tokens``, which OpenAI wants; a server at
    ``OPENAI_BASE_URL`` (llama.cpp, Ollama, vLLM) gets ``max_tokens``, which they all read."""
    if kind not in CALL_TOKENS:
        raise ValueError(f"unknown call kind {kind!r}; one of {', '.join(CALL_TOKENS)}")
    if not _reports_finish(model):
        return {}
    with _REFUSED_LOCK:
        refused = set(_REFUSED.get(_server_key(model), ()))
    options: dict[str, Any] = {}
    # In the request body as it is (extra_body), not as langchain-openai's response_format argument: that one
    # takes the client's structured-output path, seconds slower to start and with errors of its own.
    body: dict[str, Any] = dict(getattr(model, "extra_body", None) or {})
    if "max_tokens" not in refused:
        if getattr(model, "openai_api_base", None):
            body["max_tokens"] = policy.max_tokens(kind)
        else:
            options["max_tokens"] = policy.max_tokens(kind)
    if kind in JSON_CALLS and "response_format" not in refused:
        body["response_format"] = {"type": "json_object"}
    if body:
        options["extra_body"] = body
    return options


def _refused_option(error: LLMError, options: dict[str, Any]) -> str | None:
    """The option a 400/422 refused, if its message names one that was sent."""
    if error.kind != "bad_request":
        return None
    sent = set(options) | set(options.get("extra_body") or {})
    message = error.message.lower()
    for option, words in _OPTION_WORDS.items():
        if any(word in message for word in words) and any(word in sent for word in words):
            return option
    return None


def with_call_options(model: BaseChatModel, kind: str, policy: RetryPolicy, call: Callable[[dict[str, Any]], T]) -> T:
    """``call(options)`` with :func:`call_options`; if the server refuses one of them, once more without it."""
    options = call_options(model, kind, policy)
    try:
        return call(options)
    except LLMError as error:
        dropped = _remember_refusal(model, error, options)
        if dropped is None:
            raise
    try:
        return call(call_options(model, kind, policy))
    except LLMError as error:
        error.message += f" (the server had refused {dropped}; asked again without it, it failed as above)"
        raise


def _remember_refusal(model: BaseChatModel, error: LLMError, options: dict[str, Any]) -> str | None:
    dropped = _refused_option(error, options)
    if dropped is not None:
        with _REFUSED_LOCK:
            _REFUSED.setdefault(_server_key(model), set()).add(dropped)
        what = "replies are not bounded" if dropped == "max_tokens" else "replies are parsed as text"
        logger.warning("the model server refused %s (%s); calls go without it, so %s", dropped, error.message, what)
    return dropped


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
        return cut_off_error_length(partial)
    if finish is None and _reports_finish(model):
        return LLMError("cut_off", "The answer was cut off: the model server ended the stream before the answer was "
                        "finished (no finish_reason). Ask again.", retryable=False, partial=partial)
    return None


def cut_off_error_length(partial: str = "") -> LLMError:
    return LLMError("cut_off", "The answer was cut off at the model's output token limit.", retryable=False,
                    partial=partial)


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
    kind: str = "answer",
) -> Iterator[str]:
    """Text chunks as they arrive, all within ``policy.total`` s. Retries only until the first chunk; then an
    error, the deadline or a stream that ends without a ``finish_reason`` ends it with "The answer was cut off".
    A refused option (:func:`with_call_options`) is dropped and the stream asked for once more."""
    policy = policy or RetryPolicy.from_settings()
    options = call_options(model, kind, policy)
    started = False
    try:
        for text in _stream(model, messages, policy, sleep, secret, kind, options):
            started = True
            yield text
        return
    except LLMError as error:
        dropped = None if started else _remember_refusal(model, error, options)
        if dropped is None:
            raise
    try:
        yield from _stream(model, messages, policy, sleep, secret, kind, call_options(model, kind, policy))
    except LLMError as error:
        error.message += f" (the server had refused {dropped}; asked again without it, it failed as above)"
        raise


def _stream(
    model: BaseChatModel,
    messages: Sequence[BaseMessage],
    policy: RetryPolicy,
    sleep: Callable[[float], None],
    secret: str | None,
    kind: str,
    options: dict[str, Any],
) -> Iterator[str]:
    deadline = time.monotonic() + policy.total
    state: dict[str, Any] = {"finish": None}

    def first_chunk() -> str:
        state["chunks"] = _items_before(deadline, lambda: model.stream(list(messages), **options))
        for chunk in state["chunks"]:
            state["finish"] = _finish_reason(chunk) or state["finish"]
            text = message_text(chunk)
            if text:
                return text
        state["chunks"] = iter(())
        return ""

    # The first chunk is waited for in call_with_retries' own worker; the stream's worker is started inside it.
    first = call_with_retries(first_chunk, policy, sleep=sleep, secret=secret, deadline=deadline, kind=kind)
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
