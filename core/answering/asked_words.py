"""Which words of a question a unit holds, across the ways a document writes them: an identifier's parts
(``KAKAO_MCP_LOG_LEVEL`` is "log level"), and a word's name in the other script (the question's lexicon pairs:
"license" under "## 라이선스"). Read by the extractive reader (``core.answering.extractive``) and its named sections
(``core.answering.named_sections``)."""

from __future__ import annotations

import re

from core.statements import Lexicon
from core.textnorm import ENGLISH_STOP_WORDS, has_hangul

__all__ = ["asks_what_it_does", "code_names", "heading_in_words", "names_by_parts", "placed_by_translation",
           "words_of"]

_IDENTIFIER_PARTS = re.compile(r"[._\-/:]")


def words_of(found: frozenset[str]) -> frozenset[str]:
    """A key's words: a written identifier as its parts (``KAKAO_MCP_LOG_LEVEL`` is kakao, mcp, log, level)."""
    out = set()
    for term in found:
        parts = [p for p in _IDENTIFIER_PARTS.split(term) if len(p) >= 2 and p not in ENGLISH_STOP_WORDS] \
            if not has_hangul(term) else []
        out.update(parts if len(parts) > 1 else [term])
    return frozenset(out)


def names_by_parts(key: str, wanted: frozenset[str], path_terms: frozenset[str]) -> bool:
    """Whether the question names an identifier (``KAKAO_MCP_LOG_LEVEL``, ``max-line-length``) by its words: every
    part its heading path does not already name ("kakao", "mcp" under "Kakao Moment MCP") is a word of the
    question, and there are two or more parts."""
    parts = [p for p in _IDENTIFIER_PARTS.split(key.strip("`*'\" ").casefold()) if p]
    if len(parts) < 2 or has_hangul(key):
        return False
    rest = {p for p in parts if p not in path_terms}
    return bool(rest) and rest <= wanted


def placed_by_translation(found: frozenset[str], lexicon: Lexicon) -> frozenset[str]:
    """The words whose name in the other script ``found`` holds (the pairs the question was read with): "license"
    for a heading path holding "라이선스" is as placed as "라이선스" is."""
    out: set[str] = set()
    for source, target in lexicon.pairs:
        if target <= found:
            out |= source
        elif source <= found:
            out |= target
    return frozenset(out)


# An option heading written in words, as a configuration reference titles its options ("Wrap Length", "Force Sort
# Within Sections"): two to six words of letters. One capitalised word names a section ("Options", "Usage").
_WORDED_HEADING = re.compile(r"[A-Za-z][A-Za-z']*(?: [A-Za-z][A-Za-z']*){1,5}")
# An option heading that is one snake_case name, in code or not ("`show_source`", "annotations_path").
_SNAKE_HEADING = re.compile(r"`?[a-z][a-z0-9]*(?:_[a-z0-9]+)+`?")
# A name of two or more parts written in code: a setting ("float_to_top") or a flag ("--float-to-top").
_CODE_NAME = re.compile(r"(?<![\w-])-{0,2}([A-Za-z][A-Za-z0-9]*(?:[-_][A-Za-z0-9]+)+)")


def heading_in_words(heading: str) -> tuple[str, ...]:
    """The words, casefolded, of a heading written in words ("Float To Top" → float, to, top) or of one option's
    snake_case name (``annotations_path`` → annotations, path: asked "annotations path default?" in words as a
    heading in words is); none for another."""
    heading = heading.strip()
    if _SNAKE_HEADING.fullmatch(heading):
        return tuple(heading.strip("`").split("_"))
    return tuple(heading.casefold().split()) if _WORDED_HEADING.fullmatch(heading) else ()


def code_names(text: str) -> frozenset[tuple[str, ...]]:
    """The words, casefolded, of each name of two or more parts ``text`` writes in code (``float_to_top``,
    "--float-to-top" → float, to, top): every word, "to" included, so "--float-to-top" is not "No Float Top"."""
    return frozenset(tuple(re.split(r"[-_]", m.casefold())) for m in _CODE_NAME.findall(text))


# Asking what a named thing does or means ("what does load_external_modules do"): its description, not an example.
_ASKS_DOES = re.compile(r"\bwhat\s+(?:does|do)\b.*\b(?:do|mean|stand\s+for)\b|\b(?:describe|explain)\b", re.I)


def asks_what_it_does(question: str) -> bool:
    """Whether ``question`` asks what a thing does or means ("what does X do", "explain X")."""
    return _ASKS_DOES.search(question) is not None


# A yes/no question: an auxiliary opens it or a clause of it ("does X still apply?", "if I pass my own resolver,
# does X still apply?", "where should I put X"): it asks about a behaviour or a place, not a value.
_ASKS_WHETHER = re.compile(r"(?:^|[,:;]\s*|\bwhere\s+)(?:is|are|does|do|did|can|could|will|would|should|has|have)\s+\w",
                           re.I)


def asks_whether(question: str) -> bool:
    """Whether ``question`` asks yes or no, or where ("does X still apply", "…, does it", "where should I put X")."""
    return _ASKS_WHETHER.search(question.strip()) is not None
