"""The chat model, bounded retries with backoff, and errors a user can act on.

Generic on purpose: answering and the GraphRAG code call :func:`chat_model` and :func:`invoke_with_retries`
/ :func:`stream_with_retries`, and show :class:`LLMError` ``.message`` to the user.

* The model is ``langchain-openai``'s ``ChatOpenAI``: ``HKE_CHAT_MODEL`` at OpenAI, or at any OpenAI-compatible
  server named by ``OPENAI_BASE_URL`` (Ollama, vLLM).
* The client's own retries are off (``max_retries=0``): retries happen here, so that a 401 is never retried,
  429/5xx/timeouts/connection failures are retried a bounded number of times with exponential backoff plus
  jitter (honouring ``Retry-After`` up to a cap), and every failure ends in one clear message.
* A stream is retried only before its first chunk; after that a retry would repeat text already shown.
* The API key never appears in a message, a log line or a repr.
"""

from __future__ import annotations

import logging
import random
import re
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage

from core.config import Settings, load_settings

__all__ = [
    "LLMError",
    "LLMNotConfiguredError",
    "RetryPolicy",
    "call_with_retries",
    "chat_model",
    "classify_error",
    "invoke_with_retries",
    "message_text",
    "model_label",
    "scrub",
    "stream_with_retries",
]

logger = logging.getLogger("hke.llm")
T = TypeVar("T")

DEFAULT_TIMEOUT_S = 60.0
_KEY_RE = re.compile(r"\b(sk-[A-Za-z0-9_\-*]{6,}|Bearer\s+\S+)")


@dataclass(frozen=True)
class RetryPolicy:
    """How hard to try: ``attempts`` in total (1 = no retry), exponential backoff capped at ``max_delay``."""

    attempts: int = 3
    base_delay: float = 0.5
    max_delay: float = 8.0
    timeout: float = DEFAULT_TIMEOUT_S

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

    def __init__(self, kind: str, message: str, *, retryable: bool, status: int | None = None, attempts: int = 1):
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.retryable = retryable
        self.status = status
        self.attempts = attempts

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
    }
    if temperature is not None:
        options["temperature"] = temperature
    options.update(kwargs)
    return ChatOpenAI(**options)


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

    detail = scrub(_first_line(exc), secret)
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


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0][:300]


# -- calls with retries -----------------------------------------------------------------------------------


def call_with_retries(
    fn: Callable[[], T],
    policy: RetryPolicy | None = None,
    *,
    sleep: Callable[[float], None] = time.sleep,
    secret: str | None = None,
) -> T:
    """``fn()``, retried on retryable errors up to ``policy.attempts`` times; raises :class:`LLMError`."""
    policy = policy or RetryPolicy()
    attempt = 0
    while True:
        attempt += 1
        try:
            return fn()
        except Exception as exc:  # classified below; anything unknown is not retried
            error = classify_error(exc, timeout=policy.timeout, secret=secret)
            error.attempts = attempt
            if not error.retryable or attempt >= policy.attempts:
                if attempt > 1:
                    error.message += f" (gave up after {attempt} attempts)"
                raise error from exc
            wait = policy.delay(attempt, _retry_after(exc))
            logger.warning("model call failed (%s), retry %d/%d in %.1fs", error.kind, attempt,
                           policy.attempts - 1, wait)
            sleep(wait)


def message_text(message: Any) -> str:
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
    """The model's whole answer as text."""
    return call_with_retries(lambda: message_text(model.invoke(list(messages))), policy, sleep=sleep, secret=secret)


def stream_with_retries(
    model: BaseChatModel,
    messages: Sequence[BaseMessage],
    policy: RetryPolicy | None = None,
    *,
    sleep: Callable[[float], None] = time.sleep,
    secret: str | None = None,
) -> Iterator[str]:
    """Text chunks as they arrive. Retries only until the first chunk; then an error ends the stream."""
    policy = policy or RetryPolicy()
    holder: dict[str, Any] = {}

    def first_chunk() -> str:
        holder["stream"] = iter(model.stream(list(messages)))
        for chunk in holder["stream"]:
            text = message_text(chunk)
            if text:
                return text
        return ""

    first = call_with_retries(first_chunk, policy, sleep=sleep, secret=secret)
    if first:
        yield first
    try:
        for chunk in holder.get("stream", ()):
            text = message_text(chunk)
            if text:
                yield text
    except Exception as exc:
        error = classify_error(exc, timeout=policy.timeout, secret=secret)
        error.message = "The answer was cut off: " + error.message
        raise error from exc
