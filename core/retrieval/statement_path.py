"""The statement path that joined two places (issue 31): "X — built by → Y — headed by → Z", each step cited.

When the ``statements`` search chose a statement because it shares a bridge entity with one chosen before it (the
next link of a chain), the two statements are a path: from the thing the question names, through the first
statement, to the entity the two share; from there, through the second statement, to what it states. Built here as
data (:class:`PathStep`); the Compare page renders it, escaped, and ``ask`` may print it. Each step keeps the
element that states it, so every step is a citation.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from core.hlg.extract import key_value
from core.store.hlg_tables import StatementRow
from core.text import clip

__all__ = ["RELATION_CHARS", "PathStep", "statement_path"]

RELATION_CHARS = 80  # a statement shown as a step's relation is cut here (the citation leads to all of it)


@dataclass(frozen=True)
class PathStep:
    """``source`` — ``relation`` → ``target``: one statement of the path, stated by the element ``element_id``."""

    source: str
    relation: str
    target: str
    element_id: str
    heading_path: tuple[str, ...]
    statement: str  # the statement whole

    def as_dict(self) -> dict[str, Any]:
        return {"source": self.source, "relation": self.relation, "target": self.target,
                "element_id": self.element_id, "heading_path": list(self.heading_path), "statement": self.statement}


def _subject(row: StatementRow) -> str:
    return row.heading_path[-1] if row.heading_path else ""


def _step(row: StatementRow, source: str, target: str) -> PathStep:
    kv = key_value(row.text)
    if kv and not target:
        relation, target = kv
    elif kv and kv[1].casefold() == target.casefold():  # "Built by : Aurora Optics Lab" → Aurora Optics Lab
        relation = kv[0]
    else:
        relation = clip(" ".join(row.text.split()), RELATION_CHARS, at_word=True)
    return PathStep(source, relation, target or _subject(row), row.element_id, row.heading_path, row.text)


def statement_path(first: StatementRow, second: StatementRow, shared: Sequence[int],
                   mentions: dict[int, dict[int, int]], names: dict[int, tuple[str, str]],
                   question_keys: frozenset[str]) -> tuple[PathStep, ...]:
    """The two steps from ``first`` to ``second``, joined through the most specific of the ``shared`` entities
    (the fewest statements mention it); the path starts at an entity the question names that one of them mentions
    (that one first), else at ``first``'s subject heading. ``mentions``: the bridge entities each statement
    mentions with their statement counts; ``names``: entity id → (merge key, name)."""
    if not shared:
        return ()
    bridge = min(shared, key=lambda e: (mentions.get(first.statement_id, {}).get(e, 0), e))
    bridge_name = names.get(bridge, ("", ""))[1] or _subject(second)

    def asked(row: StatementRow) -> list[str]:
        return sorted(names[e][1] for e in mentions.get(row.statement_id, {})
                      if e != bridge and e in names and names[e][0] in question_keys)

    if not asked(first) and asked(second):  # the path starts where the question starts: at the thing it names
        first, second = second, first
    source = (asked(first) or [_subject(first)])[0]
    if source == bridge_name:
        source = ""
    return (_step(first, source, bridge_name), _step(second, bridge_name, ""))
