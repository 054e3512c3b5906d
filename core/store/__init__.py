"""The store: the one door to a collection's tables (elements, documents, headings, term counts).

Everything that reads or writes them goes through :class:`ElementStore` (``core.store.element_store``); its records
and errors are in ``core.store.records`` and the row mapping in ``core.store.rows``.
"""

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
