"""The question analysed once: :class:`QuestionAnalysis`, built in ``retrieve()`` and handed to every stage.

Every stage used to parse the question again (its terms, its preamble, its names, its shape); the analysis holds
what they read, so each is computed once per question. What depends on the collection (the names a heading
calls, ``core.retrieval.headings.called_names``) is read by the stage that has the collection's heading index.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from core.changelog import references
from core.retrieval.parts import question_parts
from core.retrieval.shape import (
    QuestionShape,
    attribute_identifiers,
    bridge_cue,
    code_names,
    name_runs,
    question_shape,
    split_preamble,
)
from core.statements import (
    NO_LEXICON,
    Lexicon,
    asked_and_spelled,
    asked_reading,
    asks_default,
    terms,
    without_default_phrases,
)

__all__ = ["QuestionAnalysis", "analyse", "name_terms"]

Language = Literal["ko", "en"]
_HANGUL = re.compile(r"[\uac00-\ud7a3]")
_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class QuestionAnalysis:
    """What a question asks, read once (a validated question: ``core.retrieval.question.validate_question``).

    * ``terms``: its terms with the attribute nouns its words ask for, both languages (``question_terms``);
    * ``preamble`` / ``rest``: the leading clause setting the platform, and the question proper;
    * ``names``: runs of name words in the question proper ("Aster H1"); ``codes``: identifiers in code spans
      that name things (``fs.readFile``); ``models``: the names holding a digit ("24FL", "H2");
    * ``shape``: comparative, superlative or list (``None``: about one thing);
    * ``language``: ``ko`` when it holds Hangul, else ``en``; ``asks_default``: it asks for a default value;
    * ``query``: the text full-text search reads (the question with the attribute nouns its words ask for);
    * ``plain``: the question without its ways of asking for a default in other words (their words name nothing),
      and its ``plain_preamble`` and ``plain_rest``: what the heading match reads names from;
    * ``bridge``: why its evidence must bridge two things (a relative clause naming a thing by what it does, two
      questions in one: ``core.retrieval.shape.bridge_cue``), "" when it names one thing and one attribute;
    * ``parts``: the asks of a question asking several facts at once, each a question of its own
      (``core.retrieval.parts``); ``(text,)`` when it asks one thing.
    * ``references``: the issue or pull request numbers it cites ("#3903" → ``3903``);
    * ``lexicon``: the collection's field names across scripts its terms were read with
      (``core.retrieval.lexicon``); a stage reading another text of the question (a part, an attribute) reads it
      with the same; ``spelled``: the fields it asks for in the other script, as the collection writes them
      ("viewing angle" for "시야각"; full-text search matches words as written, not their stems);
      ``spelled_names``: those that are names it writes in the other script's letters ("kookmin bank" for
      국민은행, ``Lexicon.names``), which the search of the whole collection reads with the question.
    """

    text: str
    terms: frozenset[str]
    preamble: str
    rest: str
    rest_terms: frozenset[str]
    names: tuple[str, ...]
    codes: tuple[str, ...]
    models: tuple[str, ...]
    shape: QuestionShape | None
    language: Language
    asks_default: bool
    query: str
    plain: str
    plain_preamble: str
    plain_rest: str
    bridge: str = ""
    parts: tuple[str, ...] = ()
    references: tuple[str, ...] = ()
    lexicon: Lexicon = NO_LEXICON
    spelled: tuple[str, ...] = ()
    spelled_names: tuple[str, ...] = ()

    def identifiers(self, things: frozenset[str] = frozenset()) -> list[str]:
        """The identifiers naming an attribute (``core.retrieval.shape.attribute_identifiers``), ``things``
        (names a heading calls) left out."""
        return attribute_identifiers(self.text, things)

    def writes_in_script_of_spelled(self) -> tuple[str, ...]:
        """:attr:`spelled` when the question also writes, outside its names, words of the script those fields are
        written in (a row's key, "국세청 전송", in an English question asking its "description"): a row holding
        both is found only by the key and the field as the collection writes them; ``()`` otherwise."""
        if not self.spelled:
            return ()
        hangul = _HANGUL.search(self.spelled[0]) is not None
        named = {t for run in self.names for t in terms(run)}
        own = [w for w in _WORD.findall(self.rest) if len(w) > 1
               and (_HANGUL.search(w) is not None if hangul else w.isascii() and w.isalpha())]
        return self.spelled if any(terms(w) - named for w in own) else ()

    def asked_outside(self, place_words: frozenset[str] | set[str]) -> frozenset[str]:
        """The question's terms less those of the words naming a place (a scope's heading words), and less their
        names in the other script (``lexicon``): "모니터" read for "monitor" names the place "monitor" does."""
        place = frozenset(t for w in place_words for t in terms(w))
        return self.terms - place - (self.lexicon.translate(place) if self.lexicon else frozenset())


def name_terms(question: str) -> frozenset[str]:
    """The terms of the names ``question`` runs ("Nova 24FL"): what a lexicon never translates."""
    return terms(" ".join(name_runs(split_preamble(question)[1])))


def analyse(question: str, lexicon: Lexicon = NO_LEXICON) -> QuestionAnalysis:
    """The analysis of ``question`` (already validated), its terms in both scripts through ``lexicon``."""
    preamble, rest = split_preamble(question)
    names = name_runs(rest)
    kept = terms(" ".join(names)) if lexicon else frozenset()
    asked, query, spelled = asked_and_spelled(question, lexicon, kept)
    plain = without_default_phrases(question)
    plain_preamble, plain_rest = split_preamble(plain)
    return QuestionAnalysis(
        text=question,
        terms=asked,
        preamble=preamble,
        rest=rest,
        rest_terms=asked if rest == question else asked_reading(rest, lexicon, kept)[0],
        names=names,
        codes=tuple(code_names(question)),
        models=tuple(w for run in names for w in run.split() if any(c.isdigit() for c in w)
                     and any(c.isalpha() for c in w)),
        shape=question_shape(question),
        language="ko" if _HANGUL.search(question) else "en",
        asks_default=asks_default(question),
        query=query,
        plain=plain,
        plain_preamble=plain_preamble,
        plain_rest=plain_rest,
        bridge=bridge_cue(question),
        parts=question_parts(question),
        references=references(question),
        lexicon=lexicon,
        spelled=spelled,
        spelled_names=tuple(w for w in spelled if w in lexicon.names),
    )
