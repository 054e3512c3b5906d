"""Asked how to do something, the unit that says what to do answers, not the one that describes the situation.

"how do I hide a command's output", "squashed commits are ignored, what should I do": the section asked about
opens with what the tool does ("concurrently offers a few ways to control a command's output", "semantic-release
parses commits according to a commit message convention …"), which shares the question's words best; the answer
is the sentence that tells the reader what to do ("… can be hidden by using the --hide flag", "make sure to
rewrite the resulting commit message"). Both are read from the text's grammar: the question words that ask for a
way, and the constructions that instruct (an imperative's frame, a modal addressed to the reader, a command-line
flag to type), in English and Korean, no corpus's words.
"""

from __future__ import annotations

import re
from dataclasses import replace

from core.answering.evidence import Evidence
from core.answering.neighbours import items_after
from core.retrieval import Context
from core.retrieval.definitions import command_flags
from core.retrieval.shape import asks_how
from core.statements import is_lead_in

__all__ = ["ADDRESSED_TO_READER", "INSTRUCTION_MARGIN", "asks_how", "instruction_first", "instructs"]

# Elsewhere than the first unit's section, an instruction scoring within this of it answers a how-to question
# before it ("To view the factor generated tox environments run tox -l." in the CI guide over the contributing
# page's "Molecule uses Tox factors to generate a matrix …"): two places about as close, the one telling what to do.
INSTRUCTION_MARGIN = 0.1

# A sentence addressed to the reader: a modal with "you", "make sure", "be sure" (also read inside one paragraph,
# core.answering.sentences).
ADDRESSED_TO_READER = r"make\s+sure|be\s+sure|you\s+(?:can|could|should|must|need\s+to|have\s+to|may)"
# Constructions that tell the reader what to do: a modal addressed to the reader, the frame of an imperative
# ("make sure to", "set the …", "by using …"), a necessity; Korean polite imperatives and "…하면 됩니다".
_INSTRUCTS = re.compile(
    rf"\b(?:{ADDRESSED_TO_READER}|ensure\s+(?:that|you)"
    r"|(?:it'?s|it\s+is)\s+(?:necessary|required|recommended)\s+to"
    r"|by\s+(?:using|setting|passing|adding|running)"
    r"|(?:set|use|pass|add|run|enable|disable)\s+(?:the|a|an|it|this|these)\b)"
    r"|(?:하세요|하십시오|해야\s*합니다|하면\s*됩니다|해\s*주세요)", re.I)


def instructs(text: str) -> bool:
    """Whether ``text`` tells the reader what to do: an instruction's construction, or a command-line flag to type
    (``--hide``, ``-i``)."""
    return _INSTRUCTS.search(text) is not None or bool(command_flags(text))


def _introduces_items(evidence: Evidence, context: Context) -> bool:
    """Whether the unit is a lead-in ("you have 2 options:") with a list's items after it in the context."""
    if not is_lead_in(evidence.element.text):
        return False
    at = next((i for i, e in enumerate(context.elements) if e.element_id == evidence.element.element_id), None)
    return at is not None and bool(items_after(context.elements[at + 1:], evidence.element))


def _named_section_instruction(scored: list[Evidence], context: Context, top: Evidence) -> Evidence | None:
    """The first unit, in the document's order, that instructs in a section the question named (its scope,
    ``context.named``: "how do I skip the prerun step" under "Prerun"): the section is the question's place, so its
    instruction answers though it shares none of the question's other words ("… you can still disable it by
    adding prerun: false"); a later one refines it ("Keep in mind that you can add this value to …"). Only inside
    the scope, never a heading or a row."""
    if not context.named:
        return None
    by_id = {e.element.element_id: e for e in scored if e is not top}
    for element in context.elements:
        unit = by_id.get(element.element_id)
        if (unit is not None and element.role != "ancestor" and not element.outside_scope and element.path
                and element.path[-1] in context.named and element.category not in ("Title", "TableRow")
                and instructs(element.text)):
            return unit if unit.answers else replace(unit, answers=True)
    return None


def _close_instruction(scored: list[Evidence], top: Evidence) -> Evidence | None:
    """Elsewhere, the best unit that instructs and scores within ``INSTRUCTION_MARGIN`` of a first unit of prose
    that describes, ranked first by its score alone: a code example leading is no description (it shows what to
    type), and an FAQ entry's or a named section's answer (``section_score``) was placed first as its section's."""
    if top.element.category != "NarrativeText" or top.section_score is not None:
        return None
    return next((e for e in scored if e.answers and e is not top and e.score >= top.score - INSTRUCTION_MARGIN
                 and e.element.category not in ("Title", "TableRow") and instructs(e.element.text)), None)


def instruction_first(question: str, scored: list[Evidence], context: Context) -> list[Evidence]:
    """``scored`` with, for a question asking how to do something, the best answering unit that instructs put
    first, when the first unit describes instead: it must lie in the first unit's document, in its section or
    below it (the question's place, as ranked), and the first unit must state no value of its own (a key : value
    item or a row is the answer as it is), nor be a list's item or introduce one ("you have 2 options:" with its
    items after it): a list's items are the steps or the ways asked for, in whatever mood they are written. A
    lead-in to a code example ("… typing rs does nothing:") is no such list. Failing such a unit, the first
    instruction of a section the question named (:func:`_named_section_instruction`). Else ``scored`` unchanged."""
    if not scored or not asks_how(question):
        return scored
    top = next((e for e in scored if e.answers), None)
    if (top is None or top.value or top.element.category == "ListItem" or instructs(top.element.text)
            or _introduces_items(top, context)):
        return scored
    place = top.element.path
    best = next((e for e in scored if e.answers and e is not top
                 and e.element.document_id == top.element.document_id and e.element.path[: len(place)] == place
                 and e.element.category not in ("Title", "TableRow") and instructs(e.element.text)), None)
    best = best or _named_section_instruction(scored, context, top) or _close_instruction(scored, top)
    if best is None:
        return scored
    out = [e for e in scored if e.element.element_id != best.element.element_id]
    out.insert(out.index(top), best)
    return out
