"""Entity communities: hierarchical Leiden (``graspologic-native``) on the weighted entity graph.

Same algorithm and defaults as Microsoft GraphRAG: ``max_cluster_size`` 10 and a fixed seed (``0xDEADBEEF``).
Edges are sorted before clustering, so the same graph and seed always give the same communities. Level 0 holds
the coarsest communities; a community larger than ``max_cluster_size`` is split into children one level down,
so a parent's entities are the union of its children's. Entities without any relationship belong to no entity
community (they still appear in structural communities).
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from core.graph.communities.entity_graph import GraphData
from core.graph.defaults import DEFAULT_MAX_CLUSTER_SIZE, DEFAULT_SEED
from core.store.graph_records import Community


@dataclass(frozen=True)
class Cluster:
    """One raw Leiden cluster: ``level``, its graspologic ``cluster`` number, ``parent`` cluster and nodes."""

    level: int
    cluster: int
    parent: int | None
    nodes: tuple[str, ...]


def hierarchical_clusters(
    edges: Iterable[tuple[str, str, float]],
    *,
    max_cluster_size: int = DEFAULT_MAX_CLUSTER_SIZE,
    seed: int = DEFAULT_SEED,
) -> list[Cluster]:
    """Hierarchical Leiden over weighted, undirected ``edges``; ``[]`` for an empty graph."""
    import graspologic_native as gn

    normalised: dict[tuple[str, str], float] = {}
    for a, b, w in edges:
        if a == b:
            continue
        key = (a, b) if a < b else (b, a)
        normalised[key] = normalised.get(key, 0.0) + float(w)
    if not normalised:
        return []
    edge_list = [(a, b, w) for (a, b), w in sorted(normalised.items())]
    result = gn.hierarchical_leiden(edge_list, max_cluster_size=max_cluster_size, seed=seed)
    members: dict[tuple[int, int], list[str]] = defaultdict(list)
    parents: dict[int, int | None] = {}
    for item in result:
        cluster = int(item.cluster)
        members[(int(item.level), cluster)].append(item.node)
        parents[cluster] = int(item.parent_cluster) if item.parent_cluster is not None else None
    return [
        Cluster(level, cluster, parents.get(cluster), tuple(sorted(nodes)))
        for (level, cluster), nodes in sorted(members.items())
    ]


def entity_communities(
    graph: GraphData,
    *,
    max_cluster_size: int = DEFAULT_MAX_CLUSTER_SIZE,
    seed: int = DEFAULT_SEED,
) -> list[Community]:
    """Communities of kind ``"entity"``, ids ``e1``, ``e2``… in level then document order."""
    clusters = hierarchical_clusters(
        ((r.source_id, r.target_id, r.weight) for r in graph.relationships),
        max_cluster_size=max_cluster_size,
        seed=seed,
    )
    entity = graph.entity_by_id
    # Number communities by level, then by the document order of their first entity.
    ordered = sorted(clusters, key=lambda c: (c.level, min(entity[n].human_readable_id for n in c.nodes), c.cluster))
    ids = {c.cluster: f"e{i}" for i, c in enumerate(ordered, start=1)}
    membership: dict[int, dict[str, str]] = defaultdict(dict)  # level -> entity id -> community id
    for c in ordered:
        for node in c.nodes:
            membership[c.level][node] = ids[c.cluster]
    rels_of: dict[str, list[str]] = defaultdict(list)
    for r in graph.relationships:
        for members in membership.values():
            a, b = members.get(r.source_id), members.get(r.target_id)
            if a is not None and a == b:
                rels_of[a].append(r.id)
    children: dict[str, list[str]] = defaultdict(list)
    for c in ordered:
        if c.parent is not None and c.parent in ids:
            children[ids[c.parent]].append(ids[c.cluster])
    unit_order = {u.id: i for i, u in enumerate(graph.units)}
    out: list[Community] = []
    for i, c in enumerate(ordered, start=1):
        cid = ids[c.cluster]
        nodes = sorted(c.nodes, key=lambda n: entity[n].human_readable_id)
        unit_ids = sorted({u for n in nodes for u in entity[n].text_unit_ids}, key=unit_order.__getitem__)
        element_ids = list(dict.fromkeys(el for n in nodes for el in entity[n].element_ids))
        out.append(
            Community(
                id=cid,
                human_readable_id=i,
                kind="entity",
                level=c.level,
                parent=ids.get(c.parent) if c.parent is not None else None,
                children=children.get(cid, []),
                title=_title(nodes, rels_of.get(cid, []), graph),
                entity_ids=nodes,
                relationship_ids=rels_of.get(cid, []),
                text_unit_ids=unit_ids,
                element_ids=element_ids,
                size=len(nodes),
            )
        )
    return out


def internal_degrees(entity_ids: Sequence[str], relationship_ids: Sequence[str], graph: GraphData) -> dict[str, int]:
    """Degree of each entity counting only the given relationships."""
    deg = {e: 0 for e in entity_ids}
    for rid in relationship_ids:
        r = graph.relationship_by_id[rid]
        if r.source_id in deg:
            deg[r.source_id] += 1
        if r.target_id in deg:
            deg[r.target_id] += 1
    return deg


# Named things make better titles than generic keys such as "weight" or "model".
_TITLE_PRIOR = {"PERSON": 1.6, "ORGANIZATION": 1.6, "LOCATION": 1.4, "PRODUCT": 1.6, "EVENT": 1.4, "NAME": 1.3,
                "HEADING": 1.2, "CODE": 1.0, "TERM": 1.0, "CONCEPT": 1.0}  # fmt: skip


def top_entities(entity_ids: Sequence[str], relationship_ids: Sequence[str], graph: GraphData, n: int = 3) -> list[str]:
    """The ``n`` most characteristic entities of a community.

    Score: the entity's relationship weight inside the community, times the square root of the share of its total
    weight that is inside (a hub linked everywhere is less characteristic), times a small prior favouring named
    types. Ties: global degree, then document order.
    """
    inside = {e: 0.0 for e in entity_ids}
    for rid in relationship_ids:
        r = graph.relationship_by_id[rid]
        if r.source_id in inside:
            inside[r.source_id] += r.weight
        if r.target_id in inside:
            inside[r.target_id] += r.weight
    total = graph.strength()
    ent = graph.entity_by_id

    def score(e: str) -> float:
        share = inside[e] / total[e] if total.get(e) else 0.0
        return inside[e] * share**0.5 * _TITLE_PRIOR.get(ent[e].type, 1.0)

    return sorted(entity_ids, key=lambda e: (-score(e), -ent[e].degree, ent[e].human_readable_id))[:n]


def _title(nodes: list[str], rel_ids: list[str], graph: GraphData) -> str:
    names = [graph.entity_by_id[e].title for e in top_entities(nodes, rel_ids, graph)]
    return join_names(names)


def join_names(names: Sequence[str]) -> str:
    if not names:
        return "(empty)"
    if len(names) == 1:
        return names[0]
    return ", ".join(names[:-1]) + " & " + names[-1]


def time_leiden(n_nodes: int = 10_000, n_edges: int = 30_000, *, seed: int = 7) -> dict[str, float]:
    """Time hierarchical Leiden on a random graph with planted communities (for the benchmark)."""
    import random

    rng = random.Random(seed)
    n_groups = max(1, n_nodes // 50)
    edges: set[tuple[int, int]] = set()
    while len(edges) < n_edges:
        a = rng.randrange(n_nodes)
        if rng.random() < 0.8:  # most edges stay inside a planted group of ~50 nodes
            group = a % n_groups
            b = group + n_groups * rng.randrange(max(1, n_nodes // n_groups))
            b = min(b, n_nodes - 1)
        else:
            b = rng.randrange(n_nodes)
        if a != b:
            edges.add((min(a, b), max(a, b)))
    edge_list = [(f"n{a}", f"n{b}", 1.0 + rng.random()) for a, b in sorted(edges)]
    start = time.perf_counter()
    clusters = hierarchical_clusters(edge_list, max_cluster_size=DEFAULT_MAX_CLUSTER_SIZE, seed=DEFAULT_SEED)
    seconds = time.perf_counter() - start
    levels = defaultdict(int)
    for c in clusters:
        levels[c.level] += 1
    return {
        "nodes": float(len({n for e in edge_list for n in e[:2]})),
        "edges": float(len(edge_list)),
        "seconds": seconds,
        "communities": float(len(clusters)),
        "levels": float(len(levels)),
    }
