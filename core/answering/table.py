"""The comparison table: entities × the attribute a comparative, superlative or list question asks.

Rows are the entities of the question (``Context.entities``, found by the retrieval: the headings it lists, or the
siblings holding the same relative path), each with the value the context states for the attribute under that
entity's heading, cited with its element and path, or "not stated" when nothing under it states the attribute:
a value is never borrowed from another entity. Without entities from the retrieval, a hierarchical context's
cells are grouped by the heading where their paths part; a plain context has no paths, so its rows carry no
entity. Table elements give a row per table row ("Abbreviations | abbr | …").

Values are read as quantities by :mod:`core.answering.quantities` (pint), so "1.9 kg" and "2400 g" rank
correctly; a comparison or superlative picks the highest or lowest of the comparable values, ties included.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Any

from core.answering import prompts
from core.quantities import Measured, comparable, measure
from core.retrieval import Context, ContextElement
from core.retrieval.shape import QuestionShape, question_shape
from core.statements import (
    attribute_share,
    question_terms,
    row_cell,
    statement,
    table_column,
    table_rows,
    terms,
)

__all__ = ["ComparisonTable", "TableRow", "build_table"]

# A row's key must name more than this share of what the best-matching key names.
SAME_ATTRIBUTE_SHARE = 0.5
# A value saying the thing is absent: a cross, a dash, "no", "none", zero, "없음"; anything else states it.
_ABSENT = re.compile(r"^\s*(?:x|✗|✘|×|-|–|—|no|none|n/?a|false|off|not\s+(?:supported|available|included)|unsupported"
                     r"|없음|미지원|미포함|불가(?:능)?|아니오|0(?![\d.,]))(?:\W|$)", re.I)
# A key that says what its value includes or leaves out: "무게(스탠드 포함)", "Weight (without stand)".
_QUALIFIER = re.compile(r"[(（][^)）]+[)）]")


@dataclass(frozen=True)
class TableRow:
    """One entity's value for the attribute, or ``value is None``: the entity does not state it."""

    entity: str
    key: str | None = None
    value: str | None = None
    element_id: str | None = None
    short_id: str | None = None
    path: tuple[str, ...] = ()
    measured: Measured | None = None

    @property
    def stated(self) -> bool:
        return self.value is not None

    def citation(self) -> str:
        return f"[e:{self.short_id}]" if self.short_id else ""


@dataclass(frozen=True)
class ComparisonTable:
    """Entities × the attribute asked, and the pick of a comparison or superlative."""

    shape: QuestionShape
    rows: tuple[TableRow, ...]
    picked: tuple[TableRow, ...] = ()
    note: str | None = None  # why nothing was picked
    attributed: bool = True  # False in a plain context: rows carry no entity

    @property
    def stated(self) -> tuple[TableRow, ...]:
        return tuple(r for r in self.rows if r.stated)

    def records(self) -> list[dict[str, Any]]:
        """The rows as records for a dataframe (document text: shown as data, never as markup)."""
        return [{"entity": r.entity or "(not shown in a plain context)", "attribute": r.key or "",
                 "value": r.value if r.stated else prompts.TABLE_NOT_STATED,
                 "picked": r in self.picked, "element": r.short_id or "", "path": " › ".join(r.path)}
                for r in self.rows]

    def render(self) -> str:
        """The table as answer lines: the pick first (when there is one), then one line per entity."""
        lines = []
        if self.shape.having and not self.picked:
            lines.append(prompts.TABLE_NONE_HAVE.format(having=self.shape.having))
        if self.picked:
            label = (prompts.TABLE_HAVING.format(having=self.shape.having) if self.shape.having
                     else prompts.TABLE_PICK[self.shape.direction or "max"])
            picks = (f"{r.entity + ' — ' if r.entity else ''}{r.value} {r.citation()}".rstrip() for r in self.picked)
            lines.append(f"{label}: " + "; ".join(picks))
        for row in self.rows:
            name = f"{row.entity}: " if row.entity else ""
            if not row.stated:
                lines.append(f"- {name}{prompts.TABLE_NOT_STATED}")
                continue
            where = f" ({' › '.join(row.path)})" if row.path else ""
            lines.append(f"- {name}{row.key}: {row.value} {row.citation()}{where}")
        if self.note:
            lines.append(self.note)
        if not self.attributed:
            lines.append(prompts.TABLE_PLAIN_NOTE)
        return "\n".join(lines)


def _cells(element: ContextElement, asked: frozenset[str]) -> list[tuple[str | None, str, str, float]]:
    """``(row name or None, key, value, share of the key asked)`` the element states for the attribute."""
    text = element.text.strip()
    if element.category == "TableRow":
        cell = row_cell(asked, text)
        if cell is None:
            return []
        if cell[0] == cell[1]:  # a row without headers reads as "key · value"
            share = attribute_share(asked, cell[0])
            return [(None, cell[0], cell[2], share)] if share > 0 and cell[2] else []
        return [(cell[0], cell[1], cell[2], 1.0)] if cell[2] else []
    if element.category == "Table" or text.startswith("|"):
        rows = table_rows(text)
        if len(rows) < 2:
            return []
        header, out = rows[0], []
        for row in rows[1:]:
            column = table_column(asked, header, row[0])
            if column is not None and column < len(row) and row[column]:
                out.append((row[0], header[column], row[column], 1.0))
        return out
    found = statement(asked, text, element.category)
    if not found:
        return []
    share = attribute_share(asked, found[0])
    return [(None, found[0], found[1], share)] if share > 0 else []


def _asked(question: str, shape: QuestionShape, context: Context) -> frozenset[str]:
    """The question's terms that name the attribute: not the names of the entities it compares. (A section
    heading the question names, "Warranty", stays: in a comparison it is the attribute.)"""
    if shape.having:
        return question_terms(shape.having, context.lexicon)
    labels = {t for e in context.entities for t in terms(e.label)}
    # a part no entity's heading names ("LAN" in "Compare the LAN port of the A and the B") is the attribute
    parts = [p for p in shape.parts if not context.entities or terms(p) <= labels]
    names = terms(" ".join(parts)) | labels
    return question_terms(question, context.lexicon) - names


def _entity_of_paths(cells: list[tuple[ContextElement, Any]]) -> dict[str, tuple[str, ...]]:
    """Each cell's entity path when the retrieval named none: the heading where the cells' paths part."""
    paths = [e.path for e, _ in cells if e.path]
    depth = 0
    while paths and all(len(p) > depth for p in paths) and len({p[depth] for p in paths}) == 1:
        depth += 1
    return {e.element_id: e.path[: depth + 1] for e, _ in cells if e.path}


def _best(candidates: list[tuple[ContextElement, tuple[str | None, str, str, float]]],
          common_keys: Counter[str]) -> tuple[ContextElement, tuple[str | None, str, str, float]]:
    # equally good keys: the one most entities state, then the same one for every entity (its text decides)
    return max(candidates, key=lambda c: (c[1][3], common_keys[c[1][1]], c[1][1],
                                          -(c[0].rank if c[0].rank is not None else 1_000)))


def build_table(question: str, context: Context) -> ComparisonTable | None:
    """The comparison table of ``question`` over ``context``, or ``None`` for a question about one thing."""
    shape = question_shape(question)
    if shape is None:
        return None
    asked = _asked(question, shape, context)
    prefer = frozenset(w.casefold() for w in question.split() if len(w) >= 2)
    # A hit kept from outside the named headings is another thing's evidence, except under one of the entities
    # compared (the scope names one of them, the hit lies in another's sheet) or in a table whose rows name the
    # things compared: there the row says whose value it is.
    cells = [(e, cell) for e in context.elements if e.role != "ancestor" for cell in _cells(e, asked)
             if not e.outside_scope or any(ref.holds(e) for ref in context.entities)
             or (cell[0] is not None and _names_part(cell[0], shape))]
    if not cells:
        return None
    common = Counter(c[1] for _, c in cells)
    rows: list[TableRow] = []

    def row(entity: str, element: ContextElement, cell: tuple[str | None, str, str, float]) -> TableRow:
        return TableRow(entity, cell[1], cell[2], element.element_id, element.short_id, element.path,
                        measure(cell[2], prefer))

    table_cells = [(e, c) for e, c in cells if c[0] is not None]
    if len(table_cells) >= 2:  # a table's rows are the entities, named in the row itself
        for element, cell in table_cells:
            rows.append(row(str(cell[0]), element, cell))
    elif context.mode == "hierarchical" and context.entities:
        # Every row states the same attribute: a cell naming a small part of it ("지원 색 깊이" for "PBP/PIP 지원")
        # while another entity states it whole is another attribute, and that entity's value is "not stated".
        floor = SAME_ATTRIBUTE_SHARE * max(c[3] for _, c in cells)
        for ref in context.entities:
            inside = [(e, c) for e, c in cells if ref.holds(e) and c[3] > floor]
            rows.append(row(ref.label, *_best(inside, common)) if inside else TableRow(ref.label))
    elif context.mode == "hierarchical":
        entity_paths = _entity_of_paths(cells)
        groups: dict[tuple[str, ...], list] = {}
        for element, cell in cells:
            groups.setdefault(entity_paths.get(element.element_id, ()), []).append((element, cell))
        for path, members in groups.items():
            rows.append(row(path[-1] if path else "", *_best(members, common)))
    else:
        rows = [row("", e, c) for e, c in cells]
    rows = _only_parts(rows, shape)
    if not rows:
        return None
    picked, note = _pick(rows, shape)
    return ComparisonTable(shape, tuple(rows), picked, note, attributed=context.mode == "hierarchical")


def _names_part(row_name: str, shape: QuestionShape) -> bool:
    row = terms(row_name)
    return len(shape.parts) >= 2 and any(terms(p) and terms(p) <= row for p in shape.parts)


def _only_parts(rows: list[TableRow], shape: QuestionShape) -> list[TableRow]:
    """With two or more things listed, the rows of those things (a part naming every row names none)."""
    if len(shape.parts) < 2 or not all(r.entity for r in rows):
        return rows
    part_terms = [terms(p) for p in shape.parts]
    specific = [p for p in part_terms if sum(bool(p & terms(r.entity)) for r in rows) < len(rows)]
    kept = [r for r in rows if any(p & terms(r.entity) for p in specific)]
    return kept or rows


def _pick(rows: list[TableRow], shape: QuestionShape) -> tuple[tuple[TableRow, ...], str | None]:
    if shape.having:
        return tuple(r for r in rows if r.stated and not _ABSENT.match(str(r.value))), None
    if shape.direction is None:
        return (), None
    measured = [r for r in rows if r.measured is not None]
    if len(measured) < 2:
        return (), prompts.TABLE_NOTHING_TO_RANK
    # "무게(스탠드 포함)" against "무게(스탠드 제외)": each entity's value, but not of the same thing. (Keys in two
    # languages, "무게(스탠드 제외)" and "Weight (without stand)", have different bases and are not refused.)
    def base(key: str) -> str:
        return _QUALIFIER.sub("", key).strip().casefold()

    keys_of: dict[str, set[str]] = {}
    for r in measured:
        keys_of.setdefault(base(str(r.key or "")), set()).add(str(r.key or "").casefold())
    mixed = sorted({str(r.key) for r in measured if r.key and len(keys_of[base(r.key)]) > 1})
    if mixed:
        return (), prompts.TABLE_DIFFERENT_KEYS.format(keys=", ".join(mixed))
    dims = Counter(str(r.measured.low.dimensionality) for r in measured if r.measured)
    dim = dims.most_common(1)[0][0]
    ranked = [r for r in measured if r.measured and str(r.measured.low.dimensionality) == dim]
    if len(ranked) < 2:
        return (), prompts.TABLE_NOT_COMPARABLE
    sign = 1.0 if shape.direction == "max" else -1.0
    best = max(sign * r.measured.key(shape.direction) for r in ranked if r.measured)
    picked = tuple(r for r in ranked if r.measured and abs(sign * r.measured.key(shape.direction) - best) <= 1e-9 *
                   max(1.0, abs(best)))
    others = [r for r in measured if r not in ranked]
    note = prompts.TABLE_NOT_COMPARABLE if others and not comparable(ranked[0].measured.low,
                                                                     others[0].measured.low) else None
    return picked, note
