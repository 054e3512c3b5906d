"""The reader's units, ninth round (issue 29): a clipped word is held by the text writing it whole, an excerpt's
sentence ties go to the question's own words, and an FAQ answered in steps is quoted as its list. Contexts are
built straight from parsed elements (no database)."""

from __future__ import annotations

from core.answering import ExtractiveAnswerer
from core.answering.extractive import _excerpt
from core.elements import Element
from core.markdown_loader import parse_markdown
from core.statements import question_terms, terms
from tests.helpers_context import tree_context

LINE_LENGTH = (
    "This rule has an exception when there is no whitespace beyond the configured line length. This allows you to "
    "include items such as long URLs without being forced to break them in the middle. To disable this exception, "
    "set the strict parameter to true and an issue will be reported when any line is too long. To warn for lines "
    "that are too long and could be fixed but allow long lines without spaces, set the stern parameter to true.")


def _parsed(markdown: str, name: str) -> list[Element]:
    return [Element.from_document(d) for d in parse_markdown(markdown, source=name, document_id="doc-1")]


def _context(markdown: str, hits: list[str]):
    """The context whose hits are the elements starting with each of ``hits``, in that order."""
    elements = _parsed(markdown, "doc.md")
    ids = [next(e.element_id for e in elements if e.text.startswith(start)) for start in hits]
    return tree_context(elements, ids)


def test_an_excerpt_ties_go_to_the_sentence_holding_the_questions_own_words():
    # "long" adds "length" to the words asked: the first sentence ("… line length.") held as many of the words
    # asked as the second ("long URLs"), and the excerpt stopped before the sentence naming `strict`
    question = "make it fail on any long line, even URLs"
    excerpt = _excerpt(LINE_LENGTH, question_terms(question), None, terms(question))
    assert "strict" in excerpt and excerpt.startswith("… This allows you"), excerpt
    # without the question's own words, the first of the tied sentences leads, as before
    assert "strict" not in _excerpt(LINE_LENGTH, question_terms(question), None)


def test_a_clipped_word_is_held_by_the_text_writing_it_whole():
    markdown = ("# Custom Rules\n\nIn addition to its built-in rules, quilltool lets you add rules of your own.\n\n"
                "## Asynchronous Rules\n\nIf a quilltool rule needs asynchronous operations, it sets its asynchronous "
                "property to true.\n")
    context = _context(markdown, ["In addition", "If a quilltool rule"])
    answer = ExtractiveAnswerer().complete("can a quilltool custom rule be async", context)
    assert "asynchronous operations" in answer, answer


def test_an_faq_answered_in_steps_is_quoted_as_its_list():
    markdown = ("# 고객지원 자주 묻는 질문\n\n## 고장\n\n### Q. 화면이 안 켜지는데 어디에 문의해야 하나요?\n\n"
                "- 먼저 아래 순서로 점검해 주세요.\n"
                "  1. 전원 케이블이 콘센트와 모니터에 꽂혀 있는지 확인합니다.\n"
                "  2. 전원 LED가 꺼져 있으면 다른 콘센트에 연결해 봅니다.\n"
                "- 그래도 켜지지 않으면 고객지원센터(1599-0427)로 연락해 주세요.\n")
    elements = _parsed(markdown, "faq.md")
    heading = next(e for e in elements if e.text.startswith("Q. 화면이"))
    # the item the steps nest under is their ancestor, as in the samples' FAQ; the steps and the last item are hits
    steps = [e for e in elements if e.category == "ListItem"][1:]
    context = tree_context(elements, [heading.element_id, *(e.element_id for e in steps)])
    answer = ExtractiveAnswerer().complete("화면이 안 켜지는데 어디에 문의해야 하죠?", context)
    assert "1599-0427" in answer and "전원 케이블" in answer, answer


def test_a_list_of_key_value_items_under_an_faq_heading_stays_one_unit_per_item():
    markdown = ("# FAQ\n\n## Q. Which ports does the monitor have?\n\n"
                "- HDMI: 2 inputs\n- DisplayPort: 1 input\n- USB-C: 1 port with 90 W charging\n")
    elements = _parsed(markdown, "faq.md")
    heading = next(e for e in elements if e.text.startswith("Q. Which ports"))
    items = [e for e in elements if e.category == "ListItem"]
    context = tree_context(elements, [heading.element_id, *(e.element_id for e in items)])
    answer = ExtractiveAnswerer().complete("How many HDMI inputs does the monitor have?", context)
    assert "2 inputs" in answer and "DisplayPort" not in answer, answer
