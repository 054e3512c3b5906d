"""Read API over a collection's index, for the CLI and the report browser.

Functions take an :class:`~core.store.ElementStore` (only ``.reader`` and ``.collection_id`` are used, plus
``.get`` to resolve element ids); :class:`GraphIndex` bundles them for one store. Nothing here writes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar

from langchain_core.documents import Document

from core.graph import tables
from core.graph.model import Community, Entity, Finding, HierarchyRow, Relationship, Report, TextUnit
from core.sql import graph as sql

if TYPE_CHECKING:
    from core.store import ElementStore

_Item = TypeVar("_Item")


class GraphIndexMissing(LookupError):
    """The collection has no index yet: run ``python -m core index``."""


def index_exists(store: ElementStore) -> bool:
    return tables.index_info(store.reader, store.collection_id) is not None


def index_info(store: ElementStore) -> tables.IndexInfo | None:
    return tables.index_info(store.reader, store.collection_id)


def _kind(kind: str | None) -> str | None:
    if kind is not None and kind not in ("entity", "structural"):
        raise ValueError(f"kind must be 'entity' or 'structural', not {kind!r}")
    return kind


def _rows(store: ElementStore, statement: str, params: tables.Params) -> list[tuple]:
    """The rows of one read of the index; none when the collection has no index tables."""
    return tables.fetch(store.reader, statement, params) if tables.tables_exist(store.reader) else []


def _rows_of_kind(store: ElementStore, statement: str, kind: str | None, **params: int | None) -> list[tuple]:
    """:func:`_rows` of a statement filtered by community kind (``kind`` is checked once the tables exist)."""
    if not tables.tables_exist(store.reader):
        return []
    return tables.fetch(store.reader, statement, {"collection_id": store.collection_id, "kind": _kind(kind), **params})


def load_reports(store: ElementStore, *, level: int | None = None, kind: str | None = "entity") -> list[Report]:
    """Reports of one kind (``None``: both) and level (``None``: all), best rated first within a level."""
    return [tables.row_report(r) for r in _rows_of_kind(store, sql.REPORTS_FILTERED, kind, level=level)]


def report(store: ElementStore, community_id: str) -> Report | None:
    rows = _rows(store, sql.REPORT_BY_COMMUNITY, (store.collection_id, community_id))
    return tables.row_report(rows[0]) if rows else None


def communities(store: ElementStore, *, kind: str | None = None, level: int | None = None) -> list[Community]:
    return [tables.row_community(r) for r in _rows_of_kind(store, sql.COMMUNITIES_FILTERED, kind, level=level)]


def community(store: ElementStore, community_id: str) -> Community | None:
    rows = _rows(store, sql.COMMUNITY_BY_ID, (store.collection_id, community_id))
    return tables.row_community(rows[0]) if rows else None


def community_layout(store: ElementStore, community_id: str) -> dict[str, tuple[float, float]]:
    """The network layout the index stored for a big community (node key → x, y), else ``{}``."""
    rows = _rows(store, sql.COMMUNITY_LAYOUT, (store.collection_id, community_id))
    if not rows:
        return {}
    layout = tables._json(rows[0][0]) or {}
    return {key: (float(xy[0]), float(xy[1])) for key, xy in layout.items()}


def children(store: ElementStore, community_id: str) -> list[Community]:
    """Direct sub-communities, largest first."""
    return [tables.row_community(r) for r in _rows(store, sql.COMMUNITY_CHILDREN, (store.collection_id, community_id))]


def levels(store: ElementStore, kind: str | None = "entity") -> dict[int, int]:
    """Community count per level for ``kind``."""
    rows = _rows(store, sql.LEVEL_COUNTS, (store.collection_id,))
    return {int(level): int(n) for k, level, n in rows if kind is None or k == kind}


def check_level(existing: Iterable[int], level: int, kind: str) -> None:
    """A ValueError naming the levels there are, unless ``level`` is one of ``existing`` (or there are none)."""
    existing = sorted(set(existing))
    if existing and level not in existing:
        raise ValueError(f"there is no {kind} level {level}: the levels are {', '.join(map(str, existing))}")


def _all_or_by_id(
    store: ElementStore, ids: Iterable[str] | None, all_rows: str, rows_by_id: str, build: Callable[[tuple], _Item]
) -> list[_Item]:
    """The collection's rows of one graph table (``ids`` None) or those of ``ids``, built into objects; none
    without an index."""
    if ids is None:
        rows = _rows(store, all_rows, (store.collection_id,))
    else:
        rows = _rows(store, rows_by_id, (store.collection_id, list(dict.fromkeys(ids))))
    return [build(r) for r in rows]


def entities(store: ElementStore, ids: Iterable[str] | None = None) -> list[Entity]:
    """Entities by id (most connected first), or all of them in document order when ``ids`` is None."""
    return _all_or_by_id(store, ids, sql.ALL_ENTITIES, sql.ENTITIES_BY_ID, tables.row_entity)


def relationships(store: ElementStore, ids: Iterable[str] | None = None) -> list[Relationship]:
    """Relationships by id (strongest first), or all of them when ``ids`` is None."""
    return _all_or_by_id(store, ids, sql.ALL_RELATIONSHIPS, sql.RELATIONSHIPS_BY_ID, tables.row_relationship)


def text_units(store: ElementStore, ids: Iterable[str] | None = None) -> list[TextUnit]:
    return _all_or_by_id(store, ids, sql.ALL_TEXT_UNITS, sql.TEXT_UNITS_BY_ID, tables.row_text_unit)


def community_subgraph(store: ElementStore, community_id: str) -> tuple[list[Entity], list[Relationship]]:
    """The entities and relationships of one community (empty lists if there is no such community)."""
    c = community(store, community_id)
    if c is None:
        return [], []
    return entities(store, c.entity_ids), relationships(store, c.relationship_ids)


def hierarchy(store: ElementStore, kind: str | None = "entity") -> list[HierarchyRow]:
    """Every community of ``kind`` as ``(id, parent, level, title, size, rating)`` rows, parents first."""
    rows = _rows_of_kind(store, sql.HIERARCHY, kind)
    return [
        HierarchyRow(r[0], r[1], int(r[2]), r[3], int(r[4]), None if r[5] is None else round(float(r[5]), 1), r[6],
                     int(r[7]))  # fmt: skip
        for r in rows
    ]


@dataclass
class Citations:
    """What a finding (or a report) cites, resolved: entities, relationships and the store's elements."""

    entities: list[Entity] = field(default_factory=list)
    relationships: list[Relationship] = field(default_factory=list)
    elements: list[Document] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)  # ids that did not resolve (should stay empty)


def load_citations(store: ElementStore, finding: Finding | Report) -> Citations:
    """The rows ``finding`` cites, read from the index and the store (one query per table)."""
    ent_ids, rel_ids, el_ids = finding.entity_ids, finding.relationship_ids, finding.element_ids
    ents = entities(store, ent_ids)
    rels = relationships(store, rel_ids)
    elements = store.get(el_ids)
    found = {e.id for e in ents} | {r.id for r in rels} | {d.id for d in elements}
    missing = [i for i in [*ent_ids, *rel_ids, *el_ids] if i not in found]
    return Citations(ents, rels, elements, missing)


class GraphIndex:
    """The index of one collection. ``GraphIndex.open(store)`` raises :class:`GraphIndexMissing` if none."""

    def __init__(self, store: ElementStore, info: tables.IndexInfo) -> None:
        self.store = store
        self.info = info

    @classmethod
    def open(cls, store: ElementStore) -> GraphIndex:
        info = index_info(store)
        if info is None:
            raise GraphIndexMissing(
                f"collection {store.collection!r} has no GraphRAG index yet: run `python -m core index "
                f"--collection {store.collection}`"
            )
        return cls(store, info)

    def reports(self, *, level: int | None = None, kind: str | None = "entity") -> list[Report]:
        return load_reports(self.store, level=level, kind=kind)

    def report(self, community_id: str) -> Report | None:
        return report(self.store, community_id)

    def community(self, community_id: str) -> Community | None:
        return community(self.store, community_id)

    def communities(self, *, kind: str | None = None, level: int | None = None) -> list[Community]:
        return communities(self.store, kind=kind, level=level)

    def children(self, community_id: str) -> list[Community]:
        return children(self.store, community_id)

    def levels(self, kind: str | None = "entity") -> dict[int, int]:
        return levels(self.store, kind)

    def hierarchy(self, kind: str | None = "entity") -> list[HierarchyRow]:
        return hierarchy(self.store, kind)

    def subgraph(self, community_id: str) -> tuple[list[Entity], list[Relationship]]:
        return community_subgraph(self.store, community_id)

    def entities(self, ids: Iterable[str] | None = None) -> list[Entity]:
        return entities(self.store, ids)

    def relationships(self, ids: Iterable[str] | None = None) -> list[Relationship]:
        return relationships(self.store, ids)

    def text_units(self, ids: Iterable[str] | None = None) -> list[TextUnit]:
        return text_units(self.store, ids)

    def resolve(self, finding: Finding | Report) -> Citations:
        return load_citations(self.store, finding)
