"""``python -m core migrate``: a database in the layout before issue 14 moves to the current one, losing nothing.

Each test builds the old layout in a schema of its own (the old tables would make every other test's store
refuse to open): langchain-postgres' ``PGVector`` creates its tables, the previous release's SQL writes the
documents (tests/helpers_old_layout.py).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path
from urllib.parse import quote, urlencode, urlsplit, urlunsplit

import numpy as np
import psycopg
import pytest
from psycopg import sql as pgsql

from core.answering import ExtractiveAnswerer, compare
from core.db.pool import connection_pool
from core.db.urls import psycopg_conninfo, sqlalchemy_url
from core.ingest import content_hash, document_id_for, embedding_text, parse, text_sha256
from core.retrieval import RetrievalRequest
from core.store import DocumentRecord, ElementStore, StoreError, list_collections
from core.store.migrate import migrate
from tests.helpers_old_layout import OLD_HNSW, create_old_collection, write_old_document

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "data" / "samples"
QUESTIONS = {q["id"]: q for q in json.loads((ROOT / "data" / "questions.json").read_text("utf-8"))["questions"]}


@pytest.fixture
def scratch_url(db_url):
    """The test database seen through a schema of its own (first on the search path), dropped afterwards.

    A schema rather than a database: the CI's TCP role owns its database but may not create others.
    """
    schema = f"hke_mig_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(psycopg_conninfo(db_url), autocommit=True) as conn:
        conn.execute(pgsql.SQL("CREATE SCHEMA {}").format(pgsql.Identifier(schema)))
    parts = urlsplit(db_url)
    options = urlencode({"options": f"-csearch_path={schema},public"}, quote_via=quote)
    url = urlunsplit(parts._replace(query=f"{parts.query}&{options}" if parts.query else options))
    yield url
    connection_pool(url).close()
    with psycopg.connect(psycopg_conninfo(db_url), autocommit=True) as conn:
        conn.execute(pgsql.SQL("DROP SCHEMA {} CASCADE").format(pgsql.Identifier(schema)))


def _old_database(url: str, embeddings, files: list[str], *, random_file: str | None = None) -> dict:
    """The old layout with ``files`` ingested (real parse, real vectors; ``random_file`` gets random vectors,
    which re-embedding could never reproduce). Returns what was written, per element id."""
    collection_id = create_old_collection(url, "legacy", embeddings)
    written = {}
    with psycopg.connect(psycopg_conninfo(url)) as conn:
        for name in files:
            data = (SAMPLES / name).read_bytes()
            document_id = document_id_for("legacy", name)
            elements = parse(data.decode("utf-8"), source=name, document_id=document_id)
            texts = [embedding_text(d, False) for d in elements]
            if name == random_file:
                v = np.random.default_rng(5).standard_normal((len(texts), embeddings.info.dimension))
                vectors = (v / np.linalg.norm(v, axis=1, keepdims=True)).astype(np.float32)
            else:
                vectors = np.asarray(embeddings.embed_documents(texts), dtype=np.float32)
            hashes = [text_sha256(t) for t in texts]
            record = DocumentRecord(document_id, name, name, None, content_hash(data, "markdown-it", False),
                                    "markdown-it", len(elements), len(data))
            write_old_document(conn, collection_id, record, elements, vectors, hashes)
            for doc, vector, h in zip(elements, vectors, hashes, strict=True):
                written[doc.metadata["element_id"]] = ({**doc.metadata, "embedded_text_sha256": h},
                                                       doc.page_content, vector)
        # An old graph table row (the LLM cache) tied to the collection by foreign key: it must survive.
        conn.execute("CREATE TABLE hke_llm_cache (collection_id uuid NOT NULL REFERENCES langchain_pg_collection "
                     "(uuid) ON DELETE CASCADE, model text NOT NULL, prompt_hash text NOT NULL, response text NOT NULL,"
                     " created_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (collection_id, model, prompt_hash))")
        conn.execute("INSERT INTO hke_llm_cache (collection_id, model, prompt_hash, response) "
                     "VALUES (%s, 'm', 'p', 'kept')", (collection_id,))
        conn.execute(OLD_HNSW)
        conn.commit()
    return {"collection_id": collection_id, "elements": written}


def _tables(url: str) -> set[str]:
    with psycopg.connect(psycopg_conninfo(url)) as conn:
        return {r[0] for r in conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = current_schema()")}


def test_old_layout_is_refused_clearly_then_migrated_without_re_embedding(scratch_url, use_embeddings):
    files = ["nova-24fl-monitor-ko.md", "nova-32ux-monitor-en.md", "nova-support-faq-ko.md"]
    old = _old_database(scratch_url, use_embeddings, files, random_file="nova-support-faq-ko.md")

    for attempt in (lambda: ElementStore(scratch_url, "legacy", use_embeddings, create=False),
                    lambda: ElementStore(scratch_url, "fresh", use_embeddings),
                    lambda: list_collections(scratch_url)):
        with pytest.raises(StoreError, match=r"old layout .*run `python -m core migrate`"):
            attempt()
    assert "hke_collections" not in _tables(scratch_url), "refusing created nothing"

    env = {**os.environ, "DATABASE_URL": scratch_url}
    done = subprocess.run([sys.executable, "-m", "core", "migrate", "--json"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["collections"] == [{"name": "legacy", "id": str(old["collection_id"]),
                                      "elements": len(old["elements"])}]
    assert report["dropped_old_tables"] and report["links"] == ["hke_documents.hke_documents_collection_id_fkey",
                                                                "hke_llm_cache.hke_llm_cache_collection_id_fkey"]
    assert not {"langchain_pg_collection", "langchain_pg_embedding"} & _tables(scratch_url)

    store = ElementStore(scratch_url, "legacy", use_embeddings, create=False)
    assert store.collection_id == old["collection_id"], "the id is kept, so every table pointing at it stays valid"
    assert sorted(d.filename for d in store.documents()) == sorted(files)
    with store.pool.connection() as conn:
        rows = conn.execute(store.statement("SELECT element_id, embedding FROM {elements}")).fetchall()
        cache = conn.execute("SELECT response FROM hke_llm_cache WHERE collection_id = %s",
                             (store.collection_id,)).fetchall()
    assert len(rows) == len(old["elements"])
    for element_id, vector in rows:  # the vectors are the stored ones, bit for bit (random ones included)
        assert np.array_equal(np.asarray(vector, dtype=np.float32), old["elements"][element_id][2])
    for doc in store.get(list(old["elements"])):
        meta, text, _ = old["elements"][doc.id]
        stored = {k: v for k, v in doc.metadata.items() if k not in ("element_key", "since_version")}
        assert doc.page_content == text and stored == json.loads(json.dumps(meta))
        assert (doc.element_key, doc.since_version) == (doc.element_id, 1)  # version 1 of a document from before
    assert cache == [("kept",)]
    assert store.has_vector_index() is False  # 3 documents: under the HNSW threshold, searched exactly

    q = QUESTIONS["q05"]
    result = compare(store, RetrievalRequest(q["question"]), answerer=ExtractiveAnswerer())
    assert q["gold_path"][0] in result.results["hierarchical"].answer.text

    again = migrate(scratch_url)
    assert again.nothing_to_do and "nothing to migrate" in again.summary()
    done = subprocess.run([sys.executable, "-m", "core", "migrate"], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0 and "nothing to migrate" in done.stdout, done.stderr
    assert [(c.name, c.elements) for c in list_collections(scratch_url)] == [("legacy", len(old["elements"]))]


def test_a_broken_parent_link_stops_the_migration_and_changes_nothing(scratch_url, use_embeddings):
    old = _old_database(scratch_url, use_embeddings, ["nova-24fl-monitor-ko.md"])
    some_id = next(iter(old["elements"]))
    with psycopg.connect(psycopg_conninfo(scratch_url)) as conn:  # an element whose parent is in no document
        conn.execute("UPDATE langchain_pg_embedding SET cmetadata = jsonb_set(cmetadata, '{parent_id}', "
                     "'\"gone\"') WHERE id = %s", (some_id,))
    with pytest.raises(StoreError, match=r"changed nothing: .*foreign key.*gone"):
        migrate(scratch_url)
    tables = _tables(scratch_url)
    assert {"langchain_pg_collection", "langchain_pg_embedding"} <= tables and "hke_collections" not in tables
    with psycopg.connect(psycopg_conninfo(scratch_url)) as conn:
        assert conn.execute("SELECT count(*) FROM langchain_pg_embedding").fetchone()[0] == len(old["elements"])


def test_other_programs_pgvector_collections_are_left_in_place(scratch_url, use_embeddings, monkeypatch):
    old = _old_database(scratch_url, use_embeddings, ["nova-32ux-monitor-en.md"])
    monkeypatch.setattr("core.store.migrate.HNSW_MIN_ROWS", 1)  # the old database had HNSW: big collections get it back
    from langchain_postgres import PGVector
    from sqlalchemy import create_engine


    engine = create_engine(sqlalchemy_url(scratch_url))
    try:
        theirs = PGVector(embeddings=use_embeddings, collection_name="someone-else", connection=engine,
                          use_jsonb=True, create_extension=False)
        theirs.add_texts(["not ours"], ids=["x1"])
    finally:
        engine.dispose()
    report = migrate(scratch_url)
    assert [c.name for c in report.collections] == ["legacy"] and not report.dropped_old_tables
    assert report.kept_old_tables == 2  # their collection row and their one element
    with psycopg.connect(psycopg_conninfo(scratch_url)) as conn:
        assert conn.execute("SELECT document FROM langchain_pg_embedding").fetchall() == [("not ours",)]
        assert conn.execute("SELECT to_regclass('hke_emb_element_id')").fetchone()[0] is None  # our indexes go
    store = ElementStore(scratch_url, "legacy", use_embeddings, create=False)  # opens: nothing of ours is left
    assert store.stats().elements == len(old["elements"])
    assert report.vector_indexes == [f"{store.table}_hnsw"] and store.has_vector_index()


def _own_registry(url: str) -> None:
    """The registry in the scratch schema itself: a store finds tables through the search path, so without its own
    it would use the session's registry in ``public``."""
    from core.sql import elements as element_sql

    with psycopg.connect(psycopg_conninfo(url)) as conn:
        for statement in element_sql.CREATE_SCHEMA:
            conn.execute(statement)


def test_a_foreign_table_named_langchain_pg_collection_is_left_alone(scratch_url):
    from tests.helpers_embeddings import HashEmbeddings

    _own_registry(scratch_url)
    with psycopg.connect(psycopg_conninfo(scratch_url)) as conn:  # another program's table, another shape
        conn.execute("CREATE TABLE langchain_pg_collection (id serial PRIMARY KEY, label text)")
        conn.execute("INSERT INTO langchain_pg_collection (label) VALUES ('theirs')")
    store = ElementStore(scratch_url, "mine", HashEmbeddings())
    assert [c.name for c in list_collections(scratch_url)] == ["mine"]
    assert migrate(scratch_url).nothing_to_do
    with psycopg.connect(psycopg_conninfo(scratch_url)) as conn:
        assert conn.execute("SELECT label FROM langchain_pg_collection").fetchall() == [("theirs",)]
    assert store.stats().documents == 0


def test_contextual_siblings_of_the_registry_before_sibling_of_join_their_base(scratch_url):
    """Before ``sibling_of`` a contextual index was a collection ``<base>__ctx`` recording ``contextual_of``: it
    becomes its base's index (same vectors, nothing embedded again); a user's own ``…__ctx`` stays a collection."""
    from core.ingest import SourceFile, ingest
    from core.ingest.contextual import _sync, find_contextual_index
    from core.progress import no_progress
    from core.retrieval import retrieve
    from tests.helpers_embeddings import HashEmbeddings

    _own_registry(scratch_url)
    base = ElementStore(scratch_url, "legacy", HashEmbeddings())
    assert not ingest(base, [SourceFile("a.md", b"# Alpha Phone\n## Specs\n* Battery : 3100 mAh\n")]).errors
    # What the previous release made: an ordinary collection whose ids were derived from its own name.
    old = ElementStore(scratch_url, "legacy__ctx", HashEmbeddings(), options={"contextual": True,
                                                                              "contextual_of": "legacy"})
    _sync(base, old, no_progress, 64)
    mine = ElementStore(scratch_url, "notes__ctx", HashEmbeddings())
    assert not ingest(mine, [SourceFile("n.md", b"# Notes\n* mine : yes\n")]).errors
    with psycopg.connect(psycopg_conninfo(scratch_url)) as conn:
        conn.execute("ALTER TABLE hke_collections DROP COLUMN sibling_of")

    listed = {c.name: c for c in list_collections(scratch_url)}
    assert sorted(listed) == ["legacy", "notes__ctx"] and listed["legacy"].siblings == ("contextual",)
    index = find_contextual_index(ElementStore(scratch_url, "legacy", HashEmbeddings(), create=False))
    assert (index.collection, index.collection_id) == ("legacy:contextual", old.collection_id)
    found = retrieve(base, RetrievalRequest("Alpha Phone battery", k=10,
                                            search="contextual"))  # up to date: no error, no embedding
    base_ids = {e.metadata["element_id"] for e in base.elements(base.documents()[0].document_id)}
    assert {h.element_id for h in found.hits} == base_ids  # every hit mapped back to the base's elements
