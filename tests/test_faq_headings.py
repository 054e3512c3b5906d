"""An FAQ's question asked in other words finds the FAQ entry by meaning (core/retrieval/faq_headings.py)."""

from __future__ import annotations

import pytest

from core.retrieval import RetrievalRequest, retrieve
from core.retrieval.faq_headings import faq_heading_match, question_headings
from core.retrieval.heading_cache import heading_index
from core.retrieval.search import embed_query
from core.retrieval.stages import HeadingScopeConfig
from tests.helpers_context import answer_of, ingested_store

GUIDE = """\
# Lumo desk lamp

## Specifications

* Brightness : 800 lm
* Smartphone app : Lumo Home (iOS, Android)
* Cable : USB-C, 1.5 m

## Troubleshooting

Most problems go away after a restart: hold the power button for ten seconds.

## FAQ

### Why does the lamp blink red?

The battery is below 10 %. Plug the charger in until the light turns green.

### How do I pair the lamp with my phone?

Hold the power button for five seconds, then choose Lumo in the app's device list.

### Can I charge my phone from the lamp?

Yes: the USB-C port on the base gives 10 W to a phone while the lamp is on.

### Is the lamp waterproof?

No. Keep it away from water and wipe it with a dry cloth.
"""


@pytest.fixture(scope="module")
def lamp_store(db_url, tmp_path_factory):
    store = ingested_store(db_url, tmp_path_factory.mktemp("lamp"), {"lamp.md": GUIDE})
    yield store
    store.drop()


@pytest.mark.parametrize("question", ["how do I connect my phone to the lamp over bluetooth?",
                                      "my phone won't find the lamp, how do I link them?"])
def test_an_faq_question_asked_in_other_words_is_answered_from_its_entry(lamp_store, question):
    # The words ("phone", "lamp") name the charging entry as well as the pairing one; the embedder reads which
    # question is asked, and the entry's heading leads the hits, bringing its answer.
    result = retrieve(lamp_store, RetrievalRequest(question, k=4))
    assert result.searched_under == "Lumo desk lamp › FAQ › How do I pair the lamp with my phone?", result.notes
    assert result.hits[0].element.page_content == "How do I pair the lamp with my phone?"
    answer = answer_of(lamp_store, question)
    assert "choose Lumo in the app's device list" in answer and "10 W" not in answer, answer


def test_a_reply_opening_an_faq_answer_is_no_field_name():
    from core.statements import statement

    assert statement(frozenset({"phone"}), "Yes: the USB-C port on the base gives 10 W to a phone.") is None
    assert statement(frozenset({"cable"}), "Cable : USB-C, 1.5 m") == ("Cable", "USB-C, 1.5 m")


def test_a_question_no_faq_entry_asks_leaves_the_word_match_alone(lamp_store):
    index = heading_index(lamp_store)
    assert len(question_headings(index)) == 4, "only the headings written as questions"
    floor = HeadingScopeConfig().faq_floor
    assert faq_heading_match(lamp_store, index, embed_query(lamp_store, "what is the max brightness"), floor) is None
    found = faq_heading_match(lamp_store, index, embed_query(lamp_store, "lamp flashes red, what does it mean"), floor)
    assert found is not None and found.headings[0].text == "Why does the lamp blink red?"
    assert faq_heading_match(lamp_store, index, embed_query(lamp_store, "lamp flashes red"), 1.01) is None
    assert "800 lm" in answer_of(lamp_store, "what is the max brightness")


def test_asked_how_the_faq_entry_asking_it_is_the_scope_over_a_value_elsewhere(samples_store):
    # "Q. 펌웨어는 어떻게 업데이트하나요?" answers in prose; the 32UX sheet's "Current firmware : 1.08" states a value
    # holding the asked word, which made the scope chooser pass the FAQ entry over as stating nothing asked
    found = retrieve(samples_store, RetrievalRequest("how do I update the firmware?"))
    match = found.heading_match
    assert match is not None and "펌웨어는 어떻게 업데이트하나요" in match.label, found.notes
    assert any("Nova Flash" in e.text for e in found.hierarchical.elements), found.notes
