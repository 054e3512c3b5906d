"""Where ingest's bytes come from and how they become text: files found under paths, uploads, size limits,
encodings (UTF-8, byte-order marks, detected legacy encodings, refused mixtures and binaries)."""

from __future__ import annotations

import errno
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from core.elements import document_id_from_key
from core.ingest.report import FileResult, IngestError

MARKDOWN_SUFFIXES = (".md", ".markdown")
# Parsed by core.html_docx_loader whatever ``loader`` says (the loader choice is about markdown).
LEGACY_SUFFIXES = (".html", ".htm", ".docx")
SUPPORTED_SUFFIXES = MARKDOWN_SUFFIXES + LEGACY_SUFFIXES
# How much "noise" (charset_normalizer's chaos ratio) a detected non-UTF-8 decoding may show before it is refused.
MAX_DECODE_CHAOS = 0.1


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


def document_id_for(collection: str, source_key: str) -> str:
    """Stable per collection and path (:attr:`SourceFile.key`): two files with the same name and content are two
    documents."""
    return document_id_from_key(f"{collection}\x1f{source_key}")


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
