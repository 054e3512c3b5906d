"""``python -m core …``: the command line over the same library the app uses.

Every command that reports takes ``--json`` and then prints exactly one JSON document on stdout; progress
and warnings go to stderr. Exit status: 0 ok, 1 some files or items failed, 2 usage or setup error.

One module per domain (:mod:`~core.cli.db`, :mod:`~core.cli.corpus`, :mod:`~core.cli.ask`, :mod:`~core.cli.graph`,
:mod:`~core.cli.evaluation`, :mod:`~core.cli.versions`) adds its subcommands in ``register`` and holds their
handlers; this module only parses and turns the library's errors into one line and an exit status.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence

from core.cli import ask, conversations, corpus, db, evaluation, graph, versions
from core.cli.console import configured_database_url, fail

__all__ = ["build_parser", "main"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m core", description="Hierarchical Knowledge Explorer")
    parser.add_argument("-v", "--verbose", action="store_true", help="log progress to stderr")
    sub = parser.add_subparsers(dest="command", required=True)
    for domain in (db, corpus, versions, ask, conversations, graph, evaluation):  # the order of `python -m core --help`
        domain.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, stream=sys.stderr,
                        format="%(levelname)s %(name)s: %(message)s")
    if not args.verbose:
        # The pool logs each failed reconnection; the command ends with one clear message instead.
        logging.getLogger("psycopg.pool").setLevel(logging.ERROR)
    from core.store import validate_collection_name

    try:
        if getattr(args, "collection", None) is not None:
            # Before any database or model work: a look-alike name must not even start the server.
            args.collection = validate_collection_name(args.collection)
        return args.handler(args)
    except KeyboardInterrupt:
        return fail("interrupted", 130)
    except Exception as exc:  # noqa: BLE001  (classified below; anything else is re-raised)
        return _failure(exc)


def _failure(exc: Exception) -> int:
    """The library's errors as one line and an exit status. The classes are imported here, once something failed,
    so that a usage error is answered without loading the database driver, the models or the graph."""
    from core.store import StoreError

    if isinstance(exc, (StoreError, ValueError)):
        return fail(str(exc))
    import psycopg

    from core.graph.llm_cache import LLMCallError
    from core.llm import LLMError
    from core.store.database import DatabaseError, connection_lost, element_table_gone, unavailable_message
    from core.text import first_line

    if isinstance(exc, DatabaseError):
        return fail(str(exc))
    if isinstance(exc, (LLMError, LLMCallError)):  # the model failed for good: its classified, key-free message
        return fail(str(exc), 1)
    if isinstance(exc, psycopg.Error):  # the same words as ingest when the server went away, never a traceback
        if connection_lost(exc):
            return fail(unavailable_message(exc, configured_database_url()))
        if element_table_gone(exc):
            return fail("a collection this command was reading was dropped meanwhile (by another process): "
                        "`python -m core collections` lists the ones there are")
        return fail(f"the database refused the request: {type(exc).__name__}: {first_line(exc)}")
    raise exc
