"""``python -m core …``: the command line over the same library the app uses.

Every command that reports takes ``--json`` and then prints exactly one JSON document on stdout; progress
and warnings go to stderr. Exit status: 0 ok, 1 some files or items failed, 2 usage or setup error.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from collections.abc import Callable, Sequence
from dataclasses import asdict
from typing import Any

from core.config import DEFAULT_COLLECTION, load_settings

Handler = Callable[[argparse.Namespace], int]
_COMMANDS: dict[str, Handler] = {}


def command(name: str) -> Callable[[Handler], Handler]:
    def register(fn: Handler) -> Handler:
        _COMMANDS[name] = fn
        return fn

    return register


def emit(payload: Any, as_json: bool, text: str | None = None) -> None:
    if as_json:
        print(json.dumps(payload, ensure_ascii=False, indent=2, default=str))
    else:
        print(text if text is not None else json.dumps(payload, ensure_ascii=False, indent=2, default=str))


def fail(message: str, code: int = 2) -> int:
    print(f"error: {message}", file=sys.stderr)
    return code


# -- db ---------------------------------------------------------------------------------------------


@command("db")
def cmd_db(args: argparse.Namespace) -> int:
    from core import database

    settings = load_settings()
    if args.action == "url":
        # Don't start a server just to print its URL: it would stop again when this command exits.
        url = database.database_url(settings, start=False)
        print(url if args.show_password else database.redact_url(url))
        return 0
    if args.action == "stop":
        stopped = database.stop_embedded(settings)
        emit({"stopped": stopped}, args.json, "stopped" if stopped else "no embedded server was running")
        return 0
    st = database.status(settings)
    payload = asdict(st)
    lines = [f"{k}: {v}" for k, v in payload.items()]
    emit(payload, args.json, "\n".join(lines))
    return 0


# -- parse ------------------------------------------------------------------------------------------


@command("parse")
def cmd_parse(args: argparse.Namespace) -> int:
    from core.ingest import IngestError, decode_text, document_id_for, parse

    try:
        with open(args.file, "rb") as fh:
            data = fh.read()
        text, _encoding = decode_text(data)
    except (OSError, IngestError) as exc:
        return fail(f"{args.file}: {exc}")
    docs = parse(text, source=args.file, document_id=document_id_for("parse", args.file), loader=args.loader)
    rows = [
        {
            "element_id": d.metadata["element_id"],
            "parent_id": d.metadata.get("parent_id"),
            "category": d.metadata.get("category"),
            "category_depth": d.metadata.get("category_depth"),
            "text": d.page_content,
        }
        for d in docs
    ]
    if args.json:
        emit(rows, True)
    else:
        depth = {}
        for row in rows:
            level = depth.get(row["parent_id"], -1) + 1
            depth[row["element_id"]] = level
            print(f"{'  ' * level}[{row['category']}] {row['text'][:100]}")
    return 0


# -- ingest / remove / collections ------------------------------------------------------------------


@command("ingest")
def cmd_ingest(args: argparse.Namespace) -> int:
    from core.ingest import ingest_paths
    from core.store import open_store

    settings = load_settings()
    options = {"contextual": True} if args.contextual else None
    store = open_store(args.collection, settings=settings, options=options)
    bar = _progress_bar("embedding", unit="el")
    report = ingest_paths(
        store,
        args.paths,
        loader=args.loader,
        max_bytes=args.max_bytes or settings.max_file_bytes,
        batch_size=settings.embed_batch_size,
        progress=bar,
    )
    bar.close()
    text = (
        f"{report.documents} documents ({report.added} added, {report.replaced} replaced, {report.unchanged} "
        f"unchanged), {report.elements} elements written, {report.skipped} skipped, {len(report.errors)} errors "
        f"in {report.seconds:.2f}s"
    )
    text += "".join(f"\n  error: {e['path']}: {e['reason']}" for e in report.errors)
    emit(report.as_dict(), args.json, text)
    return 1 if report.errors else 0


@command("remove")
def cmd_remove(args: argparse.Namespace) -> int:
    from core.store import open_store

    store = open_store(args.collection, create=False)
    matches = store.find_documents(args.document)
    if not matches:
        return fail(f"no document {args.document!r} in collection {args.collection!r}", 1)
    if len(matches) > 1:
        listing = ", ".join(f"{d.document_id} ({d.source})" for d in matches)
        return fail(f"{args.document!r} names several documents: {listing}; pass a document id", 1)
    removed = store.remove_document(matches[0].document_id)
    emit({"removed": matches[0].document_id, "source": matches[0].source}, args.json,
         f"removed {matches[0].source}" if removed else "nothing removed")
    return 0


@command("collections")
def cmd_collections(args: argparse.Namespace) -> int:
    from core.database import database_url
    from core.store import list_collections

    rows = [
        {"name": c.name, "documents": c.documents, "elements": c.elements,
         "embedder": str(c.embedder) if c.embedder else None, "options": c.options}
        for c in list_collections(database_url())
    ]
    text = "\n".join(f"{r['name']}: {r['documents']} documents, {r['elements']} elements, {r['embedder']}"
                     for r in rows) or "no collections yet: run `python -m core ingest data/samples`"
    emit(rows, args.json, text)
    return 0


# -- ask --------------------------------------------------------------------------------------------


@command("ask")
def cmd_ask(args: argparse.Namespace) -> int:
    from core.answering import compare, default_answerer
    from core.retrieval import resolve_scope
    from core.store import open_store

    store = open_store(args.collection, create=False)
    scope = resolve_scope(store, args.scope)
    modes = ("plain", "hierarchical") if args.mode == "both" else (args.mode,)
    result = compare(store, args.question, k=args.k, scope=scope, answerer=default_answerer(), modes=modes,
                     children_budget=args.children_budget)
    payload = result.to_dict(details=False)
    lines = [f"question: {result.question}", f"answerer: {result.answerer}", f"scope: {scope.label}"]
    for mode in modes:
        r = result.results[mode]
        timings = ", ".join(f"{k} {v:.1f} ms" for k, v in r.timings.items())
        lines += ["", f"== {mode} ({r.context.tokens} context tokens; {timings})"]
        lines.append(f"error: {r.answer.error}" if r.answer.error else r.answer.text)
        lines += [f"  [{'cited' if s.cited else 'hit'}] {s.element_id}  {' › '.join(s.heading_path) or '-'}"
                  for s in r.sources]
        lines += ["-- context --", r.context.text]
    emit(payload, args.json, "\n".join(lines))
    return 1 if any(result.results[m].answer.error for m in modes) else 0


class _NoBar:
    def __call__(self, progress) -> None:
        pass

    def close(self) -> None:
        pass


class _TqdmBar:
    def __init__(self, desc: str, unit: str) -> None:
        from tqdm import tqdm

        self._bar = tqdm(desc=desc, unit=unit, file=sys.stderr, total=0, dynamic_ncols=True)

    def __call__(self, progress) -> None:
        if progress.total and self._bar.total != progress.total:
            self._bar.total = progress.total
        self._bar.n = progress.done
        self._bar.set_postfix_str(progress.message[-40:], refresh=True)

    def close(self) -> None:
        self._bar.close()


def _progress_bar(desc: str, unit: str):
    return _TqdmBar(desc, unit) if sys.stderr.isatty() else _NoBar()


# -- parser -----------------------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m core", description="Hierarchical Knowledge Explorer")
    parser.add_argument("-v", "--verbose", action="store_true", help="log progress to stderr")
    sub = parser.add_subparsers(dest="command", required=True)

    def add(name: str, help_text: str) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help_text, description=help_text)
        p.add_argument("--json", action="store_true", help="print one JSON document")
        return p

    def add_collection(p: argparse.ArgumentParser) -> None:
        p.add_argument("--collection", default=DEFAULT_COLLECTION, help="corpus name (default: %(default)s)")

    p = add("db", "embedded database: status, URL (password redacted) or stop")
    p.add_argument("action", choices=["status", "url", "stop"])
    p.add_argument("--show-password", action="store_true", help="with url: print the password too")

    p = add("parse", "print the element tree of a markdown file (touches no database)")
    p.add_argument("file")
    p.add_argument("--loader", default="markdown-it", choices=["markdown-it", "unstructured"])

    p = add("ingest", "ingest markdown files or folders")
    p.add_argument("paths", nargs="+")
    add_collection(p)
    p.add_argument("--loader", default="markdown-it", choices=["markdown-it", "unstructured"])
    p.add_argument("--max-bytes", type=int, default=None, help="per-file size limit (default HKE_MAX_FILE_BYTES)")
    p.add_argument("--contextual", action="store_true",
                   help="new collection embeds each element with its heading path")

    p = add("remove", "remove one document (by id, source path or file name)")
    p.add_argument("document")
    add_collection(p)

    add("collections", "list collections")

    p = add("ask", "answer a question from the plain and the hierarchical context of the same hits")
    p.add_argument("question")
    p.add_argument("--mode", default="both", choices=["plain", "hierarchical", "both"])
    p.add_argument("--k", type=int, default=4, help="vector hits (default: %(default)s)")
    p.add_argument("--scope", default=None, help="search only inside this document id or element (heading) id")
    p.add_argument("--children-budget", type=int, default=0,
                   help="a heading hit brings its children within this many tokens (default: off)")
    add_collection(p)

    # GraphRAG index: index, reports, global, export (handlers in core/graph/cli.py register on import).
    from core.graph.cli import add_parsers as add_graph_parsers

    add_graph_parsers(add, add_collection)

    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, stream=sys.stderr,
                        format="%(levelname)s %(name)s: %(message)s")
    from core.database import DatabaseError
    from core.store import StoreError

    try:
        return _COMMANDS[args.command](args)
    except (StoreError, DatabaseError, ValueError) as exc:
        return fail(str(exc))
    except KeyboardInterrupt:
        return fail("interrupted", 130)
