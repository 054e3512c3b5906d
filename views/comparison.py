"""Parts of the Compare page: both columns of one question (streamed or stored), the comparison table of a
comparative question, and what the hierarchy added.

Document text is shown only in dataframes (data, never markup), as code, or escaped; never as HTML. Long contexts
are shown cut, with the whole as a download.
"""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from core.answering import Comparison, ModeResult, answer_concurrently, build_table, default_answerer
from core.retrieval import MODES, Retrieval
from core.site_markup import as_shown
from core.text import escape_markdown
from views import charts, ui
from views.versions import versions_read_markdown

TITLES = {"plain": "Plain", "hierarchical": "Hierarchical"}
BLURBS = {
    "plain": "The hit elements as they are.",
    "hierarchical": "The same hits with their root-to-leaf headings (and a heading hit's section), as partial trees.",
}
STAGES = ("embed_query", "search", "expand", "generate")
DISPLAY_CHARS = 20_000  # a context longer than this is shown cut (a whole 5 MB one froze the browser)


def show_table(question: str, result: ModeResult) -> None:
    """The entities × attribute table a comparative, superlative or list question is answered from."""
    table = build_table(question, result.context)
    if table is None or not table.stated:
        return
    picked = escape_markdown(", ".join(r.entity for r in table.picked if r.entity))
    st.caption(f"Comparison table ({len(table.rows)} entities{'; picked: ' + picked if picked else ''}). "
               "“not stated”: nothing under that entity states the attribute; no value is taken from another.")
    # The value comes right after the entity, which is cut to a medium width (its whole name on hover): a column
    # is half the page, and product names as long as the samples' hid the values behind a horizontal scroll.
    st.dataframe(table.records(), hide_index=True, width="stretch",
                 column_order=("entity", "value", "picked", "attribute", "element", "path"),
                 column_config={"entity": st.column_config.TextColumn("entity", width="medium"),
                                "picked": st.column_config.CheckboxColumn("picked", width="small")})


def show_hierarchy_added(comparison: Comparison) -> None:
    st.subheader("What the hierarchy added")
    plain, hier = comparison.results["plain"].context, comparison.results["hierarchical"].context
    st.caption(
        f"{len(comparison.hierarchy_added)} elements and {hier.tokens - plain.tokens:+d} tokens that only the "
        "hierarchical context has: the headings and parent list items above the hits, which say which document, "
        "product or section each hit belongs to."
    )
    rows = [
        {"hit": as_shown(h.text, h.category),
         "heading path (only in the hierarchical context)": " › ".join(h.path) or "(top level)",
         "element": h.short_id}
        for h in comparison.hits
    ]
    st.dataframe(rows, hide_index=True, width="stretch")
    with st.expander("Every added element"):
        st.dataframe(
            [{"category": e.category, "text": as_shown(e.text, e.category), "heading path": " › ".join(e.path),
              "element": e.element_id}
             for e in comparison.hierarchy_added],
            hide_index=True, width="stretch",
        )


def show_search(notes: list[str], hits: list[dict], search_everywhere: Callable[[], None] | None) -> None:
    """What the search did (the scope it read from the question) and the hits both columns share; with
    ``search_everywhere`` (the search read a scope from the question), a button that asks again without it."""
    for note in notes:
        st.caption(escape_markdown(note))
    if search_everywhere is not None:
        st.button("Search everywhere", on_click=search_everywhere, icon=":material/travel_explore:",
                  help="Ask the same question over the whole collection, ignoring the headings it names.")
    # No similarity column: the rank is the search's (headings named, full text and vector fused), and a cosine
    # shown beside it would not follow it. The comparison's JSON download keeps each hit's similarity.
    st.dataframe(
        [{"rank": h["rank"] + 1,
          "heading path › hit": " › ".join([*h["heading_path"], as_shown(h["text"], h["category"])]),
          "outside the named headings": h.get("outside_scope", False)} for h in hits],
        hide_index=True, width="stretch",
        column_config={"rank": st.column_config.NumberColumn(
            "rank", help="The order the search gave: the headings the question names, then full text and vector "
                         "search fused.")},
    )


def show_statement_path(path: list[dict], collection: str) -> None:
    """The statement path the statements search joined two places by ("X — built by → Y — headed by → Z"), each
    step's citation linked to the element stating it in the Document tree. Document text is escaped: the path is
    markdown, never HTML."""
    if not path:
        return
    pieces = [f"**{escape_markdown(path[0]['source'])}**"] if path[0]["source"] else []
    for step in path:
        cite = f"[e:{step['element_id'][:8]}]({ui.tree_link(step['element_id'], collection)})"
        pieces.append(f"— {escape_markdown(step['relation'])} {cite} → **{escape_markdown(step['target'])}**")
    st.markdown("Statement path: " + " ".join(pieces))


def show_details(result: ModeResult, plain_tokens: int, x_max: float, comparison: Comparison) -> None:
    """One column's details: its table, answerer, tokens, latency chart, context (cut for display) and sources."""
    collection = comparison.collection
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
        text = ui.source_text(as_shown(source.text, source.category))
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


def run_columns(retrieval: Retrieval | None, comparison: Comparison | None, collection: str) -> Comparison:
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
