"""What an ingest tells its caller: one result per file, their totals, and the error that refuses a file."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field


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
    version: int | None = None  # the version an added or replaced file became (core.sql.versions)
    valid_from: str | None = None  # when that version takes effect (ISO 8601)
    valid_from_source: str | None = None  # explicit | front_matter | git | ingest
    not_yet_valid: bool = False  # its valid_from is after the ingest


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
    contextual: dict | None = None  # the contextual index's update (core.ingest.contextual), if the collection has one
    tiers_seconds: float = 0.0  # of ``seconds``, bringing the statement tiers up to date (when the collection has them)
    retired: list[dict[str, str]] = field(default_factory=list)  # a snapshot's retirements (and moves)

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
        if self.tiers_seconds:
            out["tiers_seconds"] = round(self.tiers_seconds, 3)
        out["embedding_calls"] = self.embedding_calls
        out["texts_embedded"] = self.texts_embedded
        out["cache_hits"] = self.cache_hits
        if self.warnings:
            out["warnings"] = self.warnings
        if self.stopped:
            out["stopped"] = self.stopped
        if self.contextual:
            out["contextual"] = self.contextual
        if self.retired:
            out["retired"] = self.retired
        made = [{"path": f.path, "document_id": f.document_id, "version": f.version, "valid_from": f.valid_from,
                 "valid_from_source": f.valid_from_source, "not_yet_valid": f.not_yet_valid}
                for f in self.files if f.version is not None]
        if made:
            out["versions"] = made
        if files:
            out["files"] = [asdict(f) for f in self.files]
        return out
