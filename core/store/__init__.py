"""The store: the one door to a collection's tables (elements, documents, headings, term counts).

Everything that reads or writes them goes through :class:`ElementStore` (``core.store.element_store``); its records
and errors are in ``core.store.records`` and the row mapping in ``core.store.rows``.

The names below are imported on first use (PEP 562), so checking a collection's name (a CLI usage error) does
not load the database driver and the embedders.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from core.store.element_store import (
        EMBEDDED_TEXT_SHA256,
        ElementStore,
        create_element_table,
        list_collections,
        open_store,
        pg_engine,
    )
    from core.store.records import (
        SIBLING_SEPARATOR,
        CollectionGoneError,
        CollectionInfo,
        CollectionMissingError,
        CorpusStats,
        DocumentRecord,
        EmbedderMismatchError,
        HeadingState,
        Orphans,
        StoredHeading,
        StoreError,
        VersionLayout,
        VersionOrderError,
        VersionRecord,
        validate_collection_name,
    )

_WHERE: dict[str, str] = {
    "EMBEDDED_TEXT_SHA256": "core.store.element_store",
    "ElementStore": "core.store.element_store",
    "create_element_table": "core.store.element_store",
    "list_collections": "core.store.element_store",
    "open_store": "core.store.element_store",
    "pg_engine": "core.store.element_store",
    "SIBLING_SEPARATOR": "core.store.records",
    "CollectionGoneError": "core.store.records",
    "CollectionInfo": "core.store.records",
    "CollectionMissingError": "core.store.records",
    "CorpusStats": "core.store.records",
    "DocumentRecord": "core.store.records",
    "EmbedderMismatchError": "core.store.records",
    "HeadingState": "core.store.records",
    "Orphans": "core.store.records",
    "StoredHeading": "core.store.records",
    "StoreError": "core.store.records",
    "VersionLayout": "core.store.records",
    "VersionOrderError": "core.store.records",
    "VersionRecord": "core.store.records",
    "validate_collection_name": "core.store.records",
}

__all__ = [
    "EMBEDDED_TEXT_SHA256",
    "SIBLING_SEPARATOR",
    "CollectionGoneError",
    "CollectionInfo",
    "CollectionMissingError",
    "CorpusStats",
    "DocumentRecord",
    "ElementStore",
    "EmbedderMismatchError",
    "HeadingState",
    "Orphans",
    "StoreError",
    "VersionLayout",
    "VersionOrderError",
    "VersionRecord",
    "StoredHeading",
    "create_element_table",
    "list_collections",
    "open_store",
    "pg_engine",
    "validate_collection_name",
]


__getattr__, __dir__ = lazy_exports(__name__, _WHERE, globals())
