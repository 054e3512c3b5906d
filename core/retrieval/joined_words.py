"""A plain word written with a hyphen or a dot ("semantic-release", "package.json") is one word of the question,
though its parts are matchable words too: the heading scope counts it once (``core.retrieval.headings``)."""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Mapping

from core import textnorm

__all__ = ["joined_score", "name_parts"]

_PARTS = re.compile(r"[._\-/:]")
_JOINED = re.compile(r"\S*[^\W_][._\-/:][^\W_]\S*")
_HANGUL = re.compile(r"[\uac00-\ud7a3]")


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
