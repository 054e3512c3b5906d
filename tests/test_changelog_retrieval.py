"""Questions about a changelog, retrieved and answered end to end (issue 29): a version the question names is the
release's own section however either writes it ("2.4.0" / "### v2.4.0"), a cited issue ("#4711") pins its entry,
and asked which release something came in, the answer names the release. Real Postgres, real USE embeddings."""

from __future__ import annotations

import uuid

import pytest

from core.changelog import cites
from core.ingest import SourceFile, ingest
from core.retrieval.analysis import analyse
from core.store import ElementStore
from core.textnorm import is_release_version, name_words, version_forms
from tests.helpers_context import ask

# Two changelog styles: "### vX.Y.Z" over a date line, and Keep a Changelog's "## [X.Y.Z](…) - date"; release
# numbers that share digits (1.4.0 / 1.14.0, 2.4.0 / 2.14.0), so only an exact match finds the right one.
TOOL_CHANGELOG = "# Changelog\n\n" + "".join(
    f"### v{version}\n\n_{day} March 2024_\n\n"
    f"- Fixes the cache of the build step on {platform} runners (#{4700 + i})\n"
    f"- Updates the pinned {platform} images to their {day} March release (#{4800 + i})\n\n"
    for i, (version, day, platform) in enumerate([
        ("2.14.0", 21, "Windows"), ("2.4.0", 14, "macOS"), ("2.3.1", 7, "Linux"), ("2.3.0", 2, "FreeBSD"),
    ])
)
PLUGIN_HISTORY = "# Plugin history\n\n" + "".join(
    f"## [{version}](https://example.org/plugin-v{version}) - {date} ## {{: #plugin-v{version} }}\n\n"
    f"***Added:***\n\n- {entry}\n- Support the release of wheels for {version}\n\n"
    for version, date, entry in [
        ("1.14.0", "2023-04-02", "Add the `only-include` option for source distribution targets"),
        ("1.4.0", "2022-07-03", "Add the version build hook"),
        ("1.1.0", "2022-05-20", "Add the `dev-mode-dirs` option"),
    ]
)
REFERENCE = """\
# Build configuration

## Options

### only-include

Only the paths listed here are shipped in the source distribution.

- Default: `[]`

### cache-dir

Where downloads are cached between runs.

- Default: `~/.cache/tool`

## Making a release

Bump the version, update the changelog, then tag the release and push the tag.
"""
# A release post titled with the version: it tells about the release, the changelog's section is the release's own.
POST = """\
# Tool v2.4.0

Tool v2.4.0 brings faster builds on macOS runners and a new cache layout, released after a long beta.

## Cache layout

The cache now keeps one folder per runner image.
"""


@pytest.fixture(scope="module")
def changelogs(db_url, use_embeddings):
    """One collection for the module: every test only reads it."""
    store = ElementStore(db_url, f"t_{uuid.uuid4().hex[:10]}", use_embeddings)
    report = ingest(store, [SourceFile("CHANGELOG.md", TOOL_CHANGELOG.encode()),
                            SourceFile("plugin-history.md", PLUGIN_HISTORY.encode()),
                            SourceFile("config.md", REFERENCE.encode()), SourceFile("post.md", POST.encode())])
    assert not report.errors
    yield store
    store.drop()



def test_a_version_written_with_or_without_v_is_one_word() -> None:
    assert version_forms("2.4.0") == ("v2.4.0",) and version_forms("V2.4.0") == ("2.4.0",)
    assert version_forms("release") == () and version_forms("2024") == ()
    assert "2.4.0" in name_words("v2.4.0") and "2.4.0" in name_words("Release v2.4.0 (2024-03-14)")
    assert is_release_version("1.14.0") and is_release_version("v4.3")
    assert not is_release_version("3.12") and not is_release_version("24FL")  # a Python version, a model


@pytest.mark.parametrize(("question", "version", "date"), [
    ("when was tool 2.4.0 released?", "v2.4.0", "14 March 2024"),  # "### v2.4.0", the date on the line below it
    ("plugin 1.4.0 release date", "1.4.0", "2022-07-03"),  # not 1.14.0, whose number holds 1.4.0's digits
    ("what day did plugin v1.14.0 come out", "1.14.0", "2023-04-02"),
])
def test_the_release_a_question_names_is_its_scope_and_its_date_the_answer(changelogs, question, version, date):
    result, answer = ask(changelogs, question)
    assert result.searched_under is not None and result.searched_under.split(" › ")[-1].startswith(
        version if version.startswith("v") else f"{version} ")
    assert answer.splitlines()[0].endswith(date), answer
    assert version.removeprefix("v") in answer


def test_a_cited_issue_pins_its_entry_and_the_answer_names_the_release(changelogs):
    question = "which tool release has the change for issue #4702?"
    assert analyse(question).references == ("4702",)
    result, answer = ask(changelogs, question)
    assert cites(result.hits[0].element.page_content, "4702")  # the one entry citing it leads the hits
    assert "cites #4702" in result.notes[0]
    # its release leads the answer; "Making a release"-like headings named by "release" are no place to look
    assert answer.splitlines()[0] == "Release: v2.3.1", answer
    assert not cites("see PR #47021 and &#4702;", "4702")


def test_the_words_asking_which_release_name_no_heading(changelogs):
    question = "in what tool release did this land: updates the pinned macOS images to their 14 March release"
    result, answer = ask(changelogs, question)
    assert "Making a release" not in (result.searched_under or ""), result.notes
    assert answer.splitlines()[0] == "Release: v2.4.0", answer


def test_asked_which_release_added_a_thing_the_entry_and_its_release_answer(changelogs):
    _result, answer = ask(changelogs, "which plugin version added the only-include option for source distributions?")
    assert answer.splitlines()[0].startswith("Release: 1.14.0"), answer
    assert "only-include" in answer


def test_asked_about_the_thing_the_definition_answers_not_the_changelog_line(changelogs):
    _result, answer = ask(changelogs, "what is the default of only-include?")
    assert "[]" in answer and "Build configuration" in answer, answer
    assert "Release:" not in answer

