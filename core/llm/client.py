"""The chat model (``ChatOpenAI``) and its HTTP transport, which ends a call's HTTP work at the call's deadline
(closing the connection) and refuses a 200 reply that is not a chat completion."""

from __future__ import annotations

import contextvars
import json
import time
from collections.abc import Iterable, Iterator
from typing import Any

import httpx
from langchain_core.language_models import BaseChatModel

from core.config import Settings, load_settings
from core.llm.errors import BadReplyError, LLMNotConfiguredError, endpoint_label
from core.llm.policy import CONNECT_TIMEOUT_S
from core.text import first_line


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
    where = f" at {endpoint_label(settings.openai_base_url)}" if settings.openai_base_url else ""
    return f"LLM: {settings.chat_model}{where}"


# -- deadlines --------------------------------------------------------------------------------------------

# When the call running in this thread must be over (time.monotonic()); read by the HTTP transport.
CALL_DEADLINE: contextvars.ContextVar[float | None] = contextvars.ContextVar("hke_llm_deadline", default=None)


class _DeadlineTransport(httpx.BaseTransport):
    """Ends HTTP work of a call that is past its deadline, so that its worker thread does not read forever, and
    refuses a 200 reply that is not a completion (HTML, an empty body, an error object) with a clear error."""

    def __init__(self, inner: httpx.BaseTransport) -> None:
        self._inner = inner

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        deadline = CALL_DEADLINE.get()
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
