"""Export a collection's index: the five tables as Parquet or CSV (GraphRAG's file names), the graph as GraphML.

Parquet keeps list columns as lists; CSV stores them (and report findings) as JSON text. GraphML cannot hold
lists either, so node and edge attributes there are scalars: ids, titles, types, descriptions, degrees, weights,
and each entity's finest entity community. XML 1.0 cannot hold most control characters either (Python-Markdown's
own docs contain ``\x02``), so GraphML strings have them replaced by U+FFFD; the tables keep the text as stored.

An export never half-fails: the graph is built and checked before any file is written, and each file is written to
a temporary name first, then renamed.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

import networkx as nx

from core.graph import read

if TYPE_CHECKING:
    from core.store import ElementStore

FORMATS = ("parquet", "csv")
TABLE_FILES = ("text_units", "entities", "relationships", "communities", "community_reports")


def index_frames(store: ElementStore) -> dict[str, Any]:
    """The index as pandas DataFrames named like GraphRAG's output tables."""
    import pandas as pd

    reports = read.load_reports(store, level=None, kind=None)
    report_rows = []
    for r in reports:
        row = r.to_dict()
        row["findings"] = json.dumps(row["findings"], ensure_ascii=False)
        report_rows.append(row)
    return {
        "text_units": pd.DataFrame([asdict(u) for u in read.text_units(store)]),
        "entities": pd.DataFrame([asdict(e) for e in read.entities(store)]),
        "relationships": pd.DataFrame([asdict(r) for r in read.relationships(store)]),
        "communities": pd.DataFrame([asdict(c) for c in read.communities(store)]),
        "community_reports": pd.DataFrame(report_rows),
    }


# Characters XML 1.0 cannot hold: C0 controls but tab/newline/return, surrogates, U+FFFE and U+FFFF.
_NOT_XML = re.compile("[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def xml_safe(text: str) -> str:
    """``text`` with every character XML 1.0 cannot hold replaced by U+FFFD."""
    return _NOT_XML.sub("\ufffd", text)


def graph(store: ElementStore) -> nx.Graph:
    """The entity graph with scalar, XML-safe attributes (GraphML-safe)."""
    finest: dict[str, tuple[int, str]] = {}
    for c in read.communities(store, kind="entity"):
        for e in c.entity_ids:
            if e not in finest or c.level > finest[e][0]:
                finest[e] = (c.level, c.id)
    g = nx.Graph()
    for e in read.entities(store):
        g.add_node(e.id, title=xml_safe(e.title), type=xml_safe(e.type), description=xml_safe(e.description),
                   degree=e.degree, frequency=e.frequency, community=finest.get(e.id, (0, ""))[1])  # fmt: skip
    for r in read.relationships(store):
        g.add_edge(r.source_id, r.target_id, id=r.id, weight=r.weight, description=xml_safe(r.description),
                   source_title=xml_safe(r.source), target_title=xml_safe(r.target))  # fmt: skip
    return g


def _write_atomically(path: Path, write: Callable[[Path], object]) -> None:
    """``write(tmp_path)``, then rename onto ``path``: a failed write leaves no half file behind."""
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        write(tmp)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def export_index(
    store: ElementStore, out_dir: str | Path, *, fmt: str = "parquet", graphml: bool = True
) -> dict[str, Path]:
    """Write the tables (and ``graph.graphml``) to ``out_dir``; returns ``{name: path}``."""
    if fmt not in FORMATS:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}")
    if not read.index_exists(store):
        raise read.GraphIndexMissing(f"collection {store.collection!r} has no index to export: run `index` first")
    # Everything is built (and the GraphML serialised) before the first file is written.
    frames = index_frames(store)
    graphml_text = "\n".join(nx.generate_graphml(graph(store))) if graphml else ""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written: dict[str, Path] = {}
    for name, frame in frames.items():
        path = out / f"{name}.{fmt}"
        if fmt == "parquet":
            _write_atomically(path, lambda tmp, frame=frame: frame.to_parquet(tmp, index=False))
        else:
            frame = frame.copy()
            for column in frame.columns:
                if frame[column].map(lambda v: isinstance(v, list)).any():
                    frame[column] = frame[column].map(lambda v: json.dumps(v, ensure_ascii=False))
            _write_atomically(path, lambda tmp, frame=frame: frame.to_csv(tmp, index=False))
        written[name] = path
    if graphml:
        path = out / "graph.graphml"
        _write_atomically(path, lambda tmp: tmp.write_text(graphml_text, encoding="utf-8"))
        written["graph"] = path
    return written
