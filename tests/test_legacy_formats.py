"""HTML and DOCX files become the same parent-linked element tree as markdown (core.html_docx_loader).

Every input is created here: HTML as strings, DOCX with python-docx. Trees are asserted as
(category, depth, text, parent text) rows; paragraph categories are folded to "Text" because unstructured's
NarrativeText-or-not call depends on whether a spaCy model is installed (see core/unstructured_loader.py).
One test runs the loader in a fresh interpreter with every socket and subprocess refused, from before
unstructured is imported, which proves it needs no network and sends no telemetry.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from langchain_core.documents import Document

pytest.importorskip("unstructured", reason="unstructured is an optional install")
docx = pytest.importorskip("docx", reason="python-docx is needed to write the DOCX inputs")

from core.elements import ELEMENT_CATEGORIES, element_id_for  # noqa: E402
from core.html_docx_loader import LegacyFormatError, parse_docx, parse_html  # noqa: E402
from core.ingest import SourceFile, discover, ingest, ingest_paths  # noqa: E402
from core.markdown_loader import parse_markdown  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]

HTML = """<!doctype html>
<html><head><title>Browser tab title</title>
<style>body { background: url("javascript:alert('style')") }</style>
<script>alert('head-script')</script></head>
<body onload="alert('onload')">
<h1>Product guide</h1>
<p>This guide explains how the product works. Read it before you start.</p>
<h2>Features</h2>
<ul>
  <li>Fast startup
    <ul><li>Under one second</li><li>No warm-up</li></ul>
  </li>
  <li>Small memory use</li>
</ul>
<h3>Specs</h3>
<table><tr><th>Key</th><th>Value</th></tr><tr><td>Weight &lt;b&gt;</td><td>2.6 | 2.8 kg</td></tr></table>
<h2>Installation</h2>
<ol><li>Download the package</li><li>Run the installer</li></ol>
<pre><code>make install</code></pre>
<h4>Troubleshooting</h4>
<p onclick="alert('click')">Restart the service.</p>
<p>&lt;script&gt;alert('shown as text')&lt;/script&gt;</p>
<script>document.write('body-script')</script>
<noscript><p>noscript-text</p></noscript>
<img src="wiring.png" alt="Wiring diagram" onerror="alert('img')">
</body></html>
"""

TABLE_TEXT = "| Key | Value |\n| --- | --- |"  # the header: each row is its own TableRow element under it
ROW_TEXT = "Key: Weight <b> · Value: 2.6 | 2.8 kg"


def make_docx() -> bytes:
    d = docx.Document()
    d.add_heading("Product guide", level=0)  # the Title style: the document's title
    d.add_paragraph("This guide explains how the product works. Read it before you start.")
    d.add_heading("Features", level=1)
    d.add_paragraph("Fast startup", style="List Bullet")
    d.add_paragraph("Under one second", style="List Bullet 2")
    d.add_paragraph("No warm-up", style="List Bullet 2")
    d.add_paragraph("Small memory use", style="List Bullet")
    d.add_heading("Specs", level=2)
    table = d.add_table(rows=2, cols=2)
    for (row, col), value in {(0, 0): "Key", (0, 1): "Value", (1, 0): "Weight <b>", (1, 1): "2.6 | 2.8 kg"}.items():
        table.cell(row, col).text = value
    bold = d.add_paragraph()
    bold.add_run("Looks like a heading").bold = True  # but is Normal style: stays text
    d.add_heading("Installation", level=1)
    d.add_paragraph("Download the package", style="List Number")
    d.add_heading("Troubleshooting", level=4)
    d.add_paragraph("Restart the service.")
    buf = io.BytesIO()
    d.save(buf)
    return buf.getvalue()


def tree(docs: list[Document]) -> list[tuple[str, int, str, str | None]]:
    by_id = {d.metadata["element_id"]: d for d in docs}
    rows = []
    for d in docs:
        category = d.metadata["category"]
        parent = d.metadata["parent_id"]
        rows.append((
            "Text" if category in ("NarrativeText", "UncategorizedText") else category,
            d.metadata["category_depth"],
            d.page_content,
            by_id[parent].page_content if parent else None,
        ))
    return rows


def check_schema(docs: list[Document], fmt: str) -> None:
    """The markdown loader's schema, ids by its recipe, and a parent-before-child tree."""
    reference = set(parse_markdown("# a\n\nb\n", source="s.md", document_id="x")[0].metadata)
    seen: dict[str, Document] = {}
    for i, d in enumerate(docs):
        meta = d.metadata
        assert reference <= meta.keys()
        assert meta["category"] in ELEMENT_CATEGORIES and meta["order"] == i and meta["source_format"] == fmt
        assert meta["parent_id"] is None or meta["parent_id"] in seen
        siblings = [s for s in seen.values() if (s.metadata["parent_id"], s.metadata["category"], s.page_content)
                    == (meta["parent_id"], meta["category"], d.page_content)]
        assert meta["element_id"] == d.id == element_id_for(
            meta["document_id"], meta["parent_id"], meta["category"], d.page_content, len(siblings)
        )
        seen[meta["element_id"]] = d


# -- HTML -------------------------------------------------------------------------------------------


def test_html_tree_keeps_heading_and_list_structure() -> None:
    docs = parse_html(HTML, source="kb/guide.html", document_id="doc-h")
    check_schema(docs, "html")
    assert tree(docs) == [
        ("Title", 0, "Product guide", None),
        ("Text", 0, "This guide explains how the product works. Read it before you start.", "Product guide"),
        ("Title", 1, "Features", "Product guide"),
        ("ListItem", 0, "Fast startup", "Features"),
        ("ListItem", 1, "Under one second", "Fast startup"),
        ("ListItem", 1, "No warm-up", "Fast startup"),
        ("ListItem", 0, "Small memory use", "Features"),
        ("Title", 2, "Specs", "Features"),
        ("Table", 0, TABLE_TEXT, "Specs"),
        ("TableRow", 0, ROW_TEXT, TABLE_TEXT),
        ("Title", 1, "Installation", "Product guide"),
        ("ListItem", 0, "Download the package", "Installation"),
        ("ListItem", 0, "Run the installer", "Installation"),
        # unstructured's own tree drops the heading stack after code; ours keeps it.
        ("CodeSnippet", 0, "make install", "Installation"),
        ("Title", 3, "Troubleshooting", "Installation"),  # h4 right after h2: parent is the h2
        ("Text", 0, "Restart the service.", "Troubleshooting"),
        ("Text", 0, "<script>alert('shown as text')</script>", "Troubleshooting"),
        ("Image", 0, "Wiring diagram", "Troubleshooting"),
    ]
    by_text = {d.page_content: d.metadata for d in docs}
    assert by_text["Under one second"]["heading_path"] == ["Product guide", "Features"]
    assert by_text["Wiring diagram"]["image_url"] in ("", "wiring.png")


def test_html_script_and_style_are_dropped_and_only_text_is_kept() -> None:
    """<script>/<style>/<noscript> content is dropped (never stored); attributes are never read.

    Text that *displays* as markup in a browser (``&lt;script&gt;`` in the source) is stored as exactly those
    characters: data, which every view escapes.
    """
    docs = parse_html(HTML, source="kb/guide.html", document_id="doc-h")
    everything = json.dumps([[d.page_content, d.metadata] for d in docs], ensure_ascii=False)
    for never in ("head-script", "body-script", "javascript:", "onload", "onclick", "onerror", "alert('img')",
                  "alert('click')", "noscript-text", "background", "Browser tab title"):
        assert never not in everything, never
    literal = [d for d in docs if "shown as text" in d.page_content]
    assert [d.page_content for d in literal] == ["<script>alert('shown as text')</script>"]


def test_table_cells_are_escaped_in_text_as_html() -> None:
    [table] = [d for d in parse_html(HTML, source="g.html", document_id="d") if d.metadata["category"] == "Table"]
    assert table.metadata["text_as_html"] == (
        "<table><thead><tr><th>Key</th><th>Value</th></tr></thead><tbody></tbody></table>"
    )
    [row] = [d for d in parse_html(HTML, source="g.html", document_id="d") if d.metadata["category"] == "TableRow"]
    assert row.metadata["cells"] == ["Weight <b>", "2.6 | 2.8 kg"]  # the cell text, not a tag


def test_html_nested_past_the_parser_limit_is_refused() -> None:
    # lxml stops at 256 nested elements and silently drops the rest of the page: refuse instead.
    deep = "<h1>T</h1>" + "<div>" * 300 + "deep" + "</div>" * 300 + "<p>after</p>"
    with pytest.raises(LegacyFormatError, match="nested deeper than 256"):
        parse_html(deep, source="deep.html", document_id="d")
    with pytest.raises(LegacyFormatError, match="nested deeper than 256"):  # lxml refuses this as a str
        parse_html('<?xml version="1.0" encoding="utf-8"?>' + deep, source="deep.xhtml.html", document_id="d")
    ok = "<h1>T</h1>" + "<div>" * 100 + "<p>deep text</p>" + "</div>" * 100 + "<p>after text</p>"
    assert [d.page_content for d in parse_html(ok, source="ok.html", document_id="d")] == [
        "T", "deep text", "after text"
    ]


# -- DOCX -------------------------------------------------------------------------------------------


def test_docx_tree_from_heading_and_list_styles() -> None:
    docs = parse_docx(make_docx(), source="kb/guide.docx", document_id="doc-d")
    check_schema(docs, "docx")
    assert tree(docs) == [
        ("Title", 0, "Product guide", None),
        ("Text", 0, "This guide explains how the product works. Read it before you start.", "Product guide"),
        ("Title", 0, "Features", "Product guide"),  # Heading 1 under the Title-style paragraph
        ("ListItem", 0, "Fast startup", "Features"),
        ("ListItem", 1, "Under one second", "Fast startup"),  # "List Bullet 2"
        ("ListItem", 1, "No warm-up", "Fast startup"),
        ("ListItem", 0, "Small memory use", "Features"),
        ("Title", 1, "Specs", "Features"),
        ("Table", 0, TABLE_TEXT, "Specs"),
        ("TableRow", 0, ROW_TEXT, TABLE_TEXT),
        ("Text", 0, "Looks like a heading", "Specs"),  # bold Normal text is not a heading
        ("Title", 0, "Installation", "Product guide"),
        ("ListItem", 0, "1. Download the package", "Installation"),
        ("Title", 3, "Troubleshooting", "Installation"),  # Heading 4 after Heading 1
        ("Text", 0, "Restart the service.", "Troubleshooting"),
    ]
    [row] = [d for d in docs if d.metadata["category"] == "TableRow"]
    assert row.metadata["cells"] == ["Weight <b>", "2.6 | 2.8 kg"]


def test_ids_are_deterministic_and_scoped_to_the_document() -> None:
    data = make_docx()
    a1 = parse_docx(data, source="a/guide.docx", document_id="doc-a")
    a2 = parse_docx(data, source="a/guide.docx", document_id="doc-a")
    b = parse_docx(data, source="b/guide.docx", document_id="doc-b")
    assert [d.id for d in a1] == [d.id for d in a2]
    assert len({d.id for d in a1}) == len(a1)
    assert not {d.id for d in a1} & {d.id for d in b}, "same file name and content in two folders: two documents"


@pytest.mark.parametrize(
    ("case", "reason"),
    [
        ("not a zip", "not a DOCX file"),
        ("zip without word/document.xml", "no word/document.xml"),
        ("damaged document.xml", "DOCX file is damaged"),
        ("zip bomb", "zip bomb"),
    ],
)
def test_bad_docx_is_refused_with_a_reason(case: str, reason: str) -> None:
    good = zipfile.ZipFile(io.BytesIO(make_docx()))
    parts = {name: good.read(name) for name in good.namelist()}
    if case == "not a zip":
        data = b"PK but not really a zip"
    else:
        if case == "zip without word/document.xml":
            parts = {"readme.txt": b"hello"}
        elif case == "damaged document.xml":
            parts["word/document.xml"] = b"<w:document broken"
        else:  # 50 MB of zeros deflate to ~50 KB: a 1000x expansion
            parts["word/media/padding.bin"] = bytes(50_000_000)
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as archive:
            for name, content in parts.items():
                archive.writestr(name, content)
        data = buf.getvalue()
    with pytest.raises(LegacyFormatError, match=reason):
        parse_docx(data, source="bad.docx", document_id="d")


# -- offline ----------------------------------------------------------------------------------------

_OFFLINE_CHILD = r"""
import json, os, socket, subprocess, sys
for name in ("DO_NOT_TRACK", "SCARF_NO_ANALYTICS"):
    os.environ.pop(name, None)  # our code must set them, not the test
attempts = []
def refuse(*args, **kwargs):
    attempts.append(repr(args)[:200])
    raise OSError("network disabled in this test")
socket.getaddrinfo = refuse
socket.create_connection = refuse
socket.socket.connect = refuse
socket.socket.connect_ex = refuse
def no_spawn(self, *args, **kwargs):  # unstructured's telemetry ping runs a subprocess
    attempts.append("subprocess " + repr(args)[:200])
    raise OSError("subprocesses disabled in this test")
subprocess.Popen.__init__ = no_spawn
from core.html_docx_loader import parse_docx, parse_html
html_docs = parse_html(open(sys.argv[1], encoding="utf-8").read(), source="g.html", document_id="d")
docx_docs = parse_docx(open(sys.argv[2], "rb").read(), source="g.docx", document_id="d")
print(json.dumps({"attempts": attempts, "html": len(html_docs), "docx": len(docx_docs),
                  "opt_out": [os.environ.get("DO_NOT_TRACK"), os.environ.get("SCARF_NO_ANALYTICS")]}))
"""


def test_runs_offline_without_telemetry_in_a_fresh_process(tmp_path: Path) -> None:
    (tmp_path / "g.html").write_text(HTML, encoding="utf-8")
    (tmp_path / "g.docx").write_bytes(make_docx())
    env = {k: v for k, v in os.environ.items() if k not in ("DO_NOT_TRACK", "SCARF_NO_ANALYTICS")}
    env["PYTHONPATH"] = str(ROOT)
    done = subprocess.run(
        [sys.executable, "-c", _OFFLINE_CHILD, str(tmp_path / "g.html"), str(tmp_path / "g.docx")],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=180, check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["attempts"] == [], "no DNS lookup, connection or subprocess may happen"
    assert result["html"] == 18 and result["docx"] == 15  # each with its table row
    assert all(result["opt_out"]), "telemetry opt-out must be set by core.unstructured_loader"


# -- through ingest into a real store ----------------------------------------------------------------


def test_ingest_markdown_html_and_docx_into_one_store(store, tmp_path: Path) -> None:
    (tmp_path / "guide.md").write_text(
        "# Product guide\n\n## Features\n\n* Fast startup\n  * Under one second\n", encoding="utf-8"
    )
    (tmp_path / "guide.html").write_text(HTML, encoding="utf-8")
    (tmp_path / "guide.docx").write_bytes(make_docx())
    (tmp_path / "old.doc").write_bytes(b"\xd0\xcf\x11\xe0 binary Word 97")  # not discovered in a folder
    sources, problems = discover([tmp_path])
    assert sorted(s.name for s in sources) == ["guide.docx", "guide.html", "guide.md"] and problems == []

    report = ingest_paths(store, [tmp_path])
    assert (report.added, report.errors) == (3, []), report.errors
    records = {d.filename: d for d in store.documents()}
    assert {name: r.loader for name, r in records.items()} == {
        "guide.md": "markdown-it", "guide.html": "unstructured-html", "guide.docx": "unstructured-docx"
    }
    assert records["guide.docx"].encoding is None and records["guide.html"].encoding == "utf-8"

    for name in records:
        elements = store.elements(records[name].document_id)
        assert len(elements) == records[name].n_elements
        # The stored tree: heading → sub-heading → list item, walked up through the database.
        [leaf] = [e for e in elements if e.page_content == "Under one second"]
        chain = store.ancestors([leaf.id])
        path, cursor = [], leaf.metadata["parent_id"]
        while cursor:
            path.append(chain[cursor].page_content)
            cursor = chain[cursor].metadata["parent_id"]
        assert path == ["Fast startup", "Features", "Product guide"], name
    html_texts = [e.page_content for e in store.elements(records["guide.html"].document_id)]
    assert not any("head-script" in t or "body-script" in t for t in html_texts)

    calls = store.embeddings.calls
    again = ingest_paths(store, [tmp_path])
    assert (again.unchanged, again.added, store.embeddings.calls) == (3, 0, calls)


def test_ingest_refuses_bad_legacy_files_with_reasons(store, tmp_path: Path) -> None:
    (tmp_path / "old.doc").write_bytes(b"\xd0\xcf\x11\xe0")
    report = ingest(store, [
        SourceFile(name="fake.docx", data=b"this is text, not a zip"),
        SourceFile(name="empty.docx", data=b""),
        SourceFile(name="nul.html", data=b"<p>a\x00b</p>"),
        SourceFile(name="blank.html", data=b"<html><body>  </body></html>"),
        SourceFile(name="deep.htm", data=b"<div>" * 300 + b"x"),
    ], problems=discover([tmp_path / "old.doc"])[1])
    reasons = {e["path"]: e["reason"] for e in report.errors}
    assert "not a DOCX file" in reasons["fake.docx"]
    assert reasons["empty.docx"] == "file is empty"
    assert "binary" in reasons["nul.html"]
    assert "no content" in reasons["blank.html"]
    assert "nested deeper than 256" in reasons["deep.htm"]
    assert "unsupported file type .doc" in reasons[str(tmp_path / "old.doc")]
    assert report.added == 0 and store.documents() == []
