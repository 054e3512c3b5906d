"""GraphRAG-style index over a collection's elements: entities, communities, reports, global search.

Public API (all functions take an :class:`~core.store.ElementStore`):

* build: :func:`build_index` → :class:`IndexReport` (``IndexConfig`` for the knobs, ``progress`` gets a
  :class:`core.progress.Progress` per stage step)
* read: :class:`GraphIndex`, :func:`index_exists`, :func:`load_reports`, :func:`report`, :func:`community`,
  :func:`children`, :func:`communities`, :func:`community_subgraph`, :func:`hierarchy`, :func:`levels`,
  :func:`entities`, :func:`relationships`, :func:`text_units`, :func:`load_citations`
* search: :func:`global_search` → :class:`GlobalAnswer`
* export: :func:`export_index`
"""

# ``communities``, ``text_units`` and ``global_search`` are both submodules and functions; the read API is imported
# after the submodules (sorted order does that), so the package attributes are the functions. A test checks it.
from core.graph.export import ExportError, export_index
from core.graph.indexing.pipeline import STAGES, GraphIndexError, IndexConfig, build_index
from core.graph.llm_cache import LLMCallError
from core.graph.read import (
    Citations,
    CurrentReport,
    DocumentChange,
    GraphIndex,
    GraphIndexMissing,
    children,
    communities,
    community,
    community_layout,
    community_subgraph,
    current_reports,
    entities,
    hierarchy,
    index_changes,
    index_exists,
    index_info,
    levels,
    load_citations,
    load_reports,
    relationships,
    report,
    text_units,
)
from core.graph.search.global_search import GlobalSearchOptions, global_search
from core.store.graph_records import (
    Community,
    Entity,
    Finding,
    GlobalAnswer,
    GlobalPoint,
    HierarchyRow,
    IndexReport,
    Relationship,
    Report,
    TextUnit,
)

__all__ = [
    "STAGES",
    "Citations",
    "Community",
    "CurrentReport",
    "DocumentChange",
    "Entity",
    "ExportError",
    "Finding",
    "GlobalAnswer",
    "GlobalPoint",
    "GlobalSearchOptions",
    "GraphIndex",
    "GraphIndexError",
    "GraphIndexMissing",
    "HierarchyRow",
    "IndexConfig",
    "IndexReport",
    "LLMCallError",
    "Relationship",
    "Report",
    "TextUnit",
    "build_index",
    "children",
    "communities",
    "community",
    "community_layout",
    "community_subgraph",
    "current_reports",
    "entities",
    "export_index",
    "global_search",
    "hierarchy",
    "index_changes",
    "index_exists",
    "index_info",
    "levels",
    "load_citations",
    "load_reports",
    "relationships",
    "report",
    "text_units",
]
