"""Questions that need two facts, seventh round (issue 31): a later part completed from the first (an elided
qualifier, the pro-form "one"), a pair of words a heading writes run together, "the same day" asked of the date
the part before found, a value a relative clause names asked of in its place, and a bridge's start quoted.

Real embedded Postgres, the bundled offline embedder, small synthetic corpora (and the samples, read only).
"""

from __future__ import annotations

import pytest

from core.answering import ExtractiveAnswerer
from core.retrieval import RetrievalRequest, retrieve
from core.retrieval.named_rows import writes_key
from core.retrieval.parts import asked_of_clause_value, question_parts, referred_value, with_referred_value
from tests.helpers_context import cited

from .test_hlg_multihop3 import _ingest

CONFIG = ("# Config Settings\n\n"
          "#### `fetch-retries`\n\n* Default: 2\n* Type: Number\n\n"
          "The number of times npm will retry a fetch.\n\n"
          "#### `fetch-retry-maxtimeout`\n\n* Default: 60000 (1 minute)\n* Type: Number\n\n"
          "The \"maxTimeout\" config for the retry module to use when fetching packages.\n\n"
          "#### `fetch-retry-mintimeout`\n\n* Default: 10000 (10 seconds)\n* Type: Number\n\n"
          "The \"minTimeout\" config for the retry module to use when fetching packages.\n\n"
          "#### `fetch-timeout`\n\n* Default: 300000 (5 minutes)\n* Type: Number\n\n"
          "The maximum amount of time to wait for HTTP requests to complete.\n\n"
          "#### `logs-max`\n\n* Default: 10\n* Type: Number\n\nThe maximum number of log files to store.\n")
TOOL = ("# Tool history\n\n## 1.4.0 - 2024-03-02\n\nAdd the `report` command\n\n"
        "## 1.3.1 - 2024-01-25\n\nFix loading of local plugins\n\n## 1.3.0 - 2023-11-20\n\nDrop Python 3.7\n")
BACKEND = ("# Backend history\n\n## 2.8.0 - 2024-03-09\n\nSupport PEP 639 license files\n\n"
           "## 2.7.2 - 2024-01-25\n\nFix loading of local plugins\n\n## 2.7.1 - 2023-11-20\n\nUpdate classifiers\n")
ARCHS = ("# Options\n\n## archs\n\nWhich architectures each runner builds by default.\n\n"
         "| Runner | native | auto64 | auto32 |\n| --- | --- | --- | --- |\n"
         "| Linux / Intel 64-bit | x86_64 | x86_64 | i686 |\n| Linux / Arm 64-bit | aarch64 | aarch64 | armv7l¹ |\n\n"
         "## images\n\nThe container image each architecture builds in.\n\n"
         "| Option | Default |\n| --- | --- |\n| image-x86_64 | base_2_28 |\n| image-i686 | base_2_28 |\n"
         "| image-aarch64 | base_2_28 |\n| image-armv7l | base_2_31 |\n")
TARGETS = ("# Platforms\n\n## macOS\n\n### Version compatibility\n\nThe lowest deployment target per arch:\n\n"
           "| Arch | Python version range | Minimum target |\n| --- | --- | --- |\n"
           "| Intel | CPython 3.9-3.11 | 10.9 |\n| Intel | CPython 3.12+ | 10.13 |\n"
           "| AS | CPython or PyPy | 11 |\n| Intel | PyPy 3.9+ | 10.15 |\n")



@pytest.mark.parametrize(("question", "parts"), [
    # the first part's qualifier the later one leaves out is asked of it as well
    ("minimum macos target for cpython 3.9-3.11 on intel and for pypy?",
     ("minimum macos target for cpython 3.9-3.11 on intel?", "minimum macos target for pypy on intel?")),
    # … unless the later part has one of that kind of its own
    ("minimum macos target for cpython 3.9-3.11 on intel and for pypy on arm?",
     ("minimum macos target for cpython 3.9-3.11 on intel?", "minimum macos target for pypy on arm?")),
    # "one" stands for the first part's noun
    ("npm: how long is the max retry timeout compared to the min one, in ms?",
     ("npm: how long is the max retry timeout?", "npm: how long is the min retry timeout, in ms?")),
    # pronouns for the first part's thing: "them" its noun, "it" beside them its subject; "it" alone stays (the
    # subject as often as the noun)
    ("how many log files does npm keep by default and where does it write them?",
     ("how many log files does npm keep by default?", "where does npm write log files?")),
    ("which python versions can black run on, and does it run on pypy?",
     ("which python versions can black run on?", "does it run on pypy?")),
])
def test_a_later_part_is_completed_from_the_first(question, parts):
    assert question_parts(question) == parts


def test_an_option_asked_by_words_it_writes_run_together_is_found_and_answered(store):
    _ingest(store, {"config.md": CONFIG})
    question = "npm: how long is the max retry timeout compared to the min one, in ms?"
    found = retrieve(store, RetrievalRequest(question, k=4))
    assert any("fetch-retry-maxtimeout" in n for n in found.notes), found.notes
    answer = ExtractiveAnswerer().complete(question, found.hierarchical)
    assert "60000" in answer and "10000" in answer, answer
    assert "300000" not in answer, answer
    assert len(cited(answer)) == 2


def test_the_same_day_is_the_date_the_part_before_found(store):
    assert referred_value("which backend version came out the same day?", ["1.3.1 - 2024-01-25"]) == "2024-01-25"
    assert with_referred_value("which backend version came out the same day?", "2024-01-25") == \
        "which backend version came out on 2024-01-25?"
    _ingest(store, {"tool.md": TOOL, "backend.md": BACKEND})
    question = "when was tool 1.3.1 released, and which backend version came out the same day?"
    found = retrieve(store, RetrievalRequest(question, k=4))
    answer = ExtractiveAnswerer().complete(question, found.hierarchical)
    assert "2024-01-25" in answer and "2.7.2" in answer, answer


def test_a_value_named_by_a_relative_clause_is_asked_of_in_its_place(store):
    question = "what's the default image for the arch that auto32 picks on a Linux Arm 64-bit runner?"
    row = "Runner: Linux / Arm 64-bit · native: aarch64 · auto64: aarch64 · auto32: armv7l¹"
    assert asked_of_clause_value(question, ["Default: base_2_28", row]) == (
        "what's the default image for armv7l?", 1)
    assert asked_of_clause_value("what's the default image for aarch64?", [row]) is None
    _ingest(store, {"options.md": ARCHS})
    found = retrieve(store, RetrievalRequest(question, k=4))
    assert any(n.startswith("the relative clause names a value") for n in found.notes), found.notes
    answer = ExtractiveAnswerer().complete(question, found.hierarchical)
    assert answer.splitlines()[0].endswith("base_2_31"), answer
    assert "armv7l" in answer and len(cited(answer)) == 2, "each hop cited"


def test_the_row_a_later_part_asks_keeps_the_first_parts_qualifier(store):
    _ingest(store, {"platforms.md": TARGETS})
    question = "minimum macos target for cpython 3.9-3.11 on intel and for pypy?"
    found = retrieve(store, RetrievalRequest(question, k=4))
    answer = ExtractiveAnswerer().complete(question, found.hierarchical)
    assert "10.9" in answer and "10.15" in answer, answer
    assert "Minimum target: 11" not in answer, answer


def test_an_option_named_in_the_other_number_is_found_and_answered(store):
    # "retry" names `fetch-retries` as well as the `fetch-retry-*` options; a heading in words keeps its own number
    _ingest(store, {"config.md": CONFIG})
    question = "how many times does npm retry a fetch by default, and what's the fetch timeout?"
    found = retrieve(store, RetrievalRequest(question, k=4))
    assert any(n == "searched under: Config Settings › fetch-retries" for n in found.notes), found.notes
    answer = ExtractiveAnswerer().complete(question, found.hierarchical)
    assert answer.splitlines()[0].endswith("2"), answer
    assert "300000" in answer and "60000" not in answer.replace("300000", ""), answer


def test_a_row_keyed_by_the_initials_of_the_name_a_part_writes_is_the_row_it_names(store):
    assert writes_key("minimum target on Apple Silicon?", frozenset(), "AS")
    assert not writes_key("minimum target on Apple Silicon?", frozenset(), "ASI")  # as many words as letters
    assert not writes_key("minimum target on apple silicon?", frozenset(), "AS")  # a capitalised name only
    _ingest(store, {"platforms.md": TARGETS})
    question = "minimum macOS target for CPython 3.12 wheels on Intel vs on Apple Silicon?"
    found = retrieve(store, RetrievalRequest(question, k=4))
    answer = ExtractiveAnswerer().complete(question, found.hierarchical)
    assert "10.13" in answer and "Minimum target: 11" in answer, answer


STYLE = ("# The Code Style\n\n## Stability Policy\n\n"
         "The first release in a new calendar year may contain formatting changes, kept as small as possible.\n\n"
         "- If code has been formatted once, it will remain unchanged when formatted with the same options using any "
         "other release in the same calendar year.\n- Bugs that crash on some code may still be fixed.\n\n"
         "## Line length\n\nThe default line length is 88 characters.\n")
CHANGES = ("# Change Log\n\n## 24.1.0\n\n### Highlights\n\nThere are many changes to the preview style; try it out.\n\n"
           "### Stable style\n\nIntroduce the 2024 stable style.\n\n## 23.1.0\n\n### Highlights\n\n"
           "Many changes to the preview style were promoted.\n\n### Stable style\n\nIntroduce the 2023 stable style.\n")


def test_a_part_whose_scope_holds_nothing_as_close_as_a_passage_elsewhere_searches_that_passages_section(store):
    _ingest(store, {"style.md": STYLE, "changes.md": CHANGES})
    question = "what is the default line length, and will it change formatting within a calendar year?"
    found = retrieve(store, RetrievalRequest(question, k=4))
    assert any(n.endswith("Stability Policy: searched under it as well") for n in found.notes), found.notes
    assert any("remain unchanged" in e.text for e in found.hierarchical.elements), "the passage's neighbour"
