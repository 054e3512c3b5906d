"""An FAQ answer under sub-headings: the section's lead is read within the best paragraph's own sub-section
(core/answering/extractive.py, ``_section_leads_with_its_first``), and a heading hit's walk through its section
is not charged for the parts that are hits already (core/retrieval/context.py, ``_within_budget``)."""

from __future__ import annotations

from core.answering.evidence import Evidence
from core.answering.extractive import SECTION_FIRST_MARGIN, _section_leads_with_its_first
from core.retrieval import Context, ContextElement

FAQ = ("Frequently Asked Questions", "Why is the package.json's version not updated in my repository?")
SECTION = ("doc", FAQ)


def _paragraph(short: str, sub: str, text: str) -> ContextElement:
    return ContextElement(short * 8, short, "hit", "NarrativeText", text, "doc", (*FAQ, sub))


NOT_NEEDED = _paragraph("a", "It is not needed for the tool to do its job",
                        "The npm plugin updates the version before publishing; only the package holds it.")
CONFUSION = _paragraph("b", "It can lead to confusion",
                       "Keep a semver placeholder such as 0.0.0-development in package.json.")
CONFUSION_FIRST = _paragraph("c", "It can lead to confusion",
                             "Some teams read the repository to find the latest version.")


def _ranked(*scored: tuple[ContextElement, float]) -> list[Evidence]:
    return [Evidence(e, score, score, 0.0, e.text) for e, score in scored]


def _lead(ranked: list[Evidence]) -> str:
    elements = [NOT_NEEDED, CONFUSION_FIRST, CONFUSION]  # document order
    context = Context("hierarchical", "", "", elements, 0)
    section_of = {e.element.element_id: SECTION for e in ranked}
    return _section_leads_with_its_first(ranked, section_of, context)[0].element.text


def test_the_first_paragraph_of_another_sub_heading_does_not_lead():
    # the best paragraph is under "It can lead to confusion"; the first sub-section's paragraph scores within the
    # margin and comes first in the document, but it is another part of the answer
    close = 0.8 - SECTION_FIRST_MARGIN / 2
    assert _lead(_ranked((CONFUSION, 0.8), (NOT_NEEDED, close))) == CONFUSION.text


def test_within_its_own_sub_heading_the_first_paragraph_still_leads():
    close = 0.8 - SECTION_FIRST_MARGIN / 2
    assert _lead(_ranked((CONFUSION, 0.8), (CONFUSION_FIRST, close))) == CONFUSION_FIRST.text


def test_a_hit_under_a_heading_hit_costs_the_children_walk_nothing():
    from core.elements import Element
    from core.retrieval.context import _within_budget
    from core.tokens import count_tokens

    heading = Element("h", "Why is the version not updated?", category="Title", order=0)
    long = Element("p1", " ".join(["The plugin updates the version before publishing."] * 8), parent_id="h", order=1)
    answer = Element("p2", " ".join(["Keep a placeholder such as 0.0.0-development."] * 6), parent_id="h", order=2)
    candidates = {e.element_id: e for e in (long, answer)}
    distances = {"p1": 0.3, "p2": 0.4}  # the hit is the closer part: the walk reaches it first
    budget = max(count_tokens(long.text), count_tokens(answer.text)) + 20  # room for one of the two only
    present = {"h": heading}
    assert _within_budget(["h"], present, candidates, budget, distances) == ["p1"]
    # p1 is a hit of its own (in the context whatever the walk does): the budget goes to the next part
    assert _within_budget(["h"], present, candidates, budget, distances, hits=frozenset({"p1"})) == ["p1", "p2"]
