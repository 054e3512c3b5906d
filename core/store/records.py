"""What the element store hands out and refuses: its errors, the records it returns, and the rules for a
collection's name (look-alike letters included). ``core.store`` re-exports all of it."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the collection-name check (a CLI usage error) must not load the embedders
    from core.embeddings import EmbedderInfo

COLLECTION_NAME_MAX = 63
# Between a base collection's name and its sibling's kind (``samples:contextual``); never in a user's name.
SIBLING_SEPARATOR = ":"


class StoreError(RuntimeError):
    """A store problem the user can act on; the message says what to do."""


class EmbedderMismatchError(StoreError):
    """The collection's vectors came from another model: searching them with this one would be garbage."""


class CollectionMissingError(StoreError):
    """The collection does not exist (opened with ``create=False``)."""


class VersionOrderError(StoreError):
    """A version would take effect before the document's latest one: versions are kept in date order."""


class CollectionGoneError(StoreError):
    """The collection was dropped (by another process) while a command was using it."""


@dataclass(frozen=True)
class DocumentRecord:
    document_id: str
    source: str
    filename: str
    title: str | None
    content_hash: str
    loader: str
    n_elements: int
    n_bytes: int
    encoding: str | None = None
    front_matter: dict[str, Any] | None = None
    ingested_at: datetime | None = None


@dataclass(frozen=True)
class VersionRecord:
    """One version of a document (``core.sql.versions``): its number and validity, where ``valid_from`` came from
    (``explicit``, ``front_matter``, ``git`` or ``ingest``), when it was recorded, and what changed since the last."""

    document_id: str
    version: int
    valid_from: datetime
    valid_to: datetime | None
    valid_from_source: str
    date_only: bool
    recorded_at: datetime
    retired_at: datetime | None
    content_hash: str
    source: str
    filename: str
    title: str | None
    n_elements: int
    n_bytes: int
    added: int = 0
    removed: int = 0
    modified: int = 0
    moved: int = 0
    renamed: int = 0
    label: str | None = None  # the release it belongs to (``ingest --label``), shown beside its date
    moved_from: str | None = None  # a first version that continues a retired document (a move or a rename)
    moved_to: str | None = None  # a retired last version continued by another document

    @property
    def not_yet_valid(self) -> bool:
        """Recorded before the date it takes effect. A version dated by its ingest is in force from the start: its
        date is read while the file is prepared, which may be after the write's transaction (``recorded_at``)
        began."""
        return self.valid_from_source != "ingest" and self.valid_from > self.recorded_at

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {k: getattr(self, k) for k in self.__dataclass_fields__}
        for key in ("valid_from", "valid_to", "recorded_at", "retired_at"):
            out[key] = out[key].isoformat() if out[key] is not None else None
        out["not_yet_valid"] = self.not_yet_valid
        return out


@dataclass(frozen=True)
class VersionLayout:
    """A version's elements in document order with their source lines, and its source blocks' hashes (``None``
    for a version stored before sources were kept)."""

    element_ids: tuple[str, ...]
    start_lines: tuple[int, ...]
    end_lines: tuple[int, ...]
    blocks: tuple[str, ...] | None


@dataclass(frozen=True)
class Orphans:
    """Rows no version accounts for (``core.sql.versions.ORPHANS``): every count is 0 in a sound collection."""

    history_without_version: int
    elements_without_document: int
    documents_without_current_version: int
    versions_missing_blocks: int
    unused_blocks: int
    rows_without_dates: int

    @property
    def total(self) -> int:
        return sum(self.__dict__.values())


@dataclass(frozen=True)
class CollectionInfo:
    name: str
    documents: int
    elements: int
    embedder: EmbedderInfo | None
    options: dict[str, Any] = field(default_factory=dict)
    siblings: tuple[str, ...] = ()  # the kinds of its siblings, e.g. ("contextual",)


@dataclass(frozen=True)
class StoredHeading:
    """A heading as the stored heading index holds it (``core.sql.headings``)."""

    document_id: str
    order: int
    element_id: str
    text: str
    path: tuple[str, ...]
    filename: str
    words: frozenset[str]


@dataclass(frozen=True)
class HeadingState:
    """Where a collection's stored heading index stands: its version, whether it holds every document's headings
    under this normaliser, the version of its last fill, and the documents written after a given version."""

    version: int
    current: bool
    filled: int
    changed: tuple[str, ...]


@dataclass(frozen=True)
class CorpusStats:
    documents: int
    elements: int
    by_category_depth: list[tuple[str, int, int]]  # (category, depth, count)

    @property
    def by_category(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for category, _depth, n in self.by_category_depth:
            out[category] = out.get(category, 0) + n
        return out


# -- collections ------------------------------------------------------------------------------------


def validate_collection_name(name: str) -> str:
    name = (name or "").strip()
    normal = unicodedata.normalize("NFKC", name)
    if normal != name:  # "ｄｅｆａｕｌｔ" would be a second collection that looks like "default"
        raise StoreError(f"collection name {name!r} uses full-width or other look-alike characters: "
                         f"write it as {normal!r}")
    if SIBLING_SEPARATOR in name:
        raise StoreError(f"collection name {name!r} is not valid: names with {SIBLING_SEPARATOR!r} are reserved for "
                         "a collection's own indexes (such as its contextual index)")
    if not name or len(name) > COLLECTION_NAME_MAX or not all(c.isalnum() or c in "-_." for c in name):
        raise StoreError(
            f"collection name {name!r} is not valid: use 1–{COLLECTION_NAME_MAX} letters, digits, '-', '_' or '.'"
        )
    mixed = _mixed_script_look_alikes(name)
    if mixed:  # "sаmples" with a Cyrillic "а" would be a second collection that looks like "samples"
        raise StoreError(f"collection name {name!r} mixes scripts with look-alike letters ({mixed}): "
                         "write it in one script")
    return name


def _mixed_script_look_alikes(name: str) -> str:
    """The letters of ``name`` that Unicode's confusables table says look like a letter of another script the name
    also uses ("а (CYRILLIC) looks like LATIN a"); empty when there are none. Digits and '-_.' count as no script,
    and a name in one script (Latin, Hangul, Cyrillic alone) is never refused."""
    from confusable_homoglyphs import categories, confusables

    scripts = categories.unique_aliases(name) - {"COMMON"}
    if len(scripts) < 2:
        return ""
    found: list[tuple[int, str]] = []
    for script in scripts:
        letters = "".join(c for c in name if categories.alias(c) == script)
        others = sorted(scripts - {script})
        for hit in confusables.is_confusable(letters, greedy=True, preferred_aliases=others) or []:
            alike = next(g for g in hit["homoglyphs"] if any(categories.alias(c) in others for c in g["c"]))
            found.append((len(letters), f"{hit['character']} ({hit['alias']}) looks like {alike['c']} ({alike['n']})"))
    # The letters of the rarer script first: in "sаmples" the Cyrillic "а" is the odd one, not the Latin "s".
    return "; ".join(text for _, text in sorted(found)[:3])
