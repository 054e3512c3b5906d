"""The memory of a conversation: a turn's facts, the tokens its context costs, and a turn asked and appended."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np

from core.conversation.communities import CommunityConfig, nearest_community_facts
from core.conversation.resolution import Resolution, resolve
from core.conversation.resolution import as_typed as plain_resolution

if TYPE_CHECKING:
    from collections.abc import Callable
    from datetime import datetime

    from langchain_core.language_models import BaseChatModel

    from core.answering.comparison import Comparison
    from core.store import ElementStore
    from core.store.conversations import ConversationTables

__all__ = ["ConversationDateError", "MemoryConfig", "PendingTurn", "Turn", "answer_text", "ask_in_conversation",
           "cosine_distance", "cut_episode", "facts_of", "history_tokens", "memory_tokens", "start_turn",
           "with_community_facts", "with_summary_facts"]


@dataclass(frozen=True)
class MemoryConfig:
    """How much of a conversation later turns read: the last ``keep_turns`` turns (their slots and facts), each
    fact's text cut to ``fact_chars``, at most ``facts_per_turn`` facts a turn. ``episode_distance``: a follow-up
    whose standalone question's embedding lies farther than this (cosine distance) from the turn before's starts a
    new episode: its slots are still carried, the old episode's facts are not (data/tuning records how it was
    chosen). ``communities``: past a number of kept facts, a follow-up carries its nearest community's facts
    instead of its episode's (:mod:`core.conversation.communities`). ``summary_turns``: the facts of turns past
    ``keep_turns`` are summarised (:mod:`core.conversation.summary`), not dropped, for this many turns more."""

    keep_turns: int = 20
    summary_turns: int = 200
    fact_chars: int = 200
    facts_per_turn: int = 3
    episode_distance: float = 0.6
    communities: CommunityConfig = field(default_factory=CommunityConfig)


def with_community_facts(resolution: Resolution, recent: list[dict[str, Any]],
                         config: MemoryConfig = MemoryConfig()) -> Resolution:
    """A follow-up that stays in its episode, when the memory holds many facts: its episode's facts replaced by
    the nearest community's (``carried["community"]`` says how many communities there were); as it was otherwise."""
    if resolution.new_episode:
        return resolution
    found = nearest_community_facts(recent, resolution.slots, config.communities)
    if found is None:
        return resolution
    facts, communities = found
    return replace(resolution, carried={**resolution.carried, "facts": facts, "community": {
        "communities": communities, "facts": len(facts)}})


def with_summary_facts(resolution: Resolution, summary: list[dict[str, Any]],
                       config: MemoryConfig = MemoryConfig()) -> Resolution:
    """A follow-up in a conversation past its memory's bound, with the summarised facts about its entity (the
    latest ``facts_per_turn``, as ``carried["summary"]``: value, element and episode); as it was otherwise."""
    entity = (resolution.slots.entity or "").casefold()
    if resolution.new_episode or not entity:
        return resolution
    about = [r for r in summary if (r["entity"] or "").casefold() == entity][-config.facts_per_turn:]
    if not about:
        return resolution
    return replace(resolution, carried={**resolution.carried, "summary": [
        {"element_id": r["element_id"], "value": r["value"][: config.fact_chars], "episode": r["episode"]}
        for r in about]})


def cosine_distance(a: np.ndarray, b: np.ndarray) -> float:
    """1 - cos(a, b); 1.0 when either is the zero vector or their dimensions differ (another embedder)."""
    if a.shape != b.shape:
        return 1.0
    norms = float(np.linalg.norm(a) * np.linalg.norm(b))
    return 1.0 - float(np.dot(a, b)) / norms if norms else 1.0


def cut_episode(resolution: Resolution, previous: np.ndarray | None, vector: np.ndarray,
                config: MemoryConfig = MemoryConfig()) -> Resolution:
    """``resolution`` with its distance from the turn before; a follow-up farther than ``config.episode_distance``
    starts a new episode (the context changed though the slots were carried): the old episode's facts stay behind."""
    if previous is None:
        return resolution
    distance = round(cosine_distance(np.asarray(previous, dtype=np.float32), vector), 4)
    if resolution.new_episode or distance <= config.episode_distance:
        return replace(resolution, distance=distance)
    carried = {k: v for k, v in resolution.carried.items() if k not in ("facts", "episode")}
    return replace(resolution, carried={**carried, "episode_cut": distance}, new_episode=True, distance=distance)


def facts_of(result: Comparison | None, config: MemoryConfig = MemoryConfig()) -> list[dict[str, Any]]:
    """The facts of an answered turn: the elements its answer cited (id and text, cut), hierarchical answer first."""
    for mode in ("hierarchical", "plain") if result is not None else ():
        r = result.results.get(mode)
        if r is None:
            continue
        cited = [s for s in r.sources if s.cited][: config.facts_per_turn]
        if cited:
            return [{"element_id": s.element_id, "value": s.text[: config.fact_chars]} for s in cited]
    return []


def answer_text(result: Comparison | None) -> str:
    """The turn's answer kept in the memory: the hierarchical column's, else the plain one's ("" when none)."""
    for mode in ("hierarchical", "plain") if result is not None else ():
        r = result.results.get(mode)
        if r is not None and r.answer.text:
            return r.answer.text
    return ""


def memory_tokens(resolution: Resolution) -> int:
    """Tokens a turn sends of its conversation: its standalone question and the memory carried (slots and facts)."""
    from core.tokens import count_tokens

    facts = " ".join(f["value"] for key in ("facts", "summary") for f in resolution.carried.get(key, []))
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
    the history (counted when asked: a measure, not part of the turn's work)."""

    resolution: Resolution
    result: Comparison | None
    number: int
    episode: int
    recent: list[dict[str, Any]] = field(default_factory=list, repr=False)

    @cached_property
    def memory_tokens(self) -> int:
        return memory_tokens(self.resolution)

    @cached_property
    def history_tokens(self) -> int:
        return history_tokens(self.resolution.question, self.recent)

    def as_dict(self) -> dict[str, Any]:
        return {"turn": self.number, "episode": self.episode, "understood_as": self.resolution.understood_as,
                "memory": self.resolution.memory, "memory_tokens": self.memory_tokens,
                "history_tokens": self.history_tokens}  # fmt: skip


class ConversationDateError(ValueError):
    """A turn asked of a conversation as of another date than the conversation's own."""


@dataclass
class PendingTurn:
    """A turn resolved and not yet answered: ask ``resolution.understood_as`` as of ``as_of`` (the conversation's
    date), with ``query_vector`` as the request's (it is already embedded), then :meth:`finish` with the answer to
    append it."""

    tables: ConversationTables
    conversation_id: str
    resolution: Resolution
    recent: list[dict[str, Any]]
    as_of: datetime | None
    config: MemoryConfig
    query_vector: np.ndarray | None = field(default=None, repr=False)  # the standalone question's embedding

    def finish(self, result: Comparison | None) -> Turn:
        """Append the answered turn (under the conversation's lock, so concurrent turns keep their order)."""
        resolution, config = self.resolution, self.config
        slots = resolution.slots
        carried = {**resolution.carried, **({"notice": resolution.notice} if resolution.notice else {})}
        stored = self.tables.append(self.conversation_id, {
            "episode": None if resolution.new_episode else resolution.carried["episode"],
            "question": resolution.question, "understood_as": resolution.understood_as, "entity": slots.entity,
            "attribute": slots.attribute, "attribute_terms": sorted(slots.attribute_terms), "carried": carried,
            "answer": answer_text(result), "facts": facts_of(result, config), "query_vector": self.query_vector},
            keep=config.keep_turns, summary_turns=config.summary_turns, as_of=self.as_of)
        return Turn(resolution, result, stored["turn"], stored["episode"], self.recent)


def start_turn(store: ElementStore, conversation_id: str, question: str, *, as_of: datetime | None = None,
               as_typed: bool = False, model: BaseChatModel | None = None,
               config: MemoryConfig = MemoryConfig()) -> PendingTurn:
    """Resolve ``question`` against the conversation's memory; nothing is stored until :meth:`PendingTurn.finish`.

    A conversation is as of the date its first turn was asked as of: a later turn reads that date (``as_of``
    ``None`` or the same); another date raises :class:`ConversationDateError`. ``as_typed``: ask the question as
    typed, nothing carried. ``model``: a chat model asked for a rewrite, checked against the slots
    (:func:`core.conversation.rewrite.rewritten`). The standalone question is embedded here (the episode is cut
    by its distance from the turn before's, :func:`cut_episode`) and handed on as ``query_vector``, so retrieval
    does not embed it again."""
    from core.retrieval import validate_question
    from core.retrieval.search import embed_query
    from core.store.conversations import ConversationTables

    question = validate_question(question)
    tables = ConversationTables(store.url, store.collection)
    tables.ensure_schema()
    row, recent = tables.memory(conversation_id, config.keep_turns)
    if row is not None and row["turns"] > 0:
        if as_of is not None and as_of != row["as_of"]:
            raise ConversationDateError(
                f"conversation {conversation_id!r} is as of "
                f"{row['as_of'].date().isoformat() if row['as_of'] else 'the current collection (no date)'}: "
                "its turns all read that; start a new conversation to read another date")
        as_of = row["as_of"]
    if as_typed:
        resolution = plain_resolution(question)
    else:
        from core.retrieval.lexicon import headings_hold_hangul, lexicon_for

        lexicon, headings = lexicon_for(store, question)
        resolution = resolve(question, recent, store.read.known_names, lexicon,
                             hangul_fields=headings_hold_hangul(headings))
        if model is not None and recent:
            from core.conversation.rewrite import rewritten

            resolution = rewritten(resolution, recent, model, lexicon)
    vector = embed_query(store, resolution.understood_as)
    if not as_typed and recent:
        resolution = cut_episode(resolution, recent[-1].get("query_vector"), vector, config)
        resolution = with_community_facts(resolution, recent, config)
        if row is not None and row["turns"] > config.keep_turns:
            resolution = with_summary_facts(resolution, tables.summary(conversation_id), config)
    return PendingTurn(tables, conversation_id, resolution, recent, as_of, config, vector)


def ask_in_conversation(store: ElementStore, conversation_id: str, question: str,
                        answer: Callable[[str], Comparison], *, config: MemoryConfig = MemoryConfig(),
                        as_of: datetime | None = None, model: BaseChatModel | None = None) -> Turn:
    """Resolve ``question`` against the conversation's memory, answer the standalone question with ``answer``
    (a callable from the question to a :class:`~core.answering.comparison.Comparison`), and append the turn.

    The memory is read before answering and the turn appended after, under the conversation's lock, so a slow
    answer never holds it; two turns appended at once get consecutive numbers in commit order. The answer must read
    the conversation's date, and ``answer`` embeds the question again: callers that pass ``as_of``, or that build
    their own request, ask through :func:`start_turn` (its ``as_of`` and ``query_vector``)."""
    pending = start_turn(store, conversation_id, question, as_of=as_of, model=model, config=config)
    return pending.finish(answer(pending.resolution.understood_as))
