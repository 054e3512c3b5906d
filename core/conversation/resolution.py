"""A follow-up resolved offline: the slots a question names (entity, attribute) by retrieval's own readings, and the
standalone question it means given the conversation's last turns. Pure text: no database, no model."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from core.retrieval.shape import name_runs, split_preamble
from core.statements import question_terms, terms

__all__ = ["Resolution", "Slots", "analyse", "as_typed", "describe", "resolve"]

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
_IDENTIFIER = re.compile(
    r"`([^`\n]{1,80})`|(?<![\w.-])([a-z][a-z0-9]*(?:[-_.][a-z0-9]+)+|[a-z]+[A-Z][A-Za-z0-9]*)(?![\w-])")


@dataclass(frozen=True)
class Slots:
    """What a question names: the entity (a name run, or None) and the attribute's terms (expanded to both
    languages) with a label of the terms as asked."""

    entity: str | None
    attribute: str | None
    attribute_terms: frozenset[str] = frozenset()


def _identifiers(text: str) -> list[str]:
    """Names written as code: `quoted`, hyphenated or dotted (``cache-max``, ``init.module``), or camel-cased
    (``macOS``); what documentation names its options, commands and platforms with."""
    return [m.group(1) or m.group(2) for m in _IDENTIFIER.finditer(text)]


def analyse(question: str) -> Slots:
    """The entity and the attribute ``question`` names, by retrieval's own readings of a question; a question
    naming no name run names a code-like identifier instead, unless it points back ("its", "그것")."""
    _preamble, rest = split_preamble(question)
    names = name_runs(rest)
    if not names and not _PRONOUN_EN.search(rest) and not _PRONOUN_KO.search(rest):
        names = _identifiers(rest)[:1]
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
    notice: str = ""  # what a model's rewrite did (used, or overruled by the slots); empty without a model
    distance: float | None = None  # cosine distance of the standalone question's embedding from the turn before's

    @property
    def memory(self) -> dict[str, Any]:
        return self.carried


def describe(slots: Slots) -> str:
    """The slots as a reader checks them: "Nova 27QX 무게 (weight)", the entity, the attribute as asked, and up to
    three of its other terms (the other language's among them)."""
    asked = set((slots.attribute or "").split())
    others = sorted(t for t in slots.attribute_terms if t not in asked)[:3]
    words = [w for w in (slots.entity, slots.attribute) if w]
    return " ".join(words) + (f" ({', '.join(others)})" if others else "") if words else "(no entity or attribute)"


def as_typed(question: str) -> Resolution:
    """``question`` asked as typed: a new episode, nothing carried (the page's "ask as typed")."""
    return Resolution(question, question, analyse(question))


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
