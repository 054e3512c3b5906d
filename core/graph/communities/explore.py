"""The entity graph as an explorer reads it: search an entity, its neighbourhood, its properties, and a layout of
the whole graph (or one community of it) that is computed once, here, rather than simulated in the browser.

Reads go through the graph door (:class:`core.store.graph_tables.GraphTables`); the store's ``get`` resolves the
source elements. Nothing here writes or builds HTML: names and descriptions stay plain (untrusted) text.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import networkx as nx

from core.elements import Element
from core.graph.communities.layout import DEFAULT_SEED, spring_layout
from core.store import graph_tables
from core.store.graph_records import Community, Entity, Relationship
from core.store.hlg_tables import HLGTables

if TYPE_CHECKING:
    from core.store import ElementStore

SEARCH_LIMIT = 20
#: The most elements a properties panel lists (an entity of a big corpus is mentioned in hundreds).
MAX_SOURCES = 25
MAX_FACTS = 40  # facts a properties panel lists (the statement tiers may hold hundreds for a hub)


def _tables(store: ElementStore) -> graph_tables.GraphTables:
    return graph_tables.GraphTables(store)


def search_entities(store: ElementStore, text: str, *, limit: int = SEARCH_LIMIT) -> list[Entity]:
    """Entities whose title or description contains ``text`` (case-insensitive; ``%`` and ``_`` are literal): an
    exact title first, then titles starting with it, then by degree. Blank text finds nothing."""
    text = " ".join(text.split())
    if not text:
        return []
    return _tables(store).search_entities(text, limit)


@dataclass
class Neighbourhood:
    """Entities and the relationships between them: what an expanded view draws."""

    entities: list[Entity] = field(default_factory=list)
    relationships: list[Relationship] = field(default_factory=list)


def neighbourhood(store: ElementStore, entity_ids: Iterable[str]) -> Neighbourhood:
    """``entity_ids``, every entity one relationship away from one of them, and those relationships (two reads)."""
    centre = list(dict.fromkeys(entity_ids))
    rels = _tables(store).relationships_touching(centre)
    ids = dict.fromkeys(centre)
    for r in rels:
        ids.setdefault(r.source_id)
        ids.setdefault(r.target_id)
    ents = _tables(store).entities(ids) if ids else []
    return Neighbourhood(ents, rels)


@dataclass(frozen=True)
class EntityFact:
    """A fact of the statement tiers whose subject is the entity: ``predicate`` is ``value``, stated by
    ``support`` statements, the first of them in ``element_id``."""

    predicate: str
    value: str
    support: int
    element_id: str


@dataclass
class EntityProperties:
    """What a properties panel shows of one entity: it, its communities, its relationships, its sources and, when
    the collection's statement tiers are built (``core index --tiers-only``), its facts."""

    entity: Entity
    communities: list[Community]
    relationships: list[Relationship]
    elements: list[Element]
    more_elements: int = 0  # sources beyond :data:`MAX_SOURCES`, not read
    facts: list[EntityFact] | None = None  # None: the tiers are not built

    @property
    def degree(self) -> int:
        """Distinct neighbours (the index's degree, or the relationships read when it recorded none)."""
        others = {r.target_id if r.source_id == self.entity.id else r.source_id for r in self.relationships}
        return self.entity.degree or len(others)


def entity_properties(
    store: ElementStore, entity_id: str, *, max_sources: int = MAX_SOURCES
) -> EntityProperties | None:
    """The properties of ``entity_id``, or ``None`` when the index holds no such entity."""
    tables = _tables(store)
    found = tables.entities([entity_id])
    if not found:
        return None
    entity = found[0]
    wanted = entity.element_ids[:max_sources]
    by_id = {e.element_id: e for e in store.get(wanted)}
    return EntityProperties(entity, tables.communities_of_entity(entity_id), tables.relationships_touching([entity_id]),
                            [by_id[i] for i in wanted if i in by_id], max(0, len(entity.element_ids) - max_sources),
                            entity_facts(store, entity.title))


def entity_facts(store: ElementStore, name: str, *, limit: int = MAX_FACTS) -> list[EntityFact] | None:
    """The statement tiers' facts whose subject is ``name`` (by merge key, co-mentions left out), or ``None`` when
    the collection's tiers were never built."""
    tiers = HLGTables(store)
    if not tiers.built():
        return None
    return [EntityFact(f["predicate"], f["object"], f["support"], f["element_id"])
            for f in tiers.entity_facts(name)[:limit]]


# -- layout -------------------------------------------------------------------------------------------------------

#: A group of at most this many entities gets a spring layout of its own; a bigger one is split by its
#: connected components, and a component still bigger is laid out on a sunflower spiral by degree (a spring
#: layout of n nodes costs n² per step: 1,200 nodes took 13 s here).
SPRING_LIMIT = 150
#: Steps of each group's spring layout: the picture settles in about 50 for groups of this size.
SPRING_STEPS = 50
#: Pixels between two groups packed side by side.
GROUP_GAP = 90.0


def layout_clusters(communities: Sequence[Community], within: str = "") -> dict[str, str]:
    """Entity → cluster for :func:`packed_layout`: the entity communities of the coarsest level (below community
    ``within``, if given) whose biggest a spring layout handles, so clusters are as big as they can be and still
    cheap."""
    below = [c for c in communities if c.kind == "entity" and (c.parent == within if within else c.level == 0)]
    while below and max(c.size for c in below) > SPRING_LIMIT:
        ids = {b.id for b in below}
        deeper = [c for c in communities if c.parent in ids]
        if not deeper:
            break
        below = deeper
    return {e: c.id for c in below for e in c.entity_ids}


def packed_layout(
    node_ids: Sequence[str],
    edges: Sequence[tuple[str, str, float]],
    groups: Mapping[str, str],
    degree: Mapping[str, int],
    *,
    seed: int = DEFAULT_SEED,
) -> dict[str, tuple[float, float]]:
    """Positions (pixels) for a graph of any size, in time about linear in it: each group (``groups``: node →
    group key; a node in none is its own group's member under ``""``) is laid out on its own and the groups are
    packed in rows, biggest first. So communities show as clusters, and no step is quadratic in the whole graph."""
    members: dict[str, list[str]] = {}
    for n in node_ids:
        members.setdefault(groups.get(n, ""), []).append(n)
    known = set(node_ids)
    edges_of: dict[str, list[tuple[str, str, float]]] = {}
    for a, b, w in edges:
        if a in known and b in known and groups.get(a, "") == groups.get(b, ""):
            edges_of.setdefault(groups.get(a, ""), []).append((a, b, w))
    boxes = []
    for key, ids in sorted(members.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        pos = _group_layout(ids, edges_of.get(key, []), degree, seed)
        xs, ys = [x for x, _ in pos.values()], [y for _, y in pos.values()]
        boxes.append((pos, min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys)))
    total = sum((w + GROUP_GAP) * (h + GROUP_GAP) for _p, _x, _y, w, h in boxes)
    row_width = max(math.sqrt(total) * 1.3, max((w for *_r, w, _h in boxes), default=0.0))
    placed: dict[str, tuple[float, float]] = {}
    x = y = row_height = 0.0
    for pos, x0, y0, w, h in boxes:
        if x > 0 and x + w > row_width:
            x, y, row_height = 0.0, y + row_height + GROUP_GAP, 0.0
        placed.update({n: (round(px - x0 + x, 1), round(py - y0 + y, 1)) for n, (px, py) in pos.items()})
        x += w + GROUP_GAP
        row_height = max(row_height, h)
    return placed


def _group_layout(ids: Sequence[str], edges: Sequence[tuple[str, str, float]], degree: Mapping[str, int],
                  seed: int) -> dict[str, tuple[float, float]]:  # fmt: skip
    if len(ids) <= SPRING_LIMIT:
        return spring_layout(ids, edges, seed, SPRING_STEPS)
    g = nx.Graph()
    g.add_nodes_from(ids)
    g.add_weighted_edges_from(edges)
    parts = sorted((sorted(c) for c in nx.connected_components(g)), key=lambda c: (-len(c), c[0]))
    if len(parts) > 1 and len(parts[0]) <= SPRING_LIMIT:
        sub_groups = {n: str(i) for i, part in enumerate(parts) for n in part}
        return packed_layout(ids, edges, sub_groups, degree, seed=seed)
    return _sunflower(ids, degree)


def _sunflower(ids: Sequence[str], degree: Mapping[str, int]) -> dict[str, tuple[float, float]]:
    """The most connected in the middle, the others on a golden-angle spiral around them, evenly spaced."""
    golden = math.pi * (3 - math.sqrt(5))
    ordered = sorted(ids, key=lambda n: (-degree.get(n, 0), n))
    return {n: (round(38 * math.sqrt(i) * math.cos(i * golden), 1), round(38 * math.sqrt(i) * math.sin(i * golden), 1))
            for i, n in enumerate(ordered)}  # fmt: skip
