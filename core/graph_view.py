"""Views of the GraphRAG index for the report browser: the community network (pyvis), the hierarchy (plotly),
report search/sort, breadcrumbs, and the exports of one level (Markdown, JSON, CSV).

Pure functions, no Streamlit: the pages call them and tests check them directly.

**Untrusted text.** Entity names, descriptions and report text come from documents. In the network HTML every
label and tooltip is ``html.escape``'d before pyvis sees it (pyvis 0.3.2 writes a node's ``title`` into the DOM
with ``innerHTML`` when any title contains ``href``, and Jinja's ``tojson`` then also escapes ``<``/``>``/``&`` in
the embedded JSON). A small script in the page turns the escaped strings back into text for the canvas and builds
each tooltip with ``textContent``, so ``<img src=x onerror=…>`` is shown as those characters and never parsed.
Plotly decodes HTML entities in labels and hover text (and renders a few tags, ``<a href>`` among them), so the
hierarchy figure gets escaped strings too. Markdown exports escape markdown specials (no remote images, links or
HTML in a previewer) and CSV cells that a spreadsheet would run as formulas are prefixed with ``'``.
"""

from __future__ import annotations

import csv
import html
import io
import json
import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import plotly.graph_objects as go

from core.graph.layout import DEFAULT_SEED, REST, network_view, spring_layout
from core.graph.model import Entity, HierarchyRow, Relationship, Report
from core.partial_tree import escape_markdown

# -- network ----------------------------------------------------------------------------------------------------

#: Above this many nodes the layout is fixed (physics off): vis.js's simulation on hundreds of nodes takes seconds
#: and keeps the CPU busy; the networkx layout computed here costs milliseconds.
PHYSICS_THRESHOLD = 60
MIN_NODE_SIZE = 8
MAX_NODE_SIZE = 34
LABEL_CHARS = 40

#: Categorical colours (Tableau 10 plus two), readable on white and distinct from each other.
PALETTE: tuple[str, ...] = (
    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948",
    "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac", "#1f77b4", "#8c564b",
)  # fmt: skip
NO_GROUP = "#c9ced6"  # entities in no sub-community

_BOOTSTRAP = re.compile(
    r"<link[^>]*cdn\.jsdelivr\.net/npm/bootstrap[^>]*>|<script[^>]*cdn\.jsdelivr\.net/npm/bootstrap[^>]*>\s*</script>"
)
_EMPTY_HEADING = re.compile(r"<center>\s*<h1>\s*</h1>\s*</center>")
_HREF = re.compile("href", re.IGNORECASE)

# Runs after pyvis has drawn: labels become plain text again (the canvas draws characters, not markup) and each
# tooltip becomes a <div> filled with textContent. DOMParser documents are inert: no script runs, nothing loads.
_DECODE_SCRIPT = """<script>
(function () {
  if (typeof nodes === "undefined" || typeof edges === "undefined") { return; }
  var parser = new DOMParser();
  function text(s) {
    if (typeof s !== "string") { return s; }
    return parser.parseFromString("<!doctype html><body>" + s, "text/html").body.textContent;
  }
  function tip(s) {
    if (typeof s !== "string") { return s; }
    var lines = text(s).split("\\n");
    var box = document.createElement("div");
    box.className = "hke-tip";
    lines.forEach(function (line, i) {
      var el = document.createElement(i === 0 ? "b" : "div");
      el.textContent = line;
      box.appendChild(el);
    });
    return box;
  }
  nodes.update(nodes.get().map(function (n) { return {id: n.id, label: text(n.label), title: tip(n.title)}; }));
  edges.update(edges.get().map(function (e) { return {id: e.id, title: tip(e.title)}; }));
  document.body.setAttribute("data-hke-ready", "1");
})();
</script>"""

_STYLE = """<style>
body{margin:0;font-family:-apple-system,Segoe UI,Helvetica,Arial,sans-serif}
#mynetwork{float:none !important;box-sizing:border-box;border:1px solid #d0d7de !important;
border-radius:6px}
.hke-legend{display:flex;flex-wrap:wrap;gap:4px 14px;font-size:12px;color:#1f2328;padding:2px 2px 6px 2px}
.hke-legend span.sw{display:inline-block;width:10px;height:10px;border-radius:50%;margin-right:4px;
vertical-align:middle}
.vis-tooltip{font-family:-apple-system,Segoe UI,Helvetica,Arial,"Noto Sans CJK KR",sans-serif !important}
.hke-tip{max-width:360px;white-space:normal;font-size:12px}.hke-tip b{display:block;margin-bottom:2px}
</style>"""


def escape_html_text(text: Any) -> str:
    """``text`` escaped for HTML, with ``href`` written as ``&#104;ref``.

    The character reference decodes to the same text, but the literal substring is gone: pyvis switches every
    tooltip to an ``innerHTML`` popup when any title contains ``href``, and we never want that switch.
    """
    escaped = html.escape(str(text), quote=True)
    return _HREF.sub(lambda m: f"&#{ord(m.group(0)[0])};{m.group(0)[1:]}", escaped)


def _clip(text: str, limit: int) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def group_colours(groups: Iterable[str]) -> dict[str, str]:
    """A colour per group, in order of first appearance (cycling through :data:`PALETTE`)."""
    out: dict[str, str] = {}
    for g in groups:
        if g not in out:
            out[g] = PALETTE[len(out) % len(PALETTE)]
    return out


def network_groups(entities: Sequence[Entity], children: Sequence[Any]) -> tuple[dict[str, str], dict[str, str], str]:
    """How to colour a community's nodes: by sub-community when it has some, else by entity type.

    ``children`` are :class:`~core.graph.model.Community` objects (anything with ``id``, ``title`` and
    ``entity_ids``). Returns ``(group_of_entity, group_labels, what)`` where ``what`` names the grouping.
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
    """The vis.js nodes and edges of a community, every string escaped, plus whether physics stays on.

    Above :data:`core.graph.layout.COLLAPSE_ABOVE` entities the view is collapsed (top hubs, one node per
    sub-community; see :mod:`core.graph.layout`). ``layout`` is the index's precomputed one; without it (or when it
    misses a node) the layout is computed here.
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
        tooltip = "\n".join([*lines, _clip(e.description, 400)])
        x, y = pos[e.id]
        size = MIN_NODE_SIZE + (MAX_NODE_SIZE - MIN_NODE_SIZE) * math.sqrt(degree[e.id] / top)
        node: dict[str, Any] = {
            "n_id": e.id,
            "label": escape_html_text(_clip(e.title, LABEL_CHARS)),
            "title": escape_html_text(tooltip),
            "color": colours.get(group, NO_GROUP) if group is not None else NO_GROUP,
            "size": round(size, 1),
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
            "label": escape_html_text(_clip(f"{name} (+{len(folded)})", LABEL_CHARS + 8)),
            "title": escape_html_text(f"{name}\n{len(folded)} more entities, folded:\n" + ", ".join(names) + more),
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
            title = f"{r.source} — {r.target} (weight {r.weight:g})\n{_clip(r.description, 400)}"
        else:
            title = f"{len(rids)} relationships (total weight {w:g})"
        edges.append({"source": a, "to": b, "title": escape_html_text(title),
                      "width": round(1 + 4 * w / top_weight, 2)})  # fmt: skip
    return nodes, edges, physics


def _legend_html(sub_community_of: Mapping[str, str], group_labels: Mapping[str, str], what: str) -> str:
    colours = group_colours(sub_community_of.values())
    if not colours:
        return ""
    items = [
        f'<span><span class="sw" style="background:{colour}"></span>'
        f"{escape_html_text(_clip(group_labels.get(g, g), 48))}</span>"
        for g, colour in colours.items()
    ]
    return f'<div class="hke-legend"><span>Colour = {escape_html_text(what)}:</span>{"".join(items)}</div>'


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
    legend and tooltips) and sized by degree. Positions are precomputed with a seeded spring layout, so the
    picture is the same on every run; physics is off above ``physics_threshold`` nodes.
    """
    from pyvis.network import Network

    group_labels = dict(group_labels or {})
    nodes, edges, physics = network_data(
        entities, relationships, sub_community_of=sub_community_of, group_labels=group_labels, grouping=grouping,
        physics_threshold=physics_threshold, seed=seed, highlight=highlight, layout=layout,
    )  # fmt: skip
    net = Network(height=f"{int(height_px)}px", width="100%", cdn_resources="in_line", bgcolor="#ffffff")
    for node in nodes:
        n_id = node.pop("n_id")
        net.add_node(n_id, **{"shape": "dot", **node})
    for edge in edges:
        net.add_edge(edge.pop("source"), edge.pop("to"), **edge)
    # A plain dict: pyvis dumps it as JSON and reads physics.enabled from it (no loading bar when off).
    net.options = {
        "physics": {"enabled": physics, "stabilization": {"enabled": physics, "iterations": 150},
                    "barnesHut": {"gravitationalConstant": -6000, "springLength": 140, "avoidOverlap": 0.3}},
        "interaction": {"hover": True, "tooltipDelay": 100, "navigationButtons": False},
        "nodes": {"font": {"size": 14, "face": "Noto Sans CJK KR, Noto Sans, Arial, sans-serif",
                           "strokeWidth": 3, "strokeColor": "#ffffff"}},
        "edges": {"smooth": False, "color": {"color": "#b6bec8", "highlight": "#57606a", "hover": "#57606a"}},
    }  # fmt: skip
    page = net.generate_html()
    # Offline: drop the bootstrap CDN tags pyvis always adds (they can only fail) and its empty headings.
    page = _BOOTSTRAP.sub("", page)
    page = _EMPTY_HEADING.sub("", page)
    legend = _legend_html({i: g for i, g in sub_community_of.items() if i in {e.id for e in entities}},
                          group_labels, grouping)  # fmt: skip
    page = page.replace("</head>", _STYLE + "</head>", 1)
    page = page.replace('<div class="card"', legend + '<div class="card"', 1)
    head, sep, tail = page.rpartition("</body>")
    return head + _DECODE_SCRIPT + sep + tail if sep else page + _DECODE_SCRIPT


# -- hierarchy figure -------------------------------------------------------------------------------------------

ROOT_ID = "__all__"
LEVELS_BELOW = 2
ROOT_LABEL = "All communities"


def _display_values(rows: Sequence[HierarchyRow]) -> dict[str, float]:
    """Sector sizes for ``branchvalues="total"``: a community's entity count, raised to its children's sum.

    Structural sections can share entities, so children may add up to more than their parent; plotly silently
    drops a sector whose children exceed it, so the parent is widened instead (the hover shows the real size).
    """
    kids: dict[str, list[str]] = {}
    for r in rows:
        if r.parent is not None:
            kids.setdefault(r.parent, []).append(r.id)
    size = {r.id: float(max(r.size, 1)) for r in rows}
    out: dict[str, float] = {}
    for r in sorted(rows, key=lambda r: -r.level):  # deepest first
        out[r.id] = max(size[r.id], sum(out.get(k, size[k]) for k in kids.get(r.id, [])))
    return out


def _centre(rows: Sequence[HierarchyRow], selected: str | None) -> str | None:
    """The sector the figure centres on: the picked community, or its parent when it has no sub-communities (so a
    leaf is shown among its siblings)."""
    by_id = {r.id: r for r in rows}
    picked = by_id.get(selected) if selected else None
    if picked is None:
        return None
    if any(r.parent == picked.id for r in rows):
        return picked.id
    return picked.parent if picked.parent in by_id else None


def _visible_rows(rows: Sequence[HierarchyRow], centre: str | None) -> list[HierarchyRow]:
    """The rows the figure can show: the centre's ancestors, itself and :data:`LEVELS_BELOW` levels under it (or
    the top :data:`LEVELS_BELOW` levels). Sending the other hundreds of sectors only slows the page."""
    by_id = {r.id: r for r in rows}
    kids: dict[str | None, list[HierarchyRow]] = {}
    for r in rows:
        kids.setdefault(r.parent if r.parent in by_id else None, []).append(r)
    keep: set[str] = set()
    node = by_id.get(centre) if centre else None
    frontier = [node] if node is not None else list(kids.get(None, []))
    depth = 0 if node is not None else 1
    while node is not None:  # the way up, so the picked sector sits in its context
        keep.add(node.id)
        node = by_id.get(node.parent) if node.parent else None
    while frontier and depth <= LEVELS_BELOW:
        keep.update(r.id for r in frontier)
        frontier = [k for r in frontier for k in kids.get(r.id, [])]
        depth += 1
    return [r for r in rows if r.id in keep]


def hierarchy_figure(
    rows: Sequence[HierarchyRow],
    *,
    chart: str = "sunburst",
    selected: str | None = None,
    height: int = 520,
    max_label: int = 28,
) -> go.Figure:
    """The whole community hierarchy as a sunburst (or treemap): sector size = entities, colour = rating 0–10.

    Each sector's ``id`` is its community id, so a click event names the community. A synthetic root holds the
    level-0 communities; ``selected`` gets a dark outline and becomes the centre (its parent, for a leaf), and at most
    :data:`LEVELS_BELOW` levels below it are drawn (a 600-slice sunburst has no readable label); labels too small
    to read are hidden rather than shrunk.
    """
    if chart not in ("sunburst", "treemap"):
        raise ValueError("chart must be sunburst or treemap")
    values = _display_values(rows)
    centre = _centre(rows, selected)
    rows = _visible_rows(rows, centre)
    known = {r.id for r in rows}
    roots = [r for r in rows if r.parent is None or r.parent not in known]
    ratings = [r.rating for r in rows if r.rating is not None]
    mean_rating = sum(ratings) / len(ratings) if ratings else 5.0
    ids = [ROOT_ID] + [r.id for r in rows]
    parents = [""] + [r.parent if r.parent in known else ROOT_ID for r in rows]
    labels = [ROOT_LABEL] + [escape_html_text(_clip(r.title, max_label)) for r in rows]
    vals = [sum(values[r.id] for r in roots)] + [values[r.id] for r in rows]
    colours = [mean_rating] + [r.rating if r.rating is not None else mean_rating for r in rows]
    custom = [[ROOT_ID, ROOT_LABEL, "", sum(r.size for r in roots), "", len(roots)]] + [
        [r.id, escape_html_text(_clip(r.title, 120)), r.level, r.size,
         f"{r.rating:.1f}" if r.rating is not None else "—", r.n_children]
        for r in rows
    ]  # fmt: skip
    line_width = [0.5] + [3.5 if r.id == selected else 0.5 for r in rows]
    line_colour = ["#ffffff"] + ["#1f2328" if r.id == selected else "#ffffff" for r in rows]
    common: dict[str, Any] = dict(
        ids=ids, parents=parents, labels=labels, values=vals, branchvalues="total", customdata=custom,
        marker=dict(colors=colours, colorscale="Viridis", cmin=0, cmax=10,
                    line=dict(width=line_width, color=line_colour),
                    colorbar=dict(title=dict(text="rating", side="top"), orientation="h", thickness=10, len=0.6,
                                  y=-0.02, yanchor="top")),  # below the chart: the sunburst keeps the width
        hovertemplate="<b>%{customdata[1]}</b><br>%{customdata[0]} · level %{customdata[2]}<br>"
                      "%{customdata[3]} entities · rating %{customdata[4]} · %{customdata[5]} sub-communities"
                      "<extra></extra>",
    )  # fmt: skip
    centre = centre or ROOT_ID
    if chart == "sunburst":
        trace = go.Sunburst(**common, insidetextorientation="auto", maxdepth=LEVELS_BELOW + 1, level=centre,
                            textinfo="label")  # fmt: skip
    else:
        trace = go.Treemap(**common, maxdepth=LEVELS_BELOW + 1, level=centre, textinfo="label")
    fig = go.Figure(trace)
    fig.update_layout(height=height, margin=dict(l=0, r=0, t=4, b=48), clickmode="event+select",
                      uniformtext=dict(minsize=10, mode="hide"))  # fmt: skip
    return fig


def selected_community(event: Any) -> str | None:
    """The community id a hierarchy-figure selection event names (``None`` for the root or no selection).

    Streamlit 1.67 reports a click on a sunburst/treemap sector as ``selection.points[0]`` with the sector's
    ``id`` (and ``label``, ``parent``, ``current_path``…); the event may be a dict or an attribute dict.
    """
    try:
        selection = event["selection"] if isinstance(event, Mapping) else event.selection
        points = selection["points"] if isinstance(selection, Mapping) else selection.points
    except (AttributeError, KeyError, TypeError):
        return None
    for point in points or []:
        point_id = point.get("id") if isinstance(point, Mapping) else None
        if point_id and point_id != ROOT_ID:
            return str(point_id)
    return None


def breadcrumbs(rows: Sequence[HierarchyRow], community_id: str) -> list[HierarchyRow]:
    """The chain root → ``community_id`` (empty if the id is unknown); stops on a cycle, just in case."""
    by_id = {r.id: r for r in rows}
    chain: list[HierarchyRow] = []
    node = by_id.get(community_id)
    seen: set[str] = set()
    while node is not None and node.id not in seen:
        seen.add(node.id)
        chain.append(node)
        node = by_id.get(node.parent) if node.parent else None
    return chain[::-1]


# -- search, filter, sort ---------------------------------------------------------------------------------------

SORT_KEYS = ("rating", "size", "title")


def report_text(report: Report) -> str:
    """What the text search reads: title, summary, rating explanation and every finding."""
    parts = [report.title, report.summary, report.rating_explanation]
    for f in report.findings:
        parts += [f.summary, f.explanation]
    return "\n".join(parts)


def filter_reports(
    reports: Iterable[Report],
    *,
    query: str = "",
    entity_id: str | None = None,
    members: Mapping[str, Iterable[str]] | None = None,
) -> list[Report]:
    """Reports whose text contains every word of ``query`` (case-insensitive) and, with ``entity_id``, whose
    community contains that entity (``members``: community id → entity ids) or whose findings cite it."""
    words = [w.casefold() for w in query.split()]
    member_sets = {k: set(v) for k, v in (members or {}).items()}
    out = []
    for r in reports:
        if words:
            text = report_text(r).casefold()
            if not all(w in text for w in words):
                continue
        if entity_id and entity_id not in member_sets.get(r.community_id, set()) and entity_id not in r.entity_ids:
            continue
        out.append(r)
    return out


def sort_reports(reports: Iterable[Report], by: str = "rating") -> list[Report]:
    """Best rated (or largest, or by title) first; ties by community id order so the list is stable."""
    if by not in SORT_KEYS:
        raise ValueError(f"sort by one of {', '.join(SORT_KEYS)}")
    items = list(reports)
    if by == "rating":
        return sorted(items, key=lambda r: (-r.rating, -r.size, _id_key(r.community_id)))
    if by == "size":
        return sorted(items, key=lambda r: (-r.size, -r.rating, _id_key(r.community_id)))
    return sorted(items, key=lambda r: (r.title.casefold(), _id_key(r.community_id)))


def _id_key(community_id: str) -> tuple[str, int]:
    """``e12`` after ``e9``: the prefix, then the number."""
    m = re.fullmatch(r"(\D*)(\d+)", community_id)
    return (m.group(1), int(m.group(2))) if m else (community_id, 0)


# -- global search answers --------------------------------------------------------------------------------------

_DATA_REF = re.compile(r"\[Data:\s*Reports\s*\(([^)\]]*)\)\]", re.IGNORECASE)
# Markup given back after escaping: list markers, numbered items, headings (as bold lines) and **bold**. None of
# them can carry a URL, an image or HTML, and their content stays escaped.
_ESC_BULLET = re.compile(r"^( {0,8})\\([-*+]) ", re.M)
_ESC_NUMBER = re.compile(r"^( {0,8})(\d{1,3})\\([.)]) ", re.M)
_ESC_HEADING = re.compile(r"^(?:\\#){1,6} (.+)$", re.M)
_ESC_BOLD = re.compile(r"\\\*\\\*(?=\S)(.+?)(?<=\S)\\\*\\\*")
_LIST_LINE = re.compile(r"^\s*(?:[-*+]|\d{1,3}[.)]) ")


def light_markdown(escaped: str) -> str:
    """Markdown written by :func:`escape_markdown`, with lists, headings (bold) and bold text working again."""
    out = _ESC_BULLET.sub(r"\1\2 ", escaped)
    out = _ESC_NUMBER.sub(r"\1\2\3 ", out)
    out = _ESC_HEADING.sub(r"\n**\1**\n", out)  # a block of its own, not the tail of a list item
    return _ESC_BOLD.sub(r"**\1**", out)


def _keep_line_breaks(text: str) -> str:
    """Single newlines become hard breaks, except around blank lines and before list items (lists stay lists)."""
    lines = text.split("\n")
    out = []
    for i, line in enumerate(lines):
        out.append(line)
        if i + 1 < len(lines):
            nxt = lines[i + 1]
            plain = line.strip() and nxt.strip() and not _LIST_LINE.match(nxt)
            out.append("  \n" if plain else "\n")
    return "".join(out)


def cited_answer_markdown(text: str, known: Iterable[str], link: Callable[[str], str]) -> str:
    """An answer as safe markdown whose ``[Data: Reports (e1, e5)]`` citations link each known report id.

    Everything from the answer is escaped (an LLM answer can carry what the documents said), then lists and bold
    are given back (:func:`light_markdown`); only the links are ours, and only ids of ``known`` reports become
    links (``link(id)`` gives the URL).
    """
    known = set(known)
    out: list[str] = []
    pos = 0
    for m in _DATA_REF.finditer(text):
        out.append(light_markdown(escape_markdown(text[pos : m.start()])))
        refs = []
        for raw in m.group(1).split(","):
            rid = raw.strip().strip("'\"")
            refs.append(f"[{escape_markdown(rid)}]({link(rid)})" if rid in known else escape_markdown(raw.strip()))
        out.append("\\[Data: Reports \\(" + ", ".join(refs) + "\\)\\]")
        pos = m.end()
    out.append(light_markdown(escape_markdown(text[pos:])))
    return _keep_line_breaks("".join(out))


# -- exports ----------------------------------------------------------------------------------------------------

GENERATED_LABELS = {"extractive": "extractive (no LLM configured)", "llm": "written by an LLM"}


def generated_label(generated_by: str) -> str:
    return GENERATED_LABELS.get(generated_by, generated_by)


def reports_markdown(reports: Sequence[Report], *, heading: str) -> str:
    """One level's reports as a Markdown document; report text is escaped so that it renders literally."""
    lines = [f"# {escape_markdown(heading)}", ""]
    for r in reports:
        lines += [
            f"## {escape_markdown(r.community_id)} · {escape_markdown(r.title)}",
            "",
            f"*{r.kind} community, level {r.level}, {r.size} entities, rating {r.rating:g}/10, "
            f"{generated_label(r.generated_by)}*",
            "",
            escape_markdown(r.summary),
            "",
            f"**Rating:** {r.rating:g}/10. {escape_markdown(r.rating_explanation)}",
            "",
        ]
        if r.parent:
            lines += [f"Parent: {escape_markdown(r.parent)}", ""]
        if r.children:
            lines += [f"Sub-communities: {escape_markdown(', '.join(r.children))}", ""]
        if r.findings:
            lines += ["### Findings", ""]
            for i, f in enumerate(r.findings, start=1):
                lines += [f"{i}. **{escape_markdown(f.summary)}** {escape_markdown(f.explanation)}"]
            lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def reports_json(reports: Sequence[Report], *, meta: Mapping[str, Any] | None = None) -> str:
    """``{"meta": …, "reports": [Report.to_dict(), …]}`` as UTF-8 JSON (GraphRAG's report fields)."""
    return json.dumps({"meta": dict(meta or {}), "reports": [r.to_dict() for r in reports]}, ensure_ascii=False,
                      indent=2)  # fmt: skip


CSV_COLUMNS = ("community_id", "kind", "level", "title", "summary", "rating", "rating_explanation", "size", "parent",
               "children", "generated_by", "n_findings", "findings")  # fmt: skip
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _csv_cell(value: Any) -> Any:
    # A cell starting with = + - @ is run as a formula by spreadsheets (CSV injection): make it text.
    if isinstance(value, str) and value.startswith(_FORMULA_START):
        return "'" + value
    return value


def reports_csv(reports: Sequence[Report]) -> str:
    """One row per report; children joined by ``;``, findings as JSON text."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for r in reports:
        row = [r.community_id, r.kind, r.level, r.title, r.summary, r.rating, r.rating_explanation, r.size,
               r.parent or "", ";".join(r.children), r.generated_by, len(r.findings),
               json.dumps([f.to_dict() for f in r.findings], ensure_ascii=False)]  # fmt: skip
        writer.writerow([_csv_cell(v) for v in row])
    return buf.getvalue()


def export_filename(collection: str, kind: str, level: int, ext: str) -> str:
    """A safe download name such as ``samples-entity-level1-reports.md``."""
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "_", collection).strip("._") or "collection"
    return f"{slug}-{kind}-level{int(level)}-reports.{ext}"
