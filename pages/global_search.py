"""Global search: a question answered from the community reports of one level (GraphRAG's map-reduce).

Thin view over ``core.graph.search.global_search``. Citations link to the Reports page through ``?community=<id>``.
Answers and report text are untrusted: they are escaped (``escape_markdown``) or shown in dataframes.
"""

from __future__ import annotations

from urllib.parse import urlencode

import pandas as pd
import streamlit as st

from core.graph import GlobalAnswer, GlobalSearchOptions, global_search, index_info, levels, load_reports
from core.graph.search.global_search import DEFAULT_LEVEL
from core.progress import Progress
from core.retrieval import QuestionError, validate_question
from core.text import escape_markdown as esc
from views import ui
from views.answers import cited_answer_markdown
from views.reports import generated_label

ui.route_through_app()  # a deep link on a fresh server: drawn through app.py (views/ui.py)

KINDS = {"entity": "Entity communities", "structural": "Structural (document › section)"}

st.title("Global search")
st.caption(
    "Questions about the whole corpus (its themes, what it covers, how things compare) answered from the "
    "community reports of one level: each batch of reports gives scored points (map), the best points are "
    "combined into one answer citing its reports (reduce)."
)
store = ui.require_documents()
collection = ui.current_collection()
info = index_info(store)
if info is None:
    st.info("**No index yet.** Global search reads community reports: build the index on the **Community reports** "
            "page (click **Build index**), then come back.")  # fmt: skip
    st.page_link("pages/reports.py", label="Go to Community reports", icon=":material/hub:")
    st.stop()


def report_url(community_id: str) -> str:
    """The Reports page with ``community_id`` open (works as a link in a new tab: the URL carries it all)."""
    return "/reports?" + urlencode({"collection": collection, "community": community_id})


# -- inputs -------------------------------------------------------------------------------------------------------

counts = {k: levels(store, k) for k in KINDS}
kinds = [k for k in KINDS if counts[k]] or list(KINDS)
# A link's ?q= (with ?kind= and ?level=) asks its question once; each question asked is written back.
linked_question, linked_kind, linked_level = ui.from_link("q"), ui.from_link("kind"), ui.from_link("level")
if linked_kind in kinds:
    st.session_state["global_kind"] = linked_kind
if linked_level is not None and linked_level.isdigit():
    st.session_state["global_level"] = int(linked_level)
if linked_question:
    st.session_state["global_question"] = linked_question
c1, c2 = st.columns([3, 2])
kind = c1.radio("Hierarchy", kinds, format_func=KINDS.__getitem__, horizontal=True, key="global_kind")
level_counts = counts.get(kind) or {0: 0}
if st.session_state.get("global_level") not in level_counts:
    st.session_state["global_level"] = min(DEFAULT_LEVEL, max(level_counts))
level = c2.selectbox(
    "Level", list(level_counts), key="global_level",
    format_func=lambda lv: f"Level {lv} · {level_counts[lv]} communit{'y' if level_counts[lv] == 1 else 'ies'}"
                           + (" + coarser leaves" if lv > min(level_counts) else ""),
    help="Coarse levels give broad answers from few reports; fine levels read more, smaller reports. A level also "
         "reads the coarser communities that have no sub-communities, so every entity is covered once.",
)  # fmt: skip
question = st.text_area("Question", key="global_question", height=80,
                        placeholder="e.g. What are the main themes of this collection?")  # fmt: skip
ask = st.button("Search", type="primary", key="global_ask")
if not ui.settings().has_llm:
    st.caption("No LLM configured: the answer will be extractive (the community findings whose evidence best answers "
               "the question, "
               "quoted with their sources). Set `OPENAI_API_KEY` for map-reduce with a model.")  # fmt: skip


# -- run ----------------------------------------------------------------------------------------------------------

asked: str | None = None
if ask or linked_question:
    try:
        asked = validate_question(question)  # the same rules and limit as Compare, shown as a warning
    except QuestionError as exc:
        st.warning(str(exc))  # our own words (validate_question): no typed text in them
if asked is not None:
    ui.keep_in_url("q", question)
    ui.keep_in_url("kind", kind)
    ui.keep_in_url("level", str(level))
    bar = st.progress(0.0, text="Map: reading the reports…")

    def on_progress(step: Progress) -> None:
        if step.stage == "map":
            batches = "batch" if step.total == 1 else "batches"
            bar.progress(step.fraction, text=f"Map: {step.done}/{step.total} {batches} scored")
        elif step.stage == "reduce":
            bar.progress(1.0, text="Reduce: composing the answer…" if step.done < step.total else "Done")

    try:
        answer = global_search(store, asked, GlobalSearchOptions(level=level, kind=kind), settings=ui.settings(),
                               progress=on_progress)  # fmt: skip
    except Exception as exc:  # a model or network failure: say what happened, keep the page usable
        bar.empty()
        st.error(f"The search failed: {esc(str(exc))}")
    else:
        bar.empty()
        st.session_state["global_answer"] = (collection, answer)

stored = st.session_state.get("global_answer")
answer: GlobalAnswer | None = stored[1] if stored and stored[0] == collection else None
if answer is None:
    st.stop()


# -- answer -------------------------------------------------------------------------------------------------------

by_id = {r.community_id: r for r in load_reports(store, level=None, kind=answer.kind)}
st.subheader("Answer")
st.caption(f"Question: {esc(answer.question)}")
st.caption(f"Answered by: {generated_label(answer.generated_by)} · {KINDS.get(answer.kind, answer.kind)}, "
           f"level {answer.level} · {answer.reports_considered} reports read · {answer.seconds:.1f}s")  # fmt: skip
if answer.notice:
    st.warning(esc(answer.notice), icon=":material/info:")
with st.container(border=True):
    st.markdown(cited_answer_markdown(answer.answer, by_id, report_url))
m1, m2, m3, m4 = st.columns(4)
m1.metric("Reports read", answer.reports_considered)
m2.metric("Reports cited", len(answer.report_ids))
m3.metric("Points kept", len(answer.points))
m4.metric("LLM calls", f"{answer.llm_calls} ({answer.cached_calls} cached)" if answer.generated_by == "llm" else "0")

if answer.report_ids:
    st.markdown("#### Cited reports")
    for rid in answer.report_ids:
        r = by_id.get(rid)
        title = r.title if r else "(not in the index any more)"
        title = title if len(title) <= 90 else title[:89] + "…"
        st.page_link("pages/reports.py", label=esc(f"{rid} · {title}"), icon=":material/description:",
                     query_params={"collection": collection, "community": rid})  # fmt: skip

if answer.points:
    st.markdown("#### Contributing reports")
    st.caption("Every report that gave a point the answer kept, with its best point's score (0–100).")
    best: dict[str, dict] = {}
    for p in answer.points:
        for rid in p.report_ids:
            row = best.setdefault(rid, {"score": p.score, "points": 0})
            row["score"] = max(row["score"], p.score)
            row["points"] += 1
    frame = pd.DataFrame([
        {"report": report_url(rid), "title": by_id[rid].title if rid in by_id else "", "score": v["score"],
         "points": v["points"], "rating": by_id[rid].rating if rid in by_id else None,
         "level": by_id[rid].level if rid in by_id else None}
        for rid, v in sorted(best.items(), key=lambda kv: -kv[1]["score"])
    ])  # fmt: skip
    st.dataframe(frame, hide_index=True, width="stretch", column_config={
        "report": st.column_config.LinkColumn("report", display_text=r"community=(.+)$",
                                              help="Open the report on the Community reports page"),
        "score": st.column_config.ProgressColumn("score", min_value=0, max_value=100, format="%d"),
    })  # fmt: skip
    with st.expander("The point" if len(answer.points) == 1 else f"The {len(answer.points)} points, best first"):
        for p in answer.points:
            st.markdown(f"- **{p.score}** · {esc(p.description)}")
