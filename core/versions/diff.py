"""The changes between two versions of a document, element by element, with a word diff for edited text.

:func:`diff_elements` runs :func:`core.versions.matching.match_versions` and turns each element's fate into a
:class:`Change`; :func:`as_json` is the JSON form (``{"changes": [...]}``) the CLI and an API would return.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from core.elements import Element
from core.versions.matching import ElementMatch, Op, match_versions

WordOp = tuple[str, str]  # ("equal" | "delete" | "insert", the words joined by single spaces)


@dataclass(frozen=True, slots=True)
class Change:
    """What happened to one element between two versions.

    ``path`` is the heading path of the element where it is now (where it was, for ``removed``); ``old_path`` is
    set only when the element changed place (``moved``, or text changed and ``moved``). ``words`` is the word diff
    of ``before`` → ``after`` for ``modified`` and ``renamed``.
    """

    op: Op
    key: str
    path: tuple[str, ...]
    before: str | None
    after: str | None
    category: str
    old_path: tuple[str, ...] | None = None
    words: tuple[WordOp, ...] = ()
    old_id: str | None = None
    new_id: str | None = None


def word_diff(before: str, after: str) -> tuple[WordOp, ...]:
    """``before`` → ``after`` as runs of equal, deleted and inserted words (whitespace-separated tokens)."""
    a, b = before.split(), after.split()
    out: list[WordOp] = []
    for tag, a1, a2, b1, b2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            out.append(("equal", " ".join(a[a1:a2])))
            continue
        if a2 > a1:
            out.append(("delete", " ".join(a[a1:a2])))
        if b2 > b1:
            out.append(("insert", " ".join(b[b1:b2])))
    return tuple(out)


def _change(match: ElementMatch) -> Change:
    old, new = match.old, match.new
    where = new if new is not None else old
    assert where is not None  # an ElementMatch always has one side
    changed_text = match.op in ("modified", "renamed")
    return Change(
        op=match.op,
        key=match.key,
        path=where.heading_path,
        before=old.text if old is not None else None,
        after=new.text if new is not None else None,
        category=where.category,
        old_path=old.heading_path if (match.moved and old is not None) else None,
        words=word_diff(old.text, new.text) if changed_text and old is not None and new is not None else (),
        old_id=old.element_id if old is not None else None,
        new_id=new.element_id if new is not None else None,
    )


def diff_elements(
    old: Sequence[Element],
    new: Sequence[Element],
    *,
    old_keys: Mapping[str, str] | None = None,
    include_unchanged: bool = False,
) -> list[Change]:
    """The changes from ``old`` to ``new`` (each a version's elements in document order), in diff order.

    Diff order is the new version's document order, with each removed element where it stood in the old version
    (right after the nearest earlier element that survived). Unchanged elements are left out unless
    ``include_unchanged``. ``old_keys``: the old version's stable keys by element id (see ``match_versions``).
    """
    result = match_versions(old, new, old_keys=old_keys)
    return [_change(m) for m in result.matches if include_unchanged or m.op != "unchanged"]


def as_json(changes: Sequence[Change]) -> dict[str, list[dict[str, object]]]:
    """``{"changes": [{"op", "path", "key", "before", "after", "words"?, "old_path"?}]}`` (JSON-ready types)."""
    out: list[dict[str, object]] = []
    for change in changes:
        item: dict[str, object] = {
            "op": change.op, "path": list(change.path), "key": change.key,
            "before": change.before, "after": change.after,
        }
        if change.words:
            item["words"] = [[op, words] for op, words in change.words]
        if change.old_path is not None:
            item["old_path"] = list(change.old_path)
        out.append(item)
    return {"changes": out}
