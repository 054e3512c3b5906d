"""Plugins' option READMEs (issue 29, opts13): an option's default in the parenthesis after its name, a heading
spelling one option twice, a label listing owners asked each, the sentence of a long paragraph that instructs, a
bare default line that says nothing to a question asking how or whether, and a question naming one README's title
kept in that README.

Real embedded Postgres and the bundled offline embedder where a corpus is read; a made-up corpus of that shape
(not the tune corpus)."""

from __future__ import annotations

import pytest

from core.answering import ExtractiveAnswerer
from core.answering.asked_words import asks_whether
from core.answering.extractive import _excerpt
from core.answering.sentences import asked_sentence, opening_sentence
from core.ingest import SourceFile, ingest
from core.retrieval import RetrievalRequest, retrieve
from core.retrieval.parts import question_parts
from core.statements import option_heading, question_terms, statement, states_default


@pytest.mark.parametrize(("text", "stated"), [
    ("template (string, default treemap) - Which diagram type to use", ("template", "treemap")),
    ("projectRoot (string | RegExp, default process.cwd()) - a common root", ("projectRoot", "process.cwd()")),
    ("filename (string, default stats.{ext depending template}) - the file", ("filename",
                                                                            "stats.{ext depending template}")),
    ("open (boolean, default false) - Open generated file", ("open", "false")),
    ("a (see the default list) b", None),  # "default" inside a phrase of the parenthesis: no value
    ("Rate (the default limit) applies", None),
])
def test_a_default_in_the_parenthesis_after_an_options_name_is_stated_keyed_by_the_name(text, stated):
    assert statement(frozenset(), text) == stated
    assert states_default(text) is (stated is not None)


def test_a_heading_spelling_one_option_twice_names_it():
    assert option_heading("sourceMap or sourcemap") == "sourceMap"
    assert option_heading("`sourceMap` or `sourcemap`") == "sourceMap"
    assert option_heading("install or upgrade") is None  # two things, not one spelled twice
    assert option_heading("Options") is None


def test_a_label_listing_owners_asks_each_owner_the_ask_after_it():
    assert question_parts("rollup commonjs and rollup replace: sourceMap defaults?") == (
        "rollup commonjs: sourceMap defaults?", "rollup replace: sourceMap defaults?")
    # a label of one owner, a clause before the colon, owners compared: no owner asked alone (as before)
    assert all(not p.startswith(("cibuildwheel:", "build:")) for p in question_parts(
        "cibuildwheel defaults: build and skip?"))
    assert len(question_parts("does black have an api, and what does compiled: yes mean in black --version?")) <= 2
    assert question_parts("alpha and beta: which is faster?") == ("alpha and beta: which is faster?",)


def test_asked_how_a_long_paragraph_is_quoted_by_its_sentence_that_instructs():
    text = ("If two headings use the same explicit id, this plugin throws. That is intentional: an explicit id is a "
            "permalink, and silently rewriting it to foo-1 would break the URL. Set failOnNonUnique: false to suffix "
            "instead, which is useful when another plugin assigns IDs without checking uniqueness. Auto-generated "
            "IDs still suffix on collision regardless of this option.")
    question = "the plugin throws on a duplicate explicit heading id, how do I make it add a suffix instead?"
    wanted = question_terms(question)
    assert _excerpt(text, wanted, None, wanted, how=True).startswith("… Set failOnNonUnique: false")
    # not asked how: the sentence sharing most of the question's words, as before
    assert _excerpt(text, wanted, None, wanted).startswith("If two headings")
    # "headings use the same id" is no instruction: a verb inside the sentence is not an imperative opening it
    pieces = ["If two headings use the same explicit id, this plugin throws.", "Set it to false to suffix."]
    assert asked_sentence(pieces, lambda i: (1.0, 1) if i == 0 else (0.5, 0), how=True) == 1
    assert asked_sentence(pieces, lambda i: (1.0, 1) if i == 0 else (0.5, 0), how=False) == 0


def test_a_sentence_pointing_back_is_quoted_with_the_one_before():
    pieces = ['Setting this option to "auto" wraps only cyclic files.', "This is the recommended setting.", "Next."]
    assert opening_sentence(pieces, 1) == 0
    assert opening_sentence(pieces, 2) == 2
    assert opening_sentence(pieces, 0) == 0


@pytest.mark.parametrize(("question", "whether"), [
    ("if I pass my own resolver to widget-import, does addModulesDirectories still apply?", True),
    ("where should I put acme-replace in the plugins array?", True),
    ("widget-import: does it warn on empty files", True),
    ("widget-import load option default", False),
    ("what is the load option", False),
])
def test_a_question_asking_yes_or_no_or_where(question, whether):
    assert asks_whether(question) is whether


README_ALPHA = ("# @acme/plugin-alpha\n\nA bundler plugin which rewrites strings.\n\n## Usage\n\n"
                "Typically, @acme/plugin-alpha should be placed in plugins before other plugins so that they may "
                "apply optimizations.\n\n## Options\n\n### `delimiters`\n\nType: `Array`<br>\nDefault: `['', '']`\n\n"
                "Specifies the boundaries around which strings are rewritten.\n\n"
                "### `addFolders`\n\nType: `Array`<br>\nDefault: `[]`\n\n"
                "An array of folder names to add to the resolver. If you provide your own resolver, then this value "
                "will be ignored.\n")
README_BETA = ("# beta-import\n\nImports stylesheets.\n\n## Options\n\n#### `plugins`\n\nType: `Array`  \n"
               "Default: `undefined`\n\nAn array of plugins to be applied on each imported file.\n\n"
               "#### `root`\n\nType: `String`  \nDefault: `process.cwd()`\n\nThe root where paths resolve.\n")


def test_a_bare_default_line_says_nothing_to_a_question_asking_whether_the_option_applies(store):
    report = ingest(store, [SourceFile("plugin-alpha.md", README_ALPHA.encode()),
                            SourceFile("beta-import.md", README_BETA.encode())])
    assert not report.errors, report.errors
    reader = ExtractiveAnswerer()
    question = "if I pass my own resolver to @acme/plugin-alpha, does addFolders still apply?"
    context = retrieve(store, RetrievalRequest(question, k=4)).hierarchical
    evidence = reader.evidence(question, context)
    assert "ignored" in evidence[0].excerpt, [(e.element.text[:40], e.key, round(e.score, 3)) for e in evidence[:3]]
    # asked its default, the line answers, keyed by the option's heading
    question = "@acme/plugin-alpha addFolders default?"
    context = retrieve(store, RetrievalRequest(question, k=4)).hierarchical
    evidence = reader.evidence(question, context)
    assert (evidence[0].key, evidence[0].value) == ("addFolders", "[]")


def test_a_question_naming_one_readmes_title_is_answered_from_that_readme(store, monkeypatch):
    """"@acme/plugin-alpha" is the best-named heading; beta-import's ``plugins`` option shares "plugins" and states
    a default, but it is another plugin's: the runner-up in another document is not tried."""
    report = ingest(store, [SourceFile("plugin-alpha.md", README_ALPHA.encode()),
                            SourceFile("beta-import.md", README_BETA.encode())])
    assert not report.errors, report.errors
    question = "where should I put @acme/plugin-alpha in the plugins array?"
    retrieval = retrieve(store, RetrievalRequest(question, k=4))
    evidence = ExtractiveAnswerer().evidence(question, retrieval.hierarchical)
    assert evidence[0].element.path[0] == "@acme/plugin-alpha", (retrieval.notes, evidence[0].element.path)
    assert "before other plugins" in evidence[0].excerpt
