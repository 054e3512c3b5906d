"""An FAQ entry matched by its question heading and its answer's first paragraph read together
(core/retrieval/faq_headings.py, ``faq_entry_floor`` / ``faq_entry_margin``): a user's paraphrase shares the
answer's words, not the heading's ("how to pull in a role only while testing …, not as a real dependency" for "How
can I add development/testing-only dependencies?"). The FAQ is a role-testing tool's, renamed; each answer is
its own prose."""

from __future__ import annotations

import pytest

from core.retrieval.faq_headings import faq_heading_match
from core.retrieval.heading_cache import heading_index
from core.retrieval.search import embed_query
from core.retrieval.stages import HeadingScopeConfig
from tests.helpers_context import ask, ingested_store

ENTRIES = {
    "Why is my idempotence action failing?":
        "Rolekit does not do anything further than the default functionality of Ansible when determining if your "
        "tasks are idempotent or not. Rolekit will simply run the converge action twice and check against "
        "Ansible's standard output.",
    "Why does Rolekit make so many shell calls?":
        "Ansible provides a Python API. However, it is not intended for direct consumption, so Rolekit consumes "
        "Ansible's command line instead.",
    "Why does Rolekit only support specific Ansible versions?":
        "We can only test against a limited number of Ansible versions and often rely on recent bugfixes.",
    "Why are playbooks used to provision instances?":
        "Simplicity. Ansible already supports numerous cloud providers.",
    "Are there similar tools to Rolekit?":
        "Ansible's own testing strategies, and RoleSpec.",
    "Does Rolekit support monorepos?":
        "Yes, roles contained in a monorepo with other roles are automatically picked up.",
    "How can I add development/testing-only dependencies?":
        "Run a dependency role only while developing your role with rolekit, not as a hard dependency, with a "
        "condition on an environment variable in the role's meta file.",
}
FAQ = "# FAQ\n\n" + "".join(f"## {q}\n\n{a}\n\n" for q, a in ENTRIES.items())
ASKED = "how to pull in a role only while testing with rolekit, not as a real dependency"
HEADING = "How can I add development/testing-only dependencies?"


@pytest.fixture(scope="module")
def rolekit_store(db_url, tmp_path_factory):
    store = ingested_store(db_url, tmp_path_factory.mktemp("rolekit"), {"faq.md": FAQ})
    yield store
    store.drop()


def _match(store, question: str, **changed: float):
    config = HeadingScopeConfig()
    options = {"near_floor": config.faq_near_floor, "margin": config.faq_margin,
               "entry_floor": config.faq_entry_floor, "entry_margin": config.faq_entry_margin, **changed}
    return faq_heading_match(store, heading_index(store), embed_query(store, question), config.faq_floor, question,
                             **options)


def test_a_paraphrase_of_the_answer_finds_its_entry_though_the_heading_is_far(rolekit_store):
    found = _match(rolekit_store, ASKED)
    assert found is not None and found.headings[0].text == HEADING and found.answered
    assert found.score >= HeadingScopeConfig().faq_entry_floor
    # the heading alone is not close enough: without the entry reading there is no match
    assert _match(rolekit_store, ASKED, entry_floor=1.01) is None


def test_a_question_no_entry_answers_matches_none(rolekit_store):
    for question in ("rolekit default driver", "how do I write a literal dollar sign in the config"):
        assert _match(rolekit_store, question) is None, question


def test_the_entry_found_so_is_the_scope_and_its_answer_is_quoted(rolekit_store):
    result, answer = ask(rolekit_store, ASKED)
    assert result.searched_under == f"FAQ › {HEADING}", result.notes
    assert "not as a hard dependency" in answer
