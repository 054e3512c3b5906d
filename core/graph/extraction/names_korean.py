"""Korean names: noun runs from kiwipiepy's tokens (proper nouns, institutions, places, persons next to a role)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from core import textnorm
from core.graph.extraction.lexicon import LOC_SUFFIXES_KO, ORG_SUFFIXES_KO, ROLE_KEYS, SENTENCE_ROLES, STOP_NAMES
from core.text import strip_josa

_NOUN_TAGS = frozenset({"NNP", "NNG"})


@dataclass
class _Compound:
    start: int
    end: int
    tags: list[str]

    @property
    def proper(self) -> bool:
        return "NNP" in self.tags


def korean_runs(text: str, tokens: Sequence) -> list[tuple[str, str, bool]]:
    """(name, type, strong) noun runs of one sentence from Kiwi tokens (see the module docstring)."""
    compounds: list[_Compound] = []
    cur: _Compound | None = None
    toks = list(tokens)
    for idx, tok in enumerate(toks):
        tag = tok.tag
        is_noun = tag in _NOUN_TAGS
        is_root = tag == "XR" and idx + 1 < len(toks) and toks[idx + 1].tag in _NOUN_TAGS and (
            toks[idx + 1].start == tok.start + tok.len
        )
        if is_noun or is_root:
            if cur is not None and tok.start == cur.end:
                cur.end = tok.start + tok.len
                cur.tags.append(tag)
            else:
                if cur is not None:
                    compounds.append(cur)
                cur = _Compound(tok.start, tok.start + tok.len, [tag])
        else:
            if cur is not None:
                compounds.append(cur)
            cur = None
    if cur is not None:
        compounds.append(cur)

    def surface(c: _Compound) -> str:
        return text[c.start : c.end]

    roles = [surface(c) in ROLE_KEYS for c in compounds]
    out: list[tuple[str, str, bool]] = []
    for idx, c in enumerate(compounds):
        if surface(c) not in SENTENCE_ROLES:
            continue
        # "원장 서도윤", "원장 한지석 취임": a 3-syllable word right after the role (Kiwi may split the name).
        after = re.match(r" ([가-힣]+)", text[c.end :])
        if after:
            name = strip_josa(after.group(1))
            if len(name) == 3 and name not in ROLE_KEYS:
                out.append((name, "PERSON", True))
        # "서도윤 원장": a proper noun right before the role.
        if idx > 0:
            prev = compounds[idx - 1]
            plain = surface(prev)
            if prev.tags == ["NNP"] and c.start - prev.end == 1 and 2 <= len(plain) <= 4:
                out.append((plain, "PERSON", True))
    persons = {name for name, _, _ in out}

    i = 0
    while i < len(compounds):
        if roles[i] or surface(compounds[i]) in persons:
            i += 1
            continue
        run = _Compound(compounds[i].start, compounds[i].end, list(compounds[i].tags))
        j = i + 1
        while j < len(compounds) and not roles[j] and compounds[j].start - run.end == 1 and text[run.end] == " ":
            nxt = compounds[j]
            if (run.proper and nxt.proper) or (
                surface(nxt).endswith(ORG_SUFFIXES_KO) and (run.proper or len(run.tags) >= 2)
            ):
                run = _Compound(run.start, nxt.end, run.tags + nxt.tags)
                j += 1
            else:
                break
        i = j
        name = surface(run)
        plain = name.replace(" ", "")
        if len(plain) < 2 or plain.isdigit() or name in STOP_NAMES:
            continue
        if name.endswith(ORG_SUFFIXES_KO) and (run.proper or len(run.tags) >= 2):
            out.append((name, "ORGANIZATION", True))
        elif run.proper:
            out.append((name, "LOCATION" if _location_like(name, run) else "NAME", True))
        elif len(run.tags) >= 2 or len(plain) >= 4:
            out.append((name, "CONCEPT", False))
    return out


def _location_like(name: str, run: _Compound) -> bool:
    """An address-like proper-noun run: 대전광역시 유성구, 전라남도 고흥군, 제주도."""
    if run.tags[-1] != "NNP" or not name.endswith(LOC_SUFFIXES_KO):
        return False
    if name.endswith(("광역시", "특별시")):
        return True
    return run.tags.count("NNP") >= 2 or len(name) <= 4


def tokenize(texts: Sequence[str]) -> list:
    """Kiwi tokens of each text, for :func:`korean_runs` (core.textnorm's analyser, shared by the process)."""
    return textnorm.kiwi_tokenize(texts)
