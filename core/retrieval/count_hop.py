"""A part asking how many, found where the things are described but not counted (issue 31): "자동재처리 되는
오류코드는 몇 개야?" finds the notice "ℹ️ 자동재처리 가능 오류코드" and the paragraph saying what 'O' means, and
the table's rows, but not the line after them that counts them ("자동재처리 가능 오류코드 (8개): TS1, TS2, …"):
the count shares the same words with every one of them and wins no place of its own.

Korean states a count with a counter after the number ("8개", "3가지", "2건"), the counter the question asks by
("몇 개"). When no hit states a number with the part's counter, the part is searched again inside the section of
the hit holding the most of its words, and the passages there stating such a number join its hits, with room of
their own (as a part's other hops). One search more, only then; an English "how many" is left as it is (its
answer is a number with any noun, which every passage with a digit seems to state).
"""

from __future__ import annotations

import re
from typing import Protocol

from core.retrieval.hits import Hit
from core.retrieval.scope import PATH_SEPARATOR, Scope, short_text
from core.retrieval.stages import SearchContext
from core.retrieval.strategies import MAX_K
from core.statements import terms

__all__ = ["asked_counter", "states_count", "with_counted"]

# "몇 개", "몇 가지", "몇건": the counter the question counts by
_ASKED = re.compile(r"몇\s*(개|가지|건|종|명|곳)")


class _Found(Protocol):
    hits: list[Hit]
    notes: list[str]


def asked_counter(part: str) -> str | None:
    """The Korean counter ``part`` asks a number of ("개" in "몇 개야?"), None when it asks no count."""
    found = _ASKED.search(part)
    return found.group(1) if found else None


def states_count(text: str, counter: str) -> bool:
    """Whether ``text`` states a number with ``counter`` ("(8개)")."""
    return re.search(rf"\d+\s*{counter}(?![가-힣])", text) is not None


def with_counted(context: SearchContext, found: _Found) -> int:
    """``found`` (a part's hits) with the passages stating a number with the part's counter, searched inside the
    section of the hit holding the most of the part's terms, when no hit states one; the number of hits added
    (their room is the part's own)."""
    counter = asked_counter(context.question)
    if counter is None or not found.hits or any(states_count(h.element.text, counter) for h in found.hits):
        return 0
    asked = context.analysis.terms
    held = [(len(terms(h.element.text) & asked), -i, h) for i, h in enumerate(found.hits)
            if not h.element.is_heading and h.element.heading_path]
    if not held:
        return 0
    shared, _, best = max(held, key=lambda t: (t[0], t[1]))
    if not shared:
        return 0
    path = best.element.heading_path
    chain = context.store.ancestors([best.element_id])
    section = chain.get(best.element.parent_id or "")
    while section is not None and not section.is_heading:
        section = chain.get(section.parent_id or "")
    if section is None:
        return 0
    label = PATH_SEPARATOR.join(short_text(p, 60) for p in path)
    more, _timings = context.search(context.question, min(MAX_K, context.k + len(found.hits)),
                                    Scope.subtree(section.element_id, label))
    taken = {h.element_id for h in found.hits}
    added = [h for h in more if h.element_id not in taken and states_count(h.element.text, counter)][:context.k]
    if added:
        n = len(found.hits)
        found.hits = [*found.hits, *(Hit(h.element, n + i, h.distance) for i, h in enumerate(added))]
        found.notes.append(f"the part asks how many ({counter}), no hit states a number of them: searched {label} "
                           "as well")
    return len(added)
