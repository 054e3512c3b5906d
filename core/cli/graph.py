"""``python -m core index | reports | global | cache | export``: the GraphRAG index of a collection."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from core.cli.arguments import add_collection, add_command, price
from core.cli.console import emit, fail, progress_bar
from core.config import load_settings

if TYPE_CHECKING:
    from core.store import ElementStore


def register(sub: argparse._SubParsersAction) -> None:
    p = add_command(sub, "index", "build the GraphRAG index: entities, communities, reports (offline unless a model "
                                  "is set)", cmd_index)  # fmt: skip
    add_collection(p)
    p.add_argument("--offline", action="store_true", help="no LLM even if one is configured")
    p.add_argument("--unit-tokens", type=int, default=None, help="text unit size in tokens (default: 600)")
    p.add_argument("--max-cluster-size", type=int, default=None, help="Leiden max cluster size (default: 10)")
    p.add_argument("--seed", type=int, default=None, help="Leiden seed (default: 0xDEADBEEF)")
    p.add_argument("--gleanings", type=int, default=None, help="LLM gleaning rounds (default: 1)")
    p.add_argument("--concurrency", type=int, default=None,
                   help="parallel LLM calls (default: HKE_LLM_CONCURRENCY: 1 for a server on this machine, else 4)")
    p.add_argument("--estimate", action="store_true",
                   help="print the LLM calls, tokens and cost an LLM index run would take, and stop")
    p.add_argument("--price-in", type=price, default=None,
                   help="US$ per 1M input tokens for the estimate (default: $HKE_PRICE_IN_PER_M or 0.15)")
    p.add_argument("--price-out", type=price, default=None,
                   help="US$ per 1M output tokens for the estimate (default: $HKE_PRICE_OUT_PER_M or 0.60)")
    p.add_argument("--yes", action="store_true", help="run an LLM index without asking to confirm its estimate")
    p.add_argument("--tiers-only", action="store_true",
                   help="only build (or bring up to date) the statement, topic and fact tiers, offline; no GraphRAG")

    p = add_command(sub, "reports", "list community reports", cmd_reports)
    p.add_argument("--level", type=int, default=None, help="community level (default: all)")
    p.add_argument("--kind", default="entity", choices=["entity", "structural"])
    p.add_argument("--full", action="store_true", help="print each report in full")
    add_collection(p)

    p = add_command(sub, "global", "answer a question from the community reports of one level (map-reduce)",
                    cmd_global)
    p.add_argument("question")
    p.add_argument("--level", type=int, default=None, help="community level (default: 1, or the finest there is)")
    p.add_argument("--kind", default="entity", choices=["entity", "structural"])
    p.add_argument("--offline", action="store_true", help="extractive answer even if a model is configured")
    add_collection(p)

    p = add_command(sub, "cache", "clear the LLM response cache of the GraphRAG index (the next index run asks the "
                                  "model again)", cmd_cache)  # fmt: skip
    p.add_argument("action", choices=["clear"])
    p.add_argument("--collection", default=None, help="only this collection (default: every collection)")

    p = add_command(sub, "export", "export the GraphRAG index: tables as Parquet or CSV, the entity graph as GraphML",
                    cmd_export)
    p.add_argument("--format", default="parquet", choices=["parquet", "csv"])
    p.add_argument("--out", default="graph-export", help="output folder (default: %(default)s)")
    add_collection(p)


def cmd_index(args: argparse.Namespace) -> int:
    from core.graph import GraphIndexError, IndexConfig, build_index
    from core.store import open_store

    store = open_store(args.collection, create=False)
    uses_llm = not args.offline and load_settings().has_llm
    if args.tiers_only and not args.estimate:
        return _build_tiers(store, args)  # offline: no estimate to confirm
    if not args.estimate and not uses_llm:
        _build_tiers(store, args)
    knobs = {"unit_tokens": args.unit_tokens, "max_cluster_size": args.max_cluster_size, "seed": args.seed,
             "gleanings": args.gleanings, "concurrency": args.concurrency}
    config = IndexConfig(
        extraction="offline" if args.offline else "auto",
        reports="extractive" if args.offline else "auto",
        **{k: v for k, v in knobs.items() if v is not None},
    )
    # Issue 13: an LLM run is estimated first (calls, tokens, cost) and needs a yes; --estimate only prints it.
    if args.estimate or uses_llm:
        from core.graph.indexing.estimate import estimate_index_cost

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
    if uses_llm:  # confirmed: the tiers with the model's topic names, then the index
        _build_tiers(store, args, llm=True)
    try:
        with progress_bar("index", unit="step") as bar:
            report = build_index(store, config=config, progress=bar)
    except GraphIndexError as exc:
        return fail(str(exc), 1)
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
        "llm_units": report.llm_units,
        "fallback_units": report.fallback_units,
        "fallback_reports": report.fallback_reports,
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
    if report.extraction == "llm" or report.llm_reports or report.fallback_reports:
        text += (f"\nmodel fallbacks: {report.fallback_units} of {report.llm_units + report.fallback_units} text "
                 f"units used the offline extractor; {report.fallback_reports} of "
                 f"{report.llm_reports + report.fallback_reports} reports are extractive")
    emit(payload, args.json, text)
    return 0


def _build_tiers(store: ElementStore, args: argparse.Namespace, *, llm: bool = False) -> int:
    """The statement tiers (issue 31), incremental: only element rows no build has read yet; ``llm``: new topics are
    named by the configured model (the HLG topic prompt, cached)."""
    from core.ingest.tiers import sync_tiers
    from core.llm.client import configured_chat_model

    sync = sync_tiers(store, chat_model=configured_chat_model() if llm else None)
    if args.tiers_only:
        emit(sync.as_dict(), args.json, f"statement tiers of {store.collection!r}: {sync.describe()}")
    else:
        print(f"statement tiers: {sync.describe()}", file=sys.stderr)
    return 0


def cmd_reports(args: argparse.Namespace) -> int:
    from core.graph import GraphIndex, GraphIndexMissing
    from core.graph.read import check_level
    from core.store import open_store

    try:
        index = GraphIndex.open(open_store(args.collection, create=False))
    except GraphIndexMissing as exc:
        return fail(str(exc), 1)
    if args.level is not None:
        check_level(index.levels(args.kind), args.level, args.kind)
    reports = index.reports(level=args.level, kind=args.kind)
    lines = []
    for r in reports:
        tag = "" if r.generated_by == "llm" else " [extractive]"
        lines.append(f"{r.community_id}  L{r.level} {r.kind}  rating {r.rating:g}  size {r.size}{tag}  {r.title}")
        if args.full:
            lines += ["", r.full_content, ""]
    emit([r.to_dict() for r in reports], args.json, "\n".join(lines) or "no reports at that level and kind")
    return 0


def cmd_global(args: argparse.Namespace) -> int:
    from core.retrieval import QuestionError, validate_question

    try:
        question = validate_question(args.question)
    except QuestionError as exc:
        return fail(str(exc))  # exit 2 before the database is started or the model loaded
    from core.graph import GlobalSearchOptions, global_search, index_exists
    from core.store import open_store

    store = open_store(args.collection, create=False)
    if not index_exists(store):
        return fail(f"collection {args.collection!r} has no GraphRAG index yet: run `python -m core index` first", 1)
    options = GlobalSearchOptions(level=args.level, kind=args.kind, use_llm="extractive" if args.offline else "auto")
    answer = global_search(store, question, options)
    text = (
        (f"({answer.notice})\n\n" if answer.notice else "")
        + f"{answer.answer}\n\n-- {answer.generated_by}; level {answer.level} {answer.kind}; "
        f"{answer.reports_considered} reports read; cites {', '.join(answer.report_ids) or 'nothing'}; "
        f"LLM calls {answer.llm_calls} (cached {answer.cached_calls}); {answer.seconds:.2f}s"
    )
    emit(answer.to_dict(), args.json, text)
    return 0


def cmd_cache(args: argparse.Namespace) -> int:
    from core.graph.llm_cache import clear_cache
    from core.store import open_store
    from core.store.database import database_url
    from core.store.graph_tables import clear_every_llm_cache

    if args.collection is not None:
        store = open_store(args.collection, create=False)
        cleared = clear_cache(store.pool, store.collection_id)
    else:
        cleared = clear_every_llm_cache(database_url())
    where = f"collection {args.collection!r}" if args.collection is not None else "every collection"
    emit({"cleared": cleared, "collection": args.collection}, args.json,
         f"cleared {cleared} cached LLM replies from {where}")
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    if not args.out.strip():
        return fail("--out is empty: name the folder to export to (default: graph-export)")
    from core.graph import ExportError, GraphIndexMissing, export_index
    from core.store import open_store

    store = open_store(args.collection, create=False)
    try:
        written = export_index(store, args.out, fmt=args.format)
    except (GraphIndexMissing, ExportError) as exc:
        return fail(str(exc), 1)
    payload = {name: str(path) for name, path in written.items()}
    emit(payload, args.json, "\n".join(f"{name}: {path}" for name, path in payload.items()))
    return 0
