"""Conversations: a follow-up question resolved offline into the standalone question it means, and a bounded
episodic memory of slots and facts carried from turn to turn instead of the history's text.

Each question is read for its two slots with the analysis retrieval already makes: the **entity** it names
(:func:`core.retrieval.shape.name_runs` after the preamble) and the **attribute** it asks
(:func:`core.statements.question_terms`, the entity's own terms and follow-up words taken out). Then:

* entity and attribute both named: a new subject and a new question, asked as typed; a new **episode** starts and
  nothing is carried over;
* an entity but no attribute ("And the 27QX?", "그럼 27QX는?"): the previous turn's attribute is carried;
* an attribute but no entity ("What about its warranty?", "그것의 보증기간은?"): the previous turn's entity is carried,
  "its"/"그것" replaced by it;
* neither ("And?"): both are carried.

The memory of a turn is its slots and its **facts**: the element ids and texts the answer cited. A later turn reads
the slots and facts of its episode (at most :attr:`MemoryConfig.keep_turns` turns back), never the history's text;
turns older than that keep their text but lose their facts (``conversations show`` says how many).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from core.retrieval.shape import name_runs, split_preamble
from core.statements import question_terms, terms

if TYPE_CHECKING:
    from core.answering.comparison import Comparison

__all__ = ["MemoryConfig", "Resolution", "Slots", "Turn", "analyse", "ask_in_conversation", "facts_of",
           "history_tokens", "memory_tokens", "resolve"]


@dataclass(frozen=True)
class MemoryConfig:
    """How much of a conversation later turns read: the last ``keep_turns`` turns (their slots and facts), each
    fact's text cut to ``fact_chars``."""

    keep_turns: int = 20
    fact_chars: int = 200
    facts_per_turn: int = 3


# Words a follow-up is made of that name neither a thing nor an attribute.
_FOLLOW_UP_WORDS = frozenset(
    "about how what and then also the a an it its it's that this one ones those is are was were do does of for "
    "그럼 그러면 그리고 그건 그것 그거 이것 이거 저것 그것의 그거의 이것의 "
    "어때 어떤가요 어떻게 뭐 무엇 된다 되나요".split()
)
_LEADING_MARKER = re.compile(
    r"^\s*(?:(?:and|so|then|also|okay|ok|what about|how about|그럼|그러면|그리고|그럼요)\b[\s,]*)+", re.I)
_PRONOUN_EN = re.compile(r"\b(?:its|it's|it|this one|that one|this|that)\b", re.I)
_PRONOUN_KO = re.compile(r"(?:그것|그거|이것|이거|저것|이 제품|그 제품)")
_QUESTION_START = re.compile(r"^\s*(?:what|which|how|who|when|where|why|is|are|does|do|can|list|tell)\b", re.I)
_HANGUL = re.compile(r"[\uac00-\ud7a3]")


@dataclass(frozen=True)
class Slots:
    """What a question names: the entity (a name run, or None) and the attribute's terms (expanded to both
    languages) with a label of the terms as asked."""

    entity: str | None
    attribute: str | None
    attribute_terms: frozenset[str] = frozenset()


def analyse(question: str) -> Slots:
    """The entity and the attribute ``question`` names, by retrieval's own readings of a question."""
    _preamble, rest = split_preamble(question)
    names = name_runs(rest)
    entity = names[0] if names else None
    named = frozenset(t for n in names for t in terms(n))
    asked = frozenset(t for t in terms(rest) if t not in named and t not in _FOLLOW_UP_WORDS)
    expanded = frozenset(t for t in question_terms(rest) if t not in named and t not in _FOLLOW_UP_WORDS)
    label = " ".join(sorted(asked)) or None
    return Slots(entity, label, expanded if label else frozenset())


@dataclass(frozen=True)
class Resolution:
    """The standalone question a turn was understood as, its slots, what was carried over and from which turn, and
    whether it starts a new episode."""

    question: str
    understood_as: str
    slots: Slots
    carried: dict[str, Any] = field(default_factory=dict)
    new_episode: bool = True

    @property
    def memory(self) -> dict[str, Any]:
        return self.carried


def _family_name(new: str, previous: str) -> str:
    """``new`` with the product family of ``previous`` when it names only a model ("27QX" after "Nova 24FL" is
    "Nova 27QX"): both model parts carry a digit, and the new name has one word."""
    head, _, last = previous.rpartition(" ")
    if head and " " not in new and any(c.isdigit() for c in new) and any(c.isdigit() for c in last):
        return f"{head} {new}"
    return new


def _with_entity(question: str, entity: str) -> str:
    """An attribute-only follow-up made standalone: its pronoun, or else the question's end, given the entity."""
    rest = _LEADING_MARKER.sub("", question).strip() or question.strip()
    if _HANGUL.search(rest):
        replaced, n = _PRONOUN_KO.subn(entity, rest, count=1)
        return replaced if n else f"{entity}의 {rest}"
    replaced, n = _PRONOUN_EN.subn(lambda m: f"the {entity}'s" if m.group().lower() == "its" else f"the {entity}",
                                   rest, count=1)
    if not n:
        body = rest.rstrip(" ?.!")
        replaced = f"{body} of the {entity}?"
    if not _QUESTION_START.match(replaced):
        replaced = f"What is {replaced[0].lower() + replaced[1:]}" if replaced else replaced
    return replaced


def _with_new_entity(previous: dict[str, Any], entity: str) -> str:
    """An entity-only follow-up made standalone: the previous standalone question about the new entity."""
    before = previous.get("entity")
    text = previous["understood_as"]
    if before and before in text:
        return text.replace(before, entity)
    return f"{entity} {previous.get('attribute') or ''}".strip()


def _episode_facts(recent: list[dict[str, Any]], episode: int) -> list[dict[str, Any]]:
    return [f for t in recent if t["episode"] == episode for f in (t.get("facts") or [])]


def resolve(question: str, recent: list[dict[str, Any]]) -> Resolution:
    """``question`` resolved against the conversation's ``recent`` turns (oldest first, as stored)."""
    slots = analyse(question)
    previous = recent[-1] if recent else None
    if previous is None or (slots.entity and slots.attribute):
        return Resolution(question, question, slots)
    entity, attribute, terms_ = slots.entity, slots.attribute, slots.attribute_terms
    carried: dict[str, Any] = {"from_turn": previous["turn"], "episode": previous["episode"]}
    if entity and not attribute:
        if not previous.get("attribute"):
            return Resolution(question, question, slots)
        entity = _family_name(entity, previous["entity"]) if previous.get("entity") else entity
        attribute, terms_ = previous["attribute"], frozenset(previous.get("attribute_terms") or ())
        carried["attribute"] = attribute
        understood = _with_new_entity(previous, entity)
    elif attribute and not entity:
        if not previous.get("entity"):
            return Resolution(question, question, slots)
        entity = previous["entity"]
        carried["entity"] = entity
        understood = _with_entity(question, entity)
    else:
        entity, attribute = previous.get("entity"), previous.get("attribute")
        terms_ = frozenset(previous.get("attribute_terms") or ())
        carried.update({"entity": entity, "attribute": attribute})
        understood = previous["understood_as"]
    carried["facts"] = _episode_facts(recent, previous["episode"])
    return Resolution(question, understood, Slots(entity, attribute, terms_), carried, new_episode=False)


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


def ask_in_conversation(store: Any, conversation_id: str, question: str, answer: Any, *,
                        config: MemoryConfig = MemoryConfig()) -> Turn:
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
