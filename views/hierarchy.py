"""The community hierarchy as a plotly sunburst (or treemap), what a click on it names, and the breadcrumbs.

**Untrusted text.** Plotly decodes HTML entities in labels and hover text and renders a few tags (``<a href>`` among
them), so every title goes into the figure ``html.escape``'d: ``<img …>`` is shown as those characters.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import Any

import plotly.graph_objects as go

from core.store.graph_records import HierarchyRow
from core.text import clip

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
    max_label: int = 40,
) -> go.Figure:
    """The whole community hierarchy as a sunburst (or treemap): sector size = entities, colour = rating 0–10.

    Each sector's ``id`` is its community id, so a click event names the community. A synthetic root holds the
    level-0 communities; ``selected`` gets a dark outline and becomes the centre (its parent, for a leaf), and at most
    :data:`LEVELS_BELOW` levels below it are drawn (a 600-slice sunburst has no readable label). Labels are broken
    into short lines (:func:`wrapped_label`), so every sector with room for its title shows it; one too small to
    read is hidden rather than shrunk (the hover, and the list beside the chart, name every community).
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
    depth = _depths(rows, known)
    # The outer ring's sectors are thin: there a title's first name, one line, fits where two lines would not.
    outer = max(depth.values(), default=0)
    labels = [ROOT_LABEL] + [wrapped_label(_first_name(r.title) if depth[r.id] == outer > 1 else r.title, max_label,
                                           lines=1 if depth[r.id] == outer > 1 else LABEL_LINES) for r in rows]
    vals = [sum(values[r.id] for r in roots)] + [values[r.id] for r in rows]
    colours = [mean_rating] + [r.rating if r.rating is not None else mean_rating for r in rows]
    custom = [[ROOT_ID, ROOT_LABEL, "", sum(r.size for r in roots), "", len(roots)]] + [
        [r.id, plotly_text(r.title, 120), r.level, r.size,
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
        # Horizontal labels: a rotated one's box crosses its neighbours' (two overlapped on the samples), and
        # uniformtext hides a label that has no room at 10 px, so the ones shown never overlap. The domain leaves
        # a margin: a circle touching its frame looked cut flat at the right edge.
        trace = go.Sunburst(**common, insidetextorientation="horizontal", maxdepth=LEVELS_BELOW + 1, level=centre,
                            textinfo="label", domain=dict(x=[0.03, 0.97], y=[0.02, 0.98]))  # fmt: skip
    else:
        trace = go.Treemap(**common, maxdepth=LEVELS_BELOW + 1, level=centre, textinfo="label")
    fig = go.Figure(trace)
    fig.update_layout(height=height, margin=dict(l=0, r=0, t=4, b=48), clickmode="event+select",
                      uniformtext=dict(minsize=10, mode="hide"))  # fmt: skip
    return fig


def selected_community(event: object) -> str | None:
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




LABEL_LINE = 12  # characters per line of a sector label: short lines fit a wedge that one long line would overflow
LABEL_LINES = 2


def _depths(rows: Sequence[HierarchyRow], known: set[str]) -> dict[str, int]:
    """Ring of each visible row: 1 for the sectors around the root (or the centre's ancestors), then outwards."""
    parent = {r.id: (r.parent if r.parent in known else None) for r in rows}
    out: dict[str, int] = {}
    for r in rows:
        d, node = 1, parent[r.id]
        while node is not None:
            d, node = d + 1, parent[node]
        out[r.id] = d
    return out


def _first_name(title: str) -> str:
    """The first of the names a title joins ("USB-C, HDMI & DisplayPort" → "USB-C")."""
    return title.split(" & ")[0].split(", ")[0]


def wrapped_label(text: str, limit: int, width: int = LABEL_LINE, lines: int = LABEL_LINES) -> str:
    """``text`` as an escaped sector label of at most ``lines`` lines of about ``width`` characters (``<br>``
    between them, words kept whole), ``limit`` characters in all. Plotly hides a label that does not fit its sector
    at the minimum size; broken into lines, a title fits most sectors that have room for it."""
    rows: list[str] = []
    for word in clip(" ".join(text.split()), limit, at_word=False).split(" "):
        if rows and len(rows[-1]) + 1 + len(word) <= width:
            rows[-1] += " " + word
        else:
            rows.append(word)
    if len(rows) > lines:
        rows = rows[: lines - 1] + [clip(" ".join(rows[lines - 1 :]), width, at_word=False)]
    return "<br>".join(html.escape(r, quote=True) for r in rows)


def plotly_text(text: str, limit: int) -> str:
    """``text`` clipped and escaped for a plotly label or hover (plotly would render tags and entities in it)."""
    return html.escape(clip(text, limit, at_word=False), quote=True)
