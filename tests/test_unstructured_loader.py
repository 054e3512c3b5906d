"""Both loaders on one small document: where they agree, and where unstructured's tree is wrong.

The unstructured side is asserted *as observed* (unstructured 0.27.30 on Python-Markdown 3.x), so this
file documents the differences that made markdown-it the default; if unstructured fixes one, the
corresponding assertion fails and the note in DESIGN.md should be updated.

It also proves the wrapped loader runs offline: every socket use is refused and recorded, and the
English paragraphs (which make stock unstructured download a spaCy model) still parse.
"""

from __future__ import annotations

import socket
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from langchain_core.documents import Document

pytest.importorskip("unstructured", reason="unstructured is an optional install")

from core.elements import ELEMENT_CATEGORIES  # noqa: E402
from core.markdown_loader import parse_markdown  # noqa: E402
from core.unstructured_loader import SafeUnstructuredMarkdownLoader, parse_with_unstructured  # noqa: E402

DOC = textwrap.dedent(
    """\
    # Product guide

    This guide explains how the product works. Read it before you start.

    ## Features

    * Fast startup time
    * Small memory use

    ## Installation

    * Download the package
      * Check the checksum
      * Unpack the archive
    * Run the installer
        * Accept the license
        * Choose a folder

    1) Open the settings
    2) Save the profile

    - Build the project
      ```
      make all
      ```
    - Test the project

    - Package the project

      ```
      make dist
      ```
    - Ship the project
    - Announce the release

    ```python
    print("hello")
    ```

    ### Troubleshooting

    * Restart the service

    <script>alert(1)</script>
    """
)


@pytest.fixture(scope="module")
def network_attempts() -> Iterator[list[Any]]:
    """Refuse and record every DNS lookup and connection for the whole module."""
    attempts: list[Any] = []

    def refuse(*args: Any, **kwargs: Any) -> Any:
        attempts.append(args)
        raise OSError("network disabled in this test")

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(socket, "getaddrinfo", refuse)
        mp.setattr(socket, "create_connection", refuse)
        mp.setattr(socket.socket, "connect", refuse)
        yield attempts


@pytest.fixture(scope="module")
def both(network_attempts: list[Any]) -> dict[str, list[tuple[str, int, str, str | None]]]:
    # Every connection is refused here, so a model download or a retry loop shows as attempts (asserted below).
    theirs = parse_with_unstructured(DOC, source="kb/guide.md", document_id="doc-1")
    ours = parse_markdown(DOC, source="kb/guide.md", document_id="doc-1")
    return {"ours": tree(ours), "unstructured": tree(theirs), "raw_unstructured": theirs}  # type: ignore[dict-item]


def tree(docs: list[Document]) -> list[tuple[str, int, str, str | None]]:
    by_id = {d.metadata["element_id"]: d for d in docs}
    return [
        (
            d.metadata["category"],
            d.metadata["category_depth"],
            d.page_content,
            by_id[d.metadata["parent_id"]].page_content if d.metadata["parent_id"] else None,
        )
        for d in docs
    ]


def test_runs_offline_without_model_download(both: dict[str, Any], network_attempts: list[Any]) -> None:
    from unstructured.nlp import tokenize

    assert network_attempts == []
    # Control: the guard does see a lookup (so the empty list above means something).
    with pytest.raises(OSError):
        socket.getaddrinfo("github.com", 443)
    assert len(network_attempts) == 1
    network_attempts.clear()
    with pytest.raises(RuntimeError, match="disabled"):
        tokenize._install_spacy_model()
    # Without a POS model the "contains a verb" check is always false, so only multi-sentence English
    # paragraphs are NarrativeText (see core/unstructured_loader.py).
    assert ("NarrativeText", 0, "This guide explains how the product works. Read it before you start.",
            "Product guide") in both["unstructured"]  # fmt: skip


def test_same_metadata_schema(both: dict[str, Any]) -> None:
    raw: list[Document] = both["raw_unstructured"]
    ours = parse_markdown(DOC, source="kb/guide.md", document_id="doc-1")
    required = set(ours[0].metadata)
    for d in raw:
        assert required <= d.metadata.keys()
        assert d.metadata["category"] in ELEMENT_CATEGORIES
        assert (d.metadata["document_id"], d.metadata["source"], d.metadata["filename"]) == (
            "doc-1", "kb/guide.md", "guide.md",
        )  # fmt: skip
        assert d.metadata["start_line"] is None  # Python-Markdown's HTML has no source positions
    assert [d.metadata["order"] for d in raw] == list(range(len(raw)))
    # Same id recipe: where the two trees agree, the ids agree too.
    assert raw[0].metadata["element_id"] == ours[0].metadata["element_id"]
    assert by_text(raw, "Small memory use").metadata["heading_path"] == ["Product guide", "Features"]


def by_text(docs: list[Document], text: str) -> Document:
    [doc] = [d for d in docs if d.page_content == text]
    return doc


def test_agreement_headings_and_flat_items(both: dict[str, Any]) -> None:
    expected = [
        ("Title", 0, "Product guide", None),
        ("NarrativeText", 0, "This guide explains how the product works. Read it before you start.", "Product guide"),
        ("Title", 1, "Features", "Product guide"),
        ("ListItem", 0, "Fast startup time", "Features"),
        ("ListItem", 0, "Small memory use", "Features"),
        ("Title", 1, "Installation", "Product guide"),
        ("ListItem", 0, "Download the package", "Installation"),
    ]
    assert both["ours"][:7] == expected
    assert both["unstructured"][:7] == expected


def test_two_space_sub_bullets_flattened_by_unstructured(both: dict[str, Any]) -> None:
    assert ("ListItem", 1, "Check the checksum", "Download the package") in both["ours"]
    assert ("ListItem", 0, "Check the checksum", "Installation") in both["unstructured"]
    assert ("ListItem", 0, "Unpack the archive", "Installation") in both["unstructured"]


def test_four_space_sub_bullets_both_right(both: dict[str, Any]) -> None:
    # Python-Markdown's own indent is 4, so here unstructured is right too.
    for name in ("ours", "unstructured"):
        assert ("ListItem", 1, "Accept the license", "Run the installer") in both[name]
        assert ("ListItem", 1, "Choose a folder", "Run the installer") in both[name]


def test_paren_ordered_list_not_a_list_in_unstructured(both: dict[str, Any]) -> None:
    assert ("ListItem", 0, "Open the settings", "Installation") in both["ours"]
    assert ("ListItem", 0, "Save the profile", "Installation") in both["ours"]
    assert ("UncategorizedText", 0, "1) Open the settings 2) Save the profile", "Installation") in both["unstructured"]


def test_code_fence_in_list_item(both: dict[str, Any]) -> None:
    ours, theirs = both["ours"], both["unstructured"]
    assert ("CodeSnippet", 0, "make all", "Build the project") in ours
    assert ("CodeSnippet", 0, "make dist", "Package the project") in ours
    for item in ("Test the project", "Ship the project", "Announce the release"):
        assert ("ListItem", 0, item, "Installation") in ours
    # Tight item: unstructured glues the code into the item's text (the following item survives).
    assert ("ListItem", 0, "Build the project make all", "Installation") in theirs
    assert ("ListItem", 0, "Test the project", "Installation") in theirs
    # Loose item (blank line before the fence): the fence ends the list and swallows the items after it.
    assert ("ListItem", 0, "Package the project", "Installation") in theirs
    assert ("UncategorizedText", 0, "make dist - Ship the project - Announce the release", "Installation") in theirs
    assert not any(text == "Ship the project" for _, _, text, _ in theirs)


def test_top_level_code_fence_resets_heading_stack_in_unstructured(both: dict[str, Any]) -> None:
    ours, theirs = both["ours"], both["unstructured"]
    assert ("CodeSnippet", 0, 'print("hello")', "Installation") in ours
    assert ("Title", 2, "Troubleshooting", "Installation") in ours
    assert ("CodeSnippet", 0, 'print("hello")', None) in theirs
    assert ("Title", 2, "Troubleshooting", None) in theirs  # lost its parent section
    assert ("ListItem", 0, "Restart the service", "Troubleshooting") in theirs


def test_raw_html_script_dropped_by_unstructured(both: dict[str, Any]) -> None:
    assert both["ours"][-1] == ("UncategorizedText", 0, "<script>alert(1)</script>", "Troubleshooting")
    assert not any("alert" in text for _, _, text, _ in both["unstructured"])


def test_file_loader_matches_text_parser_and_rekeys_ids(tmp_path: Path, network_attempts: list[Any]) -> None:
    a, b = tmp_path / "a" / "guide.md", tmp_path / "b" / "guide.md"
    for path in (a, b):
        path.parent.mkdir()
        path.write_text(DOC, encoding="utf-8")
    docs_a = SafeUnstructuredMarkdownLoader(a).load()
    docs_b = SafeUnstructuredMarkdownLoader(b).load()
    assert tree(docs_a) == tree(docs_b) == tree(parse_with_unstructured(DOC, source=str(a), document_id="x"))
    # Stock unstructured hashes basename + text + position: same name and content would collide.
    ids_a = {d.metadata["element_id"] for d in docs_a}
    assert len(ids_a) == len(docs_a)
    assert not ids_a & {d.metadata["element_id"] for d in docs_b}
    assert network_attempts == []


def test_file_loader_reports_bad_encoding(tmp_path: Path) -> None:
    path = tmp_path / "ko.md"
    path.write_bytes("# 제품사양\n* 무게 : 2.6 kg\n".encode("cp949"))
    with pytest.raises(ValueError, match="not valid utf-8"):
        SafeUnstructuredMarkdownLoader(path).load()
