"""LLM calls of the index, through a response cache in Postgres.

The store of replies is :class:`PostgresLLMCache`, a LangChain ``BaseCache`` over the ``hke_llm_cache`` table,
scoped to one collection. Its key is the model's identity (its type, name and endpoint: the same model name at
another ``OPENAI_BASE_URL`` is another model) plus the SHA-256 of the exact message list. Re-indexing an unchanged
corpus with the same model and prompts therefore makes no calls. ``python -m core cache clear`` empties it
(:func:`clear_cache`; the rows are :class:`core.store.graph_tables.LLMCacheTable`).

The cache is consulted by :class:`CachedChat`, not attached to the model (``BaseChatModel(cache=...)``), because a
reply is cached only once the caller has checked that it parses: a reply the caller's ``valid`` check rejects is
never written, one already cached is not replayed (the next run asks again), and the index report counts calls
and hits. A model-level cache writes every reply before the caller sees it and says nothing about hits. A reply is
written as soon as it arrives, in its own transaction, so calls paid for before a failed index run are not paid
for again.

Errors: calls go through :func:`core.llm.call_with_retries`, so a transient provider error (rate limit, timeout,
connection, 5xx) is retried with bounded exponential backoff and everything is classified the same way as in Q&A.
A call that still fails raises :class:`LLMCallError` (carrying the classified, key-free message); the index falls
back to its offline extraction or extractive report for that unit or community, and stops (leaving the previous
index in place) only when the model has failed every call (:attr:`CachedChat.failing`).
Malformed *replies* are not errors here: the parsers skip and
log them. A reply the server did not finish (no ``finish_reason``, or ``length``) is never cached; where the reply
is the answer itself (``whole=True``: global search's reduce) it is an :class:`LLMCallError` that says the answer
was cut off, elsewhere (extraction, reports, map) it is logged and parsed like any other reply.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import threading
import uuid
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from langchain_core.caches import RETURN_VAL_TYPE, BaseCache
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration

from core.store import graph_tables

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel
    from psycopg_pool import ConnectionPool

    from core.llm import RetryPolicy

Messages = Sequence[tuple[str, str]]
log = logging.getLogger(__name__)


class LLMCallError(RuntimeError):
    """A chat model call failed for good; the index run stops and the previous index stays."""


class ModelFailingError(LLMCallError):
    """The model failed every call (:attr:`CachedChat.failing`): the run stops instead of falling back everywhere."""

    def __init__(self, chat: CachedChat) -> None:
        super().__init__(f"the chat model failed every call ({chat.failed} of {chat.failed}, none answered): "
                         f"{chat.last_error}")


def model_identity(model: BaseChatModel) -> str:
    """A stable name for the cache key: the LangChain model type, its model name if any, and its endpoint if any.

    The endpoint is shown as scheme, host and path (no credentials, no query) plus a hash of the whole URL, so two
    servers never share entries and nothing secret is stored.
    """
    kind = getattr(model, "_llm_type", None) or type(model).__name__
    name = next((v for v in (getattr(model, a, None) for a in ("model_name", "model", "model_id", "deployment_name"))
                 if isinstance(v, str) and v), None)
    identity = f"{kind}:{name}" if name else str(kind)
    base_url = getattr(model, "openai_api_base", None)
    if isinstance(base_url, str) and base_url:
        identity += f"@{_endpoint_label(base_url)}"
    return identity


def _endpoint_label(url: str) -> str:
    match = re.match(r"^([a-z][a-z0-9+.-]*://)(?:[^@/?#]*@)?([^?#]*)", url, re.IGNORECASE)
    shown = (match.group(1) + match.group(2)) if match else "endpoint"
    return f"{shown}#{hashlib.sha256(url.encode()).hexdigest()[:12]}"


def prompt_key(messages: Messages) -> str:
    """The message list as one canonical string: the ``prompt`` of :class:`PostgresLLMCache`."""
    return json.dumps([[role, content] for role, content in messages], ensure_ascii=False, separators=(",", ":"))


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class PostgresLLMCache(BaseCache):
    """LangChain's cache interface over ``hke_llm_cache``, for one collection.

    ``prompt`` is stored as its SHA-256 and ``llm_string`` as given (``CachedChat`` passes the model identity);
    only the first generation's text is kept, which is all a chat reply of the index has.
    """

    def __init__(self, pool: ConnectionPool, collection_id: uuid.UUID) -> None:
        self.table = graph_tables.LLMCacheTable(pool, collection_id)

    def lookup(self, prompt: str, llm_string: str) -> RETURN_VAL_TYPE | None:
        reply = self.table.get(llm_string, _sha256(prompt))
        return [ChatGeneration(message=AIMessage(content=reply))] if reply is not None else None

    def update(self, prompt: str, llm_string: str, return_val: RETURN_VAL_TYPE) -> None:
        self.table.put(llm_string, _sha256(prompt), return_val[0].text if return_val else "")

    def clear(self, **kwargs: Any) -> None:
        """Delete this collection's cached replies."""
        self.table.clear()


class CachedChat:
    """Calls a LangChain chat model with a Postgres response cache; thread-safe, counts calls and hits.

    ``pool``/``collection_id`` may be None (no cache: every call goes to the model), which tests of the
    parsers use.
    """

    def __init__(
        self,
        model: BaseChatModel,
        *,
        pool: ConnectionPool | None = None,
        collection_id: uuid.UUID | None = None,
        policy: RetryPolicy | None = None,
    ) -> None:
        self.model = model
        self.model_id = model_identity(model)
        self.cache = PostgresLLMCache(pool, collection_id) if pool is not None and collection_id is not None else None
        self.policy = policy  # None: core.llm's default (3 attempts)
        self.calls = 0
        self.cached = 0
        self.answered = 0  # calls the server answered (whatever the reply)
        self.failed = 0  # calls that failed for good
        self.last_error = ""
        self._lock = threading.Lock()

    FAILING_AFTER = 3  # calls that all failed, none answered, before the model is taken as down

    @property
    def failing(self) -> bool:
        """Whether every call so far failed (at least :attr:`FAILING_AFTER` of them): the model is down, not one
        unit's or community's call."""
        return self.failed >= self.FAILING_AFTER and self.answered == 0 and self.cached == 0

    def __call__(self, messages: Messages, *, kind: str = "answer", valid: Callable[[str], bool] | None = None,
                 whole: bool = False) -> str:
        """The model's reply to ``messages``, from the cache when it holds one.

        ``valid(reply)`` says whether a reply is usable (parses); one that is not is returned (the caller logs
        and skips it) but never cached, and a cached one that is not (cached before this check) is asked again.
        ``whole``: the reply is shown as an answer, so one that was cut off raises :class:`LLMCallError`.
        ``kind`` (:data:`core.llm.CALL_TOKENS`) bounds the reply's tokens and says whether it asks for JSON.
        """
        key = prompt_key(messages)
        cached = self.cache.lookup(key, self.model_id) if self.cache is not None else None
        if cached is not None and (valid is None or valid(cached[0].text)):
            with self._lock:
                self.cached += 1
            return cached[0].text
        text, finished = self._invoke(messages, kind, whole)
        if finished and self.cache is not None and text.strip() and (valid is None or valid(text)):
            self.cache.update(key, self.model_id, [ChatGeneration(message=AIMessage(content=text))])
        return text

    def _invoke(self, messages: Messages, kind: str, whole: bool) -> tuple[str, bool]:
        """(the reply's text, whether the server finished it)."""
        from core.llm import LLMError, RetryPolicy, call_with_retries, reply_text, with_call_options

        prompt = [(role, content) for role, content in messages]
        policy = self.policy or RetryPolicy.from_settings()

        def once(options: dict[str, Any]) -> str:
            with self._lock:
                self.calls += 1
            return reply_text(self.model, self.model.invoke(prompt, **options))

        try:
            text = with_call_options(self.model, kind, policy,
                                     lambda options: call_with_retries(lambda: once(options), policy, kind=kind))
        except LLMError as exc:
            with self._lock:
                if exc.kind == "cut_off":
                    self.answered += 1
                else:
                    self.failed += 1
                    self.last_error = exc.message
            if exc.kind == "cut_off" and not whole:
                log.warning("a model reply was cut off (%s); it is parsed as far as it goes and not cached",
                            exc.message)
                return exc.partial, False
            raise LLMCallError(f"chat model call failed: {exc.message}") from exc
        with self._lock:
            self.answered += 1
        return text, True


def cache_size(pool: ConnectionPool, collection_id: uuid.UUID) -> int:
    return graph_tables.LLMCacheTable(pool, collection_id).count()


def clear_cache(pool: ConnectionPool, collection_id: uuid.UUID) -> int:
    """Delete the cached replies of one collection; returns how many were deleted."""
    return graph_tables.LLMCacheTable(pool, collection_id).clear()
