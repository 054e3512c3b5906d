"""``python -m core history | diff | changes | show``: a document's versions, what changed between two of them,
every change since a date, and a version's file as it was ingested."""

from __future__ import annotations

import argparse
import hashlib
import sys
from typing import TYPE_CHECKING

from core.cli.arguments import add_collection, add_command
from core.cli.console import emit, fail

if TYPE_CHECKING:
    from core.answering.version_history import DocumentRef
    from core.store import ElementStore, VersionRecord

OPS = ("added", "removed", "modified", "moved", "renamed")


def register(sub: argparse._SubParsersAction) -> None:
    p = add_command(sub, "history", "list a document's versions: validity, where the date came from, what changed",
                    cmd_history)
    p.add_argument("document", help="document id, source path or file name (retired documents too)")
    add_collection(p)

    p = add_command(sub, "diff", "what changed between two versions of a document, element by element", cmd_diff)
    p.add_argument("document")
    p.add_argument("--from", dest="from_", metavar="V|DATE", default=None,
                   help="a version number or a date (default: the version before --to)")
    p.add_argument("--to", metavar="V|DATE", default=None, help="a version number or a date (default: the latest)")
    add_collection(p)

    p = add_command(sub, "changes", "what changed between two dates or releases: the version of each document in "
                                    "force at --since to the one in force at --until, grouped by document and version",
                    cmd_changes)
    p.add_argument("--since", required=True, metavar="DATE|LABEL",
                   help="changes that took effect after this date (a plain date: after that whole day) or release")
    p.add_argument("--until", default=None, metavar="DATE|LABEL",
                   help="up to and including this date (a plain date: all of that day) or release (default: no end)")
    p.add_argument("--under", default=None, metavar="HEADING",
                   help="only changes under a heading containing this text (case-insensitive)")
    p.add_argument("--document", action="append", default=None, metavar="DOC",
                   help="only this document (id, source path or file name); repeat for several")
    p.add_argument("--exclude", action="append", default=[], metavar="DOC|GLOB",
                   help="leave out a document (id, source path, file name, or a glob over the path or file name "
                        "such as '*release-notes*'); repeat for several")
    p.add_argument("--op", action="append", default=None, choices=OPS,
                   help="only changes of this operation; repeat for several")
    add_collection(p)

    p = add_command(sub, "show", "write a version of a document to stdout byte for byte as it was ingested "
                                 "(--json: which version, not the bytes)", cmd_show)
    p.add_argument("document")
    which = p.add_mutually_exclusive_group()
    which.add_argument("--as-of", default=None, metavar="DATE", help="the version in force on DATE")
    which.add_argument("--version", type=int, default=None, metavar="V", help="version number V")
    add_collection(p)


def _open(args: argparse.Namespace) -> tuple[ElementStore, DocumentRef, list[VersionRecord]]:
    from core.answering.version_history import resolve_document
    from core.store import open_store

    store = open_store(args.collection, create=False)
    doc = resolve_document(store, args.document)
    return store, doc, store.read.versions(doc.document_id)


def cmd_history(args: argparse.Namespace) -> int:
    store, doc, versions = _open(args)
    sources = {d: source for d, source, _name, _retired in store.read.versioned_documents()}
    rows = [{k: v.as_dict()[k] for k in ("version", "label", "valid_from", "valid_to", "valid_from_source",
                                         "recorded_at", "retired_at", *OPS, "n_elements", "not_yet_valid",
                                         "moved_from", "moved_to")} for v in versions]
    for r in rows:  # a move names the other document by its source too
        for key in ("moved_from", "moved_to"):
            if r[key]:
                r[f"{key}_source"] = sources.get(r[key])
    payload = {"document_id": doc.document_id, "source": doc.source, "filename": doc.filename,
               "retired": doc.retired, "versions": rows}
    lines = [f"{doc.source} ({doc.document_id}){', retired' if doc.retired else ''}: {len(rows)} version(s)"]
    for r in rows:
        counts = ", ".join(f"{r[op]} {op}" for op in OPS if r[op])
        until = f" to {r['valid_to'][:10]}" if r["valid_to"] else ""
        label = f" [{r['label']}]" if r["label"] else ""
        lines.append(f"  v{r['version']}{label}: valid from {r['valid_from'][:10]}{until} "
                     f"({r['valid_from_source']}), {r['n_elements']} elements; {counts or 'no changes'}"
                     + (", not yet valid" if r["not_yet_valid"] else "")
                     + (f", moved from {r['moved_from_source']} ({r['moved_from']})" if r["moved_from"] else "")
                     + (f", retired {r['retired_at'][:10]}" if r["retired_at"] else "")
                     + (f", moved to {r['moved_to_source']} ({r['moved_to']})" if r["moved_to"] else ""))
    emit(payload, args.json, "\n".join(lines))
    return 0


def cmd_diff(args: argparse.Namespace) -> int:
    from core.answering.version_history import change_dict, choose_version, diff_versions, move_origin, moved_changes

    for spec, flag in ((args.from_, "--from"), (args.to, "--to")):
        if spec is not None and not spec.strip().isdigit():
            from core.versions import parse_date

            parse_date(spec, what=flag)  # exit 2 before the database is started
    store, doc, versions = _open(args)
    name = doc.filename
    new = choose_version(versions, args.to, name, what="--to") if args.to is not None else versions[-1]
    if args.from_ is not None:
        old = choose_version(versions, args.from_, name, what="--from")
        if old.version > new.version:
            return fail(f"--from (version {old.version}, {old.valid_from.date()}) is after --to (version "
                        f"{new.version}, {new.valid_from.date()}): give the older version first")
        old_number: int | None = old.version
    else:
        old_number = new.version - 1 if new.version > 1 else None
    origin = move_origin(store, new) if old_number is None else None
    changes = (moved_changes(store, new) if origin is not None
               else diff_versions(store, doc.document_id, old_number, new.version))
    by_number = {v.version: v for v in versions}

    def side(number: int | None) -> dict[str, object] | None:
        v = by_number.get(number) if number is not None else None
        return {"version": v.version, "valid_from": v.valid_from.isoformat(), "label": v.label} if v else None

    before = side(old_number) if origin is None else {
        "document_id": origin.document_id, "source": origin.source, "version": origin.version,
        "valid_from": origin.valid_from.isoformat(), "label": origin.label}
    payload = {"document_id": doc.document_id, "source": doc.source, "from": before,
               "to": side(new.version), "changes": [change_dict(c) for c in changes]}
    start = f"{origin.source} version {origin.version}" if origin is not None else f"version {old_number or '-'}"
    lines = [f"{doc.source}: {start} → version {new.version}, {len(changes)} change(s)"]
    for c in changes:
        where = " › ".join(c.path) or (f"{c.before} → {c.after}" if c.op == "moved" else "-")
        lines.append(f"  {c.op:8} {where}  [{c.key}]")
        if c.op in ("modified", "renamed"):
            lines.append("           " + " ".join(_word(op, words) for op, words in c.words))
        elif c.op in ("added", "removed"):
            lines.append(f"           {(c.after if c.op == 'added' else c.before) or ''}"[:200])
    emit(payload, args.json, "\n".join(lines))
    return 0


def _word(op: str, words: str) -> str:
    return words if op == "equal" else f"[-{words}-]" if op == "delete" else f"{{+{words}+}}"


def cmd_changes(args: argparse.Namespace) -> int:
    from core.answering.changes import listing
    from core.answering.version_history import (
        Window,
        changes_between,
        counts_words,
        filter_changes,
        group_changes,
        op_counts,
        parse_bound,
        release_labels,
        resolve_document,
    )
    from core.store import open_store
    from core.versions.dates import DateError, DateRangeError, parse_date

    for flag, text in (("--since", args.since), ("--until", args.until)):
        try:  # a date out of range is refused before the database is started; other text may be a release label
            if text is not None:
                parse_date(text, what=flag)
        except DateRangeError:
            raise
        except DateError:
            pass
    store = open_store(args.collection, create=False)
    labels = release_labels(store)
    since, since_day, since_label = parse_bound(args.since, what="--since", labels=labels)
    until, until_day, until_label = (parse_bound(args.until, what="--until", labels=labels)
                                     if args.until is not None else (None, True, None))
    window = Window(since, until, since_day, until_day, since_label, until_label)
    if window.empty:
        return fail(f"--until ({args.until}) is not after --since ({args.since}): the window holds no day")
    documents = [resolve_document(store, name).document_id for name in args.document] if args.document else None
    found = filter_changes(changes_between(store, window, under=args.under, document_ids=documents),
                           exclude=args.exclude, ops=args.op)
    groups = group_changes(found)
    words = window.words()
    payload = {"since": since.isoformat(), "until": until.isoformat() if until else None,
               "since_label": since_label, "until_label": until_label, "window": words, "under": args.under,
               "exclude": args.exclude, "ops": args.op, "counts": op_counts(found),
               "documents": [{"document_id": g.document_id, "source": g.source, "filename": g.filename,
                              "counts": g.counts,
                              "versions": [{"version": v.version, "from_version": v.base,
                                            "valid_from": v.valid_from.isoformat(), "counts": v.counts}
                                           for v in g.versions]} for g in groups],
               "changes": [c.as_dict() for c in found]}
    head = (f"{words[0].upper()}{words[1:]}: {len(found)} in {len(groups)} document(s)"
            + (f" ({counts_words(op_counts(found))})" if found else "")
            + (f" under {args.under!r}" if args.under else ""))
    emit(payload, args.json, "\n".join([head, *listing(groups, limit=None, max_documents=None)]))
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    from core.answering.version_history import choose_version, parse_moment, source_of, version_on

    when = parse_moment(args.as_of, what="--as-of") if args.as_of is not None else None
    store, doc, versions = _open(args)
    name = doc.filename
    if args.version is not None:
        version = choose_version(versions, str(args.version), name, what="--version")
    elif when is not None:
        version = version_on(versions, when, name)
    else:
        version = versions[-1]
    data = source_of(store, doc.document_id, version, name)
    if args.json:
        emit({"document_id": doc.document_id, "source": doc.source, "version": version.version,
              "valid_from": version.valid_from.isoformat(), "n_bytes": len(data),
              "sha256": hashlib.sha256(data).hexdigest()}, True)
        return 0
    sys.stdout.flush()
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()
    return 0
