"""The ingest itself: which files changed, embedding one document while the previous one is written, and
stopping the batch cleanly when the database goes away."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
from langchain_core.documents import Document

from core.front_matter import parse_front_matter
from core.ingest.contextual import build_command, update_contextual_index
from core.ingest.embedding import embed_texts, embedding_text
from core.ingest.parsing import LOADERS, content_hash, loader_for, parse_source
from core.ingest.report import FileResult, IngestError, IngestReport
from core.ingest.snapshot import SnapshotPlan, pair_moves, plan_snapshot
from core.ingest.sources import SourceFile, discover, document_id_for, read_source
from core.markdown_loader import MAX_NESTING
from core.progress import Progress, ProgressCallback, no_progress
from core.store import DocumentRecord, ElementStore, StoreError
from core.store.writer import StoredVersion
from core.text import first_line
from core.versions import DateError, ValidFrom, parse_date, resolve_valid_from

# The stage of every Progress an ingest reports: done/total count the elements embedded (or found in the cache).
EMBEDDING = "embedding"


@dataclass
class _Prepared:
    source: SourceFile
    record: DocumentRecord
    elements: list[Document]
    warning: str | None = None
    valid_from: ValidFrom | None = None
    data: bytes | None = None  # the file as read, kept with the version (core show)
    moved_from: str | None = None  # the retired document this new one continues (a snapshot's move)


def _database_unavailable(store: ElementStore, exc: BaseException) -> str | None:
    """Why the database cannot be reached when ``exc`` came from losing it; None for any other failure.

    A connection-level error (server stopped, socket gone, pool timeout) is confirmed with one fresh
    connection: an OperationalError that is not about reachability (a deadlock, a cancelled query) must
    not stop the batch.
    """
    from core.store.database import connection_lost, probe_connection, redact_text

    if not connection_lost(exc):
        return None
    try:
        probe_connection(store.url)
    except Exception as probe:
        return redact_text(first_line(probe), store.url)
    return None


@dataclass
class _PendingWrite:
    item: _Prepared
    future: Future[StoredVersion | None]
    vectors: dict[str, np.ndarray]  # by text hash: what the write will commit, for the next document's lookup


def _settle(store: ElementStore, report: IngestReport, write: _PendingWrite, after: Sequence[_Prepared]) -> bool:
    """Wait for ``write`` and record its result; False if the database went away (``after`` are then not stored)."""
    item = write.item
    try:
        made = write.future.result()
    except Exception as exc:
        gone = _database_unavailable(store, exc)
        if gone is None:
            report.record(FileResult(item.source.display, "error", reason=f"could not store: {exc}"))
            return True
        _stop(report, [item, *after], gone)
        return False
    # Whether it replaced a version is read inside the write: another ingest may have stored the document since
    # this one was planned.
    status = ("replaced" if made.replaced else "added") if made is not None else "unchanged"
    result = FileResult(item.source.display, status, len(item.elements), None, item.record.encoding,
                        item.record.document_id, item.warning if made is not None else None)
    if made is not None:
        version = made.record
        result.version, result.valid_from = version.version, version.valid_from.isoformat()
        result.valid_from_source, result.not_yet_valid = version.valid_from_source, version.not_yet_valid
    report.record(result)
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
    valid_from: str | None = None,
    label: str | None = None,
    snapshot: Path | None = None,
    confirmed: bool = False,
    on_file: Callable[[IngestReport], None] | None = None,
    statement_tiers: bool = False,
) -> IngestReport:
    """Ingest ``sources`` into ``store`` and report per file. Never raises for a bad file.

    Each changed document becomes a new version (``core.sql.versions``) taking effect at ``valid_from`` (a date
    for every file; :data:`core.versions.ACCEPTED_FORMS`), else at its front matter's date, its last git commit, or
    now (:func:`core.versions.resolve_valid_from`). A ``valid_from`` that does not parse raises
    :class:`core.versions.DateError` before any work.

    The stages: read what is stored (:func:`_stored_hashes`), parse what changed (:func:`_plan`), embed and store
    it (:func:`_embed_and_store`), then bring the indexes up to date (:func:`_finish`). Once the database holds
    ``hnsw_min_rows`` vectors, the HNSW index is built at the end of the ingest. ``label`` names the release the
    versions it makes belong to.

    ``snapshot``: the folder ``sources`` were found in is the whole corpus at ``valid_from``
    (:mod:`core.ingest.snapshot`): the documents stored from it that it no longer holds are retired as of that date,
    each linked to the new document that continues it, if one does. Snapshots of a collection run one at a time;
    :class:`core.ingest.snapshot.SnapshotRefusedError` (before anything is written) for a folder holding none of its
    stored documents unless ``confirmed``, or for a date before a change already stored from the folder.

    ``on_file`` is called with the report after each file's result is recorded (a background job keeps what was
    stored so far where a later page can read it, should its process die).

    The statement tiers (:mod:`core.ingest.tiers`) are kept up to date by every ingest once a collection has them;
    ``statement_tiers`` builds them (offline) on a collection that has none yet, so that its first ingest already
    answers the questions that read them (a list of the things that have something, the statements search).
    """
    if valid_from is not None:
        parse_date(valid_from, what="--valid-from")
    if snapshot is None:
        return _ingest(store, sources, loader=loader, max_bytes=max_bytes, batch_size=batch_size, progress=progress,
                       problems=problems, hnsw_min_rows=hnsw_min_rows, valid_from=valid_from, label=label,
                       on_file=on_file, statement_tiers=statement_tiers)
    if valid_from is None:
        raise IngestError("a snapshot needs --valid-from: the date the folder is the whole corpus at")
    when = parse_date(valid_from, what="--valid-from")[0]
    with store.job_lock("snapshot"):
        plan = plan_snapshot(store, snapshot, when, sources, problems, confirmed=confirmed)
        return _ingest(store, sources, loader=loader, max_bytes=max_bytes, batch_size=batch_size,
                       progress=progress, problems=problems, hnsw_min_rows=hnsw_min_rows, valid_from=valid_from,
                       label=label, plan=plan, on_file=on_file, statement_tiers=statement_tiers)


def _ingest(
    store: ElementStore, sources: Sequence[SourceFile], *, loader: str, max_bytes: int, batch_size: int,
    progress: ProgressCallback | None, problems: Sequence[FileResult], hnsw_min_rows: int, valid_from: str | None,
    label: str | None, plan: SnapshotPlan | None = None, on_file: Callable[[IngestReport], None] | None = None,
    statement_tiers: bool = False,
) -> IngestReport:
    started = time.perf_counter()
    report = IngestReport() if on_file is None else _WatchedReport(on_file)
    for problem in problems:
        report.record(problem)
    calls_before = store.embeddings.calls
    known = _stored_hashes(store)
    prepared = _plan(store, sources, known, report, loader=loader, max_bytes=max_bytes, valid_from=valid_from)
    moves = _link_moves(store, plan, prepared, known) if plan is not None else {}
    total = _embed_and_store(store, prepared, report, batch_size=batch_size, progress=progress, label=label)
    if plan is not None and not report.stopped:
        _retire_missing(store, plan, report, moves)
    report.embedding_calls = store.embeddings.calls - calls_before
    _finish(store, report, progress, total, hnsw_min_rows=hnsw_min_rows, batch_size=batch_size,
            statement_tiers=statement_tiers)
    report.seconds = time.perf_counter() - started
    if progress:
        progress(Progress(EMBEDDING, total, total, "done"))
    return report


class _WatchedReport(IngestReport):
    """A report that tells ``watch`` of each file's result as it is recorded."""

    def __init__(self, watch: Callable[[IngestReport], None]) -> None:
        super().__init__()
        self._watch = watch

    def record(self, result: FileResult) -> None:
        super().record(result)
        self._watch(self)


def _stored_hashes(store: ElementStore) -> dict[str, str]:
    """Document id → content hash of what the collection holds; a lost database stops the ingest before any work."""
    try:
        return store.content_hashes()
    except Exception as exc:
        gone = _database_unavailable(store, exc)
        if gone is None:
            raise
        raise StoreError(f"the database is unavailable ({gone}); nothing was ingested. Start it and try again.") \
            from exc


def _plan(
    store: ElementStore, sources: Sequence[SourceFile], known: dict[str, str], report: IngestReport, *,
    loader: str, max_bytes: int, valid_from: str | None = None,
) -> list[_Prepared]:
    """The sources that changed, parsed; the unchanged and the unreadable are recorded in ``report``."""
    prepared: list[_Prepared] = []
    for source in sources:
        try:
            item = _prepare(store, source, known, loader=loader, max_bytes=max_bytes, valid_from=valid_from)
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
    return prepared


def _link_moves(store: ElementStore, plan: SnapshotPlan, prepared: Sequence[_Prepared],
                known: dict[str, str]) -> dict[str, str]:
    """Old document id → the new one that continues it, for the snapshot's moves; each new one is told which
    document it continues (its elements keep their keys)."""
    from core.elements import Element

    new = {p.record.document_id: p for p in prepared
           if p.record.document_id not in known and p.record.document_id not in plan.stored}
    pairs = pair_moves(store, plan.missing,
                       {d: [Element.from_document(e) for e in p.elements] for d, p in new.items()})
    for new_id, (old_id, _share) in pairs.items():
        new[new_id].moved_from = old_id
    return {old_id: new_id for new_id, (old_id, _share) in pairs.items()}


def _retire_missing(store: ElementStore, plan: SnapshotPlan, report: IngestReport, moves: dict[str, str]) -> None:
    """Retire, as of the snapshot's date, the folder's documents it no longer holds; a move is linked only when
    the document that continues it was stored."""
    stored = {f.document_id for f in report.files if f.status in ("added", "replaced", "unchanged")}
    for document_id in plan.missing:
        last = plan.stored[document_id]
        moved_to = moves.get(document_id)
        moved_to = moved_to if moved_to in stored else None
        try:
            store.write.remove_document(document_id, when=plan.when, moved_to=moved_to)
        except StoreError as exc:
            report.errors.append({"path": last.source, "reason": f"not retired: {exc}"})
            continue
        report.retired.append({"path": last.source, "document_id": document_id, "retired_at": plan.when.isoformat(),
                               **({"moved_to": moved_to} if moved_to else {})})


def _embed_and_store(
    store: ElementStore, prepared: Sequence[_Prepared], report: IngestReport, *, batch_size: int,
    progress: ProgressCallback | None, label: str | None = None,
) -> int:
    """Embed each prepared document and store it, in order; returns how many elements there were to embed."""
    total = sum(len(p.elements) for p in prepared)
    done = 0
    if progress:
        progress(Progress(EMBEDDING, 0, total, f"{len(prepared)} documents to embed, {report.unchanged} unchanged"))
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
                    progress(Progress(EMBEDDING, done, total, message))

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
            future = writer.submit(store.write.store_version, item.record, item.elements, embedded.vectors,
                                   embedded.hashes, valid_from=item.valid_from, source_bytes=item.data,
                                   label=label, moved_from=item.moved_from)
            pending = _PendingWrite(item, future, dict(zip(embedded.hashes, embedded.vectors, strict=True)))
        if pending is not None:
            _settle(store, report, pending, [])
    return total


def _finish(store: ElementStore, report: IngestReport, progress: ProgressCallback | None, total: int, *,
            hnsw_min_rows: int, batch_size: int, statement_tiers: bool = False) -> None:
    """The vector index once the collection is big enough, the contextual index when the collection has one, and
    the statement tiers when it has them (or ``statement_tiers`` asks for them)."""
    if (report.added or report.replaced) and not report.stopped:
        if progress and not store.has_vector_index():
            progress(Progress(EMBEDDING, total, total, "checking the vector index"))
        store.ensure_vector_index(hnsw_min_rows)
    if not report.stopped:
        _update_contextual_index(store, report, progress, batch_size)
        _update_statement_tiers(store, report, progress, total, build=statement_tiers)


def _update_statement_tiers(store: ElementStore, report: IngestReport, progress: ProgressCallback | None,
                            total: int, *, build: bool) -> None:
    """A collection with statement tiers (``core index`` built them, or an ingest asked to ``build`` them) keeps them
    up to date with every ingest: only the element rows not read yet are read (one without tiers gets none)."""
    from core.ingest.tiers import sync_tiers, tiers_built

    try:
        if not build and not tiers_built(store):
            return
        if progress:
            progress(Progress(EMBEDDING, total, total, "the statement tiers"))
        started = time.perf_counter()
        sync = sync_tiers(store)
        report.tiers_seconds = time.perf_counter() - started
    except Exception as exc:  # the documents are stored; only the tiers are behind, and `core index` catches up
        report.warnings.append({"path": "(statement tiers)", "warning": f"not updated: {first_line(exc)}; "
                                f"run `python -m core index --collection {store.collection}`"})
        return
    report.warnings += [{"path": "(statement tiers)", "warning": cut} for cut in sync.cuts]


def _update_contextual_index(store: ElementStore, report: IngestReport, progress: ProgressCallback | None,
                             batch_size: int) -> None:
    """A collection with a contextual index keeps it up to date with every ingest (one without gets none)."""
    try:
        sync = update_contextual_index(store, progress=progress or no_progress, batch_size=batch_size)
    except Exception as exc:  # the documents are stored; only the index is behind, and a contextual search says so
        report.warnings.append({"path": "(contextual index)", "warning": f"not updated: {first_line(exc)}; "
                                f"run `{build_command(store.collection)}`"})
        return
    if sync is not None:
        report.contextual = asdict(sync)


def _prepare(
    store: ElementStore, source: SourceFile, known: dict[str, str], *, loader: str, max_bytes: int,
    valid_from: str | None = None,
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
    front_matter = (parse_front_matter(text) or None) if text is not None and loader in LOADERS else None
    try:
        when = resolve_valid_from(explicit=valid_from, text=text if front_matter else None, path=source.path)
    except DateError as exc:
        raise IngestError(str(exc)) from exc
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
    return _Prepared(source, record, elements, warning=warning, valid_from=when,
                     data=data)


def ingest_paths(
    store: ElementStore,
    paths: Iterable[str | Path],
    *,
    snapshot: bool = False,
    **kwargs,
) -> IngestReport:
    """``ingest`` over files and folders on disk; ``snapshot``: ``paths`` is one folder, the whole corpus at
    ``valid_from``."""
    paths = list(paths)
    if snapshot and (len(paths) != 1 or not Path(paths[0]).expanduser().is_dir()):
        raise IngestError("a snapshot is one folder: give exactly one folder (the whole corpus at --valid-from)")
    sources, problems = discover(paths)
    folder = Path(paths[0]).expanduser() if snapshot else None
    if folder is not None:  # an empty folder is the snapshot's to refuse (or, confirmed, to retire everything)
        problems = [p for p in problems if Path(p.path) != folder]
    return ingest(store, sources, problems=problems, snapshot=folder, **kwargs)
