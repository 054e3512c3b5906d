"""Prose questions over a user guide (docs/guide-retrieval.md): a scope read from incidental heading words yields to
the whole collection when the question's meaning lies elsewhere (``HeadingScopeConfig.scope_yield_margin`` /
``scope_yield_share``); the sections a hit's lead-in opens are served in the hits' order; a paragraph hit brings
the closest parts of its own section (``ContextConfig.prose_sections``, swept off by default); a question asked as a
sentence is told from keywords. The guide is a made-up tool's, "Pavo",
written in the shape of a Python tool's user guide: its name is in every page's text and heads one page only."""

from __future__ import annotations

from dataclasses import replace

import pytest

from core.retrieval import RetrievalRequest, retrieve
from core.retrieval.context import expand
from core.retrieval.hits import Hit
from core.retrieval.search import embed_query
from core.retrieval.shape import is_prose_question
from core.retrieval.stages import DEFAULT_STAGES, using
from tests.helpers_context import ingested_store

LOADING = """\
# Loading APIs

Pavo reads API data from source code, and falls back to importing objects when it finds no source.

## The load function

The main interface of Pavo is its load function, which returns the package asked for.

Finally, Pavo can even load packages or modules by passing absolute or relative file paths. This is useful when
the package is not installed in the current environment and cannot be found in the default search paths.

## Search paths

By default Pavo searches the paths of sys.path, which the PYTHONPATH variable influences.

## Alias resolution

Pavo resolves imported names after the whole package is loaded.

We loaded both packages, but Pavo still failed to resolve the alias. That is expected, and here is why.

Each call of the load function creates its own collection of modules, so two calls made two distinct collections of
modules, and the first package was not in the second's collection.

Pavo logs a debug message for each alias it cannot resolve.
"""
PARSING = """\
# Using Pavo as a docstring-parsing library

You can use Pavo to parse arbitrary docstrings: build a docstring object and call its parse method.

With this, Pavo's parser fetches the annotations of the parent function's parameters.
"""
CHECKING = """\
# Checking APIs

Pavo compares two snapshots of a project to find breaking changes between them.

## Command line

By default, Pavo compares the current code to the latest tag of the repository.

## Output style

Pavo prints each breaking change on a single line unless asked for a verbose output.
"""
EXTENDING = """\
# Extending APIs

Pavo has an extension system to customise the data it collects.

## Hooks

Hooks are always methods of a class inheriting from Pavo's Extension class, never standalone functions.

## Logging

Extensions log through Pavo's own loggers so that their messages reach the documentation build.
"""
SERIALIZING = """\
# Serializing APIs

Pavo writes API data as JSON on standard output or into files.

## Schema

Members are an array rather than a map, to preserve their order for the tools downstream of Pavo.
"""
LEAD_INS = """\
# Guide

## First section

The first section's setting is written as follows:

    first = 1

The first section's value is one hundred.

## Second section

The second section's setting is written as follows:

    second = 2

The second section's value is two hundred.
"""
GUIDE = {"loading.md": LOADING, "parsing.md": PARSING, "checking.md": CHECKING, "extending.md": EXTENDING,
         "serializing.md": SERIALIZING}
ASKED = "can pavo read a package that isn't installed, straight from a folder?"


@pytest.fixture(scope="module")
def guide_store(db_url, tmp_path_factory):
    store = ingested_store(db_url, tmp_path_factory.mktemp("pavo"), GUIDE)
    yield store
    store.drop()


def _elements(store) -> list:
    return [e for document_id in store.read.document_ids() for e in store.read.elements(document_id)]


def _hits(store, question: str, stages=DEFAULT_STAGES) -> tuple[list[str], list[str]]:
    with using(stages):
        result = retrieve(store, RetrievalRequest(question, k=4))
    return [h.element.text for h in result.hits], result.notes


def test_a_scope_read_from_the_tools_name_yields_to_the_page_the_question_means(guide_store):
    """The yield, turned on (it is off by default: docs/guide-retrieval.md, "At the merge"), and off."""
    on = DEFAULT_STAGES.but(heading_scope=replace(DEFAULT_STAGES.heading_scope, scope_yield_margin=0.1))
    hits, notes = _hits(guide_store, ASKED, on)
    assert "absolute or relative file paths" in hits[0], (hits, notes)
    assert any("searched the whole collection" in n for n in notes), notes
    # without the yield (the default) the page whose title names the tool is the scope: its parts lead, the
    # answer's paragraph only keeps the last place as the whole collection's best
    hits, notes = _hits(guide_store, ASKED)
    assert notes[0] == "searched under: Using Pavo as a docstring-parsing library", notes
    assert "absolute or relative" not in hits[0] and hits[0].startswith("Using Pavo"), hits


def test_a_paragraph_hit_brings_the_closest_parts_of_its_section(guide_store):
    elements = {e.text: e for e in _elements(guide_store)}
    found = next(e for t, e in elements.items() if t.startswith("We loaded both packages"))
    vector = embed_query(guide_store, "I loaded both packages but the imported name still doesn't resolve, why?")
    hits = [Hit(found, 0, 0.3)]
    read, children, _distances = expand(guide_store, hits, children_budget=200, query_vector=vector, prose_sections=1)
    brought = {read[c].text for c in children}
    assert any(t.startswith("Each call of the load function") for t in brought), brought
    _read, children, _distances = expand(guide_store, hits, children_budget=200, query_vector=vector)
    assert children == []


def test_sections_opened_by_lead_ins_are_served_best_hit_first(db_url, tmp_path_factory):
    store = ingested_store(db_url, tmp_path_factory.mktemp("leadins"), {"guide.md": LEAD_INS})
    try:
        elements = _elements(store)
        lead = {e.text.split("'")[0]: e for e in elements if e.text.endswith("as follows:")}
        hits = [Hit(lead["The second section"], 0, 0.2), Hit(lead["The first section"], 1, 0.3)]
        vector = embed_query(store, "what value does the section have")
        found, children, _distances = expand(store, hits, children_budget=12, query_vector=vector)
        # the budget holds one part: the best hit's section's, the one after its lead-in
        assert [found[c].text for c in children] == ["second = 2"]
    finally:
        store.drop()


@pytest.mark.parametrize(("question", "prose"), [
    ("can pavo read a package that isn't installed, straight from a folder?", True),
    ("in pavo check, is -b the old version or the new one?", True),
    ("my code base mixes google and numpy docstrings, what's the quickest way?", True),
    ("I want the list of breakages in a form I can paste into my changelog", True),
    ("pavo prefix color flag", False),
    ("pavo flags to kill others on any exit and only on failure?", False),
    ("isort skip glob default?", False),
])
def test_a_question_asked_as_a_sentence_is_told_from_keywords(question, prose):
    assert is_prose_question(question) is prose


def test_a_question_naming_a_model_number_keeps_its_scope_even_when_the_scopes_heading_lacks_it(guide_store):
    """A code name or model number pins the thing asked about whichever heading the scope was read from ("Nova
    27QX firmware version 2.10" scoped to the release notes): the yield never fires for such a question."""
    on = DEFAULT_STAGES.but(heading_scope=replace(DEFAULT_STAGES.heading_scope, scope_yield_margin=0.1))
    _, notes = _hits(guide_store, "can pavo 3X read a package that isn't installed, straight from a folder?", on)
    assert notes[0] == "searched under: Using Pavo as a docstring-parsing library", notes
    assert not any("searched the whole collection" in n for n in notes), notes
