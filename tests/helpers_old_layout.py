"""The element store's layout before issue 14, for the migration tests and the old-vs-new benchmark.

langchain-postgres' deprecated ``PGVector`` makes its own tables (``langchain_pg_collection``,
``langchain_pg_embedding``); the previous release added ``hke_documents`` (foreign key to the old collection
table), expression indexes on ``cmetadata`` and wrote each document with one ``COPY``. The SQL below is that
release's (core/sql/elements.py before issue 14; the statements that did not change are imported from there),
so a database built here is what users have.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence

import numpy as np
import psycopg
from langchain_core.documents import Document
from psycopg.types.json import Jsonb

from core.db.urls import psycopg_conninfo, sqlalchemy_url
from core.embeddings import NamedEmbeddings
from core.sql import elements as element_sql
from core.store import DocumentRecord

# hke_documents is unchanged but for its foreign key, which pointed at PGVector's collection table.
OLD_SCHEMA = [
    element_sql.CREATE_SCHEMA[1].replace("REFERENCES hke_collections (id)",
                                         "REFERENCES langchain_pg_collection (uuid)"),
    "CREATE INDEX IF NOT EXISTS hke_emb_element_id ON langchain_pg_embedding ((cmetadata->>'element_id'))",
    "CREATE INDEX IF NOT EXISTS hke_emb_parent_id ON langchain_pg_embedding ((cmetadata->>'parent_id'))",
    "CREATE INDEX IF NOT EXISTS hke_emb_document"
    " ON langchain_pg_embedding (collection_id, (cmetadata->>'document_id'))",
    "CREATE INDEX IF NOT EXISTS hke_emb_text_sha256 ON langchain_pg_embedding ((cmetadata->>'embedded_text_sha256'))",
]

OLD_HNSW = "CREATE INDEX IF NOT EXISTS hke_emb_hnsw ON langchain_pg_embedding USING hnsw (embedding vector_cosine_ops)"

DELETE_DOCUMENT_ELEMENTS = (
    "DELETE FROM langchain_pg_embedding WHERE collection_id = %s AND cmetadata->>'document_id' = %s"
)
COPY_ELEMENTS = (
    "COPY langchain_pg_embedding (id, collection_id, embedding, document, cmetadata) FROM STDIN WITH (FORMAT BINARY)"
)
COPY_ELEMENT_TYPES = ["varchar", "uuid", "vector", "varchar", "jsonb"]
ANCESTORS = """
WITH RECURSIVE walk (id, document, cmetadata) AS (
    SELECT e.id, e.document, e.cmetadata
    FROM langchain_pg_embedding e
    WHERE e.collection_id = %(collection_id)s AND e.cmetadata->>'element_id' = ANY(%(ids)s)
  UNION
    SELECT p.id, p.document, p.cmetadata
    FROM walk w
    JOIN langchain_pg_embedding p
      ON p.cmetadata->>'element_id' = w.cmetadata->>'parent_id' AND p.collection_id = %(collection_id)s
)
SELECT id, document, cmetadata FROM walk
"""


def create_old_collection(url: str, collection: str, embeddings: NamedEmbeddings,
                          options: dict | None = None) -> uuid.UUID:
    """The collection made the old way: ``PGVector`` creates its tables and the collection row."""
    from langchain_postgres import PGVector
    from sqlalchemy import create_engine

    info = embeddings.info
    engine = create_engine(sqlalchemy_url(url))
    try:
        PGVector(embeddings=embeddings, collection_name=collection, connection=engine, use_jsonb=True,
                 embedding_length=info.dimension, collection_metadata={**info.as_metadata(), **(options or {})},
                 create_extension=False)
    finally:
        engine.dispose()
    with psycopg.connect(psycopg_conninfo(url), autocommit=True) as conn:
        for statement in OLD_SCHEMA:
            conn.execute(statement)
        return conn.execute("SELECT uuid FROM langchain_pg_collection WHERE name = %s", (collection,)).fetchone()[0]


def write_old_document(conn: psycopg.Connection, collection_id: uuid.UUID, record: DocumentRecord,
                       elements: Sequence[Document], vectors: np.ndarray,
                       text_hashes: Sequence[str] | None = None) -> None:
    """One document replaced atomically, exactly as the previous ``ElementStore.replace_document`` did."""
    from pgvector.psycopg import register_vector

    register_vector(conn)
    with conn.transaction():
        conn.execute(element_sql.LOCK_DOCUMENT, (str(collection_id), record.document_id))
        conn.execute(DELETE_DOCUMENT_ELEMENTS, (collection_id, record.document_id))
        with conn.cursor() as cur, cur.copy(COPY_ELEMENTS) as copy:
            copy.set_types(COPY_ELEMENT_TYPES)
            for i, (doc, vector) in enumerate(zip(elements, vectors, strict=True)):
                meta = {k: v for k, v in doc.metadata.items() if k != "embedded_text_sha256"}
                if text_hashes is not None:
                    meta["embedded_text_sha256"] = text_hashes[i]
                copy.write_row((meta["element_id"], collection_id, np.asarray(vector, dtype=np.float32),
                                doc.page_content, Jsonb(meta)))
        conn.execute(element_sql.UPSERT_DOCUMENT, {
            "collection_id": collection_id, "document_id": record.document_id, "source": record.source,
            "filename": record.filename, "title": record.title, "content_hash": record.content_hash,
            "loader": record.loader, "n_elements": len(elements), "n_bytes": record.n_bytes,
            "encoding": record.encoding, "front_matter": Jsonb(record.front_matter) if record.front_matter else None,
        })
