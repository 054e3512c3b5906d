"""A question that asks for several facts at once, read as its parts (issue 31): "default npm loglevel and default
maxsockets?", "which build frontend and which container engine?", "X vs Y", "A, B or C".

Each part is asked on its own: the router searches each (``core.retrieval.pipeline``), and the extractive answer
quotes the best unit for each, each cited (``core.answering.extractive``). A question that names one thing and one
attribute has one part, itself. The leading clause that sets the platform ("cibuildwheel defaults:") goes with every
part. A side too thin to be asked alone (fewer than ``min_terms`` terms, "search and replace") keeps the question
whole, so a phrase joined by "and" inside a name is never split.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from core import textnorm
from core.elements import ROW_KEY_SEPARATOR, ROW_SEPARATOR
from core.retrieval.shape import split_preamble
from core.statements import option_heading, terms

__all__ = ["PartsConfig", "asked_noun", "asked_of_clause_value", "dates_in", "question_parts", "referred_thing",
           "referred_value", "with_referred_thing", "with_referred_value"]

# Coordinators that join two asks. "or" joins two only in a question asking which (a choice: "which is bigger, A
# or B"); elsewhere it names alternatives of one thing ("accessories such as cables, or wall brackets").
# Korean joins two asks by a word ("그리고", "및"), by the particle "(이)랑" ("X 운영시간이랑 Y 운영시간은?"), and by
# "-고" closing a clause: after a comma ("언제 전송되고, …"), a question word ("svcAmt는 뭐고 trDt는 뭐야?"), or
# before a clause that points back at what the first asks for ("005는 어느 은행이고 그 은행 운영시간은").
_JOINS = re.compile(r"\s*(?:,\s*and\s+|\s+(?:and|vs\.?|versus|compared (?:to|with))\s+|,?\s*(?:그리고|및)\s+"
                    r"|(?<=\w\w)(?:이랑|랑)\s+|(?<=[가-힣])고,\s+|(?:(?<=뭐)|(?<=어디)|(?<=언제)|(?<=누구)|(?<=얼마))고\s+"
                    r"|(?<=[가-힣])(?:이)?고\s+(?=그\s))",
                    re.I)
# A later part that points back at the thing the part before it found by its value ("그 은행 운영시간은", "그 원장이
# 취임한 건", "and what are that bank's hours"): the demonstrative, and the noun it points with.
# English only in the possessive ("that bank's"): "that" also opens a relative clause ("the arch that auto32 picks").
_BACK_REFERENCE = re.compile(r"(?<![\w])그\s+([^\s,?？]+)|\bthat\s+(\w+)(?='s\b)", re.I)
# A later part that points back at the day the part before found ("which hatchling version came out the same day",
# "같은 날 나온 버전은"): asked of that date.
_SAME_DAY = re.compile(r"\b(?:on\s+)?the\s+same\s+(?:day|date)\b|같은\s*날(?:에|짜에)?", re.I)
_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b|\b\d{4}[./]\d{1,2}[./]\d{1,2}\b")
_ASIDE_AFTER = re.compile(r"\s*[(（][^()（）]*[)）]\s*$")
_OR = re.compile(r",?\s+or\s+", re.I)
_WHICH = re.compile(r"^\W*which\b", re.I)
# code spans and parentheses: a join inside `a and b` or "(A vs B)" qualifies one ask, it splits nothing
_ASIDES = re.compile(r"`[^`\n]{1,200}`|\([^()]*(?:\([^()]*\)[^()]*)*\)")
# examples of one thing ("accessories such as cables and wall brackets"): one ask, whatever joins them
_EXAMPLES = re.compile(r"\b(?:such as|e\.g\.|for example|including)\b.*$", re.I)
_IDENTIFIER = re.compile(r"[\w]+[-_.][\w.-]*\w|\w*\d\w*")
_LABEL = re.compile(r"^([^:?`]{1,40}:)\s+")
_ASKING = re.compile(r"^(?:what|which|who|where|when|how|is|are|does|do|can)\b", re.I)
# a Korean word that asks (it ends the question): 뭐, 뭐야, 무엇인가요, 언제, 어디, 누구, 얼마, 몇
_KO_ASKING = re.compile(r"^(?:뭐|무엇|언제|어디|누구|얼마|몇)")


@dataclass(frozen=True)
class PartsConfig:
    min_terms: int = 2  # a part without a question word or an identifier holds this many terms
    max_parts: int = 3  # a question of more parts is a list: the comparison table's, not one quote each
    # the most words an alternative names, and the object of the qualifier it stands in for ("apple silicon")
    alternative_words: int = 3


DEFAULT_PARTS = PartsConfig()


def _masked(text: str) -> str:
    """``text`` with its code spans blanked to the same length: a join inside `a and b` splits nothing."""
    blank = lambda m: "\x00" * len(m.group(0))  # noqa: E731
    return _EXAMPLES.sub(blank, _ASIDES.sub(blank, text))


def question_parts(question: str, config: PartsConfig = DEFAULT_PARTS) -> tuple[str, ...]:
    """The asks of ``question``, each a question of its own with the shared leading clause; ``(question,)`` when it
    asks one thing."""
    preamble, rest = split_preamble(question)
    label = _LABEL.match(rest)  # "cibuildwheel defaults: …" names what every ask is about
    if label:
        listed = _listed_owners(label.group(1), rest[label.end():], config)
        if listed is not None:
            return _asked_with(preamble, listed)
        preamble, rest = f"{preamble} {label.group(1)}", rest[label.end():]
    body = rest.rstrip(" ?？.")
    masked = _masked(body)
    cuts = [0]
    joins = [*_JOINS.finditer(masked), *(_OR.finditer(masked) if _WHICH.match(masked) else ())]
    for m in sorted(joins, key=lambda m: m.start()):
        cuts += [m.start(), m.end()]
    cuts.append(len(body))
    pieces = [body[cuts[i]:cuts[i + 1]].strip(" ,") for i in range(0, len(cuts), 2)]
    shared = _korean_attributes(body) if len(pieces) <= 2 else None
    shared = _owner_shared(pieces) if shared is None and len(pieces) == 2 else shared
    if shared is not None:
        return _asked_with(preamble, shared)
    if not 2 <= len(pieces) <= config.max_parts:
        return (question,)
    completed = [pieces[0], *(_completed(p, pieces[0], config) for p in pieces[1:])]
    if not all(_asks_alone(p, [q for q in pieces if q is not p], config, later=i > 0, framed=completed[i] != p)
               for i, p in enumerate(pieces)):
        return (question,)
    framed = [c != p for c, p in zip(completed, pieces, strict=True)]
    return _asked_with(preamble, _shared_tail(_shared_head(completed, framed), framed=framed[-1]))


def _listed_owners(label: str, rest: str, config: PartsConfig) -> list[str] | None:
    """A label naming several owners, the ask after it once: "rollup commonjs and rollup replace: sourceMap
    defaults?" asks each owner's ("rollup commonjs: sourceMap defaults", "rollup replace: sourceMap defaults").
    Only where the ask itself joins nothing (else it has parts of its own) and each owner is a name of a few words,
    not a clause ("does X have an api, and what does …:"); the label's owners are not compared, each is asked."""
    label = label.rstrip(": ")
    cuts = [0, *(i for m in _JOINS.finditer(_masked(label)) for i in (m.start(), m.end())), len(label)]
    owners = [label[cuts[i]:cuts[i + 1]].strip(" ,") for i in range(0, len(cuts), 2)]
    if not 2 <= len(owners) <= config.max_parts or _JOINS.search(_masked(rest)) or _WHICH.match(rest):
        return None
    if any(not o or len(o.split()) > 3 or _ASKING.match(o) for o in owners):
        return None
    ask = rest.rstrip(" ?？.")
    return [f"{o}: {ask}" for o in owners]


def _asked_with(preamble: str, pieces: Sequence[str]) -> tuple[str, ...]:
    """Each piece asked as a question of its own, after the leading clause every piece shares."""
    lead = preamble.strip()
    return tuple(f"{lead} {p}?".strip() if lead else f"{p}?" for p in pieces)


# Two attributes of one owner: "(what are) the weight and the warranty of the Nova 24FL" (each side a short phrase).
_FIRST_ATTRIBUTE = re.compile(r"^(?:(?:what|which)\s+(?:is|are|was|were)\s+)?(?:the\s+)?"
                              r"(?:[a-z][\w-]*\s+){0,2}[a-z][\w-]*$", re.I)
_LAST_ATTRIBUTE = re.compile(r"^(?:the\s+)?(?:[a-z][\w-]*\s+){0,2}[a-z][\w-]*\s+of\s+(?P<owner>.*\S)$", re.I)


def _owner_shared(pieces: list[str]) -> list[str] | None:
    """Two attributes asked of one owner named once, after the last: "the weight and the warranty of the Nova
    24FL" → "the weight of the Nova 24FL", "the warranty of the Nova 24FL". The first side alone names no owner,
    so it was too thin to be asked and the question was answered whole, by one of the two."""
    first, last = pieces
    owner = _LAST_ATTRIBUTE.match(last)
    # a first side naming its own owner ("type of build_hooks and type of force_include") is asked as it is
    if owner is None or not _FIRST_ATTRIBUTE.match(first) or re.search(r"\bof\b", first, re.I):
        return None
    return [f"{first} of {owner.group('owner')}", last]


@lru_cache(maxsize=4096)
def _korean_attributes(body: str) -> tuple[str, ...] | None:
    """Two attributes of one owner joined by a conjunctive particle in Korean ("Nova 24FL 무게와 보증기간은", "X의
    무게하고 보증기간을 알려줘"): each asked with what leads the first ("Nova 24FL의 무게", "Nova 24FL의 보증기간을
    알려줘"). Only common nouns on both sides: names joined so ("국민은행과 우리은행 운영시간") are things compared or
    listed, and the comparison's own reading keeps them."""
    if not _HANGUL.search(body):
        return None
    # kept per text: the analysis, the extractive answer and the part reader each ask it of the same question, and
    # the analyser's pass is most of a short Korean question's own Python time
    tokens = textnorm.kiwi_tokenize([body])[0]
    joins = [i for i, t in enumerate(tokens) if t.form in _KO_ATTRIBUTE_JOINS and t.tag in ("JC", "JKB")
             and 0 < i < len(tokens) - 1 and tokens[i - 1].tag in _KO_NOUN and tokens[i + 1].tag == "NNG"
             and tokens[i - 1].start + tokens[i - 1].len == t.start]
    if len(joins) != 1:
        return None
    # the second attribute is one word of nouns, and nothing after it names anything ("보증기간은?", "응답속도를
    # 알려줘"): a longer side ("광고계정 ID 환경변수 이름은", "발급오류내역 조회 API의 2001 설명은") shares a head
    # noun with the first, or names its own owner
    end = joins[0] + 1
    while end + 1 < len(tokens) and tokens[end + 1].tag in _KO_NOUN \
            and tokens[end].start + tokens[end].len == tokens[end + 1].start:
        end += 1
    if any(t.tag in _KO_NAMING for t in tokens[end + 1:]):
        return None
    join = tokens[joins[0]]
    # the first attribute: the nouns right before the particle, back to the first that is no common noun
    at = joins[0] - 1
    while at > 0 and tokens[at - 1].tag in _KO_NOUN and tokens[at - 1].start + tokens[at - 1].len == tokens[at].start:
        at -= 1
    lead, first = body[: tokens[at].start], body[tokens[at].start: join.start]
    return f"{lead}{first}".strip(), f"{lead}{body[join.start + join.len:].strip()}".strip()


_HANGUL = re.compile(r"[가-힣]")
_KO_ATTRIBUTE_JOINS = frozenset({"와", "과", "하고", "랑", "이랑"})
_KO_NOUN = frozenset({"NNG", "XSN"})  # a common noun, and a suffix making one ("주사" + "율")
_KO_NAMING = frozenset({"NNG", "NNP", "NNB", "SL", "SN", "SH"})


def _completed(piece: str, first: str, config: PartsConfig = DEFAULT_PARTS) -> str:
    """A later side that names only the alternative, asked as the first side is: "… wheels on Intel vs on Apple
    Silicon" → "… wheels on Apple Silicon" (the first side from its last word that the alternative begins with),
    "which is bigger in npm, searchlimit or fetch-retry-factor" → "which is bigger in npm, fetch-retry-factor" (the
    first side up to its last comma); one word, in place of the first side's last word, or of the word before a
    Korean question word that ends it ("X의 A는 뭐고 B는" → "X의 B는 뭐"). A side asking by its own question word
    stands as it is."""
    if _ASKING.match(piece):
        return _with_antecedents(piece, first)
    if (owned := _of_its_owner(piece, first)) is not None:
        return owned
    head = piece.split()[0].casefold() if piece.split() else ""
    words = first.split()
    at = max((i for i, w in enumerate(words) if w.casefold() == head), default=-1)
    if 0 < at and len(piece.split()) < len(words):
        return " ".join([*words[:at], *_with_its_noun(piece, words[at:]), *_carried(piece, words[at:])])
    if "," in first:
        return f"{first.rsplit(',', 1)[0]}, {piece}"
    if (alternative := _qualifier_alternative(piece, words, config.alternative_words)) is not None:
        return alternative
    if len(piece.split()) == 1 and len(words) > 2:  # "… cache folder on linux vs windows": the last word's alternative
        if _KO_ASKING.match(words[-1]) and not _KO_ASKING.match(piece):  # "X의 A는 뭐고 B는": the word before it
            return " ".join([*words[:-2], piece, words[-1]])
        return " ".join([*words[:-1], piece])
    return piece


# A later side opening with a possessive ("its alias", "their default") asks an attribute of what the first side
# names: the first side's words up to its last name (a word with a digit, an inner dash, dot or underscore, or an
# inner capital: "MD013", "semantic-release", "tagFormat").
_POSSESSIVE = re.compile(r"^(?:its|their)\s+(?=\w)", re.I)
_NAME_WORD = re.compile(r"\w*\d\w*|\w+[-_.][\w.-]*\w|\w*[a-z][A-Z]\w*")


def _of_its_owner(piece: str, first: str) -> str | None:
    """``piece`` asked of the thing the first side names, when it opens with "its" or "their": "markdownlint MD013
    default line length and its alias" asks "markdownlint MD013 alias" (its owner: the first side up to its last
    name). None when the piece opens otherwise or the first side writes no name: "its" then points at nothing a
    word of the question says, and the side is judged as written."""
    possessive = _POSSESSIVE.match(piece)
    if possessive is None:
        return None
    words = first.split()
    last = max((i for i, w in enumerate(words) if _NAME_WORD.fullmatch(w.strip(",:;`'\"()"))), default=-1)
    if last < 0:
        return None
    return " ".join([*words[:last + 1], piece[possessive.end():]])


# Words opening a qualifier ("on intel", "for pypy", "in ms"): a later side that replaces one of the first side's
# qualifiers leaves the others asked of it as well.
_QUALIFIER = frozenset({"for", "on", "in", "of", "with", "at", "from", "under", "by", "via", "within", "without"})
# The pro-form a later side names the first side's thing by ("the max retry timeout … the min one").
_ONE = re.compile(r"^ones?\W*$", re.I)


# A first part asking of a thing by a question word and a noun, then its subject: "how many log files does npm
# keep", "which build frontend does cibuildwheel use".
_WH_NOUN = re.compile(r"^(?:how\s+many|how\s+much|which|what)\s+(?P<noun>[^,?]+?)\s+"
                      r"(?:does|do|did|is|are|was|were|can|will|should)\s+(?P<subject>[\w.@/-]+)\b", re.I)
_IT = re.compile(r"\bit\b", re.I)
_THEM = re.compile(r"\b(?:them|they)\b", re.I)


def asked_noun(part: str) -> str | None:
    """The noun a part asks of its subject by ("log files" in "how many log files does npm keep"), or None."""
    found = _WH_NOUN.match(part)
    return found.group("noun") if found else None


def _with_antecedents(piece: str, first: str) -> str:
    """A later part asking by its own question word with the first part's thing as pronouns: "where does it write
    them?" after "how many log files does npm keep" asks "where does npm write log files?" ("them"/"they": the
    first part's noun, "it" beside them: its subject). "it" alone stays: it is the subject as often ("… and does
    it run on pypy?" after "which python versions can black run on") as the noun ("… and where is it
    configured?"). As it is when the first part asks no thing so, or the piece points at nothing plural."""
    found = _WH_NOUN.match(first)
    if found is None or not _THEM.search(piece):
        return piece
    return _THEM.sub(found.group("noun"), _IT.sub(found.group("subject"), piece))


def _qualifier_alternative(piece: str, words: list[str], most: int) -> str | None:
    """A later side of several words naming only the alternative to the object of the first side's last
    qualifier: "minimum macos target for cpython 3.12 on intel vs apple silicon" asks the second side "… for
    cpython 3.12 on apple silicon" (the first side up to and with its last qualifier word, then the piece). Only
    when the piece opens no qualifier of its own, is no longer than that object's room (``most`` words),
    and the object is as short; one word is the last word's alternative (:func:`_completed`). None otherwise."""
    own = piece.split()
    if len(own) < 2 or len(own) > most or any(w.casefold() in _QUALIFIER for w in own) \
            or own[0].casefold() in _DETERMINERS:
        return None
    at = max((i for i, w in enumerate(words) if w.casefold() in _QUALIFIER), default=-1)
    if at < 1 or not 1 <= len(words) - at - 1 <= most:
        return None
    return " ".join([*words[:at + 1], *own])


# A piece opening so names a thing of its own ("the location", "its default"), not the qualifier's alternative.
_DETERMINERS = frozenset({"the", "a", "an", "its", "their", "this", "that", "these", "those", "each", "every"})


def _carried(piece: str, replaced: list[str]) -> list[str]:
    """The first side's qualifiers after the one ``piece`` replaces (``replaced``: the first side from the word
    the piece begins with): "… for cpython 3.9-3.11 on intel and for pypy" asks for pypy on intel, the elided
    "on intel" is the first side's. Only when the piece opens with a qualifier word and has none of the kind it
    would carry ("… for A on intel and for B on arm" carries nothing)."""
    if replaced[0].casefold() not in _QUALIFIER:
        return []
    at = next((i for i in range(1, len(replaced)) if replaced[i].casefold() in _QUALIFIER), None)
    if at is None:
        return []
    own = {w.casefold() for w in piece.split()}
    tail = replaced[at:]
    return [] if any(w.casefold() in own for w in tail if w.casefold() in _QUALIFIER) else tail


def _with_its_noun(piece: str, replaced: list[str]) -> list[str]:
    """``piece``'s words with the pro-form "one" in place of the first side's noun it stands for: "the min one,
    in ms" after "the max retry timeout" is "the min retry timeout, in ms" (the words aligned with the piece's,
    from the one after its modifier up to a qualifier or the end, the modifier being the piece's own)."""
    words = piece.split()
    at = next((i for i, w in enumerate(words) if i >= 2 and _ONE.match(w)), None)
    if at is None or at >= len(replaced):
        return words
    end = next((i for i in range(at, len(replaced)) if replaced[i].casefold() in _QUALIFIER), len(replaced))
    noun = [w.rstrip(",;:") for w in replaced[at:end]]
    if not noun:
        return words
    trailing = words[at][len(words[at].rstrip(",;:")):]
    return [*words[:at], *noun[:-1], noun[-1] + trailing, *words[at + 1:]]


def _shared_tail(pieces: list[str], *, framed: bool) -> list[str]:
    """The first side, a bare name, takes what the last side asks of its own name: "hatch 1.6.0 and hatchling
    1.6.0 release dates" → "hatch 1.6.0 release dates", "HATCH_BUILD_HOOKS_ENABLE vs HATCH_BUILD_HOOKS_ONLY, what
    does each do" → "HATCH_BUILD_HOOKS_ENABLE what does each do". The last side's first words mirror the first
    side's last words word for word (an identifier where the first has one, and only there); the rest is the shared
    ask. A last side already asked in the first side's frame (``framed``) shares nothing more."""
    first, last = pieces[0].split(), pieces[-1].split()
    if framed or _ASKING.match(pieces[0]) or _ASKING.match(pieces[-1]):
        return pieces
    # the first side's last words mirror the last side's first (its leading words may be the frame: "mkdocstrings
    # members_order and annotations_path defaults" → "mkdocstrings members_order defaults")
    for n in range(min(len(first), len(last) - 1), 0, -1):
        ids = [(bool(_IDENTIFIER.fullmatch(a.strip(",:"))), bool(_IDENTIFIER.fullmatch(b.strip(",:"))))
               for a, b in zip(first[-n:], last[:n], strict=True)]
        if any(a and b for a, b in ids) and all(a == b for a, b in ids):
            break
    else:
        return pieces
    tail = " ".join(last[n:])
    if terms(tail) & terms(pieces[0]):
        return pieces
    return [f"{pieces[0]} {tail}", *pieces[1:]]


def _shared_head(pieces: list[str], framed: list[bool]) -> list[str]:
    """A later side that repeats the first side's ask for another thing takes the words the first side leads
    with: "가상계좌 국민은행 운영시간이랑 우리은행 운영시간은" → "가상계좌 우리은행 운영시간은" (its last word, the
    thing asked or the question word, is the first side's, and it is shorter by the leading words it leaves out).
    A side already asked in the first side's frame (``framed``) has its lead."""
    first = pieces[0].split()
    out = [pieces[0]]
    for piece, own_frame in zip(pieces[1:], framed[1:], strict=True):
        words = piece.split()
        if own_frame or _ASKING.match(piece) or not 1 < len(words) < len(first):
            out.append(piece)
        elif _same_ask(words[-1], first[-1]):
            out.append(" ".join([*first[:len(first) - len(words)], piece]))
        else:
            out.append(piece)
    return out


def _same_ask(word: str, other: str) -> bool:
    """Two sides' last words ask the same: the same terms ("운영시간은", "운영시간"), or the same Korean question
    word ("뭐", "뭐야"; not "누구였" and "언제야")."""
    asks, other_asks = _KO_ASKING.match(word), _KO_ASKING.match(other)
    if asks or other_asks:
        return bool(asks and other_asks) and asks.group(0) == other_asks.group(0)
    held = terms(word)
    return bool(held) and held == terms(other)


def _asks_alone(piece: str, others: list[str], config: PartsConfig, *, later: bool, framed: bool = False) -> bool:
    """A side holds a term the others lack, and holds ``min_terms`` terms, or names an identifier
    ("fetch-retry-factor"), or (a later side) asks by a question word of its own ("…, and what's the fetch
    timeout") or names only the alternative to a word of the first side, asked in the first side's frame
    (``framed``: "… on linux vs windows", "… for cpython 3.9 on intel and for pypy"); the first side's question
    word asks for the whole question ("How do I search and replace …")."""
    held = terms(piece)
    if not held - terms(" ".join(others)):
        return False
    return (later and (framed or bool(_ASKING.match(piece)))) or len(held) >= config.min_terms \
        or bool(_IDENTIFIER.search(piece))


def referred_value(part: str, texts: Sequence[str]) -> str | None:
    """The value a later part points back at ("그 은행 운영시간은" after "005는 어느 은행이"): of ``texts`` (what
    answered the part before, best first), the first that states a key naming the noun the demonstrative points
    with ("은행명: KEB하나은행(구 외환은행)", "원장 : 서도윤"), its value without a trailing aside. None when the part
    points back at nothing, or no text states such a key: the part is then asked as it is."""
    if _SAME_DAY.search(part):  # the day the part before found: the first date its answer states
        return next((m.group(0) for text in texts if (m := _DATE.search(text))), None)
    pointing = _BACK_REFERENCE.search(part)
    if pointing is None:
        return None
    noun = terms(pointing.group(1) or pointing.group(2))
    if not noun:
        return None
    for text in texts:
        cells = [(key.strip(" *`-"), _ASIDE_AFTER.sub("", value).strip(" *`"))
                 for key, value in (cell.partition(ROW_KEY_SEPARATOR)[::2]
                                    for line in text.splitlines()[:1]  # a row, or an item's "key : value" line
                                    for cell in line.split(ROW_SEPARATOR))]
        cells = [(key, value) for key, value in cells if key and value and len(value) <= 60]
        # the key names the noun ("은행명: …" for "그 은행"), else the value is one ("금융회사: KEB하나은행": a
        # compound names what it is by its last word, as "Kookmin Bank" does)
        for key, value in cells:
            if terms(key) & noun or any(n in key.casefold() for n in noun):
                return value
        for _key, value in cells:
            if any(value.casefold().endswith(n) for n in noun):
                return value
    return None


# A thing named by a relative clause in English ("the arch that auto32 picks on a Linux Arm 64-bit runner"): the
# clause runs to the end of the question or of its clause.
_CLAUSE_EN = re.compile(r"\bthe\s+[A-Za-z][\w-]*\s+(?:that|which)\s+(?P<clause>[^?？,;]+)", re.I)
# marks a cell's value carries that are not the value ("armv7l¹": a footnote)
_MARKS = re.compile(r"[\u00b9\u00b2\u00b3\u2070-\u209f*†‡]+$")


def asked_of_clause_value(question: str, texts: Sequence[str]) -> tuple[str, int] | None:
    """``question`` asked of the value its relative clause names, and the index of the text it was read from:
    "what's the default manylinux image for the arch that auto32 picks on a Linux Arm 64-bit runner?" is asked as
    "… for armv7l?" when a row of ``texts`` (what the first search found, best first) states the cell
    "auto32: armv7l¹": a key the clause writes whose value it does not (the row's "Runner: Linux / Arm 64-bit"
    is the clause's own condition). None when the question has no such clause, or no text states such a cell."""
    clause = _CLAUSE_EN.search(question)
    if clause is None:
        return None
    written = terms(clause.group("clause"))
    for i, text in enumerate(texts):
        for line in text.splitlines()[:1]:  # a row, or an item's "key : value" line
            for cell in line.split(ROW_SEPARATOR):
                key, _sep, value = cell.partition(ROW_KEY_SEPARATOR)
                key, value = key.strip(" *`-"), _MARKS.sub("", value.strip(" *`")).strip()
                named = terms(key)
                if named and value and len(value) <= 60 and named <= written and not terms(value) & written:
                    return f"{question[:clause.start()]}{value}{question[clause.end():]}", i
    return None


def dates_in(text: str) -> list[str]:
    """The dates ``text`` writes ("2024-01-25")."""
    return _DATE.findall(text)


def with_referred_value(part: str, value: str) -> str:
    """``part`` with its demonstrative replaced by the value it points at, the noun kept: "그 은행 운영시간은" →
    "KEB하나은행 은행 운영시간은"; "the same day" by "on" the date."""
    same_day = _SAME_DAY.search(part)
    if same_day is not None:
        return f"{part[:same_day.start()]}on {value}{part[same_day.end():]}"
    pointing = _BACK_REFERENCE.search(part)
    if pointing is None:
        return part
    return f"{part[:pointing.start()]}{value} {pointing.group(1) or pointing.group(2)}{part[pointing.end():]}"


# A later part asking of "its" attribute after a first part asking which thing does something ("Which option sets
# the build frontend, and what is its default?"): "its" is the thing the first part found, not the first part's
# words. A first part asking "what is …" asks a value, not a thing.
_ITS = re.compile(r"\bits\b", re.I)
_WHICH_THING = re.compile(r"^\W*(?:which|what)\s+(?!(?:is|are|was|were|does|do|did|can)\b)[\w-]+\s+\w", re.I)


def referred_thing(part: str, first: str, headings: Sequence[str]) -> str | None:
    """The option a later part's "its" stands for: after a first part asking which option does something
    ("Which option sets the build frontend"), the option whose own heading is the first of ``headings`` (the
    headings of what answered the first part, best first) that names one (``build-frontend``). None when the
    part says no "its", the first part asks no "which …", or no heading names an option: the part is then asked
    as it is."""
    if not _ITS.search(part) or not _WHICH_THING.match(first):
        return None
    return next((name for heading in headings if (name := option_heading(heading, dashed=True))), None)


def with_referred_thing(part: str, name: str) -> str:
    """``part`` asked of ``name`` in place of "its": "what is its default?" → "what is build-frontend default?"."""
    return _ITS.sub(name, part, count=1)
