"""An FAQ whose question headings all name the tool: the embedder's choice read with what they share taken out
(core/retrieval/faq_headings.py, ``faq_near_floor`` / ``faq_margin``)."""

from __future__ import annotations

import pytest

from core.retrieval import RetrievalRequest, retrieve
from core.retrieval.faq_headings import faq_heading_match
from core.retrieval.heading_cache import heading_index
from core.retrieval.heading_refs import HeadingMatch
from core.retrieval.search import embed_query
from core.retrieval.stages import HeadingScopeConfig
from tests.helpers_context import answer_of, ingested_store

# The question headings of a release tool's FAQ (semantic-release's, the tool renamed), each over a one-line answer.
QUESTIONS = [
    "Why is the package.json's version not updated in my repository?",
    "Should release notes be committed to a CHANGELOG.md in my repository during a release?",
    "How can I use a npm build script that requires the package.json's version ?",
    "Is there a way to preview which version would currently get published?",
    "Can I use tagbump to publish non-JavaScript packages?",
    "Can I use tagbump with any CI service?",
    "Can I run tagbump on my local machine rather than on a CI server?",
    "Can I use tagbump with GitLab?",
    "Can I use tagbump with any Git hosted environment?",
    "Can I skip the release to the npm registry?",
    "How can I revert a release?",
    "Can I use .npmrc options?",
    "How can I set the access level of the published npm package?",
    "Can I manually trigger the release of a specific version?",
    "Can I exclude commits from the analysis?",
    "How can I change the type of commits that trigger a release?",
    "Is it really a good idea to release on every push?",
    "Can I set the initial release version of my package to 0.0.1?",
    "Can I trust tagbump with my releases?",
    "What is npx?",
]
ANSWERS = {"How can I change the type of commits that trigger a release?":
           "Configure the commit analyzer's releaseRules: by default a fix commit triggers a patch release."}
FAQ = "# Frequently Asked Questions\n\n" + "".join(
    f"## {q}\n\n{ANSWERS.get(q, 'Short answer about: ' + q.rstrip('? ').lower() + '.')}\n\n" for q in QUESTIONS)
ASKED = "which commit type triggers a patch release in tagbump"
TYPE_HEADING = "How can I change the type of commits that trigger a release?"


@pytest.fixture(scope="module")
def tool_store(db_url, tmp_path_factory):
    store = ingested_store(db_url, tmp_path_factory.mktemp("tagbump"), {"faq.md": FAQ})
    yield store
    store.drop()


def test_a_question_heading_standing_out_once_the_shared_words_are_out_leads_below_the_floor(tool_store):
    index = heading_index(tool_store)
    config = HeadingScopeConfig()
    vector = embed_query(tool_store, ASKED)
    # below the floor: every heading here shares the tool's words, so the closest is not close enough by itself
    assert faq_heading_match(tool_store, index, vector, config.faq_floor, ASKED) is None
    found = faq_heading_match(tool_store, index, vector, config.faq_floor, ASKED,
                              near_floor=config.faq_near_floor, margin=config.faq_margin)
    assert found is not None and found.headings[0].text == TYPE_HEADING
    assert config.faq_near_floor <= found.score < config.faq_floor


def test_a_question_no_entry_asks_stands_out_from_none(tool_store):
    index = heading_index(tool_store)
    config = HeadingScopeConfig()
    for question in ("tagbump default branch", "what does tagbump do with the changelog"):
        assert faq_heading_match(tool_store, index, embed_query(tool_store, question), config.faq_floor, question,
                                 near_floor=config.faq_near_floor, margin=config.faq_margin) is None, question


def test_the_entry_chosen_so_leads_the_hits_and_answers(tool_store):
    result = retrieve(tool_store, RetrievalRequest(ASKED, k=4))
    assert result.searched_under == f"Frequently Asked Questions › {TYPE_HEADING}", result.notes
    assert result.hits[0].element.page_content == TYPE_HEADING
    assert "a fix commit triggers a patch release" in answer_of(tool_store, ASKED)


def test_the_centred_reading_needs_an_faq_and_the_names_the_question_pins(tool_store):
    index = heading_index(tool_store)
    config = HeadingScopeConfig()
    vector = embed_query(tool_store, ASKED)

    def match(**changed: float | int | frozenset[str]) -> HeadingMatch | None:
        options: dict[str, float | int | frozenset[str]] = {
            "near_floor": config.faq_near_floor, "margin": config.faq_margin,
            "centred_min": config.faq_centred_min, **changed}
        return faq_heading_match(tool_store, index, vector, config.faq_floor, ASKED, **options)  # type: ignore[arg-type]

    assert match() is not None
    # fewer question headings than an FAQ holds: their mean is no shared wording to take out
    assert match(centred_min=len(QUESTIONS) + 1) is None
    # a model number the question pins and the heading lacks: the weaker match yields to the word match
    assert match(pinned=frozenset({"tb200"})) is None
    assert match(pinned=frozenset({"release"})) is not None, "a pinned word the heading holds keeps it"
