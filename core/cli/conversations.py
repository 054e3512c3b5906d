"""``python -m core conversations list|show ID|delete ID``: a collection's conversations, kept by
``python -m core ask … --conversation ID`` (:mod:`core.conversation`)."""

from __future__ import annotations

import argparse

from core.cli.arguments import add_collection, add_command
from core.cli.console import emit, fail


def register(sub: argparse._SubParsersAction) -> None:
    p = add_command(sub, "conversations", "list, show or delete the conversations kept by `ask --conversation`",
                    cmd_conversations)
    p.add_argument("action", choices=["list", "show", "delete"])
    p.add_argument("conversation_id", nargs="?", metavar="ID", help="the conversation (show, delete)")
    add_collection(p)


def checked_conversation_id(raw: str | None) -> str:
    """The id of ``--conversation``/``ID``, checked before any database work (a ``StoreError`` otherwise)."""
    from core.store.conversations import validate_conversation_id

    return validate_conversation_id(raw or "")


def cmd_conversations(args: argparse.Namespace) -> int:
    if args.action != "list":
        if not args.conversation_id:
            return fail(f"`conversations {args.action}` needs the conversation's ID")
        args.conversation_id = checked_conversation_id(args.conversation_id)
    from core.conversation import MemoryConfig
    from core.store import open_store
    from core.store.conversations import ConversationTables

    store = open_store(args.collection, create=False)
    tables = ConversationTables(store.url, store.collection)
    if args.action == "list":
        rows = tables.conversations()
        payload = [{**r, "created_at": r["created_at"].isoformat(), "updated_at": r["updated_at"].isoformat(),
                    "as_of": r["as_of"].isoformat() if r["as_of"] else None} for r in rows]
        lines = [f"{r['conversation_id']}  {r['turns']} turn(s), last {r['updated_at']:%Y-%m-%d %H:%M}"
                 + (f", as of {r['as_of']:%Y-%m-%d}" if r["as_of"] else "") for r in rows]
        emit(payload, args.json, "\n".join(lines) or f"no conversations in {store.collection!r}")
        return 0
    if args.action == "delete":
        deleted = tables.delete(args.conversation_id)
        emit({"conversation_id": args.conversation_id, "deleted": deleted}, args.json,
             f"deleted {args.conversation_id!r} with its turns and memory" if deleted
             else f"no conversation {args.conversation_id!r} in {store.collection!r}")
        return 0 if deleted else 1
    turns = tables.turns(args.conversation_id)
    if not turns:
        return fail(f"no conversation {args.conversation_id!r} in {store.collection!r}", 1)
    from core.conversation import summarise
    from core.llm import configured_chat_model

    config = MemoryConfig()
    keep = config.keep_turns
    forgotten = sum(1 for t in turns if t["facts"] is None)
    as_of = (tables.conversation(args.conversation_id) or {}).get("as_of")
    summary = summarise(tables.summary(args.conversation_id), configured_chat_model()) if forgotten else None
    dropped = max(0, forgotten - config.summary_turns)
    payload = {"conversation_id": args.conversation_id, "memory_turns": keep, "forgotten_turns": forgotten,
               "summarised_turns": forgotten - dropped, "dropped_turns": dropped,
               "summary": {"text": summary.text, "how": summary.how, "lines": [
                   {"entity": line.entity, "attribute": line.attribute, "values": list(line.values),
                    "episodes": list(line.episodes), "elements": list(line.elements)} for line in summary.lines]}
               if summary else None,
               "as_of": as_of.isoformat() if as_of else None,
               "turns": [{**t, "created_at": t["created_at"].isoformat()} for t in turns]}
    lines = [f"conversation {args.conversation_id} ({len(turns)} turn(s))"
             + (f", as of {as_of:%Y-%m-%d}: every turn reads that date" if as_of else "")]
    if summary is not None:
        lines.append(f"memory is bounded (the last {keep} turns): the facts of the {forgotten - dropped} turn(s) "
                     f"before them were summarised ({len(summary.lines)} entity/attribute line(s) of "
                     f"{summary.episodes} episode(s), {summary.how})"
                     + (f", those of the {dropped} oldest dropped" if dropped else "") + "; their text is kept")
        lines += ["summary:", *(f"    {line}" for line in summary.text.splitlines())]
    for t in turns:
        lines += ["", f"[{t['turn']}] (episode {t['episode']}) {t['question']}"]
        if t["understood_as"] != t["question"]:
            lines.append(f"    understood as: {t['understood_as']}")
        carried = {k: v for k, v in (t["carried"] or {}).items() if k in ("entity", "attribute")}
        if carried:
            lines.append("    carried: " + ", ".join(f"{k} {v!r}" for k, v in carried.items()))
        lines.append(f"    answer: {t['answer']}")
    emit(payload, args.json, "\n".join(lines))
    return 0
