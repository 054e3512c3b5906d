"""The Compare page as a conversation, under Streamlit's AppTest against the real database and the samples: turns
stacked with both columns, "Understood as" with a one-click "ask as typed", the id in the URL (a reload keeps it,
a bad one starts a new conversation), a conversation as of a date, the bounded memory said, hostile turns as text."""

from __future__ import annotations

import re
import uuid
from datetime import UTC, datetime, timedelta

import pytest

from core.store.conversations import ConversationTables

from .helpers_pages import unescape, walk
from .test_compare_page import ask, compare_page, markdown_bodies

pytestmark = pytest.mark.usefixtures("samples_store")


def _page(conversation: str | None = None):
    at = compare_page("samples")
    if conversation is not None:
        at.query_params["conversation"] = conversation
    return at.run()


def _captions(at) -> list[str]:
    return [unescape(c.value) for c in at.caption]


def _bodies(at) -> str:
    return " ".join(unescape(b) for b in markdown_bodies(at))


def _button(at, label: str, nth: int = 0):
    return [b for b in at.button if getattr(b, "label", None) == label][nth]


def _url_id(at) -> str:
    value = at.query_params["conversation"]
    return value if isinstance(value, str) else value[0]


def _turns(conversation: str) -> list[dict]:
    from core.db import database_url

    return ConversationTables(database_url(), "samples").turns(conversation)


def test_two_turns_stack_with_understood_as_and_ask_as_typed(samples_store):
    conversation = f"t-{uuid.uuid4().hex[:8]}"
    at = ask(_page(conversation), "How heavy is the Nova 32UX?")
    assert not at.exception and _url_id(at) == conversation
    at = ask(at, "And the 27QX?")
    assert not at.exception
    captions = " ".join(_captions(at))
    assert "Understood as: **Nova 27QX heavy (weight, 무게)** — “How heavy is the Nova 27QX?”" in captions
    assert "attribute carried from turn 1" in captions
    bodies = _bodies(at)
    assert "**Turn 1** · How heavy is the Nova 32UX?" in bodies and "**New turn** · And the 27QX?" in bodies
    assert "5.4 kg" in bodies or "3.9 kg" in bodies, "the follow-up is answered about the 27QX"
    assert f"Conversation `{conversation}` · 2 turn(s)" in captions, "the header counts the turn this run appended"
    at = at.run()  # the rerun: turn 1 with both columns kept, turn 2 in full
    bodies = _bodies(at)
    assert "**Turn 2** · And the 27QX?" in bodies and bodies.count("**Plain**") == 1, "turn 1's two columns"
    _button(at, "Ask as typed").click()
    at = at.run()
    stored = _turns(conversation)
    assert [t["understood_as"] for t in stored] == ["How heavy is the Nova 32UX?", "How heavy is the Nova 27QX?",
                                                     "And the 27QX?"]
    assert stored[2]["carried"] == {}
    assert "Understood as: **27QX** (asked as typed)" in " ".join(_captions(at))


def test_new_conversation_clears_the_turns_and_the_url_keeps_the_id(samples_store):
    conversation = f"n-{uuid.uuid4().hex[:8]}"
    at = ask(_page(conversation), "Nova 24FL의 무게는?")
    assert "**Turn 1** · Nova 24FL의 무게는?" in _bodies(at.run())
    reloaded = _page(conversation)  # a new session on the same link: the stored turn is shown
    assert "**Turn 1** · Nova 24FL의 무게는?" in _bodies(reloaded)
    assert any("The answer kept from an earlier session" in c for c in _captions(reloaded))
    _button(at, "New conversation").click()
    at = at.run()
    fresh = _url_id(at)
    assert fresh != conversation and re.fullmatch(r"c-[0-9a-f]{12}", fresh)
    assert not any("**Turn" in b for b in markdown_bodies(at)) and at.session_state["compare_question"] == ""
    assert any(f"Conversation `{fresh}` · 0 turn(s)" in c for c in _captions(at))
    at = ask(at, "그럼 34WC는?")  # nothing to follow: asked as typed
    assert _turns(fresh)[0]["carried"] == {} and len(_turns(conversation)) == 1


@pytest.mark.parametrize("bad", ["../etc", "x" * 300, "a b", "<script>"])
def test_a_bad_conversation_id_in_the_link_starts_a_new_conversation(bad):
    at = _page(bad)
    assert not at.exception
    assert any("conversation id" in w.value and "a new conversation was started" in w.value for w in at.warning)
    assert re.fullmatch(r"c-[0-9a-f]{12}", _url_id(at))


def test_an_unknown_id_starts_a_new_conversation_under_that_id():
    conversation = f"unknown-{uuid.uuid4().hex[:8]}"
    at = ask(_page(conversation), "What is the resolution of the Nova 24FL?")
    assert not at.exception and [t["turn"] for t in _turns(conversation)] == [1]


def test_a_conversation_as_of_a_date_says_so_and_every_turn_reads_it(samples_store):
    conversation = f"d-{uuid.uuid4().hex[:8]}"
    day = (datetime.now(UTC) + timedelta(days=1)).date()
    at = _page(conversation)
    at.toggle(key="compare_as_of_on").set_value(True).run()
    at.date_input(key="compare_as_of_date").set_value(day).run()
    at = ask(at, "How heavy is the Nova 32UX?")
    at.toggle(key="compare_as_of_on").set_value(False).run()  # the picker off: the conversation keeps its date
    at = ask(at, "And the 27QX?")
    captions = " ".join(_captions(at.run()))
    assert f"as of {day.isoformat()}: every turn reads that date" in captions
    assert "the as-of choice above applies to a new conversation" in captions
    assert at.session_state["comparison"].as_of.date() == day, "the follow-up was read as of the conversation's date"


def test_a_long_conversation_shows_its_last_turns_and_says_what_the_memory_summarised(samples_store):
    conversation = f"long-{uuid.uuid4().hex[:8]}"
    tables = ConversationTables(samples_store.url, "samples")
    tables.ensure_schema()
    for n in range(1000):
        tables.append(conversation, {
            "episode": None, "question": f"question {n}", "understood_as": f"question {n}", "entity": None,
            "attribute": None, "attribute_terms": [], "carried": {}, "answer": f"answer {n}",
            "facts": [{"element_id": "e", "value": "v"}]}, keep=20)
    at = _page(conversation)
    assert not at.exception
    assert any("The last 20 of 1000 turns are shown. The memory is bounded: the facts of the 200 turns before the "
               "last 20 were summarised" in c and "those of the 780 oldest dropped" in c for c in _captions(at))
    assert len(tables.summary(conversation)) == 1  # one entity and attribute: its latest turn's fact
    bodies = [unescape(b) for b in markdown_bodies(at) if b.startswith("**Turn")]
    assert len(bodies) == 20 and bodies[0] == "**Turn 981** · question 980" and bodies[-1].endswith("question 999")


def test_a_hostile_turn_is_text_on_the_page(samples_store):
    conversation = f"h-{uuid.uuid4().hex[:8]}"
    hostile = "<script>alert(1)</script> **bold** ![x](http://127.0.0.1:9/p.png) " + "y" * 1900
    at = ask(_page(conversation), hostile)
    at = ask(at, "And the 27QX?")
    assert not at.exception
    for body in markdown_bodies(at):
        assert not re.search(r"(?<!\\)<script", body), body
        assert not re.search(r"(?<!\\)!\[", body), body
    assert _turns(conversation)[0]["question"] == hostile.strip()
    assert not any(getattr(getattr(e, "proto", None), "allow_html", False) for e in walk(at._tree))


@pytest.mark.parametrize(("rewrite", "asked", "notice"), [
    ("How much does the Nova 27QX weigh?", "How much does the Nova 27QX weigh?",
     "Rewritten by the model; it agrees with the slots (Nova 27QX heavy (weight, 무게))."),
    ("How heavy is the Nova 32UX?", "How heavy is the Nova 27QX?",
     "The model rewrote it as “How heavy is the Nova 32UX?” (Nova 32UX heavy (weight, 무게)), which disagrees with "
     "the slots (Nova 27QX heavy (weight, 무게)): the slots win."),
])
def test_with_an_llm_the_rewrite_is_checked_against_the_slots(monkeypatch, rewrite, asked, notice):
    from core.conversation.rewrite import REWRITE_SYSTEM

    from .test_llm_stub import Stub

    def choose(body: dict) -> dict:
        first = body["messages"][0]["content"]
        return {"reply": rewrite} if first == REWRITE_SYSTEM else {"reply": "An answer [e:00000000]."}

    conversation = f"llm-{uuid.uuid4().hex[:8]}"
    with Stub([], choose) as stub:
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test-NeverShowThis0000")
        monkeypatch.setenv("OPENAI_BASE_URL", stub.base_url)
        monkeypatch.setenv("HKE_CHAT_MODEL", "stub-model")
        at = ask(_page(conversation), "How heavy is the Nova 32UX?")
        at = ask(at, "And the 27QX?")
    assert not at.exception
    rewrites = [r for r in stub.requests if r["body"]["messages"][0]["content"] == REWRITE_SYSTEM]
    assert len(rewrites) == 1, "no rewrite for the first turn, one for the follow-up"
    assert "How heavy is the Nova 32UX?" in rewrites[0]["body"]["messages"][1]["content"]
    assert notice in _captions(at)
    stored = _turns(conversation)[1]
    assert stored["understood_as"] == asked and stored["carried"]["notice"] == notice
    assert at.session_state["comparison"].question == asked
    assert "NeverShowThis" not in _bodies(at)


@pytest.mark.parametrize(("carried", "note"), [
    ({"entity": "Nova 24FL", "episode_cut": 0.7234},
     " · a new episode: the question moved away from the turn before (distance 0.72), whose facts stay behind"),
    ({"attribute": "heavy", "community": {"communities": 3, "facts": 6}},
     " · 6 fact(s) from the nearest of the memory's 3 communities"),
    ({"attribute": "heavy", "facts": []}, ""),
])
def test_understood_as_says_what_the_memory_did_beyond_the_slots(carried, note):
    from views.conversation import memory_note

    assert memory_note(carried) == note
