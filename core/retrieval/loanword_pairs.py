"""A question's loanwords paired with the collection's own spelling in the other script: "윈도우" asked where the
collection writes "Windows", "로그 레벨" where it writes ``LOG_LEVEL``, "license" where it writes "라이선스".

The field pairs of ``core.retrieval.lexicon`` know only a collection's field words (keys, header cells, short
headings); a loanword the question uses is as often a word of a table cell, an identifier or a heading of many
words. So the question's own words are matched against every word the collection holds (its stored full-text
lexemes, ``core.sql.terms``):

* a word of the other script with the same consonant outline (``core.loanwords``: Korean writes a loanword's
  consonants by fixed rules) is a candidate; an English plural is also its singular ("Windows" is written
  "윈도우"); a Korean word of the collection is read without its particles ("라이선스는" is "라이선스");
* the collection's embedder decides: the candidate closest to the question's word pairs with it when the two are at
  least ``LexiconConfig.pairing_floor`` close and clearly closer than the runner-up (the lexicon's own margin,
  ``LexiconConfig.margin``). An outline shared by chance ("보관" and "begin") is no translation, and the embedder
  says so.

A name written in Latin letters ("kookmin" for 국민, "nonghyup" for 농협) is judged by its spelling instead: it
writes the Korean vowels as well (``core.loanwords.romanises``), where the embedder reads it as a foreign string
(.35 from 국민). It pairs whatever the embedder says, a name of the question too (only so), and a name followed in
the collection by a word the question asks (국민은행, "bank" asked as 은행) is spelled as that compound
(:func:`with_name_compounds`, docs/hlg-multihop9.md).

No word list: the outline is a rule of Korean spelling, the vocabulary the collection's, the judge its embedder.
Cost: the collection's words are read and outlined once per collection version and process; a question embeds its
candidate words once per process (the lexicon's word vectors).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from core.bounded_cache import BoundedCache
from core.loanwords import outline, romanises
from core.statements import Lexicon, terms
from core.store import ElementStore
from core.textnorm import ENGLISH_STOP_WORDS, match_terms, strip_particles

__all__ = ["CollectionWords", "collection_words", "loanword_pairs", "pair_words", "with_name_compounds"]

# Consonant classes an outline needs ("log" and "로그": LK). Shorter outlines are many words' (every vowel-led word).
MIN_OUTLINE = 2
# Candidates of one outline embedded for one question word: the collection's most frequent first.
MAX_CANDIDATES = 8
# The syllables of a Korean word read for its stem: a loanword with its particles ("라이선스에서는") fits.
MAX_SYLLABLES = 8
# Collection versions whose words one process keeps.
CACHE_SIZE = 16

_LATIN = re.compile(r"[a-z]{3,}")
# An English word of the question this long at least: a three-letter one ("get", "use") is as often a verb asked
# with as a thing named, and the embedder ranks such short words close to many.
_LATIN_SOURCE = re.compile(r"[a-z]{4,}")
_HANGUL = re.compile(r"[\uac00-\ud7a3]{2,}")
_QUESTION_WORD = re.compile(r"\w+(?:[.\-]\w+)*")


@dataclass(frozen=True)
class CollectionWords:
    """A collection's words of each script by their outline, most frequent first (a Korean word as the syllable
    prefixes of its lexeme: "라이선스는" under the outlines of 라이, 라이선, 라이선스, 라이선스는)."""

    latin: Mapping[str, tuple[str, ...]]
    hangul: Mapping[str, tuple[tuple[str, str], ...]]  # outline -> (prefix, the lexeme it starts)


_HELD: BoundedCache[tuple, CollectionWords] = BoundedCache(CACHE_SIZE)


def _index(counts: Mapping[str, int]) -> CollectionWords:
    latin: dict[str, list[tuple[int, str]]] = {}
    hangul: dict[str, list[tuple[int, tuple[str, str]]]] = {}
    for lexeme, n in counts.items():
        if _LATIN.fullmatch(lexeme):
            shapes = {outline(lexeme)}
            if lexeme.endswith("s") and not lexeme.endswith("ss"):
                shapes.add(outline(lexeme[:-1]))  # Korean writes the singular: "windows" is 윈도우
            for shape in shapes:
                if len(shape) >= MIN_OUTLINE:
                    latin.setdefault(shape, []).append((n, lexeme))
        elif _HANGUL.fullmatch(lexeme):
            for end in range(2, min(len(lexeme), MAX_SYLLABLES) + 1):
                shape = outline(lexeme[:end])
                if len(shape) >= MIN_OUTLINE:
                    hangul.setdefault(shape, []).append((n, (lexeme[:end], lexeme)))
    return CollectionWords(
        {k: tuple(dict.fromkeys(w for _, w in sorted(v, key=lambda p: (-p[0], p[1])))) for k, v in latin.items()},
        {k: tuple(dict.fromkeys(w for _, w in sorted(v, key=lambda p: (-p[0], p[1])))) for k, v in hangul.items()},
    )


def collection_words(store: ElementStore, version: int) -> CollectionWords:
    """The words of ``store``'s collection at ``version`` (the heading index's) by outline, kept per process."""
    key = (store.url, str(store.collection_id), version)
    held = _HELD.get(key)
    if held is None:
        held = _index(store.read.stored_term_counts())
        _HELD.put(key, held)
    return held


def _question_words(question: str, kept: frozenset[str]) -> list[tuple[str, bool]]:
    """The question's words that may be loanwords, each with its script (``True``: Hangul): whole words of one
    script, particles cut, not its names (``kept``), not stop words."""
    out: list[tuple[str, bool]] = []
    for word in _QUESTION_WORD.findall(question):
        hangul = bool(_HANGUL.fullmatch(word))
        if hangul:
            # the word without its particles, and the nouns of a compound ("윈도우용": 윈도우)
            forms = [strip_particles(word), *sorted(match_terms(word))]
            forms = [f for f in dict.fromkeys(forms) if _HANGUL.fullmatch(f)]
        elif _LATIN_SOURCE.fullmatch(word.casefold()) and word.casefold() not in ENGLISH_STOP_WORDS:
            forms = [word]
        else:
            continue
        for form in forms:
            found = terms(form)
            if found and not found & kept:
                out.append((form.casefold(), hangul))
    return list(dict.fromkeys(out))


def _candidates(word: str, hangul: bool, words: CollectionWords) -> list[str]:
    """The collection's words of the other script sharing ``word``'s outline."""
    if hangul:
        return [w for w in words.latin.get(outline(word), ())][:MAX_CANDIDATES]
    shapes = [outline(word)]
    if word.endswith("s") and not word.endswith("ss"):
        shapes.append(outline(word[:-1]))
    out: list[str] = []
    for shape in shapes:
        for prefix, lexeme in words.hangul.get(shape, ()) if len(shape) >= MIN_OUTLINE else ():
            # the prefix is the lexeme's word, the rest its particles ("라이선스는"), not part of a longer word; a
            # name the word romanises may open a compound (국민 of 국민은행: Korean writes a name and its kind as one)
            if prefix not in out and (prefix in match_terms(lexeme) or romanises(word, prefix)):
                out.append(prefix)
            if len(out) >= MAX_CANDIDATES:
                return out
    return out


def pair_words(sources: Sequence[tuple[str, bool]], words: CollectionWords,
               embed: Callable[[list[str]], list[np.ndarray]], *, floor: float, margin: float,
               romanised: dict[str, frozenset[str]] | None = None,
               romanised_only: frozenset[str] = frozenset(), spelling_floor: float = 0.0) -> Lexicon:
    """Each source word paired with the collection's word of its outline the embedder finds it closest to (unit
    vectors from ``embed``), at least ``floor`` close (``LexiconConfig.pairing_floor``) and ``margin`` closer than
    the runner-up; a word that writes a candidate letter for letter in the other script (``core.loanwords.romanises``)
    pairs with it (the closest such) when the embedder finds them only ``spelling_floor`` close (a loanword's floor,
    ``LexiconConfig.loanword_floor``), and goes into ``romanised`` when given (the candidate, as the collection
    writes it, with the word's terms). A word of ``romanised_only`` (a name) pairs only so."""
    wanted = {(word, hangul): _candidates(word, hangul, words) for word, hangul in sources}
    wanted = {k: v for k, v in wanted.items() if v}
    if not wanted:
        return Lexicon()
    texts = list(dict.fromkeys([*(w for w, _ in wanted), *(c for v in wanted.values() for c in v)]))
    vectors = dict(zip(texts, embed(texts), strict=True))
    pairs, spellings = [], []
    for (word, hangul), candidates in wanted.items():
        # a word written letter for letter in the other script (a romanised name: "kookmin" for 국민, .35) is that
        # word though the embedder reads it as a foreign string; only an English word spelled like a Korean one by
        # chance ("change" and 장애, .27; "data" and 닫아, .15) it finds farther still
        spelled = [c for c in candidates if (romanises(c, word) if hangul else romanises(word, c))
                   and float(vectors[word] @ vectors[c]) >= spelling_floor]
        similarity = sorted(((float(vectors[word] @ vectors[c]), c) for c in spelled or candidates), reverse=True)
        best, chosen = similarity[0]
        second = similarity[1][0] if len(similarity) > 1 else -1.0
        if not spelled and (word in romanised_only or best < floor or best - second < margin):
            continue
        source, target = terms(word), terms(chosen)
        if source and target and source != target:
            pairs.append((source, target))
            spellings.append(chosen)
            if spelled and romanised is not None:
                romanised[chosen] = source
    return Lexicon(tuple(pairs), tuple(spellings))


def loanword_pairs(store: ElementStore, version: int, question: str, kept: frozenset[str],
                   embed: Callable[[list[str]], list[np.ndarray]], *, floor: float, margin: float,
                   romanised: dict[str, frozenset[str]] | None = None, spelling_floor: float = 0.0) -> Lexicon:
    """The loanword pairs of ``question``'s words (its names, ``kept``, left out) over ``store``'s collection;
    the words it writes romanised go into ``romanised`` (:func:`pair_words`)."""
    sources = _question_words(question, kept)
    # a name ("KB Kookmin Bank") is never a loanword, but it may be the collection's name written in Latin letters
    names = [w for w in _question_words(question, frozenset()) if w not in sources and not w[1]]
    if not sources and not names:
        return Lexicon()
    return pair_words([*sources, *names], collection_words(store, version), embed, floor=floor, margin=margin,
                      romanised=romanised, romanised_only=frozenset(w for w, _ in names),
                      spelling_floor=spelling_floor)


def with_name_compounds(lexicon: Lexicon, romanised: Mapping[str, frozenset[str]], words: CollectionWords,
                        asked: frozenset[str]) -> Lexicon:
    """``lexicon`` with each romanised name's pair (``romanised``: its Hangul word, with the source's terms) also
    naming the collection's compounds of the name and a Korean word the question asks (``asked``): "kookmin bank"
    is 국민은행 where the collection writes 국민은행 and "bank" is asked as 은행. Korean writes a name and its kind as
    one word, which full-text search matches only whole; the compound (the most frequent) is the spelling. Each
    such spelling is one of the lexicon's ``names``."""
    if not romanised:
        return lexicon
    pairs, spellings = list(lexicon.pairs), list(lexicon.spellings)
    names = set(lexicon.names)
    for i, (source, target) in enumerate(pairs):
        name = spellings[i] if i < len(spellings) else ""
        if romanised.get(name) != source:
            continue
        compounds = [lexeme for prefix, lexeme in words.hangul.get(outline(name), ())
                     if prefix == name and lexeme != name and lexeme[len(name):] in asked]
        if compounds:
            pairs[i] = (source, target | frozenset(compounds))
            spellings[i] = compounds[0]
        names.add(spellings[i])
    return Lexicon(tuple(pairs), tuple(spellings), frozenset(names))
