"""How a question's word matches a heading's (``core.retrieval.headings``), beyond being the same word.

* A plain word written with a hyphen or a dot ("semantic-release", "package.json") is one word of the question,
  though its parts are matchable words too: the heading scope counts it once (:func:`joined_score`).
* A Latin word of :data:`CLIPPED_MIN` letters or more is also the clipped form of a heading word it begins, at least
  :data:`CLIPPED_RATIO` times as long, that the heading writes as prose ("config" for "Configuration", "async" for
  "Asynchronous Rules"); not an inflection ("options"), a word sharing a stem ("important" for "import", half
  again as long), or an identifier starting with it (`levelComparison` for "level"). A Korean word matches a
  heading word it begins, as before (its endings and particles are cut, so the rest is the same word).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Container, Mapping

from core import textnorm

__all__ = ["CLIPPED_MIN", "CLIPPED_RATIO", "clipped", "joined_score", "matches", "name_parts", "prose_words"]

_PARTS = re.compile(r"[._\-/:]")
_JOINED = re.compile(r"\S*[^\W_][._\-/:][^\W_]\S*")
_HANGUL = re.compile(r"[\uac00-\ud7a3]")
_CODE_SPAN = re.compile(r"`[^`\n]*`")
_PROSE = re.compile(r"(?<![\w.`-])[A-Za-z][a-z]+(?![\w.`-])")  # a word as prose writes it, not code (`levelKey`)
CLIPPED_MIN = 5
CLIPPED_RATIO = 2.0


def clipped(question_word: str) -> bool:
    """Whether ``question_word`` is long enough to be the clipped form of a longer heading word."""
    return len(question_word) >= CLIPPED_MIN and question_word.isascii() and question_word.isalpha()


def matches(question_word: str, heading_word: str, prose: Container[str] = ()) -> bool:
    """Whether a question word matches a heading word: the same word, a Korean word's longer form, or the whole of a
    clipped word among ``prose`` (the words headings write as prose)."""
    if question_word == heading_word or not heading_word.startswith(question_word):
        return question_word == heading_word
    return bool(_HANGUL.match(question_word)) or (clipped(question_word) and heading_word in prose
                                                  and len(heading_word) >= CLIPPED_RATIO * len(question_word))


def prose_words(heading: str) -> set[str]:
    """The words ``heading`` writes as prose (casefolded), outside code spans and identifiers."""
    return {w.casefold() for w in _PROSE.findall(_CODE_SPAN.sub(" ", heading))}


def name_parts(question: str, plain: Collection[str]) -> dict[str, str]:
    """Each word of ``plain`` (the question's plain words, no code names) that is only a part of a hyphenated or
    dotted word the question writes whole (``semantic``, ``release`` of ``semantic-release``), with that word; a
    part the question also writes on its own is none."""
    alone = textnorm.name_words(_JOINED.sub(" ", question))
    out: dict[str, str] = {}
    for name in sorted(plain, key=len, reverse=True):
        if _HANGUL.match(name) or not _PARTS.search(name):
            continue
        for part in _PARTS.split(name):
            if part != name and part in plain and part not in alone:
                out.setdefault(part, name)
    return out


def joined_score(question: str, plain: Collection[str], bit: Mapping[str, int],
                 weight: Mapping[str, float]) -> Callable[[int], float]:
    """The score of a set of matched words (a bit mask over ``bit``): the sum of their weights, each joined word
    with its parts counting as the best of them, not their sum (the word 2-3 times over)."""
    joined: dict[str, int] = {}
    for part, name in name_parts(question, plain).items():
        joined[name] = joined.get(name, bit[name]) | bit[part]
    alone = [(q, b) for q, b in bit.items() if not any(b & g for g in joined.values())]
    members = {g: [(q, b) for q, b in bit.items() if g & b] for g in joined.values()}

    def score(mask: int) -> float:
        total = sum(weight.get(q, 0.0) for q, b in alone if mask & b)
        for group, held in members.items():
            if mask & group:
                total += max(weight.get(q, 0.0) for q, b in held if mask & b)
        return round(total, 6)

    return score
