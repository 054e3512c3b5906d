"""A collection's contextual index: a registered sibling built on request, never by a question.

It lives under a name no user collection can take (``<name>:contextual``), is hidden from listings, is kept up to
date by ingest and removal, dropped with its collection, and a contextual search on a collection without an
up-to-date index is refused with the command that builds it, writing nothing.
"""

from __future__ import annotations

import json
import shutil
import uuid

import psycopg
import pytest

from core.db.urls import psycopg_conninfo
from core.evaluation.modes import ModeRunner
from core.ingest import SourceFile, ingest
from core.ingest.contextual import build_contextual_index, find_contextual_index
from core.retrieval import RetrievalRequest, retrieve
from core.retrieval.contextual import ContextualIndexError
from core.store import CollectionGoneError, CollectionMissingError, ElementStore, list_collections
from tests.test_cli import run_cli

from .conftest import SAMPLES

ALPHA = "# Alpha Phone\n## Specs\n* Weight : 101 g\n* Battery : 3100 mAh\n"
BETA = "# Beta Phone\n## Specs\n* Weight : 202 g\n* Battery : 4200 mAh\n"
GAMMA = "# Gamma Phone\n## Specs\n* Weight : 303 g\n* Battery : 5300 mAh\n"


def _registry(url: str) -> dict[str, tuple]:
    """Every registered collection, siblings included: name -> (documents with their hashes)."""
    with psycopg.connect(psycopg_conninfo(url)) as conn:
        rows = conn.execute("SELECT c.name, array_agg(d.document_id || '=' || d.content_hash ORDER BY d.document_id)"
                            " FROM hke_collections c LEFT JOIN hke_documents d ON d.collection_id = c.id"
                            " GROUP BY c.name").fetchall()
    return {name: tuple(docs) for name, docs in rows}


def test_a_contextual_question_writes_nothing_and_leaves_a_look_alike_collection_alone(db_url, tmp_path):
    base = f"ctx_{uuid.uuid4().hex[:8]}"
    lookalike = f"{base}__ctx"  # the name the index had when it shared the users' namespace
    first, second = tmp_path / "a", tmp_path / "b"
    first.mkdir()
    second.mkdir()
    for name in ("nova-24fl-monitor-ko.md", "nova-27qx-monitor-ko.md"):
        shutil.copy(SAMPLES / name, first / name)
    shutil.copy(SAMPLES / "nova-32ux-monitor-en.md", second / "nova-32ux-monitor-en.md")
    run_cli("ingest", str(first), "--collection", lookalike)
    run_cli("ingest", str(second), "--collection", base)
    before = _registry(db_url)
    try:
        asked = run_cli("ask", "How heavy is the Nova 32UX?", "--search", "contextual", "--collection", base,
                        check=False)
        assert asked.returncode == 2, asked.stdout
        assert f"collection {base!r} has no contextual index" in asked.stderr
        assert f"python -m core contextual build --collection {base}" in asked.stderr
        assert _registry(db_url) == before  # no collection made, no document touched

        built = json.loads(run_cli("contextual", "build", "--collection", base, "--json").stdout)
        assert (built["collection"], built["embedded_documents"]) == (f"{base}:contextual", 1)
        listed = {c["name"]: c for c in json.loads(run_cli("collections", "--json").stdout)}
        assert listed[base]["contextual_index"] and not listed[lookalike]["contextual_index"]
        assert f"{base}:contextual" not in listed
        after = _registry(db_url)
        assert after[lookalike] == before[lookalike] and len(after[lookalike]) == 2

        answered = run_cli("ask", "How heavy is the Nova 32UX?", "--search", "contextual", "--collection", base,
                           "--json")
        assert json.loads(answered.stdout)["search"]["search"]["contextual"]
    finally:
        for name in (base, lookalike):
            ElementStore(db_url, name, create=True).drop()


def test_a_stale_index_is_refused_and_ingest_keeps_it_up_to_date(store, db_url):
    assert not ingest(store, [SourceFile("alpha.md", ALPHA.encode()), SourceFile("beta.md", BETA.encode())]).errors
    with pytest.raises(ContextualIndexError, match="has no contextual index"):
        retrieve(store, RetrievalRequest("Alpha Phone battery", search="contextual"))
    with pytest.raises(ContextualIndexError, match="has no contextual index"):
        ModeRunner(store, ["contextual"])
    assert find_contextual_index(store) is None  # neither the question nor the evaluation made one

    steps = []
    runner = ModeRunner(store, ["contextual"], k=3, progress=steps.append, build_contextual=True)
    assert runner.contextual_sync.embedded_documents == 2 and {s.stage for s in steps} >= {"contextual"}
    index = find_contextual_index(store)
    assert index.collection == f"{store.collection}:contextual" and index.sibling_of == store.collection_id
    names = {c.name: c for c in list_collections(db_url)}
    assert index.collection not in names and names[store.collection].siblings == ("contextual",)

    # A removal the index did not see (the store's own call, not `remove`): the next question says so.
    store.write.remove_document(store.find_documents("beta.md")[0].document_id)
    held = index.content_hashes()
    with pytest.raises(ContextualIndexError, match=r"is out of date \(0 documents to embed, 1 to remove\)"):
        retrieve(store, RetrievalRequest("Alpha Phone battery", search="contextual"))
    assert index.content_hashes() == held

    report = ingest(store, [SourceFile("gamma.md", GAMMA.encode())])
    assert (report.contextual["embedded_documents"], report.contextual["removed_documents"]) == (1, 1)
    found = retrieve(store, RetrievalRequest("Gamma Phone battery", k=3, search="contextual"))
    assert any("5300 mAh" in h.element.page_content for h in found.hits)
    assert all(h.element.metadata["element_id"] in {e.metadata["element_id"] for d in store.documents()
                                                    for e in store.elements(d.document_id)} for h in found.hits)

    store.drop()  # the index goes with its collection: registry row and table
    with pytest.raises(CollectionMissingError):
        ElementStore(db_url, store.collection, store.embeddings, create=False)
    with psycopg.connect(psycopg_conninfo(db_url)) as conn:
        assert conn.execute("SELECT to_regclass(%s)", (index.table,)).fetchone()[0] is None
        assert conn.execute("SELECT count(*) FROM hke_collections WHERE id = %s",
                            (index.collection_id,)).fetchone()[0] == 0


def test_a_collection_dropped_while_a_question_runs_is_named_as_gone(store, db_url):
    assert not ingest(store, [SourceFile("alpha.md", ALPHA.encode())]).errors
    build_contextual_index(store)
    other = ElementStore(db_url, store.collection, store.embeddings, create=False)  # another process's view
    other.drop()
    for search in ("default", "contextual"):
        with pytest.raises(CollectionGoneError) as info:
            retrieve(store, RetrievalRequest("Alpha Phone battery", search=search))
        assert str(info.value) == (f"collection {store.collection!r} no longer exists: it was dropped while this was "
                                   "running. Pick another collection (`python -m core collections` lists them) or "
                                   "ingest into this one again")
