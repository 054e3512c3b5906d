"""Export never half-fails: text GraphML cannot hold (control characters) is sanitised, on a committed fixture and
on the public docs (Python-Markdown's api.md holds ``\\x02``). Real Postgres; a hash embedder, since the vectors
are not what is under test."""

from __future__ import annotations

import contextlib
import csv
import hashlib
import json
import os
import uuid
from pathlib import Path

import networkx as nx
import numpy as np
import pandas as pd
import pytest

from core.embeddings import EmbedderInfo, NamedEmbeddings
from core.graph import IndexConfig
from core.graph.export import export_index, xml_safe
from core.graph.indexing.pipeline import run_index
from core.ingest import ingest_paths
from core.store import ElementStore

from .test_faults import tmpfs

ROOT = Path(__file__).resolve().parents[1]
PUBLIC_DOCS = ROOT / "bench" / "corpora" / "python-markdown"
CONTROL_TEXT = (
    "# Escapes \x02 in Markdown\n\n"
    "The **Placeholder\x02Marker** appears with HTML and Python-Markdown in the Placeholder\x02Marker docs.\n\n"
    "## Terminal Colours\n\nAn ANSI escape \x1b[31m colours HTML output of Python-Markdown; a form feed \x0c too.\n"
)


class HashEmbeddings(NamedEmbeddings):
    """512-d unit vectors seeded by the text's hash: deterministic and instant."""

    info = EmbedderInfo("hash", "test-sha256-512", 512)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self._vector(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self._vector(text)

    @staticmethod
    def _vector(text: str) -> list[float]:
        seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")
        v = np.random.default_rng(seed).standard_normal(512)
        return (v / np.linalg.norm(v)).tolist()


def test_xml_safe_replaces_only_what_xml_cannot_hold() -> None:
    assert xml_safe("a\x02b\x1bc\x0cd\ud800e\ufffe") == "a\ufffdb\ufffdc\ufffdd\ufffde\ufffd"
    assert xml_safe("tab\tnew\nret\r 한글 😀") == "tab\tnew\nret\r 한글 😀"


def _export_all(db_url: str, paths: list[Path], out: Path) -> None:
    store = ElementStore(db_url, f"t_{uuid.uuid4().hex[:10]}", HashEmbeddings())
    try:
        report = ingest_paths(store, paths)
        assert not report.errors, report.errors
        run_index(store, config=IndexConfig(extraction="offline", reports="extractive"))
        for fmt in ("csv", "parquet"):
            written = export_index(store, out / fmt, fmt=fmt)
            assert set(written) == {"text_units", "entities", "relationships", "communities", "community_reports",
                                    "graph"}  # fmt: skip
            g = nx.read_graphml(written["graph"])
            entities = pd.read_csv(out / "csv" / "entities.csv") if fmt == "csv" else None
            if entities is not None:
                assert g.number_of_nodes() == len(entities)
            assert not list((out / fmt).glob(".*.tmp"))  # no temporary file left behind
    finally:
        store.drop()


def test_export_sanitises_control_characters(db_url: str, tmp_path: Path) -> None:
    doc = tmp_path / "controls.md"
    doc.write_text(CONTROL_TEXT, encoding="utf-8")
    _export_all(db_url, [doc], tmp_path / "out")
    g = nx.read_graphml(tmp_path / "out" / "csv" / "graph.graphml")
    titles = {d["title"] for _n, d in g.nodes(data=True)}
    assert "Placeholder\ufffdMarker" in titles
    descriptions = " ".join(d["description"] for _n, d in g.nodes(data=True))
    assert "\x02" not in descriptions and "\x1b" not in descriptions
    # The tables keep the stored text as it is.
    reports = pd.read_csv(tmp_path / "out" / "csv" / "community_reports.csv")
    assert json.loads(reports["findings"][0])


@pytest.mark.skipif(not PUBLIC_DOCS.is_dir(), reason="public corpora not fetched (bench/fetch_corpora.py)")
def test_export_on_the_python_markdown_docs(db_url: str, tmp_path: Path) -> None:
    _export_all(db_url, [PUBLIC_DOCS], tmp_path / "out")


# -- where the export goes, and a disk that fills up --------------------------------------------------------------

FORMULA_DOC = (
    "# =HYPERLINK(\"http://x\") Report\n\n"
    "=SUM(1+1) is what the Orion Array spreadsheet shows for the Orion Array.\n\n"
    "## @Orion Array\n\n- -Orion Array weighs 5 kg and links to the Vega Relay.\n"
    "- +Vega Relay works with the Orion Array.\n"
)
TABLES = {f"{name}.csv" for name in ("text_units", "entities", "relationships", "communities", "community_reports")}


@pytest.fixture(scope="module")
def indexed(db_url: str, use_embeddings, tmp_path_factory) -> ElementStore:
    """A collection the CLI can open too (the default embedder), with a small offline index."""
    doc = tmp_path_factory.mktemp("docs") / "formulas.md"
    doc.write_text(FORMULA_DOC, encoding="utf-8")
    store = ElementStore(db_url, f"t_{uuid.uuid4().hex[:10]}", use_embeddings)
    assert not ingest_paths(store, [doc]).errors
    run_index(store, config=IndexConfig(extraction="offline", reports="extractive"))
    yield store
    store.drop()


def test_csv_cells_a_spreadsheet_would_run_are_written_as_text(indexed: ElementStore, tmp_path: Path) -> None:
    export_index(indexed, tmp_path, fmt="csv")
    cells = [cell for name in TABLES for row in csv.reader((tmp_path / name).open(encoding="utf-8")) for cell in row]
    assert any(cell.startswith("'=") for cell in cells), "the fixture must hold formula-like text"
    assert not [c for c in cells if c.startswith(("=", "+", "-", "@", "\t", "\r"))]
    units = pd.read_csv(tmp_path / "text_units.csv")
    assert units["text"].str.contains('=HYPERLINK("http://x")', regex=False).any(), "the text itself is kept"


def _cli_export(indexed: ElementStore, out: str, capsys) -> tuple[int, str]:
    from core.cli import main

    code = main(["export", "--collection", indexed.collection, "--format", "csv", "--out", out])
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def test_an_unusable_output_folder_is_a_clear_error(indexed: ElementStore, tmp_path: Path, capsys) -> None:
    a_file = tmp_path / "report.txt"
    a_file.write_text("keep me", encoding="utf-8")
    cases = {
        str(a_file): f"error: Cannot export to {a_file}: {a_file} is a file, not a folder.",
        "/proc": "error: Cannot export to /proc:",
        str(a_file / "sub"): f"error: Cannot export to {a_file / 'sub'}: {a_file} is a file, not a folder.",
        "": "error: --out is empty: name the folder to export to",
    }
    for out, expected in cases.items():
        code, output = _cli_export(indexed, out, capsys)
        assert code in (1, 2) and output.startswith(expected) and "Traceback" not in output, (out, output)
    assert a_file.read_text(encoding="utf-8") == "keep me"
    with tmpfs("1m", "ro") as read_only:
        code, output = _cli_export(indexed, str(read_only / "export"), capsys)
        assert code == 1 and output.startswith(f"error: Cannot create the export folder {read_only / 'export'}: "
                                               "Read-only file system."), output
        code, output = _cli_export(indexed, str(read_only), capsys)
        assert code == 1 and "Read-only file system" in output and str(read_only) in output, output


def test_a_full_disk_leaves_the_previous_export_whole(indexed: ElementStore, capsys) -> None:
    with tmpfs("4m") as disk:
        out = disk / "export"
        assert _cli_export(indexed, str(out), capsys)[0] == 0
        names = sorted(p.name for p in out.iterdir())
        assert set(names) == TABLES | {"graph.graphml"}
        size = sum(p.stat().st_size for p in out.iterdir())
        for name in names:  # marks the previous export, so that any file the next one replaced shows
            (out / name).write_text(f"previous {name}", encoding="utf-8")
        filler = os.open(disk / "filler", os.O_WRONLY | os.O_CREAT)  # fill the disk up, then free half of
        try:  # what an export needs
            with contextlib.suppress(OSError):
                while True:
                    os.write(filler, b"\0" * 4096)
            os.ftruncate(filler, os.lseek(filler, 0, os.SEEK_CUR) - size // 2)
        finally:
            os.close(filler)
        code, output = _cli_export(indexed, str(out), capsys)
        assert code == 1 and output.startswith(f"error: Cannot write the export to {out}: the disk is full"), output
        assert "the previous export is unchanged" in output
        assert sorted(p.name for p in out.iterdir()) == names, "no staging folder or half file is left"
        assert {name: (out / name).read_text(encoding="utf-8") for name in names} == {
            name: f"previous {name}" for name in names}
        (disk / "filler").unlink()
        assert _cli_export(indexed, str(out), capsys)[0] == 0  # room again: the whole new set replaces the old
        assert all(not (out / name).read_text(encoding="utf-8").startswith("previous") for name in names)
