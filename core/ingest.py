"""Files in, parent-linked elements out: validate, parse, embed in batches, replace atomically.

Re-ingest is incremental by content hash: an unchanged document is recognised before it is parsed or
embedded, so it costs zero embedding calls. Within a changed document, only texts no collection of the same
embedder holds yet are embedded (the embedding cache, :meth:`ElementStore.cached_vectors`): editing one list
item embeds one text, and a second collection over the same files embeds none.

One bad file is reported and skipped; the batch goes on and nothing already stored is touched. If the
database itself goes away, the batch stops at once with that reason for every file not stored (a retry after a
restart skips what was stored, as unchanged).

Markdown is parsed by :mod:`core.markdown_loader` (or unstructured); HTML and DOCX by
:mod:`core.legacy_loader`, into the same element tree.
"""

from __future__ import annotations

import errno
import hashlib
import os
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
from langchain_core.documents import Document

from core.store import DocumentRecord, ElementStore, StoreError

MARKDOWN_SUFFIXES = (".md", ".markdown")
# Parsed by core.legacy_loader whatever ``loader`` says (the loader choice is about markdown).
LEGACY_SUFFIXES = (".html", ".htm", ".docx")
SUPPORTED_SUFFIXES = MARKDOWN_SUFFIXES + LEGACY_SUFFIXES
LOADERS = ("markdown-it", "unstructured")
# Bump when parsing changes what elements a file yields, so re-ingest re-parses instead of trusting old hashes.
PARSER_VERSION = "1"
# How much "noise" (charset_normalizer's chaos ratio) a detected non-UTF-8 decoding may show before it is refused.
MAX_DECODE_CHAOS = 0.1
# Only this much of an element is embedded (the stored text stays whole). The bundled USE model's time and
# memory grow with the text (100 KB: 6 s; a 10 MB line was OOM-killed), and OpenAI refuses inputs over 8,191
# tokens: 2,000 characters are at most 8,000 UTF-8 bytes, so at most 8,000 byte-level BPE tokens whatever the
# script (4,000 random Hangul syllables were 10,331 cl100k tokens). Real elements are far shorter.
MAX_EMBED_CHARS = 2000


class IngestError(ValueError):
    """A file that cannot be ingested; the message is shown to the user as the reason."""


@dataclass
class FileResult:
    path: str
    status: str  # added | replaced | unchanged | error | skipped
    elements: int = 0
    reason: str | None = None
    encoding: str | None = None
    document_id: str | None = None
    warning: str | None = None  # stored, but something about it deserves a look (e.g. content dropped)


@dataclass
class IngestReport:
    documents: int = 0
    elements: int = 0
    added: int = 0
    replaced: int = 0
    unchanged: int = 0
    skipped: int = 0
    errors: list[dict[str, str]] = field(default_factory=list)
    seconds: float = 0.0
    embed_seconds: float = 0.0
    embedding_calls: int = 0
    texts_embedded: int = 0  # texts sent to the embedder
    cache_hits: int = 0  # elements whose vector was reused: stored already, or the same text earlier in the document
    files: list[FileResult] = field(default_factory=list)
    warnings: list[dict[str, str]] = field(default_factory=list)
    stopped: str | None = None  # why the batch stopped early (the database went away), if it did

    def record(self, result: FileResult) -> None:
        self.files.append(result)
        if result.warning:
            self.warnings.append({"path": result.path, "warning": result.warning})
        if result.status == "error":
            self.errors.append({"path": result.path, "reason": result.reason or "unknown error"})
            return
        if result.status == "skipped":
            self.skipped += 1
            return
        self.documents += 1
        if result.status == "unchanged":
            self.unchanged += 1
        else:
            self.elements += result.elements
            self.added += result.status == "added"
            self.replaced += result.status == "replaced"

    def as_dict(self, *, files: bool = False) -> dict:
        out = {
            k: v
            for k, v in asdict(self).items()
            if k in ("documents", "elements", "added", "replaced", "unchanged", "skipped", "errors")
        }
        out["seconds"] = round(self.seconds, 3)
        out["embed_seconds"] = round(self.embed_seconds, 3)
        out["embedding_calls"] = self.embedding_calls
        out["texts_embedded"] = self.texts_embedded
        out["cache_hits"] = self.cache_hits
        if self.warnings:
            out["warnings"] = self.warnings
        if self.stopped:
            out["stopped"] = self.stopped
        if files:
            out["files"] = [asdict(f) for f in self.files]
        return out


@dataclass(frozen=True)
class Progress:
    """One step of an ingest, for a progress bar: ``done`` of ``total`` texts embedded so far."""

    done: int
    total: int
    message: str


ProgressCallback = Callable[[Progress], None]


@dataclass(frozen=True)
class SourceFile:
    """Something to ingest: a path on disk, or uploaded bytes with a name."""

    name: str
    data: bytes | None = None
    path: Path | None = None

    @property
    def key(self) -> str:
        """What identifies the document across re-ingests (and so its document_id)."""
        return str(self.path.resolve()) if self.path is not None else f"upload:{self.name}"

    @property
    def display(self) -> str:
        return str(self.path) if self.path is not None else self.name


def discover(paths: Iterable[str | Path]) -> tuple[list[SourceFile], list[FileResult]]:
    """Markdown, HTML and DOCX files under ``paths`` (files or folders), plus results for unusable paths."""
    found: list[SourceFile] = []
    problems: list[FileResult] = []
    seen: set[Path] = set()
    for raw in paths:
        path = Path(raw).expanduser()
        link_problem = _unfollowable_link(path)
        if link_problem:
            problems.append(FileResult(str(path), "error", reason=link_problem))
        elif path.is_dir():
            matched = 0
            for child in sorted(path.rglob("*")):
                if any(part.startswith(".") for part in child.relative_to(path).parts):
                    continue
                if child.suffix.lower() not in SUPPORTED_SUFFIXES:
                    continue
                link_problem = _unfollowable_link(child)
                if link_problem:
                    matched += 1
                    problems.append(FileResult(str(child), "error", reason=link_problem))
                elif child.is_file():
                    matched += 1
                    if child.resolve() not in seen:
                        seen.add(child.resolve())
                        found.append(SourceFile(name=child.name, path=child))
            if not matched:
                problems.append(FileResult(str(path), "error", reason=(
                    f"no {', '.join(SUPPORTED_SUFFIXES[:-1])} or {SUPPORTED_SUFFIXES[-1]} files in this folder "
                    "(hidden files and folders are skipped)")))
        elif path.is_file():
            if path.suffix.lower() not in SUPPORTED_SUFFIXES:
                problems.append(
                    FileResult(str(path), "error", reason=f"unsupported file type {path.suffix or '(none)'}: "
                               f"expected {', '.join(SUPPORTED_SUFFIXES)}")
                )
            elif path.resolve() not in seen:
                seen.add(path.resolve())
                found.append(SourceFile(name=path.name, path=path))
        elif path.exists():
            problems.append(FileResult(str(path), "error", reason="not a regular file"))
        else:
            problems.append(FileResult(str(path), "error", reason="no such file or folder"))
    return found, problems


def _unfollowable_link(path: Path) -> str | None:
    """Why the symbolic link ``path`` cannot be followed (a loop, a missing target), or None."""
    if not path.is_symlink():
        return None
    try:
        path.stat()
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "symbolic link loop: following the link leads back to it"
        if exc.errno == errno.ENOENT:
            return f"broken symbolic link: its target {os.readlink(path)} does not exist"
        return f"cannot follow the symbolic link: {exc.strerror or exc}"
    return None


def read_source(source: SourceFile, max_bytes: int) -> bytes:
    if source.data is not None:
        data = source.data
    else:
        assert source.path is not None
        try:
            size = source.path.stat().st_size
            if size > max_bytes:
                raise IngestError(_too_big(size, max_bytes))
            data = source.path.read_bytes()
        except PermissionError as exc:
            raise IngestError("cannot read the file: permission denied") from exc
        except OSError as exc:
            raise IngestError(f"cannot read the file: {exc.strerror or exc}") from exc
    if len(data) > max_bytes:
        raise IngestError(_too_big(len(data), max_bytes))
    return data


def _too_big(size: int, limit: int) -> str:
    # Exact bytes: rounded megabytes made one byte over read "5.0 MB, over the 5.0 MB limit".
    over = size - limit
    mib = f" ({limit / 1_048_576:.1f} MiB)" if limit >= 1_048_576 else ""
    return (
        f"file is {size:,} bytes, over the limit of {limit:,} bytes{mib} by {over:,} byte{'' if over == 1 else 's'} "
        "(raise HKE_MAX_FILE_BYTES or --max-bytes to allow it)"
    )


def decode_text(data: bytes) -> tuple[str, str]:
    """The text of a markdown or HTML file and the encoding it was read with; refuses binary and undecodable bytes.

    UTF-8 first. Otherwise the encoding is detected (Korean files from Windows tools are often CP949) and
    used only when the decoded text is coherent; a guess that produces gibberish is refused instead.
    """
    if not data.strip():
        raise IngestError("file is empty")
    for bom, encoding in ((b"\xff\xfe\x00\x00", "utf-32"), (b"\x00\x00\xfe\xff", "utf-32"),
                          (b"\xff\xfe", "utf-16"), (b"\xfe\xff", "utf-16")):
        if data.startswith(bom):
            try:
                return data.decode(encoding), encoding
            except UnicodeDecodeError as exc:
                raise IngestError(f"file starts with a {encoding} byte-order mark but is not {encoding}") from exc
    if b"\x00" in data[:65536]:
        raise IngestError("file is binary (contains NUL bytes), not text")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        first_error = exc
    else:
        if not text.strip():
            raise IngestError("file is empty")
        return text, "utf-8"
    _refuse_mixed_utf8(data, first_error.start)
    import charset_normalizer

    guess = charset_normalizer.from_bytes(data[:1_000_000]).best()
    if guess is not None and guess.chaos <= MAX_DECODE_CHAOS:
        try:
            return data.decode(guess.encoding), guess.encoding
        except (UnicodeDecodeError, LookupError):
            pass
    raise IngestError(
        f"file is not UTF-8 text (invalid byte at offset {first_error.start}) and its encoding could not be "
        "detected reliably; convert it to UTF-8 and ingest again"
    )


# Mixed-encoding check: a file is "mostly UTF-8" when at least this share of its non-ASCII bytes form valid
# UTF-8 characters. Text in a legacy encoding forms them only by accident: ~20-35% of the bytes on average for
# CP949, GBK, Big5 and Shift_JIS, never over 0.75 in 1,400 random samples with 12+ such bytes; 0 for Latin-1.
MIXED_UTF8_SHARE = 0.8
MIXED_UTF8_MIN_BYTES = 12


def _refuse_mixed_utf8(data: bytes, first_bad: int) -> None:
    """Refuse UTF-8 text with stray bytes of another encoding (two files concatenated, a pasted fragment).

    Detection would pick one legacy encoding for the whole file and silently turn its UTF-8 part (all the
    Korean text, say) into mojibake that still looks like text, so it must not get that far.
    """
    non_ascii = len(data.translate(None, bytes(range(128))))  # deleting the ASCII bytes leaves the others
    replaced = data.decode("utf-8", errors="replace")
    bad = replaced.count("\ufffd")
    # Re-encoding gives ASCII bytes + valid non-ASCII bytes + 3 per replacement character.
    valid = len(replaced.encode("utf-8")) - (len(data) - non_ascii) - 3 * bad
    if valid >= MIXED_UTF8_MIN_BYTES and valid >= MIXED_UTF8_SHARE * non_ascii:
        raise IngestError(
            f"file mixes encodings: it is UTF-8 text except for {non_ascii - valid} byte(s) in another encoding "
            f"(the first at offset {first_bad}); convert the whole file to UTF-8 and ingest again"
        )


def content_hash(data: bytes, loader: str, contextual: bool) -> str:
    h = hashlib.sha256()
    h.update(f"{PARSER_VERSION}\x1f{loader}\x1f{int(contextual)}\x1f".encode())
    h.update(data)
    return h.hexdigest()


def embedding_text(doc: Document, contextual: bool) -> str:
    """What gets embedded for an element: its text, or with ``contextual`` its heading path too.

    At most :data:`MAX_EMBED_CHARS` of it (the head: with ``contextual``, the path comes first).
    """
    if not contextual:
        return doc.page_content[:MAX_EMBED_CHARS]
    path = [p for p in doc.metadata.get("heading_path") or [] if p]
    text = " > ".join([*path, doc.page_content]) if path else doc.page_content
    return text[:MAX_EMBED_CHARS]


def text_sha256(text: str) -> str:
    """The embedding cache's key for a text (with the embedder's identity)."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass(frozen=True)
class EmbeddedTexts:
    vectors: np.ndarray  # one row per text, in order
    hashes: list[str]  # text_sha256 of each text, for ElementStore.replace_document
    embedded: int  # texts sent to the embedder (each distinct uncached text once)
    reused: int  # texts whose vector came from the cache or from the same text earlier in the list


def embed_texts(
    store: ElementStore,
    texts: Sequence[str],
    *,
    batch_size: int = 64,
    advance: Callable[[int], None] | None = None,
    pending: Mapping[str, np.ndarray] | None = None,
) -> EmbeddedTexts:
    """Vectors for ``texts`` with ``store``'s embedder, embedding each distinct text the cache lacks once.

    ``pending`` holds vectors by text hash that are not committed yet (a write still in flight), looked at
    before the database. ``advance(n)`` reports progress in texts: the reused ones at once, then each embedded
    batch. Raises ValueError if the embedder returns vectors of the wrong shape.
    """
    embeddings = store.embeddings
    dimension = embeddings.info.dimension
    hashes = [text_sha256(t) for t in texts]
    vectors = {h: pending[h] for h in hashes if h in pending} if pending else {}
    vectors.update(store.cached_vectors(h for h in hashes if h not in vectors))
    missing = {h: t for h, t in zip(hashes, texts, strict=True) if h not in vectors}
    if advance and len(texts) > len(missing):
        advance(len(texts) - len(missing))
    todo = list(missing.items())
    for start in range(0, len(todo), batch_size):
        batch = todo[start : start + batch_size]
        matrix = np.asarray(embeddings.embed_documents([t for _, t in batch]), np.float32)
        if matrix.shape != (len(batch), dimension):
            raise ValueError(f"embedder returned vectors of shape {matrix.shape}, expected ({len(batch)}, {dimension})")
        vectors.update(zip((h for h, _ in batch), matrix, strict=True))
        if advance:
            advance(len(batch))
    stacked = np.stack([vectors[h] for h in hashes]) if hashes else np.zeros((0, dimension), np.float32)
    return EmbeddedTexts(stacked, hashes, len(todo), len(texts) - len(todo))


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
    from core.legacy_loader import legacy_format

    fmt = legacy_format(name)
    return f"unstructured-{fmt}" if fmt else loader


def parse_source(
    data: bytes, *, name: str, source: str, document_id: str, loader: str = "markdown-it"
) -> tuple[list[Document], str | None, str | None]:
    """(elements, encoding, text) of a file's bytes, by its name's suffix; IngestError with the reason if not.

    ``text`` is the decoded text (None for DOCX, which is a zip archive, not text).
    """
    from core import markdown_loader
    from core.legacy_loader import LegacyFormatError, legacy_format, parse_docx, parse_html
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


def document_id_for(collection: str, source_key: str) -> str:
    """Stable per collection and path: two files with the same name and content are two documents."""
    return hashlib.sha256(f"{collection}\x1f{source_key}".encode()).hexdigest()[:16]


@dataclass
class _Prepared:
    source: SourceFile
    record: DocumentRecord
    elements: list[Document]
    replacing: bool
    warning: str | None = None


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


def _database_unavailable(store: ElementStore, exc: BaseException) -> str | None:
    """Why the database cannot be reached when ``exc`` came from losing it; None for any other failure.

    A connection-level error (server stopped, socket gone, pool timeout) is confirmed with one fresh
    connection: an OperationalError that is not about reachability (a deadlock, a cancelled query) must
    not stop the batch.
    """
    import psycopg

    from core.db.urls import connection_lost, psycopg_conninfo, redact_text

    if not connection_lost(exc):
        return None
    try:
        with psycopg.connect(psycopg_conninfo(store.url), connect_timeout=3, autocommit=True) as conn:
            conn.execute("SELECT 1")
    except Exception as probe:
        return redact_text(_first_line(probe), store.url)
    return None


@dataclass
class _PendingWrite:
    item: _Prepared
    future: Future[bool]
    vectors: dict[str, np.ndarray]  # by text hash: what the write will commit, for the next document's lookup


def _settle(store: ElementStore, report: IngestReport, write: _PendingWrite, after: Sequence[_Prepared]) -> bool:
    """Wait for ``write`` and record its result; False if the database went away (``after`` are then not stored)."""
    item = write.item
    try:
        changed = write.future.result()
    except Exception as exc:
        gone = _database_unavailable(store, exc)
        if gone is None:
            report.record(FileResult(item.source.display, "error", reason=f"could not store: {exc}"))
            return True
        _stop(report, [item, *after], gone)
        return False
    status = ("replaced" if item.replacing else "added") if changed else "unchanged"
    report.record(FileResult(item.source.display, status, len(item.elements), None, item.record.encoding,
                             item.record.document_id, item.warning if changed else None))
    return True


def _stop(report: IngestReport, rest: Sequence[_Prepared], gone: str) -> None:
    """The database went away while ``rest[0]`` was processed: every later file would wait out the pool's timeout
    and fail the same way, so the batch stops here. The server rolled back the current file's transaction."""
    report.stopped = f"the database is unavailable ({gone})"
    advice = "start it and ingest again; files already stored are skipped as unchanged"
    report.record(FileResult(rest[0].source.display, "error", reason=f"not stored: {report.stopped}; {advice}"))
    for item in rest[1:]:
        report.record(FileResult(item.source.display, "error",
                                 reason=f"not stored: {report.stopped}, so the ingest stopped; {advice}"))


def ingest(
    store: ElementStore,
    sources: Sequence[SourceFile],
    *,
    loader: str = "markdown-it",
    max_bytes: int = 5 * 1024 * 1024,
    batch_size: int = 64,
    progress: ProgressCallback | None = None,
    problems: Sequence[FileResult] = (),
    hnsw_min_rows: int = 10_000,
) -> IngestReport:
    """Ingest ``sources`` into ``store`` and report per file. Never raises for a bad file.

    Once the database holds ``hnsw_min_rows`` vectors, the HNSW index is built at the end of the ingest.
    """
    started = time.perf_counter()
    report = IngestReport()
    for problem in problems:
        report.record(problem)
    embeddings = store.embeddings
    calls_before = embeddings.calls
    try:
        known = store.content_hashes()
    except Exception as exc:
        gone = _database_unavailable(store, exc)
        if gone is None:
            raise
        raise StoreError(f"the database is unavailable ({gone}); nothing was ingested. Start it and try again.") \
            from exc

    prepared: list[_Prepared] = []
    for source in sources:
        try:
            item = _prepare(store, source, known, loader=loader, max_bytes=max_bytes)
        except IngestError as exc:
            report.record(FileResult(source.display, "error", reason=str(exc)))
            continue
        except Exception as exc:  # a parser bug must not sink the whole batch
            report.record(FileResult(source.display, "error", reason=f"could not parse: {type(exc).__name__}: {exc}"))
            continue
        if isinstance(item, FileResult):
            report.record(item)
        else:
            prepared.append(item)

    total = sum(len(p.elements) for p in prepared)
    done = 0
    if progress:
        progress(Progress(0, total, f"{len(prepared)} documents to embed, {report.unchanged} unchanged"))
    # Each document's write runs on a writer thread while the next one is embedded: the write is mostly waiting
    # on the server, and on a busy machine the two overlap instead of adding up. One write is in flight at a
    # time, so documents are still stored in order and a lost database stops the batch at the first failed one.
    pending: _PendingWrite | None = None
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="hke-ingest-write") as writer:
        for index, item in enumerate(prepared):
            texts = [embedding_text(d, store.contextual) for d in item.elements]
            message = f"embedding {item.source.display}"

            def advance(n: int, message: str = message) -> None:
                nonlocal done
                done += n
                if progress:
                    progress(Progress(done, total, message))

            t0 = time.perf_counter()
            try:
                embedded = embed_texts(store, texts, batch_size=batch_size, advance=advance,
                                       pending=pending.vectors if pending else None)
            except Exception as exc:
                report.embed_seconds += time.perf_counter() - t0
                gone = _database_unavailable(store, exc)  # the cache lookup reads the database
                settled = pending is None or _settle(store, report, pending, prepared[index:])  # results in order
                pending = None
                if not settled:
                    break
                if gone is None:
                    report.record(FileResult(item.source.display, "error", reason=f"embedding failed: {exc}"))
                    continue
                _stop(report, prepared[index:], gone)
                break
            report.embed_seconds += time.perf_counter() - t0
            report.texts_embedded += embedded.embedded
            report.cache_hits += embedded.reused
            if pending is not None and not _settle(store, report, pending, prepared[index:]):
                pending = None
                break
            future = writer.submit(store.replace_document, item.record, item.elements, embedded.vectors,
                                   embedded.hashes)
            pending = _PendingWrite(item, future, dict(zip(embedded.hashes, embedded.vectors, strict=True)))
        if pending is not None:
            _settle(store, report, pending, [])
    report.embedding_calls = embeddings.calls - calls_before
    if (report.added or report.replaced) and not report.stopped:
        if progress and not store.has_vector_index():
            progress(Progress(total, total, "checking the vector index"))
        store.ensure_vector_index(hnsw_min_rows)
    report.seconds = time.perf_counter() - started
    if progress:
        progress(Progress(total, total, "done"))
    return report


def _prepare(
    store: ElementStore, source: SourceFile, known: dict[str, str], *, loader: str, max_bytes: int
) -> _Prepared | FileResult:
    data = read_source(source, max_bytes)
    document_id = document_id_for(store.collection, source.key)
    loader = loader_for(source.name, loader)
    digest = content_hash(data, loader, store.contextual)
    if known.get(document_id) == digest:
        return FileResult(source.display, "unchanged", document_id=document_id)
    elements, encoding, text = parse_source(
        data, name=source.name, source=source.display, document_id=document_id, loader=loader
    )
    from core.markdown_loader import MAX_NESTING, parse_front_matter

    front_matter = (parse_front_matter(text) or None) if text is not None and loader in LOADERS else None
    cut = sum(1 for d in elements if d.metadata.get("truncated_nesting"))
    warning = (
        f"content nested deeper than {MAX_NESTING} levels was dropped under {cut} element(s) "
        "(marked truncated_nesting in their metadata)"
    ) if cut else None
    title = (front_matter or {}).get("title") or next(
        (d.page_content for d in elements if d.metadata.get("category") == "Title"), source.name
    )
    record = DocumentRecord(
        document_id=document_id,
        source=source.display,
        filename=source.name,
        title=title,
        content_hash=digest,
        loader=loader,
        n_elements=len(elements),
        n_bytes=len(data),
        encoding=encoding,
        front_matter=front_matter,
    )
    return _Prepared(source, record, elements, replacing=document_id in known, warning=warning)


def ingest_paths(
    store: ElementStore,
    paths: Iterable[str | Path],
    **kwargs,
) -> IngestReport:
    """``ingest`` over files and folders on disk."""
    sources, problems = discover(paths)
    return ingest(store, sources, problems=problems, **kwargs)
