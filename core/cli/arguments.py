"""Argument conventions shared by the commands: ``--json`` on each, ``--collection``, bounded whole numbers.

Each command module has a ``register(sub)`` that adds its subcommands with these and binds its handler through
``set_defaults(handler=...)``; :func:`core.cli.main` calls ``args.handler(args)``.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

from core.config import DEFAULT_COLLECTION

Handler = Callable[[argparse.Namespace], int]


def add_command(
    sub: argparse._SubParsersAction, name: str, help_text: str, handler: Handler
) -> argparse.ArgumentParser:
    """A subcommand ``name`` run by ``handler``, with ``--json``."""
    parser = sub.add_parser(name, help=help_text, description=help_text)
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    parser.set_defaults(handler=handler)
    return parser


def add_collection(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--collection", default=DEFAULT_COLLECTION, help="corpus name (default: %(default)s)")


def whole_number(minimum: int, what: str) -> Callable[[str], int]:
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



def price(raw: str) -> float:
    """An argparse type: US$ per 1M tokens (the rules of :func:`core.graph.indexing.estimate.check_price`)."""
    from core.graph.indexing.estimate import check_price

    try:
        return check_price(raw, "the price")
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
