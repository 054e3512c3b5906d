"""The units of an extractive answer that asks several facts at once, or bridges two (issue 31): one unit per part
of a question asking several things (:mod:`core.retrieval.parts`), each with its own citation, and the hops of a
question naming a thing by a relative clause."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from core.answering.evidence import Evidence
from core.retrieval.parts import dates_in, referred_value, with_referred_value
from core.retrieval.shape import name_runs
from core.statements import terms, terms_with_parts
from core.textnorm import english_stem

__all__ = ["clause_description", "units_for_parts", "value_of_section"]


def units_for_parts(parts: Sequence[str], evidence_of: Callable[[str], list[Evidence]]) -> list[Evidence]:
    """The best unit answering each of ``parts`` (``evidence_of``: a part's evidence, best first), one element
    each, in the order asked; none when fewer than two parts, or when the context answers only some (then the
    question is answered as a whole). A unit that is the best of several parts goes to the part that scores it
    highest, the other takes its next: the row "Name: main · Repository: …" is the best of "repository urls for
    main" and, by its key, of "for test" too. A part pointing back at the value the part before it answered
    ("005는 어느 은행이고 그 은행 운영시간은") is asked of that value."""
    if len(parts) < 2:
        return []
    answering: list[list[Evidence]] = []
    for part in parts:
        if answering and answering[-1]:
            value = referred_value(part, [value_of_section(answering[-1]).element.text])
            part = with_referred_value(part, value) if value else part
        answering.append(_naming_first(part, _answering(part, evidence_of(part))))
    chosen: dict[int, Evidence] = {}
    while True:  # the part whose best free unit scores highest takes it first
        taken = {u.element.element_id for u in chosen.values()}
        offers = [(value_of_section(free), i) for i, found in enumerate(answering) if i not in chosen
                  and (free := [e for e in found if e.element.element_id not in taken])]
        if not offers:
            break
        unit, i = max(offers, key=lambda offer: (offer[0].score, -offer[1]))
        chosen[i] = unit
    units = [chosen[i] for i in sorted(chosen)]
    return units if len(units) == len(parts) else []


def _answering(part: str, evidence: list[Evidence]) -> list[Evidence]:
    """The units of a part's ``evidence`` that answer it, inside the scope. When none of them states a value, the
    units stating one under a heading that names two of the part's words, and scoring above them all, come first:
    "how long is the max retry timeout?" asks for the value of `fetch-retry-maxtimeout`, whose `Default: 60000`
    line keys nothing the part writes, and the prose of a neighbour section sharing the word "retry" is no answer
    to it."""
    inside = [e for e in evidence if not e.element.outside_scope]
    answering = [e for e in inside if e.answers]
    if not answering or any(e.value for e in answering):
        return answering
    floor = max(e.score for e in answering)
    valued = sorted((e for e in inside if e.value and not e.answers and e.score > floor
                     and e.element.category != "Title" and _heading_names(part, e)), key=lambda e: -e.score)
    return [*valued, *answering]


def _heading_names(part: str, unit: Evidence) -> bool:
    """The unit's own heading holds two of the part's words, a pair written run together counting as one of its
    words ("max … timeout" in `fetch-retry-maxtimeout`)."""
    if not unit.element.path:
        return False
    heading = terms_with_parts(unit.element.path[-1])
    written = [w for w in terms(part) if w.isascii() and w.isalpha()]
    joined = {english_stem(a + b) for a in written for b in written if a != b}
    return len(heading & (terms(part) | joined)) >= 2


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


