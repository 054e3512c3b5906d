"""SQL of the GraphRAG index: text units, entities, relationships, communities, reports and the LLM cache.

The tables mirror Microsoft GraphRAG's output tables (``text_units``, ``entities``, ``relationships``,
``communities``, ``community_reports``), one set of rows per collection. Every row carries ``collection_id``,
a foreign key to ``hke_collections`` with ``ON DELETE CASCADE``, so dropping a collection drops its index.
Re-indexing replaces a collection's rows in one transaction (``DELETE_*`` then ``COPY_*``), so a reader sees
either the old index or the new one. All statements take parameters; none is built from user text.
"""

# Serialises graph schema creation across processes (CREATE ... IF NOT EXISTS still races on the catalog).
GRAPH_SCHEMA_LOCK_KEY = 4_851_220_004

# -- schema -----------------------------------------------------------------------------------------

CREATE_SCHEMA = [
    """
    CREATE TABLE IF NOT EXISTS hke_graph_index (
        collection_id uuid PRIMARY KEY REFERENCES hke_collections (id) ON DELETE CASCADE,
        built_at      timestamptz NOT NULL DEFAULT now(),
        extraction    text NOT NULL CHECK (extraction IN ('offline', 'llm')),
        params        jsonb NOT NULL,
        stats         jsonb NOT NULL
    )
    """,
    """
    CREATE TABLE IF NOT EXISTS hke_text_units (
        collection_id     uuid NOT NULL REFERENCES hke_collections (id) ON DELETE CASCADE,
        id                text NOT NULL,
        human_readable_id integer NOT NULL,
        document_id       text NOT NULL,
        heading_path      text[] NOT NULL,
        text              text NOT NULL,
        n_tokens          integer NOT NULL CHECK (n_tokens >= 0),
        element_ids       text[] NOT NULL,
        entity_ids        text[] NOT NULL,
        relationship_ids  text[] NOT NULL,
        PRIMARY KEY (collection_id, id)
    )
    """,
    """
    CREATE TABLE IF NOT EXISTS hke_entities (
        collection_id     uuid NOT NULL REFERENCES hke_collections (id) ON DELETE CASCADE,
        id                text NOT NULL,
        human_readable_id integer NOT NULL,
        title             text NOT NULL CHECK (title <> ''),
        type              text NOT NULL,
        description       text NOT NULL,
        degree            integer NOT NULL CHECK (degree >= 0),
        frequency         integer NOT NULL CHECK (frequency >= 0),
        text_unit_ids     text[] NOT NULL,
        element_ids       text[] NOT NULL,
        PRIMARY KEY (collection_id, id)
    )
    """,
    """
    CREATE TABLE IF NOT EXISTS hke_relationships (
        collection_id     uuid NOT NULL REFERENCES hke_collections (id) ON DELETE CASCADE,
        id                text NOT NULL,
        human_readable_id integer NOT NULL,
        source            text NOT NULL,
        target            text NOT NULL,
        source_id         text NOT NULL,
        target_id         text NOT NULL,
        description       text NOT NULL,
        weight            double precision NOT NULL CHECK (weight > 0),
        combined_degree   integer NOT NULL,
        text_unit_ids     text[] NOT NULL,
        element_ids       text[] NOT NULL,
        PRIMARY KEY (collection_id, id),
        FOREIGN KEY (collection_id, source_id) REFERENCES hke_entities (collection_id, id) ON DELETE CASCADE,
        FOREIGN KEY (collection_id, target_id) REFERENCES hke_entities (collection_id, id) ON DELETE CASCADE
    )
    """,
    """
    CREATE TABLE IF NOT EXISTS hke_communities (
        collection_id     uuid NOT NULL REFERENCES hke_collections (id) ON DELETE CASCADE,
        id                text NOT NULL,
        human_readable_id integer NOT NULL,
        kind              text NOT NULL CHECK (kind IN ('entity', 'structural')),
        level             integer NOT NULL CHECK (level >= 0),
        parent            text,
        children          text[] NOT NULL,
        title             text NOT NULL,
        entity_ids        text[] NOT NULL,
        relationship_ids  text[] NOT NULL,
        text_unit_ids     text[] NOT NULL,
        element_ids       text[] NOT NULL,
        size              integer NOT NULL CHECK (size >= 0),
        PRIMARY KEY (collection_id, id),
        FOREIGN KEY (collection_id, parent) REFERENCES hke_communities (collection_id, id)
            ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED
    )
    """,
    """
    CREATE TABLE IF NOT EXISTS hke_community_reports (
        collection_id      uuid NOT NULL REFERENCES hke_collections (id) ON DELETE CASCADE,
        community_id       text NOT NULL,
        kind               text NOT NULL CHECK (kind IN ('entity', 'structural')),
        level              integer NOT NULL CHECK (level >= 0),
        title              text NOT NULL,
        summary            text NOT NULL,
        rating             real NOT NULL CHECK (rating >= 0 AND rating <= 10),
        rating_explanation text NOT NULL,
        findings           jsonb NOT NULL CHECK (jsonb_typeof(findings) = 'array'),
        full_content       text NOT NULL,
        generated_by       text NOT NULL CHECK (generated_by IN ('llm', 'extractive')),
        PRIMARY KEY (collection_id, community_id),
        FOREIGN KEY (collection_id, community_id) REFERENCES hke_communities (collection_id, id) ON DELETE CASCADE
    )
    """,
    # Node positions of big communities' networks, computed at index time (core.graph.communities.layout).
    """
    CREATE TABLE IF NOT EXISTS hke_community_layouts (
        collection_id uuid NOT NULL,
        community_id  text NOT NULL,
        layout        jsonb NOT NULL CHECK (jsonb_typeof(layout) = 'object'),
        PRIMARY KEY (collection_id, community_id),
        FOREIGN KEY (collection_id, community_id) REFERENCES hke_communities (collection_id, id) ON DELETE CASCADE
    )
    """,
    """
    CREATE TABLE IF NOT EXISTS hke_llm_cache (
        collection_id uuid NOT NULL REFERENCES hke_collections (id) ON DELETE CASCADE,
        model         text NOT NULL,
        prompt_hash   text NOT NULL,
        response      text NOT NULL,
        created_at    timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (collection_id, model, prompt_hash)
    )
    """,
    # Foreign-key checks on DELETE look referencing rows up by these columns: without indexes, replacing an
    # index scans hke_relationships once per deleted entity.
    "CREATE INDEX IF NOT EXISTS hke_relationships_source ON hke_relationships (collection_id, source_id)",
    "CREATE INDEX IF NOT EXISTS hke_relationships_target ON hke_relationships (collection_id, target_id)",
    "CREATE INDEX IF NOT EXISTS hke_communities_parent ON hke_communities (collection_id, parent)",
    "CREATE INDEX IF NOT EXISTS hke_communities_level ON hke_communities (collection_id, kind, level)",
    "CREATE INDEX IF NOT EXISTS hke_community_reports_level ON hke_community_reports (collection_id, kind, level)",
]

TABLE_EXISTS = "SELECT to_regclass(%s) IS NOT NULL"

# -- atomic replace ---------------------------------------------------------------------------------

# Deferred foreign keys (community parents) checked inside the replace's transaction, where the error is clearest.
CONSTRAINTS_IMMEDIATE = "SET CONSTRAINTS ALL IMMEDIATE"

# One index build of a collection at a time; readers are never blocked (MVCC).
LOCK_COLLECTION_INDEX = "SELECT pg_advisory_xact_lock(hashtextextended('hke-graph/' || %s::text, 0))"

# Children first, so foreign keys never point at a deleted row.
DELETE_ALL = [
    "DELETE FROM hke_community_layouts WHERE collection_id = %s",
    "DELETE FROM hke_community_reports WHERE collection_id = %s",
    "DELETE FROM hke_communities WHERE collection_id = %s",
    "DELETE FROM hke_relationships WHERE collection_id = %s",
    "DELETE FROM hke_entities WHERE collection_id = %s",
    "DELETE FROM hke_text_units WHERE collection_id = %s",
    "DELETE FROM hke_graph_index WHERE collection_id = %s",
]

COPY_TEXT_UNITS = """
COPY hke_text_units (collection_id, id, human_readable_id, document_id, heading_path, text, n_tokens,
                     element_ids, entity_ids, relationship_ids)
FROM STDIN WITH (FORMAT BINARY)
"""
COPY_TEXT_UNIT_TYPES = ["uuid", "text", "int4", "text", "text[]", "text", "int4", "text[]", "text[]", "text[]"]

COPY_ENTITIES = """
COPY hke_entities (collection_id, id, human_readable_id, title, type, description, degree, frequency,
                   text_unit_ids, element_ids)
FROM STDIN WITH (FORMAT BINARY)
"""
COPY_ENTITY_TYPES = ["uuid", "text", "int4", "text", "text", "text", "int4", "int4", "text[]", "text[]"]

COPY_RELATIONSHIPS = """
COPY hke_relationships (collection_id, id, human_readable_id, source, target, source_id, target_id, description,
                        weight, combined_degree, text_unit_ids, element_ids)
FROM STDIN WITH (FORMAT BINARY)
"""
COPY_RELATIONSHIP_TYPES = [
    "uuid", "text", "int4", "text", "text", "text", "text", "text", "float8", "int4", "text[]", "text[]",
]  # fmt: skip

COPY_COMMUNITIES = """
COPY hke_communities (collection_id, id, human_readable_id, kind, level, parent, children, title, entity_ids,
                      relationship_ids, text_unit_ids, element_ids, size)
FROM STDIN WITH (FORMAT BINARY)
"""
COPY_COMMUNITY_TYPES = [
    "uuid", "text", "int4", "text", "int4", "text", "text[]", "text", "text[]", "text[]", "text[]", "text[]", "int4",
]  # fmt: skip

COPY_REPORTS = """
COPY hke_community_reports (collection_id, community_id, kind, level, title, summary, rating, rating_explanation,
                            findings, full_content, generated_by)
FROM STDIN WITH (FORMAT BINARY)
"""
COPY_REPORT_TYPES = ["uuid", "text", "text", "int4", "text", "text", "float4", "text", "jsonb", "text", "text"]

INSERT_INDEX_INFO = """
INSERT INTO hke_graph_index (collection_id, built_at, extraction, params, stats)
VALUES (%s, now(), %s, %s, %s)
"""

# -- reads ------------------------------------------------------------------------------------------

INDEX_INFO = "SELECT built_at, extraction, params, stats FROM hke_graph_index WHERE collection_id = %s"

# Column lists are spelled out in each statement (no string building, so every statement is a literal).
ALL_TEXT_UNITS = """
SELECT id, human_readable_id, document_id, heading_path, text, n_tokens, element_ids, entity_ids,
       relationship_ids
FROM hke_text_units
WHERE collection_id = %s
ORDER BY human_readable_id
"""

TEXT_UNITS_BY_ID = """
SELECT id, human_readable_id, document_id, heading_path, text, n_tokens, element_ids, entity_ids,
       relationship_ids
FROM hke_text_units
WHERE collection_id = %s AND id = ANY(%s)
ORDER BY human_readable_id
"""

ALL_ENTITIES = """
SELECT id, human_readable_id, title, type, description, degree, frequency, text_unit_ids, element_ids
FROM hke_entities
WHERE collection_id = %s
ORDER BY human_readable_id
"""

ENTITIES_BY_ID = """
SELECT id, human_readable_id, title, type, description, degree, frequency, text_unit_ids, element_ids
FROM hke_entities
WHERE collection_id = %s AND id = ANY(%s)
ORDER BY degree DESC, human_readable_id
"""

ALL_RELATIONSHIPS = """
SELECT id, human_readable_id, source, target, source_id, target_id, description, weight, combined_degree,
       text_unit_ids, element_ids
FROM hke_relationships
WHERE collection_id = %s
ORDER BY human_readable_id
"""

RELATIONSHIPS_BY_ID = """
SELECT id, human_readable_id, source, target, source_id, target_id, description, weight, combined_degree,
       text_unit_ids, element_ids
FROM hke_relationships
WHERE collection_id = %s AND id = ANY(%s)
ORDER BY weight DESC, human_readable_id
"""

ALL_COMMUNITIES = """
SELECT id, human_readable_id, kind, level, parent, children, title, entity_ids, relationship_ids,
       text_unit_ids, element_ids, size
FROM hke_communities
WHERE collection_id = %s
ORDER BY kind, level, human_readable_id
"""

COMMUNITIES_FILTERED = """
SELECT id, human_readable_id, kind, level, parent, children, title, entity_ids, relationship_ids,
       text_unit_ids, element_ids, size
FROM hke_communities
WHERE collection_id = %(collection_id)s
  AND (%(kind)s::text IS NULL OR kind = %(kind)s::text)
  AND (%(level)s::int IS NULL OR level = %(level)s::int)
ORDER BY kind, level, human_readable_id
"""

COMMUNITY_BY_ID = """
SELECT id, human_readable_id, kind, level, parent, children, title, entity_ids, relationship_ids,
       text_unit_ids, element_ids, size
FROM hke_communities
WHERE collection_id = %s AND id = %s
"""

COMMUNITY_CHILDREN = """
SELECT id, human_readable_id, kind, level, parent, children, title, entity_ids, relationship_ids,
       text_unit_ids, element_ids, size
FROM hke_communities
WHERE collection_id = %s AND parent = %s
ORDER BY size DESC, human_readable_id
"""

REPORTS_FILTERED = """
SELECT r.community_id, r.kind, r.level, r.title, r.summary, r.rating, r.rating_explanation, r.findings,
       r.full_content, r.generated_by, c.parent, c.children, c.size
FROM hke_community_reports r
JOIN hke_communities c ON c.collection_id = r.collection_id AND c.id = r.community_id
WHERE r.collection_id = %(collection_id)s
  AND (%(kind)s::text IS NULL OR r.kind = %(kind)s::text)
  AND (%(level)s::int IS NULL OR r.level = %(level)s::int)
ORDER BY r.kind, r.level, r.rating DESC, c.human_readable_id
"""

REPORT_BY_COMMUNITY = """
SELECT r.community_id, r.kind, r.level, r.title, r.summary, r.rating, r.rating_explanation, r.findings,
       r.full_content, r.generated_by, c.parent, c.children, c.size
FROM hke_community_reports r
JOIN hke_communities c ON c.collection_id = r.collection_id AND c.id = r.community_id
WHERE r.collection_id = %s AND r.community_id = %s
"""

HIERARCHY = """
SELECT c.id, c.parent, c.level, c.title, c.size, r.rating, c.kind, cardinality(c.children)
FROM hke_communities c
LEFT JOIN hke_community_reports r ON r.collection_id = c.collection_id AND r.community_id = c.id
WHERE c.collection_id = %(collection_id)s AND (%(kind)s::text IS NULL OR c.kind = %(kind)s::text)
ORDER BY c.kind, c.level, c.human_readable_id
"""

# -- the graph explorer: an entity's search, neighbourhood and communities --------------------------------------

# Entities whose title (or, after them, description) contains %(pattern)s (a LIKE pattern, its wildcards escaped by
# the caller): an exact title first, then titles that start with the text, then the most connected.
ENTITY_SEARCH = """
SELECT id, human_readable_id, title, type, description, degree, frequency, text_unit_ids, element_ids
FROM hke_entities
WHERE collection_id = %(collection_id)s
  AND (title ILIKE %(pattern)s ESCAPE '\\' OR description ILIKE %(pattern)s ESCAPE '\\')
ORDER BY lower(title) = lower(%(text)s) DESC, title ILIKE %(prefix)s ESCAPE '\\' DESC,
         title ILIKE %(pattern)s ESCAPE '\\' DESC, degree DESC, human_readable_id
LIMIT %(limit)s
"""

# Every relationship with an end in %(ids)s: the edges that expanding those entities draws.
RELATIONSHIPS_TOUCHING = """
SELECT id, human_readable_id, source, target, source_id, target_id, description, weight, combined_degree,
       text_unit_ids, element_ids
FROM hke_relationships
WHERE collection_id = %(collection_id)s AND (source_id = ANY(%(ids)s::text[]) OR target_id = ANY(%(ids)s::text[]))
ORDER BY weight DESC, human_readable_id
"""

# The communities (both kinds, every level) an entity belongs to, coarsest first.
COMMUNITIES_OF_ENTITY = """
SELECT id, human_readable_id, kind, level, parent, children, title, entity_ids, relationship_ids,
       text_unit_ids, element_ids, size
FROM hke_communities
WHERE collection_id = %(collection_id)s AND %(entity_id)s::text = ANY(entity_ids)
ORDER BY kind, level, human_readable_id
"""

LEVEL_COUNTS = """
SELECT kind, level, count(*)
FROM hke_communities WHERE collection_id = %s GROUP BY kind, level ORDER BY kind, level
"""

TABLE_COUNTS = """
SELECT (SELECT count(*) FROM hke_text_units WHERE collection_id = %(c)s),
       (SELECT count(*) FROM hke_entities WHERE collection_id = %(c)s),
       (SELECT count(*) FROM hke_relationships WHERE collection_id = %(c)s),
       (SELECT count(*) FROM hke_communities WHERE collection_id = %(c)s),
       (SELECT count(*) FROM hke_community_reports WHERE collection_id = %(c)s)
"""

# -- LLM cache --------------------------------------------------------------------------------------

CACHE_GET = "SELECT response FROM hke_llm_cache WHERE collection_id = %s AND model = %s AND prompt_hash = %s"

CACHE_PUT = """
INSERT INTO hke_llm_cache (collection_id, model, prompt_hash, response) VALUES (%s, %s, %s, %s)
ON CONFLICT (collection_id, model, prompt_hash) DO UPDATE SET response = EXCLUDED.response, created_at = now()
"""

CACHE_COUNT = "SELECT count(*) FROM hke_llm_cache WHERE collection_id = %s"

CACHE_CLEAR = "DELETE FROM hke_llm_cache WHERE collection_id = %s"

CACHE_CLEAR_ALL = "DELETE FROM hke_llm_cache"

# -- global search (offline) ------------------------------------------------------------------------

# The evidence of findings, scored against a question vector (pgvector's <=> is cosine distance): each cited
# content element, and for a cited heading the content elements directly under it (a heading entity stands for
# its section; a heading itself states nothing to quote). Rows: cited id, evidence id, similarity, text, heading
# path. A template over the collection's element table (core.sql.elements.bind).
EVIDENCE_SIMILARITY = """
WITH cited AS (SELECT DISTINCT unnest(%(ids)s::text[]) AS element_id)
SELECT c.element_id, e.element_id, 1 - (e.embedding <=> %(query)s), e.content, e.heading_path
FROM cited c JOIN {elements} e ON e.element_id = c.element_id AND e.category <> 'Title'
UNION ALL
SELECT c.element_id, e.element_id, 1 - (e.embedding <=> %(query)s), e.content, e.heading_path
FROM cited c
JOIN {elements} h ON h.element_id = c.element_id AND h.category = 'Title'
JOIN {elements} e ON e.document_id = h.document_id AND e.parent_id = h.element_id AND e.category <> 'Title'
"""

# Every element's stored vector, for summary sentence selection at index time.
ELEMENT_VECTORS = """
SELECT element_id, embedding FROM {elements}
"""

INSERT_LAYOUT = "INSERT INTO hke_community_layouts (collection_id, community_id, layout) VALUES (%s, %s, %s)"

COMMUNITY_LAYOUT = "SELECT layout FROM hke_community_layouts WHERE collection_id = %s AND community_id = %s"

# -- purge: a document's rows leave the index ---------------------------------------------------------------------

# ``remove --purge`` deletes what the index holds of one document, in the purge's transaction: its text units; the
# entities and relationships no other text unit mentions (the others keep their rows without its ids); the reports
# of every community that drew on it (a report may quote it: rebuilding the index summarises the rest again); and
# the collection's LLM cache, whose replies may quote it. Communities keep their place in the hierarchy.

# The ids of a document's text units and of the elements they cover (%(units)s::text[] and %(elements)s::text[] below).
PURGED_UNITS = """
SELECT coalesce(array_agg(DISTINCT t.id), '{}'), coalesce(array_agg(DISTINCT e), '{}')
FROM hke_text_units t LEFT JOIN LATERAL unnest(t.element_ids) e ON true
WHERE t.collection_id = %(collection_id)s AND t.document_id = %(document_id)s
"""

_WITHOUT_PURGED = """
        text_unit_ids = ARRAY(SELECT u FROM unnest(text_unit_ids) u WHERE u <> ALL(%(units)s::text[])),
        element_ids = ARRAY(SELECT e FROM unnest(element_ids) e WHERE e <> ALL(%(elements)s::text[]))"""

_KNOWN_GRAPH_IDS = """
        entity_ids = ARRAY(SELECT e FROM unnest(entity_ids) e WHERE EXISTS (
            SELECT 1 FROM hke_entities x WHERE x.collection_id = %(collection_id)s AND x.id = e)),
        relationship_ids = ARRAY(SELECT r FROM unnest(relationship_ids) r WHERE EXISTS (
            SELECT 1 FROM hke_relationships x WHERE x.collection_id = %(collection_id)s AND x.id = r))"""

def _pruned(table: str, columns: str, where: str) -> str:
    return f"UPDATE {table} SET {columns} WHERE collection_id = %(collection_id)s {where}"  # noqa: S608 - fixed


_TOUCHED = "AND text_unit_ids && %(units)s::text[]"

PURGE_DOCUMENT = [
    """
    DELETE FROM hke_community_reports r USING hke_communities c
    WHERE r.collection_id = %(collection_id)s AND c.collection_id = r.collection_id AND c.id = r.community_id
      AND c.text_unit_ids && %(units)s::text[]
    """,
    "DELETE FROM hke_text_units WHERE collection_id = %(collection_id)s AND document_id = %(document_id)s",
    _pruned("hke_entities", _WITHOUT_PURGED, _TOUCHED),
    _pruned("hke_relationships", _WITHOUT_PURGED, _TOUCHED),
    # Relationships go with their entities too (foreign keys, ON DELETE CASCADE).
    "DELETE FROM hke_relationships WHERE collection_id = %(collection_id)s AND text_unit_ids = '{}'",
    "DELETE FROM hke_entities WHERE collection_id = %(collection_id)s AND text_unit_ids = '{}'",
    _pruned("hke_communities", f"{_WITHOUT_PURGED}, {_KNOWN_GRAPH_IDS}", _TOUCHED),
    _pruned("hke_text_units", _KNOWN_GRAPH_IDS, ""),
    "DELETE FROM hke_llm_cache WHERE collection_id = %(collection_id)s",
]

# What the index still holds of one document (0 after a purge).
DOCUMENT_ROWS = """
SELECT
  (SELECT count(*) FROM hke_text_units WHERE collection_id = %(collection_id)s AND document_id = %(document_id)s),
  (SELECT count(*) FROM hke_entities
   WHERE collection_id = %(collection_id)s AND element_ids && %(elements)s::text[]),
  (SELECT count(*) FROM hke_relationships
   WHERE collection_id = %(collection_id)s AND element_ids && %(elements)s::text[]),
  (SELECT count(*) FROM hke_communities
   WHERE collection_id = %(collection_id)s AND element_ids && %(elements)s::text[])
"""
