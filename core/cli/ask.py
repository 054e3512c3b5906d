"""``python -m core ask``: one question answered from the plain and the hierarchical context of the same hits."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from core.cli.arguments import add_collection, add_command, whole_number
from core.cli.console import emit, fail
from core.retrieval.strategies import describe_choices, search_choices

if TYPE_CHECKING:
    import numpy as np


def register(sub: argparse._SubParsersAction) -> None:
    p = add_command(sub, "ask", "answer a question from the plain and the hierarchical context of the same hits",
                    cmd_ask)
    p.add_argument("question")
    p.add_argument("--mode", default="both", choices=["plain", "hierarchical", "both"])
    p.add_argument("--k", type=whole_number(1, ""), default=4, help="vector hits (default: %(default)s)")
    p.add_argument("--scope", default=None, help="search only inside this document id or element (heading) id")
    choices = search_choices()
    p.add_argument("--search", default=choices[0], choices=choices, help=describe_choices(choices))
    p.add_argument("--everywhere", action="store_true",
                   help="do not scope the search to the headings the question names")
    p.add_argument("--children-budget", type=whole_number(0, " of tokens"), default=None,
                   help="tokens a heading hit brings from its own section (default: 200; 0 = none)")
    p.add_argument("--as-of", default=None, metavar="DATE",
                   help="search each document's version in force on DATE (YYYY-MM-DD or ISO 8601 with an offset)")
    p.add_argument("--conversation", default=None, metavar="ID",
                   help="keep this question as a turn of conversation ID and resolve it as a follow-up of its turns")
    add_collection(p)


def cmd_ask(args: argparse.Namespace) -> int:
    from core.retrieval import QuestionError, validate_question

    try:
        question = validate_question(args.question)
    except QuestionError as exc:
        return fail(str(exc))  # exit 2 before the database is started or the model loaded
    if args.children_budget is not None and args.children_budget < 0:
        return fail(f"--children-budget must be 0 or more tokens, got {args.children_budget}")
    from core.versions import parse_date

    as_of = parse_date(args.as_of, what="--as-of")[0] if args.as_of is not None else None
    if args.conversation is not None:
        from core.cli.conversations import checked_conversation_id

        args.conversation = checked_conversation_id(args.conversation)

    from core.answering import compare, default_answerer
    from core.answering.changes import answer_change_question
    from core.retrieval import RetrievalRequest, resolve_scope
    from core.store import open_store

    store = open_store(args.collection, create=False)
    changes = answer_change_question(store, question) if as_of is None and args.conversation is None else None
    if changes is not None:  # "what changed …": answered from the stored diffs, not from a search
        head = "answered from the stored diffs (no search" + (f"; summary by {changes.summary.model})"
                                                              if changes.summary else ", no model)")
        summary = f"{changes.summary.text}\n\n" if changes.summary else ""
        error = f"summary: {changes.summary_error}\n\n" if changes.summary_error else ""
        emit(changes.as_dict(), args.json, f"{head}\n\n{summary}{error}{changes.text}")
        return 0
    scope, answerer = resolve_scope(store, args.scope), default_answerer()
    modes = ("plain", "hierarchical") if args.mode == "both" else (args.mode,)

    def request_for(text: str, query_vector: np.ndarray | None = None) -> RetrievalRequest:
        return RetrievalRequest(text, k=args.k, scope=scope, search=args.search, everywhere=args.everywhere,
                                children_budget=args.children_budget, as_of=as_of, query_vector=query_vector)

    search = request_for(question).config
    turn = None
    if args.conversation is not None:
        from core.conversation import ConversationDateError, start_turn
        from core.llm import configured_chat_model

        try:  # a turn reads its conversation's date; with an LLM, a rewrite is checked against the slots
            pending = start_turn(store, args.conversation, question, as_of=as_of, model=configured_chat_model())
        except ConversationDateError as exc:
            return fail(str(exc))
        as_of = pending.as_of  # request_for reads it
        request = request_for(pending.resolution.understood_as, pending.query_vector)  # embedded once, by the turn
        turn = pending.finish(compare(store, request, answerer=answerer, modes=modes))
        result = turn.result
    else:
        result = compare(store, request_for(question), answerer=answerer, modes=modes)
    payload = {**result.to_dict(details=False), "search": result.search,
               "as_of": as_of.date().isoformat() if as_of is not None and args.as_of is None else args.as_of,
               "provenance": result.provenance}
    lines = [f"question: {result.question}", f"answerer: {result.answerer}",
             f"search: {search.name} ({search.describe()})", *result.search["notes"]]
    if turn is not None:
        payload = {**payload, "question": question, "conversation": args.conversation, **turn.as_dict()}
        lines[0] = f"question: {question}"
        lines += [f"conversation {args.conversation}, turn {turn.number} (episode {turn.episode})",
                  f"understood as: {turn.resolution.understood_as}"]
        carried = {k: v for k, v in turn.resolution.memory.items() if k in ("entity", "attribute")}
        lines += ["carried over: " + ", ".join(f"{k} {v!r}" for k, v in carried.items())] if carried else []
        lines += [turn.resolution.notice] if turn.resolution.notice else []
    lines += [f"as of {as_of.date().isoformat()}"] if as_of is not None else []
    where = {p["element_id"]: p for p in result.provenance}
    for mode in modes:
        r = result.results[mode]
        timings = ", ".join(f"{k} {v:.1f} ms" for k, v in r.timings.items())
        lines += ["", f"== {mode} ({r.context.tokens} context tokens; {timings})"]
        lines += [r.answer.text] if r.answer.text else []
        lines += [f"error: {r.answer.error}"] if r.answer.error else []
        lines += [f"  [{'cited' if s.cited else 'hit'}] {s.element_id}  {' › '.join(s.heading_path) or '-'}"
                  + _provenance_words(where.get(s.element_id)) for s in r.sources]
        lines += ["-- context --", r.context.text]
    emit(payload, args.json, "\n".join(lines))
    return 1 if any(result.results[m].answer.error for m in modes) else 0


def _provenance_words(found: dict[str, object] | None) -> str:
    if not found or found.get("version") is None:
        return ""
    valid_from = str(found["valid_from"])[:10] + (f" [{found['label']}]" if found.get("label") else "")
    return f"  ({found['filename']} v{found['version']}, valid from {valid_from}, key {found['key']})"
