"""The consonant outline of a word, alike for an English word and its Korean loanword spelling ("tilt" and "틸트",
"swivel" and "스위블", "panel" and "패널"): what an embedder trained on meaning misses when a field's Korean name
is the English word written in Hangul.

Korean writes a loanword's consonants by fixed rules: voiced and voiceless stops fall together (b/p/v/f → ㅂ/ㅍ,
d/t → ㄷ/ㅌ, g/k/c → ㄱ/ㅋ), l and r are one letter (ㄹ), w and y are vowels, a vowel is added after a final
consonant (ㅡ), and an r after a vowel is not written. The outline keeps one class per consonant on both sides,
so the two spellings of one word meet. Pure text: no dictionary, no model.
"""

from __future__ import annotations

import functools
import re

__all__ = ["outline", "romanises"]

# Hangul syllable = initial * 588 + medial * 28 + final, from U+AC00.
_INITIALS = ["K", "K", "N", "T", "T", "L", "M", "P", "P", "S", "S", "", "J", "J", "J", "K", "T", "P", "H"]
_FINALS = ["", "K", "K", "KS", "N", "NJ", "NH", "T", "L", "LK", "LM", "LP", "LS", "LT", "LP", "LH", "M", "P", "PS",
           "T", "T", "NK", "T", "T", "K", "T", "P", "T"]
_ENGLISH = [
    (re.compile(r"ph"), "P"), (re.compile(r"(?:ch|tch)"), "J"), (re.compile(r"(?:sh|th)"), "S"),
    (re.compile(r"ng"), "NK"), (re.compile(r"ck|q|x"), "K"), (re.compile(r"c(?=[eiy])"), "S"),
    (re.compile(r"[bpvf]"), "P"), (re.compile(r"[dt]"), "T"), (re.compile(r"[gkc]"), "K"),
    (re.compile(r"[sz]"), "S"), (re.compile(r"j"), "J"), (re.compile(r"[lr]"), "L"), (re.compile(r"m"), "M"),
    (re.compile(r"n"), "N"), (re.compile(r"h"), "H"),
]
_R_AFTER_VOWEL = re.compile(r"(?<=[aeiou])r(?![aeiouy])")
_DOUBLE = re.compile(r"([a-z])\1")
_HANGUL = re.compile(r"[\uac00-\ud7a3]+")
_LATIN = re.compile(r"[a-z]+")
# Outlines kept per process: a collection's field words are outlined again at each of its versions.
CACHE_SIZE = 16_384


def _english(word: str) -> str:
    word = _R_AFTER_VOWEL.sub("", _DOUBLE.sub(r"\1", word.casefold()))
    word = re.sub(r"(?<=[aeiou])h(?![aeiou])", "", word)  # "ah", "oh": the h lengthens the vowel
    out = []
    i = 0
    while i < len(word):
        for pattern, cls in _ENGLISH:
            found = pattern.match(word, i)
            if found:
                out.append(cls)
                i = found.end()
                break
        else:
            i += 1  # a vowel, w or y
    return "".join(out)


def _korean(word: str) -> str:
    out = []
    for char in word:
        code = ord(char) - 0xAC00
        out.append(_INITIALS[code // 588] + _FINALS[code % 28])
    return re.sub(r"(L)\1", r"\1", "".join(out))  # 컬러 writes one l twice


@functools.lru_cache(maxsize=CACHE_SIZE)
def outline(word: str) -> str:
    """The consonant classes of ``word`` (English or Hangul), "" for a word of other letters or of both."""
    if _HANGUL.fullmatch(word):
        return _korean(word)
    if _LATIN.fullmatch(word.casefold()):
        return _english(word)
    return ""


# How Korean is written in Latin letters, per jamo: the Revised Romanization, McCune-Reischauer without its marks and
# the spellings names and brands commonly use ("kookmin" 국민, "hyundai" 현대, "nonghyup" 농협, "woori" 우리). A final
# consonant is also written as it sounds before the next syllable (국민 is said "gungmin": k, g or ng).
_R_INITIALS = ["g|k", "kk|gg|k|g", "n", "d|t", "tt|dd|t|d", "r|l|n", "m", "b|p", "pp|bb|p|b", "s|sh", "ss|s", "",
               "j|ch", "jj|tch|j|ch", "ch|j", "k", "t", "p", "h|"]
_R_MEDIALS = ["a", "ae|ai|e", "ya", "yae|ye", "eo|o|u", "e", "yeo|yo|yu", "ye", "o|oh", "wa", "wae", "oe|oi|we",
              "yo", "u|oo|wu|woo", "wo|weo", "we", "wi", "yu|yoo", "eu|u", "ui|eui|i", "i|ee"]
_R_FINALS = ["", "k|g|ng", "k|g|ng", "k|g", "n|l", "n", "n", "t|d|n|s", "l|r|n", "k|l", "m|l", "l|p", "l", "l",
             "p|l", "l", "m", "p|b|m", "p", "t|s|n|d", "t|s|n", "ng|n", "t|n", "t|n", "k", "t|n", "p", "t|n|"]


@functools.lru_cache(maxsize=CACHE_SIZE)
def _romanised(hangul: str) -> re.Pattern[str] | None:
    parts = []
    for char in hangul:
        code = ord(char) - 0xAC00
        if not 0 <= code < 11172:
            return None
        parts.append(f"(?:{_R_INITIALS[code // 588]})(?:{_R_MEDIALS[code % 588 // 28]})(?:{_R_FINALS[code % 28]})")
    return re.compile("".join(parts))


def romanises(latin: str, hangul: str) -> bool:
    """Whether ``latin`` is ``hangul`` written in Latin letters, vowels and all: a transliterated name ("kookmin" for
    "국민"), which a meaning embedder places no closer than a chance look-alike, where a loanword's outline alone
    says too little (its vowels are the other language's)."""
    pattern = _romanised(hangul) if _HANGUL.fullmatch(hangul) else None
    return bool(pattern and pattern.fullmatch(latin.casefold()))
