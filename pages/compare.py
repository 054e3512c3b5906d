"""Compare: one question answered from the plain and from the hierarchical context of the same hits.

Thin view over ``core.retrieval`` and ``core.answering``. Document text is untrusted: it is only ever shown
escaped (``escape_markdown``), as code, or in a dataframe; never as HTML.
"""

from __future__ import annotations

import json

import plotly.graph_objects as go
import streamlit as st

from core.answering import Comparison, ModeResult, answer_concurrently, default_answerer
from core.partial_tree import escape_markdown
from core.retrieval import MODES, QuestionError, Retrieval, Scope, retrieve, validate_question
from core.store import StoreError
from pages import ui

TITLES = {"plain": "Plain", "hierarchical": "Hierarchical"}
BLURBS = {
    "plain": "The hit elements as they are.",
    "hierarchical": "The same hits, each with its root-to-leaf headings, merged into partial trees.",
}
STAGES = ("embed_query", "vector_search", "expand", "generate")
SCOPE_KINDS = ("Whole collection", "One document", "One heading subtree")
MAX_UI_K = 20

st.title("Compare: plain vs hierarchical")
st.caption(
    "The same question, the same vector hits, two contexts: the hits alone, or the hits with their heading paths. "
    "See what each answer could know."
)
store = ui.require_documents()
collection = ui.current_collection()
ui.warm_embedder(ui.settings().embeddings)  # once per process, so the first question's latency is not a model load


# -- inputs -------------------------------------------------------------------------------------------------


def _use_example() -> None:
    picked = st.session_state.get("compare_example")
    if picked:
        st.session_state["compare_question"] = picked


examples = ui.example_questions()
if examples:
    st.selectbox("Example questions", [""] + examples, key="compare_example", on_change=_use_example,
                 format_func=lambda q: q or "— pick an example from data/questions.json —")

scope = Scope.whole()
kind = st.radio("Search in", SCOPE_KINDS, horizontal=True, key="compare_scope_kind",
                help="Results never come from outside the scope: the filter is part of the SQL search.")
if kind != SCOPE_KINDS[0]:
    documents = store.documents()
    labels = {d.document_id: f"{d.title or d.filename} · {d.filename}" for d in documents}
    doc_id = st.selectbox("Document", list(labels), format_func=labels.__getitem__, key="compare_scope_doc")
    if kind == SCOPE_KINDS[1]:
        scope = Scope.document(doc_id, labels[doc_id])
    else:
        headings = [e for e in store.elements(doc_id) if e.metadata.get("category") == "Title"]
        if not headings:
            st.warning("This document has no headings; searching the whole document instead.")
            scope = Scope.document(doc_id, labels[doc_id])
        else:
            by_id = {h.metadata["element_id"]: h for h in headings}

            def _heading_label(element_id: str) -> str:
                h = by_id[element_id]
                return "\u2003" * int(h.metadata.get("category_depth") or 0) + h.page_content

            heading_id = st.selectbox("Heading", list(by_id), format_func=_heading_label, key="compare_scope_heading")
            path = [*by_id[heading_id].metadata.get("heading_path", []), by_id[heading_id].page_content]
            scope = Scope.subtree(heading_id, " › ".join(path))

with st.form("compare_form"):
    question = st.text_area("Question", key="compare_question", height=80,
                            placeholder="e.g. Nova 24FL에는 HDMI 단자가 몇 개 있나요?")
    left, right = st.columns(2)
    k = left.slider("k (vector hits)", 1, MAX_UI_K, 4, key="compare_k")
    budget = right.number_input(
        "Heading hits bring their children (token budget, 0 = off)", min_value=0, max_value=4000, value=0, step=100,
        key="compare_budget",
    )
    submitted = st.form_submit_button("Ask", type="primary")
st.caption(f"Collection **{escape_markdown(collection)}** (change it in the sidebar) · scope: "
           f"{escape_markdown(scope.label)}")


# -- one column ---------------------------------------------------------------------------------------------


def latency_chart(result: ModeResult, x_max: float) -> go.Figure:
    values = [result.timings.get(stage, 0.0) for stage in STAGES]
    fig = go.Figure(go.Bar(x=values, y=list(STAGES), orientation="h", text=[f"{v:.1f} ms" for v in values],
                           textposition="auto", marker_color=["#8c959f", "#1f6feb", "#1a7f37", "#bf8700"]))
    fig.update_layout(height=180, margin={"l": 0, "r": 10, "t": 24, "b": 0},
                      title="Latency per stage (ms; embedding and search are shared)",
                      xaxis={"range": [0, x_max * 1.05 or 1]}, yaxis={"autorange": "reversed"}, showlegend=False)
    return fig


def show_details(result: ModeResult, plain_tokens: int, x_max: float) -> None:
    if result.answer.error:
        st.error(result.answer.error)
    st.caption(f"Answered by: {escape_markdown(result.answer.answerer)}")
    a, b = st.columns(2)
    delta = None if result.mode == "plain" else f"{result.context.tokens - plain_tokens:+d} vs plain"
    a.metric("Context tokens", result.context.tokens, delta=delta, delta_color="off")
    b.metric("Total latency", f"{sum(result.timings.get(s, 0.0) for s in STAGES):.0f} ms")
    st.plotly_chart(latency_chart(result, x_max), key=f"latency_{result.mode}", config={"displayModeBar": False})
    with st.expander(f"Context ({result.context.tokens} tokens, {len(result.context.elements)} elements)"):
        rendered, raw = st.tabs(["Rendered", "Markdown sent to the model"])
        with rendered:
            st.markdown(result.context.display or "*empty*")
        with raw:
            st.code(result.context.text, language="markdown")
    st.markdown("**Sources** (open in the Document tree)")
    for source in result.sources:
        where = " › ".join(source.heading_path)
        text = source.text if len(source.text) <= 160 else source.text[:159] + "…"
        tag = "cited" if source.cited else "hit"
        line = f"- {tag} [`e:{source.short_id}`]({ui.tree_link(source.element_id, collection)}) {escape_markdown(text)}"
        if where:
            line += f"  \n  *{escape_markdown(where)}*"
        st.markdown(line)


def answer_markdown(text: str) -> str:
    """An answer as literal text; its line breaks stay line breaks."""
    return escape_markdown(text).replace("\n", "  \n")


def run_columns(retrieval: Retrieval | None, comparison: Comparison | None) -> Comparison | None:
    """Stream fresh answers (``retrieval``) or show stored ones (``comparison``), plain | hierarchical."""
    answerer = default_answerer() if retrieval is not None else None
    columns = st.columns(2, gap="large")
    results: dict[str, ModeResult] = {}
    answer_boxes = {}
    for mode, column in zip(MODES, columns, strict=True):
        with column:
            st.subheader(TITLES[mode])
            st.caption(BLURBS[mode])
            with st.container(border=True):
                answer_boxes[mode] = st.empty()
            if retrieval is None:
                results[mode] = comparison.results[mode]
                answer_boxes[mode].markdown(answer_markdown(results[mode].answer.text) or "*no answer*")
            else:
                answer_boxes[mode].markdown("*Answering…*")
    if retrieval is not None:
        # Both columns are answered at once; each call ends by its own deadline (HKE_LLM_TIMEOUT).
        texts = dict.fromkeys(MODES, "")
        for event in answer_concurrently(retrieval, answerer):
            if event.result is not None:
                results[event.mode] = event.result
                if not event.result.answer.text:
                    answer_boxes[event.mode].markdown("*no answer*")
            else:
                texts[event.mode] += event.text
                answer_boxes[event.mode].markdown(answer_markdown(texts[event.mode]))
        comparison = Comparison.build(collection, retrieval, results, answerer.label)
    x_max = max([r.timings.get(stage, 0.0) for r in results.values() for stage in STAGES] or [1.0])
    plain_tokens = results["plain"].context.tokens
    for mode, column in zip(MODES, columns, strict=True):
        with column:
            show_details(results[mode], plain_tokens, x_max)
    return comparison


def show_hierarchy_added(comparison: Comparison) -> None:
    st.subheader("What the hierarchy added")
    plain, hier = comparison.results["plain"].context, comparison.results["hierarchical"].context
    st.caption(
        f"{len(comparison.hierarchy_added)} elements and {hier.tokens - plain.tokens:+d} tokens that only the "
        "hierarchical context has: the headings and parent list items above the hits, which say which document, "
        "product or section each hit belongs to."
    )
    rows = [
        {"hit": h.text, "heading path (only in the hierarchical context)": " › ".join(h.path) or "(top level)",
         "element": h.short_id}
        for h in comparison.hits
    ]
    st.dataframe(rows, hide_index=True, width="stretch")
    with st.expander("Every added element"):
        st.dataframe(
            [{"category": e.category, "text": e.text, "heading path": " › ".join(e.path), "element": e.element_id}
             for e in comparison.hierarchy_added],
            hide_index=True, width="stretch",
        )


# -- run ------------------------------------------------------------------------------------------------------

fresh: Retrieval | None = None
if submitted:
    try:
        asked = validate_question(question)  # the rules of core.retrieval, shown as a warning, never a traceback
    except QuestionError as exc:
        asked = None
        st.warning(str(exc))
    if asked is not None:
        try:
            with st.spinner("Searching…"):
                fresh = retrieve(store, asked, k=int(k), scope=scope, children_budget=int(budget))
        except (ValueError, StoreError) as exc:
            st.error(f"The search failed: {exc}")

comparison: Comparison | None = st.session_state.get("comparison")
if comparison is not None and comparison.collection != collection:
    comparison = None  # a comparison from another collection would link to elements that are not here

if fresh is not None and fresh.hits:
    comparison = run_columns(fresh, None)
    st.session_state["comparison"] = comparison
elif fresh is not None:
    comparison = None
    st.info("Nothing found in this scope.")
elif comparison is not None:
    st.caption(f"Last question: {escape_markdown(comparison.question)}")
    run_columns(None, comparison)
elif not submitted:
    st.info("Ask a question to see both answers side by side.")

if comparison is not None and {"plain", "hierarchical"} <= set(comparison.results):
    show_hierarchy_added(comparison)
    st.download_button(
        "Download the comparison (JSON)",
        data=json.dumps(comparison.to_dict(), ensure_ascii=False, indent=2),
        file_name="comparison.json",
        mime="application/json",
    )
