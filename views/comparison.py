"""Parts of the Compare page: the comparison table of a comparative question and what the hierarchy added.

Document text is shown only in dataframes (data, never markup) or escaped.
"""

from __future__ import annotations

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
