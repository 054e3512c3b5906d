"""What an element states and what a question asks: ``key : value`` items, ``Default:`` lines, table cells, and
the attribute words of a question, in English and Korean.

Pure text (no database, no model), shared by the heading scope (``core.retrieval``: a scope must hold the
attribute asked) and the answerers (``core.answering``: which element states it, and its value).

A question names an attribute in words a sheet may not use: "How heavy" asks for "Weight", "가벼운" for "무게",
and an English question over a Korean sheet asks "weight" of "무게". :data:`ASKED_AS` lists the question words
and the nouns they ask for, :data:`GENERAL` the few words every spec uses in both languages; a :class:`Lexicon`
(built from the collection's own field words by ``core.retrieval.lexicon``) pairs a field's names across scripts.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from core.elements import ROW_SEPARATOR, row_cells
from core.paren_defaults import paren_default as _paren_default
from core.quantities import is_unit
from core.site_markup import is_markup_only, read_markup
from core.textnorm import english_stem, is_function_word, match_terms

__all__ = ["DEFAULT_WORDS", "GENERAL", "Lexicon", "NO_LEXICON", "Statement", "as_written", "asked_and_spelled",
           "asked_reading", "asks_default", "attribute_share", "documented_statement", "expanded_query",
           "in_other_number", "is_lead_in", "last_parts", "name_share", "number_forms", "option_heading",
           "question_terms", "row_cell", "run_together_pairs", "singular", "standalone_words", "statement",
           "states_default", "table_cell", "table_rows", "terms", "without_default_phrases"]

# Question words and the nouns they ask for (each row: the words, then the nouns).
ASKED_AS = (
    ("heavy weigh weighs heavier heaviest light lighter lightest", "weight"),
    ("wide wider widest", "width"),
    ("tall taller tallest high higher highest", "height"),
    ("long longer longest short shorter shortest", "length life duration"),
    ("far farther farthest", "range distance"),
    ("fast faster fastest quick quicker quickest", "speed"),
    ("cost costs expensive cheap cheaper cheapest", "price"),
    ("big bigger biggest large larger largest small smaller smallest", "size"),
    ("bright brighter brightest dim dimmer dimmest", "brightness"),
    ("무겁 무거 가볍 가벼", "무게"),
    ("밝 어둡 어두", "밝기"),
    ("싸 비싸 저렴", "가격"),
    ("빠르 느리", "속도"),
)
# Words of any spec or reference in both languages (each row: English words, Korean words). A field's own name
# ("weight" ↔ "무게") is paired by the collection's embedder from the collection's own fields
# (core.retrieval.lexicon), never listed here.
GENERAL = (
    ("without excluding", "제외"),
    ("including included", "포함"),
    ("default", "기본값 기본"),
    ("maximum max", "최대"),
    ("minimum min", "최소"),
    ("typical", "typ"),
)


def _table(rows: Iterable[tuple[str, str]], *, both_ways: bool) -> dict[str, frozenset[str]]:
    out: dict[str, set[str]] = {}
    for left, right in rows:
        lefts = [english_stem(w) for w in left.split()]
        rights = [english_stem(w) for w in right.split()]
        for word in lefts:
            out.setdefault(word, set()).update(rights)
        if both_ways:
            for word in rights:
                out.setdefault(word, set()).update(lefts)
    return {k: frozenset(v) for k, v in out.items()}


_ASKED: dict[str, frozenset[str]] = _table(ASKED_AS, both_ways=False)
_TRANSLATED: dict[str, frozenset[str]] = _table(GENERAL, both_ways=True)

_KEY_VALUE = re.compile(r"^\s*(?:[-*+]\s+)?(?P<key>[^:：\n]{1,60}?)\s*[:：]\s+(?P<value>\S[^\n]*)$")
# "The default is to assume any version" states a behaviour, not a value: "is to" reads no value ("to"). An empty
# "Default:" line in a block of fields ("Default: ` `" › "Config default: …") states none: the value is read on the
# next line only when that line is not the next field.
_DEFAULT = re.compile(
    r"\bdefaults?(?:\s+value)?(?:\s+to\s+|\s+is\s+(?!to\b)|[ \t]*:[ \t]*(?:\n\s*(?![^\n:]{1,60}:(?:\s|$)))?"
    r"|\s+(?=`)"
    r"|\s+(?=(?:true|false|null|undefined|none|-?\d[\d_.]*)(?!\w|\.\d)))"  # "Default false.", "Default 10."
    r"(?P<value>`[^`\n]+`|'[^'\n]*'|\"[^\"\n]*\"|-?\d[\d_.]*(?:\s*[*+/x×-]\s*\d[\d_.]*)+(?![\w.])|[^\s,;]+)",
    re.I,
)
# The option a "Default:" item documents: its leading code span or bold name ("* **`marker`**:", "`timeout` :").
_LEADING_NAME = re.compile(r"^\s*(?:[-*+]\s+)?(?:\*\*`?(?P<bold>[^*`\n]+)`?\*\*|`(?P<code>[^`\n]+)`)")
# Without markup ("idempotent boolean (optional) - Default: true") the option is the item's first word; a
# capitalised word of prose ("When set to true, …", "The name of the header, defaults to …") is none.
_FIRST_WORD = re.compile(r"^\s*(?:[-*+]\s+)?(?P<word>[A-Za-z_$][\w.$-]*)")
_PROSE_WORD = re.compile(r"[A-Z][a-z]+")
# A heading naming one option: an identifier in code or written like one, a type after it ("`level` (String)",
# "options.msgPrefix (String)", "inflate", "connectionTimeout"); a capitalised word names a section ("Options").
_OPTION_HEADING = re.compile(r"^(?P<tick>`?)(?P<name>[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)(?P=tick)"
                             r"\s*(?:\([^)]*\)|\{[^}]*\})?\s*:?$")
_DASHED_OPTION_HEADING = re.compile(r"^(?P<tick>`?)(?P<name>[a-z_$][\w$]*(?:-[a-z0-9_$][\w$]*)+)(?P=tick)"
                                    r"\s*(?:\([^)]*\)|\{[^}]*\})?\s*:?$")
_STRUCK = re.compile(r"^~~(.+)~~$")
_NUMBER_ONLY = re.compile(r"-?\d[\d,.]*")
_NEXT_WORD = re.compile(r"[ \t]+([^\s,;.]+)")
_TABLE_SPLIT = re.compile(r"(?<!\\)\|")
_MAX_VALUE_CHARS = 200
_HANGUL_WORD = re.compile(r"[\uac00-\ud7a3]+")

Statement = tuple[str, str]  # (key, value)


def terms(text: str) -> frozenset[str]:
    """The text's match terms, English ones lightly stemmed (released ~ release). A Korean key the analyser
    reads as a verb form only ("밝기": 밝 + 기) keeps its words as they are, so "밝기 : 350 cd/m²" has a key."""
    return _held_terms(text) if len(text) <= HELD_TERMS_CHARS else _terms(text)


# Cost only: every stage and the reader ask the terms of the same question and hit texts again, question after
# question; the terms of a text up to this long are kept (a long text is read rarely, and not held).
HELD_TERMS_CHARS = 4000


def _terms(text: str) -> frozenset[str]:
    found = frozenset(english_stem(t) for t in match_terms(text))
    return found or frozenset(_HANGUL_WORD.findall(text))


_held_terms = lru_cache(maxsize=20_000)(_terms)


# Korean adjective stems the question may use in any ending ("가장 밝은", "더 가벼운"): the analyser drops
# adjectives, so they are matched on the question's words as written.
_KOREAN_ASKED = tuple(sorted({w for row, _ in ASKED_AS for w in row.split() if _HANGUL_WORD.fullmatch(w)}))


def _korean_asked(text: str) -> set[str]:
    words = _HANGUL_WORD.findall(text)
    return {n for k in _KOREAN_ASKED if any(w.startswith(k) for w in words) for n in _ASKED.get(k, ())}


@dataclass(frozen=True)
class Lexicon:
    """Pairs of term sets naming one field in two scripts (``{"weight"}`` ↔ ``{"무게"}``): a question holding a
    pair's first set also asks for its second. Built per collection by ``core.retrieval.lexicon``."""

    pairs: tuple[tuple[frozenset[str], frozenset[str]], ...] = ()
    # each pair's target as the collection writes it ("viewing angle" for the terms view, angl), "" when unknown:
    # full-text search matches words as written, and a term cut to its stem ("angl") matches no stored word
    spellings: tuple[str, ...] = ()
    # the spellings that are names the question writes in the other script's letters ("kookmin" for 국민은행,
    # core.retrieval.loanword_pairs): a name pins what it names, where a field's word is every table's
    names: frozenset[str] = frozenset()

    def __bool__(self) -> bool:
        return bool(self.pairs)

    def _fired(self, found: frozenset[str] | set[str], kept: frozenset[str]) -> list[int]:
        """The pairs ``found`` asks for, the longest match first: a pair whose source is part of another pair's
        the question holds is not used ("contrast ratio" → 명암비, not also "ratio" → 비율); a pair touching
        ``kept`` (the question's names) never is, but a name's own spelling in the other script (``names``)."""
        fired = [i for i, (source, _) in enumerate(self.pairs) if source <= found
                 and (not source & kept or (i < len(self.spellings) and self.spellings[i] in self.names))]
        return [i for i in fired if not any(self.pairs[i][0] < self.pairs[j][0] for j in fired)]

    def translate(self, found: frozenset[str] | set[str], kept: frozenset[str] = frozenset()) -> frozenset[str]:
        """The counterparts of ``found``'s terms (see :meth:`_fired`)."""
        return frozenset(t for i in self._fired(found, kept) for t in self.pairs[i][1])

    def spelled(self, found: frozenset[str] | set[str], kept: frozenset[str] = frozenset()) -> list[str]:
        """The counterparts of ``found``'s terms as the collection writes them (their terms where unknown)."""
        out: list[str] = []
        for i in self._fired(found, kept):
            spelling = self.spellings[i] if i < len(self.spellings) else ""
            out += [spelling] if spelling else sorted(self.pairs[i][1])
        return list(dict.fromkeys(out))


NO_LEXICON = Lexicon()


def expand_terms(found: Iterable[str], text: str = "", lexicon: Lexicon = NO_LEXICON,
                 kept: frozenset[str] = frozenset()) -> frozenset[str]:
    """``found`` (the terms of ``text``) with the nouns its question words ask for and their names in the other
    language (the general words, and the collection's fields by ``lexicon``; never ``kept``, the names)."""
    out = set(found) | _korean_asked(text)
    out |= {n for t in list(out) for n in _ASKED.get(t, ())}
    out |= {n for t in list(out) for n in _TRANSLATED.get(t, ())}
    if lexicon:
        out |= lexicon.translate(out, kept)
    return frozenset(out)


# Asking for a default without the word: "if I don't pass one", "when it is omitted", "if I leave it out", "what
# does it fall back to", "out of the box", "지정하지 않으면". The phrase's own words ("pass", "leave", "back") name
# nothing the answer states.
_DEFAULT_PHRASES = re.compile(
    r"\b(?:if|when|unless|in case)\b[^?,.]{0,40}?\b(?:do\s*n[o']?t|does\s*n[o']?t|did\s*n[o']?t|never)\s+"
    r"(?:pass|set|give|specify|provide|supply|configure|include|add|define)\b(?:\s+(?:one|it|any|anything|that|"
    r"this|them|a\s+value))?"
    r"|\bwithout\s+(?:passing|setting|specifying|giving|providing|supplying|configuring)\b(?:\s+(?:one|it|any))?"
    r"|\b(?:if|when)\b[^?,.]{0,30}?\b(?:is|are|'s|gets?)\s+(?:omitted|unset|missing|absent|left\s+out|"
    r"not\s+(?:set|given|specified|provided|passed|supplied))\b"
    r"|\b(?:isn'?t|aren'?t|not)\s+(?:set|given|specified|provided|passed|supplied)\b"
    r"|\b(?:leave|leaving|left)\s+(?:\w+\s+){0,2}?(?:out|off|unset|empty|blank)\b|\bomit(?:s|ted|ting)?\b"
    r"|\b(?:falls?|falling|fell)\s+back(?:\s+(?:on|to))?\b|\bout\s+of\s+the\s+box\b"
    r"|(?:지정|설정|입력)하지\s*않(?:으면|을\s*때)|생략하면|안\s*(?:주면|넣으면)",
    re.I,
)
_DEFAULT_WORD = "default"
# The words a default is stated with, as full-text search reads them (no stemming).
DEFAULT_WORDS = ("default", "defaults")


_DEFAULT_TERMS = frozenset({"default", "defaults", "기본값"})


def asks_default(question: str) -> bool:
    """Whether ``question`` asks for a default value, in the word or in other words ("if I don't pass one")."""
    return bool(_DEFAULT_PHRASES.search(question)) or bool(terms(question) & _DEFAULT_TERMS)


def without_default_phrases(question: str, replacement: str = "") -> str:
    """``question`` with its ways of asking for a default in other words replaced (by nothing: their words
    name nothing; by "default" for the terms an answer is matched by)."""
    return _DEFAULT_PHRASES.sub(f" {replacement} " if replacement else " ", question)


def question_terms(question: str, lexicon: Lexicon = NO_LEXICON) -> frozenset[str]:
    """The question's terms, with the attribute nouns its words ask for, in both languages (the collection's
    field names through ``lexicon``); asking for a default in other words ("if I don't pass one") asks for
    "default"."""
    return asked_reading(question, lexicon)[0]


def expanded_query(question: str, lexicon: Lexicon = NO_LEXICON) -> str:
    """``question`` with the attribute nouns its words ask for, in both languages ("heavier" → "weight 무게",
    "if I don't pass one" → "default"): what full-text search needs to find a Korean sheet's "무게" for an
    English question."""
    return asked_reading(question, lexicon)[1]


def asked_reading(question: str, lexicon: Lexicon = NO_LEXICON,
                  kept: frozenset[str] = frozenset()) -> tuple[frozenset[str], str]:
    """:func:`question_terms` and :func:`expanded_query` of ``question``, read with one parse (``kept``: the terms
    of its names, never translated)."""
    asked, query, _ = asked_and_spelled(question, lexicon, kept)
    return asked, query


def asked_and_spelled(question: str, lexicon: Lexicon = NO_LEXICON, kept: frozenset[str] = frozenset()
                      ) -> tuple[frozenset[str], str, tuple[str, ...]]:
    """:func:`asked_reading` of ``question`` and the collection's fields it asks for in the other script, as the
    collection writes them ("viewing angle" for "시야각": what a lookup by the attribute's own words searches for),
    read with one parse."""
    plain = without_default_phrases(question, _DEFAULT_WORD)
    found = terms(plain)
    own = expand_terms(found, plain)
    asked = own | lexicon.translate(own, kept) if lexicon else own
    added = sorted(asked - found)
    spelled = tuple(w for w in lexicon.spelled(own, kept) if not terms(w) <= own) if lexicon else ()
    return asked, f"{plain} {' '.join(added)}" if added else plain, spelled


def attribute_share(asked: frozenset[str], key: str) -> float:
    """The share of ``key``'s terms the question asks for ("Weight (with stand)" fully, "Dimensions without
    stand" a quarter), a key's word in either number (:func:`singular`: "Aliases" states the "alias" asked)."""
    key_terms = singular(terms(key))
    return len(singular(asked) & key_terms) / len(key_terms) if key_terms else 0.0


_PLAIN_WORD = re.compile(r"(?<![\w.$])[A-Za-z]{3,}(?![\w$])")


def as_written(text: str, stems: Sequence[str]) -> list[str]:
    """``stems``, each as ``text`` writes it where it writes it as another word ("speaker" as "speakers", "requir" as
    "required"): a lookup searches its words as written and their stems as prefixes, so a stem searched as a word
    matches only a document writing exactly it, and hides the prefix search of the word it was cut from."""
    written: dict[str, str] = {}
    for word in (w.casefold() for w in _PLAIN_WORD.findall(text) if w[1:].islower()):  # no identifier's parts
        for stem in terms(word):
            if stem != word:
                written.setdefault(stem, word)
    return [written.get(stem, stem) for stem in stems]


def in_other_number(text: str, stems: frozenset[str]) -> list[str]:
    """The words of ``text`` whose term is one of ``stems``, each in its other number where the stemmer splits the
    two ("alias" → "aliases", "aliases" → "alias", "policy" → "policies"): a key written in the plural ("Aliases:
    …") shares no stem with the question's singular (alia, alias), so a lookup by the asked words spells both."""
    out: list[str] = []
    for word in (w.casefold() for w in _PLAIN_WORD.findall(text) if w[1:].islower()):  # no identifier's parts
        if word not in stems and not terms(word) & stems:
            continue
        if word.endswith("ies"):
            others = [word[:-3] + "y"]
        elif word.endswith(("ses", "xes", "zes", "ches", "shes")):
            others = [word[:-2]]
        elif word.endswith("s") and not word.endswith("ss"):
            others = [word[:-1], word + "es"]  # "tags" or "alias": which one, the spelling does not say
        elif word.endswith(("s", "x", "z", "ch", "sh")):
            others = [word + "es"]
        elif word.endswith("y") and word[-2] not in "aeiou":
            others = [word[:-1] + "ies"]
        else:
            # a plain "s" plural ("rules", "tags") the lookup's prefix match finds from the singular; spelled here,
            # a verb's "s" form ("use" → "uses", whose stem is "us") only pulls in other words
            others = []
        # only a form the stemmer keeps apart from the word: the others ("passes" for "pass") the lookup finds as is
        out += [o for o in others if o not in out and not terms(o) & terms(word)]
    return out


def singular(words: frozenset[str]) -> frozenset[str]:
    """Stems with a plural's last ``s`` cut (not a double ``s``: class, access), to match a key to the question:
    the light stemmer makes alias of "Aliases", alia of "alias", and leaves "tags" whole."""
    return frozenset(w[:-1] if w.endswith("s") and not w.endswith("ss") else w for w in words)


_KEBAB = re.compile(r"(?<=[^\W_])-(?=[^\W_])")


def terms_with_parts(text: str) -> frozenset[str]:
    """:func:`terms`, and the words of each kebab-case name as terms too: a question asks "which container
    engine" or "the fetch timeout" in words, the document names the option ``container-engine``,
    ``fetch-timeout``, ``musllinux-aarch64-image`` (one term each, whole)."""
    return terms(text) | kebab_words(text)


def number_forms(word: str) -> tuple[str, ...]:
    """The plural of an English singular and the singular of a plural ("retry" ↔ "retries", "log" ↔ "logs",
    "box" ↔ "boxes"), as written; () for a word of fewer than three letters or not plain letters."""
    if len(word) < 3 or not word.isascii() or not word.isalpha():
        return ()
    if word.endswith("ies") and len(word) > 4:
        return (word[:-3] + "y",)
    if word.endswith("es") and len(word) > 4:
        return (word[:-2], word[:-1])
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return (word[:-1],)
    if word.endswith("y") and word[-2] not in "aeiou":
        return (word[:-1] + "ies",)
    return (word + "s", word + "es")


_STANDALONE = re.compile(r"(?<![\w.\-/:@`])[A-Za-z]{2,}(?![\w.\-/:@`(])")


def standalone_words(text: str) -> list[str]:
    """The words ``text`` writes apart as plain words, casefolded, once each, no stop words: not a part of a dotted,
    hyphenated or code name ("stream.Readable", "semantic-release"), nor a camelCase name ("emitClose")."""
    return [w for w in dict.fromkeys(w.casefold() for w in _STANDALONE.findall(text)
                                     if w[1:].islower() or w.isupper()) if terms(w)]


def run_together_pairs(text: str) -> frozenset[str]:
    """Each ordered pair of the words ``text`` writes apart, as plain words (not a part of a dotted, hyphenated or
    code name: "stream.Readable", "semantic-release"), run together and casefolded: "the max retry timeout" →
    maxretry, maxtimeout, retrytimeout, …; what a name may write as one word (``fetch-retry-maxtimeout``)."""
    words = standalone_words(text)
    return frozenset(a + b for a in words for b in words if a != b)


def kebab_words(name: str) -> frozenset[str]:
    """The terms of the words a kebab-case name joins (``fetch-timeout`` → fetch, timeout); none for a text
    without one."""
    return terms(_KEBAB.sub(" ", name)) if _KEBAB.search(name) else frozenset()


def snake_words(name: str) -> frozenset[str]:
    """The terms of the words a snake_case name joins (``annotations_path`` → annotation, path); none for a text
    that is not one such name."""
    name = name.strip("`")
    return terms(name.replace("_", " ")) if _SNAKE_NAME.fullmatch(name) else frozenset()


_SNAKE_NAME = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+")


def last_parts(found: Iterable[str]) -> frozenset[str]:
    """Terms of names with a dotted one cut to its last part (``options.msgprefix`` → ``msgprefix``)."""
    return frozenset(english_stem(t.rsplit(".", 1)[-1]) for t in found)


def name_share(wanted: frozenset[str], key: str) -> float:
    """:func:`attribute_share` for an option's name, dotted parts compared by their last one: the question's
    ``msgPrefix`` names the heading ``options.msgPrefix``, its ``cookie.sameSite`` the key ``sameSite``."""
    key_terms = last_parts(terms(key))
    return len(key_terms & last_parts(wanted)) / len(key_terms) if key_terms else 0.0


def option_share(wanted: frozenset[str], key: str) -> float:
    """:func:`name_share`, a kebab-case or snake_case option also named by its words: `script-shell` asked as "which
    shell runs scripts", `annotations_path` as "the annotations path"."""
    words = kebab_words(key)
    whole = name_share(wanted, key)
    if not words and (snake := snake_words(key)):
        # named by its words only all of them: one option's name holds another's (`members_order`, `members`)
        return 1.0 if snake <= wanted else whole
    return max(whole, len(words & wanted) / len(words)) if words else whole


def clean_value(value: str) -> str:
    """A stated value without the sentence's end, nor the close of a parenthesis it sits in ("(default: x)")."""
    value = value.strip().rstrip(".").strip()
    while value.endswith(")") and value.count(")") > value.count("("):
        value = value[:-1].rstrip().rstrip(".").strip()
    return value


def table_rows(text: str) -> list[list[str]]:
    """The rows of a pipe table (header first), separator rows dropped."""
    rows = []
    for line in text.splitlines():
        line = line.strip()
        if not line.startswith("|"):
            continue
        cells = [c.strip().replace("\\|", "|") for c in _TABLE_SPLIT.split(line.strip("|"))]
        if not all(set(c) <= set("-: ") for c in cells):
            rows.append(cells)
    return rows


def table_column(wanted: frozenset[str], header: list[str], row_name: str = "") -> int | None:
    """The column (not the first) whose header the question's terms name best, apart from the row's name."""
    left = wanted - terms(row_name)
    scores = [len(left & terms(h)) for h in header]
    column = max(range(1, len(header)), key=lambda i: scores[i], default=None)
    return column if column is not None and scores[column] else None


def table_cell(wanted: frozenset[str], text: str) -> tuple[str, str, str] | None:
    """``(row — column, cell, the row as "header: cell; …")`` of a pipe table: the row and the column the
    question's terms name."""
    rows = table_rows(text)
    if len(rows) < 2:
        return None
    header, body = rows[0], rows[1:]
    # The row first (the entity the question names), then the column among the words left: "Description of
    # type" must not pick a "Type" column because of the row's name.
    row_terms = [terms(" ".join(r[:1])) for r in body]
    row = max(range(len(body)), key=lambda i: len(wanted & row_terms[i]))
    column = table_column(wanted, header, body[row][0])
    if column is None or not wanted & row_terms[row] or column >= len(body[row]):
        return None
    value = body[row][column]
    line = "; ".join(f"{h}: {c}" if h else c for h, c in zip(header, body[row], strict=False) if c)
    return (f"{body[row][0]} — {header[column]}", value, line) if value else None


def row_cell(wanted: frozenset[str], text: str) -> tuple[str, str, str] | None:
    """``(row name, column, cell)`` of a table row (a TableRow element's text, "Option: installer · Default: pip"):
    the column, other than the first, whose header the question's terms name best, apart from the row's name. A
    row without headers reads as ``key · value``."""
    pairs = row_cells(text)
    if len(pairs) < 2:
        return None
    header = [h for h, _ in pairs]
    name = pairs[0][1]
    if not any(header[1:]):
        return name, name, ROW_SEPARATOR.join(c for _, c in pairs[1:])
    column = table_column(wanted, header, name)
    if column is None:
        return None
    return name, header[column], pairs[column][1]


def states_default(text: str) -> bool:
    """Whether ``text`` states a default value ("Defaults to `None`", "Default: `'/'`", a value titled "default
    value")."""
    text = read_markup(text)
    return _DEFAULT.search(text) is not None or _paren_default(text) is not None


def statement(wanted: frozenset[str], text: str, category: str = "") -> Statement | None:
    """``(key, value)`` the text states: a ``Default:`` line, a ``key : value`` item, or a table cell."""
    text = text.strip()
    if category == "CodeSnippet":
        return None  # code sets values ("Fastify({ trustProxy: true })"), it does not state defaults
    if category == "TableRow":
        found = row_cell(wanted, text)
        return (found[1] if found[0] == found[1] else f"{found[0]} — {found[1]}", found[2]) if found else None
    if category == "Table" or text.startswith("|"):
        cell = table_cell(wanted, text)
        return cell[:2] if cell else None
    if is_markup_only(text):
        return None  # "/// admonition | Preview type: preview": a container's options, not the documented values
    text = _field_asked(wanted, read_markup(text))
    default = _DEFAULT.search(text) or _paren_default(text)
    if default:
        name = _LEADING_NAME.match(text)
        first = _FIRST_WORD.match(text)
        key = (name.group("bold") or name.group("code")) if name else (first.group("word") if first else "")
        if first and not name and (first.start("word") == default.start()
                                   or _PROSE_WORD.fullmatch(first.group("word"))):
            # a bare "Default: x" line, or prose stating one, documents the item or heading above it
            key = ""
        value = clean_value(default.group("value"))
        unit = _NEXT_WORD.match(text, default.end())
        if _NUMBER_ONLY.fullmatch(value) and unit and is_unit(unit.group(1)):
            value = f"{value} {unit.group(1)}"  # "Default: 8 MiB": the unit belongs to the value
        return key.strip("`* "), value
    first = text.splitlines()[0] if text else ""
    kv = _KEY_VALUE.match(first)
    if kv and len(kv.group("value")) <= _MAX_VALUE_CHARS and not _is_reply(kv.group("key")):
        return kv.group("key").strip("`*- "), clean_value(kv.group("value"))
    means = _MEANS.match(first)
    if means and len(means.group("value")) <= _MAX_VALUE_CHARS and not is_function_word(means.group("key").split()[0]):
        return means.group("key"), clean_value(means.group("value").rstrip(";."))
    return None


# A definition states its term as a key: '"user" means a person who …', "4 means you specified an option …" (a
# list of exit codes). Asked what the term means, or what the code is, the key is what the question names.
_MEANS = re.compile(r"^\s*(?:[-*+]\s+)?(?:\(\w{1,3}\)\s+|\d{1,2}\.\s+)?[\"“'`]?"
                    r"(?P<key>[\w.\-]{1,30}(?: [\w.\-]{1,30}){0,2})[\"”'`]?\s+means\s+(?P<value>\S[^\n]*)$")


# Fields stated one a line ("Type: `Array`<br>Default: `[]`<br>CLI arguments: `--branches`").
_FIELD_BREAK = re.compile(r"\s*<br\s*/?>\s*|\n")


def _field_asked(wanted: frozenset[str], text: str) -> str:
    """Of a block of ``key: value`` fields, one a line (a line break or ``<br>`` between them), the field whose key
    shares more of the question's terms than the first field's does; else ``text``. The block states each field;
    the question asks one ("the cli flag" of "… CLI arguments: `--branches`" after "Type:" and "Default:")."""
    lines = _FIELD_BREAK.split(text)
    if len(lines) < 2:
        return text
    shared = [len(terms(kv.group("key")) & wanted) if (kv := _KEY_VALUE.match(line)) else 0 for line in lines]
    best = max(range(len(lines)), key=lambda i: shared[i])
    return lines[best] if shared[best] > shared[0] else text


# An FAQ's answer may open with its reply and a colon ("Yes: the port gives 10 W …"): the reply is no field name;
# nor is a cross-reference's "See: https://…", which points at where the value is stated.
_REPLIES = frozenset({"yes", "no", "not yet", "네", "예", "아니요", "아니오", "see", "see also"})


def _is_reply(key: str) -> bool:
    return key.strip("`*- ").casefold() in _REPLIES


# A sentence that introduces what follows it: "… is one of the following:", "다음과 같습니다", "아래 표를 참고하세요".
# A sentence that introduces what follows it: "… is one of the following:", "… are as follows.", "다음과 같습니다",
# "아래 표를 참고하세요". Only the element's last sentence can: "See below for details." or "the following
# releases" inside an answer points elsewhere, and the paragraph still states its own answer.
_LEAD_IN_END = re.compile(r"(?:[:：]|\b(?:the following|as follows|below)[.!]?)\s*$", re.I)
# "아래 두 환경변수를 설정해야 합니다", "다음 세 가지를 지원합니다": "below"/"the following" + a count names what
# comes after as well as "다음과 같습니다" does.
_LEAD_IN_KO = re.compile(r"(?:다음|아래)(?:과|와)?\s*같|(?:다음|아래)\s*(?:표|목록|중)|아래(?:의)?\s"
                         r"|(?:다음|아래)(?:의)?\s+(?:[한두세네]|다섯|\d+)\s*(?:개|가지)?\s")
_LAST_SENTENCE = re.compile(r"(?<=[.!?。])\s+")


def is_lead_in(text: str) -> bool:
    """Whether ``text`` introduces a list or table after it rather than stating something itself."""
    text = text.strip()
    if len(text) > 400:
        return False
    last = _LAST_SENTENCE.split(text)[-1]
    return _LEAD_IN_END.search(last) is not None or _LEAD_IN_KO.search(last) is not None


# One option under two spellings ("### `sourceMap` or `sourcemap`"): the heading names the first.
_SPELLED_TWICE = re.compile(r"^(?P<first>`?[A-Za-z_$][\w$]*`?)\s+or\s+(?P<second>`?[A-Za-z_$][\w$]*`?)$")


def option_heading(heading: str, *, dashed: bool = False) -> str | None:
    """The option a heading names (``"`level` (String)"`` → ``level``, ``"inflate"``, ``"sourceMap or
    sourcemap"`` → ``sourceMap``), or None for a section heading ("Options", "Usage", "Factory"). ``dashed``: a name
    in kebab-case counts too (``dependency-versions``, ``fetch-retries``: the options of a command line or a TOML
    table)."""
    # a struck-through heading ("~~locale~~") names an option the reference keeps documenting as deprecated
    heading = _STRUCK.sub(r"\1", heading.strip())
    twice = _SPELLED_TWICE.match(heading)
    if twice and twice.group("first").strip("`").casefold() == twice.group("second").strip("`").casefold():
        heading = twice.group("first")
    found = _OPTION_HEADING.match(heading)
    if not found and dashed:
        found = _DASHED_OPTION_HEADING.match(heading)
    if not found:
        return None
    name = found.group("name")
    if found.group("tick") or not name[0].isupper() or name.isupper():
        return name
    return None


def documented_statement(wanted: frozenset[str], text: str, category: str = "",
                         heading: str | None = None, *, dashed: bool = False,
                         worded: bool = False) -> tuple[Statement | None, bool]:
    """:func:`statement`, a default stated without its option's name (``+ Default: `0` ``, "When set to true, …
    Defaults to true.") keyed by the option heading it sits under; and whether the key is that heading.
    ``dashed``: as :func:`option_heading`'s; ``worded``: the heading names the option in words ("Wrap Length")."""
    found = statement(wanted, text, category)
    if found and not found[0] and heading:
        option = option_heading(heading, dashed=dashed) or (heading.strip() if worded else None)
        if option:
            return (option, found[1]), True
    return found, False
