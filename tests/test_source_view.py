"""The Document tree's Source view (issue 33, item 7): a version rendered as markdown from its elements, every
text escaped, the selected element's place marked."""

from __future__ import annotations

from core.elements import Element
from core.markdown_loader import parse_markdown
from views.source import source_parts

DOC = """# Guide

Intro with <script>alert(1)</script>.

## Options

- `build`: what to build
    - nested: item

| name | default |
|---|---|
| jobs | 4 |

````py
code with ``` inside
````
"""


def _elements() -> list[Element]:
    return [Element.from_document(d) for d in parse_markdown(DOC, source="guide.md", document_id="d")]


def test_the_rendering_escapes_document_text_and_marks_the_selected_element():
    elements = _elements()
    item = next(e for e in elements if e.text.startswith("build"))
    parts = source_parts(elements, item.element_id)
    assert parts.before.startswith("## Guide") and "### Options" in parts.before
    assert parts.marked == "- build\\: what to build"
    assert parts.lines == (item.start_line, item.end_line) and item.start_line is not None
    assert parts.after.startswith("- nested\\: item")  # not indented into a code block after the mark
    assert "    - nested\\: item" in source_parts(elements, None).before  # a nested item keeps its nesting
    # HTML is text: its brackets are escaped, so nothing renders or runs
    assert "\\<script\\>" in parts.before and "<script>" not in parts.before
    # a code block is fenced longer than any backtick run inside it
    assert "````py\ncode with ``` inside\n````" in parts.after or "`````py" in parts.after


def test_a_selected_table_row_marks_its_table_and_no_selection_marks_nothing():
    elements = _elements()
    row = next(e for e in elements if e.category == "TableRow")
    parts = source_parts(elements, row.element_id)
    assert parts.marked.splitlines() == ["| name | default |", "| --- | --- |", "| jobs | 4 |"]
    whole = source_parts(elements, None)
    assert whole.marked == "" and whole.after == "" and "| jobs | 4 |" in whole.before
