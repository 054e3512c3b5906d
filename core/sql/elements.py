"""SQL of the element store: a registry of collections and one element table per collection.

Each collection's elements live in their own table, ``hke_elements_<collection uuid hex>``, in the layout of
langchain-postgres' ``PGVectorStore`` (one store, one table): an id column, ``content``, ``embedding`` and a JSON
metadata column, plus the hierarchy as real columns (``element_id``, ``parent_id``, ``document_id``,
``category``, ``category_depth``, ``order``, ``heading_path``, ``embedded_text_sha256``), so ``PGVectorStore`` can
open the table and our own statements walk the tree through ordinary b-tree indexes. A table per collection
also lets two collections hold vectors of different sizes, and gives each its own HNSW index.

Statements that touch an element table are templates with ``{elements}`` (and index names) in place of the
identifiers; :func:`bind` fills them in with ``psycopg.sql.Identifier``. All values are parameters; no
statement is built from user text.
"""

from __future__ import annotations

import functools
import uuid

from psycopg import sql as pgsql

from core.sql import headings as heading_sql
from core.sql import terms as term_sql
from core.sql import versions as version_sql

# Serialises schema creation across processes: CREATE ... IF NOT EXISTS still races on the catalog.
SCHEMA_LOCK_KEY = 4_851_220_001

TABLE_EXISTS = "SELECT to_regclass(%s) IS NOT NULL"

TABLE_PREFIX = "hke_elements_"

# The element metadata keys that are real columns, in table order ("order" is a keyword: always quoted).
METADATA_COLUMNS = (
    "parent_id", "document_id", "category", "category_depth", "order", "heading_path", "embedded_text_sha256",
)  # fmt: skip
ID_COLUMN = "element_id"
CONTENT_COLUMN = "content"
EMBEDDING_COLUMN = "embedding"
# jsonb where PGVectorStore's own DDL says json: the recursive walks use UNION, which needs equality on every
# carried column, and json has none. PGVectorStore reads and writes a jsonb column the same way.
METADATA_JSON_COLUMN = "metadata"


def table_name(collection_id: uuid.UUID) -> str:
    """The element table of a collection: named by its id, so it never needs quoting or renaming."""
    return f"{TABLE_PREFIX}{collection_id.hex}"


def _names(table: str, dimension: int = 0) -> dict[str, pgsql.Composable]:
    return {
        "dimension": pgsql.SQL(str(int(dimension))),
        "elements": pgsql.Identifier(table),
        "hnsw": pgsql.Identifier(f"{table}_hnsw"),
        "fts": pgsql.Identifier(f"{table}_fts"),
        "doc_key": pgsql.Identifier(f"{table}_doc_key"),
        "parent_fk": pgsql.Identifier(f"{table}_parent_fk"),
        "children": pgsql.Identifier(f"{table}_children"),
        "text_sha": pgsql.Identifier(f"{table}_text_sha"),
        "hnsw_name": pgsql.Literal(f"{table}_hnsw"),
        "table_name": pgsql.Literal(table),
        "history": pgsql.Identifier(f"{table}_history"),
        "history_doc": pgsql.Identifier(f"{table}_history_doc"),
        "history_fts": pgsql.Identifier(f"{table}_history_fts"),
        "history_name": pgsql.Literal(f"{table}_history"),
        "history_children": pgsql.Identifier(f"{table}_history_children"),
        "history_children_name": pgsql.Literal(f"{table}_history_children"),
        "order_at": pgsql.SQL('"order"'),
    }


@functools.lru_cache(maxsize=2048)
def bind(template: str, table: str, dimension: int = 0) -> str:
    """``template`` with its ``{elements}`` table and index placeholders filled in for ``table``."""
    return pgsql.SQL(template).format(**_names(table, dimension)).as_string()  # type: ignore[arg-type]


@functools.lru_cache(maxsize=2048)
def bind_as_of(template: str, table: str) -> str:
    """``template`` with ``{elements}`` standing for the rows of ``table`` and of its history that are valid at
    ``%(as_of)s`` (``core.sql.versions.AS_OF_ELEMENTS``): the same statement, read as of a date."""
    names = {**_names(table), "elements": pgsql.SQL(bind(version_sql.AS_OF_ELEMENTS, table)),
             "order_at": pgsql.SQL(version_sql.ORDER_AT)}
    return pgsql.SQL(template).format(**names).as_string()  # type: ignore[arg-type]


# What every statement that returns elements selects first, in this order (core.store.element_from_row builds
# the Document's metadata from them in Python: building it as jsonb in SQL cost 0.3 ms per expansion).
# element_key and since_version (core.sql.versions) come last: PGVectorStore neither reads nor writes them.
VERSION_COLUMNS = ("element_key", "since_version")
ELEMENT_COLUMNS = (ID_COLUMN, CONTENT_COLUMN, *METADATA_COLUMNS, METADATA_JSON_COLUMN, *VERSION_COLUMNS)
ELEMENT_WIDTH = len(ELEMENT_COLUMNS)  # where a statement's extra columns (distance, score, ...) start
WALK_COLUMNS = ", ".join(f'"{c}"' if c == "order" else c for c in ELEMENT_COLUMNS)


def cols(alias: str) -> str:
    """ELEMENT_COLUMNS of the table or walk ``alias``."""
    return ", ".join(f'{alias}."{c}"' if c == "order" else f"{alias}.{c}" for c in ELEMENT_COLUMNS)


# An array of ids as a sub-select the planner cannot see into: a custom plan then costs what the generic one does,
# and the plan cache keeps the generic plan after five executions instead of planning every execution anew. For the
# expansion, planning was a third of its server time (0.8 -> 0.4 ms a question on the samples). The plan is a
# look-up by primary key either way, and the rows are the same.
PLANNED_ONCE_IDS = "(SELECT %({name})s::text[])::text[]"


def ancestor_walk(name: str) -> str:
    """The recursive CTE ``name`` (for a ``WITH RECURSIVE``): the rows of ``%(ids)s`` and all their ancestors.

    It walks parent_id up through the primary key carrying whole rows (joining walked ids back afterwards let the
    planner pick a sequential scan), and UNION stops at an ancestor already reached from another hit, so shared
    ancestors are fetched once. The ids are read through a sub-select (:data:`PLANNED_ONCE_IDS`).
    """
    return f"""{name} ({WALK_COLUMNS}) AS (
    SELECT {cols("e")}
    FROM {{elements}} e
    WHERE e.element_id = ANY({PLANNED_ONCE_IDS.format(name="ids")})
  UNION
    SELECT {cols("p")}
    FROM {name} w
    JOIN {{elements}} p ON p.element_id = w.parent_id
)"""  # noqa: S608 - fixed fragments and a fixed CTE name, no user text


# -- full text --------------------------------------------------------------------------------------

# What full-text search matches (core.sql.retrieval): an element's heading path and its own text under the 'simple'
# configuration, stored in the element's row when it is written, so a query reads lexemes instead of parsing every
# matching element's text again. With the path, "Nova 24FL 무게" finds "* 무게 : 2.9 kg" under the Nova 24FL
# heading, which the item's own text never names (the contextual-retrieval idea applied to the lexical side, with
# no re-embedding). 'simple' lowercases and splits but does no stemming or stop words, which is what makes it
# usable on Korean (stock Postgres has no Korean configuration): Korean particles are met by the prefix terms
# ('모니터':*) the query side builds (core.retrieval.search), which match these stored lexemes as they matched the
# same expression computed at query time. Only the first FTS_MAX_CHARS of an element are indexed: a tsvector holds
# at most 1 MB, and one 5 MB element (within the ingest limit) would otherwise make every insert fail.
# hke_path_text is array_to_string declared immutable (CREATE_SCHEMA), which a generated column needs.
FTS_COLUMN = version_sql.FTS_COLUMN
FTS_MAX_CHARS = 100_000
FTS_EXPRESSION = f"to_tsvector('simple', hke_path_text(heading_path) || ' ' || left(content, {FTS_MAX_CHARS}))"
_FTS_COLUMN_DDL = f"{FTS_COLUMN} tsvector GENERATED ALWAYS AS ({FTS_EXPRESSION}) STORED"
_FTS_INDEX = f"CREATE INDEX IF NOT EXISTS {{fts}} ON {{elements}} USING gin ({FTS_COLUMN})"

# A table made before the column existed has an expression index under the same name: the upgrade replaces it.
# Adding a stored generated column rewrites the table (and rebuilds its indexes) once, under the schema lock.
FTS_COLUMN_MISSING = (
    "SELECT NOT EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = {table_name}::regclass "
    "AND attname = %s AND NOT attisdropped)"
)
ADD_FTS_COLUMN = [
    f"ALTER TABLE {{elements}} ADD COLUMN IF NOT EXISTS {_FTS_COLUMN_DDL}",
    "DROP INDEX IF EXISTS {fts}",
    _FTS_INDEX,
]

# -- schema -----------------------------------------------------------------------------------------

CREATE_SCHEMA = [
    """
    CREATE TABLE IF NOT EXISTS hke_collections (
        id       uuid PRIMARY KEY,
        name     text NOT NULL UNIQUE,
        metadata jsonb NOT NULL DEFAULT '{}'
    )
    """,
    """
    CREATE TABLE IF NOT EXISTS hke_documents (
        collection_id uuid NOT NULL REFERENCES hke_collections (id) ON DELETE CASCADE,
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
    # array_to_string is only STABLE (it could print any array type); over text[] it is immutable, which an
    # index expression needs (the full-text index, core.sql.retrieval).
    # A sibling (the contextual index of a collection) is a collection of its own, tied to its base: its name has
    # a ':' no user name may hold, listings leave it out, and dropping the base drops it.
    """
    ALTER TABLE hke_collections
        ADD COLUMN IF NOT EXISTS sibling_of uuid REFERENCES hke_collections (id) ON DELETE CASCADE
    """,
    """
    CREATE OR REPLACE FUNCTION hke_path_text(text[]) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT array_to_string($1, ' ') $$
    """,
    *heading_sql.CREATE_SCHEMA,
    *term_sql.CREATE_SCHEMA,
    *version_sql.CREATE_SCHEMA,
]

# Opening a store checks this before running CREATE_SCHEMA (no catalog writes on every open).
SCHEMA_READY = """
SELECT to_regclass('hke_collections') IS NOT NULL AND to_regclass('hke_documents') IS NOT NULL
   AND to_regprocedure('hke_path_text(text[])') IS NOT NULL
   AND EXISTS (SELECT 1 FROM pg_attribute
               WHERE attrelid = to_regclass('hke_collections') AND attname = 'sibling_of' AND NOT attisdropped)
   AND """ + heading_sql.SCHEMA_READY + " AND " + term_sql.SCHEMA_READY + " AND " + version_sql.SCHEMA_READY + "\n"  # noqa: S608 (constant fragments of core.sql, no input)

# Contextual siblings made before the registry had ``sibling_of`` were ordinary collections named
# ``<base>__ctx`` that recorded ``contextual_of``: tie each to its base under the reserved name. Their element ids
# were derived from the old name, kept as ``id_salt`` so nothing is embedded again.
MARK_OLD_SIBLINGS = """
UPDATE hke_collections s
SET sibling_of = b.id, name = b.name || ':contextual', metadata = s.metadata || jsonb_build_object('id_salt', s.name)
FROM hke_collections b
WHERE s.sibling_of IS NULL AND s.metadata ? 'contextual_of' AND b.name = s.metadata->>'contextual_of'
  AND b.id <> s.id AND b.sibling_of IS NULL
  AND NOT EXISTS (SELECT 1 FROM hke_collections t WHERE t.name = b.name || ':contextual')
"""

# A row of the element table and of its history is kept whole in its page up to this many bytes (the most Postgres
# allows) instead of the default 2,032. A 512-dimension vector alone is 2,052 bytes, so under the default every
# vector went to the TOAST table, and every distance a search computes (an exact scan computes every row's, a
# subtree walk and the expansion each walked row's) fetched it back through the TOAST index: on the samples (805
# elements) that was over a quarter of a question's server CPU (docs/pipeline-speed.md). A row larger than a page
# still has its largest values moved out of line. Rows stored before the setting keep their layout until
# rewritten (re-ingested, or VACUUM FULL).
INLINE_ROW_BYTES = 8160
SET_INLINE_ROWS = [f"ALTER TABLE {{{table}}} SET (toast_tuple_target = {INLINE_ROW_BYTES})"
                   for table in ("elements", "history")]
INLINE_ROWS_OPTION = f"toast_tuple_target={INLINE_ROW_BYTES}"
INLINE_ROWS_MISSING = ("SELECT NOT coalesce((SELECT reloptions FROM pg_class WHERE oid = {table_name}::regclass) "
                       "@> ARRAY[%s], false)")  # %s: INLINE_ROWS_OPTION

# One table per collection, the shape PGEngine.init_vectorstore_table makes (id, content, embedding, metadata
# columns, JSON metadata), plus the parent link kept inside the document by a composite foreign key.
# Indexes: the primary key serves the walk up (parent_id -> element_id); (document_id, element_id) is the
# foreign key's target and serves "elements of a document"; (document_id, parent_id) serves the walk down and
# the foreign key's check when a document's elements are deleted; the text hash is the embedding cache's key; the
# GIN index over the stored lexemes (FTS_COLUMN) serves full-text search.
CREATE_ELEMENT_TABLE = [
    """
    CREATE TABLE IF NOT EXISTS {elements} (
        element_id           text PRIMARY KEY,
        content              text NOT NULL,
        embedding            vector({dimension}) NOT NULL,
        parent_id            text,
        document_id          text NOT NULL,
        category             text NOT NULL,
        category_depth       integer NOT NULL DEFAULT 0,
        "order"              integer NOT NULL,
        heading_path         text[] NOT NULL DEFAULT '{{}}',
        embedded_text_sha256 text,
        metadata             jsonb NOT NULL DEFAULT '{{}}',
        since_version        integer NOT NULL DEFAULT 1,
        element_key          text,
        valid_from           timestamptz,
        {fts_column},
        CONSTRAINT {doc_key} UNIQUE (document_id, element_id),
        CONSTRAINT {parent_fk} FOREIGN KEY (document_id, parent_id) REFERENCES {elements} (document_id, element_id)
    )
    """,
    "CREATE INDEX IF NOT EXISTS {children} ON {elements} (document_id, parent_id)",
    "CREATE INDEX IF NOT EXISTS {text_sha} ON {elements} (embedded_text_sha256)"
    " WHERE embedded_text_sha256 IS NOT NULL",
    _FTS_INDEX,
]
# (core.sql.versions.CREATE_HISTORY follows, once the table exists: the history is made LIKE it.)
CREATE_ELEMENT_TABLE[0] = CREATE_ELEMENT_TABLE[0].replace("{fts_column}", _FTS_COLUMN_DDL)

DROP_ELEMENT_TABLE = "DROP TABLE IF EXISTS {elements}, {history}"

# The HNSW index is built once the table is big enough to need it (ElementStore.ensure_vector_index): below
# that an exact scan is as fast, and maintaining HNSW on every insert costs about as much as embedding does.
CREATE_VECTOR_INDEX = "CREATE INDEX IF NOT EXISTS {hnsw} ON {elements} USING hnsw (embedding vector_cosine_ops)"

VECTOR_INDEX_EXISTS = "SELECT to_regclass({hnsw_name}) IS NOT NULL"

COUNT_ELEMENTS = "SELECT count(*) FROM {elements}"

TABLE_SCHEMA = "SELECT relnamespace::regnamespace::text FROM pg_class WHERE oid = {table_name}::regclass"

# -- collections ------------------------------------------------------------------------------------

COLLECTION_BY_NAME = "SELECT id, metadata, sibling_of FROM hke_collections WHERE name = %s"

COLLECTION_EXISTS = "SELECT EXISTS (SELECT 1 FROM hke_collections WHERE id = %s)"

INSERT_COLLECTION = "INSERT INTO hke_collections (id, name, metadata, sibling_of) VALUES (%s, %s, %s, %s)"

# The collections users made (siblings are listed with their base). Element counts come from hke_documents
# (n_elements is written in the same transaction as the elements).
LIST_COLLECTIONS = """
SELECT c.name, c.metadata, count(d.document_id) AS documents, coalesce(sum(d.n_elements), 0) AS elements,
       ARRAY(SELECT s.name FROM hke_collections s WHERE s.sibling_of = c.id ORDER BY s.name) AS siblings
FROM hke_collections c
LEFT JOIN hke_documents d ON d.collection_id = c.id
WHERE c.sibling_of IS NULL
GROUP BY c.id, c.name, c.metadata
ORDER BY c.name
"""

SIBLINGS = "SELECT id FROM hke_collections WHERE sibling_of = %s ORDER BY name"

# The collections whose vectors the embedding cache may reuse: same provider, model and dimension.
SAME_EMBEDDER_COLLECTIONS = """
SELECT id FROM hke_collections
WHERE metadata->>'embedding_provider' = %(provider)s
  AND metadata->>'embedding_model' = %(model)s
  AND metadata->>'embedding_dimension' = %(dimension)s
ORDER BY name
"""

DELETE_COLLECTION = "DELETE FROM hke_collections WHERE id = %s"

# -- documents --------------------------------------------------------------------------------------

# Per-document lock so two ingests of the same file serialise instead of interleaving delete/insert.
LOCK_DOCUMENT = "SELECT pg_advisory_xact_lock(hashtextextended(%s::text || '/' || %s::text, 0))"

DOCUMENT_HASH = "SELECT content_hash FROM hke_documents WHERE collection_id = %s AND document_id = %s"

DOCUMENT_HASHES = "SELECT document_id, content_hash FROM hke_documents WHERE collection_id = %s"

# Each document with what its elements were parsed from (content hash and loader), in LIST_DOCUMENTS' order.
DOCUMENT_SOURCES = """
SELECT document_id, content_hash || '|' || loader FROM hke_documents WHERE collection_id = %s ORDER BY filename, source
"""

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

DELETE_DOCUMENT_ELEMENTS = "DELETE FROM {elements} WHERE document_id = %s"

DELETE_DOCUMENT = "DELETE FROM hke_documents WHERE collection_id = %s AND document_id = %s"

COPY_ELEMENTS = (
    'COPY {elements} (element_id, content, embedding, parent_id, document_id, category, category_depth, "order", '
    "heading_path, embedded_text_sha256, metadata, element_key, since_version, valid_from) "
    "FROM STDIN WITH (FORMAT BINARY)"
)

COPY_ELEMENT_TYPES = ["text", "text", "vector", "text", "text", "text", "int4", "int4", "text[]", "text", "jsonb",
                      "text", "int4", "timestamptz"]

# -- embedding cache --------------------------------------------------------------------------------

# The cache is the stored elements themselves: each records the sha256 of the exact text it was embedded from,
# and its vector is reused for that text by any collection of the same embedder. A vector lives as long as one
# element holds it, so a removed or replaced document takes its unshared vectors with it. One such select per
# table of the same embedder, joined by UNION ALL (see ElementStore.cached_vectors).
CACHED_VECTORS_OF_TABLE = (
    "SELECT embedded_text_sha256, embedding FROM {elements} WHERE embedded_text_sha256 = ANY(%(hashes)s)"
)

# -- elements ---------------------------------------------------------------------------------------

ELEMENTS_OF_DOCUMENT = f"""
SELECT {cols("e")}
FROM {{elements}} e
WHERE e.document_id = %(document_id)s
ORDER BY e."order"
"""  # noqa: S608 - fixed fragments, no user text

ELEMENTS_BY_ID = f"""
SELECT {cols("e")}
FROM {{elements}} e
WHERE e.element_id = ANY(%(ids)s)
"""  # noqa: S608 - fixed fragments, no user text

# One round trip for the ancestors of every hit.
ANCESTORS = f"""
WITH RECURSIVE {ancestor_walk("walk")}
SELECT {cols("w")} FROM walk w
"""  # noqa: S608 - fixed fragments, no user text

CATEGORY_DEPTH_COUNTS = """
SELECT e.category, e.category_depth, count(*) AS n
FROM {elements} e
GROUP BY 1, 2
ORDER BY 1, 2
"""
