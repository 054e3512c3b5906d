"""The reader on changelogs: a release's date read off the line that dates it, entries under a release after the
page that documents the thing (issue 29)."""

from __future__ import annotations

import textwrap

from core.answering import ExtractiveAnswerer
from core.answering.releases import asks_about_releases, dated_release, mentions_last, release_heading
from core.elements import Element
from core.markdown_loader import parse_markdown
from core.partial_tree import merge_trees, short_ids
from core.retrieval import Context, ContextElement


def parse(text: str, document_id: str) -> list[Element]:
    docs = parse_markdown(textwrap.dedent(text), source=f"{document_id}.md", document_id=document_id)
    return [Element.from_document(d) for d in docs]


def context_of(elements: list[Element], hit_ids: list[str], similarity: dict[str, float] | None = None) -> Context:
    shorts = short_ids(e.element_id for e in elements)
    items = []
    for tree in merge_trees({e.element_id: e for e in elements}, hit_ids):
        for node in tree.walk():
            rank = hit_ids.index(node.element_id) if node.element_id in hit_ids else None
            distance = 1.0 - (similarity or {}).get(node.element_id, 0.5) if rank is not None else None
            items.append(ContextElement(node.element_id, shorts[node.element_id],
                                        "hit" if rank is not None else "ancestor", node.category,
                                        node.element.text, node.element.document_id, node.path, distance, rank,
                                        parent_id=node.element.parent_id))
    return Context("hierarchical", "", "", items, 0)


TOOL = """\
    # Tool history

    ## [1.6.0](https://example.org/tool-v1.6.0) - 2022-10-08 ## {: #tool-v1.6.0 }

    - The tool now released as a standalone binary, built on the plugin 1.6.0

    ## [1.5.0](https://example.org/tool-v1.5.0) - 2022-08-28 ## {: #tool-v1.5.0 }

    - Bump the minimum supported plugin to 1.6.0
    """
PLUGIN = """\
    # Plugin history

    ## [1.6.0](https://example.org/plugin-v1.6.0) - 2022-07-23 ## {: #plugin-v1.6.0 }

    - Plugin released with the new version source
    """


def test_a_release_date_is_read_off_the_heading_that_dates_it() -> None:
    elements = parse(TOOL, "tool") + parse(PLUGIN, "plugin")
    entries = [e for e in elements if e.category == "ListItem"]
    # the entries are the hits; their release headings come in as ancestors only
    context = context_of(elements, [e.element_id for e in entries], {entries[0].element_id: 0.8})
    answer = ExtractiveAnswerer().complete("when was plugin 1.6.0 released?", context)
    assert answer.splitlines()[0] == "1.6.0: 2022-07-23"
    assert "Plugin history" in answer and "2022-10-08" not in answer
    tool = ExtractiveAnswerer().complete("tool 1.6.0 release date", context)
    assert tool.splitlines()[0] == "1.6.0: 2022-10-08"
    # an entry that names a version is no line dating it; nor is a question that asks no time
    assert dated_release("tool 1.4.0 release date", context) is None
    assert dated_release("what changed in tool 1.6.0?", context) is None


def test_entries_under_a_release_come_after_the_page_that_documents_the_thing() -> None:
    elements = parse("""\
        # FAQ

        ## Why spaces? I prefer tabs

        The tool provides no options to configure the indentation style.
        """, "faq") + parse("""\
        # Change Log

        ## 19.3b0

        - The tool now correctly indents comments in files previously formatted with tabs
        """, "changes")
    faq = next(e for e in elements if e.category == "NarrativeText")
    entry = next(e for e in elements if e.category == "ListItem")
    context = context_of(elements, [entry.element_id, faq.element_id], {entry.element_id: 0.7})
    answer = ExtractiveAnswerer().complete("can I make the tool indent with tabs", context)
    assert "no options to configure the indentation style" in answer
    asked = ExtractiveAnswerer().evidence("which version fixed indenting comments formatted with tabs", context)
    assert asked[0].element.element_id == entry.element_id  # a question about releases keeps the entry first
    assert mentions_last("anything", []) == []


def test_what_a_release_heading_and_a_release_question_are() -> None:
    for heading in ("19.3b0", "1.13.0 - 2024-10-13", "Release v2.29.3 (2025-01-02)", "Version 1.6 (2024-04-20)",
                    "[1.12.0] - 2024-05-28"):
        assert release_heading(heading), heading
    for heading in ("Change Log", "Highlights", "Python 3.8 support", "Options"):
        assert not release_heading(heading), heading
    assert asks_about_releases("pdm #529 - in what version?")
    assert asks_about_releases("kss 6.0.0 언제 나왔어요?")
    assert not asks_about_releases("can I make the tool indent with tabs")
