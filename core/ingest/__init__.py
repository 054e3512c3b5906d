"""Files in, parent-linked elements out: validate, parse, embed in batches, replace atomically.

Re-ingest is incremental by content hash: an unchanged document is recognised before it is parsed or
embedded, so it costs zero embedding calls. Within a changed document, only texts no collection of the same
embedder holds yet are embedded (the embedding cache, :meth:`ElementStore.cached_vectors`): editing one list
item embeds one text, and a second collection over the same files embeds none.

One bad file is reported and skipped; the batch goes on and nothing already stored is touched. If the
database itself goes away, the batch stops at once with that reason for every file not stored (a retry after a
restart skips what was stored, as unchanged).

Markdown is parsed by :mod:`core.markdown_loader` (or unstructured); HTML and DOCX by
:mod:`core.html_docx_loader`, into the same element tree.

The steps, one module each: :mod:`~core.ingest.sources` (files and bytes to text), :mod:`~core.ingest.parsing`
(text to elements), :mod:`~core.ingest.embedding` (elements to vectors), :mod:`~core.ingest.pipeline` (the batch,
written to the store) and :mod:`~core.ingest.report` (what it tells the caller). Progress is reported as
:class:`core.progress.Progress` in the stage ``"embedding"``, counting elements.
"""

from core.ingest.embedding import MAX_EMBED_CHARS, EmbeddedTexts, embed_texts, embedding_text, text_sha256
from core.ingest.parsing import LOADERS, PARSER_VERSION, content_hash, loader_for, parse, parse_source
from core.ingest.pipeline import document_id_for, ingest, ingest_paths
from core.ingest.report import FileResult, IngestError, IngestReport
from core.ingest.sources import SUPPORTED_SUFFIXES, SourceFile, decode_text, discover, read_source

__all__ = [
    "LOADERS",
    "MAX_EMBED_CHARS",
    "PARSER_VERSION",
    "SUPPORTED_SUFFIXES",
    "EmbeddedTexts",
    "FileResult",
    "IngestError",
    "IngestReport",
    "SourceFile",
    "content_hash",
    "decode_text",
    "discover",
    "document_id_for",
    "embed_texts",
    "embedding_text",
    "ingest",
    "ingest_paths",
    "loader_for",
    "parse",
    "parse_source",
    "read_source",
    "text_sha256",
]
