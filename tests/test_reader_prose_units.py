"""Which unit of a prose context the extractive answer quotes (docs/prose-units.md): asked what a thing does, the
section's description, not the line of its metadata (type, default, flags); a struck-through option heading
("~~`locale`~~") still names its option; asked how, an instruction about as close in another section, not a
description. The similarities are of the size the USE embedder gives such units; the texts are not any tune
corpus's."""

from __future__ import annotations

from core.answering import ExtractiveAnswerer
from core.answering.parts import parts_in_context
from core.statements import option_heading

from .test_reader_faq import context, element

OPTIONS = ("Options for the tool",)


def option_section(name: str, flag: str) -> list:
    section = (*OPTIONS, name)
    return [
        element(1, "ancestor", "Title", name, OPTIONS),
        element(2, "hit", "NarrativeText", "Type: Bool Default: False Config default: false CLI Flags:", section,
                0.31, 0),
        element(3, "child", "ListItem", flag, section, 0.74),
        element(4, "child", "NarrativeText", "Prints every diagnostic in the colours of the terminal, one line "
                "a file.", section, 0.24),
    ]


def test_asked_what_an_option_does_its_description_answers_not_its_metadata_line() -> None:
    ctx = context(element(0, "ancestor", "Title", OPTIONS[0], ()), *option_section("Color Output", "--color-output"))
    answer = ExtractiveAnswerer().complete("what does --color-output do in the tool", ctx)
    assert "Prints every diagnostic" in answer and "Type: Bool" not in answer
    # asked for its default, the metadata line is the answer, as before
    answer = ExtractiveAnswerer().complete("what is the default of --color-output in the tool", ctx)
    assert "Default: False" in answer


def test_a_struck_through_heading_names_the_option_it_documents_as_deprecated() -> None:
    assert option_heading("~~`locale`~~") == "locale" and option_heading("~~locale~~") == "locale"
    assert option_heading("~~Usage~~") is None and option_heading("~~a~~b~~") is None
    struck = ("Usage", "Global options", "~~`locale`~~")
    paths = ("Usage", "Finding modules", "The paths option")
    ctx = context(
        element(0, "ancestor", "Title", "Usage", ()),
        element(1, "hit", "CodeSnippet", "plugins:\n  - docs:\n      handlers:\n        paths: [..]", paths, 0.57, 0),
        element(2, "hit", "NarrativeText", "Deprecated. Use the site generator's own locale setting.", struck, 0.56, 1),
    )
    answer = ExtractiveAnswerer().complete("docs handlers locale option?", ctx)
    assert "Deprecated" in answer


def test_asked_how_an_instruction_about_as_close_elsewhere_answers_before_a_description() -> None:
    contributing = ("Contributing", "Testing")
    ci = ("Continuous integration", "Tox")
    ctx = context(
        element(0, "ancestor", "Title", contributing[0], ()),
        element(1, "hit", "NarrativeText", "The project has many unit tests. It uses tox environments to test every "
                "supported Python version.", contributing, 0.50, 0),
        element(2, "ancestor", "Title", ci[0], (), document="doc-2"),
        element(3, "hit", "NarrativeText", "To view the generated tox environments run tox -l.", ci, 0.44, 1,
                document="doc-2"),
    )
    answer = ExtractiveAnswerer().complete("how do I list the environments tox generates for my tests", ctx)
    assert "tox -l" in answer
    # not asked how: the best unit keeps its place
    answer = ExtractiveAnswerer().complete("what does the project test with tox environments", ctx)
    assert "many unit tests" in answer


def test_a_code_example_or_an_faq_entrys_answer_leading_keeps_its_place_before_a_close_instruction() -> None:
    faq = ("FAQ", "Can I see the next version without releasing?")
    ctx = context(
        element(0, "ancestor", "Title", faq[0], ()),
        element(1, "hit", "Title", faq[1], faq[:1], 0.66, 0),
        element(2, "child", "NarrativeText", "Yes, with the dry-run option, which prints the next version.", faq,
                0.33),
        element(3, "ancestor", "Title", "Recipes", (), document="doc-2"),
        element(4, "hit", "NarrativeText", "Make sure your CI job can run the release command with the right "
                "version of the runtime.", ("Recipes",), 0.44, 1, document="doc-2"),
    )
    answer = ExtractiveAnswerer().complete("how can I see which version the tool would publish without releasing",
                                           ctx)
    assert "dry-run" in answer.splitlines()[1]


def test_a_heading_the_question_names_whole_across_its_and_is_one_name_not_two_asks() -> None:
    section = ("Philosophy", "Sequence setup and teardown control")
    ctx = context(
        element(0, "ancestor", "Title", section[0], ()),
        element(1, "hit", "Title", section[1], section[:1], 0.52, 0),
        element(2, "hit", "TableRow", "Command: tool destroy · Action: Cleans up all resources · Usage: Environment "
                "teardown and reset", section, 0.30, 1),
        element(3, "hit", "TableRow", "Command: tool create · Action: Creates the instances · Usage: First run",
                section, 0.28, 2),
        element(4, "ancestor", "Title", "Reference", (), document="doc-2"),
        element(5, "hit", "ListItem", "Usage: tool destroy [scenario-name]", ("Reference", "tool destroy"), 0.55, 3,
                document="doc-2"),
    )
    question = "what's the Usage for tool destroy in the Sequence setup and teardown control table"
    answer = ExtractiveAnswerer().complete(question, ctx)
    assert "Environment teardown and reset" in answer and "[scenario-name]" not in answer
    # two asks joined by "and" outside any heading's name are still two, beside the name too
    assert len(ExtractiveAnswerer().units_per_part("tool destroy usage and tool create action?", ctx)) == 2
    assert parts_in_context(f"{question} and what's the create action", ctx) == (
        f"{question}?", "what's the create action?")
