"""Identification questions (issue 29, docs/identification.md): asked *which* entry of a class (a check, a setting)
does something, the entry whose heading the question names whole under the heading naming its class is the scope,
and the answer names it; a block of ``key: value`` fields states the field asked; "list" inside a name asks for no
list. Real Postgres and USE embeddings for the end-to-end tests; the corpora are made up, not any tune corpus."""

from __future__ import annotations

import uuid

import pytest

from core.ingest import SourceFile, ingest
from core.retrieval.entries import named_entry, unclassed_entries
from core.retrieval.heading_refs import HeadingRef
from core.retrieval.headings import HeadingIndex
from core.retrieval.shape import question_shape
from core.statements import statement, terms
from core.store import ElementStore
from tests.helpers_context import ask

# A linter's reference: its checks under "Checks", each a code and a title. "check" is a rare word of the headings
# (only C310's title holds it in the singular) and "comment" a common one, so a match by the rarest word picks C310.
CHECKS = "# Checks\n\n" + "".join(
    f"## {code} - {title}\n\nTags: {tag}\n\n{body}\n\n"
    for code, title, tag, body in [
        ("C101", "Indentation width", "indent", "This check is triggered when a block is indented by other than the "
                                                "configured width."),
        ("C205", "Comment style", "comments", "This check is triggered when comments mix the line and the block "
                                              "forms in one file."),
        ("C206", "Comment length", "comments", "This check is triggered when a comment runs past the line limit."),
        ("C207", "Comment placement", "comments", "This check is triggered when a comment trails code on its line."),
        ("C310", "Separator check style", "separators", "This check is triggered when separators mix the dash and "
                                                        "the star forms."),
    ]
)
# A tool's settings under "Settings", each stating its fields on one line apiece; the tool's name is in every
# paragraph, and a guide elsewhere talks about workers at length.
SETTINGS = """\
# Configuration

## Settings

### workers

Type: `Number`<br>
Default: `4`<br>
Command line: `--workers`

The number of workers quarkbuild starts. quarkbuild never starts more workers than the machine has cores.

**Note**: quarkbuild reads this setting once, when it starts.

**Note**: quarkbuild shares one cache between its workers.

### retries

Type: `Number`<br>
Default: `2`<br>
Command line: `--retries`

How many times quarkbuild retries a failed step before it gives up.
"""
GUIDE = """\
# Scaling quarkbuild workers

quarkbuild workers run steps side by side. More workers finish a large build sooner, until the disk is the limit.

## Workers on a laptop

On a laptop, quarkbuild workers compete with the editor: fewer workers keep it responsive.
"""


@pytest.fixture(scope="module")
def references(db_url, use_embeddings):
    """One collection for the module: every test only reads it."""
    store = ElementStore(db_url, f"t_{uuid.uuid4().hex[:10]}", use_embeddings)
    report = ingest(store, [SourceFile("checks.md", CHECKS.encode()), SourceFile("configuration.md", SETTINGS.encode()),
                            SourceFile("scaling.md", GUIDE.encode())])
    assert not report.errors
    yield store
    store.drop()



def test_asked_which_check_does_a_thing_the_entry_titled_with_it_is_the_scope_and_the_answer(references) -> None:
    result, answer = ask(references, "which check enforces comment style")
    assert result.searched_under is not None and "C205 - Comment style" in result.searched_under, result.notes
    assert "C205" in answer and "C310" not in answer.splitlines()[0], answer


def test_the_field_asked_of_a_setting_named_under_its_class_is_reached(references) -> None:
    result, answer = ask(references, "command line flag of the workers setting (quarkbuild)")
    assert result.searched_under == "Configuration › Settings › workers", result.notes
    assert "--workers" in answer, answer


def _ref(n: int, text: str, path: tuple[str, ...], document: str = "d") -> HeadingRef:
    return HeadingRef(f"h{n}", text, path, document, f"{document}.md", n)


def test_an_entry_is_identified_only_when_named_whole_under_its_class_and_alone() -> None:
    index = HeadingIndex([
        _ref(0, "Rules", ()),
        _ref(1, "R1 - Heading style", ("Rules",)), _ref(2, "R2 - Horizontal rule style", ("Rules",)),
        _ref(3, "R3 - Heading length", ("Rules",)), _ref(4, "R3 - Heading length", (), "page"),
        _ref(5, "Guides", ()), _ref(6, "Heading style", ("Guides",)),
    ])
    found = named_entry("which rule checks heading style", index)
    assert found is not None and found.entry
    assert [h.element_id for h in found.headings] == ["h1"]  # not the guide's "Heading style": no class named
    # the entry's own page heads the scope beside its section in the class
    page = named_entry("rule for heading length?", index)
    assert page is not None and [h.element_id for h in page.headings] == ["h3", "h4"]
    assert named_entry("which guide covers heading style", index) is None  # a class of one child names no entry
    assert named_entry("which rule checks style", index) is None  # no title held whole
    assert named_entry("what is heading style", index) is None  # no class named


def test_an_entry_named_without_its_class_is_no_asking_word_and_no_part_of_a_longer_name() -> None:
    settings = [_ref(0, "Settings", ()), *(_ref(i, name, ("Settings",)) for i, name in enumerate(
        ["long", "timeout", "shell", "script-shell", "color"], start=1))]
    index = HeadingIndex(settings)
    found = unclassed_entries("what's the default color", index, set())
    assert found is not None and [h.text for h in found.headings] == ["color"]
    # "how long is …" asks a duration: the word after "how" names no setting
    assert unclassed_entries("how long is the color fade", index, set()) is not None
    assert "long" not in [h.text for h in unclassed_entries("how long is the color fade", index, set()).headings]
    # "which shell runs scripts" says `script-shell` whole ("scripts" in the other number): not the `shell` in it
    assert unclassed_entries("which shell runs scripts on posix?", index, set()) is None
    assert [h.text for h in unclassed_entries("which shell is used?", index, set()).headings] == ["shell"]


def test_a_block_of_fields_states_the_field_asked() -> None:
    block = "Type: Number<br> Default: 4<br> Command line: --workers"
    assert statement(terms("command line flag"), block) == ("Command line", "--workers")
    # asked for its default, or for no key of it, the block reads as before: its "Default:" field
    assert statement(terms("default workers"), block)[1] == "4"
    assert statement(terms("how many workers"), block)[1].startswith("4")


def test_list_inside_a_name_asks_for_no_list() -> None:
    assert question_shape("linter rule for unordered list style?") is None
    assert question_shape("what is the description of task-list?") is None
    assert question_shape("List the weight of every hub.").kind == "list"
    assert question_shape("can you list the ports of the Aster H1 and the Aster H2?").kind == "list"
    assert question_shape("give me a list of the weights of the Aster H1 and Aster H2").kind == "list"


def test_an_entry_named_without_its_class_is_a_runner_up_chosen_by_the_field_it_states(references) -> None:
    # the guide's heading holds both of the question's names ("quarkbuild", "workers") and is the best-named scope,
    # but states no command line; the setting "workers", named without its class, states it
    result, answer = ask(references, "what's the command line flag for workers in quarkbuild")
    assert result.searched_under == "Configuration › Settings › workers", result.notes
    assert "--workers" in answer, answer
