"""Community reports: browse the index's themes by hierarchy and level, open one, drill down, see its graph.

Thin view over ``core.graph`` (reads, build) and ``views`` (the page's sections in ``views.report_parts``, network,
sunburst, search and exports). What the user picked lives in ``st.session_state``; the open report is
``?community=<id>`` in the URL. Report text and entity names are untrusted: never shown as HTML.
"""

from __future__ import annotations

import streamlit as st

from core.graph import Community, Report, community, index_info
from core.graph.indexing.estimate import estimate_index_cost
from core.ingest.jobs import JobError
from core.text import escape_markdown as esc
from views import jobs, ui
from views import report_parts as parts
from views.placeholders import example_terms
from views.reports import filter_reports, generated_label, sort_reports

ui.route_through_app()  # a deep link on a fresh server: drawn through app.py (views/ui.py)

STRUCTURAL_LEVELS = {0: "documents", 1: "sections", 2: "subsections"}
SORTS = {"rating": "Rating", "size": "Size", "title": "Title"}

st.title("Community reports")
st.caption(
    "Themes of the corpus, GraphRAG style: entity communities found by hierarchical Leiden (coarse to fine) and "
    "structural communities from the heading tree, each with a rated report whose findings cite their sources."
)
store = ui.require_documents()
collection = ui.current_collection()

# Community ids (e1, s1…) repeat across collections: after a switch in the sidebar, an open report of the old
# collection must not silently become the namesake of the new one. A link that names the collection is kept.
_previous = st.session_state.get("reports_collection")
st.session_state["reports_collection"] = collection
if _previous is not None and _previous != collection and st.query_params.get("collection") != collection:
    parts.close_report()


# -- build --------------------------------------------------------------------------------------------------------


def run_build() -> None:
    """Start a build (or rebuild) of the index as a background job; the page then shows its progress.

    With an LLM configured, the first click estimates the run (calls, tokens, cost) and a second one confirms it."""
    if ui.settings().has_llm and not cost_confirmed:
        with st.spinner("Estimating the LLM calls and their cost…"):
            st.session_state["reports_estimate"] = estimate_index_cost(store).describe()
        st.rerun()
    try:
        jobs.start_index(collection)
    except JobError as exc:
        st.error(esc(str(exc)))
        return
    parts.close_report()
    st.rerun()


# The estimate shown in one run confirms a Build click in the next run only.
cost_confirmed = st.session_state.pop("reports_cost_confirmed", False)
estimate = st.session_state.pop("reports_estimate", None)
if estimate:
    st.warning(f"Building with the LLM: {esc(estimate)} Click Build index again to run it.")
    st.session_state["reports_cost_confirmed"] = True
info = index_info(store)
building = jobs.index_job_notice(collection, info.built_at if info else None)
if info is None and building:
    st.stop()
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
corpus = parts.corpus_version(store)
parts.show_index_changes(parts.cached_index_changes(collection, built, corpus))
stats = info.stats or {}
reports_used = (info.params or {}).get("reports_used", "")
with st.expander(
    f"Index built {info.built_at:%Y-%m-%d %H:%M} · {stats.get('entities', '?')} entities · "
    f"{stats.get('relationships', '?')} relationships · {stats.get('reports', '?')} reports · "
    f"reports {generated_label(reports_used) if reports_used else '?'}"
):
    st.caption(f"Extraction: {esc(info.extraction)}. Rebuilding runs in the background and replaces the index in "
               "one transaction; the old one stays if the build fails or is cancelled. LLM replies are cached: an "
               "unchanged corpus costs no new calls.")
    if st.button("Build index", key="reports_rebuild", disabled=building):
        run_build()


# -- pickers ------------------------------------------------------------------------------------------------------

opened = st.query_params.get("community")
opened_community: Community | None = community(store, opened) if opened else None
if opened_community is not None and st.session_state.get("reports_synced") != opened:
    # Opened from a link, a click or a breadcrumb: show its hierarchy and level in the pickers (before they exist).
    st.session_state["reports_kind"] = opened_community.kind
    st.session_state[f"reports_level_{opened_community.kind}"] = opened_community.level
    st.session_state["reports_synced"] = opened

available = {k: parts.cached_levels(collection, built, k) for k in parts.KINDS}
kinds = [k for k in parts.KINDS if available[k]] or list(parts.KINDS)
if st.session_state.get("reports_kind") not in kinds:
    st.session_state["reports_kind"] = kinds[0]
c1, c2, c3 = st.columns([3, 2, 2])
kind = c1.radio("Hierarchy", kinds, format_func=parts.KINDS.__getitem__, horizontal=True, key="reports_kind",
                on_change=parts.close_report)  # fmt: skip
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


level = c2.selectbox("Level", list(level_counts), format_func=level_label, key=level_key,
                     on_change=parts.close_report)  # fmt: skip
sort = c3.radio("Sort by", list(SORTS), format_func=SORTS.__getitem__, horizontal=True, key="reports_sort")

level_reports, withheld = parts.cached_reports(collection, built, kind, level, corpus)
view = parts.Level(store, collection, built, kind, level, rows=parts.cached_hierarchy(collection, built, kind),
                   reports=level_reports, members=parts.cached_members(collection, built, kind, level),
                   withheld=withheld)  # fmt: skip
all_entities = parts.cached_entities(collection, built)
in_level = sorted({e for ids in view.members.values() for e in ids if e in all_entities},
                  key=lambda e: (-all_entities[e].degree, all_entities[e].title))  # fmt: skip

f1, f2 = st.columns([3, 2])
query = f1.text_input("Search titles, summaries and findings", key="reports_query", on_change=parts.close_report,
                      placeholder=example_terms((all_entities[e].title for e in in_level), "a word or a phrase"))
entity_filter = f2.selectbox(
    "Filter by entity", [""] + in_level, key="reports_entity", on_change=parts.close_report,
    format_func=lambda e: "— any entity —" if not e else f"{all_entities[e].title} ({all_entities[e].type}, "
                                                         f"degree {all_entities[e].degree})",
)  # fmt: skip


# -- page ---------------------------------------------------------------------------------------------------------

opened_report: Report | None = None
if opened:
    if opened_community is not None:
        same_level, level_withheld = (view.reports, view.withheld) \
            if (opened_community.kind, opened_community.level) == (kind, level) else \
            parts.cached_reports(collection, built, opened_community.kind, opened_community.level, corpus)  # fmt: skip
        opened_report = next((r for r in same_level if r.community_id == opened), None)
        view.withheld.update(level_withheld)
    if opened_report is None:
        st.warning(f"There is no community {esc(opened)} in collection {esc(collection)}'s index.")
        st.button("Back to the list", on_click=parts.close_report)

# A tab's first run that opens a report leaves the hierarchy chart for the rerun the network's frame asks for once it
# has loaded. The tab's first plotly chart holds the browser's main thread for about a second (plotly's module, then
# the sunburst): drawn in the same run, it gets there before the findings and before the network's frame is created
# (bench/bench_report_open.py). The columns keep their places on the page, so the chart is written last.
first_run = parts.first_run_in_tab()
chart_waits = False
left, right = st.columns([3, 2], gap="large")
with left:
    if opened_report is not None:
        parts.show_report(view, opened_report)
    else:
        matching = filter_reports(view.reports, query=query, entity_id=entity_filter or None, members=view.members)
        parts.show_cards(view, sort_reports(matching, sort))
if opened_report is not None:
    chart_waits = parts.show_network(view, opened_report, rerun_when_loaded=first_run)
    parts.show_findings(view, opened_report)
    parts.show_tables(view, opened_report)
with right:
    parts.show_hierarchy(view, opened_report.community_id if opened_report else None, chart=not chart_waits)
    parts.show_exports(view)
