"""Community reports: browse the index's themes by hierarchy and level, open one, drill down, see its graph.

Thin view over ``core.graph`` (reads, build) and ``core.graph_view`` (network, sunburst, search, exports). What the
user picked lives in ``st.session_state``; the open report is ``?community=<id>`` in the URL, so breadcrumbs,
links from Global search and reloads all land on it. Report text and entity names are untrusted: they are shown
through ``escape_markdown``, in dataframes, or in the escaped network iframe; never as HTML.
"""

from __future__ import annotations

import math
from urllib.parse import quote

import pandas as pd
import streamlit as st

from core import graph_view as gv
from core.graph import (
    STAGES,
    Community,
    Entity,
    HierarchyRow,
    Relationship,
    Report,
    build_index,
    children,
    communities,
    community,
    community_layout,
    community_subgraph,
    entities,
    hierarchy,
    index_info,
    levels,
    load_citations,
    load_reports,
)
from core.graph.estimate import estimate_index_cost
from core.graph.layout import COLLAPSE_ABOVE, MAX_HUBS
from core.partial_tree import escape_markdown as esc
from core.progress import Progress
from pages import ui

KINDS = {"entity": "Entity communities (Leiden levels)", "structural": "Structural (document › section)"}
KIND_NAMES = {"entity": "Entity community", "structural": "Structural community"}
STRUCTURAL_LEVELS = {0: "documents", 1: "sections", 2: "subsections"}
SORTS = {"rating": "Rating", "size": "Size", "title": "Title"}
STAGE_LABELS = {
    "load": "Load elements", "text_units": "Text units", "extraction": "Entity extraction", "graph": "Entity graph",
    "communities": "Leiden communities", "structural": "Structural communities", "reports": "Community reports",
    "store": "Write the tables",
}  # fmt: skip
PAGE_SIZE = 24
NETWORK_HEIGHT = 520

st.title("Community reports")
st.caption(
    "Themes of the corpus, GraphRAG style: entity communities found by hierarchical Leiden (coarse to fine) and "
    "structural communities from the heading tree, each with a rated report whose findings cite their sources."
)
store = ui.require_documents()
collection = ui.current_collection()


# -- cached reads (keyed by the index's build time, so a rebuild invalidates them) --------------------------------


@st.cache_data(show_spinner=False, max_entries=32)
def cached_levels(collection: str, built: str, kind: str) -> dict[int, int]:
    return levels(ui.store(collection), kind)


@st.cache_data(show_spinner=False, max_entries=32)
def cached_hierarchy(collection: str, built: str, kind: str) -> list[HierarchyRow]:
    return hierarchy(ui.store(collection), kind)


@st.cache_data(show_spinner=False, max_entries=64)
def cached_reports(collection: str, built: str, kind: str, level: int) -> list[Report]:
    return load_reports(ui.store(collection), level=level, kind=kind)


@st.cache_data(show_spinner=False, max_entries=64)
def cached_members(collection: str, built: str, kind: str, level: int) -> dict[str, list[str]]:
    return {c.id: c.entity_ids for c in communities(ui.store(collection), kind=kind, level=level)}


@st.cache_data(show_spinner=False, max_entries=8)
def cached_entities(collection: str, built: str) -> dict[str, Entity]:
    return {e.id: e for e in entities(ui.store(collection))}


@st.cache_data(show_spinner=False, max_entries=16)
def cached_subgraph(collection: str, built: str, community_id: str) -> tuple[list[Entity], list[Relationship]]:
    """One community's entities and relationships, read once for its network and its tables."""
    return community_subgraph(ui.store(collection), community_id)


@st.cache_data(show_spinner="Drawing the network…", max_entries=16)
def cached_network(collection: str, built: str, community_id: str) -> tuple[str, int, int, int]:
    """The network page of one community, its iframe height, and its node and edge counts."""
    s = ui.store(collection)
    ents, rels = cached_subgraph(collection, built, community_id)
    group_of, labels, what = gv.network_groups(ents, children(s, community_id))
    page = gv.community_network_html(ents, rels, sub_community_of=group_of, group_labels=labels, grouping=what,
                                     height_px=NETWORK_HEIGHT, layout=community_layout(s, community_id))  # fmt: skip
    legend_rows = math.ceil(len(set(group_of.values())) / 4) if group_of else 0
    return page, NETWORK_HEIGHT + 24 * legend_rows + 16, len(ents), len(rels)


# -- navigation: the open report is ?community=<id> ----------------------------------------------------------------


# Streamlit keeps the scroll position across reruns: opening a report from a card low in the list would land in the
# middle of the report. This script (no data in it but a counter) scrolls the main area back up, once per opening;
# the counter makes each one a new element, because React does not re-run an unchanged one.
SCROLL_TO_TOP = (
    "<script>/* {n} */(document.querySelector('[data-testid=\"stMain\"]') || document.scrollingElement)"
    ".scrollTo({{top: 0}});</script>"
)


def open_report(community_id: str) -> None:
    st.query_params["community"] = community_id
    st.session_state["reports_scroll_top"] = st.session_state.get("reports_scroll_top_n", 0) + 1
    st.session_state["reports_scroll_top_n"] = st.session_state["reports_scroll_top"]


def close_report() -> None:
    st.query_params.pop("community", None)
    st.session_state.pop("reports_synced", None)
    st.session_state["reports_limit"] = PAGE_SIZE


def on_hierarchy_select() -> None:
    picked = gv.selected_community(st.session_state.get("reports_hierarchy"))
    if picked:
        open_report(picked)


def on_jump() -> None:
    picked = st.session_state.get("reports_jump")
    if picked:
        open_report(picked)
    st.session_state["reports_jump"] = ""  # a picker, not a state: ready for the next jump


# Community ids (e1, s1…) repeat across collections: after a switch in the sidebar, an open report of the old
# collection must not silently become the namesake of the new one. A link that names the collection is kept.
_previous = st.session_state.get("reports_collection")
st.session_state["reports_collection"] = collection
if _previous is not None and _previous != collection and st.query_params.get("collection") != collection:
    close_report()


# -- build --------------------------------------------------------------------------------------------------------


def run_build() -> None:
    """Build (or rebuild) the index with one progress bar per stage, then rerun to show it.

    With an LLM configured, the first click estimates the run (calls, tokens, cost) and a second one confirms it."""
    if ui.settings().has_llm and not cost_confirmed:
        with st.spinner("Estimating the LLM calls and their cost…"):
            st.session_state["reports_estimate"] = estimate_index_cost(store).describe()
        st.rerun()
    bars = {}
    shown: dict[str, int] = {}
    with st.status("Building the index…", expanded=True) as status:
        for stage in STAGES:
            bars[stage] = st.progress(0.0, text=f"{STAGE_LABELS.get(stage, stage)}: waiting")

        def on_progress(step: Progress) -> None:
            bar = bars.get(step.stage)
            if bar is None:
                return
            pct = int(100 * step.fraction)
            if shown.get(step.stage) == pct:  # the reports stage calls once per report: update the bar per percent
                return
            shown[step.stage] = pct
            bar.progress(pct / 100, text=f"{STAGE_LABELS.get(step.stage, step.stage)}: {step.done}/{step.total}")

        try:
            report = build_index(store, settings=ui.settings(), progress=on_progress)
        except Exception as exc:  # the engine keeps the previous index on any failure; say so and stop here
            status.update(label="The index build failed", state="error")
            st.error(f"The index was not built (any previous index is unchanged): {esc(str(exc))}")
            return
        status.update(label=f"Index built in {report.seconds:.1f}s", state="complete")
    st.session_state["reports_built"] = report.to_dict()
    close_report()
    st.rerun()


# The estimate shown in one run confirms a Build click in the next run only.
cost_confirmed = st.session_state.pop("reports_cost_confirmed", False)
estimate = st.session_state.pop("reports_estimate", None)
if estimate:
    st.warning(f"Building with the LLM: {esc(estimate)} Click Build index again to run it.")
    st.session_state["reports_cost_confirmed"] = True
info = index_info(store)
if info is None:
    st.info(
        f"**No index yet: click Build index.** It extracts the entities and relationships of the "
        f"{esc(collection)} collection, finds their communities and writes a report for each "
        f"({'with the configured LLM' if ui.settings().has_llm else 'offline and extractive: no LLM configured'})."
    )
    if st.button("Build index", type="primary", key="reports_build"):
        run_build()
    st.stop()

built = info.built_at.isoformat()
stats = info.stats or {}
reports_used = (info.params or {}).get("reports_used", "")
last = st.session_state.pop("reports_built", None)
if last:
    st.success(f"Index built in {last['seconds']:.1f}s: {last['entities']} entities, {last['relationships']} "
               f"relationships, {last['reports']} reports.")  # fmt: skip
with st.expander(
    f"Index built {info.built_at:%Y-%m-%d %H:%M} · {stats.get('entities', '?')} entities · "
    f"{stats.get('relationships', '?')} relationships · {stats.get('reports', '?')} reports · "
    f"reports {gv.generated_label(reports_used) if reports_used else '?'}"
):
    st.caption(f"Extraction: {esc(info.extraction)}. Rebuilding replaces the index in one transaction; the old "
               "one stays if the build fails. LLM replies are cached: an unchanged corpus costs no new calls.")
    if st.button("Build index", key="reports_rebuild"):
        run_build()


# -- pickers ------------------------------------------------------------------------------------------------------

opened = st.query_params.get("community")
opened_community: Community | None = community(store, opened) if opened else None
if opened_community is not None and st.session_state.get("reports_synced") != opened:
    # Opened from a link, a click or a breadcrumb: show its hierarchy and level in the pickers (before they exist).
    st.session_state["reports_kind"] = opened_community.kind
    st.session_state[f"reports_level_{opened_community.kind}"] = opened_community.level
    st.session_state["reports_synced"] = opened

available = {k: cached_levels(collection, built, k) for k in KINDS}
kinds = [k for k in KINDS if available[k]] or list(KINDS)
if st.session_state.get("reports_kind") not in kinds:
    st.session_state["reports_kind"] = kinds[0]
c1, c2, c3 = st.columns([3, 2, 2])
kind = c1.radio("Hierarchy", kinds, format_func=KINDS.__getitem__, horizontal=True, key="reports_kind",
                on_change=close_report)  # fmt: skip
level_counts = available[kind]
if not level_counts:
    st.warning("This index has no communities of that kind.")
    st.stop()
# One level picker per hierarchy (its own key): one shared picker kept the other hierarchy's labels after a switch.
level_key = f"reports_level_{kind}"
if st.session_state.get(level_key) not in level_counts:
    st.session_state[level_key] = min(level_counts)


def level_label(level: int) -> str:
    what = STRUCTURAL_LEVELS.get(level, f"level-{level} sections") if kind == "structural" else (
        "coarsest" if level == min(level_counts) else "finest" if level == max(level_counts) else "")  # fmt: skip
    n = level_counts[level]
    return f"Level {level} · {n} communit{'y' if n == 1 else 'ies'}" + (f" ({what})" if what else "")


level = c2.selectbox("Level", list(level_counts), format_func=level_label, key=level_key, on_change=close_report)
sort = c3.radio("Sort by", list(SORTS), format_func=SORTS.__getitem__, horizontal=True, key="reports_sort")

rows = cached_hierarchy(collection, built, kind)
row_by_id = {r.id: r for r in rows}
reports = cached_reports(collection, built, kind, level)
members = cached_members(collection, built, kind, level)
all_entities = cached_entities(collection, built)
in_level = sorted({e for ids in members.values() for e in ids if e in all_entities},
                  key=lambda e: (-all_entities[e].degree, all_entities[e].title))  # fmt: skip

f1, f2 = st.columns([3, 2])
query = f1.text_input("Search titles, summaries and findings", key="reports_query", on_change=close_report,
                      placeholder="e.g. 위성, warranty, HDMI")  # fmt: skip
entity_filter = f2.selectbox(
    "Filter by entity", [""] + in_level, key="reports_entity", on_change=close_report,
    format_func=lambda e: "— any entity —" if not e else f"{all_entities[e].title} ({all_entities[e].type}, "
                                                         f"degree {all_entities[e].degree})",
)  # fmt: skip


# -- pieces -------------------------------------------------------------------------------------------------------


def community_label(row: HierarchyRow | Community | Report, limit: int = 60) -> str:
    """``e12 · title`` as escaped markdown (button labels render markdown too)."""
    cid = getattr(row, "id", None) or getattr(row, "community_id", "")
    title = row.title if len(row.title) <= limit else row.title[: limit - 1] + "…"
    return esc(f"{cid} · {title}")


def card(r: Report) -> None:
    with st.container(border=True, key=f"card_{r.community_id}"):
        st.markdown(f"**{esc(r.title)}**")
        st.caption(f"{esc(r.community_id)} · level {r.level} · {r.size} entities · {len(r.children)} sub-communities"
                   f" · {gv.generated_label(r.generated_by)}")  # fmt: skip
        st.markdown(f"**Rating {r.rating:.1f}/10**")
        st.caption(esc(r.rating_explanation))
        summary = r.summary if len(r.summary) <= 220 else r.summary[:219] + "…"
        st.markdown(esc(summary))
        st.button("Open report", key=f"open_{r.community_id}", on_click=open_report, args=(r.community_id,),
                  icon=":material/open_in_full:")  # fmt: skip


def show_cards() -> None:
    shown = gv.sort_reports(gv.filter_reports(reports, query=query, entity_id=entity_filter or None, members=members),
                            sort)  # fmt: skip
    st.caption(f"{len(shown)} of {len(reports)} reports at level {level}"
               + (" match the filters." if len(shown) != len(reports) else "."))  # fmt: skip
    if not shown:
        st.warning("No report at this level matches. Clear the search or the entity filter, or try another level.")
        return
    limit = st.session_state.get("reports_limit", PAGE_SIZE)
    columns = st.columns(2)
    for i, r in enumerate(shown[:limit]):
        with columns[i % 2]:
            card(r)
    if len(shown) > limit:
        st.button(f"Show more ({len(shown) - limit} left)", key="reports_more",
                  on_click=lambda: st.session_state.update(reports_limit=limit + PAGE_SIZE))  # fmt: skip


def show_breadcrumbs(rep: Report) -> None:
    chain = gv.breadcrumbs(rows, rep.community_id)
    with st.container(horizontal=True, gap="small", vertical_alignment="center"):
        st.button(f"All level-{level} reports", key="crumb_all", type="tertiary", on_click=close_report,
                  icon=":material/arrow_back:")  # fmt: skip
        for row in chain[:-1]:
            st.markdown("›")
            st.button(community_label(row, 40), key=f"crumb_{row.id}", type="tertiary", on_click=open_report,
                      args=(row.id,))  # fmt: skip
        st.markdown(f"› **{community_label(rep, 40)}**")


def source_line(doc) -> str:
    meta = doc.metadata
    where = " › ".join(meta.get("heading_path") or [])
    text = " ".join(doc.page_content.split())
    text = text if len(text) <= 160 else text[:159] + "…"
    link = ui.tree_link(meta.get("element_id", doc.id), quote(collection, safe=""))
    line = f"- [`e:{str(meta.get('element_id', doc.id))[:8]}`]({link}) {esc(text)}"
    return line + (f"  \n  *{esc(where)}*" if where else "")


def show_report(rep: Report) -> None:
    """The open report's head: where it sits, its rating and summary, and the way up and down the hierarchy."""
    scroll = st.session_state.pop("reports_scroll_top", 0)
    if scroll:
        st.html(SCROLL_TO_TOP.format(n=int(scroll)), unsafe_allow_javascript=True)
    show_breadcrumbs(rep)
    st.subheader(esc(rep.title))
    kids = [row_by_id[c] for c in rep.children if c in row_by_id] or [r for r in rows if r.parent == rep.community_id]
    st.caption(f"{KIND_NAMES.get(rep.kind, rep.kind)} {esc(rep.community_id)} · level {rep.level} · "
               f"{len(kids)} sub-communities · {gv.generated_label(rep.generated_by)}")  # fmt: skip
    m1, m2, m3 = st.columns(3)
    m1.metric("Rating", f"{rep.rating:.1f} / 10")
    m2.metric("Entities", rep.size)
    m3.metric("Findings", len(rep.findings))
    st.caption(f"Why this rating: {esc(rep.rating_explanation)}")
    st.markdown(esc(rep.summary))
    if rep.generated_by == "extractive":
        st.caption("This report is extractive (no LLM configured): its title, summary and findings are quoted "
                   "and counted from the documents. Set `OPENAI_API_KEY` and rebuild for LLM-written ones.")

    st.markdown("#### Sub-communities")
    if rep.parent and rep.parent in row_by_id:
        st.button(f"Up to the parent: {community_label(row_by_id[rep.parent])}", key=f"parent_{rep.parent}",
                  on_click=open_report, args=(rep.parent,), icon=":material/arrow_upward:")  # fmt: skip
    if not kids:
        st.caption("None: this community is not split further.")
    for row in kids:
        rating = f"rating {row.rating:.1f}" if row.rating is not None else "no report"
        st.button(f"{community_label(row)} · {row.size} entities · {rating}", key=f"child_{row.id}",
                  on_click=open_report, args=(row.id,), icon=":material/subdirectory_arrow_right:")  # fmt: skip


def show_findings(rep: Report) -> None:
    """Each finding with what it cites, resolved: entities, relationships, and source elements (tree links)."""
    st.markdown(f"#### Findings ({len(rep.findings)})")
    cited = load_citations(store, rep)  # one round trip for every finding's ids
    ents = {e.id: e for e in cited.entities}
    rels = {r.id: r for r in cited.relationships}
    docs = {d.id: d for d in cited.elements}
    columns = st.columns(2)
    for i, f in enumerate(rep.findings, start=1):
        with columns[(i - 1) % 2], st.container(border=True, key=f"finding_{i}"):
            st.markdown(f"**{i}. {esc(f.summary)}**")
            st.markdown(esc(f.explanation))
            names = [esc(ents[e].title) for e in f.entity_ids if e in ents]
            links = [f"{esc(rels[r].source)} — {esc(rels[r].target)} (weight {rels[r].weight:g})"
                     for r in f.relationship_ids if r in rels]  # fmt: skip
            if names:
                st.caption("Entities: " + " · ".join(names))
            if links:
                st.caption("Relationships: " + " · ".join(links))
            sources = [docs[e] for e in f.element_ids if e in docs]
            if sources:
                st.markdown("Sources (open highlighted in the Document tree):  \n"
                            + "\n".join(source_line(d) for d in sources))  # fmt: skip
    if cited.missing:
        st.warning(f"{len(cited.missing)} cited id(s) no longer resolve (the documents changed since the index was "
                   "built): rebuild the index.")  # fmt: skip


def show_network(rep: Report) -> None:
    page, height, n_nodes, n_edges = cached_network(collection, built, rep.community_id)
    st.markdown("#### Network")
    grouping = "sub-community" if rep.children else "entity type"
    fixed = (f" Big community: its {MAX_HUBS} top hubs are shown, the other entities are folded into their "
             "sub-communities (squares); open a sub-community for its detail." if n_nodes > COLLAPSE_ABOVE else "")
    st.caption(f"{n_nodes} entities, {n_edges} relationships. Colour = {grouping}, size = degree. Drag to pan, "
               f"scroll to zoom, hover for details.{fixed}")
    if n_nodes:
        st.iframe(page, height=height, alt=f"Network of community {rep.community_id}")


def show_tables(rep: Report) -> None:
    ents, rels = cached_subgraph(collection, built, rep.community_id)
    t1, t2 = st.tabs([f"Entities ({len(ents)})", f"Relationships ({len(rels)})"])
    with t1:
        st.dataframe(pd.DataFrame([{"entity": e.title, "type": e.type, "degree": e.degree, "frequency": e.frequency,
                                    "description": e.description} for e in ents]),
                     hide_index=True, width="stretch")  # fmt: skip
    with t2:
        st.dataframe(pd.DataFrame([{"source": r.source, "target": r.target, "weight": r.weight,
                                    "description": r.description} for r in rels]),
                     hide_index=True, width="stretch")  # fmt: skip


def show_hierarchy(selected: str | None) -> None:
    st.markdown(f"#### {'Entity' if kind == 'entity' else 'Structural'} hierarchy")
    st.caption("Size = entities, colour = rating. Click a community to open its report.")
    fig = gv.hierarchy_figure(rows, selected=selected, height=460)
    st.plotly_chart(fig, key="reports_hierarchy", on_select=on_hierarchy_select, selection_mode="points",
                    config={"displaylogo": False})  # fmt: skip
    # A fallback beside the chart: keyboard users, and tests that cannot click a canvas sector.
    st.selectbox("…or open a community", [""] + [r.id for r in rows], key="reports_jump", on_change=on_jump,
                 format_func=lambda c: "— pick one —" if not c else
                 f"{c} · {row_by_id[c].title[:60]} (level {row_by_id[c].level})")  # fmt: skip


def show_exports() -> None:
    st.markdown(f"#### Export level {level}")
    st.caption(f"All {len(reports)} {kind} reports of level {level} (search and filter not applied).")
    heading = f"{collection}: {KINDS[kind]}, level {level}"
    meta = {"collection": collection, "kind": kind, "level": level, "index_built_at": built}
    with st.container(horizontal=True, gap="small"):
        st.download_button("Markdown", gv.reports_markdown(reports, heading=heading),
                           file_name=gv.export_filename(collection, kind, level, "md"), mime="text/markdown",
                           icon=":material/download:", on_click="ignore", key="export_md")  # fmt: skip
        st.download_button("JSON", gv.reports_json(reports, meta=meta),
                           file_name=gv.export_filename(collection, kind, level, "json"), mime="application/json",
                           icon=":material/download:", on_click="ignore", key="export_json")  # fmt: skip
        st.download_button("CSV", gv.reports_csv(reports),
                           file_name=gv.export_filename(collection, kind, level, "csv"), mime="text/csv",
                           icon=":material/download:", on_click="ignore", key="export_csv")  # fmt: skip


# -- page ---------------------------------------------------------------------------------------------------------

opened_report: Report | None = None
if opened:
    if opened_community is not None:
        same_level = reports if (opened_community.kind, opened_community.level) == (kind, level) else \
            cached_reports(collection, built, opened_community.kind, opened_community.level)  # fmt: skip
        opened_report = next((r for r in same_level if r.community_id == opened), None)
    if opened_report is None:
        st.warning(f"There is no community {esc(opened)} in collection {esc(collection)}'s index.")
        st.button("Back to the list", on_click=close_report)

left, right = st.columns([3, 2], gap="large")
with right:
    show_hierarchy(opened_report.community_id if opened_report else None)
    show_exports()
with left:
    if opened_report is not None:
        show_report(opened_report)
    else:
        show_cards()
if opened_report is not None:
    show_network(opened_report)
    show_findings(opened_report)
    show_tables(opened_report)
