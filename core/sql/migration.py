"""SQL of ``python -m core migrate``: from langchain-postgres' deprecated ``PGVector`` tables to ours.

Before issue 14 the elements lived in ``langchain_pg_embedding`` (metadata in a ``cmetadata`` jsonb with
expression indexes) and collections in ``langchain_pg_collection``; our own tables (``hke_documents``, the graph
and evaluation tables) pointed there by foreign key. The migration copies each of this app's collections (those
whose metadata records an embedder) into its own table, keeping the collection's id and its stored vectors,
re-points those foreign keys at ``hke_collections``, and drops what it moved. All statements take parameters.
"""

# Foreign keys of our tables (hke_*) that still reference the old collection table.
OLD_LINKS = """
SELECT k.conrelid::regclass::text, k.conname, a.attname
FROM pg_constraint k
JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = k.conkey[1]
WHERE k.contype = 'f' AND k.confrelid = 'langchain_pg_collection'::regclass
  AND k.conrelid::regclass::text LIKE 'hke\\_%%'
ORDER BY 1, 2
"""

# Whether the tables named like PGVector's have its columns: another program may own a table of that name with
# a shape of its own, which is neither ours nor something to migrate.
PGVECTOR_SHAPED = """
SELECT count(*) = 8 FROM pg_attribute
WHERE NOT attisdropped AND (
       (attrelid = to_regclass('langchain_pg_collection') AND attname IN ('uuid', 'name', 'cmetadata'))
    OR (attrelid = to_regclass('langchain_pg_embedding')
        AND attname IN ('id', 'collection_id', 'embedding', 'document', 'cmetadata')))
"""

# Our tables' links to the old collection table.
PENDING_LINKS = """
SELECT count(*) FROM pg_constraint k
WHERE k.contype = 'f' AND k.confrelid = 'langchain_pg_collection'::regclass
  AND k.conrelid::regclass::text LIKE 'hke\\_%%'
"""

# This app's collections still in the old table: with PENDING_LINKS, what a store refuses to open over.
PENDING_COLLECTIONS = """
SELECT count(*) FROM langchain_pg_collection c WHERE c.cmetadata::jsonb ? 'embedding_provider'
"""

OLD_COLLECTIONS = """
SELECT c.uuid, c.name, c.cmetadata::jsonb
FROM langchain_pg_collection c
WHERE c.cmetadata::jsonb ? 'embedding_provider'
ORDER BY c.name
"""

# Old writers (an app still running the previous release) wait until the migration has committed.
LOCK_OLD_TABLES = "LOCK TABLE langchain_pg_collection, langchain_pg_embedding IN EXCLUSIVE MODE"

COLLECTION_REGISTERED = "SELECT count(*) FROM hke_collections WHERE id = %s OR name = %s"

OLD_ELEMENT_COUNT = "SELECT count(*) FROM langchain_pg_embedding WHERE collection_id = %s"

# The real columns out of cmetadata, the rest of it as the JSON column; vectors copied as they are.
COPY_COLLECTION = """
INSERT INTO {elements} (element_id, content, embedding, parent_id, document_id, category, category_depth, "order",
                        heading_path, embedded_text_sha256, metadata)
SELECT e.id, coalesce(e.document, ''), e.embedding, e.cmetadata->>'parent_id', e.cmetadata->>'document_id',
       coalesce(e.cmetadata->>'category', 'UncategorizedText'),
       coalesce((e.cmetadata->>'category_depth')::int, 0), coalesce((e.cmetadata->>'order')::int, 0),
       ARRAY(SELECT jsonb_array_elements_text(CASE WHEN jsonb_typeof(e.cmetadata->'heading_path') = 'array'
                                                   THEN e.cmetadata->'heading_path' ELSE '[]'::jsonb END)),
       e.cmetadata->>'embedded_text_sha256',
       e.cmetadata - ARRAY['element_id', 'parent_id', 'document_id', 'category', 'category_depth', 'order',
                           'heading_path', 'embedded_text_sha256']
FROM langchain_pg_embedding e
WHERE e.collection_id = %s
"""

COUNT_NEW = "SELECT count(*) FROM {elements}"

# Re-pointing one link: the constraint keeps its name, now referencing the registry (same ids).
DROP_LINK = "ALTER TABLE {table} DROP CONSTRAINT {constraint}"
ADD_LINK = ("ALTER TABLE {table} ADD CONSTRAINT {constraint} FOREIGN KEY ({column}) "
            "REFERENCES hke_collections (id) ON DELETE CASCADE")

DELETE_OLD_ELEMENTS = "DELETE FROM langchain_pg_embedding WHERE collection_id = %s"
DELETE_OLD_COLLECTION = "DELETE FROM langchain_pg_collection WHERE uuid = %s"

OLD_LEFT = "SELECT (SELECT count(*) FROM langchain_pg_collection) + (SELECT count(*) FROM langchain_pg_embedding)"

DROP_OLD_TABLES = "DROP TABLE langchain_pg_embedding, langchain_pg_collection"

# Our expression indexes on the old table, for when other programs' collections keep it alive.
DROP_OLD_INDEXES = [
    "DROP INDEX IF EXISTS hke_emb_element_id",
    "DROP INDEX IF EXISTS hke_emb_parent_id",
    "DROP INDEX IF EXISTS hke_emb_document",
    "DROP INDEX IF EXISTS hke_emb_text_sha256",
    "DROP INDEX IF EXISTS hke_emb_hnsw",
    "DROP INDEX IF EXISTS hke_emb_fts_path_v2",
    "DROP INDEX IF EXISTS hke_emb_fts_simple_path",
]

OLD_HNSW_EXISTS = "SELECT to_regclass('hke_emb_hnsw') IS NOT NULL"
