"""``python -m core parse | ingest | remove | collections | contextual``: files into a collection, what it holds,
and its contextual index."""

from __future__ import annotations

import argparse
import sys
from dataclasses import asdict

from core.cli.arguments import add_collection, add_command, whole_number
from core.cli.console import emit, fail, progress_bar
from core.config import load_settings

LOADER_CHOICES = ["markdown-it", "unstructured"]


def register(sub: argparse._SubParsersAction) -> None:
    p = add_command(sub, "parse", "print the element tree of a markdown file (touches no database)", cmd_parse)
    p.add_argument("file")
    p.add_argument("--loader", default="markdown-it", choices=LOADER_CHOICES)

    p = add_command(sub, "ingest", "ingest markdown files or folders", cmd_ingest)
    p.add_argument("paths", nargs="+")
    add_collection(p)
    p.add_argument("--loader", default="markdown-it", choices=LOADER_CHOICES)
    p.add_argument("--max-bytes", type=whole_number(1, " of bytes"), default=None,
                   help="per-file size limit in bytes (default HKE_MAX_FILE_BYTES)")
    p.add_argument("--contextual", action="store_true",
                   help="new collection embeds each element with its heading path")
    p.add_argument("--valid-from", default=None, metavar="DATE",
                   help="when the versions this ingest makes take effect (YYYY-MM-DD or ISO 8601 with an offset; "
                        "default: front matter valid_from/effective/date, else the git commit date, else now)")
    p.add_argument("--snapshot", action="store_true",
                   help="the one folder given is the whole corpus at --valid-from: the documents stored from it "
                        "that it no longer holds are retired as of that date, and moves/renames are linked")
    p.add_argument("--yes", action="store_true",
                   help="with --snapshot: retire even when the folder holds none of the documents stored from it")
    p.add_argument("--label", default=None, metavar="LABEL",
                   help="the release the versions this ingest makes belong to (e.g. 1.6.1), shown beside their date")

    p = add_command(sub, "remove", "retire one document (by id, source path or file name): it leaves the collection, "
                                   "its history stays; --purge deletes the history too", cmd_remove)
    p.add_argument("document")
    p.add_argument("--purge", action="store_true",
                   help="delete every version of the document, its element rows and vectors, and its source blocks")
    p.add_argument("--valid-to", default=None, metavar="DATE",
                   help="the date it leaves the collection (default: now); reads as of that date or later never "
                        "see it")
    add_collection(p)

    p = add_command(sub, "collections", "list collections; --create or --drop one", cmd_collections)
    p.add_argument("--create", metavar="NAME", default=None, help="make an empty collection")
    p.add_argument("--drop", metavar="NAME", default=None,
                   help="delete a collection with every document, version and index (with --yes)")
    p.add_argument("--yes", action="store_true", help="with --drop: yes, delete it")

    p = add_command(sub, "jobs", "list the app's background jobs (ingests, index builds): status, progress, what "
                                 "they stored; or --cancel one", cmd_jobs)  # fmt: skip
    p.add_argument("--collection", default=None, help="only this collection's jobs")
    p.add_argument("--limit", type=whole_number(1, " of jobs"), default=20)
    p.add_argument("--cancel", metavar="ID", default=None,
                   help="cancel a queued or running job (its id, or the first 8 characters the list shows)")

    p = add_command(sub, "contextual", "build (or update) or drop a collection's contextual index, which the "
                                       "contextual search reads", cmd_contextual)  # fmt: skip
    p.add_argument("action", choices=["build", "drop"])
    add_collection(p)


def cmd_parse(args: argparse.Namespace) -> int:
    from core.ingest import IngestError, document_id_for, parse_source

    try:
        with open(args.file, "rb") as fh:
            data = fh.read()
        docs, _encoding, _text = parse_source(data, name=args.file, source=args.file,
                                              document_id=document_id_for("parse", args.file), loader=args.loader)
    except (OSError, IngestError) as exc:
        return fail(f"{args.file}: {exc}")
    from core.elements import Element

    rows = [
        {"element_id": e.element_id, "parent_id": e.parent_id, "category": e.category,
         "category_depth": e.category_depth, "text": e.text}
        for e in map(Element.from_document, docs)
    ]
    if args.json:
        emit(rows, True)
    else:
        depth: dict[str | None, int] = {}
        for row in rows:
            level = depth.get(row["parent_id"], -1) + 1
            depth[row["element_id"]] = level
            print(f"{'  ' * level}[{row['category']}] {row['text'][:100]}")
    return 0


def cmd_ingest(args: argparse.Namespace) -> int:
    from core.ingest import ingest_paths
    from core.store import open_store
    from core.versions import parse_date

    if args.valid_from is not None:
        parse_date(args.valid_from, what="--valid-from")  # a DateError (exit 2) before the database is started
    if args.snapshot and args.valid_from is None:
        return fail("--snapshot needs --valid-from: the date the folder is the whole corpus at")
    if args.label is not None and (not args.label.strip() or len(args.label) > 200 or not args.label.isprintable()):
        return fail(f"--label must be printable text of 1 to 200 characters, got {args.label[:40]!r}")
    settings = load_settings()
    options = {"contextual": True} if args.contextual else None
    store = open_store(args.collection, settings=settings, options=options)
    with progress_bar("embedding", unit="el") as bar:
        report = ingest_paths(
            store,
            args.paths,
            loader=args.loader,
            max_bytes=args.max_bytes or settings.max_file_bytes,
            batch_size=settings.embed_batch_size,
            hnsw_min_rows=settings.hnsw_min_rows,
            progress=bar,
            valid_from=args.valid_from,
            label=args.label.strip() if args.label else None,
            snapshot=args.snapshot,
            confirmed=args.yes,
        )
    text = (
        f"{report.documents} documents ({report.added} added, {report.replaced} replaced, {report.unchanged} "
        f"unchanged), {report.elements} elements written ({report.texts_embedded} texts embedded, "
        f"{report.cache_hits} from the embedding cache), {report.skipped} skipped, {len(report.errors)} errors "
        f"in {report.seconds:.2f}s"
    )
    text += "".join(f"\n  {f.path}: version {f.version}, valid from {f.valid_from} ({f.valid_from_source})"
                    + (", not yet valid" if f.not_yet_valid else "")
                    for f in report.files if f.version is not None)
    text += "".join(f"\n  retired {r['path']} as of {r['retired_at'][:10]}"
                    + (f", moved to {r['moved_to']}" if r.get("moved_to") else "") for r in report.retired)
    text += "".join(f"\n  warning: {w['path']}: {w['warning']}" for w in report.warnings)
    text += "".join(f"\n  error: {e['path']}: {e['reason']}" for e in report.errors)
    if report.contextual:
        text += (f"\ncontextual index updated: {report.contextual['embedded_documents']} documents embedded, "
                 f"{report.contextual['removed_documents']} removed")
    if report.stopped:
        text += f"\nstopped early: {report.stopped}"
    emit(report.as_dict(), args.json, text)
    return 1 if report.errors else 0


def cmd_remove(args: argparse.Namespace) -> int:
    from core.answering.version_history import UnknownDocumentError
    from core.documents import NotCurrentError, remove_document
    from core.store import open_store

    when = None
    if args.valid_to is not None:
        from core.versions import parse_date

        if args.purge:
            return fail("--valid-to dates a retirement; --purge deletes the history instead: give one of them")
        when = parse_date(args.valid_to, what="--valid-to")[0]  # exit 2 before the database is started
    store = open_store(args.collection, create=False)
    try:
        removal = remove_document(store, args.document, purge=args.purge, when=when)
    except NotCurrentError:
        return fail(f"no document {args.document!r} is current in collection {args.collection!r}: it was retired "
                    "(its history is kept; `remove --purge` deletes it)", 1)
    except UnknownDocumentError as exc:
        return fail(str(exc), 1)
    source, versions, graph_units = removal.source, removal.versions, removal.graph_text_units
    graph_note = (f"the GraphRAG index of {store.collection!r} was built with it: its {graph_units} text unit(s), "
                  "the entities and relationships only it mentioned, the reports of every community that drew on "
                  "it and the collection's LLM reply cache are deleted. Run "
                  f"`python -m core index --collection {store.collection}` to summarise the rest again"
                  if graph_units else None)
    payload = {**removal.as_dict(), "retired_at": when.isoformat() if when and removal.removed and not args.purge
               else None}
    if not removal.removed:
        text = "nothing removed"
    elif args.purge:
        text = f"purged {source}: its {versions} version(s), element rows, vectors and source blocks are deleted"
    else:
        text = (f"retired {source}" + (f" as of {when.isoformat()}" if when else "")
                + f": it leaves the collection; its {versions} version(s) are kept (`history`, `diff`, "
                "`show --as-of`; `remove --purge` deletes them)")
    emit(payload, args.json, text + (f"\n  note: {graph_note}" if graph_note else ""))
    if graph_note:
        print(f"note: {graph_note}", file=sys.stderr)
    return 0


def cmd_collections(args: argparse.Namespace) -> int:
    from core.store import list_collections, validate_collection_name
    from core.store.database import database_url

    if args.create and args.drop:
        return fail("give --create or --drop, not both")
    if args.drop and not args.yes:
        return fail(f"--drop deletes collection {args.drop!r} with all its documents and history: add --yes")
    if args.create or args.drop:
        from core.documents import create_collection, drop_collection
        from core.embeddings import make_embeddings
        from core.store import open_store

        name = validate_collection_name(args.create or args.drop)  # before the database is started
        if args.create:
            create_collection(database_url(), name, make_embeddings(settings=load_settings()))
        else:
            drop_collection(open_store(name, create=False))
        emit({"created" if args.create else "dropped": name}, args.json,
             f"{'created' if args.create else 'dropped'} collection {name!r}")
        return 0
    rows = [
        {"name": c.name, "documents": c.documents, "elements": c.elements,
         "embedder": str(c.embedder) if c.embedder else None, "options": c.options,
         "contextual_index": "contextual" in c.siblings}
        for c in list_collections(database_url())
    ]
    text = "\n".join(f"{r['name']}: {r['documents']} documents, {r['elements']} elements, {r['embedder']}"
                     + (", with a contextual index" if r["contextual_index"] else "")
                     for r in rows) or "no collections yet: run `python -m core ingest data/samples`"
    emit(rows, args.json, text)
    return 0


def cmd_contextual(args: argparse.Namespace) -> int:
    from core.ingest.contextual import build_contextual_index, drop_contextual_index
    from core.store import open_store

    settings = load_settings()
    store = open_store(args.collection, settings=settings, create=False)
    if args.action == "drop":
        dropped = drop_contextual_index(store)
        emit({"dropped": dropped}, args.json,
             "contextual index dropped" if dropped else f"collection {args.collection!r} has no contextual index")
        return 0
    with progress_bar("contextual", unit="el") as bar:
        _index, sync = build_contextual_index(store, progress=bar, batch_size=settings.embed_batch_size)
    emit(asdict(sync), args.json,
         f"contextual index of {args.collection!r}: {sync.documents} documents, {sync.embedded_documents} embedded "
         f"({sync.embedded_elements} elements), {sync.removed_documents} removed in {sync.seconds:.2f}s")
    return 0


def cmd_jobs(args: argparse.Namespace) -> int:
    from core.store.database import database_url
    from core.store.jobs import STALE_AFTER_S, JobTables

    tables = JobTables(database_url())
    tables.flag_interrupted(STALE_AFTER_S)
    if args.cancel:
        wanted = args.cancel.strip().lower()
        matching = [j for j in tables.list(args.collection, 200) if j.job_id.startswith(wanted)] if wanted else []
        if len(matching) != 1:
            return fail(f"{'no' if not matching else 'more than one'} job's id starts with {args.cancel[:40]!r}: "
                        "see python -m core jobs")
        job = matching[0]
        outcome = tables.cancel(job.job_id)
        if outcome is None:
            return fail(f"job {job.job_id[:8]} is {job.status}: only a queued or running job can be cancelled", 1)
        emit({"id": job.job_id, "status": outcome, "cancel_requested": True}, args.json,
             f"{job.job_id[:8]} {job.kind} into {job.collection}: "
             + ("cancelled" if outcome == "cancelled" else "asked to stop; it ends at its next step"))
        return 0
    rows = [{"id": j.job_id, "collection": j.collection, "kind": j.kind, "status": j.status, "done": j.done,
             "total": j.total, "current_file": j.current_file, "cancel_requested": j.cancel_requested,
             "counts": {k: v for k, v in j.counts.items() if k != "files"}, "error": j.error,
             "started_at": j.started_at, "finished_at": j.finished_at}
            for j in tables.list(args.collection, args.limit)]  # fmt: skip
    text = "\n".join(f"{r['id'][:8]} {r['kind']} into {r['collection']}: {r['status']}, {r['done']}/{r['total']}"
                     + "".join(f", {k} {v}" for k, v in r["counts"].items() if k in ("added", "replaced", "errors"))
                     + (f" ({r['error']})" if r["error"] else "") for r in rows) or "no jobs yet"
    emit(rows, args.json, text)
    return 0
