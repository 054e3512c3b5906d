"""Property tests of the markdown loader: whatever the text, the output is a well-formed element tree.

Two generators: arbitrary unicode text (control characters, surrogate-free code points, NUL, CR), and
markdown-shaped text assembled from the constructs the tree builder treats specially (headings, bullets and
ordered items at random indents, fences, tables, blockquotes, raw HTML, setext underlines, front matter).
For every input: no exception, every ``parent_id`` names an element of the same output that comes *before*
it, so the parent links form a forest (no cycles), only headings, items and tables have children (a table's
are exactly its TableRows), ``order`` is 0..n-1, ids are unique, categories are from the fixed set and
``heading_path`` matches the Title ancestors.

Bounded on purpose (``max_examples``, no deadline): the whole file runs in well under 30 s.
"""

from __future__ import annotations

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from langchain_core.documents import Document

from core.elements import ELEMENT_CATEGORIES
from core.markdown_loader import parse_markdown

FUZZ = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None)


def check_tree(docs: list[Document]) -> None:
    """The invariants every parse must satisfy."""
    ids = [d.metadata["element_id"] for d in docs]
    assert len(ids) == len(set(ids)), "element ids must be unique"
    assert [d.metadata["order"] for d in docs] == list(range(len(docs)))
    position = {element_id: i for i, element_id in enumerate(ids)}
    by_id = dict(zip(ids, docs, strict=True))
    for i, doc in enumerate(docs):
        meta = doc.metadata
        assert doc.id == meta["element_id"]
        assert meta["category"] in ELEMENT_CATEGORIES
        assert doc.page_content.strip(), "no empty elements"
        parent = meta["parent_id"]
        if parent is not None:
            assert parent in position, f"parent {parent} of element {i} is not in the output"
            # A parent always precedes its child: with that, following parent links strictly decreases the
            # position, so it cannot loop (no cycles) and always reaches a root.
            assert position[parent] < i
            parent_category = by_id[parent].metadata["category"]
            # Only headings, items and tables have children, and a table's children are exactly its rows.
            assert parent_category in ("Title", "ListItem", "Table"), "only headings, items and tables have children"
            assert (parent_category == "Table") == (meta["category"] == "TableRow"), (
                "a Table's children are only TableRows, and a TableRow is the child of a Table only"
            )
        else:
            assert meta["category"] != "TableRow", "a TableRow is the child of a Table only"
        # heading_path is exactly the texts of the Title ancestors, root first.
        titles: list[str] = []
        cursor = parent
        while cursor is not None:
            ancestor = by_id[cursor]
            if ancestor.metadata["category"] == "Title":
                titles.append(ancestor.page_content)
            cursor = ancestor.metadata["parent_id"]
        assert meta["heading_path"] == titles[::-1]
        assert isinstance(meta["category_depth"], int) and meta["category_depth"] >= 0
        if meta["start_line"] is not None:
            assert 1 <= meta["start_line"] <= meta["end_line"]


def parse(text: str) -> list[Document]:
    docs = parse_markdown(text, source="fuzz/doc.md", document_id="fuzz")
    check_tree(docs)
    # Deterministic: the same text gives the same elements (ids are content hashes, not counters).
    again = parse_markdown(text, source="fuzz/doc.md", document_id="fuzz")
    assert [(d.id, d.page_content) for d in again] == [(d.id, d.page_content) for d in docs]
    return docs


@FUZZ
@given(st.text(max_size=2000))
@example("")
@example("\x00")
@example("\r\n# a\r\n\r\n- b\r\n")
@example("# \n\n## x")  # an empty heading must not become anyone's parent
def test_arbitrary_text_never_breaks_the_tree(text: str) -> None:
    parse(text)


# -- markdown-shaped text ---------------------------------------------------------------------------

_words = st.text(alphabet=st.sampled_from("ab가나 *_`[]()<>!#|-:\\&;"), min_size=0, max_size=12)


def _line(kind: str, indent: int, words: str, n: int) -> str:
    pad = " " * indent
    return {
        "heading": f"{pad}{'#' * (n % 7 + 1)} {words}",
        "bullet": f"{pad}{'-*+'[n % 3]} {words}",
        "ordered": f"{pad}{n % 12}{'.)'[n % 2]} {words}",
        "quote": f"{pad}{'>' * (n % 4 + 1)} {words}",
        "fence": f"{pad}{'`' * 3 if n % 2 else '~' * 3}{words if n % 3 == 0 else ''}",
        "table": f"{pad}| {words} | {n} |",
        "delimiter": f"{pad}|---|{'-' * (n % 4 + 1)}|",
        "html": f"{pad}<{'div' if n % 2 else 'script'}>{words}",
        "setext": f"{pad}{'=-'[n % 2] * (n % 5 + 1)}",
        "hr": f"{pad}***",
        "front": "---",
        "image": f"{pad}![{words}](x.png)",
        "blank": "",
        "text": f"{pad}{words}",
    }[kind]


_lines = st.lists(
    st.builds(
        _line,
        st.sampled_from(["heading", "bullet", "ordered", "quote", "fence", "table", "delimiter", "html", "setext",
                         "hr", "front", "image", "blank", "text"]),
        st.integers(min_value=0, max_value=9),
        _words,
        st.integers(min_value=0, max_value=60),
    ),
    max_size=40,
)


@FUZZ
@given(_lines)
@example(["- a", "  - b", "    - c", "```", "- d", "```", "| a |", "|---|", "| b |"])
@example(["---", "title: x", "---", "# h", "> - q", ">   ```", "> code"])
def test_markdown_shaped_text_never_breaks_the_tree(lines: list[str]) -> None:
    parse("\n".join(lines))


@FUZZ
@given(st.integers(min_value=1, max_value=400), st.sampled_from(["> ", "- ", "1. ", "> - ", "* > "]))
def test_deep_nesting_of_any_container_keeps_the_tree(depth: int, marker: str) -> None:
    docs = parse("# top\n\n" + marker * depth + "leaf\n\n## next\n\ntext\n")
    # Whatever was nested too deep is dropped, but the document around it is intact.
    assert [d.page_content for d in docs if d.metadata["category"] == "Title"][:1] == ["top"]
    assert docs[-1].page_content == "text" and docs[-1].metadata["heading_path"] == ["top", "next"]
    texts = [d.page_content for d in docs]
    # Either the leaf survived, or the element it was cut under says so (and only then).
    assert ("leaf" in texts) != any(d.metadata.get("truncated_nesting") for d in docs)


def test_regression_a_too_deep_list_no_longer_swallows_the_rest_of_the_document() -> None:
    # Found by test_deep_nesting_of_any_container_keeps_the_tree: past MAX_NESTING markdown-it skipped "to the
    # end", which for a list item is the end of the document, so "## next" and everything after it vanished.
    docs = parse("# top\n\n" + "- " * 50 + "leaf\n\n## next\n\ntext\n")
    assert [(d.page_content, d.metadata.get("truncated_nesting")) for d in docs] == [
        ("top", True), ("next", None), ("text", None)
    ]
