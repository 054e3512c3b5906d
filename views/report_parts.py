"""The parts of the Community reports page: cached reads, navigation, and each section of the page.

What the user picked lives in ``st.session_state``; the open report is ``?community=<id>`` in the URL, so
breadcrumbs, links from Global search and reloads all land on it. Report text and entity names are untrusted: they
are shown through ``escape_markdown``, in dataframes, or in the network iframe (escaped by its template); never as
HTML. Reads are cached per index build (``built``), so a rebuild invalidates them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from urllib.parse import quote

import pandas as pd
import streamlit as st

from core.elements import Element
from core.graph import (
    Community,
    DocumentChange,
    Entity,
    HierarchyRow,
    Relationship,
    Report,
    children,
    communities,
    community_layout,
    community_subgraph,
    current_reports,
    entities,
    hierarchy,
    index_changes,
    levels,
    load_citations,
    load_reports,
)
from core.graph.communities.layout import COLLAPSE_ABOVE, MAX_HUBS
from core.store import ElementStore
from core.text import escape_markdown as esc
from views import hierarchy as hv
from views import network, ui
from views import reports as rv
from views.frames import sandboxed_page

KINDS = {"entity": "Entity communities (Leiden levels)", "structural": "Structural (document › section)"}
KIND_NAMES = {"entity": "Entity community", "structural": "Structural community"}
PAGE_SIZE = 24
NETWORK_HEIGHT = 520
CHART_HEIGHT = 460
#: Set by a browser tab's first run of the page (Streamlit's session state lives as long as the tab).
TAB_STARTED = "reports_tab_started"


# -- cached reads ---------------------------------------------------------------------------------------------------


@st.cache_data(show_spinner=False, max_entries=32)
def cached_levels(collection: str, built: str, kind: str) -> dict[int, int]:
    return levels(ui.store(collection), kind)


@st.cache_data(show_spinner=False, max_entries=32)
def cached_hierarchy(collection: str, built: str, kind: str) -> list[HierarchyRow]:
    return hierarchy(ui.store(collection), kind)


@st.cache_data(show_spinner=False, max_entries=64)
def cached_reports(collection: str, built: str, kind: str, level: int, corpus: int) -> tuple[list[Report],
                                                                                            dict[str, int]]:
    """The level's reports as current mode shows them (``corpus`` is the collection's write count: a changed
    document refreshes them), and how many findings each withholds because their sources changed."""
    store = ui.store(collection)
    shown = current_reports(store, load_reports(store, level=level, kind=kind))
    return [c.report for c in shown], {c.report.community_id: c.withheld for c in shown if c.withheld}


def corpus_version(store: ElementStore) -> int:
    """The collection's count of document writes: it moves when any document is ingested, changed or removed."""
    return store.read.heading_state().version


@st.cache_data(show_spinner=False, max_entries=16)
def cached_index_changes(collection: str, built: str, corpus: int) -> list[DocumentChange]:
    return index_changes(ui.store(collection))


def show_index_changes(changes: list[DocumentChange]) -> None:
    """Which documents changed since the index was built, and what that means for the reports shown."""
    if not changes:
        return
    def what(c: DocumentChange) -> str:
        if c.purged:
            return f"a purged document ({esc(c.document_id[:12])})"
        if c.current is None:
            return f"{esc(c.filename)} (retired)"
        return f"{esc(c.filename)} (new, v{c.current})" if c.indexed is None else \
            f"{esc(c.filename)} (v{c.indexed} → v{c.current})"
    listed = ", ".join(what(c) for c in changes[:6]) + (f" and {len(changes) - 6} more" if len(changes) > 6 else "")
    purged = (" The reports of communities that drew on a purged document were deleted with it."
              if any(c.purged for c in changes) else "")
    st.warning(f"**{len(changes)} document{'s' if len(changes) != 1 else ''} changed since this index was built:** "
               f"{listed}. Findings whose sources changed are withheld (with their report's summary) until you "
               f"rebuild the index.{purged}", icon=":material/update:")


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
    group_of, labels, what = network.network_groups(ents, children(s, community_id))
    page = network.community_network_html(ents, rels, sub_community_of=group_of, group_labels=labels,
                                          grouping=what, height_px=NETWORK_HEIGHT,
                                          layout=community_layout(s, community_id))  # fmt: skip
    legend_rows = math.ceil(len(set(group_of.values())) / 4) if group_of else 0
    return page, NETWORK_HEIGHT + 24 * legend_rows + 16, len(ents), len(rels)


# -- navigation: the open report is ?community=<id> ------------------------------------------------------------------

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
    picked = hv.selected_community(st.session_state.get("reports_hierarchy"))
    if picked:
        open_report(picked)


def on_jump() -> None:
    picked = st.session_state.get("reports_jump")
    if picked:
        open_report(picked)
    st.session_state["reports_jump"] = ""  # a picker, not a state: ready for the next jump


# -- sections -------------------------------------------------------------------------------------------------------


@dataclass
class Level:
    """What the page shows: one level of one hierarchy of a collection's index (as of its build time)."""

    store: ElementStore
    collection: str
    built: str
    kind: str
    level: int
    rows: list[HierarchyRow]
    reports: list[Report]
    members: dict[str, list[str]]
    withheld: dict[str, int] = field(default_factory=dict)  # community id -> findings withheld (sources changed)

    @property
    def row_by_id(self) -> dict[str, HierarchyRow]:
        return {r.id: r for r in self.rows}


def community_label(row: HierarchyRow | Community | Report, limit: int = 60) -> str:
    """``e12 · title`` as escaped markdown (button labels render markdown too)."""
    cid = getattr(row, "id", None) or getattr(row, "community_id", "")
    title = row.title if len(row.title) <= limit else row.title[: limit - 1] + "…"
    return esc(f"{cid} · {title}")


WITHHELD = ("Summary withheld: {n} finding{s} of this report cite{v} text that changed since the index was built. "
            "Rebuild the index to bring it up to date.")


def withheld_note(n: int) -> str:
    return WITHHELD.format(n=n, s="s" if n != 1 else "", v="" if n != 1 else "s")


def card(r: Report, withheld: int = 0) -> None:
    with st.container(border=True, key=f"card_{r.community_id}"):
        st.markdown(f"**{esc(r.title)}**")
        st.caption(f"{esc(r.community_id)} · level {r.level} · {r.size} entities · {len(r.children)} sub-communities"
                   f" · {rv.generated_label(r.generated_by)}")  # fmt: skip
        st.markdown(f"**Rating {r.rating:.1f}/10**")
        st.caption(esc(r.rating_explanation))
        summary = r.summary if len(r.summary) <= 220 else r.summary[:219] + "…"
        st.markdown(esc(summary)) if not withheld else st.caption(withheld_note(withheld))
        st.button("Open report", key=f"open_{r.community_id}", on_click=open_report, args=(r.community_id,),
                  icon=":material/open_in_full:")  # fmt: skip


def show_cards(view: Level, shown: list[Report]) -> None:
    """The cards of ``shown`` (the level's reports after search, filter and sort), a page at a time."""
    st.caption(f"{len(shown)} of {len(view.reports)} reports at level {view.level}"
               + (" match the filters." if len(shown) != len(view.reports) else "."))  # fmt: skip
    if not shown:
        st.warning("No report at this level matches. Clear the search or the entity filter, or try another level.")
        return
    limit = st.session_state.get("reports_limit", PAGE_SIZE)
    columns = st.columns(2)
    for i, r in enumerate(shown[:limit]):
        with columns[i % 2]:
            card(r, view.withheld.get(r.community_id, 0))
    if len(shown) > limit:
        st.button(f"Show more ({len(shown) - limit} left)", key="reports_more",
                  on_click=lambda: st.session_state.update(reports_limit=limit + PAGE_SIZE))  # fmt: skip


def show_breadcrumbs(view: Level, rep: Report) -> None:
    chain = hv.breadcrumbs(view.rows, rep.community_id)
    with st.container(horizontal=True, gap="small", vertical_alignment="center"):
        st.button(f"All level-{view.level} reports", key="crumb_all", type="tertiary", on_click=close_report,
                  icon=":material/arrow_back:")  # fmt: skip
        for row in chain[:-1]:
            st.markdown("›")
            st.button(community_label(row, 40), key=f"crumb_{row.id}", type="tertiary", on_click=open_report,
                      args=(row.id,))  # fmt: skip
        st.markdown(f"› **{community_label(rep, 40)}**")


def show_report(view: Level, rep: Report) -> None:
    """The open report's head: where it sits, its rating and summary, and the way up and down the hierarchy."""
    scroll = st.session_state.pop("reports_scroll_top", 0)
    if scroll:
        st.html(SCROLL_TO_TOP.format(n=int(scroll)), unsafe_allow_javascript=True)
    show_breadcrumbs(view, rep)
    st.subheader(esc(rep.title))
    row_by_id = view.row_by_id
    kids = [row_by_id[c] for c in rep.children if c in row_by_id] or [
        r for r in view.rows if r.parent == rep.community_id
    ]
    st.caption(f"{KIND_NAMES.get(rep.kind, rep.kind)} {esc(rep.community_id)} · level {rep.level} · "
               f"{len(kids)} sub-communities · {rv.generated_label(rep.generated_by)}")  # fmt: skip
    m1, m2, m3 = st.columns(3)
    m1.metric("Rating", f"{rep.rating:.1f} / 10")
    m2.metric("Entities", rep.size)
    m3.metric("Findings", len(rep.findings))
    st.caption(f"Why this rating: {esc(rep.rating_explanation)}")
    withheld = view.withheld.get(rep.community_id, 0)
    st.markdown(esc(rep.summary)) if not withheld else st.warning(withheld_note(withheld), icon=":material/update:")
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


def source_line(element: Element, collection: str) -> str:
    """A cited element as a markdown list item linking to the Document tree, with its heading path."""
    where = " › ".join(element.heading_path)
    text = ui.source_text(element.text)
    link = ui.tree_link(element.element_id, quote(collection, safe=""))
    line = f"- [`e:{element.element_id[:8]}`]({link}) {esc(text)}"
    return line + (f"  \n  *{esc(where)}*" if where else "")


def show_findings(view: Level, rep: Report) -> None:
    """Each finding with what it cites, resolved: entities, relationships, and source elements (tree links)."""
    st.markdown(f"#### Findings ({len(rep.findings)})")
    cited = load_citations(view.store, rep)  # one round trip for every finding's ids
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
                            + "\n".join(source_line(d, view.collection) for d in sources))  # fmt: skip
    if cited.missing:
        st.warning(f"{len(cited.missing)} cited id(s) no longer resolve (the documents changed since the index was "
                   "built): rebuild the index.")  # fmt: skip


def first_run_in_tab() -> bool:
    """Whether this is the browser tab's first run of the Reports page."""
    first = TAB_STARTED not in st.session_state
    st.session_state[TAB_STARTED] = True
    return first


def show_network(view: Level, rep: Report, *, rerun_when_loaded: bool = False) -> bool:
    """The open report's network; with ``rerun_when_loaded``, the page reruns once the frame has loaded it.

    Returns whether that rerun is coming (there is a frame to load)."""
    page, height, n_nodes, n_edges = cached_network(view.collection, view.built, rep.community_id)
    st.markdown("#### Network")
    grouping = "sub-community" if rep.children else "entity type"
    fixed = (f" Big community: its {MAX_HUBS} top hubs are shown, the other entities are folded into their "
             "sub-communities (squares); open a sub-community for its detail." if n_nodes > COLLAPSE_ABOVE else "")
    st.caption(f"{n_nodes} entities, {n_edges} relationships. Colour = {grouping}, size = degree. Drag to pan, "
               f"scroll to zoom, hover for details.{fixed}")
    if n_nodes:
        sandboxed_page(page, height=height, title=f"Network of community {rep.community_id}",
                       key="report_network",  # one frame: opening another report swaps its page
                       rerun_when_loaded=rerun_when_loaded)
    return bool(n_nodes) and rerun_when_loaded


def show_tables(view: Level, rep: Report) -> None:
    ents, rels = cached_subgraph(view.collection, view.built, rep.community_id)
    # Only the open tab's table is built and sent (a big community's relationships are megabytes of text, sent on every
    # run of the page); switching tabs reruns the page.
    t1, t2 = st.tabs([f"Entities ({len(ents)})", f"Relationships ({len(rels)})"], key="report_tables",
                     on_change="rerun")  # fmt: skip
    if t1.open:
        t1.dataframe(pd.DataFrame([{"entity": e.title, "type": e.type, "degree": e.degree, "frequency": e.frequency,
                                    "description": e.description} for e in ents]),
                     hide_index=True, width="stretch")  # fmt: skip
    if t2.open:
        t2.dataframe(pd.DataFrame([{"source": r.source, "target": r.target, "weight": r.weight,
                                    "description": r.description} for r in rels]),
                     hide_index=True, width="stretch")  # fmt: skip


def show_hierarchy(view: Level, selected: str | None, *, chart: bool = True) -> None:
    """The hierarchy chart (or, with ``chart`` False, its place kept empty for the next run) and the jump box."""
    st.markdown(f"#### {'Entity' if view.kind == 'entity' else 'Structural'} hierarchy")
    st.caption("Size = entities, colour = rating. Click a community to open its report.")
    if chart:
        fig = hv.hierarchy_figure(view.rows, selected=selected, height=CHART_HEIGHT)
        st.plotly_chart(fig, key="reports_hierarchy", on_select=on_hierarchy_select, selection_mode="points",
                        config={"displaylogo": False})  # fmt: skip
    else:  # the same height, so that nothing moves when the chart comes
        st.container(height=CHART_HEIGHT, border=False).caption("The chart is drawn once the network is on screen…")
    # A fallback beside the chart: keyboard users, and tests that cannot click a canvas sector.
    row_by_id = view.row_by_id
    st.selectbox("…or open a community", [""] + [r.id for r in view.rows], key="reports_jump", on_change=on_jump,
                 format_func=lambda c: "— pick one —" if not c else
                 f"{c} · {row_by_id[c].title[:60]} (level {row_by_id[c].level})")  # fmt: skip


def show_exports(view: Level) -> None:
    collection, kind, level, reports = view.collection, view.kind, view.level, view.reports
    st.markdown(f"#### Export level {level}")
    st.caption(f"All {len(reports)} {kind} reports of level {level} (search and filter not applied).")
    heading = f"{collection}: {KINDS[kind]}, level {level}"
    meta = {"collection": collection, "kind": kind, "level": level, "index_built_at": view.built}
    files = (("Markdown", rv.reports_markdown(reports, heading=heading), "md", "text/markdown"),
             ("JSON", rv.reports_json(reports, meta=meta), "json", "application/json"),
             ("CSV", rv.reports_csv(reports), "csv", "text/csv"))  # fmt: skip
    with st.container(horizontal=True, gap="small"):
        for label, data, ext, mime in files:
            st.download_button(label, data, file_name=rv.export_filename(collection, kind, level, ext), mime=mime,
                               icon=":material/download:", on_click="ignore", key=f"export_{ext}")  # fmt: skip
