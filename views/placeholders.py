"""Placeholders of the search boxes, from the collection's own words: a user of a docs corpus sees its headings,
not the samples' "무게, warranty, HDMI". No Streamlit here."""

from __future__ import annotations

from collections.abc import Iterable

MAX_WORDS = 4  # a heading longer than this is a sentence, not something one searches for


def example_terms(candidates: Iterable[str], fallback: str, n: int = 3) -> str:
    """``"e.g. A, B, C"`` from the first ``n`` short, distinct ``candidates`` (headings, entity names), else
    ``fallback``. The text is a placeholder, which Streamlit shows as plain text."""
    picked: list[str] = []
    for text in candidates:
        text = " ".join(text.split()).strip("#*`_ ")
        if text and len(text.split()) <= MAX_WORDS and len(text) <= 30 and text.casefold() not in {
                p.casefold() for p in picked}:
            picked.append(text)
        if len(picked) == n:
            break
    return f"e.g. {', '.join(picked)}" if picked else fallback
