"""Small text helpers shared by the library, one definition of each: first lines and clipping, spreadsheet-safe
cells, literal markdown, names, sentences and words."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from functools import lru_cache

from core.textnorm import strip_particles


def first_line(value: BaseException | str, limit: int = 300) -> str:
    """The first non-empty line of an error (or text), at most ``limit`` characters; the error's type if blank."""
    text = str(value).strip()
    if not text and isinstance(value, BaseException):
        text = type(value).__name__
    return (text.splitlines() or [""])[0][:limit]


def clip(text: str, limit: int, *, at_word: bool = True) -> str:
    """``text`` with whitespace collapsed, cut to ``limit`` characters with an ellipsis when cut.

    ``at_word`` backs off to the last space when that keeps at least 60% of the limit, so a label does not end
    in half a word.
    """
    text = " ".join(str(text).split())
    if len(text) <= limit:
        return text
    cut = text[: max(limit - 1, 0)]
    if at_word:
        space = cut.rfind(" ")
        if space > limit * 0.6:
            cut = cut[:space]
        cut = cut.rstrip(" ,;:")
    return cut + "…"


# What makes a spreadsheet read a CSV cell as a formula (OWASP "CSV injection"): = + - @, and tab and carriage
# return, which some spreadsheets skip before looking at the first character.
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_safe(value: object) -> object:
    """``value`` for a CSV cell: text that a spreadsheet would run as a formula gets a leading ``'`` (shown as
    text, the formula never runs); everything else, numbers included, is unchanged."""
    if isinstance(value, str) and value.startswith(_FORMULA_START):
        return "'" + value
    return value

_MD_SPECIAL = re.compile(r"([!-/:-@\[-`{-~])")
_AUTOLINK = re.compile(r"(?i)(\b(?:https?|ftp|mailto|xmpp)(?=:)|\bwww(?=\.)|@)")
def escape_markdown(text: str) -> str:
    """``text`` as markdown that renders literally: no links, images, HTML, emphasis, math or directives.

    Backslash escapes do not stop GFM's autolink literals (remark-gfm finds ``http://…``, ``www.…`` and
    ``a@b.co`` in the decoded text), so a word joiner (U+2060, invisible) is put after the scheme, ``www`` and
    ``@``: the text reads the same but is never turned into a link.
    """
    text = _AUTOLINK.sub("\\1\u2060", text)
    return _MD_SPECIAL.sub(r"\\\1", text)


# Punctuation that still distinguishes names (C vs C++ vs C#) survives normalisation.
_KEEP_SYMBOLS = frozenset("+#")


@lru_cache(maxsize=200_000)
def normalize_name(name: str) -> str:
    """The merge key of an entity name: NFKC, casefolded, whitespace and punctuation removed.

    ``"USB-C"``, ``"usb c"`` and ``"USB C"`` share a key; ``"미리내 3호"`` and ``"미리내3호"`` too. ``+`` and ``#``
    are kept so ``C``, ``C++`` and ``C#`` stay apart. Returns ``""`` for names with nothing left.
    """
    text = unicodedata.normalize("NFKC", name).casefold()
    out = []
    for ch in text:
        if ch in _KEEP_SYMBOLS:
            out.append(ch)
            continue
        cat = unicodedata.category(ch)
        if cat[0] in "PZCS":  # punctuation, separators, controls, symbols
            continue
        out.append(ch)
    return "".join(out)


def stable_id(*parts: str, length: int = 16) -> str:
    """A short deterministic id from its parts (sha256 hex)."""
    return hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()[:length]


# -- sentences --------------------------------------------------------------------------------------

# A sentence ends at . ! ? (or their full-width forms) followed by space and a plausible sentence start;
# "e.g. foo", "v1.2" and "Co., Ltd." stay whole because the next character is lowercase or a digit follows.
_SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s+(?=[\"“'(\[]?[A-Z가-힣0-9])")
_ABBREV_END = re.compile(r"(?:\b(?:e\.g|i\.e|etc|vs|Mr|Mrs|Ms|Dr|Prof|Inc|Ltd|Co|No|Fig|approx)\.)$", re.IGNORECASE)


def split_sentences(text: str) -> list[str]:
    """Sentences of a paragraph (and its lines); short and whitespace-only pieces are dropped."""
    out: list[str] = []
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        pieces = _SENTENCE_END.split(line)
        buffer = ""
        for piece in pieces:
            buffer = f"{buffer} {piece}" if buffer else piece
            if _ABBREV_END.search(buffer):
                continue
            out.append(buffer.strip())
            buffer = ""
        if buffer.strip():
            out.append(buffer.strip())
    return [s for s in out if len(s) > 1]


def table_sentences(table_markdown: str) -> tuple[list[str], list[str], list[str]]:
    """(header cells, first-column cells, one sentence per row "Header: cell; …") of a pipe table."""
    rows = []
    for line in table_markdown.splitlines():
        line = line.strip()
        if not line.startswith("|"):
            continue
        cells = [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", line.strip("|"))]
        if cells and all(set(c) <= set("-: ") for c in cells):
            continue  # the --- separator row
        rows.append(cells)
    if not rows:
        return [], [], []
    header, body = rows[0], rows[1:]
    sentences = []
    for row in body:
        parts = [f"{h}: {c}" if h else c for h, c in zip(header, row, strict=False) if c]
        if parts:
            sentences.append("; ".join(parts))
    first_column = [row[0] for row in body if row and row[0]]
    return [h for h in header if h], first_column, sentences


# -- words ------------------------------------------------------------------------------------------

_WORD_SPLIT = re.compile(r"[\s()\[\]{}<>,;:!?\"“”‘’«»|*`~=]+")
_EDGE_PUNCT = ".'’-/_"


def words(text: str) -> list[str]:
    """Whitespace/bracket-separated tokens with edge punctuation stripped (``"(HSSI,"`` → ``"HSSI"``)."""
    out = []
    for tok in _WORD_SPLIT.split(text):
        tok = tok.strip(_EDGE_PUNCT)
        if tok:
            out.append(tok)
    return out


def strip_josa(word: str) -> str:
    """The word without its trailing Korean particles and endings (``"연구원은"`` → ``"연구원"``), see core.textnorm."""
    return strip_particles(word)
