"""What an element states and what a question asks: ``key : value`` items, ``Default:`` lines, table cells, and
the attribute words of a question, in English and Korean.

Pure text (no database, no model), shared by the heading scope (``core.retrieval``: a scope must hold the
attribute asked) and the answerers (``core.answering``: which element states it, and its value).

A question names an attribute in words a sheet may not use: "How heavy" asks for "Weight", "가벼운" for "무게",
and an English question over a Korean sheet asks "weight" of "무게". :data:`ASKED_AS` lists the question words
and the nouns they ask for; :data:`BILINGUAL` the spec-sheet nouns that name one field in both languages.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from core.quantities import is_unit
from core.textnorm import english_stem, match_terms

__all__ = [
    "Statement",
    "attribute_share",
    "expanded_query",
    "question_terms",
    "statement",
    "states_default",
    "table_cell",
    "table_rows",
    "terms",
]

# Question words and the nouns they ask for (each row: the words, then the nouns).
ASKED_AS = (
    ("heavy weigh weighs heavier heaviest light lighter lightest", "weight"),
    ("wide wider widest", "width"),
    ("tall taller tallest high higher highest", "height"),
    ("long longer longest short shorter shortest", "length life duration"),
    ("far farther farthest", "range distance"),
    ("fast faster fastest quick quicker quickest", "speed"),
    ("cost costs expensive cheap cheaper cheapest", "price"),
    ("big bigger biggest large larger largest small smaller smallest", "size"),
    ("bright brighter brightest dim dimmer dimmest", "brightness"),
    ("무겁 무거 가볍 가벼", "무게"),
    ("밝 어둡 어두", "밝기"),
    ("싸 비싸 저렴", "가격"),
    ("빠르 느리", "속도"),
)
# Spec-sheet nouns naming one field in English and Korean (each row: English words, Korean words).
BILINGUAL = (
    ("weight", "무게"),
    ("warranty", "보증 보증기간"),
    ("power consumption", "소비전력 전력"),
    ("brightness", "밝기"),
    ("contrast", "명암비"),
    ("response", "응답속도"),
    ("resolution", "해상도"),
    ("refresh", "주사율"),
    ("speaker speakers", "스피커"),
    ("stand", "스탠드"),
    ("without excluding", "제외"),
    ("including included", "포함"),
    ("height", "높낮이"),
    ("adjustment", "조절"),
    ("tilt", "틸트"),
    ("swivel", "스위블"),
    ("pivot", "피벗"),
    ("panel", "패널"),
    ("size", "크기"),
    ("screen", "화면"),
    ("capacity", "용량"),
    ("price", "가격"),
    ("manufacturer", "제조사"),
    ("country origin", "제조국"),
    ("release released", "출시"),
    ("depth", "깊이"),
    ("color colour", "색"),
    ("hub", "허브"),
    ("wall mount", "벽걸이"),
    ("battery", "배터리"),
    ("temperature", "온도"),
    ("speed", "속도"),
    ("range", "범위"),
    ("timeout", "타임아웃"),
    ("default", "기본값 기본"),
    ("maximum max", "최대"),
    ("minimum min", "최소"),
    ("typical", "typ"),
)


def _table(rows: Iterable[tuple[str, str]], *, both_ways: bool) -> dict[str, frozenset[str]]:
    out: dict[str, set[str]] = {}
    for left, right in rows:
        lefts = [english_stem(w) for w in left.split()]
        rights = [english_stem(w) for w in right.split()]
        for word in lefts:
            out.setdefault(word, set()).update(rights)
        if both_ways:
            for word in rights:
                out.setdefault(word, set()).update(lefts)
    return {k: frozenset(v) for k, v in out.items()}


_ASKED: dict[str, frozenset[str]] = _table(ASKED_AS, both_ways=False)
_TRANSLATED: dict[str, frozenset[str]] = _table(BILINGUAL, both_ways=True)

_KEY_VALUE = re.compile(r"^\s*(?:[-*+]\s+)?(?P<key>[^:：\n]{1,60}?)\s*[:：]\s+(?P<value>\S[^\n]*)$")
_DEFAULT = re.compile(
    r"\bdefaults?(?:\s+value)?(?:\s+(?:to|is)\s+|\s*:\s*|\s+(?=`))"
    r"(?P<value>`[^`\n]+`|'[^'\n]*'|\"[^\"\n]*\"|[^\s,;]+)",
    re.I,
)
# The option a "Default:" item documents: its leading code span or bold name ("* **`marker`**:", "`timeout` :").
_LEADING_NAME = re.compile(r"^\s*(?:[-*+]\s+)?(?:\*\*`?(?P<bold>[^*`\n]+)`?\*\*|`(?P<code>[^`\n]+)`)")
# Without markup ("idempotent boolean (optional) - Default: true") the option is the item's first word.
_FIRST_WORD = re.compile(r"^\s*(?:[-*+]\s+)?(?P<word>[A-Za-z_$][\w.$-]*)")
_NUMBER_ONLY = re.compile(r"-?\d[\d,.]*")
_NEXT_WORD = re.compile(r"[ \t]+([^\s,;.]+)")
_TABLE_SPLIT = re.compile(r"(?<!\\)\|")
_MAX_VALUE_CHARS = 200
_HANGUL_WORD = re.compile(r"[\uac00-\ud7a3]+")

Statement = tuple[str, str]  # (key, value)


def terms(text: str) -> frozenset[str]:
    """The text's match terms, English ones lightly stemmed (released ~ release). A Korean key the analyser
    reads as a verb form only ("밝기": 밝 + 기) keeps its words as they are, so "밝기 : 350 cd/m²" has a key."""
    found = frozenset(english_stem(t) for t in match_terms(text))
    return found or frozenset(_HANGUL_WORD.findall(text))


# Korean adjective stems the question may use in any ending ("가장 밝은", "더 가벼운"): the analyser drops
# adjectives, so they are matched on the question's words as written.
_KOREAN_ASKED = tuple(sorted({w for row, _ in ASKED_AS for w in row.split() if _HANGUL_WORD.fullmatch(w)}))


def _korean_asked(text: str) -> set[str]:
    words = _HANGUL_WORD.findall(text)
    return {n for k in _KOREAN_ASKED if any(w.startswith(k) for w in words) for n in _ASKED.get(k, ())}


def expand_terms(found: Iterable[str], text: str = "") -> frozenset[str]:
    """``found`` (the terms of ``text``) with the nouns its question words ask for and their names in the other
    language."""
    out = set(found) | _korean_asked(text)
    out |= {n for t in list(out) for n in _ASKED.get(t, ())}
    out |= {n for t in list(out) for n in _TRANSLATED.get(t, ())}
    return frozenset(out)


def question_terms(question: str) -> frozenset[str]:
    """The question's terms, with the attribute nouns its words ask for, in both languages."""
    return expand_terms(terms(question), question)


def expanded_query(question: str) -> str:
    """``question`` with the attribute nouns its words ask for, in both languages ("heavier" → "weight 무게"):
    what full-text search needs to find a Korean sheet's "무게" for an English question."""
    added = sorted(question_terms(question) - terms(question))
    return f"{question} {' '.join(added)}" if added else question


def attribute_share(asked: frozenset[str], key: str) -> float:
    """The share of ``key``'s terms the question asks for ("Weight (with stand)" fully, "Dimensions without
    stand" a quarter)."""
    key_terms = terms(key)
    return len(asked & key_terms) / len(key_terms) if key_terms else 0.0


def clean_value(value: str) -> str:
    return value.strip().rstrip(".").strip()


def table_rows(text: str) -> list[list[str]]:
    """The rows of a pipe table (header first), separator rows dropped."""
    rows = []
    for line in text.splitlines():
        line = line.strip()
        if not line.startswith("|"):
            continue
        cells = [c.strip().replace("\\|", "|") for c in _TABLE_SPLIT.split(line.strip("|"))]
        if not all(set(c) <= set("-: ") for c in cells):
            rows.append(cells)
    return rows


def table_column(wanted: frozenset[str], header: list[str], row_name: str = "") -> int | None:
    """The column (not the first) whose header the question's terms name best, apart from the row's name."""
    left = wanted - terms(row_name)
    scores = [len(left & terms(h)) for h in header]
    column = max(range(1, len(header)), key=lambda i: scores[i], default=None)
    return column if column is not None and scores[column] else None


def table_cell(wanted: frozenset[str], text: str) -> tuple[str, str, str] | None:
    """``(row — column, cell, the row as "header: cell; …")`` of a pipe table: the row and the column the
    question's terms name."""
    rows = table_rows(text)
    if len(rows) < 2:
        return None
    header, body = rows[0], rows[1:]
    # The row first (the entity the question names), then the column among the words left: "Description of
    # type" must not pick a "Type" column because of the row's name.
    row_terms = [terms(" ".join(r[:1])) for r in body]
    row = max(range(len(body)), key=lambda i: len(wanted & row_terms[i]))
    column = table_column(wanted, header, body[row][0])
    if column is None or not wanted & row_terms[row] or column >= len(body[row]):
        return None
    value = body[row][column]
    line = "; ".join(f"{h}: {c}" if h else c for h, c in zip(header, body[row], strict=False) if c)
    return (f"{body[row][0]} — {header[column]}", value, line) if value else None


def states_default(text: str) -> bool:
    """Whether ``text`` states a default value ("Defaults to `None`", "Default: `'/'`")."""
    return _DEFAULT.search(text) is not None


def statement(wanted: frozenset[str], text: str, category: str = "") -> Statement | None:
    """``(key, value)`` the text states: a ``Default:`` line, a ``key : value`` item, or a table cell."""
    text = text.strip()
    if category == "Table" or text.startswith("|"):
        cell = table_cell(wanted, text)
        return cell[:2] if cell else None
    default = _DEFAULT.search(text)
    if default:
        name = _LEADING_NAME.match(text)
        first = _FIRST_WORD.match(text)
        key = (name.group("bold") or name.group("code")) if name else (first.group("word") if first else "")
        if first and not name and first.start("word") == default.start():
            key = ""  # a bare "Default: x" line documents the item above it; "default" is no attribute of its own
        value = clean_value(default.group("value"))
        unit = _NEXT_WORD.match(text, default.end())
        if _NUMBER_ONLY.fullmatch(value) and unit and is_unit(unit.group(1)):
            value = f"{value} {unit.group(1)}"  # "Default: 8 MiB": the unit belongs to the value
        return key.strip("`* "), value
    kv = _KEY_VALUE.match(text.splitlines()[0]) if text else None
    if kv and len(kv.group("value")) <= _MAX_VALUE_CHARS:
        return kv.group("key").strip("`*- "), clean_value(kv.group("value"))
    return None
