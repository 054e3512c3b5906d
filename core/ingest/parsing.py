"""A file's bytes into elements with the loader its name calls for, every parser bounded in time."""

from __future__ import annotations

import hashlib
import re

from langchain_core.documents import Document

from core.ingest.report import IngestError
from core.ingest.sources import decode_text

LOADERS = ("markdown-it", "unstructured")
# Bump when parsing changes what elements a file yields, so re-ingest re-parses instead of trusting old hashes.
PARSER_VERSION = "1"


# Tables became a Table element with one TableRow element per row: a file holding a table (a pipe-table line or
# an HTML <table>, looked for loosely) is parsed again on its next ingest, and only such a file, so documents
# without tables get no empty new version.
TABLE_ROWS_VERSION = "table-rows"
_TABLE_LINE = re.compile(rb"^[ \t>*+-]*\|.*\|[ \t]*$|<table\b", re.M | re.I)
# MkDocs admonitions ("!!! warning" over an indented body) became the section's prose instead of a code block
# (core.markdown_loader): a file holding a marker line is parsed again on its next ingest, and only such a file.
ADMONITIONS_VERSION = "admonitions"
_ADMONITION_LINE = re.compile(rb"^[ \t]*(?:!!!|\?\?\?\+?)[ \t]+\S", re.M)


def content_hash(data: bytes, loader: str, contextual: bool) -> str:
    """What re-ingest compares: the bytes and everything that changes what they become (parser, loader, mode)."""
    h = hashlib.sha256()
    h.update(f"{PARSER_VERSION}\x1f{loader}\x1f{int(contextual)}\x1f".encode())
    if _TABLE_LINE.search(data):
        h.update(f"{TABLE_ROWS_VERSION}\x1f".encode())
    if _ADMONITION_LINE.search(data):
        h.update(f"{ADMONITIONS_VERSION}\x1f".encode())
    h.update(data)
    return h.hexdigest()


def parse(text: str, *, source: str, document_id: str, loader: str = "markdown-it") -> list[Document]:
    """Elements of markdown ``text`` with the named loader (HTML/DOCX go through :func:`parse_source`)."""
    if loader == "markdown-it":
        from core.markdown_loader import parse_markdown

        return parse_markdown(text, source=source, document_id=document_id)
    if loader == "unstructured":
        from core.unstructured_loader import parse_with_unstructured

        return parse_with_unstructured(text, source=source, document_id=document_id)
    raise ValueError(f"unknown loader {loader!r}; choose one of {', '.join(LOADERS)}")


def loader_for(name: str, loader: str) -> str:
    """The loader that really parses a file called ``name``: ``loader`` for markdown, unstructured-html/-docx else."""
    from core.html_docx_loader import legacy_format

    fmt = legacy_format(name)
    return f"unstructured-{fmt}" if fmt else loader


def parse_source(
    data: bytes, *, name: str, source: str, document_id: str, loader: str = "markdown-it"
) -> tuple[list[Document], str | None, str | None]:
    """(elements, encoding, text) of a file's bytes, by its name's suffix; IngestError with the reason if not.

    ``text`` is the decoded text (None for DOCX, which is a zip archive, not text).
    """
    from core import markdown_loader
    from core.html_docx_loader import LegacyFormatError, legacy_format, parse_docx, parse_html
    from core.markdown_loader import MarkdownTooComplexError
    from core.parse_limit import ParseFailed, ParseTimedOut, parse_time_limit, run_with_time_limit

    fmt = legacy_format(name)
    text: str | None = None
    encoding: str | None = None
    limit = parse_time_limit(markdown_loader.PARSE_TIME_LIMIT_S)
    try:
        # markdown-it stops itself at the limit (cheaply, in this process); every other parser runs in a child
        # process that is killed at the limit: it has no way to be stopped from inside.
        if fmt == "docx":
            if not data.strip():
                raise IngestError("file is empty")
            elements = run_with_time_limit(parse_docx, data, source=source, document_id=document_id, limit=limit)
        else:
            text, encoding = decode_text(data)
            if fmt == "html":
                elements = run_with_time_limit(parse_html, text, source=source, document_id=document_id,
                                               limit=limit)
            elif loader == "markdown-it":
                elements = markdown_loader.parse_markdown(text, source=source, document_id=document_id,
                                                          time_limit=limit)
            elif loader == "unstructured":
                from core.unstructured_loader import parse_with_unstructured  # preloaded in the fork server

                elements = run_with_time_limit(parse_with_unstructured, text, source=source, document_id=document_id,
                                               limit=limit)
            else:
                raise ValueError(f"unknown loader {loader!r}; choose one of {', '.join(LOADERS)}")
    except (LegacyFormatError, MarkdownTooComplexError) as exc:
        raise IngestError(str(exc)) from exc
    except ParseTimedOut as exc:
        raise IngestError(f"{exc}: the file is too large or too complex for the {loader_for(name, loader)} parser "
                          "to finish in time (raise HKE_PARSE_TIMEOUT to allow more)") from exc
    except ParseFailed as exc:
        if exc.kind in ("LegacyFormatError", "IngestError"):
            raise IngestError(exc.message) from exc
        if exc.kind == "RecursionError":  # a parser we do not control, recursing on hostile nesting
            raise IngestError("file is nested too deeply to parse") from exc
        raise IngestError(f"could not parse: {exc.kind}: {exc.message}") from exc
    except RecursionError as exc:
        raise IngestError("file is nested too deeply to parse") from exc
    if not elements:
        reason = "file has no content: no headings, paragraphs, lists, tables or code"
        if text is not None and fmt is None and loader == "markdown-it":
            from core.markdown_loader import MAX_NESTING, truncated_nesting_lines

            lines = truncated_nesting_lines(text)
            if lines:
                reason = (f"file has no content left: everything from line {lines[0]} is nested deeper than "
                          f"{MAX_NESTING} levels, which the parser drops")
        raise IngestError(reason)
    return elements, encoding, text
