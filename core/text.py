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
