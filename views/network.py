"""A community's entities and relationships as a vis.js network: the data (colours, sizes, the collapsed view of
big communities, the layout) and the page, rendered by pyvis through our own Jinja template
(``views/templates/network.html``).

**Untrusted text.** Entity names, descriptions and relationship text come from documents. The data stays plain text
here; the template is the one place it meets HTML: Jinja autoescapes the legend, ``tojson`` writes the node and edge
data into the script with ``<``, ``>``, ``&`` and ``'`` as ``\\u`` escapes, the canvas draws labels as characters
(vis.js has no markup in labels unless ``font.multi`` is set, which we never set), and every tooltip is a ``<div>``
built with ``textContent``. So ``<img src=x onerror=…>`` is shown as those characters and never parsed.

**Offline.** vis-network's script and stylesheet are inlined from the pyvis package (the template includes them
through a loader that reads pyvis' own template folder): no CDN, no bootstrap, nothing fetched.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple, Protocol

import jinja2
import pyvis
from pyvis.network import Network

from core.graph.communities.layout import DEFAULT_SEED, REST, network_view, spring_layout
from core.store.graph_records import Entity, Relationship
from core.text import clip

#: Above this many nodes the layout is fixed (physics off). None: the layout is always the one computed in Python
#: (stored by the index, or a seeded spring layout here, milliseconds), and the first frame is the final picture.
#: vis.js stabilising a simulation before its first draw left a real corpus's network blank for seconds.
PHYSICS_THRESHOLD = 0
MIN_NODE_SIZE = 8
MAX_NODE_SIZE = 34
LABEL_CHARS = 40
LEGEND_CHARS = 48
TOOLTIP_CHARS = 400

#: Categorical colours (Tableau 10 plus two), readable on white and distinct from each other.
PALETTE: tuple[str, ...] = (
    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948",
    "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac", "#1f77b4", "#8c564b",
)  # fmt: skip
NO_GROUP = "#c9ced6"  # entities in no sub-community

TEMPLATES = Path(__file__).resolve().parent / "templates"
NETWORK_TEMPLATE = "network.html"
# One environment for the process: the template (with vis.js, ~470 KB, included from pyvis' folder) is compiled
# once, not on every drawing. Autoescape on: nothing reaches the page unescaped unless the template says so.
_ENV = jinja2.Environment(
    loader=jinja2.ChoiceLoader([
        jinja2.FileSystemLoader(TEMPLATES),
        jinja2.FileSystemLoader(Path(pyvis.__file__).resolve().parent / "templates"),
    ]),
    autoescape=True,
    trim_blocks=True,
    lstrip_blocks=True,
)  # fmt: skip

VIS_OPTIONS: dict[str, Any] = {
    "interaction": {"hover": True, "tooltipDelay": 100, "navigationButtons": False},
    "nodes": {"font": {"size": 14, "face": "Noto Sans CJK KR, Noto Sans, Arial, sans-serif",
                       "strokeWidth": 3, "strokeColor": "#ffffff"}},
    "edges": {"smooth": False, "color": {"color": "#b6bec8", "highlight": "#57606a", "hover": "#57606a"}},
}  # fmt: skip


class Legend(NamedTuple):
    """What the colours mean: ``what`` they stand for and one ``(label, colour)`` per group, in legend order.

    The page passes it to the template as pyvis' ``heading`` (pyvis hands its heading to the template as it is; ours
    draws the legend where pyvis would put a title)."""

    what: str
    items: list[tuple[str, str]]


class Grouping(Protocol):
    """A sub-community as :func:`network_groups` reads it (:class:`core.store.graph_records.Community` fits)."""

    id: str
    title: str
    entity_ids: list[str]


def group_colours(groups: Iterable[str]) -> dict[str, str]:
    """A colour per group, in order of first appearance (cycling through :data:`PALETTE`)."""
    out: dict[str, str] = {}
    for g in groups:
        if g not in out:
            out[g] = PALETTE[len(out) % len(PALETTE)]
    return out


def network_groups(
    entities: Sequence[Entity], children: Sequence[Grouping]
) -> tuple[dict[str, str], dict[str, str], str]:
    """How to colour a community's nodes: by sub-community when it has some, else by entity type.

    Returns ``(group_of_entity, group_labels, what)`` where ``what`` names the grouping.
    """
    if children:
        group_of: dict[str, str] = {}
        for child in children:
            for entity_id in child.entity_ids:
                group_of.setdefault(entity_id, child.id)
        labels = {c.id: f"{c.id} · {c.title}" for c in children}
        return group_of, labels, "sub-community"
    group_of = {e.id: e.type or "?" for e in entities}
    return group_of, {t: t for t in dict.fromkeys(group_of.values())}, "entity type"


def network_data(
    entities: Sequence[Entity],
    relationships: Sequence[Relationship],
    *,
    sub_community_of: Mapping[str, str],
    group_labels: Mapping[str, str] | None = None,
    grouping: str = "sub-community",
    physics_threshold: int = PHYSICS_THRESHOLD,
    seed: int = DEFAULT_SEED,
    highlight: Iterable[str] = (),
    layout: Mapping[str, tuple[float, float]] | None = None,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], bool]:
    """The vis.js nodes and edges of a community (text as plain text), plus whether physics stays on.

    Above :data:`core.graph.communities.layout.COLLAPSE_ABOVE` entities the view is collapsed (top hubs, one node per
    sub-community; see :mod:`core.graph.communities.layout`). ``layout`` is the index's precomputed one; without it
    (or when it misses a node) the layout is computed here. A ``title`` is the tooltip: its first line is shown bold.
    """
    group_labels = group_labels or {}
    highlight = set(highlight)
    ids = [e.id for e in entities]
    known = set(ids)
    rels = [r for r in relationships if r.source_id in known and r.target_id in known and r.source_id != r.target_id]
    rel_by_id = {r.id: r for r in rels}
    local_degree: dict[str, int] = dict.fromkeys(ids, 0)
    for r in rels:
        local_degree[r.source_id] += 1
        local_degree[r.target_id] += 1
    # Size by the entity's degree in the whole graph (GraphRAG's measure of importance); the local degree stands in
    # when the index recorded none.
    degree = {e.id: (e.degree or local_degree[e.id]) for e in entities}
    members: dict[str, list[str]] = {}
    if grouping == "sub-community":
        for entity_id, group in sub_community_of.items():
            if entity_id in known:
                members.setdefault(group, []).append(entity_id)
    view = network_view(ids, [(r.id, r.source_id, r.target_id, r.weight) for r in rels], degree,
                        sorted(members.items(), key=lambda kv: -len(kv[1])))  # fmt: skip
    shown = set(view.entity_ids)
    top = max((degree[i] for i in shown), default=1) or 1
    # The legend's order (sub_community_of's), so a group has the same colour in the legend and on the canvas.
    colours = group_colours(g for i, g in sub_community_of.items() if i in known)
    physics = len(view.node_keys) <= physics_threshold and not view.collapsed
    pos = dict(layout or {})
    if any(key not in pos for key in view.node_keys):
        pos = spring_layout(view.node_keys, view.edges, seed)
    by_id = {e.id: e for e in entities}
    nodes: list[dict[str, Any]] = []
    for e in (by_id[i] for i in view.entity_ids):
        group = sub_community_of.get(e.id)
        lines = [e.title, f"{e.type} · degree {degree[e.id]}"]
        if grouping == "sub-community":  # grouped by type, the type line already says it
            lines.append(f"{grouping}: {group_labels.get(group, group) if group is not None else 'none'}")
        x, y = pos[e.id]
        node: dict[str, Any] = {
            "n_id": e.id,
            "label": clip(e.title, LABEL_CHARS, at_word=False),
            "title": "\n".join([*lines, clip(e.description, TOOLTIP_CHARS, at_word=False)]),
            "color": colours.get(group, NO_GROUP) if group is not None else NO_GROUP,
            "size": round(MIN_NODE_SIZE + (MAX_NODE_SIZE - MIN_NODE_SIZE) * math.sqrt(degree[e.id] / top), 1),
            "x": round(x, 1),
            "y": round(y, 1),
            "physics": physics,
        }
        if e.id in highlight:
            node["borderWidth"] = 4
        nodes.append(node)
    for key, folded in view.groups.items():
        group = key.removeprefix("group:")
        name = group_labels.get(group, group) if group != REST else "entities in no sub-community"
        names = [by_id[i].title for i in sorted(folded, key=lambda i: (-degree[i], i))[:12]]
        more = f"\n… and {len(folded) - len(names)} more" if len(folded) > len(names) else ""
        x, y = pos[key]
        nodes.append({
            "n_id": key,
            "label": clip(f"{name} (+{len(folded)})", LABEL_CHARS + 8, at_word=False),
            "title": f"{name}\n{len(folded)} more entities, folded:\n" + ", ".join(names) + more,
            "color": colours.get(group, NO_GROUP),
            "shape": "square",
            "size": round(min(MAX_NODE_SIZE + 6, MIN_NODE_SIZE + 3 * math.sqrt(len(folded))), 1),
            "x": x,
            "y": y,
            "physics": physics,
        })  # fmt: skip
    top_weight = max((w for _a, _b, w in view.edges), default=1.0) or 1.0
    edges = []
    for a, b, w in view.edges:
        rids = view.relationship_ids.get((a, b) if a < b else (b, a), [])
        if len(rids) == 1 and a in shown and b in shown:
            r = rel_by_id[rids[0]]
            about = clip(r.description, TOOLTIP_CHARS, at_word=False)
            title = f"{r.source} — {r.target} (weight {r.weight:g})\n{about}"
        else:
            title = f"{len(rids)} relationships (total weight {w:g})"
        edges.append({"source": a, "to": b, "title": title, "width": round(1 + 4 * w / top_weight, 2)})
    return nodes, edges, physics


def legend(sub_community_of: Mapping[str, str], group_labels: Mapping[str, str], what: str) -> Legend:
    """The legend of the groups in ``sub_community_of``, coloured as :func:`network_data` colours them."""
    items = [(clip(group_labels.get(g, g), LEGEND_CHARS, at_word=False), colour)
             for g, colour in group_colours(sub_community_of.values()).items()]  # fmt: skip
    return Legend(what, items)


def community_network_html(
    entities: Sequence[Entity],
    relationships: Sequence[Relationship],
    *,
    sub_community_of: Mapping[str, str],
    group_labels: Mapping[str, str] | None = None,
    grouping: str = "sub-community",
    height_px: int = 520,
    physics_threshold: int = PHYSICS_THRESHOLD,
    seed: int = DEFAULT_SEED,
    highlight: Iterable[str] = (),
    layout: Mapping[str, tuple[float, float]] | None = None,
) -> str:
    """A self-contained HTML page (vis.js in line, no CDN) drawing a community's entities and relationships.

    Nodes are coloured by ``sub_community_of[entity_id]`` (a group key; ``group_labels`` names the groups in the
    legend and tooltips) and sized by degree. Positions are precomputed (the index's layout, or a seeded spring
    layout), so the picture is the same on every run; physics is off above ``physics_threshold`` nodes.
    """
    group_labels = dict(group_labels or {})
    nodes, edges, physics = network_data(
        entities, relationships, sub_community_of=sub_community_of, group_labels=group_labels, grouping=grouping,
        physics_threshold=physics_threshold, seed=seed, highlight=highlight, layout=layout,
    )  # fmt: skip
    known = {e.id for e in entities}
    heading = legend({i: g for i, g in sub_community_of.items() if i in known}, group_labels, grouping)
    net = Network(height=f"{int(height_px)}px", width="100%", heading=heading, bgcolor="#ffffff")
    net.set_template_dir(str(TEMPLATES), NETWORK_TEMPLATE)
    net.templateEnv = _ENV
    for node in nodes:
        net.add_node(node.pop("n_id"), **{"shape": "dot", **node})
    for edge in edges:
        net.add_edge(edge.pop("source"), edge.pop("to"), **edge)
    net.options = {
        **VIS_OPTIONS,
        "physics": {"enabled": physics, "stabilization": {"enabled": physics, "iterations": 150},
                    "barnesHut": {"gravitationalConstant": -6000, "springLength": 140, "avoidOverlap": 0.3}},
    }  # fmt: skip
    return net.generate_html()
