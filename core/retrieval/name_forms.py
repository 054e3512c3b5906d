"""Headings named by a question's words in other forms than written (issue 31): words an option's name writes run
together ("the max retry timeout" → ``fetch-retry-maxtimeout``) and a word in the other number ("retry" →
``fetch-retries``). Each form is looked up in the collection's heading index, never guessed; the heading match
(:func:`core.retrieval.headings.word_factors`) counts it as the question's word."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Protocol, TypeVar

from core.statements import number_forms, run_together_pairs

__all__ = ["other_number", "run_together", "spelled_whole"]

class HeadingIndex(Protocol):
    """What these look-ups read of :class:`core.retrieval.headings.HeadingIndex` (not imported: it imports this)."""

    postings: dict[str, set[int]]

    def words_of(self, i: int) -> frozenset[str]: ...


_PARTS = re.compile(r"[._\-/:]")  # the separators of a dotted or hyphenated name (as core.retrieval.headings')


def run_together(question: str, factors: dict[str, float], index: HeadingIndex | None) -> dict[str, float]:
    """``factors`` and each pair of the question's plain words, written apart, that some heading of the collection
    writes run together as a part of a name (``fetch-retry-maxtimeout`` for "the max retry timeout"): the pair
    counts as that word, as much as the more telling of the two. The pair is looked up, never guessed: only a
    word some heading holds is added; and the words of one name ("stream.Readable", "semantic-release") are no
    pair (a parameter ``streamReadable`` is not what they name)."""
    if index is None:
        return factors
    out = dict(factors)
    for pair in run_together_pairs(question):
        a = next((w for w in factors if pair.startswith(w) and pair[len(w):] in factors), None)
        if a is not None and pair not in out and index.postings.get(pair):
            out[pair] = max(factors[a], factors[pair[len(a):]])
    return out


def other_number(factors: dict[str, float], index: HeadingIndex | None) -> dict[str, float]:
    """``factors`` and each word's other number that headings hold only as a part of an option's name
    ("retries" in ``fetch-retries`` for "how many times does npm retry"), counted as the word: a name joins its
    words in whatever number the option's author chose, a question asks in its own. Looked up, never guessed: a
    form a heading in words holds ("Warranty Periods", "… with my releases?") keeps its own number, and the
    headings holding it would gain a word the question does not write."""
    if index is None:
        return factors
    out = dict(factors)
    for word, factor in factors.items():
        for form in number_forms(word):
            held = index.postings.get(form, ())
            if form not in out and held and all(any(form in _PARTS.split(w) for w in index.words_of(i)
                                                    if _PARTS.search(w)) for i in held):
                out[form] = factor
    return out


T = TypeVar("T")
# An option heading that is one code name of two or more parts, in lower case (``docstring_style``,
# ``build-frontend``); a product's name in capitals ("USB-C", "NV-34WC") is no option's.
_CODE_NAME_HEADING = re.compile(r"`?[a-z][a-z0-9]*(?:[-_][a-z0-9]+)+`?")


def spelled_whole(tied: list[T], text_of: Callable[[T], str], named: Callable[[str], bool]) -> list[T]:
    """Of headings the question's words name equally (a tie), those to keep: a code-name heading one of whose parts
    no question word names (``docstring_section_style`` for "default docstring style?") is dropped when another
    tied code-name heading has every part named (``docstring_style``); every other heading is kept."""
    parts = [re.split(r"[-_]", t.strip().strip("`").casefold()) if _CODE_NAME_HEADING.fullmatch(t.strip()) else None
             for t in map(text_of, tied)]
    whole = [p is not None and all(named(w) for w in p) for p in parts]
    if not any(whole):
        return tied
    return [h for h, p, w in zip(tied, parts, whole, strict=True) if p is None or w]
