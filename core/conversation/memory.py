"""The memory of a conversation: a turn's facts, the tokens its context costs, and a turn asked and appended."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from core.conversation.resolution import Resolution, resolve

if TYPE_CHECKING:
    from collections.abc import Callable

    from core.answering.comparison import Comparison
    from core.store import ElementStore

__all__ = ["MemoryConfig", "Turn", "answer_text", "ask_in_conversation", "facts_of", "history_tokens",
           "memory_tokens"]


@dataclass(frozen=True)
class MemoryConfig:
    """How much of a conversation later turns read: the last ``keep_turns`` turns (their slots and facts), each
    fact's text cut to ``fact_chars``."""

    keep_turns: int = 20
    fact_chars: int = 200
    facts_per_turn: int = 3


def facts_of(result: Comparison, config: MemoryConfig = MemoryConfig()) -> list[dict[str, Any]]:
    """The facts of an answered turn: the elements its answer cited (id and text, cut), hierarchical answer first."""
    for mode in ("hierarchical", "plain"):
        r = result.results.get(mode)
        if r is None:
            continue
        cited = [s for s in r.sources if s.cited][: config.facts_per_turn]
        if cited:
            return [{"element_id": s.element_id, "value": s.text[: config.fact_chars]} for s in cited]
    return []


def answer_text(result: Comparison) -> str:
    for mode in ("hierarchical", "plain"):
        r = result.results.get(mode)
        if r is not None and r.answer.text:
            return r.answer.text
    return ""


def memory_tokens(resolution: Resolution) -> int:
    """Tokens a turn sends of its conversation: its standalone question and the memory carried (slots and facts)."""
    from core.tokens import count_tokens

    facts = " ".join(f["value"] for f in resolution.carried.get("facts", []))
    slots = " ".join(str(resolution.carried.get(k) or "") for k in ("entity", "attribute"))
    return count_tokens(f"{resolution.understood_as} {slots} {facts}".strip())


def history_tokens(question: str, recent: list[dict[str, Any]]) -> int:
    """Tokens a turn would send resending the whole history: every earlier question and answer, then this one."""
    from core.tokens import count_tokens

    return count_tokens("\n".join([*(f"{t['question']}\n{t['answer']}" for t in recent), question]))


@dataclass
class Turn:
    """One answered turn of a conversation: how it was understood, the answer, and the stored turn's number and
    episode; ``memory_tokens``/``history_tokens``: what its conversation costs in context, memory against resending
    the history."""

    resolution: Resolution
    result: Comparison
    number: int
    episode: int
    memory_tokens: int
    history_tokens: int

    def as_dict(self) -> dict[str, Any]:
        return {"turn": self.number, "episode": self.episode, "understood_as": self.resolution.understood_as,
                "memory": self.resolution.memory, "memory_tokens": self.memory_tokens,
                "history_tokens": self.history_tokens}  # fmt: skip


def ask_in_conversation(store: ElementStore, conversation_id: str, question: str,
                        answer: Callable[[str], Comparison], *, config: MemoryConfig = MemoryConfig()) -> Turn:
    """Resolve ``question`` against the conversation's memory, answer the standalone question with ``answer``
    (a callable from the question to a :class:`~core.answering.comparison.Comparison`), and append the turn.

    The memory is read before answering and the turn appended after, under the conversation's lock, so a slow
    answer never holds it; two turns appended at once get consecutive numbers in commit order."""
    from core.retrieval import validate_question
    from core.store.conversations import ConversationTables

    question = validate_question(question)
    tables = ConversationTables(store.url, store.collection)
    tables.ensure_schema()
    recent = tables.recent(conversation_id, config.keep_turns)
    resolution = resolve(question, recent)
    result = answer(resolution.understood_as)
    slots = resolution.slots

    def make_turn(number: int) -> dict[str, Any]:
        episode = number if resolution.new_episode else resolution.carried["episode"]
        return {"episode": episode, "question": question, "understood_as": resolution.understood_as,
                "entity": slots.entity, "attribute": slots.attribute, "attribute_terms": sorted(slots.attribute_terms),
                "carried": resolution.carried, "answer": answer_text(result), "facts": facts_of(result, config)}

    stored = tables.append(conversation_id, make_turn, keep=config.keep_turns)
    return Turn(resolution, result, stored["turn"], stored["episode"], memory_tokens(resolution),
                history_tokens(question, recent))
