"""Checks of an answer's text against a comparison's gold table, and of whose value an answer quotes.

Pure functions over the answer text (what the user reads), so the same check scores the extractive answerer,
an LLM, or an older build of either.

* :func:`table_answer_right`: a comparison, superlative or list answer is right when every gold entity has a
  line naming it that holds its gold value and a citation (``[e:…]``), or says "not stated" where the gold
  value is ``None``, and, when the question picks one, the first line names the pick and no other entity.
* :func:`states_value`: the answer states a value (it is not "not stated" / "not found" / empty).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from core.evaluation.metrics import contains_answer

__all__ = ["NOT_STATED_MARKERS", "states_value", "table_answer_right"]

NOT_STATED_MARKERS = ("not stated", "not found", "no evidence")
_CITATION = re.compile(r"\[e:[0-9a-f]{4,}\]")


def states_value(answer: str) -> bool:
    """Whether ``answer`` gives a value rather than saying none is stated (its first line decides)."""
    first = answer.strip().splitlines()[0].casefold() if answer.strip() else ""
    return bool(first) and not any(marker in first for marker in NOT_STATED_MARKERS)


def table_answer_right(answer: str, table: Mapping[str, str | None], pick: Sequence[str] = ()) -> bool:
    """Every entity's value right and cited (or "not stated" where the gold has none), and the pick right."""
    lines = answer.splitlines()
    if not lines:
        return False
    body = lines[1:] if pick else lines  # with a pick, the first line is the pick, not an entity's row
    for alias, value in table.items():
        naming = [line for line in body if contains_answer(line, [alias])]
        if value is None:
            if not any("not stated" in line.casefold() for line in naming):
                return False
        elif not any(contains_answer(line, [value]) and _CITATION.search(line) for line in naming):
            return False
    if pick:
        first = lines[0]
        others = [a for a in table if a not in pick]
        if not all(contains_answer(first, [p]) for p in pick) or any(contains_answer(first, [o]) for o in others):
            return False
    return True
