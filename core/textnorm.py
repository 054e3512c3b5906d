"""One Korean/English text normaliser: the terms that full-text search, the answerer and the graph compare.

A *term* is a content word in a comparable form:

* English (any non-Hangul word): NFKC, casefolded, kept whole across inner ``. - _`` (``usb-c``, ``1.2.4``,
  ``foo_bar``, ``v16.7.0``); stop/function words and single letters are dropped, digits are kept.
* Korean: each word (어절) is analysed by kiwipiepy and its trailing particles (조사), endings (어미), copula and
  verb-forming suffixes are cut off by their part-of-speech tags, not by a suffix list, so ``한빛우주과학연구원은``
  gives ``한빛우주과학연구원`` and ``개발했나요`` gives ``개발``. A word left with only function morphemes
  (pronouns such as 무엇, determiners such as 몇, adverbs such as 얼마나, the light verbs 있/하/되) is dropped.

:func:`match_terms` adds the nouns inside Korean compounds (``한빛``, ``우주``, ``과학``, ``연구원``), because
Korean spacing of compounds varies between a question and a document.

Each distinct word is analysed once (an LRU cache), and words without Hangul never reach the analyser.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from kiwipiepy import Kiwi

__all__ = [
    "ENGLISH_STOP_WORDS",
    "content_words",
    "english_stem",
    "has_hangul",
    "is_release_version",
    "is_function_word",
    "kiwi_split_sentences",
    "match_terms",
    "name_words",
    "strip_particles",
    "term_set",
    "terms",
    "version_forms",
    "without_particle",
]

# Function words of questions and prose that match half of any corpus and carry no subject.
ENGLISH_STOP_WORDS: frozenset[str] = frozenset(
    "a an and any are as at be been but by can could did do does doing for from had has have how i if in into "
    "is it its may me might much many must my no not of on or our shall should so than that the their them then "
    "there these they this those to us was we were what when where which while who whom whose why will with would "
    "you your".split()
)

# A word: letters/digits (any script, underscore included) joined by inner dots and hyphens; trailing
# punctuation ("x.y?", "end.") is not part of it.
_WORD = re.compile(r"\w+(?:[.\-]\w+)*")
# Words longer than this are not analysed (a run of Hangul without spaces from a broken file).
_MAX_ANALYSED = 40

# Tags of morphemes that end a Korean word without adding meaning: particles (J*), endings (E*), the copula
# (VCP/VCN), verb/adjective-forming suffixes (하다, 되다), auxiliaries, symbols and punctuation.
_TRAILING_PREFIXES = ("J", "E")
_TRAILING_TAGS = frozenset(
    {"VCP", "VCN", "XSV", "XSA", "XSM", "VX", "SF", "SP", "SS", "SSO", "SSC", "SE", "SO", "SW", "SB", "W_EMOJI"}
)
# Tags that carry no subject on their own: pronouns (무엇, 어디), determiners (몇, 무슨), adverbs (얼마나, 언제),
# interjections, bound nouns (개, 것), affixes.
_FUNCTION_TAGS = frozenset({"NP", "MM", "MAG", "MAJ", "IC", "NNB", "XPN", "XSN", "VX", "VCP", "VCN"})
_NOMINAL_TAGS = frozenset({"NNG", "NNP", "NR", "SL", "SN", "SH", "XR"})
# Question words that kiwipiepy tags as content (얼마 is a common noun to it, 어떻다 an adjective).
_KOREAN_QUESTION_WORDS = frozenset({"얼마", "어떻", "어떠", "어찌"})
# The plural suffix adds nothing to a term (연구원들 is 연구원); other suffixes (과학적, 안정성) change meaning.
_PLURAL = "들"


# A syllable of Hangul (U+AC00..U+D7A3). Found by the regex engine: asked of every term and hit text, a loop over
# the characters in Python was about 0.2 ms of a short question's own time.
_HANGUL_SYLLABLE = re.compile("[\uac00-\ud7a3]")


def has_hangul(text: str) -> bool:
    return _HANGUL_SYLLABLE.search(text) is not None


@lru_cache(maxsize=1)
def _kiwi() -> Kiwi:
    from kiwipiepy import Kiwi

    # The multi-word dictionary (names of several words, such as sports clubs) more than halves the analyser's start
    # (load and first analysis, 7.3 -> 3.0 s measured under load) and changed the terms of 1 of the 8,932 Korean
    # lines of the samples and the Korean corpora (a code example's football club names): docs/speed10.md
    return Kiwi(load_multi_dict=False)


_KIWI_LOCK = threading.Lock()


def kiwi_tokenize(texts: Sequence[str]) -> list:
    """Kiwi tokens of each text, on the one analyser of the process (loading a second costs seconds and
    hundreds of MB; Kiwi is not safe to call from two threads at once, hence the lock)."""
    kiwi = _kiwi()
    with _KIWI_LOCK:
        return [kiwi.tokenize(text) for text in texts]


def kiwi_split_sentences(text: str) -> list[str]:
    """Kiwi's sentences of a Korean text, on the process's one analyser."""
    kiwi = _kiwi()
    with _KIWI_LOCK:
        return [s.text.strip() for s in kiwi.split_into_sents(text) if s.text.strip()]


@dataclass(frozen=True)
class _Analysis:
    stem: str  # the surface word with trailing particles/endings cut off (case kept)
    term: str  # the comparable form ("" for a function word): the stem, or a lone verb's dictionary stem
    parts: tuple[str, ...]  # nouns of a compound (two or more), each at least 2 characters


def _base_tag(tag: str) -> str:
    return tag.split("-", 1)[0]  # "VA-I" (irregular adjective) → "VA"


_Morpheme = tuple[str, str, int, int]  # form, base tag, start, end (offsets within the word)


def _cut(word: str, morphemes: list[_Morpheme]) -> _Analysis:
    """Cut a Hangul-bearing word after its last content morpheme (see the module docstring)."""
    if not morphemes:
        return _Analysis(word, word.casefold(), ())
    keep = len(morphemes)
    while keep > 0:
        tag = morphemes[keep - 1][1]
        if tag.startswith(_TRAILING_PREFIXES) or tag in _TRAILING_TAGS:
            keep -= 1
        else:
            break
    while keep > 0 and morphemes[keep - 1][0] == _PLURAL and morphemes[keep - 1][1] == "XSN":
        keep -= 1
    if keep == 0:
        return _Analysis(word, "", ())
    kept = morphemes[:keep]
    # A contraction (나+의 → 내, 가볍+ᆫ → 가벼운) makes a stripped morpheme overlap a kept one: the cut then moves
    # to the end of the kept morphemes, so a surface syllable is never split.
    cut = morphemes[keep][2] if keep < len(morphemes) else len(word)
    kept_end = max(end for _form, _tag, _start, end in kept)
    contracted = kept_end > cut
    stem = word[: max(cut, kept_end)].strip() or word
    tags = [tag for _form, tag, _start, _end in kept]
    if len(kept) == 1 and tags[0] in ("VV", "VA"):
        lemma = kept[0][0]
        term = "" if len(lemma) < 2 or lemma in _KOREAN_QUESTION_WORDS else lemma
        return _Analysis(stem, term, ())
    if stem in _KOREAN_QUESTION_WORDS:
        return _Analysis(stem, "", ())
    # A name the analyser does not know comes out as a contraction of function morphemes (미리내 → 미리+나+의):
    # a stem of two or more syllables that needed a contraction is kept as a word.
    if all(tag in _FUNCTION_TAGS for tag in tags) and not (contracted and len(stem) >= 2):
        return _Analysis(stem, "", ())
    # The nouns of a compound (보증기간 → 보증, 기간; 발사일 → 발사) so a differently spaced or derived word matches.
    nouns = tuple(form for form, tag, _s, _e in kept if tag in _NOMINAL_TAGS and len(form) >= 2 and form != stem)
    return _Analysis(stem, stem, nouns if len(kept) >= 2 else ())


def _finish(analysis: _Analysis) -> _Analysis:
    if analysis.term and not has_hangul(analysis.term):
        # "24FL의" → "24FL": what is left is an English/number word and follows the English rule.
        return _Analysis(analysis.stem, _english(analysis.term).term, ())
    return _Analysis(analysis.stem, analysis.term.casefold(), tuple(p.casefold() for p in analysis.parts))


def _english(word: str) -> _Analysis:
    folded = word.casefold()
    keep = folded not in ENGLISH_STOP_WORDS and (len(folded) > 1 or folded.isdigit())
    # "v2.29.3" is also the version "2.29.3" a question names without its "v"
    bare = (folded[1:],) if keep and _VERSION.fullmatch(folded) and folded.startswith("v") else ()
    return _Analysis(word, folded if keep else "", bare)


# A version number: dotted numbers, perhaps after a "v" ("2.29.3", "v1.12", "4.3").
_VERSION = re.compile(r"v?\d+(?:\.\d+){1,3}")


def version_forms(word: str) -> tuple[str, ...]:
    """The other ways a version is written, "v" on or off ("2.29.3" ↔ "v2.29.3"); () for any other word."""
    folded = word.casefold()
    if not _VERSION.fullmatch(folded):
        return ()
    return (folded[1:],) if folded.startswith("v") else (f"v{folded}",)


def is_release_version(word: str) -> bool:
    """Whether ``word`` names one release: three or more dotted numbers ("1.14.0"), or two after a "v" ("v4.3").
    Two bare numbers ("3.12") are as often a Python or a spec version as a release of the thing documented."""
    folded = word.casefold()
    return bool(_VERSION.fullmatch(folded)) and (folded.startswith("v") or folded.count(".") >= 2)


@lru_cache(maxsize=20_000)
def _analyses(text: str) -> tuple[_Analysis, ...]:
    """One analysis per word of ``text`` (NFKC applied, case kept); Korean words are analysed in context."""
    if not text:
        return ()
    text = unicodedata.normalize("NFKC", text)
    spans = [(m.start(), m.end()) for m in _WORD.finditer(text)]
    if not has_hangul(text):
        return tuple(_english(text[a:b]) for a, b in spans)
    with _KIWI_LOCK:
        tokens = _kiwi().tokenize(text)
    out = []
    position = 0
    for a, b in spans:
        word = text[a:b]
        if not has_hangul(word):
            out.append(_english(word))
            continue
        if b - a > _MAX_ANALYSED:
            out.append(_Analysis(word, word.casefold(), ()))
            continue
        while position < len(tokens) and tokens[position].start < a:
            position += 1
        morphemes = []
        index = position
        while index < len(tokens) and tokens[index].start < b:
            t = tokens[index]
            morphemes.append((t.form, _base_tag(t.tag), t.start - a, min(t.start + t.len, b) - a))
            index += 1
        out.append(_finish(_cut(word, morphemes)))
    return tuple(out)


def without_particle(lexeme: str) -> str:
    """A Latin or number word written with a Korean particle or ending ("svcamt는", "api에서", "005는") as the word
    alone ("svcamt", "api", "005"), else ``lexeme`` as it is. Postgres's parser keeps the two scripts of one word in
    one lexeme, which a document writing the word bare ("### svcAmt", "은행코드: 005") never holds; the analyser cuts
    the particle by its part of speech, so a compound whose Korean half is a noun keeps it ("kb국민은행")."""
    if not has_hangul(lexeme) or has_hangul(lexeme[0]):
        return lexeme
    found = _analyses(lexeme)
    if len(found) != 1 or not found[0].term or has_hangul(found[0].term):
        return lexeme
    return found[0].term


def terms(text: str) -> list[str]:
    """The content terms of ``text`` in order (repeats kept): casefolded, particles and stop words removed."""
    return [a.term for a in _analyses(text) if a.term]


def term_set(text: str) -> frozenset[str]:
    """The distinct :func:`terms` of ``text``."""
    return frozenset(terms(text))


def match_terms(text: str) -> frozenset[str]:
    """:func:`term_set` plus the nouns inside Korean compounds: the set to compare a question and a passage by."""
    out: set[str] = set()
    for analysis in _analyses(text):
        if analysis.term:
            out.add(analysis.term)
            out.update(analysis.parts)
    return frozenset(out)


# Names the rule of name_words: stored heading words (core.sql.headings) made under another rule are remade.
NAME_WORDS_VERSION = "2"
_NAME_PARTS = re.compile(r"[._\-/:]")
_HANGUL_START = re.compile(r"[\uac00-\ud7a3]")


@lru_cache(maxsize=50_000)
def name_words(text: str) -> frozenset[str]:
    """The words of a name (a heading) to match a question against: :func:`match_terms` plus the parts of
    dotted/hyphenated names (``fs.readfile`` → ``fs``, ``readfile``)."""
    out = set(match_terms(text))
    for term in list(out):
        if not _HANGUL_START.match(term):
            parts = [p for p in _NAME_PARTS.split(term) if len(p) >= 2 and p not in ENGLISH_STOP_WORDS]
            if len(parts) > 1:
                out.update(parts)
    return frozenset(out)


def strip_particles(word: str) -> str:
    """``word`` without its trailing Korean particles and endings, case kept (``"HSSI의"`` → ``"HSSI"``).

    A word that is only a particle, or has no Hangul, comes back unchanged; the result is never empty.
    """
    word = word.strip()
    if (
        not has_hangul(word)
        or len(word) > _MAX_ANALYSED
        or _WORD.fullmatch(unicodedata.normalize("NFKC", word)) is None
    ):
        return word
    analyses = _analyses(word)
    return (analyses[0].stem if analyses else "") or word


_ENGLISH_SUFFIXES = ("ings", "ing", "ed", "es", "s", "e")


def english_stem(term: str) -> str:
    """A light stem of an English term for matching inflections (released/release → releas, charging/charge →
    charg): one common suffix, then a final e, cut from words of five letters or more. Other terms unchanged."""
    if len(term) < 5 or not term.isascii() or not term.isalpha():
        return term
    for suffix in _ENGLISH_SUFFIXES:
        if suffix == "s" and term.endswith("ss"):
            break  # class, access: not a plural
        if term.endswith(suffix) and len(term) - len(suffix) >= 4:
            term = term[: -len(suffix)]
            break
    return term[:-1] if term.endswith("e") and len(term) > 4 else term


def is_function_word(word: str) -> bool:
    """True when ``word`` yields no term: a stop word, a particle, a question word, punctuation."""
    return not terms(word)


def content_words(text: str) -> list[str]:
    """The words of ``text`` that carry content, particles stripped, case kept (for entity and name extraction)."""
    return [a.stem for a in _analyses(text) if a.term]
