"""A follow-up resolved offline: the slots a question names (entity, attribute) by retrieval's own readings, and the
standalone question it means given the conversation's last turns. Pure text: no database, no model."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from core.retrieval.shape import name_runs, split_preamble
from core.statements import NO_LEXICON, Lexicon, question_terms, terms
from core.textnorm import has_hangul, kiwi_tokenize

__all__ = ["KnownNames", "Resolution", "Slots", "analyse", "as_typed", "describe", "resolve"]

# Words a follow-up is made of that name neither a thing nor an attribute.
_FOLLOW_UP_WORDS = frozenset(
    "about how what and then also the a an it its it's that this one ones those is are was were do does of for "
    "그럼 그러면 그리고 그건 그것 그거 이것 이거 저것 그것의 그거의 이것의 "
    "어때 어떤가요 어떻게 뭐 무엇 된다 되나요".split()
)
_LEADING_MARKER = re.compile(
    r"^\s*(?:(?:and|so|then|also|okay|ok|what about|how about|그럼|그러면|그리고|그럼요)\b[\s,]*)+", re.I)
_PRONOUN_EN = re.compile(r"\b(?:its|it's|it|this one|that one|this|that)\b", re.I)
_PRONOUN_KO = re.compile(r"(?:그것|그거|이것|이거|저것|저거|그건|이건|저건|그게|이게|그걸|이걸|이 제품|그 제품)")
# The particle a pronoun written with one keeps once the entity replaces it ("그건" → "X는").
_PRONOUN_PARTICLE = {"그건": "는", "이건": "는", "저건": "는", "그게": "가", "이게": "가", "그걸": "를", "이걸": "를"}
# Tags of the morphemes that end a Korean word without naming anything: particles, endings, the copula,
# punctuation (the same cut as core.textnorm's terms).
_TRAILING_TAGS = frozenset({"VCP", "VCN", "SF", "SP", "SS", "SSO", "SSC", "SE", "SO"})
# Particles that make their phrase a place to look in, not the thing asked about ("Kiwi 품사 태그에서").
_LOCATIVE = frozenset({"에서", "에서는", "에선", "에서의", "에", "에는", "중에서"})
_QUESTION_START = re.compile(r"^\s*(?:what|which|how|who|when|where|why|is|are|does|do|can|list|tell)\b", re.I)
_HANGUL = re.compile(r"[\uac00-\ud7a3]")
_IDENTIFIER = re.compile(
    r"`([^`\n]{1,80})`|(?<![\w.-])([a-z][a-z0-9]*(?:[-_.][a-z0-9]+)+|[a-z]+[A-Z][A-Za-z0-9]*)(?![\w-])")


@dataclass(frozen=True)
class Slots:
    """What a question names: the entity (a name, or None) and the attribute's terms (expanded to both languages)
    with a label of the terms as asked; ``scope``: the words setting where to look ("Kiwi 품사 태그에서",
    "In npm, "), "" when none."""

    entity: str | None
    attribute: str | None
    attribute_terms: frozenset[str] = frozenset()
    scope: str = ""


# A callable telling which of some names the collection knows (its elements' words hold them); None: it cannot
# tell (the term counts are not filled), and every name counts as known.
KnownNames = Callable[[Sequence[str]], "frozenset[str] | None"]


def _identifiers(text: str) -> list[str]:
    """Names written as code: `quoted`, hyphenated or dotted (``cache-max``, ``init.module``), or camel-cased
    (``macOS``); what documentation names its options, commands and platforms with."""
    return [m.group(1) or m.group(2) for m in _IDENTIFIER.finditer(text)]


@dataclass(frozen=True)
class _Word:
    text: str  # the word with its trailing particles and endings cut ("27QX는" → "27QX", "VA는요" → "VA")
    particle: str  # the particles cut ("는", "에서", "의"); "" for none and for every English word
    proper: bool = False  # a Korean word the analyser reads as one proper noun ("경남은행은" → 경남은행)


def _trailing(tag: str, form: str) -> bool:
    return tag.startswith(("J", "E")) or tag in _TRAILING_TAGS or form == "요"


@lru_cache(maxsize=4096)
def _words(text: str) -> tuple[_Word, ...]:
    """The words of ``text``; in Korean each read by kiwipiepy (the analyser :mod:`core.textnorm` shares) and cut
    after its last content morpheme, so a particle written onto a name written as code no longer hides it."""
    if not _HANGUL.search(text):
        return tuple(_Word(w, "") for w in text.split())
    tokens = kiwi_tokenize([text])[0]
    out = []
    for m in re.finditer(r"\S+", text):
        a, b = m.span()
        inside = [t for t in tokens if a <= t.start < b]
        keep = len(inside)
        while keep and _trailing(inside[keep - 1].tag.split("-", 1)[0], inside[keep - 1].form):
            keep -= 1
        cut = inside[keep].start - a if keep < len(inside) else b - a
        kept_end = max((t.start + t.len - a for t in inside[:keep]), default=0)
        head = m.group()[: max(cut, kept_end)].strip("?!.,") or m.group().strip("?!.,")
        particle = "".join(t.form for t in inside[keep:] if t.tag.startswith("J"))
        proper = keep == 1 and inside[0].tag == "NNP" and len(head) >= 2
        if head:
            out.append(_Word(head, particle, proper))
    return tuple(out)


@dataclass(frozen=True)
class _Candidate:
    name: str
    position: int
    scoped: bool  # in a phrase that says where to look (a locative "…에서", an owner "X의 Y" of another name)
    tier: int  # 0: a name run; 1: a name written as code, or a Latin word in Korean; 2: a Korean proper noun


def _phrases(words: tuple[_Word, ...]) -> list[tuple[list[_Word], str]]:
    """Runs of words closed by a particle (Korean), with the particle: "Kiwi 품사 태그에서" is one."""
    out, current = [], []
    for w in words:
        current.append(w)
        if w.particle:
            out.append((current, w.particle))
            current = []
    if current:
        out.append((current, ""))
    return out


def _latin_word(word: _Word) -> bool:
    """A Latin or number word in a Korean question (``timeout``, ``kiwipiepy``, ``9999``): a name it borrows."""
    w = word.text
    return (not _HANGUL.search(w) and w.casefold() not in _FOLLOW_UP_WORDS
            and ((any(c.isalpha() for c in w) and len(w) >= 2) or (w.isdigit() and len(w) >= 3)))


def _candidates(rest: str, points_back: bool) -> tuple[list[_Candidate], list[tuple[str, bool]]]:
    """The names ``rest`` names, in order, each marked scoped or not, and the text of each phrase with whether it
    is a scope. A question pointing back ("its", "그것") names no code-like word as its subject."""
    korean = bool(_HANGUL.search(rest))
    phrases = _phrases(_words(rest)) if korean else [(list(_words(rest)), "")]
    found: list[tuple[list[tuple[str, int]], str]] = []
    texts = []
    for words, particle in phrases:
        text = " ".join(w.text for w in words) if korean else rest  # English: the question as written
        names = [(n, 0) for n in name_runs(text, korean)]
        if not points_back:
            names += [(n, 1) for n in _identifiers(text)]
            if korean:
                names += [(w.text, 1) for w in words if _latin_word(w)]
        # the analyser tags some common nouns as proper ones (태그): a proper noun comes last
        names += [(w.text, 2) for w in words if w.proper]
        found.append((names, particle))
        texts.append(text)
    out: list[_Candidate] = []
    scopes: list[tuple[str, bool]] = []
    offset = 0
    for i, ((names, particle), text) in enumerate(zip(found, texts, strict=True)):
        following = found[i + 1][0] if i + 1 < len(found) else []
        scoped = particle in _LOCATIVE or (particle == "의" and bool(following))
        scopes.append((text, scoped))
        seen = {c.name for c in out}
        for name, tier in names:
            if name not in seen:
                seen.add(name)
                out.append(_Candidate(name, offset + max(0, text.find(name)), scoped, tier))
        offset += len(text) + 1
    return out, scopes


def _pick(candidates: list[_Candidate], known: KnownNames | None) -> _Candidate | None:
    """The entity: a name the collection knows over one it does not (when it knows any), then one not in a scope,
    then a name run over a code-like word, then the first."""
    ranked = sorted(candidates, key=lambda c: (c.scoped, c.tier, c.position))
    if len(ranked) > 1 and known is not None:
        held = known(tuple(c.name for c in ranked))
        if held:
            ranked = [c for c in ranked if c.name in held] or ranked
    return ranked[0] if ranked else None


def analyse(question: str, known: KnownNames | None = None, lexicon: Lexicon = NO_LEXICON, *,
            hangul_fields: bool = True) -> Slots:
    """The entity and the attribute ``question`` names, by retrieval's own readings of a question (its preamble,
    its name runs, :func:`~core.statements.question_terms`) on its words with the particles cut (Korean, read by
    kiwipiepy). The entity is a name outside the scope when there is one ("Kiwi 품사 태그에서 NNG는" names NNG, in
    Kiwi's tags); of several, one the collection knows (``known``); a code-like word only when no name run is
    named and the question does not point back ("its", "그것"). The attribute is what else the question asks,
    or, when it asks nothing else, what its scope says ("품사 태그"). ``hangul_fields`` False (the collection's
    headings hold no Hangul): the Korean names of the attribute ("기본값" for "if I don't pass one") name nothing
    there, so an English question's attribute does not carry them."""
    preamble, rest = split_preamble(question)
    points_back = bool(_PRONOUN_EN.search(rest) or _PRONOUN_KO.search(rest))
    candidates, phrases = _candidates(rest, points_back)
    chosen = _pick(candidates, known)
    entity = chosen.name if chosen else None
    named = frozenset(t for c in candidates if chosen and c.tier == chosen.tier for t in terms(c.name))
    named |= terms(entity or "")

    def attribute_of(text: str) -> tuple[str | None, frozenset[str]]:
        asked = frozenset(t for t in terms(text) if t not in named and t not in _FOLLOW_UP_WORDS)
        expanded = frozenset(t for t in question_terms(text, lexicon) if t not in named
                             and t not in _FOLLOW_UP_WORDS and (hangul_fields or t in asked or not has_hangul(t)))
        # the asked words as the question writes them, in its order ("look packages paths", not the stems
        # "look packag path" sorted): what a reader checks the reading against
        label = " ".join(dict.fromkeys(w for w in _LABEL_WORD.findall(text) if terms(w) & asked)) or None
        return label, expanded if label else frozenset()

    label, expanded = attribute_of(" ".join(text for text, scoped in phrases if not scoped))
    scope_text = " ".join(text for text, scoped in phrases if scoped)
    if label is None and scope_text:
        label, expanded = attribute_of(scope_text)
    scope = preamble.strip() or next((_scope_phrase(rest, text) for text, scoped in phrases if scoped), "")
    return Slots(entity, label, expanded, scope)


def _scope_phrase(rest: str, text: str) -> str:
    """The scope phrase as written in ``rest`` (its particles kept: "Kiwi 품사 태그에서"), or its words."""
    m = re.search(r"\S*\s+".join(re.escape(w) for w in text.split()) + r"\S*", rest)
    return m.group() if m else text


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


_LABEL_WORD = re.compile(r"[\w'’.-]*\w")


def describe(slots: Slots) -> str:
    """The slots as a reader checks them: "Nova 27QX 무게 (weight)", the entity, the attribute as asked, and up to
    three of its other terms (the other language's among them)."""
    asked = terms(slots.attribute or "")
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


def _with_entity(question: str, entity: str, scope: str = "") -> str:
    """An attribute-only follow-up made standalone: its pronoun, or else the question's end, given the entity;
    ``scope``, the turn before's (its words setting where to look), leads it when it names none of its own."""
    rest = _LEADING_MARKER.sub("", question).strip() or question.strip()
    if _HANGUL.search(rest):
        replaced, n = _PRONOUN_KO.subn(lambda m: entity + _PRONOUN_PARTICLE.get(m.group(), ""), rest, count=1)
        replaced = replaced if n else f"{entity}의 {rest}"
        return f"{scope} {replaced}" if scope and not split_preamble(rest)[0] else replaced
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
    if before:  # the name as a whole word: "VA" is not replaced inside "VALUE"
        replaced, n = re.subn(rf"(?<![A-Za-z0-9_]){re.escape(before)}(?![A-Za-z0-9_])", lambda _m: entity, text,
                              count=1)
        if n:
            return replaced
    return f"{entity} {previous.get('attribute') or ''}".strip()


def _episode_facts(recent: list[dict[str, Any]], episode: int) -> list[dict[str, Any]]:
    return [f for t in recent if t["episode"] == episode for f in (t.get("facts") or [])]


def resolve(question: str, recent: list[dict[str, Any]], known: KnownNames | None = None,
            lexicon: Lexicon = NO_LEXICON, *, hangul_fields: bool = True) -> Resolution:
    """``question`` resolved against the conversation's ``recent`` turns (oldest first, as stored); ``known``:
    which names the collection knows (:func:`analyse`); ``lexicon``: its field names across scripts
    (``core.retrieval.lexicon``), so an attribute asked in one language carries its name in the other;
    ``hangul_fields``: whether the collection writes Hangul at all (:func:`analyse`)."""
    slots = analyse(question, known, lexicon, hangul_fields=hangul_fields)
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
        scope = "" if slots.scope else analyse(previous["understood_as"]).scope
        understood = _with_entity(question, entity, scope if _HANGUL.search(scope) else "")
    else:
        entity, attribute = previous.get("entity"), previous.get("attribute")
        terms_ = frozenset(previous.get("attribute_terms") or ())
        carried.update({"entity": entity, "attribute": attribute})
        understood = previous["understood_as"]
    carried["facts"] = _episode_facts(recent, previous["episode"])
    return Resolution(question, understood, Slots(entity, attribute, terms_, slots.scope), carried,
                      new_episode=False)
