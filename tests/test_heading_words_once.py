"""A question's word counts once in the heading scope (issue 29): a plain hyphenated or dotted word
("semantic-release", "package.json") is one word, not itself plus each of its parts. Unit tests on a heading index
built by hand."""

from __future__ import annotations

from core.retrieval.headings import HeadingIndex, HeadingRef, best_headings


def _heading(i: int, text: str, path: tuple[str, ...] = (), doc: str = "d") -> HeadingRef:
    return HeadingRef(f"{i:032x}", text, path, doc, f"{doc}.md")


def _index(texts: list[tuple[str, tuple[str, ...], str]]) -> HeadingIndex:
    """``texts`` (heading, path, document) with a dozen unrelated documents, so that word rarities are a corpus's."""
    texts = [*texts, *((f"Section {n}", (), f"doc{n}") for n in range(12))]
    return HeadingIndex(_heading(i, text, path, doc) for i, (text, path, doc) in enumerate(texts, 1))


def _tool_docs() -> HeadingIndex:
    """A tool's FAQ and troubleshooting pages among its other pages; a few headings repeat the tool's name."""
    faq, trouble = ("Frequently Asked Questions",), ("Troubleshooting",)
    texts = [
        (faq[0], (), "faq"),
        ("Can I use auto-deploy to publish non-JavaScript packages?", faq, "faq"),
        ("Can I run auto-deploy on my local machine?", faq, "faq"),
        ("Why is the version not updated in my repository?", faq, "faq"),
        (trouble[0], (), "trouble"),
        ("You do not have permission to publish 'package-name'", trouble, "trouble"),
        ("Squashed commits are ignored by auto-deploy", trouble, "trouble"),
        ("Reference tags are missing", trouble, "trouble"),
        ("Using auto-deploy with GitLab", (), "gitlab"),
        ("Using auto-deploy with Travis", (), "travis"),
        ("Plugins", (), "plugins"),
        ("Shareable configurations", (), "config"),
        ("Configuration file", (), "config"),
        ("Options", (), "config"),
    ]
    return _index(texts)


def test_a_hyphenated_name_counts_once_so_the_heading_stating_the_error_is_the_scope():
    # "auto-deploy" is also "ship" and "it": counted three times over, the FAQ entry naming the tool and "publish"
    # outscored the troubleshooting entry holding the rarer "permission" and "publish"
    match = best_headings("auto-deploy E403 you do not have permission to publish - why?", _tool_docs())
    assert match is not None
    assert [h.text for h in match.headings] == ["You do not have permission to publish 'package-name'"]


def test_a_name_still_scopes_where_it_is_the_only_word_matched():
    match = best_headings("does auto-deploy work with gitlab?", _tool_docs())
    assert match is not None
    assert [h.text for h in match.headings] == ["Using auto-deploy with GitLab"]


# -- a clipped word ----------------------------------------------------------------------------------------------


def _config_docs() -> HeadingIndex:
    texts = [
        ("Configuration", (), "config"),
        ("Configuration file", ("Configuration",), "config"),
        ("Options", ("Configuration",), "config"),
        ("Using auto-deploy with CircleCI", (), "circle"),
        (".circleci/config.yml for auto-deploy jobs", ("Using auto-deploy with CircleCI",), "circle"),
        ("Custom Rules", (), "rules"),
        ("Authoring", ("Custom Rules",), "rules"),
        ("Asynchronous Rules", ("Custom Rules", "Authoring"), "rules"),
        ("Important notes", (), "notes"),
    ]
    return _index(texts)


def test_a_clipped_word_names_the_heading_writing_it_whole():
    # "config" is "configuration" clipped: the heading of the configuration file, not the CI page whose file name
    # holds "config" and whose title repeats the tool's name
    match = best_headings("where can auto-deploy config live? file names", _config_docs())
    assert match is not None
    assert [h.text for h in match.headings] == ["Configuration file"]
    index = _config_docs()
    assert index.long_forms("config") == ["configuration"]
    assert index.long_forms("async") == ["asynchronous"]


def test_an_inflection_or_a_word_sharing_a_stem_is_no_clipped_form():
    index = _config_docs()
    assert index.long_forms("import") == []  # "important" is not "import" clipped
    assert index.long_forms("option") == []  # "options" is its plural, matched as such elsewhere
    assert index.long_forms("rule") == []  # four letters: too short to tell a clipped word from another
