"""What a community's network shows, and where: the collapsed view of big communities and its layout.

A community of at most :data:`COLLAPSE_ABOVE` entities is drawn whole. A bigger one shows its :data:`MAX_HUBS` most
connected entities, labelled, and folds every other entity into one node per sub-community (``group:<id>``; the
entities in no sub-community into ``group:rest``), sized by how many entities it holds. Edges between the shown
nodes carry the summed weight of the relationships they stand for. So the 500-entity community is ~40 readable
nodes, not a hairball of 3,000 edges.

Layouts are a seeded spring layout in pixels. The index computes them for every community above
:data:`PRECOMPUTE_ABOVE` entities and stores them (``hke_community_layouts``), so opening a big report costs no
layout; small ones are laid out when drawn (milliseconds).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import networkx as nx

from core.store.graph_records import Community, Relationship

COLLAPSE_ABOVE = 80
MAX_HUBS = 30
PRECOMPUTE_ABOVE = 40
DEFAULT_SEED = 7
REST = "rest"


def group_key(child_id: str) -> str:
    return f"group:{child_id}"


@dataclass
class NetworkView:
    """The nodes to draw (entity ids and ``group:`` keys), their edges, and which entities each group folds."""

    entity_ids: list[str]
    groups: dict[str, list[str]] = field(default_factory=dict)  # group key -> folded entity ids
    edges: list[tuple[str, str, float]] = field(default_factory=list)  # node key, node key, summed weight
    relationship_ids: dict[tuple[str, str], list[str]] = field(default_factory=dict)  # edge -> relationships

    @property
    def collapsed(self) -> bool:
        return bool(self.groups)

    @property
    def node_keys(self) -> list[str]:
        return [*self.entity_ids, *self.groups]


def network_view(
    entity_ids: Sequence[str],
    relationships: Iterable[tuple[str, str, str, float]],
    degree: Mapping[str, int],
    children: Sequence[tuple[str, Sequence[str]]],
    *,
    collapse_above: int = COLLAPSE_ABOVE,
    max_hubs: int = MAX_HUBS,
) -> NetworkView:
    """The view of one community (see the module docstring).

    ``relationships`` are ``(id, source id, target id, weight)``; ``children`` are ``(child id, entity ids)``.
    """
    members = list(dict.fromkeys(entity_ids))
    member_set = set(members)
    node_of: dict[str, str] = {}
    groups: dict[str, list[str]] = {}
    if len(members) <= collapse_above:
        shown = members
        node_of = {e: e for e in members}
    else:
        shown = sorted(members, key=lambda e: (-degree.get(e, 0), e))[:max_hubs]
        node_of = {e: e for e in shown}
        for child_id, child_members in children:
            folded = [e for e in child_members if e in member_set and e not in node_of]
            if folded:
                groups[group_key(child_id)] = folded
                node_of.update((e, group_key(child_id)) for e in folded)
        rest = [e for e in members if e not in node_of]
        if rest:
            groups[group_key(REST)] = rest
            node_of.update((e, group_key(REST)) for e in rest)
    weights: dict[tuple[str, str], float] = defaultdict(float)
    rel_ids: dict[tuple[str, str], list[str]] = defaultdict(list)
    for rid, a, b, w in relationships:
        na, nb = node_of.get(a), node_of.get(b)
        if na is None or nb is None or na == nb:
            continue
        key = (na, nb) if na < nb else (nb, na)
        weights[key] += w
        rel_ids[key].append(rid)
    edges = [(a, b, w) for (a, b), w in sorted(weights.items())]
    return NetworkView(list(shown), groups, edges, dict(rel_ids))


def spring_layout(
    node_keys: Sequence[str], edges: Sequence[tuple[str, str, float]], seed: int = DEFAULT_SEED,
    iterations: int = 100,
) -> dict[str, tuple[float, float]]:
    """Seeded spring layout in pixels; spread grows with the node count so labels have room.

    Each connected component is laid out on its own and the components are set side by side, largest first: in
    one layout, a component with no edge to the rest drifts far off, and scaling the whole to the box squeezed the
    big one into a blob (python-markdown's changelog community: 156 pairs of nodes within 25 px, 1 this way).
    """
    g = nx.Graph()
    g.add_nodes_from(node_keys)
    for a, b, w in edges:
        g.add_edge(a, b, weight=max(float(w), 0.1))
    order = {key: i for i, key in enumerate(node_keys)}
    components = sorted(([k for k in node_keys if k in c] for c in nx.connected_components(g)),
                        key=lambda keys: (-len(keys), order[keys[0]]))  # fmt: skip
    placed: dict[str, tuple[float, float]] = {}
    x0 = 0.0
    for keys in components:
        pos = _component_layout(g.subgraph(keys), keys, seed, iterations)
        shift = x0 - min(x for x, _y in pos.values()) if placed else 0.0  # the largest stays where it was laid out
        placed.update({key: (round(x + shift, 1), y) for key, (x, y) in pos.items()})
        x0 = max(x for x, _y in placed.values()) + COMPONENT_GAP
    return placed


#: Pixels between two connected components laid out side by side.
COMPONENT_GAP = 120.0


def _component_layout(
    g: nx.Graph, node_keys: Sequence[str], seed: int, iterations: int = 100
) -> dict[str, tuple[float, float]]:
    if len(node_keys) == 1:
        return {node_keys[0]: (0.0, 0.0)}
    k = 1.6 / math.sqrt(max(len(node_keys), 1))  # a little looser than networkx's default: fewer overlapping labels
    sub = nx.Graph()
    sub.add_nodes_from(node_keys)  # the caller's order: the seeded layout depends on it
    sub.add_edges_from(g.edges(data=True))
    pos = nx.spring_layout(sub, seed=seed, weight="weight", k=k, iterations=iterations)
    scale = 120.0 + 55.0 * math.sqrt(len(node_keys))
    return {n: (round(float(x) * scale, 1), round(float(y) * scale, 1)) for n, (x, y) in pos.items()}


def precomputed_layouts(
    communities: Sequence[Community], relationships: Sequence[Relationship], degree: Mapping[str, int]
) -> dict[str, dict[str, list[float]]]:
    """Layouts of every community bigger than :data:`PRECOMPUTE_ABOVE` entities, as the index stores them."""
    by_id = {c.id: c for c in communities}
    rel_by_id = {r.id: r for r in relationships}
    out: dict[str, dict[str, list[float]]] = {}
    for c in communities:
        if c.size <= PRECOMPUTE_ABOVE:
            continue
        rels = [(rid, rel_by_id[rid].source_id, rel_by_id[rid].target_id, rel_by_id[rid].weight)
                for rid in c.relationship_ids if rid in rel_by_id]  # fmt: skip
        kids = sorted((by_id[k] for k in c.children if k in by_id), key=lambda k: -k.size)
        view = network_view(c.entity_ids, rels, degree, [(k.id, k.entity_ids) for k in kids])
        out[c.id] = {key: list(xy) for key, xy in spring_layout(view.node_keys, view.edges).items()}
    return out
