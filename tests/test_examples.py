"""Example questions on a collection without a hand-written set (issue 33, item 5): worded as questions whatever
the corpus's keys are, and each kept only if the product, offline, answers it citing the element it came from."""

from __future__ import annotations

import re

from core.evaluation.examples import answered_from_source, example_questions, example_wording, heading_questions
from core.evaluation.generator import Fact, generate_questions_from_store
from core.ingest import SourceFile, ingest

from .conftest import ROOT

DOC = """# Watcher manual

## File collection and discovery

- Linux: inotify with a polling fallback
- macOS: FSEvents through the watchdog package
- on Windows: ReadDirectoryChangesW
- 💼 Adds "CI: run the slow tests

## Cache settings

| Platform | Default cache folder |
|---|---|
| Linux | ~/.cache/watcher |
| Windows | %LOCALAPPDATA%\\watcher |
| 3 | three |
"""


def _fact(key: str, kind: str = "key_value", entity: str | None = None) -> Fact:
    return Fact(kind, key, "x", ("Guide", "File collection and discovery"), "guide.md", f"{key}: x", entity=entity)


def test_a_fact_is_asked_in_words_that_do_not_guess_what_its_key_is():
    subject = ("File collection and discovery",)
    assert example_wording(_fact("Linux"), subject) == "What does File collection and discovery say about Linux?"
    assert (example_wording(_fact("Default cache folder", "table", "Linux"), ("Cache settings",))
            == "In Cache settings, what is given for Linux under Default cache folder?")
    for key in ("on Windows", '💼 Adds "CI', "docker[;create_args", "3"):
        assert example_wording(_fact(key), subject) is None, key


def test_examples_read_as_questions_and_each_is_answered_from_its_own_source(store):
    assert not ingest(store, [SourceFile("watcher.md", DOC.encode())]).errors
    found = example_questions(store, ROOT / "data" / "questions.json")
    assert found.questions, found
    assert "each answered from its own source" in found.source
    assert "What does Watcher manual say about Linux?" in found.questions  # the fewest headings that tell it apart
    assert not any(re.match(r"What is the \w+ of ", q) for q in found.questions), found.questions
    assert not any("Windows" in q and "File collection" in q or "💼" in q or " 3 " in q for q in found.questions)
    candidates = {q.question: q for q in [*generate_questions_from_store(store, phrase=example_wording).questions,
                                          *heading_questions(store)]}
    for question in found.questions:
        assert answered_from_source(store, candidates[question])


def test_a_corpus_of_few_facts_gets_examples_from_its_section_headings(store):
    """pip's topic pages state almost no ``key : value`` facts: a heading that is a name fills in, and each such
    question is kept only if its answer cites an element of that heading's section."""
    doc = ("# Authentication\n\n## What is stored\n\nCredentials are kept by the keyring.\n\n"
           "## netrc support\n\npip supports loading credentials from a user's `.netrc` file. If no credentials are "
           "part of the URL, pip will attempt to get authentication credentials for the URL's hostname from the "
           "user's `.netrc` file.\n")
    assert not ingest(store, [SourceFile("authentication.md", doc.encode())]).errors
    found = example_questions(store, ROOT / "data" / "questions.json")
    assert "What is netrc support in Authentication?" in found.questions, found
    assert not any("What is stored" in q for q in found.questions), found
