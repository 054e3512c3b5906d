"""Read API over a collection's index, for the CLI and the report browser.

Functions take an :class:`~core.store.ElementStore` and read through its graph door
(:class:`core.store.graph_tables.GraphTables`), plus ``.get`` to resolve element ids; :class:`GraphIndex` bundles
them for one store. Nothing here writes.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from core.elements import Element
from core.store import graph_tables
from core.store.graph_records import Community, Entity, Finding, HierarchyRow, Relationship, Report, TextUnit

if TYPE_CHECKING:
    from core.store import ElementStore


class GraphIndexMissing(LookupError):
    """The collection has no index yet: run ``python -m core index``."""


def _tables(store: ElementStore) -> graph_tables.GraphTables:
    return graph_tables.GraphTables(store)


def index_exists(store: ElementStore) -> bool:
    return index_info(store) is not None


def index_info(store: ElementStore) -> graph_tables.IndexInfo | None:
    return _tables(store).index_info()


def load_reports(store: ElementStore, *, level: int | None = None, kind: str | None = "entity") -> list[Report]:
    """Reports of one kind (``None``: both) and level (``None``: all), best rated first within a level."""
    return _tables(store).reports(kind=kind, level=level)


def report(store: ElementStore, community_id: str) -> Report | None:
    return _tables(store).report(community_id)


def communities(store: ElementStore, *, kind: str | None = None, level: int | None = None) -> list[Community]:
    return _tables(store).communities(kind=kind, level=level)


def community(store: ElementStore, community_id: str) -> Community | None:
    return _tables(store).community(community_id)


def community_layout(store: ElementStore, community_id: str) -> dict[str, tuple[float, float]]:
    """The network layout the index stored for a big community (node key → x, y), else ``{}``."""
    return _tables(store).community_layout(community_id)


def children(store: ElementStore, community_id: str) -> list[Community]:
    """Direct sub-communities, largest first."""
    return _tables(store).children(community_id)


def levels(store: ElementStore, kind: str | None = "entity") -> dict[int, int]:
    """Community count per level for ``kind``."""
    return {level: n for k, level, n in _tables(store).level_counts() if kind is None or k == kind}


def check_level(existing: Iterable[int], level: int, kind: str) -> None:
    """A ValueError naming the levels there are, unless ``level`` is one of ``existing`` (or there are none)."""
    existing = sorted(set(existing))
    if existing and level not in existing:
        raise ValueError(f"there is no {kind} level {level}: the levels are {', '.join(map(str, existing))}")


def entities(store: ElementStore, ids: Iterable[str] | None = None) -> list[Entity]:
    """Entities by id (most connected first), or all of them in document order when ``ids`` is None."""
    return _tables(store).entities(ids)


def relationships(store: ElementStore, ids: Iterable[str] | None = None) -> list[Relationship]:
    """Relationships by id (strongest first), or all of them when ``ids`` is None."""
    return _tables(store).relationships(ids)


def text_units(store: ElementStore, ids: Iterable[str] | None = None) -> list[TextUnit]:
    return _tables(store).text_units(ids)


def community_subgraph(store: ElementStore, community_id: str) -> tuple[list[Entity], list[Relationship]]:
    """The entities and relationships of one community (empty lists if there is no such community)."""
    c = community(store, community_id)
    if c is None:
        return [], []
    return entities(store, c.entity_ids), relationships(store, c.relationship_ids)


def hierarchy(store: ElementStore, kind: str | None = "entity") -> list[HierarchyRow]:
    """Every community of ``kind`` as ``(id, parent, level, title, size, rating)`` rows, parents first."""
    return _tables(store).hierarchy(kind)


@dataclass
class Citations:
    """What a finding (or a report) cites, resolved: entities, relationships and the store's elements."""

    entities: list[Entity] = field(default_factory=list)
    relationships: list[Relationship] = field(default_factory=list)
    elements: list[Element] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)  # ids that did not resolve (should stay empty)


def load_citations(store: ElementStore, finding: Finding | Report) -> Citations:
    """The rows ``finding`` cites, read from the index and the store (one query per table)."""
    ent_ids, rel_ids, el_ids = finding.entity_ids, finding.relationship_ids, finding.element_ids
    ents = entities(store, ent_ids)
    rels = relationships(store, rel_ids)
    elements = store.get(el_ids)
    found = {e.id for e in ents} | {r.id for r in rels} | {e.element_id for e in elements}
    missing = [i for i in [*ent_ids, *rel_ids, *el_ids] if i not in found]
    return Citations(ents, rels, elements, missing)


@dataclass(frozen=True)
class DocumentChange:
    """A document whose current version is not the one the index was built from (``current`` None: retired, or
    ``purged`` with its history; ``indexed`` None: ingested after the index)."""

    document_id: str
    filename: str
    indexed: int | None
    current: int | None
    purged: bool = False


def document_rows(store: ElementStore, document_id: str, element_ids: Sequence[str] = ()) -> dict[str, int]:
    """What the collection's index holds of one document (``GraphTables.document_rows``)."""
    return _tables(store).document_rows(document_id, element_ids)


def index_changes(store: ElementStore) -> list[DocumentChange]:
    """The documents that changed since the collection's index was built (empty without an index, or for an index
    built before versions were recorded)."""
    info = index_info(store)
    indexed: dict[str, int] = dict((info.params or {}).get("document_versions") or {}) if info else {}
    if not indexed:
        return []
    current = {d.document_id: d for d in store.documents()}
    versions = store.read.versions_of([*indexed, *current])
    out = []
    for doc_id in sorted(set(indexed) | set(current)):
        now = versions[doc_id].version if doc_id in current and doc_id in versions else None
        if now != indexed.get(doc_id):
            name = current[doc_id].filename if doc_id in current else (
                versions[doc_id].filename if doc_id in versions else doc_id)
            out.append(DocumentChange(doc_id, name, indexed.get(doc_id), now,
                                      purged=doc_id not in current and doc_id not in versions))
    return out


@dataclass(frozen=True)
class CurrentReport:
    """A report as current mode shows it: the findings whose cited elements are all still current, and how many
    were withheld because a cited element left the collection (changed or retired since the index was built)."""

    report: Report
    withheld: int

    @property
    def stale(self) -> bool:
        return self.withheld > 0


def current_reports(store: ElementStore, reports: Sequence[Report]) -> list[CurrentReport]:
    """``reports`` without the findings that cite an element no longer current: a fact retired from the corpus
    never shows in current mode. The summary and full text are written from every finding, so they are withheld too
    when any finding is (re-indexing rebuilds the report). One read of the store for all of them."""
    alive = {e.element_id for e in store.get(i for rep in reports for f in rep.findings for i in f.element_ids)}
    out = []
    for rep in reports:
        kept = [f for f in rep.findings if all(i in alive for i in f.element_ids)]
        withheld = len(rep.findings) - len(kept)
        out.append(CurrentReport(replace(rep, findings=kept, summary="", full_content="") if withheld else rep,
                                 withheld))
    return out


class GraphIndex:
    """The index of one collection. ``GraphIndex.open(store)`` raises :class:`GraphIndexMissing` if none."""

    def __init__(self, store: ElementStore, info: graph_tables.IndexInfo) -> None:
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
