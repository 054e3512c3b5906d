"""The shape of a question: what it names, where its preamble ends, and whether it compares, ranks or lists.

* **Names** are what a question is about: identifiers in code spans (a call signature's arguments dropped:
  ```filehandle.readFile(options)``` names ``filehandle.readFile``), model numbers and other words mixing letters
  and digits ("24FL", "H2", "NV-32UX"), CamelCase identifiers, and capitalised words inside the sentence
  ("Aster", "Pool"). Attribute words ("stand", "option", "weight") are not names.
* A **preamble** is a leading clause that sets the platform or the collection ("In the Node.js fs module, …",
  "For Nova Display monitors, …", "해온 전기포트 제품 안내에서, …"): its words say where to look in general, not
  which thing, so they count for less than the question's own names.
* A **comparative** question picks one of the things it lists ("Which is heavier, the L1 or the L2?",
  "A와 B 중 더 무거운 것은?"), a **superlative** one ranks all of them ("Which hub has the longest warranty?",
  "가장 가벼운 …"), a **list** question asks one attribute of each ("List the power of every lamp", "모든 … 의 …",
  "Compare the warranty of A and B").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from core.textnorm import name_words

__all__ = ["IDENTIFIER", "QuestionShape", "asking_words", "asks_how", "attribute_identifiers", "bridge_cue",
           "code_names", "container_noun", "is_prose_question", "name_runs", "question_shape", "split_preamble"]

Kind = Literal["compare", "superlative", "list"]
Direction = Literal["max", "min"]

# A comma or colon inside a code span (```logger.child(bindings, [options])```) does not end the preamble.
_PREAMBLE_EN = re.compile(
    r"^\s*(?:in|for|on|using|with|within|regarding|about|among|under|per|according to|from)\b"
    r"(?:`[^`\n]{0,200}`|[^,?:`]){1,90},\s*", re.I
)
_PREAMBLE_KO = re.compile(r"^\s*[^,?]{1,60}?(?:에서|중에서|기준으로|의 경우|관련해서|에 대해)\s*,\s*")
_CODE = re.compile(r"`([^`\n]{1,200})`")
_CALL_ARGS = re.compile(r"\(.*\)\s*$")
_PASCAL = re.compile(r"^[A-Z][a-z]")
_TOKEN = re.compile(r"[A-Za-z0-9][\w.\-]*[A-Za-z0-9]|[A-Za-z0-9]")
# A name right after the possessive 의 (through "/"-joined names: "의 PBP/PIP"), not joined to a next name.
_POSSESSED = r"의\s*(?:[\w.\-]+\s*/\s*)*{}(?!\s*(?:와|과|및|,|하고|랑|이랑))"
_SENTENCE_WORDS = frozenset("which what how who when where why is are does do can compare list the a an i".split())

# Comparative and superlative words and the direction they pick.
_MORE = frozenset(("heavier longer larger bigger higher brighter greater wider faster newer later more taller "
                   "farther stronger").split())
_LESS = frozenset("lighter shorter smaller lower cheaper slower older earlier less fewer narrower dimmer".split())
_MOST = frozenset(("heaviest longest largest biggest highest brightest greatest widest fastest newest latest most "
                   "tallest farthest strongest").split())
_LEAST = frozenset(("lightest shortest smallest lowest cheapest slowest oldest earliest least fewest narrowest "
                    "dimmest").split())
_LIST = frozenset("list every each all".split())
# "list" asks for a list as a verb ("List the weight of …", "can you list all …") or in "a list of"; as a noun inside
# a name ("unordered list style", "task-list", "spaces after list markers") it names the thing asked about.
_LIST_VERB = re.compile(r"(?:^\s*|[.?!:]\s+|\b(?:please|to|you|and|then)\s+)list\b(?!-)"
                        r"|(?<![\w-])list\s+(?:of|all|every|each|the|them|those|these)\b", re.I)
# A list of the things that have what follows: "List the monitors with USB-C", "Which tools support Windows?",
# "USB-C가 있는 모니터를 모두", "HDR10을 지원하는 모델은 어떤 것". {} is the thing had, a name of the question.
_HAD_VERBS = frozenset("with have has support supports include includes offer offers".split())
_HAVING_EN = r"\b(?:having|" + "|".join(sorted(_HAD_VERBS)) + r")\s+(?:an?\s+|the\s+)?{}"
_KO_HAVING = r"\s*(?:이|가|을|를)?\s*(?:있는|지원하는|지원되는|포함된|포함하는|탑재된|갖춘)"
_HAVING_KO = "{}" + _KO_HAVING
# A plural class after "which"/"what" ("which monitors", "what tools"): the question asks for several things.
_PLURAL_CLASS = re.compile(r"\b(?:which|what)\s+(?:[a-z]+\s+)?[a-z]{3,}s\b", re.I)
# What a list question's things have, written without a name: up to four plain words closing the question.
_HAD_TAIL = re.compile(r"\b(" + "|".join(sorted(_HAD_VERBS)) + r")\s+(?:an?\s+|the\s+)?"
                       r"((?:[a-z][\w-]*\s+){0,3}[a-z][\w-]*)\s*[?.!]?\s*$", re.I)
# "할 수 있는": 수 is "can", not a thing had.
_HAD_KO_CLOSING = re.compile(r"(?<![\w.\-])(?!수\s)([\w.\-]+?)" + _KO_HAVING
                             + r"\s*[\uac00-\ud7a3]+?(?:은|는|이|가|을|를)?\s*"
                             r"(?:뭐|무엇|어떤|어느|알려|있나|있어|\?|$)")
_KO_MANY = re.compile(r"(모든|모두|전부|어떤|어느|목록)")
_KO_MORE = ("무거", "무겁", "길", "긴", "크", "큰", "높", "많", "밝", "넓", "비싸", "비싼", "빠르", "빠른", "늦")
_KO_LESS = ("가벼", "가볍", "짧", "작", "낮", "적", "어둡", "좁", "싸", "싼", "저렴", "느리", "느린", "이른")


@dataclass(frozen=True)
class QuestionShape:
    """A comparative, superlative or list question: the things it lists (``parts``) and the pick's direction."""

    kind: Kind
    direction: Direction | None = None
    parts: tuple[str, ...] = ()
    # "List the monitors with USB-C": what the things listed must have; it is the attribute read of each
    having: str = ""

    @property
    def picks(self) -> bool:
        return self.direction is not None


def split_preamble(question: str) -> tuple[str, str]:
    """``(preamble, rest)``: the leading clause that sets the platform, and the question proper."""
    for pattern in (_PREAMBLE_EN, _PREAMBLE_KO):
        m = pattern.match(question)
        if m and m.end() < len(question):
            return question[: m.end()], question[m.end():]
    return "", question


# Asking for a way to do something: "how do I …", "how can we …", "how to …", "what should I do", "is there a way
# to …"; Korean "…하려면" (in order to …), "어떻게 하나요/해요/하면". Not "how long / how many" (a value's form), nor
# Korean "어떻게 되나요" (what is it).
_ASKS_HOW = re.compile(
    r"\bhow\s+(?:do|can|could|should|would|must)\s+(?:i|we|you|one)\b|\bhow\s+to\b"
    r"|\bwhat\s+(?:should|do|can|must)\s+(?:i|we|you)\s+do\b|\bis\s+there\s+a\s+way\s+to\b"
    r"|려면|어떻게\s*(?:하|해|설정|바꾸|바꿔|변경)", re.I)


def asks_how(question: str) -> bool:
    """Whether ``question`` asks for a way to do something (see ``_ASKS_HOW``)."""
    return _ASKS_HOW.search(question) is not None


# An English question written as a sentence: a clause opening with a question word or an auxiliary ("can griffe
# read …", "in griffe check, is -b …", "why does …"), or the asker speaking of themselves ("my code base mixes …",
# "I want …"). A query of keywords ("concurrently prefix color flag", "isort skip glob default?") is neither.
_PROSE_QUESTION = re.compile(
    r"(?:^|[,:;?]\s*)(?:how|why|what|what's|when|where|which|who|can|could|does|do|did|is|are|was|were|should|"
    r"will|would|has|have)\b|\b(?:i|i'm|i've|my|me|we|our)\b", re.I)


def is_prose_question(question: str) -> bool:
    """Whether ``question`` is asked as an English sentence, not as keywords (see ``_PROSE_QUESTION``): its words
    are the asker's, chosen for meaning, so a heading that shares one of them is a weaker sign of the place."""
    return _PROSE_QUESTION.search(question.strip()) is not None


# "how long is …", "how often does …", "how big a …": the word after "how" is the form of the question (a duration,
# a frequency, a size asked), not a name; "how caching works" names caching (no auxiliary or article follows it).
_HOW_FORM = re.compile(r"\bhow\s+([a-z]+)(?=\s+(?:\w+\s+)?(?:is|are|was|were|does|do|did|can|could|should|will|would|"
                       r"has|have|must|may|might|a|an)\b)", re.I)
# The words a question asks for a default with: they say which value of a thing is asked, not which thing.
_DEFAULT_ASKING = frozenset({"default", "defaults", "기본값"})


def asking_words(question: str) -> frozenset[str]:
    """The words of ``question`` that say how it asks, casefolded: the word after "how" that shapes the question
    ("how **long** is the timeout?"), and the words asking for a default ("default", "기본값"). They name the kind of
    value asked, never the thing it is asked of, so a heading holding only them ("DEFAULT VALUES", a setting named
    ``long``) is not the place the question names."""
    words = {m.group(1).casefold() for m in _HOW_FORM.finditer(question)}
    words |= name_words(question) & _DEFAULT_ASKING
    return frozenset(words)


def code_names(text: str) -> list[str]:
    """The identifiers in ``text``'s code spans that name things, call arguments dropped (``Pool(options)`` →
    ``Pool``): dotted or called names (``fs.readFile``, ``Mirror(options)``) and capitalised ones (``Pool``,
    ``WikiLinkExtension``). A bare lower-case or all-caps identifier (``timeout``, ``maxBodySize``,
    ``SEPARATOR``) names an option, an attribute of a thing, not the thing."""
    out = []
    for span in _CODE.findall(text):
        raw = span.strip().removeprefix("new ").strip()
        name = _CALL_ARGS.sub("", raw).strip()
        if name and ("." in name or "(" in raw or _PASCAL.match(name)):
            out.append(name)
    return out


def attribute_identifiers(text: str, things: frozenset[str] = frozenset()) -> list[str]:
    """The identifiers that name an attribute, not a thing: in ``text``'s code spans (``linenums``,
    ``UNIQUE_IDS``, ``html_class``), then outside them the words written like code (``keepAliveTimeout``,
    ``max_size``, ``cookie.sameSite``): the option or field a question asks about, looked up by name.
    ``things``: identifiers (casefolded) known to name things (a heading calls them: ``send(req, path)``)."""
    named = set(code_names(text))
    out = []
    for span in _CODE.findall(text):
        raw = span.strip()
        if raw not in named and re.fullmatch(r"[A-Za-z_$][\w$-]*", raw) and raw.casefold() not in things:
            out.append(raw)
    for word in _CODE_LIKE.findall(_CODE.sub(" ", text)):
        if word.casefold() not in things and word not in out:
            out.append(word)
    return out


# A word outside code written like an identifier: lowerCamelCase, snake_case, or dotted lower-case parts.
_CODE_LIKE = re.compile(r"(?<![\w.$])(?:[a-z][a-z0-9]*[A-Z][A-Za-z0-9]*|[a-z][a-z0-9]*_[a-z0-9_]+|"
                        r"[a-z][A-Za-z0-9]*(?:\.[A-Za-z_$][A-Za-z0-9_$]*)+)(?![\w$])")
IDENTIFIER = re.compile(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*")


def _is_name(token: str, first: bool) -> bool:
    has_digit = any(c.isdigit() for c in token)
    has_alpha = any(c.isalpha() for c in token)
    if has_digit and has_alpha:
        return True
    if not has_alpha:
        return False
    if token[0].isupper() and any(c.isupper() for c in token[1:]) and any(c.islower() for c in token):
        return True  # CamelCase; written in lowerCamelCase ("keepAliveTimeout") it is an option, like in code
    return token[0].isupper() and not first and token.casefold() not in _SENTENCE_WORDS


# Lowercase words that join the words of one name ("Table of Contents", "Markdown in HTML").
_JOINERS = frozenset(("of", "to", "in", "for"))


@lru_cache(maxsize=4096)
def name_runs(text: str, korean: bool | None = None) -> tuple[str, ...]:
    """Runs of name words outside code spans ("the Aster H1 or the Aster H2" → "Aster H1", "Aster H2"), in order,
    without repeats. ``korean``: read as a Korean sentence (no capitalised sentence start), though ``text`` is a
    part of one holding no Hangul ("Nova 24FL" cut from "Nova 24FL의 무게는?"); None: when it holds Hangul."""
    plain = _CODE.sub(" , ", text)
    if korean is None:
        korean = bool(re.search(r"[\uac00-\ud7a3]", plain))
    runs: list[list[str]] = []
    current: list[str] = []
    joiner: str | None = None
    last_end = 0
    first = not korean  # an English sentence's first word is capitalised whatever it is
    for m in _TOKEN.finditer(plain):
        gap = plain[last_end : m.start()]
        token = m.group()
        if current and (gap.strip() not in ("", "-") or "\n" in gap):
            runs.append(current)
            current, joiner = [], None
        if _is_name(token, first):
            current += [joiner, token] if joiner else [token]
            joiner = None
        elif current and token in _JOINERS and joiner is None:
            joiner = token
        elif current:
            runs.append(current)
            current, joiner = [], None
        last_end = m.end()
        first = not korean and bool(re.search(r"[.?!]\s*$", plain[: last_end + 1]))
    if current:
        runs.append(current)
    out: list[str] = []
    for run in runs:
        joined = " ".join(run)
        if joined not in out:
            out.append(joined)
    return tuple(out)


def _english_direction(words: list[str], table_more: frozenset[str], table_less: frozenset[str]) -> Direction | None:
    for w in words:
        if w in table_more:
            return "max"
        if w in table_less:
            return "min"
    return None


def _korean_direction(text: str) -> Direction | None:
    after = re.findall(r"(?:가장|제일|더)\s*([\uac00-\ud7a3]+)", text)
    for word in after:
        if word.startswith(_KO_LESS):
            return "min"
        if word.startswith(_KO_MORE):
            return "max"
    return None


def question_shape(question: str) -> QuestionShape | None:
    """The question's comparative, superlative or list shape, or ``None`` for a question about one thing."""
    _preamble, rest = split_preamble(question)
    words = [w.casefold() for w in re.findall(r"[A-Za-z]+", _CODE.sub(" ", rest))]
    if "list" in words and not _LIST_VERB.search(_CODE.sub(" ", rest)):
        words = [w for w in words if w != "list"]
    korean = bool(re.search(r"[\uac00-\ud7a3]", rest))
    # "A와 B의 Entry Point 비교": what follows the possessive 의, joined to nothing after it, is the attribute
    # asked, not a thing compared ("Orbit의 Connection과 Pool" lists two).
    parts = tuple(p for p in name_runs(rest) if not (korean and re.search(_POSSESSED.format(re.escape(p)), rest)))
    having = _had(rest, parts, words, korean)
    if having:
        return QuestionShape("list", None, tuple(p for p in parts if p != having), having=having)
    # One model number named ("the 34WC's highest refresh rate") is a question about that one thing.
    one_thing = len(parts) == 1 and any(c.isdigit() for c in parts[0]) and "which" not in words
    if korean and re.search(r"(?:가장|제일)\s*[\uac00-\ud7a3]", rest) and not one_thing:
        return QuestionShape("superlative", _korean_direction(rest), parts)
    if korean and re.search(r"더\s*[\uac00-\ud7a3]", rest) and len(parts) >= 2:
        return QuestionShape("compare", _korean_direction(rest), parts)
    if korean and re.search(r"(모든|모두|전부|각각|비교)", rest):
        return QuestionShape("list", None, parts)
    superlative = _english_direction(words, _MOST, _LEAST)
    if superlative and not one_thing:
        return QuestionShape("superlative", superlative, parts)
    comparative = _english_direction(words, _MORE, _LESS)
    if comparative and len(parts) >= 2 and ({"or", "than", "vs", "versus", "between"} & set(words) or "," in rest):
        return QuestionShape("compare", comparative, parts)
    if _LIST & set(words) or "compare" in words or "comparison" in words:
        return QuestionShape("list", None, parts)
    if len(parts) >= 2 and "and" in words and re.search(r"\b(what|which) are\b", rest, re.I):
        return QuestionShape("list", None, parts)
    return None


def _had(rest: str, parts: tuple[str, ...], words: list[str], korean: bool) -> str:
    """The name a list question's things must have ("USB-C" in "List the monitors with USB-C"), or ""."""
    if korean:
        if not _KO_MANY.search(rest):
            # "스피커가 있는 모니터는?", "USB-C를 지원하는 모델 알려줘": the clause closes the question on its class
            m = _HAD_KO_CLOSING.search(rest)
            return m.group(1) if m else ""
        pattern = _HAVING_KO
    else:
        if not (_LIST & set(words) or _PLURAL_CLASS.search(rest)):
            return ""
        pattern = _HAVING_EN
    had = [p for p in parts if re.search(pattern.format(re.escape(p)), rest, re.I)]
    if len(had) == 1:
        return had[0]
    if had or korean:
        return ""
    # a thing had that is no name ("Which monitors have built-in speakers?", "List the lamps with a timer"): the
    # words after the verb to the end of the question; "with" lists only after a list word ("the monitors with …")
    verbs = _HAD_VERBS if _LIST & set(words) else _HAD_VERBS - {"with"}
    m = _HAD_TAIL.search(rest)
    return m.group(2) if m and m.group(1).casefold() in verbs else ""


# "the lab that built X", "the arch that auto32 picks": a thing named by what it does or has, not by its name, so the
# evidence for it is in one place and the attribute asked of it in another.
_RELATIVE_EN = re.compile(r"\b(?:the|a|an|its|their)\s+(?:[A-Za-z][\w-]*\s+){0,2}?[A-Za-z][\w-]*\s+"
                          r"(?:that|which|who|whose)\s+[A-Za-z][\w-]*", re.I)
# "where does X cache its tools, and what's the default Y?": two questions asked at once.
_TWO_ASKS_EN = re.compile(r"\b(?:what|which|who|where|when|how)\b.*\band\b.*\b(?:what|which|who|where|when|how)\b",
                          re.I)
_KO_NOUN = frozenset({"NNG", "NNP", "NNB", "SL", "SN"})
_KO_ARGUMENT = frozenset({"JKO", "JKS", "JKB", "JKC"})  # object, subject, adverbial, complement particles
_KO_CLAUSE_END = frozenset({"SP"})  # a comma: the clause before it ends there


def _korean_relative(text: str) -> bool:
    """A Korean relative clause naming a thing whose attribute is asked: an adnominal ending (ETM) of a verb with an
    argument marked before it, before a noun that is itself followed by the possessive 의 and a noun ("탑재체를 만든
    연구실의 실장") or by a second noun closing the phrase ("자료를 분석하는 연구실 실장은")."""
    from core import textnorm

    tokens = [(t.form, t.tag) for t in textnorm.kiwi_tokenize([text])[0]]
    for i, (_form, tag) in enumerate(tokens):
        # a clause: its verb has an argument marked before it ("탑재체를 만든", "연구실이 속한"); a name that only
        # reads as a verb form ("해온 미니 K1") has none. Its own argument: one before a comma belongs to the
        # clause before it ("국세청에 언제 전송되고, 자동재처리 되는 오류코드는"); a connective ending alone joins
        # two verbs of one clause ("노트북을 연결하고 충전할 수 있는 모델")
        start = max((k + 1 for k, (_f, t) in enumerate(tokens[:i]) if t in _KO_CLAUSE_END), default=0)
        if tag != "ETM" or not any(t in _KO_ARGUMENT for _f, t in tokens[start:i]):
            continue
        j = i + 1
        while j < len(tokens) and tokens[j][1] in _KO_NOUN:
            j += 1
        nouns = j - i - 1
        after = tokens[j][1] if j < len(tokens) else "SF"
        if nouns and after == "JKG" and j + 1 < len(tokens) and tokens[j + 1][1] in _KO_NOUN:
            return True
        if nouns >= 2 and after in {"JX", "JKS", "SF"}:
            return True
    return False


@lru_cache(maxsize=4096)
def bridge_cue(question: str) -> str:
    """Why the question's evidence must bridge two things ("relative clause", "two questions"), or "" when it
    names one thing and asks one attribute of it. Kept per text: the retrieval's analysis and the extractive
    answer both ask it of the same question, and the Korean analyser's pass is most of a short question's own
    Python time (about 0.7 ms)."""
    _preamble, rest = split_preamble(question)
    text = _CODE.sub(" ", rest)
    if re.search(r"[\uac00-\ud7a3]", text):
        if _korean_relative(text):
            return "relative clause"
    if _RELATIVE_EN.search(text):
        return "relative clause"
    if _TWO_ASKS_EN.search(text):
        return "two questions"
    return ""


# "the division of the lab that built …", "the team of the engineer who …": the thing asked about may hold the
# thing a relative clause describes; "빛살을 개발한 연구실이 속한 본부": it does, said in Korean.
_CONTAINER_EN = re.compile(r"\bthe\s+([A-Za-z][\w-]*)\s+of\s+(?:the|a|an|its|their)\s+(?:[A-Za-z][\w-]*\s+){0,2}?"
                           r"[A-Za-z][\w-]*\s+(?:that|which|who|whose)\b", re.I)
_CONTAINER_KO = re.compile(r"[\uac00-\ud7a3]+[이가]\s*(?:속한|소속된)\s+([\uac00-\ud7a3]+?)(?:의|은|는|이|가|에서)?"
                           r"(?=\s|\?|$)")


def container_noun(question: str) -> str | None:
    """The noun ``question`` asks of the thing its relative clause describes ("division" in "who heads the division
    of the lab that built …", "본부" in "… 연구실이 속한 본부의 본부장은?"), None when it asks of that thing itself.
    The thing's own section may state it ("the default of the option that …": its ``Default:``); where it does not,
    the noun names what holds the thing: in the heading tree, the section above."""
    found = _CONTAINER_EN.search(question) or _CONTAINER_KO.search(question)
    return found.group(1) if found else None

