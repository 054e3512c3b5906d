"""Which sentences of a long unit quote it: the one the question asks, and the one it points back to.

A long paragraph is quoted by one sentence (``extractive._excerpt``). Two readings of its grammar choose better
than the count of the question's words alone:

* asked how to do something, a sentence that instructs ("Set it to `false` to remove the attribute altogether",
  "Set `failOnNonUnique: false` to suffix instead") answers, though the paragraph's opening sentence describing
  the situation ("If two headings use the same explicit id, this plugin throws") shares more of the question's
  words: the unit-level rule (``instructions.instruction_first``) ranks units so, and this is the same reading
  inside one, stricter (the imperative opens the sentence);
* a sentence that opens by pointing back ("This is the recommended setting for most code bases") states nothing
  without the one before it ('Setting this option to "auto" will only wrap …'), so it is quoted with it.

Both read English grammar (an imperative opening the sentence, a demonstrative subject), no corpus's words.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from core.answering.instructions import ADDRESSED_TO_READER

__all__ = ["asked_sentence", "opening_sentence"]

# An imperative opens the sentence (the verbs that set an option or change what a tool does), or the sentence is
# addressed to the reader ("You can override this behavior with the tabIndex option"). Not a verb anywhere in it:
# "If two headings use the same explicit id, this plugin throws" describes.
_IMPERATIVE = re.compile(r"^(?:set|use|pass|add|enable|disable|remove|specify|provide|call)\s+\S", re.I)
_ADDRESSED = re.compile(rf"\b(?:{ADDRESSED_TO_READER})\b", re.I)
# A sentence whose subject points back at the sentence before: "This is …", "That means …", "It will …".
_POINTS_BACK = re.compile(r"^(?:this|that|it|these|those)\s+(?:is|are|was|were|will|would|does|do|can|means?|"
                          r"makes?|works?|has|have)\b", re.I)


def instructing(sentence: str) -> bool:
    """Whether ``sentence`` tells the reader what to do: an imperative opens it, or it is addressed to them."""
    return _IMPERATIVE.match(sentence) is not None or _ADDRESSED.search(sentence) is not None


def asked_sentence(pieces: Sequence[str], overlap: Callable[[int], tuple[float, int]], *, how: bool) -> int:
    """The index of the sentence that answers: the one overlapping the question most (``overlap``: its weight of
    the question's terms, then the count of words the question itself writes); asked how (``how``), of the
    sentences sharing any of its words, one that instructs first."""
    def key(i: int) -> tuple[bool, float, int]:
        shared = overlap(i)
        return (how and shared[0] > 0 and instructing(pieces[i]), *shared)
    return max(range(len(pieces)), key=key)


def opening_sentence(pieces: Sequence[str], best: int) -> int:
    """Where the quote of sentence ``best`` starts: at the sentence before it when it opens by pointing back."""
    return best - 1 if best > 0 and _POINTS_BACK.match(pieces[best]) else best
