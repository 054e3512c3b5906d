"""Citations for an answer whose model did not cite: each sentence matched to the context element it restates.

A small local model often answers right but cites nothing, cites an id that is not in its context, or answers
with a bare ``[e:ID]``. :func:`repair_citations` keeps every valid citation, drops the ones that point nowhere,
and gives each sentence left without one the citation of the context element that shares most of its words, or
marks it :data:`UNCITED` when no element shares enough: an answer never claims a source it does not have.
A reply that is only citations is no answer (:func:`is_bare_citation`); the caller answers extractively instead.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.partial_tree import CITATION_RE
from core.retrieval import Context, ContextElement

__all__ = ["UNCITED", "CitationRepair", "is_bare_citation", "repair_citations"]

UNCITED = "[uncited]"
# A citation as the prompt asks for it, with the brackets: "[e:1a2b3c4d]" (several ids may share one bracket).
_BRACKETED = re.compile(r"\s*\[\s*e:[0-9a-fA-F]{6,32}(?:\s*[,;]\s*e:[0-9a-fA-F]{6,32})*\s*\]")
_SENTENCE_END = re.compile(r"(?<=[.!?。])\s+|\n+")
_WORD = re.compile(r"\w+", re.UNICODE)
_TOKEN = re.compile(r"\d+(?:[.,]\d+)*(?!\w)|\w+", re.UNICODE)  # "5.4" is one token
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_STOPWORDS = frozenset(
    "the and for with are was were its this that has have from into than then also about which what who "
    "can will not but all any our your their there here been being".split())
_HANGUL = re.compile(r"[\uac00-\ud7a3]")
NUMBER_WEIGHT = 3  # a number shared is worth three words: it is the fact a sentence states
MIN_SHARED = 2  # weight a sentence must share with an element (less for a sentence that has less)
MIN_SHARE = 0.25  # and the share of the sentence's weight that is


@dataclass(frozen=True)
class CitationRepair:
    text: str
    attached: int  # sentences given a citation here
    uncited: int  # sentences marked UNCITED
    dropped: int  # citations removed because they point at no element of the context


def is_bare_citation(text: str) -> bool:
    """Whether ``text`` has citations and nothing else worth reading."""
    return bool(CITATION_RE.search(text)) and not _WORD.search(CITATION_RE.sub(" ", text))


def repair_citations(text: str, context: Context) -> CitationRepair | None:
    """``text`` with its citations made valid (see the module docstring), or None when it needs nothing: it cites
    at least one element of ``context`` and none outside it."""
    valid_prefixes = [e.element_id.lower() for e in context.elements]
    good, bad = _split_citations(text, valid_prefixes)
    if good and not bad:
        return None
    attached = uncited = 0
    out: list[str] = []
    for sentence, separator in _sentences(text):
        cites, wrong = _split_citations(sentence, valid_prefixes)
        kept = _drop_citations(sentence, wrong) if wrong else sentence
        needs = (not good or wrong) and not cites
        if needs and _WORD.search(_BRACKETED.sub(" ", kept)):
            element = _best_element(kept, context.elements)
            body, end = _split_end(kept)
            if element is not None:
                kept = f"{body} [e:{element.short_id}]{end}"
                attached += 1
            else:
                kept = f"{body} {UNCITED}{end}"
                uncited += 1
        out.append(kept + separator)
    return CitationRepair("".join(out).rstrip(), attached, uncited, len(bad))


def _split_citations(text: str, valid_prefixes: list[str]) -> tuple[list[str], list[str]]:
    """(prefixes that name exactly one element, prefixes that name none or several) cited in ``text``."""
    good, bad = [], []
    for match in CITATION_RE.finditer(text):
        prefix = match.group(1).lower()
        (good if sum(1 for i in valid_prefixes if i.startswith(prefix)) == 1 else bad).append(prefix)
    return good, bad


def _drop_citations(sentence: str, prefixes: list[str]) -> str:
    wrong = set(prefixes)

    def keep(match: re.Match[str]) -> str:
        ids = re.findall(r"e:([0-9a-fA-F]{6,32})", match.group(0))
        left = [i for i in ids if i.lower() not in wrong]
        return f" [{', '.join('e:' + i for i in left)}]" if left else ""

    return _BRACKETED.sub(keep, sentence)


def _sentences(text: str) -> list[tuple[str, str]]:
    """(sentence, the whitespace after it) pieces whose concatenation is ``text``."""
    pieces: list[tuple[str, str]] = []
    start = 0
    for match in _SENTENCE_END.finditer(text):
        pieces.append((text[start:match.start()], match.group(0)))
        start = match.end()
    if start < len(text):
        pieces.append((text[start:], ""))
    return [(s, sep) for s, sep in pieces if s.strip() or sep]


def _split_end(sentence: str) -> tuple[str, str]:
    """(the sentence without its closing punctuation, that punctuation), so the citation goes before it."""
    match = re.search(r"[.!?。]+\s*$", sentence)
    return (sentence[:match.start()], sentence[match.start():].rstrip()) if match else (sentence.rstrip(), "")


def _words(text: str) -> dict[str, int]:
    """The words of ``text`` that can tie it to an element, with their weights."""
    words: dict[str, int] = {}
    for word in _TOKEN.findall(CITATION_RE.sub(" ", text).lower()):
        if _NUMBER.fullmatch(word):
            words[word] = NUMBER_WEIGHT
        elif _HANGUL.search(word):
            words[word[:2]] = 1  # Korean particles attach to the word: its first syllables are the stem
        elif len(word) >= 2 and word not in _STOPWORDS:
            words[word] = 1
    return words


def _best_element(sentence: str, elements: list[ContextElement]) -> ContextElement | None:
    """The element sharing most weight with ``sentence`` (hits first on ties, then context order), if enough."""
    words = _words(sentence)
    total = sum(words.values())
    if not total:
        return None
    need = min(MIN_SHARED, total)
    best: tuple[float, bool, int] | None = None
    chosen = None
    for order, element in enumerate(elements):
        shared = sum(words[w] for w in words.keys() & _words(element.text).keys())
        if shared < need or shared / total < MIN_SHARE:
            continue
        key = (shared, element.role == "hit", -order)
        if best is None or key > best:
            best, chosen = key, element
    return chosen
