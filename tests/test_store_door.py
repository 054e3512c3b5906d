"""The store is the one door to a collection's elements: retrieval reads them through ``store.read``
(``core.store.reader``), which hands out typed ``Element``s, and a question never writes. Guards: the reader's
searches and expansion return Elements with their fields typed (heading path a tuple, order an int), the retrieval
modules hold no SQL and no database import, and a question on a collection made before the stored heading index and
term counts runs on a read-only connection (the store fills both when it opens the collection). Real Postgres; the
hash embedder (the model is not under test)."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

from core.db.pool import connection_pool
from core.elements import Element
from core.ingest import SourceFile, ingest
from core.retrieval import RetrievalRequest, retrieve
from core.retrieval.scope import Scope, resolve_scope
from core.retrieval.search import fts_scored, vector_search
from core.store import ElementStore
from tests.helpers_embeddings import HashEmbeddings

ROOT = Path(__file__).resolve().parents[1]

NOVA = b"""# Nova 24FL

Nova 24FL is a 24 inch monitor.

## Ports

* USB-C : 65 W power delivery
* HDMI : 2.0

## Specifications

* Weight : 2.9 kg
* Brightness : 350 nits
"""
ZEPHYR = b"# Zephyr 32UX\n\n## Specifications\n\n* Weight : 4.1 kg\n* Stand : height adjustable\n"
QUESTION = "What is the weight of the Nova 24FL?"


@pytest.fixture
def hash_store(db_url, collection_name):
    s = ElementStore(db_url, collection_name, HashEmbeddings())
    assert not ingest(s, [SourceFile("nova.md", data=NOVA), SourceFile("zephyr.md", data=ZEPHYR)]).errors
    yield s
    s.drop()


def _vector(store: ElementStore, text: str) -> np.ndarray:
    return np.asarray(store.embeddings.embed_query(text), dtype=np.float32)


def _element(store: ElementStore, text: str) -> Element:
    return next(e for d in store.documents() for e in store.elements(d.document_id) if e.text == text)


def test_searches_through_the_store_return_typed_elements(hash_store):
    store = hash_store
    vector = _vector(store, "USB-C : 65 W power delivery")
    found = store.read.vector_search(vector, Scope.whole(), 3)
    assert [type(f.element) for f in found] == [Element] * 3
    assert found[0].element.text == "USB-C : 65 W power delivery" and found[0].distance == pytest.approx(0, abs=1e-6)
    assert found[0].element.heading_path == ("Nova 24FL", "Ports")
    assert found[0].element.category == "ListItem" and isinstance(found[0].element.order, int)
    assert found[0].element.filename == "nova.md"
    assert [f.distance for f in found] == sorted(f.distance for f in found)
    hits = vector_search(store, vector, 3)
    assert [h.element for h in hits] == [f.element for f in found], "retrieval's search is the store's"

    scored = fts_scored(store, "Which USB-C port?", vector, 4)
    assert scored and all(isinstance(h.element, Element) for h, _ in scored)
    assert scored[0][0].element.text.startswith("USB-C") and scored[0][1] > 0


def test_expand_brings_the_ancestors_and_a_headings_children(hash_store):
    store = hash_store
    weight, specs = _element(store, "Weight : 2.9 kg"), _element(store, "Specifications")
    nova = _element(store, "Nova 24FL")
    rows = store.read.expand([weight.element_id], [], _vector(store, "weight"), max_depth=6, max_children=400)
    assert {r.element.element_id for r in rows} == {weight.element_id, specs.element_id, nova.element_id}
    assert not any(r.is_child for r in rows)
    assert store.read.ancestors([weight.element_id]) == {r.element.element_id: r.element for r in rows}

    rows = store.read.expand([specs.element_id], [specs.element_id], _vector(store, "weight"), max_depth=6,
                             max_children=400)
    children = {r.element.text: r.distance for r in rows if r.is_child}
    assert set(children) == {"Weight : 2.9 kg", "Brightness : 350 nits"}
    assert all(isinstance(d, float) for d in children.values())


def test_an_element_id_prefix_resolves_through_the_store(hash_store):
    store = hash_store
    specs = _element(store, "Specifications")
    assert store.read.by_prefix(specs.element_id[:12]) == [specs]
    scope = resolve_scope(store, specs.element_id[:12])
    assert scope.kind == "subtree" and scope.id == specs.element_id and scope.label == "Nova 24FL › Specifications"


def test_retrieval_modules_hold_no_sql_and_no_database_import():
    for path in sorted((ROOT / "core" / "retrieval").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
        imported |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        assert not {m for m in imported if m.startswith(("core.db", "core.sql", "psycopg"))} - {"psycopg"}, path
        calls = {n.func.attr for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)}
        assert not calls & {"statement", "execute", "fetchall", "fetchone"}, path


def _make_old(store: ElementStore) -> None:
    """What a collection made before the stored heading index and term counts (or moved by migrate) holds."""
    with store.pool.connection() as conn:
        for table in ("hke_headings", "hke_heading_state", "hke_heading_changes", "hke_term_counts",
                      "hke_term_state"):
            conn.execute(f"DELETE FROM {table} WHERE collection_id = %s", (store.collection_id,))  # noqa: S608


def test_a_question_on_a_collection_made_before_the_derived_tables_only_reads(hash_store, db_url):
    store = hash_store
    before = retrieve(store, RetrievalRequest(QUESTION, k=3))
    _make_old(store)
    opened = ElementStore(db_url, store.collection, HashEmbeddings(), create=False)
    # Every connection of the store from here on refuses to write: a question that wrote would fail.
    separator = "&" if "?" in db_url else "?"
    opened.pool = connection_pool(f"{db_url}{separator}options=-c%20default_transaction_read_only%3Don",
                                  role="replica")
    opened.read_urls = ()
    with opened.pool.connection() as conn:
        assert conn.execute("SHOW default_transaction_read_only").fetchone()[0] == "on"
    after = retrieve(opened, RetrievalRequest(QUESTION, k=3))
    assert [h.element_id for h in after.hits] == [h.element_id for h in before.hits]
    assert after.hierarchical.text == before.hierarchical.text
    assert after.heading_match is not None and after.heading_match.label == before.heading_match.label
