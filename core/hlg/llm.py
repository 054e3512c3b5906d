"""The LLM statement and fact tiers of the hierarchical lexical graph: propositions per element and S-P-O triples
per batch of statements (the HLG's two extraction prompts, :mod:`core.hlg.prompts`), over the offline tier.

:func:`with_model` takes the offline statements of some elements (:func:`core.hlg.extract.document_statements`)
and returns them as the model reads them:

* **Statements.** Each element with prose (offline statements of kind ``sentence``) is asked once for its
  propositions, its heading path given so the model can resolve "it" and "the lab". Each proposition becomes a
  statement of kind ``proposition`` with its entities read as the offline ones are. List items and table rows are
  one fact each already and keep their offline statements. An element whose reply lists no proposition (prose, a
  refusal, a failed call) keeps its offline statements: a *fallback* unit.
* **Facts.** Statements with no structured offline fact (no ``key : value`` item, no table row) are asked for
  their triples, :attr:`LLMTiers.batch` numbered statements a call; each triple is one fact (kind ``triple``, one
  row per distinct fact across the corpus, as every fact) supported by the statement whose number it gives, and
  its subject and object become entities of that statement. A batch whose reply gives no triple keeps its
  statements' offline facts: a fallback batch.

A proposition or triple must be grounded: most of its words occur in the element's text or heading path (a small
model invents, "a high-end luxury car" for a monitor, or copies the prompt's example); a proposition must also say
more than its heading path (a small model lists the path itself). Any other is dropped and counted as ungrounded.

Every reply goes through the collection's LLM cache (:class:`core.graph.llm_cache.CachedChat`): a reply that parses
is cached, so an unchanged element is never asked twice; one that does not parse is not, and is asked again next
build. Each call kind has its token bound (``statement``, ``triple`` in :data:`core.llm.CALL_TOKENS`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from core.hlg.extract import (
    MAX_VALUE_ENTITY_CHARS,
    DraftFact,
    DraftStatement,
    Limits,
    Vocabulary,
    entity_key,
    make_statement,
)
from core.hlg.prompts import proposition_messages, propositions, triple_messages, triples
from core.text import words
from core.textnorm import has_hangul

if TYPE_CHECKING:
    from core.graph.llm_cache import CachedChat

__all__ = ["LLMTierCounts", "LLMTiers", "grounded", "needs_propositions", "needs_triples", "says_more", "with_model"]

log = logging.getLogger(__name__)
STRUCTURED = frozenset({"attribute", "row"})  # offline facts read from structure: exact, never asked again


@dataclass(frozen=True)
class LLMTiers:
    """Which LLM tiers a build with a chat model makes: ``statements`` (propositions per prose element), ``facts``
    (triples per ``batch`` statements), ``topics`` (the topic prompt per heading section); ``grounding``: the share
    of a proposition's or triple part's words that must occur in its source text."""

    statements: bool = True
    facts: bool = True
    topics: bool = True
    batch: int = 8
    grounding: float = 0.5

    def __post_init__(self) -> None:
        if self.batch < 1:
            raise ValueError("the triple batch must be at least 1 statement")
        if not 0.0 <= self.grounding <= 1.0:
            raise ValueError("grounding is a share of words, between 0 and 1")

    @property
    def reads_elements(self) -> bool:
        """Whether elements are read by the model (then elements an offline build read are read again, once)."""
        return self.statements or self.facts


@dataclass
class LLMTierCounts:
    """What the model gave: calls by kind (cached ones included), units that kept their offline tier, and what
    was dropped as ungrounded."""

    statement_calls: int = 0
    statement_fallbacks: int = 0  # elements that kept their offline statements
    propositions: int = 0
    triple_calls: int = 0
    triple_fallbacks: int = 0  # batches that kept their offline facts
    triples: int = 0
    cached: int = 0
    ungrounded: int = 0
    failed_elements: set[str] = field(default_factory=set)  # a call failed: read again by the next build

    def describe(self) -> str:
        return (f"{self.statement_calls} proposition call(s) ({self.propositions} propositions, "
                f"{self.statement_fallbacks} element(s) kept offline), {self.triple_calls} triple call(s) "
                f"({self.triples} triples, {self.triple_fallbacks} batch(es) kept offline), {self.cached} cached, "
                f"{self.ungrounded} ungrounded dropped")


def needs_propositions(statements: Sequence[DraftStatement]) -> bool:
    """Whether an element's offline statements hold prose the model should split (items and rows are atomic)."""
    return any(s.kind == "sentence" for s in statements)


def needs_triples(statement: DraftStatement) -> bool:
    """Whether a statement has no structured offline fact, so its facts are asked of the model."""
    return not any(f.kind in STRUCTURED for f in statement.facts)


def _stems(text: str) -> set[str]:
    """Lower-cased words of at least two characters; a Korean word also without its last syllable (a particle)."""
    out = set()
    for w in words(text):
        w = w.casefold()
        if len(w) >= 2:
            out.add(w)
            if has_hangul(w) and len(w) >= 3:
                out.add(w[:-1])
    return out


def grounded(text: str, source: str, share: float) -> bool:
    """Whether at least ``share`` of ``text``'s words occur in ``source`` (a Korean word also without its particle)."""
    toks = [w.casefold() for w in words(text) if len(w) >= 2]
    if not toks:
        return False
    known = _stems(source)
    hits = sum(1 for w in toks if w in known or (has_hangul(w) and len(w) >= 3 and w[:-1] in known))
    return hits >= share * len(toks)


def says_more(text: str, heading_path: Sequence[str]) -> bool:
    """Whether ``text`` holds a word its heading path does not (a proposition that only restates the headings says
    nothing: a small model lists the heading path as its propositions)."""
    path = _stems(" ".join(heading_path))
    return any(w.casefold() not in path for w in words(text) if len(w) >= 2)


def _ask(chat: CachedChat, messages: list[tuple[str, str]], kind: str, valid: Callable[[str], bool],
         counts: LLMTierCounts) -> str | None:
    """The reply, or None when the call failed for good (logged; the unit keeps its offline tier)."""
    from core.graph.llm_cache import LLMCallError

    if chat.failing:  # the model failed every call so far: do not wait on it for every unit
        return None
    before = chat.cached
    try:
        reply = chat(messages, kind=kind, valid=valid)
    except LLMCallError as exc:
        log.warning("an LLM %s call failed; the unit keeps its offline tier: %s", kind, exc)
        return None
    counts.cached += chat.cached - before
    return reply


def with_model(chat: CachedChat, statements: Sequence[DraftStatement], vocabulary: Vocabulary | None,
               config: LLMTiers, counts: LLMTierCounts, limits: Limits | None = None) -> list[DraftStatement]:
    """``statements`` (one document's, of whole elements, in order) with the model's propositions and triples."""
    limits = limits or Limits()
    by_element: dict[tuple[str, int], list[DraftStatement]] = {}
    for s in statements:
        by_element.setdefault((s.element_id, s.element_since), []).append(s)
    out: list[DraftStatement] = []
    sources: dict[tuple[str, int], str] = {}
    for key, offline in by_element.items():
        first = offline[0]
        source = " ".join([*first.heading_path, *(s.text for s in offline)])
        sources[key] = source
        if not (config.statements and needs_propositions(offline)):
            out += offline
            continue
        content = " ".join(s.text for s in offline)
        counts.statement_calls += 1
        reply = _ask(chat, proposition_messages(first.heading_path, content), "statement",
                     lambda r: bool(propositions(r)), counts)
        if reply is None:
            counts.failed_elements.add(first.element_id)
        found = propositions(reply or "")
        kept = [p[: limits.max_chars] for p in found
                if grounded(p, source, config.grounding) and says_more(p, first.heading_path)]
        counts.ungrounded += len(found) - len(kept)
        kept = list(dict.fromkeys(kept))[: limits.per_element]
        if not kept:
            counts.statement_fallbacks += 1
            out += offline
            continue
        counts.propositions += len(kept)
        out += [make_statement(first.element_id, first.element_since, first.document_id, i, "proposition", text,
                               first.heading_path, first.topic, vocabulary) for i, text in enumerate(kept)]
    if config.facts:
        out = _with_triples(chat, out, sources, config, counts)
    return out


def _with_triples(chat: CachedChat, statements: list[DraftStatement], sources: dict[tuple[str, int], str],
                  config: LLMTiers, counts: LLMTierCounts) -> list[DraftStatement]:
    asked = [i for i, s in enumerate(statements) if needs_triples(s)]
    out = list(statements)
    for start in range(0, len(asked), config.batch):
        batch = asked[start:start + config.batch]
        texts = [statements[i].self_contained for i in batch]
        counts.triple_calls += 1
        reply = _ask(chat, triple_messages(texts), "triple", lambda r, n=len(texts): bool(triples(r, n)), counts)
        if reply is None:
            counts.failed_elements.update(statements[i].element_id for i in batch)
        found: dict[int, list[tuple[str, str, str]]] = {}
        for index, subject, predicate, obj in triples(reply or "", len(texts)):
            s = statements[batch[index]]
            source = sources.get((s.element_id, s.element_since), "") + " " + s.self_contained
            if not (entity_key(subject) and grounded(subject, source, config.grounding)
                    and grounded(obj, source, config.grounding)):
                counts.ungrounded += 1
                continue
            found.setdefault(index, []).append((subject, predicate, obj))
        if not found:
            counts.triple_fallbacks += 1
            continue
        for index, spo in found.items():
            out[batch[index]] = _with_facts(statements[batch[index]], spo)
            counts.triples += len(spo)
    return out


def _with_facts(statement: DraftStatement, spo: list[tuple[str, str, str]]) -> DraftStatement:
    """``statement`` with the model's triples as its facts (its offline co-mentions replaced) and their subjects
    and objects among its entities."""
    facts = tuple(dict.fromkeys(DraftFact(s, p, o, "triple") for s, p, o in spo))
    entities = {key: (key, name, role) for key, name, role in statement.entities}
    for subject, _p, obj in spo:
        for name in (subject, obj):
            key = entity_key(name)
            if key and key not in entities and len(name) <= MAX_VALUE_ENTITY_CHARS:
                entities[key] = (key, name, "name")
    return replace(statement, facts=facts, entities=tuple(entities.values()))
