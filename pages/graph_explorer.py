"""Graph explorer: the whole entity graph of a collection's index, searched, filtered and expanded by clicks.

Thin view over ``core.graph`` (reads, ``core.graph.communities.explore`` for search, neighbourhoods, properties and
the layout) and ``views.graph_explorer`` (the canvas, its frame and the properties panel). The entity in focus is
``?entity=<id>`` in the URL; the expanded ones live in ``st.session_state``. Entity text is untrusted: it reaches
the page escaped (markdown), in dataframes, or in the sandboxed canvas (escaped by its template).
"""

from __future__ import annotations

import streamlit as st

from core.graph import index_info
from core.graph.communities.explore import entity_properties, neighbourhood, packed_layout, search_entities
from core.text import escape_markdown as esc
from views import graph_explorer as gx
from views import jobs, ui

ui.route_through_app()  # a deep link on a fresh server: drawn through app.py (views/ui.py)

FRAME = "graph_canvas"
HEIGHT = gx.HEIGHT
#: Per expanded entity, the neighbours drawn (strongest relationships first): a hub of a big corpus has hundreds.
MAX_NEIGHBOURS = 60

st.title("Graph explorer")
st.caption("The entities and relationships the index extracted, as one graph. Search an entity, click a node to "
           "expand its neighbours, filter by community. Labels: the most connected first, more as you zoom in.")
store = ui.require_documents()
collection = ui.current_collection()
info = index_info(store)
building = jobs.index_job_notice(collection, info.built_at if info else None)
if info is None and building:
    st.stop()
if info is None:
    st.info(f"**No index yet.** Build it on the Community reports page (or `python -m core index --collection "
            f"{esc(collection)}`): the explorer draws the entity graph it extracts.")
    st.page_link("pages/reports.py", label="Community reports", icon=":material/hub:")
    st.stop()
built = info.built_at.isoformat()


ents, rels, comms = gx.graph(collection, built)
by_id = {c.id: c for c in comms}
if not ents:
    st.warning("The index holds no entity: the documents name nothing it could extract. Try another collection.")
    st.stop()


# -- state: the focus is ?entity=<id>, the expanded entities a list in the session -------------------------------

def focus_on(entity_id: str | None, *, expand: bool = True) -> None:
    if entity_id is None:
        st.query_params.pop("entity", None)
        st.session_state["graph_expanded"] = []
        return
    st.query_params["entity"] = entity_id
    shown = st.session_state.get("graph_expanded") or []
    if expand and entity_id not in shown:
        st.session_state["graph_expanded"] = [*shown, entity_id]


def on_canvas_click() -> None:
    node = gx.clicked_node(FRAME)
    if node in ents:  # only a node we drew: the frame's message is a request, not a fact
        focus_on(node)


def on_search_pick() -> None:
    picked = st.session_state.get("graph_pick")
    if picked in ents:
        st.session_state["graph_expanded"] = []
        focus_on(picked)
    st.session_state["graph_pick"] = None


def on_neighbour_pick() -> None:
    rows = st.session_state["graph_neighbours"].selection.rows
    listed = st.session_state.get("graph_neighbour_ids") or []
    if rows and rows[0] < len(listed):
        focus_on(listed[rows[0]])


focus = st.query_params.get("entity")
if focus is not None and focus not in ents:
    st.warning(f"There is no entity {esc(focus)} in collection {esc(collection)}'s index.")
    focus = None
expanded = [e for e in st.session_state.get("graph_expanded") or [] if e in ents]
if focus is not None and focus not in expanded:  # opened from a link: show its neighbours
    expanded = [*expanded, focus]
    st.session_state["graph_expanded"] = expanded


# -- controls -----------------------------------------------------------------------------------------------------

c1, c2, c3 = st.columns([3, 1, 3])
query = c1.text_input("Search an entity", key="graph_query", placeholder="a name, or a word of its description")
levels = sorted({c.level for c in comms})
level = c2.selectbox("Level", levels, key="graph_level") if levels else 0
at_level = sorted((c for c in comms if c.level == level), key=lambda c: -c.size)
community_id = c3.selectbox(
    "Community", [""] + [c.id for c in at_level], key="graph_community",
    format_func=lambda c: f"All ({len(ents)} entities)" if not c else
    f"{c} · {by_id[c].title[:50]} ({by_id[c].size} entities)",
)  # fmt: skip
if query.strip():
    found = search_entities(store, query)
    if found:
        st.pills("Matches: pick one to focus on it", [e.id for e in found], key="graph_pick",
                 on_change=on_search_pick, wrap=True,
                 format_func=lambda i: f"{ents[i].title[:40]} ({ents[i].degree})" if i in ents else i)  # fmt: skip
    else:
        st.caption(f"No entity's name or description contains “{esc(query.strip())}”.")

group_of = {e: c.id for c in at_level for e in c.entity_ids}

# -- what to draw -------------------------------------------------------------------------------------------------

if focus is None:
    layout = gx.overview_layout(collection, built, community_id)
    where = f"community {esc(community_id)}" if community_id else "the whole graph"
    st.caption(f"{len(layout)} entities of {esc(where)}, coloured by level-{level} community, sized by degree. "
               "Click a node to focus on it and expand its neighbours.")
else:
    near = neighbourhood(store, expanded)
    keep: set[str] = set(expanded)
    for centre in expanded:
        mine = [r for r in near.relationships if centre in (r.source_id, r.target_id)]
        others = list(dict.fromkeys(r.target_id if r.source_id == centre else r.source_id for r in mine))
        keep.update(others[:MAX_NEIGHBOURS])
    shown_rels = [r for r in near.relationships if r.source_id in keep and r.target_id in keep]
    layout = packed_layout([e.id for e in near.entities if e.id in keep], gx.edge_list(shown_rels), {},
                           gx.degrees(ents))  # fmt: skip
    b1, b2, b3 = st.columns([2, 2, 5])
    b1.button("Back to the whole graph", on_click=focus_on, args=(None,), icon=":material/arrow_back:")
    b2.button("Collapse to the focus", on_click=lambda: st.session_state.update(graph_expanded=[focus]),
              icon=":material/unfold_less:", disabled=len(expanded) < 2)  # fmt: skip
    b3.caption(f"{len(layout)} entities: {esc(ents[focus].title)} and the neighbours of {len(expanded)} expanded "
               f"entit{'y' if len(expanded) == 1 else 'ies'} (at most {MAX_NEIGHBOURS} each, strongest first). "
               "Click a node to expand it.")

left, right = st.columns([3, 2], gap="medium")
with left:
    if focus is None:
        page = gx.overview_page(collection, built, community_id, level)
    else:
        page = gx.explorer_html([ents[i] for i in layout], shown_rels, layout, group_of=group_of, focus=focus,
                                expanded=expanded, height_px=HEIGHT)  # fmt: skip
    gx.graph_frame(page, height=HEIGHT + 8, title="Entity graph", key=FRAME, on_click=on_canvas_click)
with right:
    if focus is None:
        st.markdown("#### The most connected")
        st.caption("Pick one to focus on it (or click a node, or search).")
        top = sorted((ents[i] for i in layout), key=lambda e: (-e.degree, e.title))[:12]
        if not query.strip():  # the matches' pills hold the key while a search is on
            # wrap: in a column, pills otherwise stay on one row that scrolls, and most of the twelve are hidden
            st.pills("Top entities", [e.id for e in top], key="graph_pick", on_change=on_search_pick, wrap=True,
                     format_func=lambda i: f"{ents[i].title[:40]} ({ents[i].degree})", label_visibility="collapsed")
    else:
        props = entity_properties(store, focus)
        if props is not None:
            gx.show_properties(props, collection)
            neighbours = [n for n in dict.fromkeys(r.target_id if r.source_id == focus else r.source_id
                                                   for r in props.relationships) if n in ents]  # fmt: skip
            st.session_state["graph_neighbour_ids"] = neighbours
            st.markdown(f"**Neighbours ({len(neighbours)})**: select one to expand it")
            st.dataframe([{"entity": ents[n].title, "type": ents[n].type, "degree": ents[n].degree}
                          for n in neighbours], key="graph_neighbours", on_select=on_neighbour_pick,
                         selection_mode="single-row", hide_index=True, width="stretch", height=240)  # fmt: skip
