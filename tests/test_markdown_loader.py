"""Golden-tree tests for core.markdown_loader: each input pins the exact element tree it must produce."""

from __future__ import annotations

import hashlib
import textwrap
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from langchain_core.documents import Document

from core.elements import ELEMENT_CATEGORIES, document_id_from_key, element_id_for
from core.front_matter import parse_front_matter
from core.ingest import parse as parse_with_loader
from core.markdown_loader import MAX_NESTING, MarkdownElementLoader, parse_markdown

from .helpers_work import python_lines_run

REFERENCE = Path(__file__).resolve().parents[1].parent / "shared" / "reference" / "lg-monitor.md"
REQUIRED_KEYS = {
    "element_id", "parent_id", "category", "category_depth", "document_id", "source", "filename",
    "order", "start_line", "end_line", "heading_path",
}  # fmt: skip


def parse(text: str, document_id: str = "doc-1", source: str = "notes/guide.md") -> list[Document]:
    return parse_markdown(textwrap.dedent(text), source=source, document_id=document_id)


def tree(docs: list[Document]) -> list[tuple[str, int, str, str | None]]:
    """(category, category_depth, text, parent's text) per element; also checks no parent link dangles."""
    by_id = {d.metadata["element_id"]: d for d in docs}
    rows = []
    for d in docs:
        parent_id = d.metadata["parent_id"]
        assert parent_id is None or parent_id in by_id, f"dangling parent for {d.page_content!r}"
        rows.append(
            (
                d.metadata["category"],
                d.metadata["category_depth"],
                d.page_content,
                by_id[parent_id].page_content if parent_id else None,
            )
        )
    return rows


def by_text(docs: list[Document], text: str) -> Document:
    matches = [d for d in docs if d.page_content == text]
    assert len(matches) == 1, f"{text!r} found {len(matches)} times"
    return matches[0]


# --------------------------------------------------------------------------------------------------
# Headings
# --------------------------------------------------------------------------------------------------


def test_headings_every_level_skipped_levels_and_setext() -> None:
    docs = parse(
        """\
        # One
        ### Three under one
        ## Two
        #### Four
        ##### Five
        ###### Six
        ## Two again
        Setext top
        ==========
        Setext second
        -------------
        ### Three under setext
        """
    )
    assert tree(docs) == [
        ("Title", 0, "One", None),
        ("Title", 2, "Three under one", "One"),  # skipped level: parent is the nearest lower level
        ("Title", 1, "Two", "One"),
        ("Title", 3, "Four", "Two"),
        ("Title", 4, "Five", "Four"),
        ("Title", 5, "Six", "Five"),
        ("Title", 1, "Two again", "One"),
        ("Title", 0, "Setext top", None),
        ("Title", 1, "Setext second", "Setext top"),
        ("Title", 2, "Three under setext", "Setext second"),
    ]
    assert by_text(docs, "Six").metadata["heading_path"] == ["One", "Two", "Four", "Five"]
    assert by_text(docs, "Three under setext").metadata["heading_path"] == ["Setext top", "Setext second"]
    assert by_text(docs, "One").metadata["heading_path"] == []


def test_heading_inline_markup_is_stripped_and_recorded() -> None:
    [title, para] = parse("# The *quick* `fox` [jumps](http://x)\n\nSee **bold** and __strong__ text.\n")
    assert title.page_content == "The quick fox jumps"
    assert title.metadata["emphasized"] == ["quick"]
    assert title.metadata["code_spans"] == ["fox"]
    assert title.metadata["link_texts"] == ["jumps"]
    assert para.page_content == "See bold and strong text."
    assert para.metadata["emphasized"] == ["bold", "strong"]
    [wrapped] = parse("soft\nwrapped line  \nhard break\\\nagain\n")
    assert wrapped.page_content == "soft wrapped line\nhard break\nagain"
    # Optional keys are absent, not empty, when there is nothing to record.
    assert "code_spans" not in para.metadata and "link_texts" not in para.metadata


def test_heading_attribute_lists_are_not_part_of_the_heading_text() -> None:
    docs = parse(
        """\
        # 6.0 Migration Notes {: #\\6.0}

        ## Phases of processing {: #stages }

        ### `extendMarkdown` {: #extendmarkdown .api }

        ## Pandoc style {#pandoc .x}

        ## Sets {a, b} and dicts {key: 1}

        ## {: #only-an-attribute-list }

        ## [1.12.0](https://example.org/v1.12.0) - 2024-05-28 ## {: #v1.12.0 }

        ## Notes on C# {: #csharp }

        Body {: #not-a-heading } keeps its text.
        """
    )
    titles = [d.page_content for d in docs if d.metadata["category"] == "Title"]
    assert titles == ["6.0 Migration Notes", "Phases of processing", "extendMarkdown", "Pandoc style",
                      "Sets {a, b} and dicts {key: 1}", "{: #only-an-attribute-list }", "1.12.0 - 2024-05-28",
                      "Notes on C#"]  # fmt: skip
    # Sections below a cleaned heading carry the cleaned text in their heading path.
    assert by_text(docs, "Body {: #not-a-heading } keeps its text.").metadata["heading_path"] == [
        "6.0 Migration Notes", "Notes on C#"
    ]  # fmt: skip


# --------------------------------------------------------------------------------------------------
# Lists
# --------------------------------------------------------------------------------------------------


def test_list_items_nest_with_two_and_four_space_indents_and_all_markers() -> None:
    docs = parse(
        """\
        # Lists

        * two-space parent
          * two-space child
            * two-space grandchild
        * second top

        - four-space parent
            - four-space child
                - four-space grandchild

        + plus item
          + plus child

        1. dot one
           1. dot nested
        2. dot two

        1) paren one
        2) paren two
           1) paren nested
        """
    )
    assert tree(docs) == [
        ("Title", 0, "Lists", None),
        ("ListItem", 0, "two-space parent", "Lists"),
        ("ListItem", 1, "two-space child", "two-space parent"),
        ("ListItem", 2, "two-space grandchild", "two-space child"),
        ("ListItem", 0, "second top", "Lists"),
        ("ListItem", 0, "four-space parent", "Lists"),
        ("ListItem", 1, "four-space child", "four-space parent"),
        ("ListItem", 2, "four-space grandchild", "four-space child"),
        ("ListItem", 0, "plus item", "Lists"),
        ("ListItem", 1, "plus child", "plus item"),
        ("ListItem", 0, "dot one", "Lists"),
        ("ListItem", 1, "dot nested", "dot one"),
        ("ListItem", 0, "dot two", "Lists"),
        ("ListItem", 0, "paren one", "Lists"),
        ("ListItem", 0, "paren two", "Lists"),
        ("ListItem", 1, "paren nested", "paren two"),
    ]
    assert by_text(docs, "two-space grandchild").metadata["heading_path"] == ["Lists"]


def test_dash_bullet_mixed_into_star_list_stays_under_the_heading() -> None:
    # CommonMark starts a new list at the `-`, which must not change where the items belong.
    docs = parse(
        """\
        ## Spec
        ### Game
        - G-SYNC : X
        * FreeSync : O
        * Black Stabilizer : O
        ### Power
        * Adapter
        """
    )
    assert tree(docs) == [
        ("Title", 1, "Spec", None),
        ("Title", 2, "Game", "Spec"),
        ("ListItem", 0, "G-SYNC : X", "Game"),
        ("ListItem", 0, "FreeSync : O", "Game"),
        ("ListItem", 0, "Black Stabilizer : O", "Game"),
        ("Title", 2, "Power", "Spec"),
        ("ListItem", 0, "Adapter", "Power"),
    ]


def test_continuation_paragraph_is_a_child_of_its_item() -> None:
    docs = parse(
        """\
        # Steps

        * Install the tool.

          It needs Python 3.11 or later.

          * nested after the continuation
        * Next step
        """
    )
    assert tree(docs) == [
        ("Title", 0, "Steps", None),
        ("ListItem", 0, "Install the tool.", "Steps"),
        ("NarrativeText", 0, "It needs Python 3.11 or later.", "Install the tool."),
        ("ListItem", 1, "nested after the continuation", "Install the tool."),
        ("ListItem", 0, "Next step", "Steps"),
    ]


def test_fenced_code_inside_list_item_keeps_following_items_as_siblings() -> None:
    docs = parse(
        """\
        # Build

        1. Configure
           ```bash
           ./configure --prefix=/opt
           ```
        2. Compile
        3. Install

        - Loose item

          ```
          make all
          ```
        - Next loose item
        """
    )
    assert tree(docs) == [
        ("Title", 0, "Build", None),
        ("ListItem", 0, "Configure", "Build"),
        ("CodeSnippet", 0, "./configure --prefix=/opt", "Configure"),
        ("ListItem", 0, "Compile", "Build"),
        ("ListItem", 0, "Install", "Build"),
        ("ListItem", 0, "Loose item", "Build"),
        ("CodeSnippet", 0, "make all", "Loose item"),
        ("ListItem", 0, "Next loose item", "Build"),
    ]
    assert by_text(docs, "./configure --prefix=/opt").metadata["language"] == "bash"
    assert by_text(docs, "make all").metadata["language"] == ""


def test_item_whose_first_block_is_not_a_paragraph_has_no_text_of_its_own() -> None:
    # The item's text must precede its children, so only a leading paragraph can be it; otherwise the
    # item's blocks attach to the enclosing parent.
    docs = parse("# H\n- ```\n  code first\n  ```\n  then text\n- - nested first\n")
    assert tree(docs) == [
        ("Title", 0, "H", None),
        ("CodeSnippet", 0, "code first", "H"),
        ("NarrativeText", 0, "then text", "H"),
        ("ListItem", 1, "nested first", "H"),
    ]


def test_list_before_any_heading_is_a_root_and_empty_items_are_dropped() -> None:
    docs = parse("* first\n*\n* third\n")
    assert tree(docs) == [("ListItem", 0, "first", None), ("ListItem", 0, "third", None)]


def test_heading_inside_list_item_does_not_change_the_heading_stack() -> None:
    docs = parse("# Top\n## Section\n- item\n\n  ### quoted heading\n\nafter\n")
    assert tree(docs) == [
        ("Title", 0, "Top", None),
        ("Title", 1, "Section", "Top"),
        ("ListItem", 0, "item", "Section"),
        ("Title", 2, "quoted heading", "item"),
        ("NarrativeText", 0, "after", "Section"),
    ]


# --------------------------------------------------------------------------------------------------
# Blocks that must not reset the heading stack
# --------------------------------------------------------------------------------------------------


def test_table_code_and_image_do_not_reset_the_heading_stack() -> None:
    docs = parse(
        """\
        # Manual
        ## Specs

        | Key | Value |
        |-----|:-----:|
        | Panel | **IPS** |

        ## Code
        ```python
        print("hi")
        ```

            indented code

        ### After code
        ![Front view](img/front.png "front")

        ### After image
        > A quoted remark.

        ---

        ### After quote and rule
        """
    )
    assert tree(docs) == [
        ("Title", 0, "Manual", None),
        ("Title", 1, "Specs", "Manual"),
        ("Table", 0, "| Key | Value |\n| --- | --- |", "Specs"),
        ("TableRow", 0, "Key: Panel · Value: IPS", "| Key | Value |\n| --- | --- |"),
        ("Title", 1, "Code", "Manual"),
        ("CodeSnippet", 0, 'print("hi")', "Code"),
        ("CodeSnippet", 0, "indented code", "Code"),
        ("Title", 2, "After code", "Code"),
        ("Image", 0, "Front view", "After code"),
        ("Title", 2, "After image", "Code"),
        ("NarrativeText", 0, "A quoted remark.", "After image"),
        ("Title", 2, "After quote and rule", "Code"),  # the thematic break produced nothing
    ]
    table, row = docs[2], docs[3]
    assert table.metadata["text_as_html"] == (
        "<table><thead><tr><th>Key</th><th>Value</th></tr></thead><tbody></tbody></table>"
    )
    assert table.metadata["emphasized"] == ["IPS"]
    assert row.metadata["parent_id"] == table.metadata["element_id"]
    assert row.metadata["cells"] == ["Panel", "IPS"]
    assert row.metadata["start_line"] == 6
    image = by_text(docs, "Front view")
    assert image.metadata["image_url"] == "img/front.png"
    assert by_text(docs, "indented code").metadata["language"] == ""


def test_table_cells_are_escaped_in_html_and_pipes_escaped_in_markdown() -> None:
    table, *rows = parse("| a | <b>x</b> |\n|---|---|\n| 1 \\| 2 | & |\n| only |\n")
    assert table.metadata["text_as_html"] == (
        "<table><thead><tr><th>a</th><th>&lt;b&gt;x&lt;/b&gt;</th></tr></thead><tbody></tbody></table>"
    )
    assert table.page_content == "| a | <b>x</b> |\n| --- | --- |"
    # a ragged row keeps the cells it has, padded; a cell's HTML is its text
    assert [r.page_content for r in rows] == ["a: 1 | 2 · <b>x</b>: &", "a: only"]
    assert [r.metadata["cells"] for r in rows] == [["1 | 2", "&"], ["only", ""]]


def test_lists_and_paragraphs_inside_blockquotes() -> None:
    docs = parse("# Q\n> Said once.\n>\n> * quoted item\n>   * quoted child\n")
    assert tree(docs) == [
        ("Title", 0, "Q", None),
        ("NarrativeText", 0, "Said once.", "Q"),
        ("ListItem", 0, "quoted item", "Q"),
        ("ListItem", 1, "quoted child", "quoted item"),
    ]


# --------------------------------------------------------------------------------------------------
# Front matter, raw HTML, empty things
# --------------------------------------------------------------------------------------------------


def test_front_matter_is_not_an_element_nor_a_setext_heading() -> None:
    text = '---\ntitle: "Monitor guide"\nlang: ko\n  nested: ignored\n# comment\n---\n# Heading\nBody.\n'
    docs = parse(text)
    assert tree(docs) == [("Title", 0, "Heading", None), ("NarrativeText", 0, "Body.", "Heading")]
    assert docs[0].metadata["start_line"] == 7  # lines are counted in the whole file, front matter included
    assert parse_front_matter(text) == {"title": "Monitor guide", "lang": "ko"}


def test_front_matter_edge_cases() -> None:
    assert parse_front_matter("# No front matter\n") == {}
    assert parse_front_matter("---\ntitle: unclosed\n") == {}  # markdown-it does not treat it as one either
    assert parse_front_matter("\ufeff---\na: 1\n...\nbody") == {"a": "1"}
    # Unclosed: a thematic break and a paragraph, not a heading.
    assert tree(parse("---\ntitle: unclosed\n")) == [("NarrativeText", 0, "title: unclosed", None)]


def test_raw_html_is_kept_verbatim_never_interpreted() -> None:
    docs = parse(
        """\
        # Page

        <script>alert(1)</script>

        Inline <b onclick="x()">bold</b> &amp; <em>more</em>.

        <div>
        <p>block</p>
        </div>
        """
    )
    assert tree(docs) == [
        ("Title", 0, "Page", None),
        ("UncategorizedText", 0, "<script>alert(1)</script>", "Page"),
        ("NarrativeText", 0, 'Inline <b onclick="x()">bold</b> & <em>more</em>.', "Page"),
        ("UncategorizedText", 0, "<div>\n<p>block</p>\n</div>", "Page"),
    ]


def test_empty_elements_and_thematic_breaks_produce_nothing() -> None:
    docs = parse("#\n\n---\n***\n\n```\n```\n\n## Real\n\n![](no-alt.png)\n\n|  |\n|--|\n")
    assert tree(docs) == [("Title", 1, "Real", None)]


def test_bom_and_crlf() -> None:
    docs = parse("\ufeff# Title\r\n\r\n* item\r\n  * sub\r\n")
    assert tree(docs) == [
        ("Title", 0, "Title", None),
        ("ListItem", 0, "item", "Title"),
        ("ListItem", 1, "sub", "item"),
    ]


# --------------------------------------------------------------------------------------------------
# Metadata and ids
# --------------------------------------------------------------------------------------------------

SAMPLE = """\
# Guide

Intro text.

## Setup

* Install
  * Check version
* Configure

## Usage

* Run
"""


def test_every_element_carries_the_full_metadata_schema() -> None:
    docs = parse(SAMPLE, document_id="abc", source="/data/notes/guide.md")
    assert [d.metadata["order"] for d in docs] == list(range(len(docs)))
    for d in docs:
        m = d.metadata
        assert REQUIRED_KEYS <= m.keys()
        assert m["category"] in ELEMENT_CATEGORIES
        assert len(m["element_id"]) == 32 and int(m["element_id"], 16) >= 0
        assert d.id == m["element_id"]
        assert (m["document_id"], m["source"], m["filename"]) == ("abc", "/data/notes/guide.md", "guide.md")
        if m["category"] not in ("Title", "ListItem"):
            assert m["category_depth"] == 0
    assert [(d.page_content, d.metadata["start_line"], d.metadata["end_line"]) for d in docs] == [
        ("Guide", 1, 1),
        ("Intro text.", 3, 3),
        ("Setup", 5, 5),
        ("Install", 7, 7),
        ("Check version", 8, 8),
        ("Configure", 9, 9),
        ("Usage", 11, 11),
        ("Run", 13, 13),
    ]
    assert by_text(docs, "Check version").metadata["heading_path"] == ["Guide", "Setup"]


def test_element_id_formula() -> None:
    docs = parse(SAMPLE, document_id="abc")
    guide, setup = by_text(docs, "Guide"), by_text(docs, "Setup")
    expected = hashlib.sha256("\x1f".join(["abc", "", "Title", "Guide", "0"]).encode()).hexdigest()[:32]
    assert guide.metadata["element_id"] == expected == element_id_for("abc", None, "Title", "Guide", 0)
    assert setup.metadata["element_id"] == element_id_for("abc", expected, "Title", "Setup", 0)
    assert document_id_from_key("/a/b.md") == hashlib.sha256(b"/a/b.md").hexdigest()[:16]


def test_ids_are_deterministic_and_unique() -> None:
    first, second = parse(SAMPLE), parse(SAMPLE)
    assert [d.metadata for d in first] == [d.metadata for d in second]
    ids = [d.metadata["element_id"] for d in first]
    assert len(set(ids)) == len(ids)


def test_same_content_in_two_documents_gets_different_ids() -> None:
    # Same name and content, different folders: the caller's document ids differ, so must every element id.
    a = parse(SAMPLE, document_id=document_id_from_key("/x/guide.md"), source="/x/guide.md")
    b = parse(SAMPLE, document_id=document_id_from_key("/y/guide.md"), source="/y/guide.md")
    assert not {d.metadata["element_id"] for d in a} & {d.metadata["element_id"] for d in b}
    assert tree(a) == tree(b)


def test_ids_are_stable_when_unrelated_content_is_inserted() -> None:
    before = {(d.page_content, d.metadata["category"]): d.metadata["element_id"] for d in parse(SAMPLE)}
    edited = SAMPLE.replace("* Run\n", "* Run\n\nA new paragraph under Usage.\n\n* Stop\n").replace(
        "Intro text.", "Intro text.\n\nAnother intro paragraph."
    )
    after = {(d.page_content, d.metadata["category"]): d.metadata["element_id"] for d in parse(edited)}
    assert len(after) == len(before) + 3
    for key, element_id in before.items():
        assert after[key] == element_id, key


def test_duplicate_items_get_distinct_ids_but_keep_their_parent() -> None:
    docs = parse("# A\n* same\n* same\n* same\n  * same\n# B\n* same\n")
    items = [d for d in docs if d.page_content == "same"]
    assert len(items) == 5
    assert len({d.metadata["element_id"] for d in items}) == 5
    assert tree(docs) == [
        ("Title", 0, "A", None),
        ("ListItem", 0, "same", "A"),
        ("ListItem", 0, "same", "A"),
        ("ListItem", 0, "same", "A"),
        ("ListItem", 1, "same", "same"),
        ("Title", 0, "B", None),
        ("ListItem", 0, "same", "B"),
    ]
    assert docs[4].metadata["parent_id"] == docs[3].metadata["element_id"]  # the third item, not the first


# --------------------------------------------------------------------------------------------------
# The loader class, and choosing a loader by name
# --------------------------------------------------------------------------------------------------


def test_loader_reads_a_file_with_default_ids(tmp_path: Path) -> None:
    path = tmp_path / "guide.md"
    path.write_text(SAMPLE, encoding="utf-8")
    docs = MarkdownElementLoader(path).load()
    assert tree(docs) == tree(parse(SAMPLE))
    assert docs[0].metadata["document_id"] == document_id_from_key(str(path.resolve()))
    assert docs[0].metadata["source"] == str(path)
    assert docs[0].metadata["filename"] == "guide.md"
    custom = list(MarkdownElementLoader(path, document_id="d1", source="kb/guide.md").lazy_load())
    assert (custom[0].metadata["document_id"], custom[0].metadata["source"]) == ("d1", "kb/guide.md")
    assert MarkdownElementLoader(path, document_id="d1", source="kb/guide.md").load() == custom


def test_loader_encodings(tmp_path: Path) -> None:
    path = tmp_path / "ko.md"
    path.write_bytes("# 제품사양\n* 무게 : 2.6 kg\n".encode("cp949"))
    with pytest.raises(ValueError, match="not valid utf-8"):
        MarkdownElementLoader(path).load()
    docs = MarkdownElementLoader(path, encoding="cp949").load()
    assert tree(docs) == [("Title", 0, "제품사양", None), ("ListItem", 0, "무게 : 2.6 kg", "제품사양")]


def test_parsing_by_loader_name_rejects_an_unknown_loader() -> None:
    text = textwrap.dedent(SAMPLE)
    assert tree(parse_with_loader(text, source="guide.md", document_id="d1")) == tree(parse(SAMPLE, document_id="d1"))
    with pytest.raises(ValueError, match="unknown loader 'nope'; choose one of markdown-it, unstructured"):
        parse_with_loader(text, source="guide.md", document_id="d1", loader="nope")


# --------------------------------------------------------------------------------------------------
# Hostile input and speed
# --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        pytest.param(">" * 50_000 + " deep", id="50k-quote-markers-one-line"),
        pytest.param("\n".join(">" * i + " x" for i in range(1, 3_000)), id="quotes-deepening-per-line"),
        pytest.param("- " * 50_000 + "deep", id="50k-nested-list-one-line"),
        pytest.param("".join(" " * (2 * i) + "- item\n" for i in range(300)), id="300-level-list"),
        pytest.param("[" * 3_000 + "a" + "](u)" * 3_000, id="nested-links"),
        pytest.param("![" * 2_000 + "a" + "](u)" * 2_000, id="nested-images"),
    ],
)
def test_deep_nesting_does_not_recurse_out(text: str) -> None:
    docs = parse_markdown(text, source="x.md", document_id="d")
    assert all(d.metadata["category"] in ELEMENT_CATEGORIES for d in docs)


def test_nesting_up_to_the_limit_is_kept() -> None:
    depth = MAX_NESTING // 2 - 1  # each list level costs markdown-it two nesting levels
    docs = parse_markdown("".join("  " * i + f"- level {i}\n" for i in range(depth)), source="x", document_id="d")
    assert [d.metadata["category_depth"] for d in docs] == list(range(depth))
    assert all(docs[i].metadata["parent_id"] == docs[i - 1].metadata["element_id"] for i in range(1, depth))


@pytest.mark.slow
def test_ten_megabyte_single_line() -> None:
    chunk = "plain words and more plain words " * 30 + "*stress* `code` [link](u) "
    line = (chunk * (10_000_000 // len(chunk) + 1))[:10_000_000]
    [doc] = parse_markdown(line, source="x", document_id="d")
    assert doc.metadata["category"] == "NarrativeText"
    assert len(doc.page_content) > 9_000_000


_LINES = st.sampled_from(
    ["# A", "## B", "### C", "Setext", "===", "---", "* item", "  * sub", "    * deep", "- dash", "1. one", "1) two",
     "   para", "> quote", "> * q item", "```", "```py", "    code", "| a | b |", "|---|---|", "| 1 | 2 |",
     "<div>", "</div>", "![alt](x.png)", "*em* `c` [l](u)", "", "same", "same"]
)  # fmt: skip


@settings(max_examples=150, deadline=None)
@given(st.lists(_LINES, max_size=40))
def test_tree_invariants_on_random_markdown(lines: list[str]) -> None:
    text = "\n".join(lines)
    docs = parse_markdown(text, source="r.md", document_id="r")
    seen: dict[str, Document] = {}
    for order, d in enumerate(docs):
        m = d.metadata
        assert m["order"] == order and m["category"] in ELEMENT_CATEGORIES and d.page_content.strip()
        assert m["element_id"] not in seen
        parent = seen.get(m["parent_id"]) if m["parent_id"] else None
        assert m["parent_id"] is None or parent is not None, "parent must come before its child"
        ancestors_titles = []
        while parent is not None:
            if parent.metadata["category"] == "Title":
                ancestors_titles.append(parent.page_content)
            parent = seen.get(parent.metadata["parent_id"]) if parent.metadata["parent_id"] else None
        assert m["heading_path"] == ancestors_titles[::-1]
        assert 1 <= m["start_line"] <= m["end_line"] <= len(lines)
        seen[m["element_id"]] = d
    assert [d.metadata for d in parse_markdown(text, source="r.md", document_id="r")] == [d.metadata for d in docs]


def _lines_run(text: str) -> int:
    return python_lines_run(lambda: parse_markdown(text, source="x", document_id="d"))


def test_no_quadratic_work_on_many_identical_siblings() -> None:
    # Identical siblings are the worst case for the occurrence index; 4x the input must cost ~4x the work, not 16x.
    # A rescan of the earlier siblings (two lines a sibling) would make it 5.7x at these sizes.
    parse_markdown("# H\n* same item\n", source="x", document_id="d")  # parser built and cached before counting
    small = "# H\n" + "* same item\n" * 200
    large = "# H\n" + "* same item\n" * 800
    ratio = _lines_run(large) / _lines_run(small)
    assert 3.5 < ratio < 4.4, f"4x input ran {ratio:.2f}x the lines"


def test_no_quadratic_work_on_a_long_single_line() -> None:
    chunk = "plain words and more plain words " * 30 + "*stress* `code` [link](u) "
    parse_markdown(chunk, source="x", document_id="d")
    small, large = ((chunk * (size // len(chunk) + 1))[:size] for size in (20_000, 80_000))
    ratio = _lines_run(large) / _lines_run(small)
    assert 3.5 < ratio < 4.4, f"4x input ran {ratio:.2f}x the lines"


# --------------------------------------------------------------------------------------------------
# The reference sample
# --------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def monitor() -> list[Document]:
    if not REFERENCE.is_file():
        pytest.skip(f"reference sample not found at {REFERENCE} (it lives in the shared folder next to the repo)")
    return MarkdownElementLoader(REFERENCE).load()


def test_reference_spec_item_sits_under_its_spec_section(monitor: list[Document]) -> None:
    weight = by_text(monitor, "무게 *스탠드 제외 시 : 2.6 kg")
    assert weight.metadata["category"] == "ListItem"
    assert weight.metadata["category_depth"] == 0
    assert weight.metadata["heading_path"] == [
        "LG 24MK430H 후속 신모델 LG 24MR400 60.4cm IPS Full-HD 100Hz 5ms CCTV용 사무용 가정용 컴퓨터 모니터",
        "제품사양",
        "크기 & 무게",
    ]
    section = by_text(monitor, "크기 & 무게")
    assert weight.metadata["parent_id"] == section.metadata["element_id"]
    assert weight.metadata["start_line"] == weight.metadata["end_line"] == 93


def test_reference_two_space_sub_bullets_are_children_of_their_bullet(monitor: list[Document]) -> None:
    parent = by_text(
        monitor,
        "1초에 최대 100프레임의 화면을 보여주어 다양한 프로그램에서 부드러운 업무 플로우를 제공하며 "
        "화면 끊김이 적은 게임 플레이를 즐길 수 있습니다.",
    )
    children = [d for d in monitor if d.metadata["parent_id"] == parent.metadata["element_id"]]
    assert [d.page_content for d in children] == [
        "소비자의 이해를 돕기 위해 연출된 이미지로, 실제와 차이가 있을 수 있습니다.",
        "HDMI 연결 기준으로 PC와 연결 했을 때 기준입니다. (D-sub는 최대 75Hz)",
        "모니터의 주사율 수치는 사용자의 그래픽카드의 성능에 따라  상이할 수 있습니다.",
    ]
    assert {d.metadata["category_depth"] for d in children} == {1}
    # The same sub-bullet text appears under many bullets: distinct ids, each under its own bullet.
    same = [d for d in monitor if d.page_content == children[0].page_content]
    assert len(same) == len({d.metadata["element_id"] for d in same}) == 5
    assert len({d.metadata["parent_id"] for d in same}) == 5


def test_reference_mixed_dash_bullet_and_overall_shape(monitor: list[Document]) -> None:
    game = by_text(monitor, "게임기능")
    items = [d.page_content for d in monitor if d.metadata["parent_id"] == game.metadata["element_id"]]
    assert items[:2] == ["NVIDIA G-SYNC : X", "AMD FreeSync : O"]
    assert len(items) == 5
    counts = {c: sum(d.metadata["category"] == c for d in monitor) for c in ("Title", "ListItem")}
    assert counts == {"Title": 27, "ListItem": 105}
    assert len(monitor) == 132
    roots = [d.page_content for d in monitor if d.metadata["parent_id"] is None]
    assert len(roots) == 1 and roots[0].startswith("LG 24MK430H")


def test_myst_roles_read_as_their_text_not_their_markup():
    """Sphinx/MyST docs (pip's) write ``{ref}`pip cache` ``: the element reads "pip cache" (issue 33, item 6),
    a titled reference its title, and a brace before ordinary text stays."""
    from core.markdown_loader import parse_markdown

    text = ("# Pip\n\nSee {ref}`pip cache`, {ref}`Installing <install-local>` and {pypi}`keyring`; {x} `y`.\n\n"
            "- {file}`/etc/pip.conf`: the site file\n")
    docs = parse_markdown(text, source="pip.md", document_id="d")
    assert docs[1].page_content == "See pip cache, Installing and keyring; {x} y."
    assert docs[1].metadata["code_spans"] == ["pip cache", "Installing", "keyring", "y"]
    assert docs[2].page_content == "/etc/pip.conf: the site file"


def test_an_admonition_body_is_prose_of_its_section_and_its_marker_keeps_only_written_words():
    # MkDocs admonitions: without the rule the indented body was a code block and "!!! warning" a paragraph
    text = textwrap.dedent("""\
        # Configuration

        ## Variable Substitution

        !!! warning

            If a variable is not set, the tool substitutes an empty string.

        !!! note "Reserved prefix"
            Do not prefix your own variables with TOOL_.

            ```yaml
            a: 1
            ```

        !!! Important: read this first

        After it.
        """)
    docs = parse_markdown(text, source="c.md", document_id="d")
    got = [(d.metadata["category"], d.page_content, d.metadata["heading_path"][-1]) for d in docs[2:]]
    section = "Variable Substitution"
    assert got == [
        ("NarrativeText", "If a variable is not set, the tool substitutes an empty string.", section),
        ("NarrativeText", "Reserved prefix", section),
        ("NarrativeText", "Do not prefix your own variables with TOOL_.", section),
        ("CodeSnippet", "a: 1", section),
        ("NarrativeText", "Important: read this first", section),
        ("NarrativeText", "After it.", section),
    ]
    assert docs[2].metadata["start_line"] == 7
    # an indented example of the syntax stays code
    code = parse_markdown("# T\n\n    !!! note\n        body\n", source="x.md", document_id="d")
    assert [d.metadata["category"] for d in code] == ["Title", "CodeSnippet"]


def test_a_file_with_an_admonition_is_parsed_again_on_its_next_ingest_and_only_such_a_file():
    import hashlib

    from core.ingest.parsing import PARSER_VERSION, content_hash

    def before(data: bytes) -> str:  # the hash as it was before admonitions were read (no table in these files)
        return hashlib.sha256(f"{PARSER_VERSION}\x1fmarkdown-it\x1f0\x1f".encode() + data).hexdigest()

    plain = b"# T\n\nNo markers here!!! at all.\n"
    marked = b"# T\n\n!!! warning\n    Body.\n"
    assert content_hash(plain, "markdown-it", False) == before(plain)
    assert content_hash(marked, "markdown-it", False) != before(marked)
