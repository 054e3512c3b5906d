"""SQL of the element store: the vectors in langchain-postgres' tables plus the hierarchy on top of them.

The vectors live in langchain-postgres' own tables (``langchain_pg_collection``, ``langchain_pg_embedding``),
so any LangChain code can read them through ``PGVector``. What the hierarchy needs on top of them is here:
expression indexes on the parent links, a per-document table for incremental ingest, and the queries.
All statements take parameters; none is built from user text.
"""

# -- schema -----------------------------------------------------------------------------------------

# Serialises schema creation across processes: CREATE ... IF NOT EXISTS still races on the catalog.
SCHEMA_LOCK_KEY = 4_851_220_001

ADVISORY_LOCK = "SELECT pg_advisory_lock(%s)"
ADVISORY_UNLOCK = "SELECT pg_advisory_unlock(%s)"

CREATE_SCHEMA = [
    """
    CREATE TABLE IF NOT EXISTS hke_documents (
        collection_id uuid NOT NULL REFERENCES langchain_pg_collection (uuid) ON DELETE CASCADE,
        document_id   text NOT NULL,
        source        text NOT NULL,
        filename      text NOT NULL,
        title         text,
        content_hash  text NOT NULL,
        loader        text NOT NULL,
        n_elements    integer NOT NULL,
        n_bytes       integer NOT NULL,
        encoding      text,
        front_matter  jsonb,
        ingested_at   timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (collection_id, document_id)
    )
    """,
    # The GIN index PGVector creates does not serve ->> equality; these make the ancestor walk an index walk.
    "CREATE INDEX IF NOT EXISTS hke_emb_element_id ON langchain_pg_embedding ((cmetadata->>'element_id'))",
    "CREATE INDEX IF NOT EXISTS hke_emb_parent_id ON langchain_pg_embedding ((cmetadata->>'parent_id'))",
    "CREATE INDEX IF NOT EXISTS hke_emb_document"
    " ON langchain_pg_embedding (collection_id, (cmetadata->>'document_id'))",
    # The embedding cache's key (see CACHED_VECTORS).
    "CREATE INDEX IF NOT EXISTS hke_emb_text_sha256 ON langchain_pg_embedding ((cmetadata->>'embedded_text_sha256'))",
]

# The HNSW index is built once the table is big enough to need it (ElementStore.ensure_vector_index): below
# that an exact scan is as fast, and maintaining HNSW on every insert costs about as much as embedding does.
CREATE_VECTOR_INDEX = (
    "CREATE INDEX IF NOT EXISTS hke_emb_hnsw ON langchain_pg_embedding USING hnsw (embedding vector_cosine_ops)"
)

VECTOR_INDEX_EXISTS = "SELECT to_regclass('hke_emb_hnsw') IS NOT NULL"

COUNT_EMBEDDINGS = "SELECT count(*) FROM langchain_pg_embedding"

EMBEDDING_COLUMN_TYPE = """
SELECT format_type(a.atttypid, a.atttypmod)
FROM pg_attribute a
WHERE a.attrelid = 'langchain_pg_embedding'::regclass AND a.attname = 'embedding'
"""

TABLE_EXISTS = "SELECT to_regclass(%s) IS NOT NULL"

# -- collections ------------------------------------------------------------------------------------

COLLECTION_BY_NAME = "SELECT uuid, cmetadata FROM langchain_pg_collection WHERE name = %s"

SET_COLLECTION_METADATA = "UPDATE langchain_pg_collection SET cmetadata = %s WHERE uuid = %s"

LIST_COLLECTIONS = """
SELECT c.name, c.cmetadata,
       (SELECT count(*) FROM hke_documents d WHERE d.collection_id = c.uuid) AS documents,
       (SELECT count(*) FROM langchain_pg_embedding e WHERE e.collection_id = c.uuid) AS elements
FROM langchain_pg_collection c
ORDER BY c.name
"""

DELETE_COLLECTION = "DELETE FROM langchain_pg_collection WHERE uuid = %s"

# -- documents --------------------------------------------------------------------------------------

# Per-document lock so two ingests of the same file serialise instead of interleaving delete/insert.
LOCK_DOCUMENT = "SELECT pg_advisory_xact_lock(hashtextextended(%s::text || '/' || %s::text, 0))"

DOCUMENT_HASH = "SELECT content_hash FROM hke_documents WHERE collection_id = %s AND document_id = %s"

DOCUMENT_HASHES = "SELECT document_id, content_hash FROM hke_documents WHERE collection_id = %s"

LIST_DOCUMENTS = """
SELECT document_id, source, filename, title, content_hash, loader, n_elements, n_bytes, encoding,
       front_matter, ingested_at
FROM hke_documents
WHERE collection_id = %s
ORDER BY filename, source
"""

GET_DOCUMENT = """
SELECT document_id, source, filename, title, content_hash, loader, n_elements, n_bytes, encoding,
       front_matter, ingested_at
FROM hke_documents
WHERE collection_id = %s AND document_id = %s
"""

UPSERT_DOCUMENT = """
INSERT INTO hke_documents (collection_id, document_id, source, filename, title, content_hash, loader,
                           n_elements, n_bytes, encoding, front_matter, ingested_at)
VALUES (%(collection_id)s, %(document_id)s, %(source)s, %(filename)s, %(title)s, %(content_hash)s, %(loader)s,
        %(n_elements)s, %(n_bytes)s, %(encoding)s, %(front_matter)s, now())
ON CONFLICT (collection_id, document_id) DO UPDATE SET
    source = EXCLUDED.source, filename = EXCLUDED.filename, title = EXCLUDED.title,
    content_hash = EXCLUDED.content_hash, loader = EXCLUDED.loader, n_elements = EXCLUDED.n_elements,
    n_bytes = EXCLUDED.n_bytes, encoding = EXCLUDED.encoding, front_matter = EXCLUDED.front_matter,
    ingested_at = now()
"""

DELETE_DOCUMENT_ELEMENTS = """
DELETE FROM langchain_pg_embedding WHERE collection_id = %s AND cmetadata->>'document_id' = %s
"""

DELETE_DOCUMENT = "DELETE FROM hke_documents WHERE collection_id = %s AND document_id = %s"

COPY_ELEMENTS = (
    "COPY langchain_pg_embedding (id, collection_id, embedding, document, cmetadata) FROM STDIN WITH (FORMAT BINARY)"
)

COPY_ELEMENT_TYPES = ["varchar", "uuid", "vector", "varchar", "jsonb"]

# -- embedding cache --------------------------------------------------------------------------------

# The cache is the stored elements themselves: each records the sha256 of the exact text it was embedded from,
# and its vector is reused for that text by any collection of the same embedder (provider, model, dimension,
# as recorded on the collection). A vector lives as long as one element holds it, so a removed or replaced
# document takes its unshared vectors with it and there is nothing separate to prune.
CACHED_VECTORS = """
SELECT DISTINCT ON (e.cmetadata->>'embedded_text_sha256') e.cmetadata->>'embedded_text_sha256', e.embedding
FROM langchain_pg_embedding e
JOIN langchain_pg_collection c ON c.uuid = e.collection_id
WHERE e.cmetadata->>'embedded_text_sha256' = ANY(%(hashes)s)
  AND c.cmetadata->>'embedding_provider' = %(provider)s
  AND c.cmetadata->>'embedding_model' = %(model)s
  AND c.cmetadata->>'embedding_dimension' = %(dimension)s
"""

# -- elements ---------------------------------------------------------------------------------------

ELEMENTS_OF_DOCUMENT = """
SELECT id, document, cmetadata
FROM langchain_pg_embedding
WHERE collection_id = %s AND cmetadata->>'document_id' = %s
ORDER BY (cmetadata->>'order')::int
"""

ELEMENTS_BY_ID = """
SELECT id, document, cmetadata
FROM langchain_pg_embedding
WHERE collection_id = %s AND cmetadata->>'element_id' = ANY(%s)
"""

# One round trip for the ancestors of every hit: walk parent_id upwards through the element_id index.
# The walk carries whole rows: joining the walked ids back to the table afterwards let the planner pick a
# hash join over a sequential scan of the collection (the recursive CTE's row estimate is large), which made
# expansion grow with the corpus (25 ms at 10k elements instead of 0.4 ms). UNION also stops at an ancestor
# already reached from another hit, so shared ancestors are fetched once.
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

CATEGORY_DEPTH_COUNTS = """
SELECT cmetadata->>'category' AS category, COALESCE((cmetadata->>'category_depth')::int, 0) AS depth, count(*) AS n
FROM langchain_pg_embedding
WHERE collection_id = %s
GROUP BY 1, 2
ORDER BY 1, 2
"""
