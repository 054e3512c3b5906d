"""How hard and how long a model call may try (:class:`RetryPolicy`), and what each kind of call sends besides its
messages: its output token bound (:data:`CALL_TOKENS`) and, for the calls that want JSON, JSON mode; an option a
server refused is dropped once and not sent there again."""

from __future__ import annotations

import logging
import random
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from langchain_core.language_models import BaseChatModel

from core.config import DEFAULT_LLM_TIMEOUT_S, Settings, load_settings
from core.llm.errors import LLMError
from core.llm.replies import reports_finish

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
    "topic": 60,  # a heading section's topic name (core.hlg.prompts): one short line
    "statement": 600,  # an element's propositions (core.hlg.prompts): its text restated, a line per fact
    "triple": 600,  # the S-P-O triples of a batch of statements (core.hlg.prompts): a line or two per statement
    "changes": 600,  # a summary of the listed changes between versions, a sentence or two per change
    "summary": 300,  # a long conversation's summarised episodes (core.conversation.summary): a few lines
}
JSON_CALLS = frozenset({"report", "map", "judge"})  # their prompts ask for one JSON object


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
    if not reports_finish(model):
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
        dropped = remember_refusal(model, error, options)
        if dropped is None:
            raise
    try:
        return call(call_options(model, kind, policy))
    except LLMError as error:
        error.message += f" (the server had refused {dropped}; asked again without it, it failed as above)"
        raise


def remember_refusal(model: BaseChatModel, error: LLMError, options: dict[str, Any]) -> str | None:
    dropped = _refused_option(error, options)
    if dropped is not None:
        with _REFUSED_LOCK:
            _REFUSED.setdefault(_server_key(model), set()).add(dropped)
        what = "replies are not bounded" if dropped == "max_tokens" else "replies are parsed as text"
        logger.warning("the model server refused %s (%s); calls go without it, so %s", dropped, error.message, what)
    return dropped
