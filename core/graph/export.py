"""Export a collection's index: the five tables as Parquet or CSV (GraphRAG's file names), the graph as GraphML.

Parquet keeps list columns as lists; CSV stores them (and report findings) as JSON text. GraphML cannot hold
lists either, so node and edge attributes there are scalars: ids, titles, types, descriptions, degrees, weights,
and each entity's finest entity community. XML 1.0 cannot hold most control characters either (Python-Markdown's
own docs contain ``\x02``), so GraphML strings have them replaced by U+FFFD; the tables keep the text as stored.

An export is all or nothing: every file is written into a hidden staging folder inside the target folder first
(same file system, so the moves below are renames), and only once all are complete are they moved into place, the
files they replace set aside until the last one is in. A full disk, a write error or a failed move leaves the
previous export as it was and no staging folder behind. CSV cells that a spreadsheet would run as formulas are
written as text (:func:`core.text.spreadsheet_safe`).
"""

from __future__ import annotations

import errno
import json
import os
import re
import shutil
import tempfile
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

import networkx as nx

from core.graph import read
from core.text import first_line, spreadsheet_safe

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


class ExportError(RuntimeError):
    """The export could not be written; the message names the folder and why. The previous export is unchanged."""


def _reason(exc: OSError) -> str:
    # pyarrow's write errors carry the errno only in their text.
    if exc.errno == errno.ENOSPC or "No space left on device" in str(exc):
        return "the disk is full (No space left on device)"
    if exc.errno == errno.EFBIG:
        return "a file is larger than this file system or process allows"
    return exc.strerror or first_line(exc)


def _target_folder(out: Path) -> bool:
    """Make ``out`` if needed (True if it was made here); an :class:`ExportError` that says what is wrong with it."""
    existing = next((p for p in (out, *out.parents) if p.exists()), None)
    if existing is not None and not existing.is_dir():
        raise ExportError(f"Cannot export to {out}: {existing} is a file, not a folder. Choose a folder with --out.")
    try:
        made = not out.exists()
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ExportError(f"Cannot create the export folder {out}: {_reason(exc)}.") from exc
    return made


def _write_frame(frame: Any, path: Path, fmt: str) -> None:
    if fmt == "parquet":
        frame.to_parquet(path, index=False)
        return
    frame = frame.copy()
    for column in frame.columns:
        if frame[column].map(lambda v: isinstance(v, list)).any():
            frame[column] = frame[column].map(lambda v: json.dumps(v, ensure_ascii=False))
        frame[column] = frame[column].map(spreadsheet_safe)
    frame.to_csv(path, index=False)


def _move_into_place(staging: Path, out: Path, names: list[str]) -> None:
    """Rename every staged file onto ``out``; if one rename fails, put back the files that were there before."""
    aside = Path(tempfile.mkdtemp(prefix=".hke-export-old-", dir=out))
    placed: list[str] = []
    set_aside: list[str] = []
    try:
        for name in names:
            if (out / name).exists():
                os.replace(out / name, aside / name)
                set_aside.append(name)
        for name in names:
            os.replace(staging / name, out / name)
            placed.append(name)
    except OSError:
        for name in placed:
            (out / name).unlink(missing_ok=True)
        for name in set_aside:
            os.replace(aside / name, out / name)
        raise
    finally:
        shutil.rmtree(aside, ignore_errors=True)


def export_index(
    store: ElementStore, out_dir: str | Path, *, fmt: str = "parquet", graphml: bool = True
) -> dict[str, Path]:
    """Write the tables (and ``graph.graphml``) to ``out_dir``, all or nothing; returns ``{name: path}``.

    Raises :class:`ExportError` when the folder cannot be used or a file cannot be written (the previous export, if
    any, stays as it was).
    """
    if fmt not in FORMATS:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}")
    if not str(out_dir).strip():
        raise ValueError("the output folder is empty: name a folder (--out graph-export)")
    if not read.index_exists(store):
        raise read.GraphIndexMissing(f"collection {store.collection!r} has no index to export: run `index` first")
    # Everything is built (and the GraphML serialised) before the first file is written.
    frames = index_frames(store)
    graphml_text = "\n".join(nx.generate_graphml(graph(store))) if graphml else ""
    out = Path(out_dir)
    made = _target_folder(out)
    files = {name: f"{name}.{fmt}" for name in frames}
    if graphml:
        files["graph"] = "graph.graphml"
    try:
        staging = Path(tempfile.mkdtemp(prefix=".hke-export-new-", dir=out))
    except OSError as exc:
        raise ExportError(f"Cannot export to {out}: {_reason(exc)}.") from exc
    try:
        for name, frame in frames.items():
            _write_frame(frame, staging / files[name], fmt)
        if graphml:
            (staging / files["graph"]).write_text(graphml_text, encoding="utf-8")
        _move_into_place(staging, out, list(files.values()))
    except OSError as exc:
        what = "nothing was exported" if made else "the previous export is unchanged"
        raise ExportError(f"Cannot write the export to {out}: {_reason(exc)}; {what}.") from exc
    finally:
        shutil.rmtree(staging, ignore_errors=True)
        if made and not any(out.iterdir()):
            out.rmdir()
    return {name: out / file for name, file in files.items()}
