"""Export never half-fails: text GraphML cannot hold (control characters) is sanitised, on a committed fixture and
on the public docs (Python-Markdown's api.md holds ``\\x02``). Real Postgres; a hash embedder, since the vectors
are not what is under test."""

from __future__ import annotations

import hashlib
import json
import uuid
from pathlib import Path

import networkx as nx
import numpy as np
import pandas as pd
import pytest

from core.embeddings import EmbedderInfo, NamedEmbeddings
from core.graph import IndexConfig
from core.graph.export import export_index, xml_safe
from core.graph.index import run_index
from core.ingest import ingest_paths
from core.store import ElementStore

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
