"""The graph explorer's canvas and panels: the entity graph as a vis.js network, drawn by pyvis through our template
(``views/templates/graph_explorer.html``), in a sandboxed frame whose clicks come back to Python; and the
properties panel of one entity.

**Untrusted text.** Entity names and descriptions come from documents. Here they stay plain text; the template
writes them into its script with ``tojson`` (``<``, ``>``, ``&``, ``'`` as ``\\u`` escapes), labels are drawn on
the canvas with ``fillText`` and tooltips built with ``textContent``. In Streamlit they go through
``escape_markdown`` or into dataframes. ``<script>`` in a name is shown as those characters.

**Offline.** vis-network is inlined from the pyvis package, as the community network does: nothing is fetched.

**Labels at scale.** vis.js draws no label here; ``graph_labels.js`` draws them at a constant size on screen, most
important first (the focus, the expanded entities, then by degree), each only where it overlaps none already drawn.
**Layout.** Positions are computed in Python (:func:`core.graph.communities.explore.packed_layout`) and physics is
off: the first frame is the final picture, with no simulation in the browser.

**Speed at corpus scale.** vis.js builds an object per edge, each with its own copy of the options and a label
module: for the whole graph's thousands of relationships that was most of the time from page to picture
(``bench/bench_graph_explorer.py``). The whole-graph view (``edge_text=False``) therefore hands vis.js no edge: the
template strokes them itself under the nodes, one canvas path per width (:attr:`Canvas.lines`), and names the line
nearest the pointer in a tooltip of its own (its two ends); a focused view, with its few edges, keeps vis.js edges
and their descriptions.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NamedTuple
from urllib.parse import quote

import streamlit as st
from pyvis.network import Network

from core.graph import communities, entities, index_info, relationships
from core.graph.communities.explore import EntityProperties, layout_clusters, packed_layout
from core.store.graph_records import Community, Entity, Relationship
from core.text import clip
from core.text import escape_markdown as esc
from views import network, ui
from views.frames import SANDBOX

TEMPLATE = "graph_explorer.html"
HEIGHT = 640  # the canvas, in pixels
TOOLTIP_CHARS = 400
LABEL_CHARS = 36
MIN_SIZE, MAX_SIZE = 6, 30
FOCUS_BORDER = "#1f2328"
EDGE_COLOUR = "#c3cad3"

OPTIONS: dict[str, Any] = {
    "physics": {"enabled": False},
    "layout": {"improvedLayout": False},
    "interaction": {"hover": True, "tooltipDelay": 120, "hideEdgesOnDrag": True, "navigationButtons": False},
    "nodes": {"shape": "dot", "borderWidth": 1},
    "edges": {"smooth": False, "color": {"color": EDGE_COLOUR, "highlight": "#57606a", "hover": "#57606a"}},
}  # fmt: skip


class Canvas(NamedTuple):
    """What the template needs beyond pyvis' nodes and edges: the label order, the ids always labelled, the focus
    (selected on the canvas), and the edges the template draws itself (``[from, to, width]``; empty when vis.js
    draws them). Passed as pyvis' ``heading``, which pyvis hands to the template as it is."""

    order: list[str]
    forced: list[str]
    focus: str | None
    lines: list[tuple[str, str, int]] = []


def explorer_data(
    entities: Sequence[Entity],
    relationships: Sequence[Relationship],
    layout: Mapping[str, tuple[float, float]],
    *,
    group_of: Mapping[str, str] | None = None,
    focus: str | None = None,
    expanded: Iterable[str] = (),
    edge_text: bool = True,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], Canvas]:
    """The vis.js nodes and edges (text as plain text) and the label order of the entities in ``layout``.

    Without ``edge_text`` (the whole graph: thousands of relationships) the edges are not vis.js edges but
    ``Canvas.lines``, which the template strokes itself (see the module docstring); ``edges`` is then empty."""
    group_of = group_of or {}
    expanded = [e for e in dict.fromkeys(expanded) if e in layout]
    shown = [e for e in entities if e.id in layout]
    ids = {e.id for e in shown}
    top = max((e.degree for e in shown), default=1) or 1
    colours = network.group_colours(group_of[e.id] for e in shown if e.id in group_of)
    nodes = []
    for e in shown:
        x, y = layout[e.id]
        node: dict[str, Any] = {
            "n_id": e.id, "name": clip(e.title, LABEL_CHARS, at_word=False),
            "title": f"{e.title}\n{e.type} · degree {e.degree}\n{clip(e.description, TOOLTIP_CHARS, at_word=False)}",
            "color": colours.get(group_of.get(e.id, ""), network.NO_GROUP),
            "size": round(MIN_SIZE + (MAX_SIZE - MIN_SIZE) * math.sqrt(e.degree / top), 1),
            "x": x, "y": y,
        }  # fmt: skip
        if e.id == focus or e.id in expanded:
            node["borderWidth"] = 4 if e.id == focus else 3
            node["color"] = {"background": node["color"], "border": FOCUS_BORDER}
        nodes.append(node)
    edges: list[dict[str, Any]] = []
    lines: list[tuple[str, str, int]] = []
    seen: set[tuple[str, str]] = set()
    for r in relationships:
        pair = (min(r.source_id, r.target_id), max(r.source_id, r.target_id))
        if r.source_id == r.target_id or r.source_id not in ids or r.target_id not in ids or pair in seen:
            continue
        seen.add(pair)
        width = round(1 + min(r.weight, 10) / 3, 2)
        if not edge_text:
            lines.append((r.source_id, r.target_id, round(width)))  # a path per whole width
            continue
        about = "\n" + clip(r.description, TOOLTIP_CHARS, at_word=False)
        edges.append({"source": r.source_id, "to": r.target_id, "title": f"{r.source} — {r.target}{about}",
                      "width": width})  # fmt: skip
    forced = [i for i in [focus, *expanded] if i is not None and i in ids]
    ranked = sorted(shown, key=lambda e: (-e.degree, e.title))
    order = list(dict.fromkeys([*forced, *(e.id for e in ranked)]))
    return nodes, edges, Canvas(order, forced, focus if focus in ids else None, lines)


def explorer_html(
    entities: Sequence[Entity],
    relationships: Sequence[Relationship],
    layout: Mapping[str, tuple[float, float]],
    *,
    group_of: Mapping[str, str] | None = None,
    focus: str | None = None,
    expanded: Iterable[str] = (),
    edge_text: bool = True,
    height_px: int = 640,
) -> str:
    """A self-contained page (vis.js in line, no CDN) drawing ``entities`` at ``layout``'s positions, physics off."""
    nodes, edges, canvas = explorer_data(entities, relationships, layout, group_of=group_of, focus=focus,
                                         expanded=expanded, edge_text=edge_text)  # fmt: skip
    net = Network(height=f"{int(height_px)}px", width="100%", heading=canvas._asdict(), bgcolor="#ffffff")
    net.set_template_dir(str(network.TEMPLATES), TEMPLATE)
    net.templateEnv = network._ENV
    # pyvis' add_node and add_edge check each new item against every earlier one (quadratic: seconds at a few
    # thousand edges); its template reads these lists, in its own item shape.
    net.nodes = [{"id": node.pop("n_id"), "shape": "dot", **node} for node in nodes]
    net.edges = [{"from": edge.pop("source"), "to": edge.pop("to"), **edge} for edge in edges]
    net.options = OPTIONS
    return net.generate_html()


# -- the whole graph, cached per index build (the page's reads; an index job warms them) --------------------------


@st.cache_data(show_spinner=False, max_entries=8)
def graph(collection: str, built: str) -> tuple[dict[str, Entity], list[Relationship], list[Community]]:
    s = ui.store(collection)
    return {e.id: e for e in entities(s)}, relationships(s), communities(s, kind="entity")


@st.cache_data(show_spinner="Laying out the graph…", max_entries=16)
def overview_layout(collection: str, built: str, community_id: str) -> dict[str, tuple[float, float]]:
    """Positions of the whole graph (or of one community's entities), clustered by community."""
    ents, rels, comms = graph(collection, built)
    members = {c.id: c.entity_ids for c in comms}
    ids = [e for e in (members[community_id] if community_id else ents) if e in ents]
    return packed_layout(ids, edge_list(rels), layout_clusters(comms, community_id), degrees(ents))


@st.cache_data(show_spinner="Drawing the graph…", max_entries=16)
def overview_page(collection: str, built: str, community_id: str, level: int) -> str:
    """The canvas page of the whole graph (or one community), coloured by ``level``'s communities."""
    ents, rels, comms = graph(collection, built)
    layout = overview_layout(collection, built, community_id)
    colour_of = {e: c.id for c in comms if c.level == level for e in c.entity_ids}
    return explorer_html([ents[i] for i in layout], rels, layout, group_of=colour_of, edge_text=False,
                         height_px=HEIGHT)  # fmt: skip


def edge_list(rels: list[Relationship]) -> list[tuple[str, str, float]]:
    return [(r.source_id, r.target_id, r.weight) for r in rels]


def degrees(ents: dict[str, Entity]) -> dict[str, int]:
    return {i: e.degree for i, e in ents.items()}


def warm(collection: str) -> None:
    """Compute the page's first view of ``collection``'s current index (the whole graph at its coarsest level)
    into the process' caches, so the first visit after a build finds it ready. Run after an index job."""
    info = index_info(ui.store(collection))
    if info is None:
        return
    built = info.built_at.isoformat()
    _ents, _rels, comms = graph(collection, built)
    overview_page(collection, built, "", min((c.level for c in comms), default=0))


# -- the frame: the page in a sandbox, its clicks back to Python ------------------------------------------------------

# Like views.frames (a frame sandboxed with allow-scripts only), plus one channel back: the page posts
# {hke: "graph-node", id} to its parent on a click; this component (in the app's window) accepts messages from its
# own frame only and hands the id to Python as the ``clicked`` trigger.
_JS = """
export default function ({ parentElement, data, setTriggerValue }) {
  let frame = parentElement.querySelector("iframe");
  if (!frame) {
    frame = document.createElement("iframe");
    frame.setAttribute("sandbox", "SANDBOX");
    frame.style.width = "100%";
    frame.style.border = "0";
    window.addEventListener("message", (event) => {
      const msg = event.data;
      if (event.source !== frame.contentWindow || !msg || msg.hke !== "graph-node" || typeof msg.id !== "string") {
        return;
      }
      if (frame.hkeSend) { frame.hkeSend("clicked", msg.id.slice(0, 200)); }
    });
    parentElement.appendChild(frame);
  }
  frame.hkeSend = setTriggerValue;
  frame.setAttribute("title", data.title);
  frame.style.height = data.height + "px";
  if (frame.srcdoc !== data.html) { frame.srcdoc = data.html; }
}
""".replace("SANDBOX", SANDBOX)

_component = st.components.v2.component("hke_graph_explorer", js=_JS)


def graph_frame(html: str, *, height: int, title: str, key: str, on_click: Any) -> None:
    """Show the explorer page in a sandboxed frame; ``on_click`` runs (as a widget callback) when a node is clicked,
    and reads the node id with :func:`clicked_node`."""
    _component(data={"html": html, "height": int(height), "title": title}, key=key, height=int(height),
               on_clicked_change=on_click)  # fmt: skip


def clicked_node(key: str) -> str | None:
    """The node id the frame ``key`` reported in this run's click, if any."""
    state = st.session_state.get(key)
    value = state.get("clicked") if isinstance(state, Mapping) else getattr(state, "clicked", None)
    return str(value) if value else None


# -- the properties panel ---------------------------------------------------------------------------------------------


def community_link(community_id: str, collection: str) -> str:
    return f"/reports?collection={quote(collection, safe='')}&community={quote(community_id, safe='')}"


def show_properties(props: EntityProperties, collection: str) -> None:
    """One entity: its name, type, degree, description, communities (links to their reports) and source elements
    (links to the Document tree)."""
    e = props.entity
    st.markdown(f"### {esc(e.title)}")
    st.caption(f"{esc(e.type or 'entity')} · degree {props.degree} · mentioned {e.frequency} time"
               f"{'s' if e.frequency != 1 else ''} · {len(props.relationships)} relationships")  # fmt: skip
    st.markdown(esc(clip(e.description, 1200, at_word=True)) if e.description else "*No description.*")
    st.markdown("**Communities**")
    if props.communities:
        st.markdown("\n".join(
            f"- [{esc(c.id)}]({community_link(c.id, collection)}) · {esc(c.kind)} level {c.level} · "
            f"{esc(clip(c.title, 70, at_word=True))} ({c.size} entities)" for c in props.communities))  # fmt: skip
    else:
        st.caption("In no community.")
    st.markdown(f"**Source elements ({len(props.elements) + props.more_elements})**")
    if not props.elements:
        st.caption("No source element is current (the documents changed since the index was built).")
    lines = []
    for el in props.elements:
        text = clip(" ".join(el.text.split()), 140, at_word=False)
        where = " › ".join(el.heading_path)
        link = ui.tree_link(el.element_id, quote(collection, safe=""))
        lines.append(f"- [`e:{el.element_id[:8]}`]({link}) {esc(text)}" + (f"  \n  *{esc(where)}*" if where else ""))
    if lines:
        st.markdown("\n".join(lines))
    if props.more_elements:
        st.caption(f"… and {props.more_elements} more.")
    show_facts(props, collection)


def show_facts(props: EntityProperties, collection: str) -> None:
    """The entity's facts from the statement tiers (``key : value`` items and table rows under its heading), each
    linked to the element that states it first."""
    st.markdown("**Facts**")
    if props.facts is None:
        st.caption("The statement tiers are not built: `python -m core index --tiers-only` lists the facts stated "
                   "about each entity here.")
        return
    if not props.facts:
        st.caption("No fact is stated with this entity as its subject.")
        return
    rows = [f"| {esc(f.predicate)} | {esc(clip(f.value, 120, at_word=True))} | {f.support} | "
            f"[`e:{f.element_id[:8]}`]({ui.tree_link(f.element_id, quote(collection, safe=''))}) |"
            for f in props.facts]
    st.markdown("\n".join(["| attribute | value | statements | source |", "| --- | --- | --- | --- |", *rows]))
