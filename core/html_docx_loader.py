"""HTML and DOCX files → the same parent-linked element tree as markdown, through unstructured, offline.

unstructured is good at *partitioning* these formats (``partition_html`` / ``partition_docx``); its element
*tree* is not what we want (a code block or an image resets its heading stack, so the next heading loses its
parent, and ids hash the basename). So only its flat element stream is used, and the tree is rebuilt here
exactly as :mod:`core.markdown_loader` builds it:

* **Title**: ``category_depth`` is the heading level - 1. HTML: ``<h1>``..``<h6>`` (unstructured only makes a
  Title from a heading tag). DOCX: the paragraph style, ``Heading 1``..``Heading 9`` → 0..8, ``Title`` → 0,
  ``Subtitle`` → 1 (a paragraph that merely *looks* like a heading, bold Normal text, stays text, so heading
  structure is kept exactly where the format has it). The parent is the nearest open heading of a lower level;
  a DOCX ``Title``-style paragraph, the document's title, ranks above ``Heading 1`` (unstructured gives both
  depth 0), so the sections of a Word document hang under its title.
* **ListItem**: nested under the item one list level up (HTML ``<ul>``/``<ol>`` nesting, DOCX ``w:ilvl`` or
  ``List Bullet 2`` style), else under the current heading; ``category_depth`` is its nesting level from 0.
* **Table**: a Table element holding the header and one TableRow element per row
  (:func:`core.elements.add_table`), like the markdown loader's; **CodeSnippet**, **Image**, **NarrativeText**
  and the rest keep unstructured's category (anything outside :data:`ELEMENT_CATEGORIES` becomes
  UncategorizedText, the original is kept in ``unstructured_category``).
* ids come from :func:`core.elements.element_id_for`, so they are stable and scoped to the document.

Safety: unstructured is made offline first (:func:`core.unstructured_loader.make_unstructured_offline`: no
telemetry, no spaCy model download). Only text is kept: ``<script>``, ``<style>`` and ``<noscript>`` content
(also ``<template>`` and ``<textarea>``) is *dropped* by the HTML partitioner (never stored), attributes
(``onclick=`` …) are never read, and text that merely shows markup (``&lt;script&gt;`` in the source) is stored
as the literal characters it displays, i.e. as data. HTML nested deeper than lxml's limit (256) would silently
lose everything after that point, so it is refused; a DOCX whose unzipped size is out of proportion (zip bomb)
is refused before it is opened.
"""

from __future__ import annotations

import io
import os
import zipfile
from collections.abc import Iterable
from typing import Any

from langchain_core.documents import Document

from core.elements import ELEMENT_CATEGORIES, ElementBuilder, add_table
from core.html_tables import html_tables

__all__ = [
    "LEGACY_FORMATS",
    "MAX_DOCX_EXPANSION",
    "LegacyFormatError",
    "legacy_format",
    "parse_docx",
    "parse_html",
]

#: Suffix → format of the files this module reads.
LEGACY_FORMATS: dict[str, str] = {".html": "html", ".htm": "html", ".docx": "docx"}

#: A DOCX may unzip to at most this many times its own size (real ones: 2–10x, text compresses ~5x) and at
#: most ``MAX_DOCX_UNZIPPED_BYTES``; beyond that it is a zip bomb, refused before any part is read.
MAX_DOCX_EXPANSION = 100
MAX_DOCX_UNZIPPED_BYTES = 512 * 1024 * 1024


class LegacyFormatError(ValueError):
    """An HTML or DOCX file that cannot be read; the message is the reason shown to the user."""


def legacy_format(name: str) -> str | None:
    """``"html"`` or ``"docx"`` for a file name this module reads, else None."""
    return LEGACY_FORMATS.get(os.path.splitext(name)[1].lower())


# --------------------------------------------------------------------------------------------------
# Partitioning (unstructured)
# --------------------------------------------------------------------------------------------------


def _check_html_depth(text: str) -> None:
    """Refuse HTML that lxml cannot parse whole: past 256 nested elements it stops and drops the rest."""
    from lxml import etree

    # The same parser settings as unstructured's HTML partitioner, so what is checked is what it will see.
    parser = etree.HTMLParser(remove_comments=True, remove_pis=True)
    try:
        try:
            etree.fromstring(text, parser)
        except ValueError:  # a str with an XML encoding declaration: parsed as UTF-8 bytes, as unstructured does
            etree.fromstring(text.encode("utf-8"), parser)
    except (etree.ParserError, ValueError):
        return  # nothing parseable (e.g. only whitespace): unstructured yields no elements, ingest says so
    fatal = [e for e in parser.error_log if e.level_name == "FATAL"]
    if fatal:
        error = fatal[0]
        what = (
            "HTML is nested deeper than 256 elements"
            if error.type_name == "ERR_RESOURCE_LIMIT"
            else f"HTML could not be parsed to the end ({error.message.strip()})"
        )
        raise LegacyFormatError(f"{what}: the parser stops at line {error.line} and everything after it would be lost")


def _check_docx_zip(data: bytes) -> None:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            infos = archive.infolist()
            names = {info.filename for info in infos}
    except zipfile.BadZipFile as exc:
        raise LegacyFormatError(
            "not a DOCX file (Word 2007 or later, a zip archive); old binary .doc files must be saved as .docx"
        ) from exc
    if "word/document.xml" not in names:
        raise LegacyFormatError("not a DOCX file: the archive has no word/document.xml")
    # Sizes declared in the archive are enforced by zipfile while reading, so summing them is a real bound.
    unzipped = sum(info.file_size for info in infos)
    if unzipped > min(MAX_DOCX_UNZIPPED_BYTES, max(len(data), 1) * MAX_DOCX_EXPANSION):
        raise LegacyFormatError(
            f"DOCX unzips to {unzipped / 1_048_576:.0f} MB from {len(data) / 1_048_576:.1f} MB: refused as a "
            "likely zip bomb"
        )


def _partition_html(text: str) -> list[Any]:
    from core.unstructured_loader import make_unstructured_offline

    make_unstructured_offline()
    from unstructured.partition.html import partition_html

    if not text.strip():
        return []  # partition_html treats text="" as "no input given" and raises
    _check_html_depth(text)
    return partition_html(text=text)


def _docx_title_texts(data: bytes) -> list[str]:
    """Texts of the body paragraphs styled ``Title``, in order (unstructured does not say which style it saw)."""
    import docx

    document = docx.Document(io.BytesIO(data))
    return [p.text.strip() for p in document.paragraphs if p.style is not None and p.style.name == "Title"]


def _partition_docx(data: bytes) -> tuple[list[Any], list[str]]:
    from core.unstructured_loader import make_unstructured_offline

    _check_docx_zip(data)
    make_unstructured_offline()
    from unstructured.partition.docx import partition_docx

    try:
        return partition_docx(file=io.BytesIO(data)), _docx_title_texts(data)
    except (KeyError, ValueError, zipfile.BadZipFile, OSError) as exc:
        # python-docx raises KeyError for a missing part, ValueError/lxml errors for a broken one.
        raise LegacyFormatError(f"DOCX file is damaged: {type(exc).__name__}: {exc}") from exc
    except Exception as exc:
        if type(exc).__module__.startswith(("lxml", "docx")):
            raise LegacyFormatError(f"DOCX file is damaged: {type(exc).__name__}: {exc}") from exc
        raise


# --------------------------------------------------------------------------------------------------
# Flat elements → our tree
# --------------------------------------------------------------------------------------------------


def _table(text: str, text_as_html: str) -> tuple[list[str], list[list[str]]]:
    """(header, rows) of a table from unstructured's ``text_as_html``: the header row where the table marks one
    (``<thead>``, a first row of ``<th>``), else the first row, as unstructured puts a header there; the element's
    text as one cell when there is no HTML."""
    tables = html_tables(text_as_html) if text_as_html.strip() else []
    if not tables:
        return [], [[text]]
    header, rows = tables[0]
    if not any(header) and len(rows) > 1:
        header, rows = rows[0], rows[1:]
    return header, rows


def _to_tree(
    elements: Iterable[Any], *, fmt: str, document_id: str, source: str, title_texts: Iterable[str] = ()
) -> list[Document]:
    tree = ElementBuilder(document_id, source)
    document_titles = list(title_texts)  # DOCX Title-style texts not yet matched, in order
    titles: list[tuple[int, str]] = []  # open headings (level, element_id), outermost first
    items: list[tuple[int, str, int]] = []  # open list items (source list level, element_id, our depth)

    for element in elements:
        text = str(element).strip()
        if not text:
            continue
        meta = element.metadata
        raw_category = str(element.category)
        category = raw_category if raw_category in ELEMENT_CATEGORIES else "UncategorizedText"
        raw_depth = meta.category_depth if isinstance(meta.category_depth, int) else 0
        extra: dict[str, Any] = {}
        heading = titles[-1][1] if titles else None

        if category == "Title":
            level = max(raw_depth, 0) + 1
            if level == 1 and text in document_titles:
                document_titles.remove(text)
                level = 0  # the document's title: above Heading 1, though its depth is also 0
            while titles and titles[-1][0] >= level:
                titles.pop()
            parent_id, depth = (titles[-1][1] if titles else None), max(level - 1, 0)
            items.clear()  # a heading ends any list above it
        elif category == "ListItem":
            # HTML counts enclosing <ul>/<ol> from 1 (0 for a "• text" paragraph); DOCX counts ilvl from 0.
            list_level = max(raw_depth - 1, 0) if fmt == "html" else max(raw_depth, 0)
            while items and items[-1][0] >= list_level:
                items.pop()
            parent_id = items[-1][1] if items else heading
            depth = items[-1][2] + 1 if items else 0
        else:
            # unstructured does not say whether a paragraph sits inside a list item, so text after a list
            # belongs to the section, and closes the list.
            parent_id, depth = heading, 0
            items.clear()

        if category == "CodeSnippet":
            extra["language"] = ""
        elif category == "Image":
            extra["image_url"] = meta.image_url or ""
        if raw_category != category:
            extra["unstructured_category"] = raw_category

        for ours, theirs in (("emphasized", meta.emphasized_text_contents), ("link_texts", meta.link_texts)):
            values = [v.strip() for v in dict.fromkeys(theirs or ()) if v and v.strip()]
            if values:
                extra[ours] = values
        # Neither format has source lines: no start/end lines.
        if category == "Table":
            header, rows = _table(text, meta.text_as_html or "")
            document = add_table(tree, header, rows, parent_id, depth, extra={"source_format": fmt, **extra})
            if document is None:
                continue
        else:
            document = tree.add(category, text, parent_id, depth, extra={"source_format": fmt, **extra})
        assert document is not None  # text is not blank
        element_id = document.metadata["element_id"]
        if category == "Title":
            titles.append((level, element_id))
        elif category == "ListItem":
            items.append((list_level, element_id, depth))
    return tree.documents


def parse_html(text: str, *, source: str, document_id: str) -> list[Document]:
    """Elements of an HTML document, in document order, in the schema of :func:`core.markdown_loader.parse_markdown`.

    Raises :class:`LegacyFormatError` for HTML the parser cannot read to the end.
    """
    return _to_tree(_partition_html(text), fmt="html", document_id=document_id, source=source)


def parse_docx(data: bytes, *, source: str, document_id: str) -> list[Document]:
    """Elements of a DOCX document (Word 2007+), in document order, in the markdown loader's schema.

    Raises :class:`LegacyFormatError` for a file that is not a DOCX, is damaged, or is a zip bomb.
    """
    elements, title_texts = _partition_docx(data)
    return _to_tree(elements, fmt="docx", document_id=document_id, source=source, title_texts=title_texts)
