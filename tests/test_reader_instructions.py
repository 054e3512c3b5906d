"""The reader on how-to questions and on a code-and-title heading (issue 29, docs/heldout-faq4.md): asked how to do
something, the unit that says what to do answers, not the section's opening description; asked which code (a
rule, an error) a thing has, the section whose title the question names answers, its heading giving the code; a key
written in the plural ("Aliases:") is found and read when the question asks in the singular.
The similarities are of the size the USE embedder gives such units; the texts are not any tune corpus's."""

from __future__ import annotations

from dataclasses import replace

from core.answering import ExtractiveAnswerer, prompts
from core.answering.instructions import asks_how, instructs
from core.answering.named_sections import heading_name_terms
from core.retrieval import Context
from core.statements import attribute_share, in_other_number, question_terms, terms

from .test_reader_faq import context, element

PAGE = ("Logging",)


def logging_page() -> Context:
    # the page's opening sentence shares the question's words best and is the closer by the embedder
    return context(
        element(0, "ancestor", "Title", PAGE[0], ()),
        element(1, "hit", "NarrativeText", "The tool writes a log line for every task it runs.", PAGE, 0.52, 0),
        element(2, "ancestor", "Title", "Quiet mode", PAGE),
        element(3, "hit", "NarrativeText", "Each task's log lines can be silenced by passing the --quiet flag.",
                (*PAGE, "Quiet mode"), 0.46, 1),
        element(4, "ancestor", "Title", "Log files", PAGE),
        element(5, "hit", "NarrativeText", "Log files are kept for a week before they are removed.",
                (*PAGE, "Log files"), 0.40, 2),
    )


def test_asked_how_to_do_something_the_unit_that_says_what_to_do_answers() -> None:
    answer = ExtractiveAnswerer().complete("how do I silence a task's log lines in the tool", logging_page())
    assert "--quiet" in answer
    # asked what it does, not how to do something: the unit that scores best is quoted, as before
    first = ExtractiveAnswerer().evidence("what does the tool write for every task", logging_page())[0]
    assert first.element.element_id == "e1"


def test_what_should_i_do_is_answered_by_the_advice_not_by_the_explanation() -> None:
    section = ("Troubleshooting", "Merged pull requests are skipped")
    ctx = context(
        element(0, "ancestor", "Title", section[0], ()),
        element(1, "hit", "Title", section[1], section[:1], 0.79, 0),
        element(2, "hit", "NarrativeText", "Merged pull requests are skipped when their title does not follow the "
                "naming convention: the tool reads titles to decide what changed.", section, 0.53, 1),
        element(3, "child", "NarrativeText", "When merging, make sure to edit the pull request's title so that it "
                "follows the naming convention.", section, 0.37),
    )
    answer = ExtractiveAnswerer().complete("merged pull requests are skipped by the tool, what should I do", ctx)
    assert "make sure to edit" in answer


def test_a_lead_in_listing_the_ways_and_a_value_stated_keep_their_place() -> None:
    section = ("FAQ", "How can I undo a release?")
    ctx = context(
        element(0, "ancestor", "Title", section[0], ()),
        element(1, "hit", "Title", section[1], section[:1], 0.64, 0),
        element(2, "child", "NarrativeText", "If a release broke something you have 2 options:", section, 0.34),
        element(3, "child", "ListItem", "Publish a fix right away", section, 0.37),
        element(4, "hit", "ListItem", "Otherwise, undo the change that broke it and publish again", section, 0.42, 1),
        element(5, "hit", "NarrativeText", "With the older format, you should pass the --edit option "
                "when undoing a change.", section, 0.24, 2),
    )
    answer = ExtractiveAnswerer().complete("I published a broken release, how do I undo it", ctx)
    assert "--edit" not in answer and ("undo the change that broke it" in answer or "Publish a fix" in answer)


def test_how_to_questions_and_instructions_in_both_languages() -> None:
    assert asks_how("how do I hide the output") and asks_how("how to pin a version")
    assert asks_how("squashed commits are ignored, what should I do") and asks_how("로그를 끄려면 어떤 옵션?")
    assert not asks_how("how long is the timeout?") and not asks_how("보안 정책은 어떻게 되나요?")
    assert instructs("To disable it, set the `strict` parameter to true.") and instructs("Use --hide 0")
    assert instructs("설정 파일에 경로를 적어 주면 됩니다. 자세한 내용은 문서를 확인하세요.")
    assert not instructs("The tool writes a log line for every task it runs.")


def test_a_code_and_title_heading_is_named_by_its_title() -> None:
    assert heading_name_terms("AB030 - Spaces after list markers") == terms("Spaces after list markers")
    assert heading_name_terms("`E403`: Forbidden") == terms("Forbidden")
    # a release with its date, and a heading that is no code and title, keep every term
    assert heading_name_terms("v1.2.0 - 2023-01-01") == terms("v1.2.0 - 2023-01-01")
    assert heading_name_terms("Class: Pool") == terms("Class: Pool")


def test_asked_which_code_a_thing_has_the_section_titled_with_it_answers() -> None:
    rule = ("Rules", "AB030 - Spaces after list markers")
    other = ("Rules", "AB029 - Ordered item prefix")
    ctx = context(
        element(0, "ancestor", "Title", rule[0], ()),
        element(1, "ancestor", "Title", rule[1], rule[:1]),
        element(2, "hit", "NarrativeText", "This rule checks the number of spaces between a marker and the item's "
                "text.", rule, 0.47, 0),
        element(3, "ancestor", "Title", other[1], other[:1]),
        element(4, "hit", "NarrativeText", "This rule checks the prefix of ordered items.", other, 0.41, 1),
    )
    answer = ExtractiveAnswerer().complete("lintkit rule for spaces after list markers?", ctx)
    assert "AB030" in answer



def test_a_key_in_the_plural_is_the_attribute_asked_in_the_singular_and_is_looked_up_in_both_numbers() -> None:
    # the stemmer keeps "alias" (alia) and "Aliases" (alias) apart: the probe's key share read 0 before, and its
    # lookup by "alia" never found the "Aliases: link-image-style" line of a long rule page
    assert attribute_share(question_terms("what's the alias of ZZ054"), "Aliases") == 1.0
    assert attribute_share(question_terms("which tags does ZZ054 have"), "Tag") == 1.0
    assert in_other_number("what's the alias for ZZ054", terms("alias")) == ["aliases"]
    assert in_other_number("which policies apply to ZZ054", terms("policies")) == ["policy"]
    assert in_other_number("최대 주사율 alias", terms("최대")) == []


def _warmup_page(outside: bool) -> Context:
    """A section the question names ("Warm-up") whose way to turn it off shares no other word of the question
    ("skip" against "disable"), a later instruction refining it, and a better-scoring paragraph elsewhere holding
    the question's "skip" (kept from outside the scope when ``outside``)."""
    section = ("Configuration", "Warm-up")
    ctx = context(
        element(0, "ancestor", "Title", section[0], ()),
        element(1, "hit", "Title", section[1], section[:1], 0.35, 0),
        element(2, "hit", "NarrativeText", "To help the runner find its plugins, the tool performs a warm-up set of "
                "actions before each run.", section, 0.42, 1),
        element(3, "child", "NarrativeText", "If the warm-up does not suit your needs, you can still disable it by "
                "adding warmup: false inside the configuration file.", section, 0.23),
        element(4, "child", "NarrativeText", "Keep in mind that you can add this value to the global configuration "
                "file too.", section, 0.35),
        element(5, "hit", "NarrativeText", "The tool will skip tasks which are tagged with notest.",
                ("Configuration", "Runner"), 0.65, 2),
    )
    if outside:
        ctx.elements[5] = replace(ctx.elements[5], outside_scope=True)
    return replace(ctx, named=(section[1],))


def test_asked_how_the_first_instruction_of_the_named_section_answers_though_it_shares_no_other_word() -> None:
    for outside in (False, True):
        answer = ExtractiveAnswerer().complete("how do I skip the warm-up step", _warmup_page(outside))
        assert "warmup: false" in answer, answer
        # the instruction scores less than the context's best match: the context is no weak match for that
        assert prompts.EXTRACTIVE_WEAK_NOTE not in answer, answer
    # not asked how: the section's instruction is not promoted
    first = ExtractiveAnswerer().evidence("what is the warm-up step", _warmup_page(False))[0]
    assert "warmup: false" not in first.element.text
