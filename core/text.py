"""Small text utilities shared by the library: one definition of each."""

from __future__ import annotations


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
