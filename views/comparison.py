"""Parts of the Compare page: the comparison table of a comparative question and what the hierarchy added.

Document text is shown only in dataframes (data, never markup) or escaped.
"""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from core.answering import Comparison, ModeResult, build_table
from core.text import escape_markdown


def show_table(question: str, result: ModeResult) -> None:
    """The entities × attribute table a comparative, superlative or list question is answered from."""
    table = build_table(question, result.context)
    if table is None or not table.stated:
        return
    picked = escape_markdown(", ".join(r.entity for r in table.picked if r.entity))
    st.caption(f"Comparison table ({len(table.rows)} entities{'; picked: ' + picked if picked else ''}). "
               "“not stated”: nothing under that entity states the attribute; no value is taken from another.")
    st.dataframe(table.records(), hide_index=True, width="stretch")


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
        [{"rank": h["rank"] + 1, "heading path › hit": " › ".join([*h["heading_path"], h["text"]]),
          "outside the named headings": h.get("outside_scope", False)} for h in hits],
        hide_index=True, width="stretch",
        column_config={"rank": st.column_config.NumberColumn(
            "rank", help="The order the search gave: the headings the question names, then full text and vector "
                         "search fused.")},
    )
