"""Who writes an answer from a context: the :class:`Answerer` protocol, the LLM answerer, and the default choice.

:class:`LLMAnswerer` sends the RAG prompt of :mod:`core.answering.prompts` through :mod:`core.llm` (retries, a
total deadline, clear errors); without ``OPENAI_API_KEY`` :func:`default_answerer` falls back to
:class:`core.answering.extractive.ExtractiveAnswerer`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Protocol

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage

from core.answering import prompts
from core.answering.extractive import ExtractiveAnswerer
from core.answering.table import build_table
from core.config import Settings, load_settings
from core.llm import RetryPolicy, chat_model, invoke_with_retries, model_label, stream_with_retries
from core.retrieval import Context

__all__ = ["Answerer", "LLMAnswerer", "default_answerer"]


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
        concurrency: int = 2,
    ) -> None:
        self.model = model
        self.label = label
        self.policy = policy or RetryPolicy.from_settings()
        self.concurrency = concurrency  # 1: the answer columns ask one after the other (HKE_LLM_CONCURRENCY)
        self._secret = secret  # only to scrub it from error messages

    @classmethod
    def from_settings(cls, settings: Settings | None = None, policy: RetryPolicy | None = None) -> LLMAnswerer:
        settings = settings or load_settings()
        policy = policy or RetryPolicy.from_settings(settings)
        model = chat_model(settings, streaming=True, timeout=policy.timeout)
        return cls(model, model_label(settings), policy, secret=settings.openai_api_key,
                   concurrency=settings.llm_concurrency)

    def stream(self, question: str, context: Context) -> Iterator[str]:
        yield from stream_with_retries(self.model, _messages(question, context), self.policy, secret=self._secret)

    def complete(self, question: str, context: Context) -> str:
        return invoke_with_retries(self.model, _messages(question, context), self.policy, secret=self._secret)


def _messages(question: str, context: Context) -> list[BaseMessage]:
    """The RAG prompt. The question's own ``<context>`` tags are neutralised too: questions can come from
    generated question sets built from document text, and the prompt's structure must stay unambiguous. A
    comparative, superlative or list question carries the comparison table the extractive answerer builds."""
    table = build_table(question, context)
    rendered = table.render() if table is not None and table.stated else None
    return prompts.rag_messages(prompts.neutralize_delimiters(question), context.text, rendered)


def default_answerer(settings: Settings | None = None, policy: RetryPolicy | None = None) -> Answerer:
    """The LLM when ``OPENAI_API_KEY`` is set, else the extractive answerer."""
    settings = settings or load_settings()
    if settings.has_llm:
        return LLMAnswerer.from_settings(settings, policy)
    return ExtractiveAnswerer()
