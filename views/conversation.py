"""The Compare page as a conversation: one conversation per browser session (its id in the session and in the URL's
``?conversation=``), its earlier turns stacked with both columns, how each turn was understood with a one-click
"ask as typed", and what the bounded memory dropped.

Turn text (the questions, the standalone questions, the stored answers) is typed or document text: shown escaped,
never as HTML.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import datetime
from typing import Any

import streamlit as st

from core.answering import Comparison
from core.conversation import MemoryConfig, Slots, describe
from core.retrieval import MODES
from core.store import StoreError
from core.store.conversations import ConversationTables, validate_conversation_id
from core.text import escape_markdown
from views import ui
from views.comparison import TITLES, answer_markdown

KEY = "compare_conversation"
ANSWERS = "compare_turn_answers"  # (collection, conversation, turn) → the turn's Comparison, both columns
KEEP_ANSWERS = 40  # the session keeps this many turns' comparisons; older turns show their stored answer
SHOWN_TURNS = MemoryConfig().keep_turns


def _new_id() -> str:
    return f"c-{uuid.uuid4().hex[:12]}"


def conversation_id() -> str:
    """This session's conversation: the link's ``?conversation=`` when valid (a reload keeps it; an id not seen
    before starts a new conversation), else a new one; written back to the URL."""
    linked, current = st.query_params.get("conversation"), st.session_state.get(KEY)
    if linked and linked != current:
        try:
            current = validate_conversation_id(linked)
        except StoreError as exc:
            st.warning(f"{escape_markdown(str(exc))}: a new conversation was started.", icon=":material/forum:")
            current = None
    current = current or _new_id()
    st.session_state[KEY] = current
    ui.set_query_param("conversation", current)
    return current


def _start_new() -> None:
    new = _new_id()
    st.session_state[KEY] = new
    st.query_params["conversation"] = new  # before the rerun reads it: the link must not bring the old one back
    st.session_state.pop("comparison", None)
    st.session_state["compare_question"] = ""


def read_turns(store_url: str, collection: str, conversation: str) -> tuple[list[dict[str, Any]], dict | None]:
    """The conversation's last turns (oldest first) and its row (``None`` while it has no turn)."""
    row, turns = ConversationTables(store_url, collection).memory(conversation, SHOWN_TURNS)
    return turns, row


def conversation_as_of(row: dict | None, picked: datetime | None) -> datetime | None:
    """The date a conversation's turns read: its own once it has a turn, else the picker's."""
    return row["as_of"] if row and row["turns"] else picked


def show_header(conversation: str, turns: int, as_of: datetime | None, picked: datetime | None) -> None:
    """The conversation's id, turns (a turn appended in this run included), date and bounded memory, and the
    "New conversation" button."""
    left, right = st.columns([4, 1], vertical_alignment="center")
    words = f"Conversation `{conversation}` · {turns} turn(s)"
    if turns and as_of is not None:
        words += f" · as of {as_of.date().isoformat()}: every turn reads that date"
    # The examples name no thing of one corpus: the same caption shows over every collection.
    left.caption(words + (" · a follow-up such as “And the other one?” or “그럼 가격은?” is read against it"
                          if not turns else ""))
    right.button("New conversation", on_click=_start_new, icon=":material/add_comment:", key="compare_new_conversation")
    if turns and picked != as_of:
        day = as_of.date().isoformat() if as_of else "the current collection"
        st.caption(f"This conversation reads {day}; the as-of choice above applies to a new conversation.")
    config = MemoryConfig()
    if turns > SHOWN_TURNS:
        past = turns - config.keep_turns
        dropped = max(0, past - config.summary_turns)
        st.caption(f"The last {SHOWN_TURNS} of {turns} turns are shown. The memory is bounded: the facts of the "
                   f"{past - dropped} turns before the last {config.keep_turns} were summarised (entity, attribute, "
                   "value, with their episodes and elements; a follow-up about one of those entities carries them)"
                   + (f", those of the {dropped} oldest dropped" if dropped else "")
                   + f". Their questions and answers are kept: `python -m core conversations show {conversation}`.")


def _ask_as_typed(question: str) -> None:
    st.session_state["compare_question"] = question
    st.session_state["compare_as_typed"] = True
    st.session_state["compare_rerun"] = True


def show_understood(turn: int | None, question: str, understood_as: str, slots: Slots, carried: dict) -> None:
    """"Understood as: Nova 27QX 무게 (weight)" with the standalone question, what was carried, the model's notice,
    and a one-click "ask as typed" when the turn was not asked as typed."""
    if understood_as == question and not (carried.get("entity") or carried.get("attribute")):
        st.caption(f"Understood as: **{escape_markdown(describe(slots))}** (asked as typed)")
        if carried.get("notice"):
            st.caption(escape_markdown(carried["notice"]))
        return
    what = ", ".join(k for k in ("entity", "attribute") if carried.get(k))
    source = f" · {what} carried from turn {carried['from_turn']}" if what and carried.get("from_turn") else ""
    source += memory_note(carried)
    left, right = st.columns([4, 1], vertical_alignment="center")
    left.caption(f"Understood as: **{escape_markdown(describe(slots))}** — “{escape_markdown(understood_as)}”"
                 f"{source}")
    right.button("Ask as typed", key=f"compare_as_typed_{turn if turn is not None else 'new'}",
                 on_click=_ask_as_typed, args=(question,), icon=":material/keyboard:",
                 help="Ask the question exactly as typed, with nothing carried from the conversation.")
    if carried.get("notice"):
        st.caption(escape_markdown(carried["notice"]))


def memory_note(carried: dict) -> str:
    """What the memory did beyond the slots: a new episode cut by distance, facts from the nearest community, or
    facts from the summary of the episodes past the memory's bound."""
    if carried.get("episode_cut") is not None:
        return (f" · a new episode: the question moved away from the turn before (distance "
                f"{float(carried['episode_cut']):.2f}), whose facts stay behind")
    note = ""
    community = carried.get("community")
    if isinstance(community, dict) and community.get("communities"):
        note = (f" · {int(community.get('facts', 0))} fact(s) from the nearest of the memory's "
                f"{int(community['communities'])} communities")
    summary = carried.get("summary")
    if isinstance(summary, list) and summary:
        episodes = sorted({int(f.get("episode", 0)) for f in summary if isinstance(f, dict)})
        note += (f" · {len(summary)} fact(s) from the summary of older episode(s) "
                 f"{', '.join(map(str, episodes))}")
    return note


def show_question(turn: int | None, question: str) -> None:
    st.markdown(f"**{f'Turn {turn}' if turn else 'New turn'}** · {escape_markdown(question)}")


def stored_slots(turn: dict[str, Any]) -> Slots:
    return Slots(turn["entity"], turn["attribute"], frozenset(turn["attribute_terms"] or ()))


def kept_answer(collection: str, conversation: str, turn: int) -> Comparison | None:
    return st.session_state.get(ANSWERS, {}).get((collection, conversation, turn))


def keep_answer(collection: str, conversation: str, turn: int, comparison: Comparison) -> None:
    answers = st.session_state.setdefault(ANSWERS, {})
    answers[(collection, conversation, turn)] = comparison
    for key in list(answers)[:-KEEP_ANSWERS]:
        del answers[key]


def show_turn(collection: str, conversation: str, turn: dict[str, Any],
              full: Callable[[Comparison], None] | None = None) -> None:
    """One stored turn: its question, how it was understood, and both columns' answers (``full``: the whole
    comparison drawn by the page, for the last turn); a turn from an earlier session shows its stored answer."""
    with st.container(border=True):
        show_question(turn["turn"], turn["question"])
        show_understood(turn["turn"], turn["question"], turn["understood_as"], stored_slots(turn),
                        turn["carried"] or {})
        comparison = kept_answer(collection, conversation, turn["turn"])
        if comparison is not None and full is not None:
            full(comparison)
        elif comparison is not None:
            for mode, column in zip(MODES, st.columns(2, gap="large"), strict=True):
                result = comparison.results.get(mode)
                column.markdown(f"**{TITLES[mode]}**")
                column.markdown(answer_markdown(result.answer.text) if result and result.answer.text
                                else "*no answer*")
        else:
            st.markdown(answer_markdown(turn["answer"]) or "*no answer*")
            if turn["answer"]:
                st.caption("The answer kept from an earlier session (the hierarchical column's).")
