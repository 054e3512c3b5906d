"""The scope names the thing, not the platform; options are looked up by name; comparisons read each entity's
own evidence (issue 21, second round). Unit tests on headings and contexts built by hand, then the real pipeline
on the samples and on a small Python-Markdown-like corpus."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.answering import ExtractiveAnswerer, build_table, compare
from core.retrieval import Context, ContextElement, EntityRef, RetrievalRequest, retrieve
from core.retrieval.headings import HeadingIndex, HeadingRef, best_headings, heading_words
from core.retrieval.shape import attribute_identifiers, question_shape
from core.statements import Lexicon, question_terms, statement

# -- headings -----------------------------------------------------------------------------------------------------


def _heading(i: int, text: str, path: tuple[str, ...] = (), doc: str = "d") -> HeadingRef:
    return HeadingRef(f"{i:032x}", text, path, doc, f"{doc}.md")


def _python_markdown_headings() -> list[HeadingRef]:
    """Guides and release notes all titled with the platform; one page per extension."""
    out = []
    n = 0
    for doc, title, sections in (
        ("write", "Writing Extensions for Python-Markdown", ["Integrating Your Code Into Markdown",
                                                           "Naming an Extension", "Registering Extensions"]),
        ("cli", "Using Python-Markdown on the Command Line", ["Using Extensions"]),
        ("lib", "Using Markdown as a Python Library", ["The Basics", "Extensions"]),
        ("r26", "Python-Markdown 2.6 Release Notes", ["Backwards-incompatible Changes", "Extension Names Deprecated"]),
        ("r30", "Python-Markdown 3.0 Release Notes", ["Backwards-incompatible Changes"]),
        ("toc", "Table of Contents", ["Summary", "Usage"]),
        ("foot", "Footnotes", ["Summary", "Usage"]),
        ("wiki", "WikiLinks", ["Summary", "Usage"]),
    ):
        n += 1
        out.append(_heading(n, title, (), doc))
        for s in sections:
            n += 1
            out.append(_heading(n, s, (title,), doc))
    return out


def test_a_heading_of_plain_words_also_answers_to_its_initials():
    assert "toc" in heading_words("Table of Contents")
    assert "toc" not in heading_words("Table")  # one or two words make no initials


def test_a_module_path_names_the_page_titled_by_its_initials():
    """`markdown.extensions.toc`: "markdown" and "extensions" are the namespace; before, they named the
    "Writing Extensions for Python-Markdown" guide."""
    match = best_headings("For the `markdown.extensions.toc` extension, what is the default `marker`?",
                          _python_markdown_headings())
    assert match is not None and match.headings[0].text == "Table of Contents", match


@pytest.mark.parametrize("question", [
    "In the Python-Markdown Footnotes extension, what is the default `UNIQUE_IDS` option?",
    "For the Footnotes extension of Python-Markdown, what is the default `BACKLINK_TEXT`?",
])
def test_the_platform_every_guide_names_does_not_outweigh_the_extension(question):
    """"Python-Markdown" heads most documents: it names the platform, not a place in it."""
    index = HeadingIndex(_python_markdown_headings())
    assert index.is_platform("python-markdown") and not index.is_platform("footnotes")
    match = best_headings(question, index)
    assert match is not None and [h.text for h in match.headings] == ["Footnotes"], match


def _tool_headings() -> list[HeadingRef]:
    """A tool's documentation: its name heads 8 of its 35 pages (below PLATFORM_SHARE, so it is no platform
    word), the rest are titled by topic; the JavaScript API page holds one heading per configuration key."""
    out = [_heading(1, "JavaScript API"), _heading(2, "API", ("JavaScript API",)),
           _heading(3, "config", ("JavaScript API", "API"))]
    out += [_heading(4 + k, key, ("JavaScript API", "API", "config"), "d") for k, key in enumerate(("cwd", "stderr"))]
    n = 10
    for d, title in enumerate(("Using shipit-bot with Travis", "Using shipit-bot with GitLab",
                               "Using shipit-bot with Jenkins", "Using shipit-bot with CircleCI",
                               "shipit-bot plugins", "Writing shipit-bot plugins",
                               "Running shipit-bot in Docker", "shipit-bot and monorepos", "Troubleshooting", "Recipes",
                               "Branches", "Workflow", "Authentication", "Commit conventions", "Changelog",
                               "Resources", "Getting started", "Installation", "Contributing", "Migration", "Support",
                               "Distribution channels", "Environment", "Templates", "Hooks", "Security", "Glossary",
                               "Roadmap", "Release steps", "Credits", "Shareable configurations", "Dry run",
                               "Tags", "Notes")):
        out += [_heading(n, title, (), f"p{d}"), _heading(n + 1, "Setup", (title,), f"p{d}")]
        n += 2
    return out


@pytest.mark.parametrize("key", ["cwd", "stderr"])
def test_the_tools_own_name_tied_across_its_pages_does_not_hide_the_key_asked(key):
    """"… in shipit-bot": the name heads 8 of 35 pages (more than MAX_SCOPES documents), so its words outscore the
    key and tie over more places than a scope holds. Before, that tie scoped nothing and the key's own heading was
    never the scope."""
    index = HeadingIndex(_tool_headings())
    assert not index.is_platform("shipit-bot")
    match = best_headings(f"what's the default for {key} in shipit-bot", index)
    assert match is not None and [h.text for h in match.headings] == [key], match


def test_a_topic_heading_many_sections_of_one_page_is_no_subject_and_nothing_lower_is_guessed():
    """"plugin hook" heads 8 sections of one page: a topic, not what the collection is about. Its tie still scopes
    nothing (the search runs everywhere) rather than a lower match on the question's other word."""
    hooks = [_heading(200 + k, f"Plugin hook: {name}", ("Plugins",), "plugins")
             for k, name in enumerate(("verify", "analyze", "prepare", "publish", "notify", "fail", "success", "add"))]
    index = HeadingIndex([*_tool_headings(), _heading(199, "Plugins", (), "plugins"), *hooks])
    assert best_headings("what's the default for cwd in a plugin hook", index) is None


def test_a_class_path_names_its_own_page_not_the_namespace():
    match = best_headings("Using `markdown.extensions.wikilinks.WikiLinkExtension(**kwargs)`, what is the default "
                          "`end_url`?", _python_markdown_headings())
    assert match is not None and match.headings[0].text == "WikiLinks", match


def test_a_model_number_named_keeps_every_other_product_out_of_the_scope():
    """"PBP / PIP" heads a section of the 34WC sheet only; the question asks the 27QX's."""
    a, b = "Nova 27QX gaming monitor", "Nova 34WC ultrawide monitor"
    headings = [_heading(1, a, (), "a"), _heading(2, "Specifications", (a,), "a"),
                _heading(3, b, (), "b"), _heading(4, "Specifications", (b,), "b"),
                _heading(5, "PBP / PIP", (b, "Why the 34WC"), "b"), _heading(6, "Why the 34WC", (b,), "b")]
    match = best_headings("Nova 27QX의 PBP/PIP은(는) 무엇인가요?", headings)
    assert match is not None and all("27QX" in h.label for h in match.headings), match


# -- question shapes and statements --------------------------------------------------------------------------


@pytest.mark.parametrize(("question", "parts"), [
    ("Abbreviations와 Tables 확장의 Entry Point 비교", ("Abbreviations", "Tables")),
    ("Footnotes와 WikiLinks의 Dot Notation을 비교해 주세요", ("Footnotes", "WikiLinks")),
    ("Nova 24FL과 Nova 34WC의 PBP/PIP 지원 비교", ("Nova 24FL", "Nova 34WC")),
    ("Orbit의 Connection과 Pool 중 기본 `timeout`이 더 긴 클래스는?", ("Orbit", "Connection", "Pool")),
])
def test_what_follows_the_korean_possessive_is_the_attribute_not_a_thing_compared(question, parts):
    shape = question_shape(question)
    assert shape is not None and shape.parts == parts


def test_option_names_in_code_are_attributes():
    q = "In Python-Markdown, what is the default `anchorlink_class` of `markdown.extensions.toc.TocExtension`?"
    assert attribute_identifiers(q) == ["anchorlink_class"]


def test_a_bare_default_line_has_no_key_of_its_own():
    asked = question_terms("what is the default marker")
    assert statement(asked, "Default: markdown.extensions.toc.slugify") == ("", "markdown.extensions.toc.slugify")
    assert statement(asked, "marker: Text to find. Defaults to [TOC].") == ("marker", "[TOC]")


def test_korean_adjectives_ask_their_attribute_and_verb_form_keys_keep_their_words():
    asked = question_terms("Nova 24FL, Nova 27QX 중 가장 밝은 모니터는?")
    assert "밝기" in asked and "brightness" not in asked  # the other language's name comes from the collection
    paired = Lexicon(((frozenset({"밝기"}), frozenset({"brightness"})),))
    assert "brightness" in question_terms("Nova 24FL, Nova 27QX 중 가장 밝은 모니터는?", paired)
    assert "무게" in question_terms("더 가벼운 모니터는?")
    assert statement(asked, "밝기 : 350 cd/m² (Typ)") == ("밝기", "350 cd/m² (Typ)")


# -- answers from hand-built contexts ---------------------------------------------------------------------------


def _el(n: int, text: str, path: tuple[str, ...], *, role: str = "hit", category: str = "ListItem",
        outside: bool = False, parent: int | None = None, distance: float = 0.5) -> ContextElement:
    belongs = {"parent_id": f"{parent:032x}"} if parent is not None else {}
    return ContextElement(f"{n:032x}", f"{n:08x}", role, category, text, "doc", path, distance, n, outside,
                          **belongs)


def test_a_default_paragraph_answers_for_the_item_it_belongs_to():
    path = ("Tables", "Usage")
    context = Context("hierarchical", "", "", [
        _el(1, "use_align_attribute: Set to True to use align instead of an appropriate style attribute", path),
        _el(2, "Default: 'False'", path, role="child", category="NarrativeText", parent=1, distance=0.7),
    ], 0)
    answer = ExtractiveAnswerer().complete("In the Tables extension, what is the default `use_align_attribute`?",
                                           context)
    assert answer.splitlines()[0] == "use_align_attribute: 'False'", answer


def test_an_faq_heading_above_an_outside_hit_does_not_hide_the_attribute():
    """The FAQ heading "Q. 모니터에 스피커가 있나요?" made "스피커" a heading name, so the sheet's own item did not
    count as stating it and the answer said "not stated"."""
    sheet = "노바 Nova 27QX 게이밍 모니터"
    faq = ("고객지원 자주 묻는 질문", "Q. 모니터에 스피커가 있나요?")
    context = Context("hierarchical", "", "", [
        _el(0, sheet, (), role="ancestor", category="Title"),
        _el(1, "스피커 : 2W x 2", (sheet, "제품사양", "영상/음성")),
        _el(2, faq[1], faq[:1], role="ancestor", category="Title"),
        _el(3, "Nova 27QX : 2W 스피커 2개가 내장되어 있습니다.", faq, outside=True, distance=0.2),
    ], 0)
    context.named = (sheet,)
    answer = ExtractiveAnswerer().complete("Nova 27QX 모니터의 스피커 사양은 무엇인가요?", context)
    assert answer.splitlines()[0] == "스피커: 2W x 2", answer


def test_a_compared_entitys_value_kept_from_outside_the_scope_is_its_own():
    a, b = "Nova 27QX 게이밍 모니터", "Nova 32UX Monitor for Creators"
    context = Context("hierarchical", "", "", [
        _el(1, "스피커 : 2W x 2", (a, "제품사양", "영상/음성")),
        _el(2, "Speakers : 5 W x 2", (b, "Specifications", "Audio"), outside=True),
    ], 0, entities=(EntityRef(a, (a,), "doc"), EntityRef(b, (b,), "doc")),
        lexicon=Lexicon(((frozenset({"speaker"}), frozenset({"스피커"})),)))  # the collection's pair
    table = build_table("Compare the speakers of the Nova 27QX and the Nova 32UX.", context)
    assert table is not None and [r.value for r in table.rows] == ["2W x 2", "5 W x 2"]


def test_every_row_states_the_same_attribute():
    """"지원 색 깊이" shares "지원" with "PBP/PIP 지원": it was the 24FL's row, though the 24FL states no PBP/PIP."""
    a, b = "Nova 24FL 사무용 모니터", "Nova 34WC 울트라와이드 모니터"
    context = Context("hierarchical", "", "", [
        _el(1, "지원 색 깊이 : 8bit", (a, "제품사양", "입력 신호")),
        _el(2, "PBP/PIP : O", (b, "제품사양", "영상/음성")),
    ], 0, entities=(EntityRef(a, (a,), "doc"), EntityRef(b, (b,), "doc")))
    table = build_table("Nova 24FL과 Nova 34WC의 PBP/PIP 지원 비교", context)
    assert table is not None and [r.value for r in table.rows] == [None, "O"]


# -- the real pipeline on the samples ------------------------------------------------------------------------------


def _hierarchical(store, question: str) -> str:
    return compare(store, RetrievalRequest(question), answerer=ExtractiveAnswerer()).results["hierarchical"].answer.text


def test_samples_cross_language_speakers_of_two_products(samples_store):
    answer = _hierarchical(samples_store, "Compare the speakers of the Nova 27QX and the Nova 32UX.")
    rows = answer.splitlines()
    assert any("27QX" in r and "2W x 2" in r for r in rows) and any("32UX" in r and "5 W x 2" in r for r in rows)


def test_samples_korean_brightest(samples_store):
    first = _hierarchical(samples_store, "Nova 24FL, Nova 27QX, Nova 34WC 중 가장 밝은 모니터는?").splitlines()[0]
    assert "27QX" in first and "350 cd/m²" in first


def test_samples_speaker_of_one_product_asked_in_korean(samples_store):
    answer = _hierarchical(samples_store, "Nova 27QX 모니터의 스피커 사양은 무엇인가요?")
    assert answer.splitlines()[0] == "스피커: 2W x 2", answer


def test_samples_attribute_looked_up_by_its_own_words_inside_the_scope(samples_store):
    """The preamble's words ("노바 모니터 사양") ranked the sheet's marketing paragraphs above its one
    "응답속도 : 1 ms (GtG)" item."""
    answer = _hierarchical(samples_store, "노바 모니터 사양 기준으로, Nova 27QX의 응답속도는?")
    assert answer.splitlines()[0] == "응답속도: 1 ms (GtG)", answer


def test_samples_attribute_heading_of_another_product_is_not_the_scope(samples_store):
    retrieval = retrieve(samples_store, RetrievalRequest("Nova 27QX의 PBP/PIP은(는) 무엇인가요?"))
    assert retrieval.searched_under is not None and "27QX" in retrieval.searched_under
    assert "34WC" not in retrieval.searched_under


# -- the real pipeline on a small Python-Markdown-like corpus ----------------------------------------------------

_DOCS = {
    "extensions.md": "# Extensions\n\nAvailable extensions.\n\n## Included Extensions\n\n"
                     "| Extension | Entry Point | Dot Notation |\n| --- | --- | --- |\n"
                     "| Footnotes | footnotes | markdown.extensions.footnotes |\n"
                     "| Tables | tables | markdown.extensions.tables |\n"
                     "| Table of Contents | toc | markdown.extensions.toc |\n"
                     "| WikiLinks | wikilinks | markdown.extensions.wikilinks |\n",
    "writing.md": "# Writing Extensions for Python-Markdown\n\nHow to write extensions for Python-Markdown.\n\n"
                  "## Naming an Extension\n\nUse `markdown.markdown(text, extensions=['myextension'])`.\n\n"
                  "### Dot Notation\n\nAn extension is named by its Python dot notation path.\n",
    "cli.md": "# Using Python-Markdown on the Command Line\n\n## Using Extensions\n\n"
              "Python-Markdown extensions are named with `-x`.\n",
    "release.md": "# Python-Markdown 2.6 Release Notes\n\n## Extension Names Deprecated\n\n"
                  "Python-Markdown extension names changed; every extension default stays.\n",
    "toc.md": "# Table of Contents\n\n## Summary\n\nThe Table of Contents extension generates a table of contents "
              "for Python-Markdown.\n\n## Usage\n\nThe following options are provided to configure the output:\n\n"
              "* **`marker`**:\n    Text to find and replace with the Table of Contents. Defaults to `[TOC]`.\n\n"
              "* **`title`**:\n    Title to insert. Defaults to `None`.\n\n"
              "* **`baselevel`**:\n    Base level for headers. Defaults to `1`.\n\n"
              "* **`slugify`**:\n    Callable to generate anchors.\n\n    Default: `markdown.extensions.toc.slugify`\n",
    "tables.md": "# Tables\n\n## Summary\n\nThe Tables extension adds tables to Python-Markdown.\n\n## Usage\n\n"
                 "The following options are provided to change the default behavior:\n\n"
                 "* **`use_align_attribute`**: Set to `True` to use `align` instead of an appropriate `style` "
                 "attribute\n\n    Default: `'False'`\n",
    "footnotes.md": "# Footnotes\n\n## Summary\n\nThe Footnotes extension adds footnotes to Python-Markdown.\n\n"
                    "## Usage\n\nUse `footnotes` as the name of the extension.\n",
    "wikilinks.md": "# WikiLinks\n\n## Summary\n\nThe WikiLinks extension adds wiki links to Python-Markdown.\n\n"
                    "## Usage\n\nUse `wikilinks` as the name of the extension.\n",
}


@pytest.fixture
def extensions_store(store, tmp_path: Path):
    from core.ingest import ingest_paths

    for name, text in _DOCS.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    report = ingest_paths(store, [tmp_path])
    assert not report.errors, report.errors
    return store


def _answer(store, question: str) -> str:
    return ExtractiveAnswerer().complete(question, retrieve(store, RetrievalRequest(question)).hierarchical)


def test_module_path_question_answers_from_the_page_its_initials_name(extensions_store):
    question = "For the `markdown.extensions.toc` extension, what is the default `marker`?"
    retrieval = retrieve(extensions_store, RetrievalRequest(question))
    assert retrieval.searched_under == "Table of Contents"
    answer = ExtractiveAnswerer().complete(retrieval.question, retrieval.hierarchical)
    assert answer.splitlines()[0] == "marker: [TOC]", answer


def test_option_default_stated_in_a_paragraph_below_its_item(extensions_store):
    answer = _answer(extensions_store, "In Python-Markdown, what is the default of `use_align_attribute` for the "
                                       "Tables extension?")
    assert answer.splitlines()[0] == "use_align_attribute: 'False'", answer


def test_korean_comparison_reads_the_table_listing_the_extensions(extensions_store):
    answer = _answer(extensions_store, "Footnotes와 WikiLinks의 Dot Notation을 비교해 주세요")
    assert "markdown.extensions.footnotes" in answer and "markdown.extensions.wikilinks" in answer, answer


def test_a_preamble_holding_a_document_title_whole_names_that_document():
    """"Migration" in the question proper is a table column; the preamble names the 9.0 notes, whose words counted
    for little, so the 8.0 notes' "Custom Fence Changes" section (one more word: "fence") won."""
    headings = []
    for n, (version, section) in enumerate((("9.0", "Arithmatex"), ("8.0", "Custom Fence Changes"),
                                            ("7.0", "Overview"))):
        title = f"{version} Migration Notes"
        headings += [_heading(10 * n, title, (), version), _heading(10 * n + 1, section, (title,), version)]
    others = ("SuperFences", "Highlight", "Emoji", "Tabbed", "Details", "Tasklist", "Caret", "Mark", "Tilde", "Keys")
    headings += [_heading(40 + i, t, (), f"x{i}") for i, t in enumerate(others)]
    match = best_headings("In 9.0 Migration Notes, what is the Migration of fence_mathjax_preview_format?", headings)
    # Tied scopes come in the index's document order; the 9.0 notes must be among them (before, "fence" alone won).
    assert match is not None and "9.0 Migration Notes" in {h.text for h in match.headings}, match
