"""The units of an extractive answer that asks several facts at once, or bridges two (issue 31): one unit per part
of a question asking several things (:mod:`core.retrieval.parts`), each with its own citation, and the hops of a
question naming a thing by a relative clause."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence

from core.answering.evidence import Evidence
from core.retrieval.context import Context
from core.retrieval.count_hop import asked_counter, states_count
from core.retrieval.parts import (
    asked_of_clause_value,
    dates_in,
    question_parts,
    referred_thing,
    referred_value,
    with_referred_thing,
    with_referred_value,
)
from core.retrieval.shape import container_noun, name_runs
from core.statements import kebab_words, number_forms, run_together_pairs, standalone_words, terms, terms_with_parts
from core.textnorm import english_stem

__all__ = ["asked_count", "clause_description", "counted_units", "named_section_unit", "parts_in_context",
           "run_together", "through_clause_value", "units_for_parts", "value_of_section"]


# A part with no answering unit stating a value takes one under a heading holding this many of its words: one word
# is any neighbour option sharing "retry"; two are the option it names (bench/sweep.py, data/tuning/).
HEADING_NAMED_WORDS = 2


def parts_in_context(question: str, context: Context) -> tuple[str, ...]:
    """The question's parts (:func:`core.retrieval.parts.question_parts`), not cut inside the name of a heading of
    the context that the question writes whole ("… in the Sequence configuration and workflow control table" under
    "## Sequence configuration and workflow control"): the heading is one name, not two asks. The split cannot know
    it; the context does. Such a name (three words or more) is read as a code span is, whose joins split nothing;
    the question's other joins still do."""
    parts = question_parts(question)
    if len(parts) < 2:
        return parts
    spans = []
    for heading in {h for e in context.elements for h in (*e.path, e.text if e.category == "Title" else "")}:
        name = " ".join(heading.split())
        at = question.casefold().find(name.casefold()) if len(name.split()) >= 3 else -1
        if at >= 0 and len(question_parts(name.rstrip(" ?？.") + "?")) > 1:
            spans.append(question[at:at + len(name)])
    spans = [s for s in spans if not any(s != other and s.casefold() in other.casefold() for other in spans)]
    if not spans:
        return parts
    for span in dict.fromkeys(spans):  # the longest names only: one inside another is already read whole
        question = question.replace(span, f"`{span}`")
    return tuple(functools.reduce(lambda p, span: p.replace(f"`{span}`", span), dict.fromkeys(spans), part)
                 for part in question_parts(question))


def units_for_parts(parts: Sequence[str], evidence_of: Callable[[str], list[Evidence]],
                    whole: Callable[[], list[Evidence]] | None = None) -> list[Evidence | None]:
    """The best unit answering each of ``parts`` (``evidence_of``: a part's evidence, best first), one element
    each, in the order asked, None for a part the context does not answer (said so in the answer, the other parts
    still quoted: "MD013 default line length and its alias?" answered by its alias alone hides that the length was
    asked); none when fewer than two parts, or when the context answers none of them (then the question is
    answered as a whole). A unit that is the best of several parts goes to the part that scores it highest, the
    other takes its next: the row "Name: main · Repository: …" is the best of "repository urls for main" and, by
    its key, of "for test" too; a part whose every answering unit another part took shares that part's unit (one
    row stating both). A part nothing answers takes the best unit answering the whole question (``whole``: its
    evidence, best first) when no other part took it and it holds a word this part alone writes: the unit the
    question was answered by before it was read part by part. A part pointing back at the value the part before
    it answered ("005는 어느 은행이고 그 은행 운영시간은") is asked of that value."""
    if len(parts) < 2:
        return []
    answering: list[list[Evidence]] = []
    for part in parts:
        if answering and answering[-1]:
            unit = value_of_section(answering[-1])
            value = referred_value(part, [unit.element.text])
            thing = None if value else referred_thing(part, parts[len(answering) - 1], unit.element.path[-1:])
            part = with_referred_value(part, value) if value else with_referred_thing(part, thing) if thing else part
        others = [p for i, p in enumerate(parts) if i != len(answering)]
        found = _own_words_first(part, others, _answering(part, evidence_of(part)))
        answering.append(_stated_first(_counted_first(part, _naming_first(part, found))))
    chosen: dict[int, Evidence] = {}
    while True:  # the part whose best free unit scores highest takes it first
        taken = {u.element.element_id for u in chosen.values()}
        offers = [(value_of_section(free), i) for i, found in enumerate(answering) if i not in chosen
                  and (free := [e for e in found if e.element.element_id not in taken])]
        if not offers:
            break
        unit, i = max(offers, key=lambda offer: (offer[0].score, -offer[1]))
        chosen[i] = unit
    for i, found in enumerate(answering):
        if i not in chosen and found:  # its units all taken: the one it answers best states it as well
            chosen[i] = value_of_section(found)
    if chosen and len(chosen) < len(parts) and whole is not None:
        taken = {u.element.element_id for u in chosen.values()}
        best = next((e for e in whole() if e.answers and not e.element.outside_scope), None)
        for i in (i for i in range(len(parts)) if i not in chosen and best is not None):
            own = terms(parts[i]) - frozenset().union(*(terms(p) for j, p in enumerate(parts) if j != i))
            held = terms_with_parts(" ".join([*best.element.path, best.element.text]))
            if best.element.element_id not in taken and own & held:
                chosen[i] = best
                taken.add(best.element.element_id)
    return [chosen.get(i) for i in range(len(parts))] if chosen else []


# "how many", "how much": an English part asking a number, whatever noun it counts
_ASKS_NUMBER = re.compile(r"\bhow\s+(?:many|much)\b", re.I)


def _own_words_first(part: str, others: Sequence[str], units: list[Evidence]) -> list[Evidence]:
    """``units`` with those whose text holds none of the part's words but one of another part's own (a word the
    part does not write) after the others, when the text of some unit holds a word the part alone writes. A unit's
    similarity is to the part whose search found it: "ℹ️ 자동재처리 가능 오류코드", found for "자동재처리 되는
    오류코드는 몇 개야?", is as close as the line "… 익일(D+1) 국세청에 일괄 전송되므로 …" that "현금영수증은
    국세청에 언제 전송되?" asks, and its words say which part it answers. A unit sharing a word of both parts
    ("logs") stays where it is."""
    asked = terms(part)
    theirs = frozenset().union(*(terms(p) for p in others)) - asked
    own = asked - frozenset().union(*(terms(p) for p in others))
    held = {id(e): terms_with_parts(e.element.text) for e in units}
    if not theirs or not any(held[id(e)] & own for e in units):
        return units
    leaning = [e for e in units if not held[id(e)] & asked and held[id(e)] & theirs]
    return [*(e for e in units if e not in leaning), *leaning]


# A passage opening with an example marker illustrates what the passage before it states ("For example, if you
# wanted to write all your logs to the current working directory, you could run: …").
_EXAMPLE_OPENING = re.compile(r"^\W*(?:for\s+example|for\s+instance|e\.\s?g\.|예를\s*들어|예컨대)", re.I)


def _stated_first(units: list[Evidence]) -> list[Evidence]:
    """``units`` with each one opening with an example ("For example, if you wanted to write all your logs to
    the current working directory …") after the answering units of its own section that do not: a part gets one
    line, and the example shares the part's words ("write", "logs") better than the line it illustrates ("The
    default location of the logs directory is a directory named _logs …"), which states what is."""
    example = lambda e: bool(_EXAMPLE_OPENING.match(e.element.text))  # noqa: E731
    out: list[Evidence] = []
    held: list[Evidence] = []  # examples waiting for a stating unit of their section, ranked below them
    for i, unit in enumerate(units):
        if example(unit) and any(not example(e) and e.element.path == unit.element.path for e in units[i + 1:]):
            held.append(unit)
            continue
        out.append(unit)
        if not example(unit):
            out += [e for e in held if e.element.path == unit.element.path]
            held = [e for e in held if e.element.path != unit.element.path]
    return out


def _counted_first(part: str, units: list[Evidence]) -> list[Evidence]:
    """Asked how many by a Korean counter ("몇 개야?", ``core.retrieval.count_hop``), the units stating a number
    with it ("자동재처리 가능 오류코드 (8개): …") first: a row of one of the things counted shares the part's words
    better and states no count. Asked "how many" in English, when the best unit states no number, the units whose
    stated value is one come first: "how many log files does npm keep by default?" shares its words with the
    prose about the logs directory, and `logs-max`'s `Default: 10` is the answer. Only a key : value item counts
    (its value read as such), not any digit of a passage: every passage with a version or a date has one."""
    counter = asked_counter(part)
    if counter is None:
        if not units or not _ASKS_NUMBER.search(part) or re.search(r"\d", units[0].element.text):
            return units
        numbered = [e for e in units if e.value and re.search(r"\d", e.value)]
        return [*numbered, *(e for e in units if e not in numbered)]
    counted = [e for e in units if states_count(e.element.text, counter)]
    return [*counted, *(e for e in units if e not in counted)]


def _answering(part: str, evidence: list[Evidence]) -> list[Evidence]:
    """The units of a part's ``evidence`` that answer it, inside the scope. When none of them states a value, the
    units stating one under a heading that names :data:`HEADING_NAMED_WORDS` of the part's words, and more of them
    than the best answering unit's heading, come first (most named, then best scored): "how long is the max retry
    timeout?" asks for the value of `fetch-retry-maxtimeout`, whose `Default: 60000` line keys nothing the part
    writes, and the prose of a neighbour option sharing the word "retry" is no answer to it."""
    inside = [e for e in evidence if not e.element.outside_scope]
    # a part asked of a day ("which backend version came out on 2024-01-25", the part before's date) is answered
    # by the entry dated so: its release heading holds the date, its text shares nothing with the part
    dated = terms(" ".join(dates_in(part)))
    answering = [e for e in inside if e.answers or (dated and e.element.category != "Title" and dated <= terms(
        " ".join([*e.element.path, e.element.text])))]
    asked = terms(part) | {english_stem(pair) for pair in run_together_pairs(part)}
    if any(e.value for e in answering):
        return answering
    placed = _placed_by_section(asked, inside, answering)
    if not answering:
        return placed
    named = {id(e): _heading_named(asked, e) for e in inside}
    floor = max(HEADING_NAMED_WORDS, named[id(answering[0])] + 1)
    valued = sorted((e for e in inside if e.value and not e.answers and e.element.category != "Title"
                     and named[id(e)] >= floor), key=lambda e: (-named[id(e)], -e.score))
    return [*valued, *(e for e in placed if e not in valued), *answering]


def _placed_by_section(asked: frozenset[str], inside: list[Evidence], answering: list[Evidence]) -> list[Evidence]:
    """The units the part's words place by their section, when nothing answering states a value: those (not
    headings) whose heading path holds :data:`HEADING_NAMED_WORDS` of the part's words, and more of them than the
    best answering unit's path, scoring above every answering unit; most named, then best scored. "which versions
    get security fixes?" is answered under "Security Policy › Supported Versions" ("Only the latest
    non-prerelease version is supported."), whose text repeats none of the words the path does not hold ("get",
    "fixes"), and not by a line elsewhere sharing the light word "get"."""
    path_named = lambda e: len(terms_with_parts(" ".join(e.element.path)) & asked)  # noqa: E731
    floor = max(HEADING_NAMED_WORDS, path_named(answering[0]) + 1 if answering else 0)
    best = max((e.score for e in answering), default=float("-inf"))
    return sorted((e for e in inside if not e.answers and e.element.category != "Title" and e.score > best
                   and path_named(e) >= floor), key=lambda e: (-path_named(e), -e.score))


def _heading_named(asked: frozenset[str], unit: Evidence) -> int:
    """How many of the part's words (``asked``: its terms, and its pairs written run together: "max … timeout"
    in `fetch-retry-maxtimeout`) the unit's own heading holds."""
    return len(terms_with_parts(unit.element.path[-1]) & asked) if unit.element.path else 0


def _naming_first(part: str, found: list[Evidence]) -> list[Evidence]:
    """``found`` with the units that hold every numbered name the part writes ("27QX", "aarch64", a date) in their
    text or heading path first: the part asks of that thing, and a neighbour's item stating the same key ("높낮이
    조절 : X" of another monitor) is not its answer, however close the whole question's vector found it."""
    # a model number or code ("27QX", "aarch64"): a tool's own name ("Hatch", "CPython") is on every page
    # a day ("on 2024-01-25", the part before's date a later part is asked of) names its release as well
    names = terms(" ".join([*(run for run in name_runs(part) if any(c.isdigit() for c in run)), *dates_in(part)]))
    if not names:
        return found
    holds = [e for e in found if names <= terms_with_parts(" ".join([*e.element.path, e.element.text]))]
    return [*holds, *(e for e in found if e not in holds)]


def clause_description(question: str, inside: list[Evidence], quoted: tuple[Evidence, ...]) -> Evidence | None:
    """The unit that states a relative clause's description ("미리내 3호에 탑재된 레이저 통신 탑재체 '빛살'을
    개발했습니다." for "the lab that built 미리내 3호's laser payload"): the first hop of a bridge, whose words are the
    question's, not the attribute's. Of the units (not headings) holding more of the question's terms than every
    unit already quoted, the one holding the most, the best ranked on a tie; None when no unit does."""
    asked = terms(question)
    held = lambda e: len(asked & terms(e.element.text))  # noqa: E731
    floor = max(held(e) for e in quoted)
    ids = {e.element.element_id for e in quoted}
    candidates = [e for e in inside if e.element.category != "Title" and e.element.element_id not in ids
                  and held(e) > floor]
    return max(candidates, key=held, default=None)


def container_unit(question: str, inside: list[Evidence]) -> Evidence | None:
    """Asked a noun of the thing a relative clause describes that its section does not state ("who heads the
    division of the lab that built …", ``core.retrieval.shape.container_noun``), the unit stating a value right
    under the heading above the description's section ("본부장 : 류하진" under 위성기술본부, above 광통신연구실
    where "'빛살'을 개발했습니다" sits), the best ranked; None when the question asks no such noun, the section
    states it ("the default of the option that …": its ``Default:``) or no unit sits above. The description is the
    unit holding the most of the question's terms."""
    noun = container_noun(question)
    if noun is None:
        return None
    asked = terms(question)
    units = [e for e in inside if e.element.category != "Title" and e.element.path]
    described = max(units, key=lambda e: len(asked & terms(e.element.text)), default=None)
    if described is None or len(described.element.path) < 2:
        return None
    own, above = described.element.path, described.element.path[:-1]
    if any(e.element.path[:len(own)] == own and terms(noun) & terms(e.element.text) for e in units):
        return None
    return next((e for e in units if e.element.path == above and e.value), None)


def named_section_unit(question: str, inside: list[Evidence], named: Sequence[str],
                       quoted: tuple[Evidence | None, ...]) -> Evidence | None:
    """The unit of the section the question names by its heading (``named``: the retrieval's scope, "미리내 2호"
    for "미리내 2호 입자 검출기 자료를 분석하는 연구실 실장은?") that holds the most of the question's words: the
    clause's own thing, the hop the bridge starts from ("임무 : 태양풍 입자 관측"), when no quoted unit sits there.
    None when nothing there holds a word of the question's that its heading does not."""
    if not named:
        return None
    places = {e.element.path for e in quoted if e is not None}
    under = [e for e in inside if e.element.category != "Title" and e.element.path and e.element.path[-1] in named]
    if not under or any(e.element.path in places for e in under):
        return None
    asked = terms(question)
    held = lambda e: len((asked - terms(" ".join(e.element.path))) & terms(e.element.text))  # noqa: E731
    best = max(under, key=held)
    return best if held(best) else None


def value_of_section(answering: list[Evidence]) -> Evidence:
    """A part's unit: the best one, or, when it states no value, the best unit of its own section that states one.
    A part gets one line, and the line names the value: the prose that describes a setting ("The value npm init
    should use by default for the package license.") shares the part's words better than its `Default: "ISC"`
    item, which is the answer."""
    best = answering[0]
    if best.value:
        return best
    section = best.element.path
    return next((e for e in answering[1:] if e.value and e.element.path == section), best)




# How many things a question asks for, when it says so ("필수 환경변수 두 개 뭐예요?", "지원 시장 세 가지", "2개",
# "what are the two required variables"): a Korean number with a counter, or an English number word before a word.
# "몇 개" (how many) asks a count, not several things; "두 번째" is an ordinal, "세 개월" a duration; a particle may
# follow the counter ("세 가지는").
_KO_NUMBERS = {"한": 1, "하나": 1, "두": 2, "둘": 2, "세": 3, "셋": 3, "네": 4, "넷": 4, "다섯": 5, "여섯": 6,
               "일곱": 7, "여덟": 8, "아홉": 9, "열": 10}
_EN_NUMBERS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10}
_KO_NUMBER = "|".join(sorted(_KO_NUMBERS, key=len, reverse=True))
_COUNTED = re.compile(rf"(?<![\w])({_KO_NUMBER}|\d+)\s*(?:개|가지)(?:[는은이가를을야요의])?(?![가-힣])"
                      rf"|\b({'|'.join(_EN_NUMBERS)})\s+(?=[a-z])", re.I)


def asked_count(question: str) -> int:
    """How many things ``question`` says it asks for (0 when it does not say)."""
    found = _COUNTED.search(question)
    if found is None:
        return 0
    ko, en = found.group(1), found.group(2)
    if en:
        return _EN_NUMBERS[en.casefold()]
    return int(ko) if ko.isdigit() else _KO_NUMBERS[ko]


def counted_units(question: str, best: Evidence, inside: Sequence[Evidence]) -> list[Evidence]:
    """Asked for a number of things ("필수 환경변수 두 개"), the best unit and the next best answering units of its
    kind under the same parent (the rows of its table, the items of its list), that many at most, best first; none
    when the question names no number of two or more, or the best unit has no such sibling that answers: one row
    of "변수명: KRX_PW · 필수 여부: 필수" is half of what "the two required variables" asks. Where the best unit
    states a value for the key asked ("필수 여부: 필수"), a sibling states the same value for the same key: the row
    "필수 여부: 선택" is a row of the table, not one of the things asked."""
    wanted = asked_count(question)
    if wanted < 2:
        return []
    kin = [e for e in inside if e.answers and e.element.parent_id == best.element.parent_id
           and e.element.category == best.element.category and e.element.element_id != best.element.element_id
           and (not best.value or _states_as(e, best))]
    return [best, *kin[:wanted - 1]] if kin else []


def _states_as(unit: Evidence, best: Evidence) -> bool:
    """``unit`` states ``best``'s value for the same key (a row's own name before " — " aside)."""
    key = lambda e: (e.key or "").rsplit(" — ", 1)[-1]  # noqa: E731
    return unit.value == best.value and key(unit) == key(best)


def run_together(question: str, context: Context) -> frozenset[str]:
    """The pairs of the question's words, written apart, that a heading of the context writes run together: "the
    max retry timeout" names ``fetch-retry-maxtimeout`` by "max" and "timeout" as well as by "retry" (the pair is
    looked up among the context's headings, never guessed; :func:`core.statements.run_together_pairs`); and each
    word's other number an option's name writes ("retries" in ``fetch-retries`` for "how many times does npm
    retry")."""
    pairs = run_together_pairs(question)
    forms = {f for w in standalone_words(question) for f in number_forms(w)}
    if not pairs and not forms:
        return frozenset()
    headings = {h for e in context.elements for h in e.path}
    held = frozenset().union(*(terms_with_parts(h) for h in headings))
    named = frozenset().union(*(kebab_words(h) for h in headings))  # a form as a part of an option's name only
    return frozenset({t for pair in pairs if (t := english_stem(pair)) in held}
                     | {t for form in forms if (t := english_stem(form)) in named})


def through_clause_value(question: str, inside: list[Evidence], evidence_of: Callable[[str], list[Evidence]]
                         ) -> list[Evidence]:
    """A question naming a value by a relative clause ("the default manylinux image for the arch that auto32
    picks on a Linux Arm 64-bit runner"): the unit answering it asked of that value ("… for armv7l?",
    ``evidence_of``: a question's evidence, best first) and the unit stating the value (the row "… auto32:
    armv7l¹"), each a hop cited; none when no unit of ``inside`` states the clause's value, or nothing states a
    value for the question so asked."""
    asked = terms(question)
    ranked = sorted(inside, key=lambda e: -len(asked & terms(e.element.text)))
    found = asked_of_clause_value(question, [e.element.text for e in ranked])
    if found is None:
        return []
    row = ranked[found[1]]
    answer = next((e for e in evidence_of(found[0]) if e.answers and e.value and not e.element.outside_scope
                   and e.element.element_id != row.element.element_id), None)
    return [answer, row] if answer is not None else []
