"""The memory's facts grouped into communities, and the nearest community's facts carried to a follow-up, as the
seed paper does once a conversation's facts are many.

A fact is what a turn's answer cited (element id and text), tied to the turn's slots: its entity (subject), its
attribute (predicate) and the cited text (object), and to its episode. Facts are linked when they share an entity,
an attribute term, an element or an episode, weighted in that order; communities are found over them with the
hierarchical Leiden the entity graph uses (``graspologic-native``, a fixed seed, edges sorted: the same memory
always gives the same communities; called directly, since importing ``core.graph`` costs seconds a turn must not
wait). A follow-up's nearest community is the one whose facts share most with its slots (its entity counts most,
then each attribute term); ties go to the most recent. Only the kept turns' facts are grouped
(``MemoryConfig.keep_turns``), so the work is bounded however long the conversation.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from core.conversation.resolution import Slots

__all__ = ["LEIDEN_SEED", "CommunityConfig", "MemoryFact", "fact_communities", "memory_facts",
           "nearest_community_facts"]


LEIDEN_SEED = 0xDEADBEEF  # the entity graph's (core.graph.defaults.DEFAULT_SEED): the same facts, the same communities


@dataclass(frozen=True)
class CommunityConfig:
    """When and how the memory's facts are grouped: past ``min_facts`` kept facts a follow-up gets its nearest
    community's facts (at most ``max_facts``, the most recent) instead of its episode's. Edge weights: facts about
    one entity ``same_entity``, per shared attribute term ``per_attribute_term``, citing one element
    ``same_element``, of one episode ``same_episode``; communities at most ``max_cluster_size`` facts."""

    min_facts: int = 12
    max_facts: int = 6
    same_entity: float = 3.0
    per_attribute_term: float = 1.0
    same_element: float = 2.0
    same_episode: float = 1.0
    max_cluster_size: int = 10
    entity_score: float = 3.0  # a community naming the follow-up's entity, against one per shared attribute term


@dataclass(frozen=True)
class MemoryFact:
    """One fact of the memory: the cited element and its text, with the turn's slots and episode."""

    key: str  # "turn:index", unique within the memory
    turn: int
    episode: int
    entity: str | None
    attribute_terms: frozenset[str]
    element_id: str
    value: str

    def as_dict(self) -> dict[str, Any]:
        return {"element_id": self.element_id, "value": self.value, "turn": self.turn, "episode": self.episode}


def memory_facts(recent: Sequence[dict[str, Any]]) -> list[MemoryFact]:
    """The facts of the kept turns (``recent``, oldest first), each tied to its turn's slots and episode."""
    out = []
    for t in recent:
        for i, f in enumerate(t.get("facts") or []):
            out.append(MemoryFact(f"{t['turn']}:{i}", t["turn"], t["episode"], t.get("entity"),
                                  frozenset(t.get("attribute_terms") or ()), str(f.get("element_id", "")),
                                  str(f.get("value", ""))))
    return out


def _edges(facts: Sequence[MemoryFact], config: CommunityConfig) -> list[tuple[str, str, float]]:
    """Weighted links between turns (a turn's facts share its slots and episode: grouping the turns, at most
    ``keep_turns`` nodes, gives the facts' communities at a fraction of the pairs)."""
    turns: dict[str, list[MemoryFact]] = defaultdict(list)
    for f in facts:
        turns[str(f.turn)].append(f)
    edges = []
    for (ka, a), (kb, b) in combinations(sorted(turns.items()), 2):
        first, second = a[0], b[0]
        weight = (config.same_entity * (first.entity is not None and first.entity == second.entity)
                  + config.per_attribute_term * len(first.attribute_terms & second.attribute_terms)
                  + config.same_element * bool({f.element_id for f in a} & {f.element_id for f in b})
                  + config.same_episode * (first.episode == second.episode))
        if weight:
            edges.append((ka, kb, weight))
    return edges


def fact_communities(facts: Sequence[MemoryFact], config: CommunityConfig = CommunityConfig()) -> list[
        list[MemoryFact]]:
    """The facts in communities (Leiden's finest level over the turns, each fact in exactly one with its turn's
    other facts; a turn linked to none is its own), each community oldest first."""
    import graspologic_native as gn

    edges = sorted(_edges(facts, config))
    finest: dict[str, tuple[int, int]] = {}
    if edges:
        for item in gn.hierarchical_leiden(edges, max_cluster_size=config.max_cluster_size, seed=LEIDEN_SEED):
            level = int(item.level)
            if level >= finest.get(item.node, (-1, 0))[0]:  # a deeper level's cluster splits its parent's
                finest[item.node] = (level, int(item.cluster))
    groups: dict[tuple[int, int] | str, list[MemoryFact]] = defaultdict(list)
    for f in facts:
        groups[finest.get(str(f.turn), str(f.turn))].append(f)
    return [sorted(g, key=lambda f: (f.turn, f.key)) for g in groups.values()]


def _score(community: Sequence[MemoryFact], slots: Slots, config: CommunityConfig) -> tuple[float, int]:
    entities = {f.entity.casefold() for f in community if f.entity}
    terms = frozenset().union(*(f.attribute_terms for f in community))
    named = config.entity_score * bool(slots.entity and slots.entity.casefold() in entities)
    return named + config.per_attribute_term * len(terms & slots.attribute_terms), max(f.turn for f in community)


def nearest_community_facts(recent: Sequence[dict[str, Any]], slots: Slots,
                            config: CommunityConfig = CommunityConfig()) -> tuple[list[dict[str, Any]], int] | None:
    """The facts of the community nearest ``slots`` (at most ``config.max_facts``, the most recent) and the number
    of communities, when the kept turns hold more than ``config.min_facts`` facts; None otherwise (the episode's
    facts are carried then)."""
    facts = memory_facts(recent)
    if len(facts) <= config.min_facts:
        return None
    communities = fact_communities(facts, config)
    best = max(communities, key=lambda c: _score(c, slots, config))
    return [f.as_dict() for f in best[-config.max_facts:]], len(communities)
