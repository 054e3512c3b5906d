"""Compare: a conversation whose every turn is answered from the plain and from the hierarchical context of the same
hits; a follow-up ("And the 27QX?") is resolved against the conversation's memory (``core.conversation``) first.

Thin view over ``core.retrieval`` (the one retrieval pipeline, as ``ask`` and evaluation's ``default`` mode run
it), ``core.answering`` and ``core.conversation``. Document and typed text are untrusted: only ever shown escaped
(``escape_markdown``), as code, or in a dataframe; never as HTML.
"""

from __future__ import annotations

import json

import streamlit as st

from core.answering import Comparison
from core.answering.changes import ChangeAnswer, answer_change_question
from core.conversation import ConversationDateError, PendingTurn, start_turn
from core.llm import configured_chat_model
from core.retrieval import (
    DEFAULT_CHILDREN_BUDGET,
    QuestionError,
    RetrievalRequest,
    compare_choices,
    describe_choices,
    retrieve,
    validate_question,
)
from core.store import StoreError
from core.text import escape_markdown
from views import ui
from views.comparison import run_columns, show_hierarchy_added, show_search, show_statement_path
from views.conversation import (
    conversation_as_of,
    conversation_id,
    keep_answer,
    read_turns,
    show_header,
    show_question,
    show_turn,
    show_understood,
)
from views.versions import as_of_picker, show_change_answer

ui.route_through_app()  # a deep link on a fresh server: drawn through app.py (views/ui.py)

MAX_UI_K = 20

st.title("Compare: plain vs hierarchical")
st.caption("The same question, the same hits, two contexts: the hits alone, or the hits with their heading paths "
           "and sections. See what each answer could know.")
store = ui.require_documents()
collection = ui.current_collection()
ui.warm_embedder(ui.settings().embeddings)  # once per process, so the first question's latency is not a model load
ui.warm_search(collection)


# -- inputs -------------------------------------------------------------------------------------------------


def _use_example() -> None:
    picked = st.session_state.get("compare_example")
    if picked:
        st.session_state["compare_question"] = picked


def _search_everywhere() -> None:
    st.session_state["compare_everywhere"] = True
    st.session_state["compare_rerun"] = True


fingerprint = "|".join(sorted(d.content_hash for d in store.documents()))
examples, examples_from = ui.example_questions(collection, fingerprint)
if examples:
    st.selectbox("Example questions", ["", *examples], key="compare_example", on_change=_use_example,
                 format_func=lambda q: q or f"— pick an example ({examples_from}) —")

# One conversation per browser session, its id in the URL: a reload keeps it.
conversation = conversation_id()
turns, conversation_row = read_turns(store.url, collection, conversation)

# A link's ?q= (and ?search=) asks its question once, as if typed; each question asked is written back, so a
# shared link answers it again (a reload does not ask its conversation's last question twice).
linked = (st.query_params.get("q"), st.query_params.get("search"))
if turns and turns[-1]["question"] == linked[0]:
    st.session_state["_compare_from_url"] = linked
if linked[0] and st.session_state.get("_compare_from_url") != linked:
    st.session_state["_compare_from_url"] = linked
    st.session_state["compare_question"] = linked[0]
    if linked[1] in compare_choices():
        st.session_state["compare_search"] = linked[1]
    st.session_state["compare_rerun"] = True

scope = ui.scope_picker(store, "compare")
when = as_of_picker("compare")  # the end of the chosen day (UTC), or None: the current collection

with st.form("compare_form"):
    question = st.text_area("Question", key="compare_question", height=80,
                            placeholder=f"e.g. {examples[0]}" if examples else "Ask about this collection")
    left, middle, right = st.columns(3)
    searches = compare_choices()
    search_name = left.selectbox("Search", searches, key="compare_search",
                                 help=describe_choices(searches))
    k = middle.slider("k (hits)", 1, MAX_UI_K, 4, key="compare_k")
    budget = right.number_input("Section tokens a heading hit brings (0 = none)", min_value=0, max_value=4000,
                                value=DEFAULT_CHILDREN_BUDGET, step=100, key="compare_budget")
    everywhere = st.checkbox("Search everywhere (ignore the headings the question names)", key="compare_everywhere")
    submitted = st.form_submit_button("Ask", type="primary")
st.caption(f"Collection **{escape_markdown(collection)}** (change it in the sidebar) · scope: "
           f"{escape_markdown(scope.label)}{f' · as of {when.date().isoformat()}' if when else ''}")
rerun = st.session_state.pop("compare_rerun", False)
turn_as_of = conversation_as_of(conversation_row, when)  # a conversation's turns all read its date
# The header is filled after the run, so that its count includes a turn this run appends.
header = st.container()
turns_now = conversation_row["turns"] if conversation_row else 0


# -- run: a turn of this session's conversation ---------------------------------------------------------------


def show_whole(comparison: Comparison) -> None:
    """The last turn's whole comparison: the search, both columns in full, what the hierarchy added, the download."""
    show_search(comparison.search.get("notes", []), [h.as_dict() for h in comparison.hits], None)
    show_statement_path(comparison.search.get("path", []), collection)
    run_columns(None, comparison, collection)
    show_downloads(comparison)


def show_downloads(comparison: Comparison) -> None:
    if {"plain", "hierarchical"} <= set(comparison.results):
        show_hierarchy_added(comparison)
        st.download_button("Download the comparison (JSON)", file_name="comparison.json", mime="application/json",
                           data=json.dumps(comparison.to_dict(), ensure_ascii=False, indent=2))


pending: PendingTurn | None = None
changes: ChangeAnswer | None = None
if submitted or rerun:
    as_typed = st.session_state.pop("compare_as_typed", False)
    try:
        asked = validate_question(question)  # the rules of core.retrieval, shown as a warning, never a traceback
    except QuestionError as exc:
        asked = None
        st.warning(str(exc))  # our own words: no typed text in them
    if asked is not None:
        st.session_state["_compare_from_url"] = (question, search_name)
        ui.set_query_param("q", question)
        ui.set_query_param("search", search_name)
    changes = answer_change_question(store, asked) if asked is not None and turn_as_of is None else None
    if changes is not None:  # "what changed …": the stored diffs answer it, not a search
        show_change_answer(changes, collection)
    elif asked is not None:
        try:  # with an LLM configured, a rewrite is asked and checked against the slots
            pending = start_turn(store, conversation, asked, as_of=turn_as_of, as_typed=as_typed,
                                 model=configured_chat_model())
        except (ConversationDateError, StoreError) as exc:
            st.error(escape_markdown(str(exc)))

for earlier in turns if pending is not None else turns[:-1]:
    show_turn(collection, conversation, earlier)
if pending is not None:
    resolution, fresh, comparison = pending.resolution, None, None
    with st.container(border=True):
        show_question(None, resolution.question)
        show_understood(None, resolution.question, resolution.understood_as, resolution.slots,
                        {**resolution.carried, "notice": resolution.notice})
        try:
            with st.spinner("Searching…"):
                fresh = retrieve(store, RetrievalRequest(resolution.understood_as, k=int(k), scope=scope,
                                                         children_budget=int(budget), search=search_name,
                                                         everywhere=everywhere, as_of=pending.as_of,
                                                         query_vector=pending.query_vector))
        except QuestionError as exc:  # a day before every version, or a strategy without history: our own words
            st.error(escape_markdown(str(exc)), icon=":material/event_busy:")
        except (ValueError, StoreError) as exc:
            st.error(f"The search failed: {escape_markdown(str(exc))}")
        if fresh is not None and fresh.hits:
            show_search(fresh.notes, [h.as_dict() for h in fresh.hierarchical.hits],
                        _search_everywhere if fresh.searched_under is not None else None)
            show_statement_path([step.as_dict() for step in fresh.path], collection)
            comparison = run_columns(fresh, None, collection)
        elif fresh is not None:
            st.info("Nothing found in this scope.")
        if fresh is not None:  # answered (or nothing found): the turn is appended; a failed search is not
            turn = pending.finish(comparison)
            turns_now = turn.number
            if comparison is not None:
                keep_answer(collection, conversation, turn.number, comparison)
            st.session_state["comparison"] = comparison
            st.caption(f"Turn {turn.number} of this conversation (episode {turn.episode}).")
    if comparison is not None:
        show_downloads(comparison)
elif turns and changes is None:
    show_turn(collection, conversation, turns[-1], full=show_whole)
elif not submitted and changes is None:
    st.info("Ask a question to see both answers side by side.")
with header:
    show_header(conversation, turns_now, turn_as_of, when)
