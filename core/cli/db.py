"""``python -m core db …`` and ``migrate``: the database server itself, and moving a database from the old layout."""

from __future__ import annotations

import argparse
from dataclasses import asdict

from core.cli.arguments import add_command
from core.cli.console import emit
from core.config import load_settings


def register(sub: argparse._SubParsersAction) -> None:
    p = add_command(sub, "db", "embedded database: status, URL (password redacted) or stop", cmd_db)
    p.add_argument("action", choices=["status", "url", "stop"])
    p.add_argument("--show-password", action="store_true", help="with url: print the password too")
    add_command(sub, "migrate",
                "move a database from the layout before issue 14 (langchain_pg_* tables); vectors are copied",
                cmd_migrate)


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
    payload = asdict(db.status(settings))
    lines = [f"{k}: {v}" for k, v in payload.items() if k != "read_replicas"]
    lines += [f"read replica {r['url']}: " + (r["error"] if "error" in r else
              f"serves reads, {r.get('behind_bytes', '?')} bytes behind the primary, last replayed transaction "
              f"{r.get('last_replay_s_ago')} s ago") for r in payload["read_replicas"]]
    emit(payload, args.json, "\n".join(lines))
    return 0


def cmd_migrate(args: argparse.Namespace) -> int:
    from core.db import database_url
    from core.store.migrate import migrate

    report = migrate(database_url())
    rows = {"collections": [{"name": c.name, "id": str(c.collection_id), "elements": c.elements}
                            for c in report.collections],
            "links": report.links, "dropped_old_tables": report.dropped_old_tables}
    emit(rows, args.json, report.summary())
    return 0
