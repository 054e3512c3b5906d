"""The sections a question names by their own heading (the reader's unit for them, ``core.answering.extractive``):
what the question asks about is documented there, though the section's prose may say it in other words."""

from __future__ import annotations

import re

from core.answering.asked_words import code_names, heading_in_words, placed_by_translation
from core.answering.evidence import Evidence
from core.retrieval import Context, ContextElement
from core.retrieval.definitions import command_flags, defines_flag
from core.retrieval.entries import heading_name_terms

__all__ = ["NAMED_SECTION_MIN_SHARE", "definitions_first", "heading_name_terms", "named_sections_of", "section_key",
           "spelled_sections_of"]

# A section whose own heading the question names whole documents what is asked, when the heading holds more than
# this share of the question's words: a heading naming a word or two of a longer question ("Black", "What is
# npx?", "The keyboard does not switch" for "What keyboard shortcut switches computers with the KVM?") is a
# mention, not the section asked about; nor is a product's heading naming half of it ("Aster H2" for "Who
# manufactures the casing of the Aster H2?"): the question asks something of the product.
NAMED_SECTION_MIN_SHARE = 0.5

_SECTION_NUMBER = re.compile(r"\d+(?:\.\d+)*\.?")
def section_key(element: ContextElement) -> tuple[str, tuple[str, ...]] | None:
    """The section an element sits in, below its page's title (a title names the page or product, which every
    question about it names too); None at the top of a page."""
    return (element.document_id, element.path) if len(element.path) >= 2 else None


def _heading_terms(heading: str) -> frozenset[str]:
    """A heading's naming terms (:func:`heading_name_terms`) without its numbering ("2.1.3.8 종목별 공매도 잔고 TOP
    50": the words, not "2.1.3.8")."""
    return frozenset(t for t in heading_name_terms(heading) if not _SECTION_NUMBER.fullmatch(t))


def named_sections_of(wanted: frozenset[str], context: Context, names: frozenset[str] = frozenset()
                      ) -> frozenset[tuple[str, tuple[str, ...]]]:
    """The sections (inside the scope) whose own heading the question names whole: what the question asks about
    is documented there ("종목별 공매도 잔고 TOP 50은 어떤 함수?" under "2.1.3.8 종목별 공매도 잔고 TOP 50"), though
    their prose says it in other words ("… 메서드는"). Of two named headings where one holds the other's words and
    more ("종목별 공매도 현황" and "종목별 공매도 잔고 현황"), only the one naming more of the question is the
    section asked about. ``names``: the terms of the question's names (a product, "Aster H2"): a heading of them
    says where, not what, and is named only by the share alone."""
    named: dict[tuple[str, tuple[str, ...]], frozenset[str]] = {}
    for element in context.elements:
        key = section_key(element)
        if key is None or key in named or element.outside_scope or element.role == "ancestor":
            continue
        heading = _heading_terms(element.path[-1])
        # the words the share is of: not the other script's name of a word the heading holds ("license" beside
        # "라이선스"); nor the page title's (the product every question about it names) when the question names
        # every heading between the title and this one too ("hwpx-kit license?" for "hwpx-kit › 라이선스"), unless
        # the heading holds them
        elsewhere = placed_by_translation(heading, context.lexicon)
        if all(_heading_terms(h) & wanted for h in element.path[1:-1]):
            elsewhere |= _heading_terms(element.path[0])
        asked = wanted - (elsewhere - heading)
        # a heading the retrieval's scope chose too (``context.named``) is named at half the words as well: two
        # readings of the question agree ("2.2.2. 시세 조회" for "python-kis 시세 조회는 무슨 함수로 해요?"); not a
        # heading of the question's names ("Aster H2" for "Who manufactures the casing of the Aster H2?")
        share = len(heading) / len(asked) if asked else 1.0
        if heading and heading <= wanted and (share > NAMED_SECTION_MIN_SHARE or (
                share >= NAMED_SECTION_MIN_SHARE and element.path[-1] in context.named and not heading & names)):
            named[key] = heading
    return frozenset(k for k, h in named.items() if not any(h < other for other in named.values()))


def spelled_sections_of(question: str, context: Context) -> frozenset[tuple[str, tuple[str, ...]]]:
    """The sections whose heading, written in words, is a name the question writes in code: "--float-to-top" or
    ``float_to_top`` names ``## Float To Top`` (a configuration reference titles its options in words, the
    question types the flag or the setting). Word for word: "--float-to-top" names neither ``## Dont Float To
    Top`` nor ``## Float Top``."""
    typed = code_names(question)
    return frozenset(key for e in context.elements if (key := section_key(e)) is not None and not e.outside_scope
                     and e.role != "ancestor" and heading_in_words(e.path[-1]) in typed)


def definitions_first(question: str, evidence: list[Evidence]) -> list[Evidence]:
    """``evidence`` with the answering units that only mention the command-line flag the question types after
    those that define it: "what does black --fast do" is answered under "--fast / --safe", not by another page's
    line "… as Black does when passed the --fast flag". The same test as retrieval's
    (:func:`core.retrieval.pipeline.defines_flag`), and a heading that spells the flag's words defines it too
    ("## Float To Top" for "--float-to-top", not "## Dont Float To Top"); a unit that does not answer is neither,
    and keeps its place."""
    flags = command_flags(question)
    if not flags:
        return evidence
    typed = code_names(" ".join(flags))
    kinds = [(True if e.element.path and heading_in_words(e.element.path[-1]) in typed
              else defines_flag(e.element.path, e.element.text, flags)) if e.answers else None for e in evidence]
    if True not in kinds or False not in kinds:
        return evidence
    return ([e for e, d in zip(evidence, kinds, strict=True) if d is not False]
            + [e for e, d in zip(evidence, kinds, strict=True) if d is False])
