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
from core.progress import Progress

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
    from core.db.urls import redact_text

    print(f"error: {redact_text(message, _configured_database_url())}", file=sys.stderr)
    return code


def _configured_database_url() -> str | None:
    try:
        return load_settings().database_url
    except ValueError:  # a bad setting is reported by the command itself
        return None


# -- db ---------------------------------------------------------------------------------------------


@command("db")
def cmd_db(args: argparse.Namespace) -> int:
    from core import db
    from core.db.urls import redact_url

    settings = load_settings()
    if args.action == "url":
        # Don't start a server just to print its URL: it would stop again when this command exits.
        url = db.database_url(settings, start=False)
        print(url if args.show_password else redact_url(url))
        return 0
    if args.action == "stop":
        stopped = db.stop_embedded(settings)
        emit({"stopped": stopped}, args.json, "stopped" if stopped else "no embedded server was running")
        return 0
    st = db.status(settings)
    payload = asdict(st)
    lines = [f"{k}: {v}" for k, v in payload.items()]
    emit(payload, args.json, "\n".join(lines))
    return 0


# -- parse ------------------------------------------------------------------------------------------


@command("parse")
def cmd_parse(args: argparse.Namespace) -> int:
    from core.ingest import IngestError, document_id_for, parse_source

    try:
        with open(args.file, "rb") as fh:
            data = fh.read()
        docs, _encoding, _text = parse_source(data, name=args.file, source=args.file,
                                              document_id=document_id_for("parse", args.file), loader=args.loader)
    except (OSError, IngestError) as exc:
        return fail(f"{args.file}: {exc}")
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
        hnsw_min_rows=settings.hnsw_min_rows,
        progress=bar,
    )
    bar.close()
    text = (
        f"{report.documents} documents ({report.added} added, {report.replaced} replaced, {report.unchanged} "
        f"unchanged), {report.elements} elements written ({report.texts_embedded} texts embedded, "
        f"{report.cache_hits} from the embedding cache), {report.skipped} skipped, {len(report.errors)} errors "
        f"in {report.seconds:.2f}s"
    )
    text += "".join(f"\n  warning: {w['path']}: {w['warning']}" for w in report.warnings)
    text += "".join(f"\n  error: {e['path']}: {e['reason']}" for e in report.errors)
    if report.stopped:
        text += f"\nstopped early: {report.stopped}"
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
    from core.db import database_url
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


@command("migrate")
def cmd_migrate(args: argparse.Namespace) -> int:
    from core.db import database_url
    from core.migrate import migrate

    report = migrate(database_url())
    rows = {"collections": [{"name": c.name, "id": str(c.collection_id), "elements": c.elements}
                            for c in report.collections],
            "links": report.links, "dropped_old_tables": report.dropped_old_tables}
    emit(rows, args.json, report.summary())
    return 0


# -- ask --------------------------------------------------------------------------------------------


@command("ask")
def cmd_ask(args: argparse.Namespace) -> int:
    from core.answering import compare, default_answerer
    from core.retrieval import QuestionError, resolve_scope, search_config, validate_question
    from core.store import open_store

    try:
        question = validate_question(args.question)
    except QuestionError as exc:
        return fail(str(exc))  # exit 2 before the database is started or the model loaded
    if args.children_budget is not None and args.children_budget < 0:
        return fail(f"--children-budget must be 0 or more tokens, got {args.children_budget}")
    search = search_config(args.search, headings=False if args.everywhere else None)
    store = open_store(args.collection, create=False)
    scope = resolve_scope(store, args.scope)
    modes = ("plain", "hierarchical") if args.mode == "both" else (args.mode,)
    result = compare(store, question, k=args.k, scope=scope, answerer=default_answerer(), modes=modes,
                     children_budget=args.children_budget, search=search)
    payload = {**result.to_dict(details=False), "search": result.search}
    lines = [f"question: {result.question}", f"answerer: {result.answerer}",
             f"search: {search.name} ({search.describe()})", *result.search["notes"]]
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


# -- GraphRAG index: index / reports / global / export ----------------------------------------------


@command("index")
def cmd_index(args: argparse.Namespace) -> int:
    from core.graph import GraphIndexError, IndexConfig, build_index
    from core.store import open_store

    store = open_store(args.collection, create=False)
    knobs = {"unit_tokens": args.unit_tokens, "max_cluster_size": args.max_cluster_size, "seed": args.seed,
             "gleanings": args.gleanings, "concurrency": args.concurrency}
    config = IndexConfig(
        extraction="offline" if args.offline else "auto",
        reports="extractive" if args.offline else "auto",
        **{k: v for k, v in knobs.items() if v is not None},
    )
    # Issue 13: an LLM run is estimated first (calls, tokens, cost) and needs a yes; --estimate only prints it.
    uses_llm = not args.offline and load_settings().has_llm
    if args.estimate or uses_llm:
        from core.graph.estimate import estimate_index_cost

        try:
            estimate = estimate_index_cost(store, config, price_in_per_m=args.price_in, price_out_per_m=args.price_out)
        except ValueError as exc:
            return fail(str(exc), 2)
        if args.estimate:
            emit(estimate.to_dict(), args.json, f"estimate for an LLM index of {store.collection!r}: "
                                                f"{estimate.describe()}")  # fmt: skip
            return 0
        print(f"estimate: {estimate.describe()}", file=sys.stderr)
        if not args.yes:
            if not sys.stdin.isatty():
                return fail("an LLM index run needs a confirmation: pass --yes (or --offline for no LLM)", 2)
            if input("Run the LLM index at this cost? [y/N] ").strip().lower() not in ("y", "yes"):
                return fail("cancelled: nothing was indexed", 1)
    bar = _StageBar() if sys.stderr.isatty() else _NoBar()
    try:
        report = build_index(store, config=config, progress=bar)
    except GraphIndexError as exc:
        return fail(str(exc), 1)
    finally:
        bar.close()
    payload = {
        "text_units": report.text_units,
        "entities": report.entities,
        "relationships": report.relationships,
        "communities": {str(k): v for k, v in sorted(report.communities.items())},
        "reports": report.reports,
        "llm_calls": report.llm_calls,
        "cached_calls": report.cached_calls,
        "seconds": report.seconds,
        "structural_communities": {str(k): v for k, v in sorted(report.structural_communities.items())},
        "extraction": report.extraction,
        "llm_reports": report.llm_reports,
        "extractive_reports": report.extractive_reports,
        "skipped_llm_replies": report.skipped_llm_replies,
        "stages": report.stages,
    }
    levels = ", ".join(f"L{k}: {v}" for k, v in sorted(report.communities.items())) or "none"
    structural = ", ".join(f"L{k}: {v}" for k, v in sorted(report.structural_communities.items())) or "none"
    text = (
        f"indexed {store.collection!r} ({report.extraction} extraction) in {report.seconds:.2f}s: "
        f"{report.text_units} text units, {report.entities} entities, {report.relationships} relationships\n"
        f"entity communities {levels}; structural communities {structural}\n"
        f"{report.reports} reports ({report.llm_reports} LLM, {report.extractive_reports} extractive); "
        f"LLM calls {report.llm_calls}, cached {report.cached_calls}"
    )
    emit(payload, args.json, text)
    return 0


@command("reports")
def cmd_reports(args: argparse.Namespace) -> int:
    from core.graph import GraphIndex, GraphIndexMissing
    from core.store import open_store

    try:
        index = GraphIndex.open(open_store(args.collection, create=False))
    except GraphIndexMissing as exc:
        return fail(str(exc), 1)
    reports = index.reports(level=args.level, kind=args.kind)
    lines = []
    for r in reports:
        tag = "" if r.generated_by == "llm" else " [extractive]"
        lines.append(f"{r.community_id}  L{r.level} {r.kind}  rating {r.rating:g}  size {r.size}{tag}  {r.title}")
        if args.full:
            lines += ["", r.full_content, ""]
    emit([r.to_dict() for r in reports], args.json, "\n".join(lines) or "no reports at that level and kind")
    return 0


@command("global")
def cmd_global(args: argparse.Namespace) -> int:
    from core.graph import global_search, index_exists
    from core.store import open_store

    store = open_store(args.collection, create=False)
    if not index_exists(store):
        return fail(f"collection {args.collection!r} has no GraphRAG index yet: run `python -m core index` first", 1)
    answer = global_search(store, args.question, level=args.level, kind=args.kind,
                           use_llm="extractive" if args.offline else "auto")
    text = (
        f"{answer.answer}\n\n-- {answer.generated_by}; level {answer.level} {answer.kind}; "
        f"{answer.reports_considered} reports read; cites {', '.join(answer.report_ids) or 'nothing'}; "
        f"LLM calls {answer.llm_calls} (cached {answer.cached_calls}); {answer.seconds:.2f}s"
    )
    emit(answer.to_dict(), args.json, text)
    return 0


@command("export")
def cmd_export(args: argparse.Namespace) -> int:
    from core.graph import GraphIndexMissing, export_index
    from core.store import open_store

    store = open_store(args.collection, create=False)
    try:
        written = export_index(store, args.out, fmt=args.format)
    except GraphIndexMissing as exc:
        return fail(str(exc), 1)
    payload = {name: str(path) for name, path in written.items()}
    emit(payload, args.json, "\n".join(f"{name}: {path}" for name, path in payload.items()))
    return 0


@command("cache")
def cmd_cache(args: argparse.Namespace) -> int:
    from core.db import database_url
    from core.db.pool import connection_pool
    from core.graph.llm_cache import clear_cache
    from core.store import open_store

    if args.collection is not None:
        store = open_store(args.collection, create=False)
        cleared = clear_cache(store.pool, store.collection_id)
    else:
        cleared = clear_cache(connection_pool(database_url()))
    where = f"collection {args.collection!r}" if args.collection is not None else "every collection"
    emit({"cleared": cleared, "collection": args.collection}, args.json,
         f"cleared {cleared} cached LLM replies from {where}")
    return 0


class _StageBar:
    """One tqdm bar following the index stages: ``bar(stage, done, total)``."""

    def __init__(self) -> None:
        from tqdm import tqdm

        self._bar = tqdm(desc="index", total=1, file=sys.stderr, dynamic_ncols=True)

    def __call__(self, progress: Progress) -> None:
        self._bar.set_description_str(progress.stage, refresh=False)
        self._bar.total = max(progress.total, 1)
        self._bar.n = progress.done
        self._bar.refresh()

    def close(self) -> None:
        self._bar.close()


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


# -- evaluation: eval / generate-questions (core/evaluation) ----------------------------------------


@command("eval")
def cmd_eval(args: argparse.Namespace) -> int:
    from pathlib import Path

    from core.evaluation import (
        Judge,
        QuestionSetError,
        cli_payload,
        export_csv,
        export_json,
        load_questions,
        parse_modes,
        run_evaluation,
    )
    from core.store import open_store

    try:
        questions = load_questions(args.questions)
    except QuestionSetError as exc:
        return fail(str(exc))
    if args.limit:
        questions = questions.subset(limit=args.limit)
    modes = parse_modes(args.modes)
    judge = None
    if args.judge:
        settings = load_settings()
        if not settings.has_llm:
            return fail("--judge needs a model: set OPENAI_API_KEY (and OPENAI_BASE_URL for a local server)")
        judge = Judge.from_settings(settings)
    store = open_store(args.collection, create=False)
    bar = _progress_bar("evaluating", unit="q")
    run = run_evaluation(store, questions, modes=modes, k=args.k, judge=judge, judge_pairs=args.judge_pairs,
                         persist=not args.no_store, progress=bar)
    bar.close()
    if args.out:
        out = Path(args.out)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(export_csv(run) if out.suffix.lower() == ".csv" else export_json(run), encoding="utf-8")
    stored = "not stored" if args.no_store else f"stored as run {run.run_id}"
    print(f"{len(questions)} questions x {len(modes)} modes on {store.collection!r}, k={args.k}: {stored}"
          + (f"; written to {args.out}" if args.out else ""), file=sys.stderr)
    payload = cli_payload(run)
    columns = ("recall", "attribution", "grounded", "mrr", "context_tokens_mean", "latency_ms_p50", "exact",
               "contains")
    lines = [f"{'mode':<13}" + "".join(f"{c:>{len(c) + 2}}" for c in columns)]
    for mode in modes:
        values = [payload[mode].get(c) for c in columns]
        cells = ("-" if v is None else str(v) for v in values)
        lines.append(f"{mode:<13}" + "".join(f"{v:>{len(c) + 2}}" for c, v in zip(columns, cells, strict=True)))
    for pair, criteria in (payload.get("judge") or {}).items():
        lines.append(f"judge {pair}: " + ", ".join(
            f"{c} {v['win_rate']} [{v['ci'][0]}, {v['ci'][1]}] (n={v['n']}, invalid {v['invalid']})"
            for c, v in criteria.items()))
    emit(payload, args.json, "\n".join(lines))
    return 0


@command("generate-questions")
def cmd_generate_questions(args: argparse.Namespace) -> int:
    import json as _json
    from pathlib import Path

    from core.evaluation import generate_questions, save_questions

    missing = [p for p in args.paths if not Path(p).exists()]
    if missing:
        return fail(f"no such file or folder: {', '.join(missing)}")
    questions = generate_questions(args.paths, limit=args.limit, max_answer_elements=args.max_answer_elements)
    if not questions.questions:
        return fail("no questions could be generated: the files state no defaults, key : value items or table rows "
                    "that are specific enough", 1)
    if not args.out:
        print(_json.dumps(questions.as_dict(), ensure_ascii=False, indent=1))
        return 0
    path = save_questions(questions, args.out)
    tags: dict[str, int] = {}
    for q in questions.questions:
        for tag in q.tags:
            tags[tag] = tags.get(tag, 0) + 1
    payload = {"out": str(path), "questions": len(questions), "tags": tags, "description": questions.description}
    emit(payload, args.json, f"{len(questions)} questions written to {path} ({questions.description})")
    return 0


# -- parser -----------------------------------------------------------------------------------------


def _whole_number(minimum: int, what: str) -> Callable[[str], int]:
    """An argparse type: an int of at least ``minimum``, or an error that says so with the value given."""
    bound = "above 0" if minimum == 1 else f"{minimum} or more"

    def parse(raw: str) -> int:
        try:
            value = int(raw)
        except ValueError:
            value = None
        if value is None or value < minimum:
            raise argparse.ArgumentTypeError(f"must be a whole number{what}{',' if minimum != 1 else ''} {bound}, "
                                             f"got {raw}")
        return value

    return parse


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
    p.add_argument("--max-bytes", type=_whole_number(1, " of bytes"), default=None,
                   help="per-file size limit in bytes (default HKE_MAX_FILE_BYTES)")
    p.add_argument("--contextual", action="store_true",
                   help="new collection embeds each element with its heading path")

    p = add("remove", "remove one document (by id, source path or file name)")
    p.add_argument("document")
    add_collection(p)

    add("collections", "list collections")
    add("migrate", "move a database from the layout before issue 14 (langchain_pg_* tables); vectors are copied")

    p = add("ask", "answer a question from the plain and the hierarchical context of the same hits")
    p.add_argument("question")
    p.add_argument("--mode", default="both", choices=["plain", "hierarchical", "both"])
    p.add_argument("--k", type=_whole_number(1, ""), default=4, help="vector hits (default: %(default)s)")
    p.add_argument("--scope", default=None, help="search only inside this document id or element (heading) id")
    p.add_argument("--search", default="default", choices=["default", "vector", "fulltext", "hybrid", "contextual"],
                   help="search strategy (default: the measured default, hybrid scoped by named headings)")
    p.add_argument("--everywhere", action="store_true",
                   help="do not scope the search to the headings the question names")
    p.add_argument("--children-budget", type=_whole_number(0, " of tokens"), default=None,
                   help="tokens a heading hit brings from its own section (default: 200; 0 = none)")
    add_collection(p)

    # -- GraphRAG index (core/graph) --
    p = add("index", "build the GraphRAG index: entities, communities, reports (offline unless a model is set)")
    add_collection(p)
    p.add_argument("--offline", action="store_true", help="no LLM even if one is configured")
    p.add_argument("--unit-tokens", type=int, default=None, help="text unit size in tokens (default: 600)")
    p.add_argument("--max-cluster-size", type=int, default=None, help="Leiden max cluster size (default: 10)")
    p.add_argument("--seed", type=int, default=None, help="Leiden seed (default: 0xDEADBEEF)")
    p.add_argument("--gleanings", type=int, default=None, help="LLM gleaning rounds (default: 1)")
    p.add_argument("--concurrency", type=int, default=None, help="parallel LLM calls (default: 4)")
    p.add_argument("--estimate", action="store_true",
                   help="print the LLM calls, tokens and cost an LLM index run would take, and stop")
    p.add_argument("--price-in", type=float, default=None,
                   help="US$ per 1M input tokens for the estimate (default: $HKE_PRICE_IN_PER_M or 0.15)")
    p.add_argument("--price-out", type=float, default=None,
                   help="US$ per 1M output tokens for the estimate (default: $HKE_PRICE_OUT_PER_M or 0.60)")
    p.add_argument("--yes", action="store_true", help="run an LLM index without asking to confirm its estimate")

    p = add("reports", "list community reports")
    p.add_argument("--level", type=int, default=None, help="community level (default: all)")
    p.add_argument("--kind", default="entity", choices=["entity", "structural"])
    p.add_argument("--full", action="store_true", help="print each report in full")
    add_collection(p)

    p = add("global", "answer a question from the community reports of one level (map-reduce)")
    p.add_argument("question")
    p.add_argument("--level", type=int, default=None, help="community level (default: 1, or the finest there is)")
    p.add_argument("--kind", default="entity", choices=["entity", "structural"])
    p.add_argument("--offline", action="store_true", help="extractive answer even if a model is configured")
    add_collection(p)

    p = add("cache", "clear the LLM response cache of the GraphRAG index (the next index run asks the model again)")
    p.add_argument("action", choices=["clear"])
    p.add_argument("--collection", default=None, help="only this collection (default: every collection)")

    p = add("export", "export the GraphRAG index: tables as Parquet or CSV, the entity graph as GraphML")
    p.add_argument("--format", default="parquet", choices=["parquet", "csv"])
    p.add_argument("--out", default="graph-export", help="output folder (default: %(default)s)")
    add_collection(p)

    # -- evaluation (core/evaluation) --
    p = add("eval", "evaluate retrieval modes on a question set; print per-mode aggregates")
    p.add_argument("questions", help="question set JSON (see data/README.md for the format)")
    p.add_argument("--modes", default="plain,hierarchical,hybrid,default",
                   help="comma-separated modes among plain, hierarchical, contextual, fulltext, hybrid, default "
                        "(default runs exactly what `ask` and the Compare page run; default: %(default)s)")
    p.add_argument("--k", type=int, default=4, help="hits per question (default: %(default)s)")
    p.add_argument("--limit", type=int, default=None, help="only the first N questions")
    p.add_argument("--out", default=None, help="write the full run: JSON, or CSV when the name ends in .csv")
    p.add_argument("--judge", action="store_true", help="judge answer pairs with the configured LLM (needs a key)")
    p.add_argument("--judge-pairs", default="baseline", choices=["baseline", "all"],
                   help="judge every mode against plain (baseline) or every pair (all)")
    p.add_argument("--no-store", action="store_true", help="do not store the run in the database")
    add_collection(p)

    p = add("generate-questions", "build a question set from the structure of markdown files (no database)")
    p.add_argument("paths", nargs="+", help="markdown files or folders")
    p.add_argument("--out", default=None, help="write the set here (default: print it on stdout)")
    p.add_argument("--limit", type=int, default=None, help="at most N questions, spread over the documents")
    p.add_argument("--max-answer-elements", type=int, default=3,
                   help="drop answers that occur in more elements than this (default: %(default)s)")

    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, stream=sys.stderr,
                        format="%(levelname)s %(name)s: %(message)s")
    if not args.verbose:
        # The pool logs each failed reconnection; the command ends with one clear message instead.
        logging.getLogger("psycopg.pool").setLevel(logging.ERROR)
    import psycopg

    from core.db.urls import DatabaseError, connection_lost, unavailable_message
    from core.graph.llm_cache import LLMCallError
    from core.llm import LLMError
    from core.store import StoreError, validate_collection_name

    try:
        if getattr(args, "collection", None) is not None:
            # Before any database or model work: a look-alike name must not even start the server.
            args.collection = validate_collection_name(args.collection)
        return _COMMANDS[args.command](args)
    except (StoreError, DatabaseError, ValueError) as exc:
        return fail(str(exc))
    except (LLMError, LLMCallError) as exc:  # the model failed for good: its classified, key-free message
        return fail(str(exc), 1)
    except psycopg.Error as exc:  # the same words as ingest when the server went away, never a traceback
        if connection_lost(exc):
            return fail(unavailable_message(exc, _configured_database_url()))
        return fail(f"the database refused the request: {type(exc).__name__}: {str(exc).strip().splitlines()[0]}")
    except KeyboardInterrupt:
        return fail("interrupted", 130)
