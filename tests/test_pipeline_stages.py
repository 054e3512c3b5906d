"""The named stages of the ingest (core.ingest.pipeline) and of the GraphRAG index (core.graph.indexing.pipeline),
each run on its own against the real database, and the one helper that builds the configured chat model (core.llm)."""

from __future__ import annotations

import dataclasses

import pytest

from core.config import load_settings
from core.graph.indexing.pipeline import (
    GraphIndexError,
    IndexConfig,
    _chat_model,
    _communities,
    _graph,
    _load,
    _Run,
    _text_units,
)
from core.graph.indexing.pipeline import _extract as extract_stage
from core.ingest import SourceFile, ingest
from core.ingest.pipeline import _plan, _stored_hashes
from core.ingest.report import IngestReport
from core.llm import configured_chat_model
from core.progress import no_progress

DOC = "# Orbit\n\n## Launch\n\n* Vehicle : Nuri\n* Site : Naro Space Center\n\n## Crew\n\nKim leads the Naro team.\n"


def test_plan_parses_only_what_changed_and_records_the_rest(store):
    assert not ingest(store, [SourceFile("orbit.md", DOC.encode())]).errors
    report = IngestReport()
    sources = [SourceFile("orbit.md", DOC.encode()), SourceFile("new.md", b"# New\n\nText.\n"),
               SourceFile("big.md", b"# Big\n\n" + b"word " * 200)]
    prepared = _plan(store, sources, _stored_hashes(store), report, loader="markdown-it", max_bytes=500)
    assert [p.source.name for p in prepared] == ["new.md"]
    statuses = {r.path: r.status for r in report.files}
    assert statuses["orbit.md"] == "unchanged" and statuses["big.md"] == "error"
    assert "new.md" not in statuses, "planned, not yet stored"


def test_the_index_stages_run_one_after_another_offline(store):
    assert not ingest(store, [SourceFile("orbit.md", DOC.encode())]).errors
    run = _Run(store, IndexConfig(extraction="offline", reports="extractive"), no_progress)
    documents, titles = _load(run)
    assert [t for _d, t in titles] == ["Orbit"] and len(documents[0][1]) >= 5
    units, infos = _text_units(run, documents)
    extraction = extract_stage(run, None, units, infos)
    graph = _graph(run, extraction, units, infos)
    entity_comms, structural = _communities(run, graph, titles)
    assert units and graph.entities and structural
    assert set(run.timings) == {"load", "text_units", "extraction", "graph", "communities", "structural"}


def test_the_configured_chat_model_is_none_without_a_key_and_llm_index_runs_say_so(monkeypatch):
    offline = dataclasses.replace(load_settings(), openai_api_key=None)
    assert configured_chat_model(offline) is None
    assert _chat_model(IndexConfig(), None, offline) is None  # auto: offline
    with pytest.raises(GraphIndexError, match="requested but no chat model is configured"):
        _chat_model(IndexConfig(extraction="llm"), None, offline)
    keyed = dataclasses.replace(offline, openai_api_key="sk-test-not-a-real-key", openai_base_url="http://127.0.0.1:9")
    model = configured_chat_model(keyed, timeout=3.0)
    assert model is not None and model.model_name == keyed.chat_model
    assert _chat_model(IndexConfig(), None, keyed).model_name == keyed.chat_model
