"""A question that asks for several facts at once, read as its parts (issue 31): "default npm loglevel and default
maxsockets?", "which build frontend and which container engine?", "X vs Y", "A, B or C".

Each part is asked on its own: the router searches each (``core.retrieval.pipeline``), and the extractive answer
quotes the best unit for each, each cited (``core.answering.extractive``). A question that names one thing and one
attribute has one part, itself. The leading clause that sets the platform ("cibuildwheel defaults:") goes with every
part. A side too thin to be asked alone (fewer than ``min_terms`` terms, "search and replace") keeps the question
whole, so a phrase joined by "and" inside a name is never split.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.retrieval.shape import split_preamble
from core.statements import terms

__all__ = ["PartsConfig", "question_parts"]

# Coordinators that join two asks. "or" joins two only in a question asking which (a choice: "which is bigger, A
# or B"); elsewhere it names alternatives of one thing ("accessories such as cables, or wall brackets").
# Korean joins two asks by a word ("그리고", "및"), by the particle "(이)랑" ("X 운영시간이랑 Y 운영시간은?"), and by
# "-고" closing a clause: after a comma ("언제 전송되고, …") or a question word ("svcAmt는 뭐고 trDt는 뭐야?").
_JOINS = re.compile(r"\s*(?:,\s*and\s+|\s+(?:and|vs\.?|versus|compared (?:to|with))\s+|,?\s*(?:그리고|및)\s+"
                    r"|(?<=\w\w)(?:이랑|랑)\s+|(?<=[가-힣])고,\s+|(?:(?<=뭐)|(?<=어디)|(?<=언제)|(?<=누구)|(?<=얼마))고\s+)",
                    re.I)
_OR = re.compile(r",?\s+or\s+", re.I)
_WHICH = re.compile(r"^\W*which\b", re.I)
# code spans and parentheses: a join inside `a and b` or "(A vs B)" qualifies one ask, it splits nothing
_ASIDES = re.compile(r"`[^`\n]{1,200}`|\([^()]*(?:\([^()]*\)[^()]*)*\)")
# examples of one thing ("accessories such as cables and wall brackets"): one ask, whatever joins them
_EXAMPLES = re.compile(r"\b(?:such as|e\.g\.|for example|including)\b.*$", re.I)
_IDENTIFIER = re.compile(r"[\w]+[-_.][\w.-]*\w|\w*\d\w*")
_LABEL = re.compile(r"^([^:?`]{1,40}:)\s+")
_ASKING = re.compile(r"^(?:what|which|who|where|when|how|is|are|does|do|can)\b", re.I)


@dataclass(frozen=True)
class PartsConfig:
    min_terms: int = 2  # a part without a question word or an identifier holds this many terms
    max_parts: int = 3  # a question of more parts is a list: the comparison table's, not one quote each


DEFAULT_PARTS = PartsConfig()


def _masked(text: str) -> str:
    """``text`` with its code spans blanked to the same length: a join inside `a and b` splits nothing."""
    blank = lambda m: "\x00" * len(m.group(0))  # noqa: E731
    return _EXAMPLES.sub(blank, _ASIDES.sub(blank, text))


def question_parts(question: str, config: PartsConfig = DEFAULT_PARTS) -> tuple[str, ...]:
    """The asks of ``question``, each a question of its own with the shared leading clause; ``(question,)`` when it
    asks one thing."""
    preamble, rest = split_preamble(question)
    label = _LABEL.match(rest)  # "cibuildwheel defaults: …" names what every ask is about
    if label:
        preamble, rest = f"{preamble} {label.group(1)}", rest[label.end():]
    body = rest.rstrip(" ?？.")
    masked = _masked(body)
    cuts = [0]
    joins = [*_JOINS.finditer(masked), *(_OR.finditer(masked) if _WHICH.match(masked) else ())]
    for m in sorted(joins, key=lambda m: m.start()):
        cuts += [m.start(), m.end()]
    cuts.append(len(body))
    pieces = [body[cuts[i]:cuts[i + 1]].strip(" ,") for i in range(0, len(cuts), 2)]
    if not 2 <= len(pieces) <= config.max_parts:
        return (question,)
    completed = [pieces[0], *(_completed(p, pieces[0]) for p in pieces[1:])]
    if not all(_asks_alone(p, [q for q in pieces if q is not p], config, later=i > 0, framed=completed[i] != p)
               for i, p in enumerate(pieces)):
        return (question,)
    pieces = completed
    lead = preamble.strip()
    return tuple(f"{lead} {p}?".strip() if lead else f"{p}?" for p in pieces)


def _completed(piece: str, first: str) -> str:
    """A later side that names only the alternative, asked as the first side is: "… wheels on Intel vs on Apple
    Silicon" → "… wheels on Apple Silicon" (the first side from its last word that the alternative begins with),
    "which is bigger in npm, searchlimit or fetch-retry-factor" → "which is bigger in npm, fetch-retry-factor" (the
    first side up to its last comma). A side asking by its own question word stands as it is."""
    if _ASKING.match(piece):
        return piece
    head = piece.split()[0].casefold() if piece.split() else ""
    words = first.split()
    at = max((i for i, w in enumerate(words) if w.casefold() == head), default=-1)
    if 0 < at and len(piece.split()) < len(words):
        return " ".join([*words[:at], piece])
    if "," in first:
        return f"{first.rsplit(',', 1)[0]}, {piece}"
    if len(piece.split()) == 1 and len(words) > 2:  # "… cache folder on linux vs windows": the last word's alternative
        return " ".join([*words[:-1], piece])
    return piece


def _asks_alone(piece: str, others: list[str], config: PartsConfig, *, later: bool, framed: bool = False) -> bool:
    """A side holds a term the others lack, and holds ``min_terms`` terms, or names an identifier
    ("fetch-retry-factor"), or (a later side) asks by a question word of its own ("…, and what's the fetch
    timeout") or names only the alternative to a word of the first side, asked in the first side's frame
    (``framed``: "… on linux vs windows", "… for cpython 3.9 on intel and for pypy"); the first side's question
    word asks for the whole question ("How do I search and replace …")."""
    held = terms(piece)
    if not held - terms(" ".join(others)):
        return False
    return (later and (framed or bool(_ASKING.match(piece)))) or len(held) >= config.min_terms \
        or bool(_IDENTIFIER.search(piece))
