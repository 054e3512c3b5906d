"""The search of a question asking several facts at once (:mod:`core.retrieval.parts`): each part searched on its
own path, the hits taken in turns."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from core.retrieval.analysis import analyse
from core.retrieval.count_hop import with_counted
from core.retrieval.definition_hop import with_mentioned_definition
from core.retrieval.hits import Hit
from core.retrieval.named_rows import row_key, writes_key
from core.retrieval.parts import referred_thing, referred_value, with_referred_thing, with_referred_value
from core.retrieval.scope import PATH_SEPARATOR, Scope, short_text
from core.retrieval.search import embed_query
from core.retrieval.stages import SearchContext
from core.statements import terms

__all__ = ["interleave", "search_by_parts"]


def interleave(lists: list[list[Hit]], k: int) -> list[Hit]:
    """The hits of each part's search taken in turns (each part's best first), an element once, until ``k``
    elements; re-ranked in the order taken, an outside-scope mark dropped (each part's scope was its own: the merged
    hits answer the parts, none is outside the whole question)."""
    out: list[Hit] = []
    seen: set[str] = set()
    depth = max((len(h) for h in lists), default=0)
    for i in range(depth):
        for hits in lists:
            if i < len(hits) and hits[i].element_id not in seen and len(out) < k:
                seen.add(hits[i].element_id)
                out.append(Hit(hits[i].element, len(out), hits[i].distance))
    return out


def _answering_first(hits: list[Hit], part: str) -> list[Hit]:
    """A part's hits, the rows whose key the part writes first (the row of the code asked, "005", before a row
    "은행코드: 020 · 은행명: …" that shares more of its words), then those holding more of the part's terms, in
    rank order on a tie."""
    asked = terms(part)
    named = lambda h: h.element.category == "TableRow" and writes_key(part, asked, row_key(h.element.text))  # noqa: E731
    return sorted(hits, key=lambda h: (not named(h), -len(asked & terms(h.element.text)), h.rank))


def _with_closer_section(context: SearchContext, found: Any) -> tuple[Any, int]:
    """A part's hits and, when its scope (read from the part's words) holds nothing as close to the part as the
    whole collection's best hit kept from outside it, the part's ``k`` best hits inside that hit's own section as
    well: a part is a few words, and one of them heading a section ("will black **change** formatting" → "Change
    Log") is no place it asks about when the closest passage lies elsewhere; the passage's neighbours ("it will
    remain unchanged … in the same calendar year" beside "The first release in a new calendar year …") answer it
    as well. One search more, only then. With the number of hits added (their room is the part's own)."""
    match = getattr(found, "heading_match", None)
    if match is None or not found.hits:
        return found, 0
    kept = found.hits[-1]
    inside = [h.distance for h in found.hits if match.contains(h.element) and h.distance is not None]
    if match.contains(kept.element) or kept.distance is None or not inside or kept.distance >= min(inside):
        return found, 0
    chain = context.store.ancestors([kept.element_id])
    section = chain.get(kept.element.parent_id or "")
    while section is not None and not section.is_heading:
        section = chain.get(section.parent_id or "")
    if section is None:
        return found, 0
    label = PATH_SEPARATOR.join(short_text(p, 60) for p in (*section.heading_path, section.text))
    more, _timings = context.search(context.question, context.k + len(found.hits), Scope.subtree(
        section.element_id, label))
    taken = {h.element_id for h in found.hits}
    added = [h for h in more if h.element_id not in taken and h.element_id != section.element_id][:context.k]
    if added:
        n = len(found.hits)
        found.hits = [*found.hits, *(Hit(h.element, n + i, h.distance) for i, h in enumerate(added))]
        found.notes.append(f"the scope holds nothing as close as {label}: searched under it as well")
    return found, len(added)


def search_by_parts(context: SearchContext, search_one: Callable[[SearchContext], Any]
                    ) -> tuple[list[Hit], list[str], dict[str, float], list[Any], tuple[Any, ...]]:
    """Each of ``context``'s question parts searched by ``search_one`` (the config's own path: a part's own vector,
    scope and entity hits, ``k`` hits), the hits taken in turns (:func:`interleave`), ``k`` for each part: each
    fact asked gets the room one question gets. With the parts' notes, their summed stage timings and entities,
    and the first statement path a part's search joined (the statements search)."""
    found = []
    extra = 0  # hits a part took from the section closer than its scope: room of its own
    for part in context.analysis.parts:
        if found:  # a part pointing back ("그 은행 운영시간은") is asked of the value the part before it found
            before = context.analysis.parts[len(found) - 1]
            answered = _answering_first(found[-1].hits, before)
            value = referred_value(part, [h.element.text for h in answered])
            # "its" (after "which option …") is the option the part before found: its answer's own heading
            thing = None if value else referred_thing(part, before, [h.element.heading_path[-1]
                                                                     for h in answered if h.element.heading_path])
            part = with_referred_value(part, value) if value else with_referred_thing(part, thing) if thing else part
        own = SearchContext(context.store, embed_query(context.store, part), context.k, context.config,
                            analyse(part, context.analysis.lexicon), context.stages, context.sibling,
                            index=context.index)
        part_found, more = _with_closer_section(own, search_one(own))
        more += with_mentioned_definition(own, part_found, getattr(part_found, "index", None) or context.index)
        more += with_counted(own, part_found)  # asked how many, the passage counting them
        found.append(part_found)
        extra += more
        context.searches += own.searches
    timings: dict[str, float] = {}
    for f in found:
        for stage, spent in f.timings.items():
            timings[stage] = round(timings.get(stage, 0.0) + spent, 3)
    hits = interleave([f.hits for f in found], context.k * len(found) + extra)
    return (hits, [n for f in found for n in f.notes], timings, [e for f in found for e in f.entities],
            next((f.path for f in found if f.path), ()))
