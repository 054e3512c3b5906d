"""A model's reply as text, and whether the server finished it (its ``finish_reason``)."""

from __future__ import annotations

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage

from core.llm.errors import LLMError, cut_off_error_length


def message_text(message: BaseMessage | str) -> str:
    """The text of a chat message or chunk (content may be a list of parts)."""
    content = getattr(message, "content", message)
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p if isinstance(p, str) else str(p.get("text", "")) for p in content if p)
    return str(content or "")


def finish_reason(chunk: BaseMessage) -> str | None:
    response = getattr(chunk, "response_metadata", None) or {}
    reason = response.get("finish_reason")
    return reason if isinstance(reason, str) and reason else None


def reports_finish(model: BaseChatModel) -> bool:
    """Whether the model's protocol ends every complete reply with a ``finish_reason`` (OpenAI's does; LangChain's
    fake and some other chat models never send one, so its absence proves nothing there)."""
    from langchain_openai.chat_models.base import BaseChatOpenAI

    return isinstance(model, BaseChatOpenAI)


def cut_off_error(model: BaseChatModel, finish: str | None, partial: str = "") -> LLMError | None:
    """The error for a reply that ended with ``finish`` as its finish reason, if that means it was cut off."""
    if finish == "length":
        return cut_off_error_length(partial)
    if finish is None and reports_finish(model):
        return LLMError("cut_off", "The answer was cut off: the model server ended the stream before the answer was "
                        "finished (no finish_reason). Ask again.", retryable=False, partial=partial)
    return None


def reply_text(model: BaseChatModel, message: BaseMessage) -> str:
    """The text of ``model``'s whole reply ``message``; raises the ``cut_off`` :class:`LLMError` (with the text that
    arrived as ``partial``) when the server did not finish it."""
    text = message_text(message)
    error = cut_off_error(model, finish_reason(message), text)
    if error is not None:
        raise error
    return text
