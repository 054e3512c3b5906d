"""The second hop of a question that names a thing by a relative clause (issue 31): "미리내 2호 입자 검출기 자료를
분석하는 연구실 실장은?", "the lab that built the Bitsal payload".

The clause describes the thing; the thing is the section its description sits in (the lab whose heading the
sentence "… 미리내 2호의 입자 검출기 자료를 분석합니다." is written under), and the attribute asked of it
("실장 : 오세린") is stated in that section, usually by an item that shares no word with the clause. The first
search finds the description; this hop searches the question again inside the section of the hit that holds the
most of the question's terms, ``k`` more hits, as a part of a question of two asks gets ``k`` of its own
(``core.retrieval.parts_search``). The hop is the heading tree's own bridge: the answer of the clause (the section)
is the subject of the ask. A section the first search already scoped to adds nothing new and costs one search.

Asked a noun of the thing that its section does not state ("who heads the **division** of the lab that built …":
the lab's section states its 실장 and what it built, no division), the noun names what holds the thing: the section
above (위성기술본부), whose own items ("본부장 : 류하진") are searched as well, one search more. A noun the section
states ("the default of the option that …": its ``Default:``) stays the thing's own.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from core.elements import Element
from core.retrieval.analysis import analyse
from core.retrieval.hits import Hit
from core.retrieval.parts import asked_of_clause_value
from core.retrieval.scope import PATH_SEPARATOR, Scope, short_text
from core.retrieval.search import MAX_K, embed_query
from core.retrieval.shape import container_noun
from core.retrieval.stages import SearchContext
from core.statements import terms


class _Found(Protocol):
    hits: list[Hit]

__all__ = ["described_section", "hop_through_clause_value", "hop_to_described_section"]


def described_section(context: SearchContext, hits: list[Hit]) -> Element | None:
    """The heading of the section the clause's description sits in: of ``hits``, the one (not a heading) holding
    the most of the question's terms, the best ranked on a tie; its nearest heading. None when no hit holds any."""
    asked = context.analysis.terms
    held = [(len(terms(h.element.text) & asked), -i, h) for i, h in enumerate(hits) if not h.element.is_heading]
    if not held:
        return None
    shared, _, described = max(held, key=lambda t: (t[0], t[1]))
    if not shared:
        return None
    chain = context.store.ancestors([described.element_id])
    element = chain.get(described.element.parent_id or "")
    while element is not None and not element.is_heading:
        element = chain.get(element.parent_id or "")
    return element


def _section_hits(context: SearchContext, section: Element, hits: list[Hit], *, own: bool = False) -> list[Hit]:
    """The ``k`` best hits of the question inside ``section``, not among ``hits`` nor its heading; ``own``: only
    those written right under its heading, not under a heading below it (the section's own items)."""
    label = PATH_SEPARATOR.join(short_text(p, 60) for p in (*section.heading_path, section.text))
    # the section's own heading and the hits already taken come back too: ask for room past them
    wanted = MAX_K if own else min(MAX_K, context.k + len(hits) + 1)
    found, _timings = context.search(context.question, wanted, Scope.subtree(section.element_id, label))
    taken = {h.element_id for h in hits}
    path = (*section.heading_path, section.text)
    return [h for h in found if h.element_id not in taken and h.element_id != section.element_id
            and (not own or (tuple(h.element.heading_path) == path and not h.element.is_heading))][:context.k]


def _parent_section(context: SearchContext, section: Element) -> Element | None:
    chain = context.store.ancestors([section.element_id])
    element = chain.get(section.parent_id or "")
    while element is not None and not element.is_heading:
        element = chain.get(element.parent_id or "")
    return element


def hop_to_described_section(context: SearchContext, hits: list[Hit]) -> tuple[list[Hit], list[str]]:
    """``hits`` and, after them, the ``k`` best hits of the question inside the section its relative clause
    describes (:func:`described_section`), each element once; with a note naming the section. Asked a noun of that
    thing which its section does not state ("who heads the division of the lab that built …"), the noun names what
    holds it: the section above, whose own items (not those of the sections under it: its other members') come
    first."""
    section = described_section(context, hits)
    if section is None:
        return hits, []
    label = PATH_SEPARATOR.join(short_text(p, 60) for p in (*section.heading_path, section.text))
    added = _section_hits(context, section, hits)
    notes = []
    noun = container_noun(context.question)
    if noun is not None and not _states(context, noun, [*hits, *added], section):
        parent = _parent_section(context, section)
        held = _section_hits(context, parent, hits, own=True) if parent is not None else []
        if parent is not None and held:
            hits = [*hits, *(Hit(h.element, len(hits) + i, h.distance) for i, h in enumerate(held))]
            taken = {h.element_id for h in held}
            added = [h for h in added if h.element_id not in taken]
            notes.append(f"the question asks the {noun} of {label}, which it does not state: searched "
                         f"{short_text(parent.text, 60)}'s own items as well")
    if not added:
        return hits, notes
    out = [*hits, *(Hit(h.element, len(hits) + i, h.distance) for i, h in enumerate(added))]
    return out, [*notes, f"the relative clause describes {label}: searched under it as well"]


def _states(context: SearchContext, noun: str, hits: list[Hit], section: Element) -> bool:
    """Whether a hit inside ``section`` states ``noun`` (its terms, or their names in the other script)."""
    wanted = terms(noun)
    wanted |= context.analysis.lexicon.translate(wanted) if context.analysis.lexicon else frozenset()
    path = (*section.heading_path, section.text)
    return any(tuple(h.element.heading_path[:len(path)]) == path and wanted & terms(h.element.text) for h in hits)


def hop_through_clause_value(context: SearchContext, hits: list[Hit], search_one: Callable[[SearchContext], _Found]
                             ) -> tuple[list[Hit], list[str]]:
    """``hits`` and, after them, the ``k`` best hits of the question asked of the value its relative clause names
    (:func:`core.retrieval.parts.asked_of_clause_value`): "the default manylinux image for the arch that auto32
    picks on a Linux Arm 64-bit runner" is a value bridge, the row found states "auto32: armv7l¹", and the image
    is asked for armv7l, on the config's own path (``search_one``). Unchanged when no hit states the clause's
    value; one embedding and one search more when one does."""
    asked = context.analysis.terms
    ranked = sorted(hits, key=lambda h: (-len(asked & terms(h.element.text)), h.rank))
    found = asked_of_clause_value(context.question, [h.element.text for h in ranked])
    if found is None:
        return hits, []
    question = found[0]
    own = SearchContext(context.store, embed_query(context.store, question), context.k, context.config,
                        analyse(question, context.analysis.lexicon), context.stages, context.sibling,
                        index=context.index)
    more = search_one(own).hits
    context.searches += own.searches
    taken = {h.element_id for h in hits}
    added = [h for h in more if h.element_id not in taken][:context.k]
    if not added:
        return hits, []
    out = [*hits, *(Hit(h.element, len(hits) + i, h.distance) for i, h in enumerate(added))]
    return out, [f"the relative clause names a value: asked as \"{question}\" as well"]
