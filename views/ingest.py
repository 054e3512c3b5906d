"""What the Overview page says after an ingest: one summary line and one row per file. No Streamlit here."""

from __future__ import annotations

from pathlib import PurePosixPath

from core.ingest import IngestReport, SourceFile
from core.progress import Progress


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def ingest_summary(report: IngestReport) -> tuple[str, str]:
    """``(level, message)`` for the result of one ingest; level is ``"success"``, ``"warning"`` or ``"error"``.

    The message counts only what happened: it never says "the others were" when every file failed.
    """
    failed = len(report.errors)
    stored = f"{report.added} added, {report.replaced} replaced, {report.unchanged} unchanged"
    if not failed:
        return "success", (f"{_plural(report.documents, 'document')}: {stored}; "
                           f"{_plural(report.elements, 'element')} written in {report.seconds:.1f}s.")  # fmt: skip
    if report.documents == 0:
        every = "The file" if failed == 1 else f"None of the {failed} files"
        verb = "could not be ingested" if failed == 1 else "could be ingested"
        skipped = f" ({_plural(report.skipped, 'file')} skipped)" if report.skipped else ""
        return "error", f"{every} {verb}{skipped}; nothing was stored. Reasons below."
    others = "the other document was" if report.documents == 1 else f"the other {report.documents} documents were"
    return "warning", f"{_plural(failed, 'file')} could not be ingested; {others}: {stored}. Reasons below."


def file_names(paths: list[str]) -> list[str]:
    """What a reader recognises for each path: the path under the folder the files read from disk share
    (``index.md``, ``extensions/index.md``), never the server's absolute folders; an upload keeps its name."""
    uploads = [p.startswith("upload:") for p in paths]
    parts = [PurePosixPath(p.removeprefix("upload:").replace("\\", "/")) for p in paths]
    folders = [p.parent.parts for p, upload in zip(parts, uploads, strict=True) if not upload]
    shared = 0
    while folders and all(len(f) > shared for f in folders) and len({f[shared] for f in folders}) == 1:
        shared += 1
    return [p.name if upload else str(PurePosixPath(*p.parts[shared:])) or p.name
            for p, upload in zip(parts, uploads, strict=True)]  # fmt: skip


def file_rows(report: IngestReport) -> list[dict[str, object]]:
    """One row per file for the ingest table: its name (see :func:`file_names`), status, elements, reason."""
    names = file_names([f.path for f in report.files])
    return [{"file": name, "status": f.status, "elements": f.elements, "reason": f.reason or ""}
            for name, f in zip(names, report.files, strict=True)]  # fmt: skip


def progress_text(progress: Progress, sources: list[SourceFile]) -> str:
    """The Overview's progress line: elements done and the file being worked on, by the name the reader knows
    (:func:`file_names`), never the server's path that the pipeline's message carries."""
    names = dict(zip([s.display for s in sources], file_names([s.key for s in sources]), strict=True))
    message = progress.message
    for display, name in names.items():
        if display and display in message:
            message = message.replace(display, name)
            break
    return f"{progress.done}/{progress.total} elements · {message}"
