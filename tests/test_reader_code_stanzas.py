"""A long code block of examples is read by its stanzas (the lines between blank lines: a comment and the lines it
explains): the answer quotes the example the question asks for, wherever it sits in the block, not the block's top
cut at the excerpt's length. Contexts are built straight from parsed elements (no database)."""

from __future__ import annotations

from core.answering import ExtractiveAnswerer
from core.answering.extractive import EXCERPT_CHARS
from core.elements import Element
from core.markdown_loader import parse_markdown
from tests.helpers_context import tree_context

EXAMPLES = "\n\n".join(f"# Leave out the {tool} targets on {system}\nomit = \"{tool[:3]}-{system[:3]}*\""
                       for tool in ("zephyr", "quartz", "marlin") for system in ("linux", "solaris", "haiku"))
EXAMPLES += '\n\n# Leave out the Oberon targets everywhere\nomit = "obe-*"\n'
MARKDOWN = f"# Settings\n\n## omit\n\nTargets to leave out.\n\n### Examples\n\n```toml\n{EXAMPLES}```\n"


def _answer(question: str) -> str:
    elements = [Element.from_document(d) for d in parse_markdown(MARKDOWN, source="settings.md", document_id="d")]
    code = next(e for e in elements if e.category == "CodeSnippet")
    assert len(code.text) > EXCERPT_CHARS  # long enough to be cut
    return ExtractiveAnswerer().complete(question, tree_context(elements, [code.element_id]))


def test_the_example_asked_for_is_quoted_from_the_middle_of_a_long_block():
    answer = _answer("How do I leave out the marlin targets on haiku?")
    assert 'omit = "mar-hai*"' in answer and "zephyr" not in answer, answer


def test_the_rarest_word_asked_picks_the_stanza_when_every_stanza_shares_the_others():
    # "leave out" and "targets" are in every stanza; only one says Oberon
    answer = _answer("How do I leave out the Oberon targets?")
    assert 'omit = "obe-*"' in answer and "marlin" not in answer, answer


def test_prose_is_still_read_by_sentences():
    markdown = ("# Guide\n\n" + " ".join(f"Sentence {i} talks about filler topic number {i}." for i in range(20))
                + " The quokka setting defaults to seven.\n")
    elements = [Element.from_document(d) for d in parse_markdown(markdown, source="g.md", document_id="g")]
    text = next(e for e in elements if e.category == "NarrativeText")
    answer = ExtractiveAnswerer().complete("what does the quokka setting default to?",
                                           tree_context(elements, [text.element_id]))
    assert "quokka setting defaults to seven" in answer and "Sentence 0 " not in answer, answer
