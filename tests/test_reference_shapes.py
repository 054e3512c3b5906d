"""A configuration reference of another shape (issue 29, ref12): each option a heading that is its snake_case name
(``## `show_source` ``) over ONE bullet holding its type and default as a documentation site writes them (an icon's
shortcode, ``:material-equal:``, a value titled ``{ title="default value" }``), prose, a YAML example that sets it
and a ``/// admonition | Preview`` block (its ``type: preview`` option line, a rendered table of another thing's
``Default``). The reader takes the titled value as the option's default, never the block's ``type:`` line; the
option is named by its words ("doc style" for ``doc_style``, not ``doc_section_style``); asked what an option does,
its prose, not the example; "A and B defaults?" asks both defaults.

Real embedded Postgres, the bundled offline embedder, a made-up corpus of that shape (not the tune corpus)."""

from __future__ import annotations

import pytest

from core.answering import ExtractiveAnswerer
from core.answering.asked_words import heading_in_words
from core.ingest import SourceFile, ingest
from core.retrieval import RetrievalRequest, retrieve
from core.retrieval.name_forms import spelled_whole
from core.retrieval.parts import question_parts
from core.site_markup import as_shown, is_markup_only, read_markup
from core.statements import documented_statement, option_share, states_default, terms


def _option(name: str, kind: str, default: str, prose: str, preview: str = "") -> str:
    return (f"[](){{#option-{name}}}\n## `{name}`\n\n- **:octicons-package-24: Type {kind} :material-equal: "
            f"`{default}`{{ title=\"default value\" }}**\n\n{prose}\n\n```yaml title=\"in mkdocs.yml\"\nplugins:\n"
            f"- docgen:\n    handlers:\n      python:\n        options:\n          {name}: {default.strip(chr(34))}\n"
            f"```\n\n/// admonition | Preview\n    type: preview\n\n{preview or 'Rendered output.'}\n///\n\n")


_TABLE = ("| Type | Name | Description | Default |\n| --- | --- | --- | --- |\n"
          "| [int][] | threshold | A threshold. | *required* |\n")
OPTIONS = ("# General options\n\n"
           + _option("show_source", "[`bool`][]", "True", "Show the source code of this object.")
           + _option("heading_level", "[`int`][]", "2", "The initial heading level to use.")
           + _option("doc_section_style", "[`str`][]", '"table"', "The style used to render docstring sections.",
                     _TABLE)
           + _option("doc_style", "[`str`][]", '"google"', "The docstring style to expect when parsing docstrings.",
                     _TABLE)
           + _option("members_order", "`str | list[str]`", '"alphabetical"', "The members ordering to use.")
           + _option("annotations_path", "[`str`][]", '"brief"', "The verbosity for annotations path.", _TABLE)
           + _option("load_modules", "[`bool`][]", "False",
                     "This option allows resolving aliases to any external module of the package. When it is off, "
                     "only private siblings are resolved, which is what most packages need. Set load_modules to "
                     "true to resolve every alias; expect slower builds when load_modules is on.")
           + "".join(_option(f"knob_{n}", "[`int`][]", str(100 + n), f"Tunes the renderer's knob number {n}.")
                     for n in range(10)))


@pytest.mark.parametrize(("text", "read"), [
    (':octicons-package-24: Type [bool][] :material-equal: True{ title="default value" }',
     "Type bool default value: True"),
    (':octicons-package-24: Type [str][] :material-equal: "google"{ title="default value" }',
     'Type str default value: "google"'),
    (':octicons-package-24: Type [dict][] :material-equal: {}{ title="default value" }',
     "Type dict default value: {}"),
    ("search the [load function][griffe.load] and [sys.path][sys.path]", "search the load function and sys.path"),
    ("arr[0][1] and d['a']['b'] stay as written", "arr[0][1] and d['a']['b'] stay as written"),  # indexing, no ref
    ("as in socket.setKeepAlive([enable][, initialDelay]).", "as in socket.setKeepAlive([enable][, initialDelay])."),
    ("call it as f [options][, callback] there", "call it as f [options][, callback] there"),
    ('Type: "auto" | boolean<br> Default: true<BR/>CLI: --strict',
     'Type: "auto" | boolean\nDefault: true\nCLI: --strict'),
    ("a [link]{ .external } and key:value:", "a [link]{ .external } and key:value:"),  # no title, no shortcode
])
def test_a_rendered_sites_markup_is_read_as_words(text, read):
    assert read_markup(text) == read


def test_every_list_shows_prose_as_the_site_does_and_code_as_written():
    """The sources list, the hit table and the answer's quote show an element through ``as_shown``: a code block
    that documents the markup itself keeps it, a bullet of the page's prose is read."""
    bullet = ':octicons-package-24: Type [bool][] :material-equal: True{ title="default value" }'
    assert as_shown(bullet, "ListItem") == "Type bool default value: True"
    assert as_shown(bullet, "CodeSnippet") == bullet


def test_a_value_titled_default_is_the_option_headings_default_and_a_block_fence_states_nothing():
    bullet = ':octicons-package-24: Type [str][] :material-equal: "google"{ title="default value" }'
    assert states_default(bullet)
    assert documented_statement(frozenset({"default"}), bullet, "ListItem", "doc_style") == (
        ("doc_style", '"google"'), True)
    for fence in ("/// admonition | Preview type: preview", "//// tab | With inspection", "//// ///",
                  "{#setting-locale}"):
        assert is_markup_only(fence)
        assert documented_statement(frozenset({"type"}), fence, "NarrativeText", "heading_level") == (None, False)
    assert not is_markup_only("/// caption\nA caption the block holds")
    assert not is_markup_only("//path/to/file")


def test_a_snake_case_option_is_named_by_all_its_words():
    assert option_share(terms("annotations path default"), "annotations_path") == 1.0
    assert option_share(terms("members default"), "members_order") == 0.0  # one word of two: another option
    assert heading_in_words("annotations_path") == ("annotations", "path")
    named = {"doc", "style", "default"}
    assert spelled_whole(["doc_section_style", "doc_style", "Options"], lambda t: t, named.__contains__) == [
        "doc_style", "Options"]
    assert spelled_whole(["doc_section_style", "Options"], lambda t: t, named.__contains__) == [
        "doc_section_style", "Options"]  # none spelled whole: the tie stands


def test_a_shared_ask_after_the_last_name_is_asked_of_the_first_behind_a_frame():
    assert question_parts("docgen members_order and annotations_path defaults?") == (
        "docgen members_order defaults?", "annotations_path defaults?")
    assert question_parts("hatch 1.6.0 and hatchling 1.6.0 release dates") == (
        "hatch 1.6.0 release dates?", "hatchling 1.6.0 release dates?")


@pytest.fixture
def reference(store):
    report = ingest(store, [SourceFile("general.md", OPTIONS.encode())])
    assert not report.errors, report.errors
    return store


def _evidence(store, question: str):
    context = retrieve(store, RetrievalRequest(question, k=4)).hierarchical
    reader = ExtractiveAnswerer()
    return reader.evidence(question, context), reader.complete(question, context)


def test_the_titled_default_under_the_option_heading_answers_by_name_or_by_words(reference):
    for question, key, value in [
        ("docgen show_source default?", "show_source", "True"),
        ("what's the default for members_order in docgen", "members_order", '"alphabetical"'),
        # named by its words; not the rendered preview table's "Default: required" under it
        ("docgen annotations path default", "annotations_path", '"brief"'),
        # named by its words, and not by a longer option holding them ("doc_section_style")
        ("docgen default doc style?", "doc_style", '"google"'),
    ]:
        evidence, answer = _evidence(reference, question)
        assert evidence and (evidence[0].key, evidence[0].value) == (key, value), (
            question, [(e.element.path[-1], e.key, e.value, round(e.score, 3)) for e in evidence[:3]])
        assert answer.splitlines()[0] == f"{key}: {value}", question
        # quoted as the site shows it: no icon's shortcode, the title read as words
        assert f"default value: {value}" in answer and ":octicons" not in answer and "{ title" not in answer, answer


def test_asked_the_type_the_option_bullet_answers_not_the_preview_blocks_type_line(reference):
    evidence, answer = _evidence(reference, "what's the type for heading_level in docgen")
    assert evidence[0].element.path[-1] == "heading_level"
    assert "[int][]" in evidence[0].element.text and "preview" not in answer.casefold()


def test_asked_what_an_option_does_its_prose_answers_from_its_first_sentence(reference):
    evidence, answer = _evidence(reference, "what does load_modules do in docgen")
    assert evidence[0].element.category == "NarrativeText", [(e.element.category, e.excerpt) for e in evidence[:3]]
    assert "resolving aliases" in answer  # the first sentence, not the one repeating the option's name


def test_two_options_asked_their_defaults_together_each_answers(reference):
    _, answer = _evidence(reference, "docgen members_order and annotations_path defaults?")
    assert "alphabetical" in answer and "brief" in answer, answer


def test_an_anchor_or_a_block_fence_is_never_a_hit(reference):
    """``[](){#option-x}`` leaves "{#option-x}" as an element next to the heading it anchors, and its embedding sits
    next to the option's name: it states nothing, so it never takes one of the k hits."""
    for question in ("is show_source on by default?", "docgen heading_level", "what does load_modules do"):
        hits = [e for e in retrieve(reference, RetrievalRequest(question, k=4)).hierarchical.elements
                if e.role == "hit"]
        assert len(hits) == 4 and not [e.text for e in hits if is_markup_only(e.text)], question
    # a single list still finds what is closest after the anchors are dropped: asked in an anchor's own words, the
    # vector search's nearest rows are all anchors
    for search in ("vector", "fulltext"):
        hits = [e for e in retrieve(reference, RetrievalRequest("{#option-show_source}", k=2, search=search,
                                                                 everywhere=True)).hierarchical.elements
                if e.role == "hit"]
        assert hits and not [e.text for e in hits if is_markup_only(e.text)], search
