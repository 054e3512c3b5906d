"""A list of the things that have something ("List the monitors with USB-C", "USB-C가 있는 모니터를 모두"): the
thing had is the attribute read of every entity stating it, found through the statement tier's facts, and the
answer names those whose value says they have it.

The end-to-end test runs on the real embedded Postgres with the bundled offline embedder.
"""

from __future__ import annotations

import pytest

from core.answering import compare
from core.answering.table import build_table
from core.ingest import SourceFile, ingest
from core.ingest.tiers import sync_tiers
from core.retrieval import RetrievalRequest
from core.retrieval.shape import question_shape

# The name had titles two of the sheets, so every element of those two matches it in words: the entities must come
# from the sheets that state it, not from a search for it.
SHEETS = {
    "a.md": "# Lumo A1 Desk Lamp with USB-C\n## Specifications\n### Ports\n* USB-C : 1 (20 W charging)\n"
            "* Mains : 230 V\n\nThe A1 lights a whole desk.\n",
    "b.md": "# Lumo B2 Floor Lamp\n## Specifications\n### Ports\n* USB-C : X\n* Mains : 230 V\n\n"
            "The B2 stands in a corner.\n",
    "c.md": "# Lumo C3 Reading Lamp with USB-C\n## Specifications\n### Ports\n* USB-C : 2 (one for data)\n"
            "* Mains : 110-230 V\n\nThe C3 clips to a shelf.\n",
    "d.md": "# Lumo D4 Wall Lamp\n## Specifications\n### Ports\n* USB-C : 없음\n* Mains : 230 V\n\n"
            "The D4 hangs on a wall.\n",
    "guide.md": "# Lamp Setup Guide\n## Charging a Phone\n* Connect the phone to the lamp's USB-C port.\n"
                "* USB-C charging stops when the lamp is dimmed below 10%.\n",
}


@pytest.mark.parametrize("question, had", [
    ("List the lamps with USB-C", "USB-C"),
    ("Which lamps have USB-C?", "USB-C"),
    ("Which monitors support HDR10?", "HDR10"),
    ("USB-C가 있는 램프를 모두 알려줘", "USB-C"),
    ("HDR10을 지원하는 모니터는 어떤 것인가요?", "HDR10"),
    # a thing had that is no name: the words closing the question after the verb
    ("Which monitors have built-in speakers?", "built-in speakers"),
    ("List the lamps with a dimmer", "dimmer"),
    # a Korean relative clause closing the question on the class asked for, without 모든 or 어떤
    ("USB-C를 지원하는 램프는?", "USB-C"),
    ("스피커가 있는 모니터는?", "스피커"),
])
def test_a_list_of_things_having_a_name_reads_that_name_as_what_is_had(question, had):
    shape = question_shape(question)
    assert shape is not None and shape.kind == "list" and shape.having == had and had not in shape.parts


@pytest.mark.parametrize("question", [
    "List the weight of every lamp",
    "Which version has the fix for USB-C?",  # one thing asked: no plural class, no list word
    "What is the USB-C power of the A1?",
    "Which is lighter, the A1 or the B2?",
    "How many monitors have speakers?",  # a count, not a list
    "What lamps come with a dimmer?",  # "with" lists only after a list word
    "HDMI를 지원하는 모니터의 최대 주사율은?",  # the clause names the thing whose attribute is asked
    "노트북을 연결하고 충전할 수 있는 모델은?",  # 수 있는: "can", nothing had
])
def test_other_questions_have_nothing_had(question):
    shape = question_shape(question)
    assert shape is None or shape.having == ""


def test_the_lamps_with_usb_c_are_those_whose_sheet_says_so_each_cited(store):
    report = ingest(store, [SourceFile(n, t.encode()) for n, t in SHEETS.items()])
    assert not report.errors, report.errors
    sync_tiers(store)
    question = "List the lamps with USB-C"
    answer = compare(store, RetrievalRequest(question, k=4))
    table = build_table(question, answer.hierarchical.context)
    assert table is not None
    labels = sorted(r.entity for r in table.rows)
    assert labels == sorted(t.splitlines()[0][2:] for n, t in SHEETS.items() if n != "guide.md"), labels
    picked = {r.entity for r in table.picked}
    assert picked == {"Lumo A1 Desk Lamp with USB-C", "Lumo C3 Reading Lamp with USB-C"}
    text = answer.hierarchical.answer.text
    first = text.splitlines()[0]
    assert first.startswith("With USB-C:") and "Lumo A1" in first and "Lumo C3" in first
    assert "Lumo B2" not in first and "Lumo D4" not in first  # "X" and "없음" say the lamp has none
    assert all(f"[e:{r.short_id}]" in first for r in table.picked)


def test_an_ingest_asked_for_the_tiers_answers_the_list_with_nothing_else_run(store):
    # What the app's "Ingest the samples" asks for: the tiers built by the first ingest, not by a later `core index`.
    from core.ingest.tiers import tiers_built

    sources = [SourceFile(n, t.encode()) for n, t in SHEETS.items()]
    plain = ingest(store, sources[:1])
    assert not tiers_built(store) and plain.tiers_seconds == 0, "a plain ingest builds no tiers"
    report = ingest(store, sources, statement_tiers=True)
    assert not report.errors and not report.warnings, report.warnings
    assert tiers_built(store) and report.tiers_seconds > 0
    first = compare(store, RetrievalRequest("List the lamps with USB-C", k=4)).hierarchical.answer.text.splitlines()[0]
    assert first.startswith("With USB-C:") and "Lumo A1" in first and "Lumo C3" in first and "Lumo B2" not in first



@pytest.fixture(scope="module")
def samples_with_tiers(db_url):
    """The samples as "Ingest the samples" leaves them: statement tiers built (their embeddings are cached)."""
    from core.embeddings import make_embeddings
    from core.ingest import ingest_paths
    from core.store import ElementStore
    from tests.conftest import SAMPLES

    s = ElementStore(db_url, "samples-tiers", make_embeddings("use"))
    report = ingest_paths(s, [SAMPLES], statement_tiers=True)
    assert not report.errors, report.errors
    return s


@pytest.mark.parametrize("question", ["Which monitors support USB-C?", "USB-C를 지원하는 모니터는?"])
def test_the_verb_of_a_list_question_is_not_the_key_read(samples_with_tiers, question):
    # "support" is also 지원, the Korean sheets' "지원 색 깊이" (supported colour depth): read as the key, it was
    # the 34WC's best row and its USB-C row never reached the context
    text = compare(samples_with_tiers, RetrievalRequest(question)).hierarchical.answer.text
    first = text.splitlines()[0]
    assert first.startswith("With USB-C:"), text
    assert "34WC" in first and "32UX" in first and "24FL" not in first and "27QX" not in first, first


def test_a_list_in_one_language_finds_the_sheets_of_the_other(samples_with_tiers):
    # the Korean question's hits are the Korean sheets; the English sheet states "Speakers : 5 W x 2", found by the
    # key as the collection writes it in the other script
    answer = compare(samples_with_tiers, RetrievalRequest("스피커가 있는 모니터는?")).hierarchical.answer
    first = answer.text.splitlines()[0]
    assert first.startswith("With 스피커:"), first
    assert all(m in first for m in ("27QX", "34WC", "32UX")) and "24FL" not in first, first
