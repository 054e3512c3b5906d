"""The errors of a model call, classified into messages a user can act on, without the API key."""

from __future__ import annotations

import contextvars
import re
from collections.abc import Iterator

from core.text import first_line

_KEY_RE = re.compile(r"\b(sk-[A-Za-z0-9_\-*]{6,}|Bearer\s+\S+)")


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


def endpoint_label(url: str | None) -> str:
    """Where the server is, for messages: only scheme://host[:port]."""
    # Only scheme://host[:port]: a base URL may carry credentials or tokens in its path or query.
    if not url:
        return "OpenAI"
    match = re.match(r"^(https?://)(?:[^@/]*@)?([^/?#]+)", url)
    return (match.group(1) + match.group(2)) if match else "custom endpoint"


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


def retry_after(exc: BaseException) -> float | None:
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
        kind = CALL_KIND.get()
        call = f"the {kind} call" if kind else "a model call"
        where = endpoint_label(bad.url)
        return LLMError("bad_reply", f"The model server at {where} returned {scrub(bad.what, secret)} "
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


class DeadlineExceeded(TimeoutError):
    """The call's total deadline passed."""


# The kind of call running in this thread (CALL_TOKENS' keys), for messages about a reply that is not one.
CALL_KIND: contextvars.ContextVar[str | None] = contextvars.ContextVar("hke_llm_kind", default=None)


class BadReplyError(RuntimeError):
    """The server answered 200 with something that is not a chat completion."""

    def __init__(self, what: str, url: str) -> None:
        super().__init__(what)
        self.what = what
        self.url = url


def cut_off_error_length(partial: str = "") -> LLMError:
    return LLMError("cut_off", "The answer was cut off at the model's output token limit.", retryable=False,
                    partial=partial)
