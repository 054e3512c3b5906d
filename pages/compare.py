"""Compare: one question answered from the plain and from the hierarchical context of the same hits.

Thin view over ``core.retrieval`` (the one retrieval pipeline, as ``ask`` and evaluation's ``default`` mode run
it) and ``core.answering``. Document text is untrusted: it is only ever shown escaped (``escape_markdown``), as
code, or in a dataframe; never as HTML. Long contexts are shown cut, with the whole as a download.
"""

from __future__ import annotations

import json

import streamlit as st

from core.answering import Comparison, ModeResult, answer_concurrently, default_answerer
from core.answering.changes import ChangeAnswer, answer_change_question
from core.retrieval import (
    DEFAULT_CHILDREN_BUDGET,
    MODES,
    QuestionError,
    Retrieval,
    RetrievalRequest,
    compare_choices,
    describe_choices,
    retrieve,
    validate_question,
)
from core.store import StoreError
from core.text import escape_markdown
from views import charts, ui
from views.comparison import show_hierarchy_added, show_search, show_table
from views.versions import as_of_picker, show_change_answer, versions_read_markdown

TITLES = {"plain": "Plain", "hierarchical": "Hierarchical"}
BLURBS = {
    "plain": "The hit elements as they are.",
    "hierarchical": "The same hits with their root-to-leaf headings (and a heading hit's section), as partial trees.",
}
STAGES = ("embed_query", "search", "expand", "generate")
DISPLAY_CHARS = 20_000  # a context longer than this is shown cut (a whole 5 MB one froze the browser)
MAX_UI_K = 20

st.title("Compare: plain vs hierarchical")
st.caption("The same question, the same hits, two contexts: the hits alone, or the hits with their heading paths "
           "and sections. See what each answer could know.")
store = ui.require_documents()
collection = ui.current_collection()
ui.warm_embedder(ui.settings().embeddings)  # once per process, so the first question's latency is not a model load
ui.warm_search(collection)


# -- inputs -------------------------------------------------------------------------------------------------


def _use_example() -> None:
    picked = st.session_state.get("compare_example")
    if picked:
        st.session_state["compare_question"] = picked


def _search_everywhere() -> None:
    st.session_state["compare_everywhere"] = True
    st.session_state["compare_rerun"] = True


fingerprint = "|".join(sorted(d.content_hash for d in store.documents()))
examples, examples_from = ui.example_questions(collection, fingerprint)
if examples:
    st.selectbox("Example questions", ["", *examples], key="compare_example", on_change=_use_example,
                 format_func=lambda q: q or f"— pick an example ({examples_from}) —")

# A link's ?q= (and ?search=) asks its question once, as if typed; each question asked is written back, so a
# reload or a shared link answers it again.
linked = (st.query_params.get("q"), st.query_params.get("search"))
if linked[0] and st.session_state.get("_compare_from_url") != linked:
    st.session_state["_compare_from_url"] = linked
    st.session_state["compare_question"] = linked[0]
    if linked[1] in compare_choices():
        st.session_state["compare_search"] = linked[1]
    st.session_state["compare_rerun"] = True

scope = ui.scope_picker(store, "compare")
when = as_of_picker("compare")  # the end of the chosen day (UTC), or None: the current collection

with st.form("compare_form"):
    question = st.text_area("Question", key="compare_question", height=80,
                            placeholder=f"e.g. {examples[0]}" if examples else "Ask about this collection")
    left, middle, right = st.columns(3)
    searches = compare_choices()
    search_name = left.selectbox("Search", searches, key="compare_search",
                                 help=describe_choices(searches))
    k = middle.slider("k (hits)", 1, MAX_UI_K, 4, key="compare_k")
    budget = right.number_input("Section tokens a heading hit brings (0 = none)", min_value=0, max_value=4000,
                                value=DEFAULT_CHILDREN_BUDGET, step=100, key="compare_budget")
    everywhere = st.checkbox("Search everywhere (ignore the headings the question names)", key="compare_everywhere")
    submitted = st.form_submit_button("Ask", type="primary")
st.caption(f"Collection **{escape_markdown(collection)}** (change it in the sidebar) · scope: "
           f"{escape_markdown(scope.label)}{f' · as of {when.date().isoformat()}' if when else ''}")
rerun = st.session_state.pop("compare_rerun", False)


# -- one column ---------------------------------------------------------------------------------------------


def show_details(result: ModeResult, plain_tokens: int, x_max: float, comparison: Comparison) -> None:
    if result.answer.error:
        st.error(escape_markdown(result.answer.error))
    show_table(comparison.question, result)
    st.caption(f"Answered by: {escape_markdown(result.answer.answerer)}")
    a, b = st.columns(2)
    delta = None if result.mode == "plain" else f"{result.context.tokens - plain_tokens:+d} vs plain"
    a.metric("Context tokens", result.context.tokens, delta=delta, delta_color="off")
    b.metric("Total latency", f"{sum(result.timings.get(s, 0.0) for s in STAGES):.0f} ms")
    st.plotly_chart(charts.latency_chart([(stage, result.timings.get(stage, 0.0)) for stage in STAGES], x_max),
                    key=f"latency_{result.mode}", config={"displayModeBar": False})
    with st.expander(f"Context ({result.context.tokens} tokens, {len(result.context.elements)} elements)"):
        rendered, raw = st.tabs(["Rendered", "Markdown sent to the model"])
        with rendered:
            st.markdown(_head(result.context.display) or "*empty*")
        with raw:
            st.code(_head(result.context.text), language="markdown")
        if len(result.context.text) > DISPLAY_CHARS or result.context.cut:
            st.caption(f"Shown cut: {len(result.context.text):,} characters, {result.context.cut} element(s) cut "
                       "to the token budget. The download holds the whole context.")
        st.download_button("Download the context", data=result.context.text, file_name=f"context-{result.mode}.md",
                           mime="text/markdown", key=f"context_download_{result.mode}")
    st.markdown("**Sources** (open in the Document tree)")
    day = comparison.as_of.date() if comparison.as_of is not None else None
    for source in result.sources:
        where = " › ".join(source.heading_path)
        text = source.text if len(source.text) <= 160 else source.text[:159] + "…"
        tag = "cited" if source.cited else "hit"
        path = f"*{escape_markdown(where)}* › " if where else ""
        st.markdown(f"- {tag} [`e:{source.short_id}`]({ui.tree_link(source.element_id, collection, day)}) "
                    f"{path}{escape_markdown(text)}")
    read_at = versions_read_markdown(comparison.versions, [s.document_id for s in result.sources])
    if read_at:
        st.caption(read_at + (f" (as of {day.isoformat()})" if day else " (current)"))


def _head(text: str) -> str:
    """At most DISPLAY_CHARS of ``text``, cut at a line end so no markup is split."""
    if len(text) <= DISPLAY_CHARS:
        return text
    cut = text.rfind("\n", 0, DISPLAY_CHARS)
    return text[: cut if cut > 0 else DISPLAY_CHARS] + "\n\n… (cut for display)"


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
            if event.restart:  # the server cut this column off to serve the other: it is asked again
                texts[event.mode] = ""
                answer_boxes[event.mode].markdown("*Answering…*")
            elif event.result is not None:
                results[event.mode] = event.result  # its citations may have been added: shown as final
                answer_boxes[event.mode].markdown(answer_markdown(event.result.answer.text) or "*no answer*")
            else:
                texts[event.mode] += event.text
                answer_boxes[event.mode].markdown(answer_markdown(texts[event.mode]))
        comparison = Comparison.build(collection, retrieval, results, answerer.label)
    x_max = max([r.timings.get(stage, 0.0) for r in results.values() for stage in STAGES] or [1.0])
    plain_tokens = results["plain"].context.tokens
    for mode, column in zip(MODES, columns, strict=True):
        with column:
            show_details(results[mode], plain_tokens, x_max, comparison)
    return comparison


# -- run ------------------------------------------------------------------------------------------------------

fresh: Retrieval | None = None
changes: ChangeAnswer | None = None
if submitted or rerun:
    try:
        asked = validate_question(question)  # the rules of core.retrieval, shown as a warning, never a traceback
    except QuestionError as exc:
        asked = None
        st.warning(str(exc))  # our own words: no typed text in them
    if asked is not None:
        st.session_state["_compare_from_url"] = (question, search_name)
        ui.set_query_param("q", question)
        ui.set_query_param("search", search_name)
    changes = answer_change_question(store, asked) if asked is not None and when is None else None
    if changes is not None:  # "what changed …": the stored diffs answer it, not a search
        show_change_answer(changes, collection)
    elif asked is not None:
        try:
            with st.spinner("Searching…"):
                fresh = retrieve(store, RetrievalRequest(asked, k=int(k), scope=scope, children_budget=int(budget),
                                                         search=search_name, everywhere=everywhere, as_of=when))
        except QuestionError as exc:  # a day before every version, or a strategy without history: our own words
            st.error(escape_markdown(str(exc)), icon=":material/event_busy:")
        except (ValueError, StoreError) as exc:
            st.error(f"The search failed: {escape_markdown(str(exc))}")

comparison: Comparison | None = st.session_state.get("comparison")
if comparison is not None and comparison.collection != collection:
    comparison = None  # a comparison from another collection would link to elements that are not here

if fresh is not None and fresh.hits:
    show_search(fresh.notes, [h.as_dict() for h in fresh.hierarchical.hits],
                _search_everywhere if fresh.searched_under is not None else None)
    comparison = run_columns(fresh, None)
    st.session_state["comparison"] = comparison
elif fresh is not None:
    comparison = None
    st.info("Nothing found in this scope.")
elif comparison is not None and changes is None:
    st.caption(f"Last question: {escape_markdown(comparison.question)}")
    show_search(comparison.search.get("notes", []), [h.as_dict() for h in comparison.hits], None)
    run_columns(None, comparison)
elif not submitted and changes is None:
    st.info("Ask a question to see both answers side by side.")

if comparison is not None and changes is None and {"plain", "hierarchical"} <= set(comparison.results):
    show_hierarchy_added(comparison)
    st.download_button(
        "Download the comparison (JSON)",
        data=json.dumps(comparison.to_dict(), ensure_ascii=False, indent=2),
        file_name="comparison.json",
        mime="application/json",
    )
