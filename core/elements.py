"""The element schema every loader produces: categories, stable ids, and the metadata of each element.

A document becomes a list of LangChain ``Document`` elements in document order, each linked to its parent
(a heading or a list item) so retrieval can fetch a hit's ancestors. The markdown loader
(:mod:`core.markdown_loader`), the unstructured one (:mod:`core.unstructured_loader`) and the HTML/DOCX one
(:mod:`core.html_docx_loader`) all make their elements through :class:`ElementBuilder`, so ids, heading paths and
metadata keys mean the same whatever parsed the file.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from langchain_core.document_loaders import BaseLoader
from langchain_core.documents import Document

ELEMENT_CATEGORIES: tuple[str, ...] = (
    "Title",
    "ListItem",
    "NarrativeText",
    "Table",
    "TableRow",
    "CodeSnippet",
    "Image",
    "UncategorizedText",
)

_SEP = "\x1f"  # unit separator: cannot appear in a path or a category, so hash inputs never run together


def document_id_from_key(key: str) -> str:
    """Derive a document id from a key such as a resolved path or ``collection + path``.

    Returns the first 16 hex chars of ``sha256(key)``. Callers pass the full path (not the basename) so
    two files with the same name and content are still two documents.
    """
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:16]


def element_id_for(document_id: str, parent_id: str | None, category: str, text: str, occurrence: int) -> str:
    """Deterministic 32-hex element id.

    Hashes the document, the parent, the category, the text and the occurrence index among earlier
    siblings with the same (category, text). Position in the document is deliberately *not* an input,
    so inserting content under another heading leaves every other id unchanged.
    """
    key = _SEP.join((document_id, parent_id or "", category, text, str(occurrence)))
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:32]


# The metadata keys that are fields of :class:`Element`; any other key a loader adds goes to ``Element.extra``.
ELEMENT_FIELDS = ("element_id", "parent_id", "category", "category_depth", "document_id", "source", "filename",
                  "order", "start_line", "end_line", "heading_path")


@dataclass(frozen=True, slots=True)
class Element:
    """One element of a document: its text, its place in the heading tree and where it came from.

    This is what the store's row mapper returns and what retrieval, answering and the views read. A LangChain
    ``Document`` is made from it only where LangChain wants one (:meth:`to_document`), and read back at the
    loaders' edge (:meth:`from_document`).
    """

    element_id: str
    text: str
    parent_id: str | None = None
    category: str = "UncategorizedText"
    category_depth: int = 0
    document_id: str = ""
    order: int = 0
    heading_path: tuple[str, ...] = ()
    source: str = ""
    filename: str = ""
    start_line: int | None = None
    end_line: int | None = None
    embedded_text_sha256: str | None = None  # the hash of the text its vector was embedded from, where stored
    element_key: str = ""  # stable across the document's versions (core.versions); "" before it is stored
    since_version: int = 0  # the document version this element appeared in (0: not stored)
    extra: Mapping[str, object] = field(default_factory=dict)  # a loader's own keys (language, text_as_html, …)

    @property
    def page_content(self) -> str:
        """The text under LangChain's name for it, for code that also takes a ``Document``."""
        return self.text

    @property
    def id(self) -> str:
        return self.element_id

    @property
    def is_heading(self) -> bool:
        return self.category == "Title"

    def get(self, key: str, default: object = None) -> object:
        """A loader's own key (``extra``), or ``default``."""
        return self.extra.get(key, default)

    @property
    def metadata(self) -> dict[str, object]:
        """The flat metadata dict LangChain and the JSON exports use: the fields, then the loader's keys."""
        meta: dict[str, object] = {
            "element_id": self.element_id, "parent_id": self.parent_id, "category": self.category,
            "category_depth": self.category_depth, "document_id": self.document_id, "source": self.source,
            "filename": self.filename, "order": self.order, "start_line": self.start_line,
            "end_line": self.end_line, "heading_path": list(self.heading_path),
        }
        if self.embedded_text_sha256 is not None:
            meta["embedded_text_sha256"] = self.embedded_text_sha256
        if self.element_key:
            meta["element_key"] = self.element_key
            meta["since_version"] = self.since_version
        meta.update(self.extra)
        return meta

    def to_document(self) -> Document:
        return Document(id=self.element_id, page_content=self.text, metadata=self.metadata)

    @classmethod
    def from_metadata(cls, text: str, metadata: Mapping[str, object]) -> Element:
        meta = dict(metadata)
        fields = {key: meta.pop(key, None) for key in ELEMENT_FIELDS}
        sha = meta.pop("embedded_text_sha256", None)
        key, since = meta.pop("element_key", None), meta.pop("since_version", None)
        return cls(
            element_id=str(fields["element_id"]), text=text or "", parent_id=fields["parent_id"],  # type: ignore[arg-type]
            category=str(fields["category"] or "UncategorizedText"),
            category_depth=int(fields["category_depth"] or 0),  # type: ignore[call-overload]
            document_id=str(fields["document_id"] or ""), order=int(fields["order"] or 0),  # type: ignore[call-overload]
            heading_path=tuple(fields["heading_path"] or ()),  # type: ignore[arg-type]
            source=str(fields["source"] or ""), filename=str(fields["filename"] or ""),
            start_line=fields["start_line"], end_line=fields["end_line"],  # type: ignore[arg-type]
            embedded_text_sha256=sha,  # type: ignore[arg-type]
            element_key=str(key or ""), since_version=int(since or 0),  # type: ignore[call-overload]
            extra=meta,
        )

    @classmethod
    def from_document(cls, document: Document) -> Element:
        return cls.from_metadata(document.page_content, document.metadata)


class ElementBuilder:
    """Makes the elements of one document, in order: ids, ``heading_path`` and the common metadata.

    Every element's metadata has ``element_id``, ``parent_id`` (None at roots), ``category`` (one of
    :data:`ELEMENT_CATEGORIES`), ``category_depth``, ``document_id``, ``source``, ``filename`` (its basename),
    ``order``, ``start_line``/``end_line`` (1-based, None where the format has no lines) and ``heading_path``
    (the texts of the Title ancestors, root first); a loader adds its own keys through ``extra``.
    """

    def __init__(self, document_id: str, source: str) -> None:
        self.document_id = document_id
        self.source = source
        self.filename = os.path.basename(source)
        self.documents: list[Document] = []
        # (parent_id, category, text) → siblings seen so far: O(1) occurrence index, no sibling rescans.
        self._occurrences: dict[tuple[str, str, str], int] = {}
        # The heading_path that children of each element inherit.
        self._child_paths: dict[str, tuple[str, ...]] = {}

    def add(
        self,
        category: str,
        text: str,
        parent_id: str | None,
        depth: int,
        *,
        start_line: int | None = None,
        end_line: int | None = None,
        extra: dict[str, Any] | None = None,
    ) -> Document | None:
        """Append one element and return it; a blank ``text`` makes none (None)."""
        if not text.strip():
            return None
        key = (parent_id or "", category, text)
        occurrence = self._occurrences.get(key, 0)
        self._occurrences[key] = occurrence + 1
        element_id = element_id_for(self.document_id, parent_id, category, text, occurrence)
        heading_path = self._child_paths.get(parent_id, ()) if parent_id else ()
        self._child_paths[element_id] = (*heading_path, text) if category == "Title" else heading_path
        metadata: dict[str, Any] = {
            "element_id": element_id,
            "parent_id": parent_id,
            "category": category,
            "category_depth": depth,
            "document_id": self.document_id,
            "source": self.source,
            "filename": self.filename,
            "order": len(self.documents),
            "start_line": start_line,
            "end_line": end_line,
            "heading_path": list(heading_path),
        }
        if extra:
            metadata.update(extra)
        document = Document(page_content=text, metadata=metadata, id=element_id)
        self.documents.append(document)
        return document


def markdown_table(header: list[str], rows: list[list[str]]) -> tuple[str, str]:
    """(markdown text, escaped HTML) of a table whose rows are already padded to the header's width."""
    import html

    def md_row(cells: list[str]) -> str:
        # A literal pipe would start a new column when the text is read back as markdown.
        return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"

    text = "\n".join([md_row(header), md_row(["---"] * len(header)), *(md_row(r) for r in rows)])
    head_html = "".join(f"<th>{html.escape(c)}</th>" for c in header)
    body_html = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in r) + "</tr>" for r in rows)
    return text, f"<table><thead><tr>{head_html}</tr></thead><tbody>{body_html}</tbody></table>"


ROW_SEPARATOR = " · "
ROW_KEY_SEPARATOR = ": "


def row_text(header: Sequence[str], cells: Sequence[str]) -> str:
    """A table row as it reads on its own: each cell after its column's header ("Option: installer · Default:
    pip · Description: …"); a cell under an empty header stands alone, an empty cell is left out."""
    return ROW_SEPARATOR.join(
        f"{h}{ROW_KEY_SEPARATOR}{c}" if h else c
        for h, c in zip(header, cells, strict=False) if c
    )


def row_cells(text: str) -> list[tuple[str, str]]:
    """``(header, cell)`` pairs of a :func:`row_text` (header "" for a cell under an empty header)."""
    out = []
    for part in text.split(ROW_SEPARATOR):
        head, sep, cell = part.partition(ROW_KEY_SEPARATOR)
        out.append((head.strip(), cell.strip()) if sep else ("", part.strip()))
    return out


def add_table(
    builder: ElementBuilder,
    header: list[str],
    rows: list[list[str]],
    parent_id: str | None,
    depth: int,
    *,
    start_line: int | None = None,
    end_line: int | None = None,
    row_lines: Sequence[tuple[int | None, int | None]] = (),
    extra: dict[str, Any] | None = None,
) -> Document | None:
    """A Table element holding the header, and under it one TableRow element per non-empty row.

    Ragged rows are padded to the widest row, so every row keeps the cells it has; a header cell spanning
    columns was already repeated by the caller. The table's own text is its header as a pipe table, so a search
    hit, a citation or a changed cell is one row, never the whole table.
    """
    width = max([len(header), *(len(r) for r in rows)], default=0)
    if width == 0:
        return None
    header = [*header, *[""] * (width - len(header))]
    rows = [[*r, *[""] * (width - len(r))] for r in rows]
    if not any(header) and not any(any(r) for r in rows):
        return None
    text, text_as_html = markdown_table(header, [])
    table = builder.add("Table", text, parent_id, depth, start_line=start_line, end_line=end_line,
                        extra={**(extra or {}), "text_as_html": text_as_html, "rows": len(rows)})
    assert table is not None  # a header line is never blank
    table_id = table.metadata["element_id"]
    inherited = {k: v for k, v in (extra or {}).items() if k == "source_format"}
    for i, cells in enumerate(rows):
        lines = row_lines[i] if i < len(row_lines) else (start_line, end_line)
        builder.add("TableRow", row_text(header, cells), table_id, depth, start_line=lines[0], end_line=lines[1],
                    extra={**inherited, "cells": cells, "row": i + 1})
    return table


class ElementFileLoader(BaseLoader):
    """A LangChain loader for one file into elements; subclasses parse the text in :meth:`lazy_load`."""

    def __init__(
        self,
        path: str | Path,
        *,
        document_id: str | None = None,
        source: str | None = None,
        encoding: str = "utf-8",
    ) -> None:
        self.path = Path(path)
        self.source = source if source is not None else str(path)
        self.document_id = document_id or document_id_from_key(str(self.path.resolve()))
        self.encoding = encoding

    def _read_text(self) -> str:
        data = self.path.read_bytes()
        try:
            return data.decode(self.encoding)
        except UnicodeDecodeError as exc:
            raise self._not_decodable(exc) from exc

    def _not_decodable(self, exc: UnicodeDecodeError) -> ValueError:
        return ValueError(
            f"{self.path}: not valid {self.encoding} (byte {exc.start}: {exc.reason}); "
            "pass the right encoding= or convert the file to UTF-8"
        )

    def lazy_load(self) -> Iterator[Document]:
        raise NotImplementedError
