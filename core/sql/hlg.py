"""SQL of the hierarchical lexical graph (issue 31): statements, entities, facts and their links, next to the element
tables of every collection.

* ``hke_hlg_statements``: one row per statement of an element row, keyed by the element's ``(element_id,
  since_version)``, so an element edited in a new version gets new statements while the old ones keep the dates they
  were valid (``valid_from`` / ``valid_to``, copied from the element rows: the elements' own versioning pattern). The
  text is the statement alone; ``heading_path`` makes it self-contained; ``topic`` is the heading section it belongs
  to; ``fts`` holds the lexemes of path + text under the 'simple' configuration (as the element tables do), and
  ``embedding`` the vector of path + text (any dimension: one table serves every collection, searched exactly).
* ``hke_hlg_entities``: one row per entity of a collection by its merge key (``core.text.normalize_name``, the
  GraphRAG index's key, so an entity here and one of ``hke_graph_entities`` with the same key are one thing).
* ``hke_hlg_mentions``: which statement mentions which entity, and how (its subject heading, a heading above, a name).
* ``hke_hlg_facts``: one row per distinct fact of a collection; ``hke_hlg_support`` links it to every statement that
  states it. A fact is visible as of a date when one of its statements is.
* ``hke_hlg_built``: the element rows already read, so an ingest reads only the elements it added; ``llm``: read
  with a chat model (an element read offline is read once more by the first build with one).
* ``hke_hlg_topics``: one row per heading section of a document (``topic``: the heading's element id, "" at the
  top), its text the section's heading path and statements, embedded; a section whose statements change gets a new
  row and the old one stops (``valid_from`` / ``valid_to``, as the statements). A topic's statements are the live
  statements with its ``(document_id, topic)``; topics are linked through the entities their statements share.

Every value is a parameter; the tables are fixed names.
"""

from __future__ import annotations

SCHEMA_LOCK_KEY = 4_851_220_031

CREATE_SCHEMA = [
    """
    CREATE TABLE IF NOT EXISTS hke_hlg_statements (
        statement_id  bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        collection_id uuid NOT NULL REFERENCES hke_collections (id) ON DELETE CASCADE,
        document_id   text NOT NULL,
        element_id    text NOT NULL,
        element_since integer NOT NULL,
        ordinal       integer NOT NULL,
        kind          text NOT NULL,
        topic         text NOT NULL,
        heading_path  text[] NOT NULL,
        text          text NOT NULL,
        text_sha256   text NOT NULL,
        embedding     vector NOT NULL,
        fts           tsvector NOT NULL,
        valid_from    timestamptz NOT NULL,
        valid_to      timestamptz,
        UNIQUE (collection_id, element_id, element_since, ordinal)
    )
    """,
    # Vectors stay in the row: a 512-d vector is 2 KB, past the TOAST threshold, and an exact scan that detoasts
    # every row read three buffers per statement (233 ms for 5,432 statements against a few ms).
    "ALTER TABLE hke_hlg_statements ALTER COLUMN embedding SET STORAGE PLAIN",
    "CREATE INDEX IF NOT EXISTS hke_hlg_statements_live ON hke_hlg_statements (collection_id, valid_to)",
    "CREATE INDEX IF NOT EXISTS hke_hlg_statements_fts ON hke_hlg_statements USING gin (fts)",
    "CREATE INDEX IF NOT EXISTS hke_hlg_statements_sha ON hke_hlg_statements (collection_id, text_sha256)",
    """
    CREATE TABLE IF NOT EXISTS hke_hlg_entities (
        entity_id     bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        collection_id uuid NOT NULL REFERENCES hke_collections (id) ON DELETE CASCADE,
        key           text NOT NULL,
        name          text NOT NULL,
        UNIQUE (collection_id, key)
    )
    """,
    """
    CREATE TABLE IF NOT EXISTS hke_hlg_mentions (
        statement_id bigint NOT NULL REFERENCES hke_hlg_statements (statement_id) ON DELETE CASCADE,
        entity_id    bigint NOT NULL REFERENCES hke_hlg_entities (entity_id) ON DELETE CASCADE,
        role         text NOT NULL,
        PRIMARY KEY (statement_id, entity_id)
    )
    """,
    "CREATE INDEX IF NOT EXISTS hke_hlg_mentions_entity ON hke_hlg_mentions (entity_id, statement_id)",
    """
    CREATE TABLE IF NOT EXISTS hke_hlg_facts (
        fact_id       bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        collection_id uuid NOT NULL REFERENCES hke_collections (id) ON DELETE CASCADE,
        key           text NOT NULL,
        subject       text NOT NULL,
        predicate     text NOT NULL,
        object        text NOT NULL,
        kind          text NOT NULL,
        UNIQUE (collection_id, key)
    )
    """,
    """
    CREATE TABLE IF NOT EXISTS hke_hlg_support (
        fact_id      bigint NOT NULL REFERENCES hke_hlg_facts (fact_id) ON DELETE CASCADE,
        statement_id bigint NOT NULL REFERENCES hke_hlg_statements (statement_id) ON DELETE CASCADE,
        PRIMARY KEY (fact_id, statement_id)
    )
    """,
    "CREATE INDEX IF NOT EXISTS hke_hlg_support_statement ON hke_hlg_support (statement_id, fact_id)",
    """
    CREATE TABLE IF NOT EXISTS hke_hlg_topics (
        topic_id      bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        collection_id uuid NOT NULL REFERENCES hke_collections (id) ON DELETE CASCADE,
        document_id   text NOT NULL,
        topic         text NOT NULL,
        heading_path  text[] NOT NULL,
        text          text NOT NULL,
        text_sha256   text NOT NULL,
        section_sha256 text NOT NULL,
        embedding     vector NOT NULL,
        fts           tsvector NOT NULL,
        statements    integer NOT NULL,
        valid_from    timestamptz NOT NULL,
        valid_to      timestamptz
    )
    """,
    "ALTER TABLE hke_hlg_topics ALTER COLUMN embedding SET STORAGE PLAIN",
    "CREATE INDEX IF NOT EXISTS hke_hlg_topics_live ON hke_hlg_topics (collection_id, document_id, topic, valid_to)",
    "CREATE INDEX IF NOT EXISTS hke_hlg_topics_sha ON hke_hlg_topics (collection_id, text_sha256)",
    "CREATE INDEX IF NOT EXISTS hke_hlg_statements_topic ON hke_hlg_statements (collection_id, document_id, topic)",
    """
    CREATE TABLE IF NOT EXISTS hke_hlg_built (
        collection_id uuid NOT NULL REFERENCES hke_collections (id) ON DELETE CASCADE,
        element_id    text NOT NULL,
        element_since integer NOT NULL,
        PRIMARY KEY (collection_id, element_id, element_since)
    )
    """,
    "ALTER TABLE hke_hlg_built ADD COLUMN IF NOT EXISTS llm boolean NOT NULL DEFAULT false",
]

TABLE_EXISTS = "SELECT to_regclass('hke_hlg_statements') IS NOT NULL"

# One build of a collection's tiers at a time (the key is the collection's id as text).
LOCK_COLLECTION = "SELECT pg_advisory_xact_lock(hashtextextended('hke_hlg:' || %s, 0))"

HAS_TIERS = "SELECT EXISTS (SELECT 1 FROM hke_hlg_built WHERE collection_id = %(collection_id)s)"

# -- sync -----------------------------------------------------------------------------------------------------------

# Current element rows not read yet (%(llm)s: or not read with a model yet), with the date their version takes effect.
PENDING = """
SELECT e.element_id, e.since_version, e.valid_from, e.document_id FROM {elements} e
WHERE NOT EXISTS (SELECT 1 FROM hke_hlg_built b WHERE b.collection_id = %(collection_id)s
                    AND b.element_id = e.element_id AND b.element_since = e.since_version
                    AND (b.llm OR NOT %(llm)s))
ORDER BY e.document_id, e."order"
"""

# Statements of element rows a version dropped (now in the history) stop when their element stopped.
CLOSE_RETIRED = """
UPDATE hke_hlg_statements s SET valid_to = h.valid_to
FROM {history} h
WHERE s.collection_id = %(collection_id)s AND s.valid_to IS NULL
  AND h.element_id = s.element_id AND h.since_version = s.element_since
RETURNING s.document_id
"""

# Statements whose element row is in neither table (its document was purged) go, with their links.
DELETE_PURGED = """
DELETE FROM hke_hlg_statements s
WHERE s.collection_id = %(collection_id)s
  AND NOT EXISTS (SELECT 1 FROM {elements} e WHERE e.element_id = s.element_id AND e.since_version = s.element_since)
  AND NOT EXISTS (SELECT 1 FROM {history} h WHERE h.element_id = s.element_id AND h.since_version = s.element_since)
RETURNING s.document_id
"""

# Topics none of whose statements is left (every version's statements of a purged document went).
DELETE_EMPTY_TOPICS = """
DELETE FROM hke_hlg_topics t WHERE t.collection_id = %(collection_id)s
  AND NOT EXISTS (SELECT 1 FROM hke_hlg_statements s WHERE s.collection_id = t.collection_id
                    AND s.document_id = t.document_id AND s.topic = t.topic)
"""

# Marks of element rows no longer current: nothing reads them again.
DELETE_OLD_MARKS = """
DELETE FROM hke_hlg_built b
WHERE b.collection_id = %(collection_id)s
  AND NOT EXISTS (SELECT 1 FROM {elements} e WHERE e.element_id = b.element_id AND e.since_version = b.element_since)
"""

MARK_BUILT = """
INSERT INTO hke_hlg_built (collection_id, element_id, element_since, llm)
SELECT %(collection_id)s, x.id, x.since, x.llm
FROM unnest(%(ids)s::text[], %(since)s::int[], %(llm)s::boolean[]) AS x(id, since, llm)
ON CONFLICT (collection_id, element_id, element_since) DO UPDATE SET llm = hke_hlg_built.llm OR EXCLUDED.llm
"""

# The statements of element rows read again (by a model, after an offline read): replaced, with their links.
DELETE_REREAD = """
DELETE FROM hke_hlg_statements s
USING unnest(%(ids)s::text[], %(since)s::int[]) AS x(id, since)
WHERE s.collection_id = %(collection_id)s AND s.element_id = x.id AND s.element_since = x.since
"""

# Facts and entities nothing refers to any more.
DELETE_UNSUPPORTED_FACTS = """
DELETE FROM hke_hlg_facts f WHERE f.collection_id = %(collection_id)s
  AND NOT EXISTS (SELECT 1 FROM hke_hlg_support p WHERE p.fact_id = f.fact_id)
"""
DELETE_UNMENTIONED_ENTITIES = """
DELETE FROM hke_hlg_entities n WHERE n.collection_id = %(collection_id)s
  AND NOT EXISTS (SELECT 1 FROM hke_hlg_mentions m WHERE m.entity_id = n.entity_id)
"""

# Vectors of statement texts already embedded in this collection, by text hash (the statements' embedding cache).
CACHED_VECTORS = """
SELECT DISTINCT ON (text_sha256) text_sha256, embedding FROM hke_hlg_statements
WHERE collection_id = %(collection_id)s AND text_sha256 = ANY(%(hashes)s)
"""

INSERT_STATEMENTS = """
INSERT INTO hke_hlg_statements (collection_id, document_id, element_id, element_since, ordinal, kind, topic,
                                heading_path, text, text_sha256, embedding, fts, valid_from)
SELECT %(collection_id)s, x.document_id, x.element_id, x.since, x.ordinal, x.kind, x.topic,
       ARRAY(SELECT jsonb_array_elements_text(x.path)), x.text, x.sha, x.embedding::vector,
       to_tsvector('simple', x.fts_text), x.valid_from
FROM unnest(%(document_ids)s::text[], %(element_ids)s::text[], %(since)s::int[], %(ordinals)s::int[],
            %(kinds)s::text[], %(topics)s::text[], %(paths)s::jsonb[], %(texts)s::text[], %(shas)s::text[],
            %(embeddings)s::text[], %(fts_texts)s::text[], %(valid_from)s::timestamptz[])
     AS x(document_id, element_id, since, ordinal, kind, topic, path, text, sha, embedding, fts_text, valid_from)
RETURNING statement_id, element_id, element_since, ordinal
"""

UPSERT_ENTITIES = """
INSERT INTO hke_hlg_entities (collection_id, key, name)
SELECT %(collection_id)s, x.key, x.name FROM unnest(%(keys)s::text[], %(names)s::text[]) AS x(key, name)
ON CONFLICT (collection_id, key) DO NOTHING
"""
ENTITY_IDS = """
SELECT key, entity_id FROM hke_hlg_entities WHERE collection_id = %(collection_id)s AND key = ANY(%(keys)s)
"""

INSERT_MENTIONS = """
INSERT INTO hke_hlg_mentions (statement_id, entity_id, role)
SELECT * FROM unnest(%(statements)s::bigint[], %(entities)s::bigint[], %(roles)s::text[])
ON CONFLICT DO NOTHING
"""

UPSERT_FACTS = """
INSERT INTO hke_hlg_facts (collection_id, key, subject, predicate, object, kind)
SELECT %(collection_id)s, x.* FROM unnest(%(keys)s::text[], %(subjects)s::text[], %(predicates)s::text[],
                                          %(objects)s::text[], %(kinds)s::text[]) AS x(key, s, p, o, k)
ON CONFLICT (collection_id, key) DO NOTHING
"""
FACT_IDS = "SELECT key, fact_id FROM hke_hlg_facts WHERE collection_id = %(collection_id)s AND key = ANY(%(keys)s)"

INSERT_SUPPORT = """
INSERT INTO hke_hlg_support (fact_id, statement_id)
SELECT * FROM unnest(%(facts)s::bigint[], %(statements)s::bigint[])
ON CONFLICT DO NOTHING
"""

# -- reads ----------------------------------------------------------------------------------------------------------

# The statements a read sees: the current ones, or those valid at %(as_of)s.
_LIVE = """(CASE WHEN %(as_of)s::timestamptz IS NULL THEN {s}.valid_to IS NULL
            ELSE {s}.valid_from <= %(as_of)s AND ({s}.valid_to IS NULL OR {s}.valid_to > %(as_of)s) END)"""


def live(alias: str) -> str:
    return _LIVE.format(s=alias)


STATEMENT_COLUMNS = ("statement_id", "document_id", "element_id", "ordinal", "kind", "topic", "heading_path", "text")
# Which of the question's tsquery terms (%(terms)s) each statement's stored lexemes match: the re-rank's lexical
# side, read from the lexemes stored at build time instead of analysing every candidate's text again.
_MATCHED = """ARRAY(SELECT t.ord::int FROM unnest(%(terms)s::text[]) WITH ORDINALITY AS t(q, ord)
                   WHERE s.fts @@ to_tsquery('simple', t.q)) AS matched"""
_COLUMNS = ", ".join(f"s.{c}" for c in STATEMENT_COLUMNS) + ", " + _MATCHED

def _rows_of(inner: str, extra: str = "") -> str:
    """The statement columns (with the question's terms matched) of the rows ``inner`` selects, ordered as it orders
    them: ``inner`` yields ``statement_id``, ``distance``, ``ord`` and whatever ``extra`` reads from it (``x``). The
    columns are computed for the rows kept only, never for every row a search looks at."""
    return f"""
SELECT {_COLUMNS}, x.distance{extra}
FROM ({inner}) x
JOIN hke_hlg_statements s ON s.statement_id = x.statement_id
ORDER BY x.ord, s.statement_id
"""  # noqa: S608 - fixed fragments, no user text


ENTRY_VECTOR = _rows_of(f"""
    SELECT y.statement_id, y.distance, row_number() OVER (ORDER BY y.distance, y.statement_id) AS ord
    FROM (SELECT s.statement_id, s.embedding <=> %(query_vector)s::vector AS distance
          FROM hke_hlg_statements s
          WHERE s.collection_id = %(collection_id)s AND {live("s")}
          ORDER BY distance, s.statement_id
          LIMIT %(k)s) y""")  # noqa: S608 - fixed fragments, no user text

ENTRY_FULLTEXT = _rows_of(f"""
    SELECT y.statement_id, y.embedding <=> %(query_vector)s::vector AS distance, y.rank,
           row_number() OVER (ORDER BY y.rank DESC, y.statement_id) AS ord
    FROM (SELECT s.statement_id, s.embedding, ts_rank(s.fts, to_tsquery('simple', %(query)s)) AS rank
          FROM hke_hlg_statements s
          WHERE s.collection_id = %(collection_id)s AND {live("s")} AND s.fts @@ to_tsquery('simple', %(query)s)
          ORDER BY rank DESC, s.statement_id
          LIMIT %(k)s) y""", ", x.rank")  # noqa: S608 - fixed fragments, no user text

# Statements that name one of the question's entities exactly (by merge key), as their subject or in their text: the
# %(k)s nearest the question of each entity.
ENTRY_ENTITIES = _rows_of(f"""
    SELECT y.statement_id, y.distance, y.key, y.role, row_number() OVER (ORDER BY y.distance, y.statement_id) AS ord
    FROM (SELECT s.statement_id, s.embedding <=> %(query_vector)s::vector AS distance, n.key, m.role,
                 row_number() OVER (PARTITION BY n.entity_id ORDER BY s.embedding <=> %(query_vector)s::vector,
                                                                     s.statement_id) AS place
          FROM hke_hlg_entities n
          JOIN hke_hlg_mentions m ON m.entity_id = n.entity_id AND m.role <> 'path'
          JOIN hke_hlg_statements s ON s.statement_id = m.statement_id
          WHERE n.collection_id = %(collection_id)s AND n.key = ANY(%(keys)s) AND {live("s")}) y
    WHERE y.place <= %(k)s""", ", x.key, x.role")  # noqa: S608 - fixed fragments, no user text

# How many live statements hold each of the question's terms, and how many there are: the terms' weights.
TERM_COUNTS = f"""
SELECT (SELECT count(*) FROM hke_hlg_statements s WHERE s.collection_id = %(collection_id)s AND {live("s")}),
       ARRAY(SELECT (SELECT count(*) FROM hke_hlg_statements s
                     WHERE s.collection_id = %(collection_id)s AND {live("s")}
                       AND s.fts @@ to_tsquery('simple', t.q))
             FROM unnest(%(terms)s::text[]) WITH ORDINALITY AS t(q, ord) ORDER BY t.ord)
"""  # noqa: S608 - fixed fragments, no user text

# An entity is a bridge when at most %(fanout)s statement rows mention it (a word that joins everything joins
# nothing; stop words are never entities at all). Counted over every version's rows through the mentions' entity
# index, which errs on the side of fewer bridges in a collection with history.
_BRIDGE = """(SELECT count(*) FROM hke_hlg_mentions mx WHERE mx.entity_id = {m}.entity_id) <= %(fanout)s"""

# From the entry statements, the statements that share a bridge entity or a fact with them, up to %(hops)s hops.
# UNION keeps each (statement, hop) once, and the hop budget ends the walk however
# the facts cycle. The walk's statements come back best first by their distance to the question, at most %(k)s.
_WALK = f"""
WITH RECURSIVE live_statements AS MATERIALIZED (
    SELECT s.statement_id FROM hke_hlg_statements s WHERE s.collection_id = %(collection_id)s AND {live("s")}
),
walk (statement_id, hop, via) AS (
    SELECT x.id, 0, ''::text FROM unnest(%(entry)s::bigint[]) AS x(id)
  UNION
    SELECT n.statement_id, w.hop + 1, n.via
    FROM walk w
    CROSS JOIN LATERAL (
        SELECT m2.statement_id, e.name AS via
        FROM hke_hlg_mentions m1
        JOIN hke_hlg_entities e ON e.entity_id = m1.entity_id
        JOIN hke_hlg_mentions m2 ON m2.entity_id = m1.entity_id AND m2.statement_id <> m1.statement_id
        WHERE m1.statement_id = w.statement_id AND {_BRIDGE.format(m="m1")}
      UNION
        SELECT p2.statement_id, f.predicate AS via
        FROM hke_hlg_support p1
        JOIN hke_hlg_facts f ON f.fact_id = p1.fact_id AND f.kind <> 'co-mention'
        JOIN hke_hlg_support p2 ON p2.fact_id = p1.fact_id AND p2.statement_id <> p1.statement_id
        WHERE p1.statement_id = w.statement_id
    ) n
    JOIN live_statements l ON l.statement_id = n.statement_id
    WHERE w.hop < %(hops)s
),
reached AS (
    SELECT DISTINCT ON (statement_id) statement_id, hop, via FROM walk ORDER BY statement_id, hop, via
)
SELECT y.*, row_number() OVER (ORDER BY y.distance, y.statement_id) AS ord
FROM (SELECT r.statement_id, s.embedding <=> %(query_vector)s::vector AS distance, r.hop, r.via
      FROM reached r JOIN hke_hlg_statements s ON s.statement_id = r.statement_id
      WHERE r.hop > 0
      ORDER BY distance, r.statement_id
      LIMIT %(k)s) y"""  # noqa: S608 - fixed fragments, no user text
EXPAND = _rows_of(_WALK, ", x.hop, x.via")

# The bridge entities each of %(ids)s mentions, with the statement rows that mention them (for the re-rank: which
# statements a chain may join).
BRIDGE_ENTITIES = f"""
SELECT m.statement_id, m.entity_id, (SELECT count(*) FROM hke_hlg_mentions mx WHERE mx.entity_id = m.entity_id)
FROM hke_hlg_mentions m
WHERE m.statement_id = ANY(%(ids)s) AND {_BRIDGE.format(m="m")}
"""  # noqa: S608 - fixed fragments, no user text

ENTITY_NAMES = "SELECT entity_id, key, name FROM hke_hlg_entities WHERE entity_id = ANY(%(ids)s)"

# The facts of an entity (the Reports page's table), by its merge key, with the statements that state them.
ENTITY_FACTS = f"""
SELECT f.subject, f.predicate, f.object, f.kind, count(*) AS support,
       min(s.document_id) AS document_id, min(s.element_id) AS element_id
FROM hke_hlg_entities n
JOIN hke_hlg_facts f ON f.collection_id = n.collection_id
JOIN hke_hlg_support p ON p.fact_id = f.fact_id
JOIN hke_hlg_statements s ON s.statement_id = p.statement_id
WHERE n.collection_id = %(collection_id)s AND n.key = %(key)s AND {live("s")}
  AND (f.key LIKE n.key || chr(31) || '%%') AND f.kind <> 'co-mention'
GROUP BY f.fact_id, f.subject, f.predicate, f.object, f.kind
ORDER BY f.predicate, f.object
"""  # noqa: S608 - fixed fragments, no user text

# The elements stating one key ("USB-C : X" under each product's sheet): the facts whose predicate is the key, a
# list question's "the monitors with USB-C" read from every thing that states it, not from the hits a search ranks.
PREDICATE_ELEMENTS = f"""
SELECT DISTINCT s.element_id
FROM hke_hlg_facts f
JOIN hke_hlg_support p ON p.fact_id = f.fact_id
JOIN hke_hlg_statements s ON s.statement_id = p.statement_id
WHERE f.collection_id = %(collection_id)s AND lower(f.predicate) = lower(%(predicate)s)
  AND f.kind <> 'co-mention' AND {live("s")}
ORDER BY s.element_id
LIMIT %(limit)s
"""  # noqa: S608 - fixed fragments, no user text

COUNTS = f"""
SELECT
  (SELECT count(*) FROM hke_hlg_statements s WHERE s.collection_id = %(collection_id)s AND {live("s")}),
  (SELECT count(*) FROM hke_hlg_statements s WHERE s.collection_id = %(collection_id)s),
  (SELECT count(*) FROM hke_hlg_facts WHERE collection_id = %(collection_id)s),
  (SELECT count(*) FROM hke_hlg_entities WHERE collection_id = %(collection_id)s),
  (SELECT count(*) FROM hke_hlg_topics t WHERE t.collection_id = %(collection_id)s AND {live("t")})
"""  # noqa: S608 - fixed fragments, no user text

# Bytes of the tiers (rows as stored, with their index entries' share left out) against the element rows.
STORAGE = """
SELECT
  (SELECT coalesce(sum(pg_column_size(s.*)), 0) FROM hke_hlg_statements s WHERE s.collection_id = %(collection_id)s),
  (SELECT coalesce(sum(pg_column_size(m.*)), 0) FROM hke_hlg_mentions m
     JOIN hke_hlg_statements s ON s.statement_id = m.statement_id WHERE s.collection_id = %(collection_id)s),
  (SELECT coalesce(sum(pg_column_size(p.*)), 0) FROM hke_hlg_support p
     JOIN hke_hlg_statements s ON s.statement_id = p.statement_id WHERE s.collection_id = %(collection_id)s),
  (SELECT coalesce(sum(pg_column_size(f.*)), 0) FROM hke_hlg_facts f WHERE f.collection_id = %(collection_id)s),
  (SELECT coalesce(sum(pg_column_size(n.*)), 0) FROM hke_hlg_entities n WHERE n.collection_id = %(collection_id)s),
  (SELECT coalesce(sum(pg_column_size(t.*)), 0) FROM hke_hlg_topics t WHERE t.collection_id = %(collection_id)s),
  (SELECT coalesce(sum(pg_column_size(e.*)), 0) FROM {elements} e)
    + (SELECT coalesce(sum(pg_column_size(h.*)), 0) FROM {history} h)
"""

# -- topics ---------------------------------------------------------------------------------------------------------

# Documents with current statements but a section without a current topic (a first build; tiers built before topics).
TOPICLESS_DOCUMENTS = """
SELECT DISTINCT s.document_id FROM hke_hlg_statements s
WHERE s.collection_id = %(collection_id)s AND s.valid_to IS NULL
  AND NOT EXISTS (SELECT 1 FROM hke_hlg_topics t WHERE t.collection_id = s.collection_id AND t.valid_to IS NULL
                    AND t.document_id = s.document_id AND t.topic = s.topic)
ORDER BY s.document_id
"""

# Documents with a current topic no model named (read offline, by an ingest or a build without a model).
UNNAMED_DOCUMENTS = """
SELECT DISTINCT document_id FROM hke_hlg_topics
WHERE collection_id = %(collection_id)s AND valid_to IS NULL AND text_sha256 = section_sha256
ORDER BY document_id
"""

# The current statements of %(documents)s, section by section in document order, with the last time each section
# changed (a statement began or stopped): the date a new topic row takes effect.
SECTION_STATEMENTS = """
SELECT s.document_id, s.topic, s.heading_path, s.text,
       (SELECT max(greatest(x.valid_from, coalesce(x.valid_to, x.valid_from))) FROM hke_hlg_statements x
        WHERE x.collection_id = s.collection_id AND x.document_id = s.document_id AND x.topic = s.topic) AS changed
FROM hke_hlg_statements s
JOIN {elements} e ON e.element_id = s.element_id AND e.since_version = s.element_since
WHERE s.collection_id = %(collection_id)s AND s.valid_to IS NULL AND s.document_id = ANY(%(documents)s)
ORDER BY s.document_id, s.topic, e."order", s.ordinal
"""

LIVE_TOPICS = """
SELECT topic_id, document_id, topic, section_sha256, text_sha256 <> section_sha256 AS named FROM hke_hlg_topics
WHERE collection_id = %(collection_id)s AND valid_to IS NULL AND document_id = ANY(%(documents)s)
"""

# Current topics of %(documents)s whose statements all stopped: they stop when the last of them did.
CLOSE_VANISHED_TOPICS = """
UPDATE hke_hlg_topics t
SET valid_to = greatest(t.valid_from, (SELECT max(s.valid_to) FROM hke_hlg_statements s
                                       WHERE s.collection_id = t.collection_id AND s.document_id = t.document_id
                                         AND s.topic = t.topic))
WHERE t.collection_id = %(collection_id)s AND t.valid_to IS NULL AND t.document_id = ANY(%(documents)s)
  AND NOT EXISTS (SELECT 1 FROM hke_hlg_statements s WHERE s.collection_id = t.collection_id AND s.valid_to IS NULL
                    AND s.document_id = t.document_id AND s.topic = t.topic)
"""

CLOSE_TOPICS = """
UPDATE hke_hlg_topics t SET valid_to = greatest(t.valid_from, x.until)
FROM unnest(%(ids)s::bigint[], %(until)s::timestamptz[]) AS x(id, until)
WHERE t.topic_id = x.id
"""

CACHED_TOPIC_VECTORS = """
SELECT DISTINCT ON (text_sha256) text_sha256, embedding FROM hke_hlg_topics
WHERE collection_id = %(collection_id)s AND text_sha256 = ANY(%(hashes)s)
"""

INSERT_TOPICS = """
INSERT INTO hke_hlg_topics (collection_id, document_id, topic, heading_path, text, text_sha256, section_sha256,
                            embedding, fts, statements, valid_from)
SELECT %(collection_id)s, x.document_id, x.topic, ARRAY(SELECT jsonb_array_elements_text(x.path)), x.text, x.sha,
       x.section_sha, x.embedding::vector, to_tsvector('simple', x.text), x.statements, x.valid_from
FROM unnest(%(document_ids)s::text[], %(topics)s::text[], %(paths)s::jsonb[], %(texts)s::text[], %(shas)s::text[],
            %(section_shas)s::text[], %(embeddings)s::text[], %(statements)s::int[], %(valid_from)s::timestamptz[])
     AS x(document_id, topic, path, text, sha, section_sha, embedding, statements, valid_from)
"""

_TOPIC_MATCHED = """ARRAY(SELECT q.ord::int FROM unnest(%(terms)s::text[]) WITH ORDINALITY AS q(q, ord)
                         WHERE t.fts @@ to_tsquery('simple', q.q)) AS matched"""

# The %(k)s topics nearest the question, and the %(k)s best matching its terms (tsquery %(query)s, may be empty).
TOPIC_ENTRY = f"""
SELECT t.topic_id, t.document_id, t.topic, t.heading_path, t.embedding <=> %(query_vector)s::vector AS distance,
       {_TOPIC_MATCHED}
FROM hke_hlg_topics t
WHERE t.topic_id IN (
    (SELECT t.topic_id FROM hke_hlg_topics t WHERE t.collection_id = %(collection_id)s AND {live("t")}
     ORDER BY t.embedding <=> %(query_vector)s::vector, t.topic_id LIMIT %(k)s)
  UNION
    (SELECT t.topic_id FROM hke_hlg_topics t
     WHERE %(query)s <> '' AND t.collection_id = %(collection_id)s AND {live("t")}
       AND t.fts @@ to_tsquery('simple', %(query)s)
     ORDER BY ts_rank(t.fts, to_tsquery('simple', %(query)s)) DESC, t.topic_id LIMIT %(k)s))
ORDER BY distance, t.topic_id
"""  # noqa: S608 - fixed fragments, no user text

# The topics linked to %(ids)s: a current statement of each mentions a bridge entity (as the statement expansion's
# bridges: at most %(fanout)s statement rows mention it) that a current statement of one of %(ids)s mentions. Each
# with the entities shared and the most specific one (the fewest mentions) it was reached through.
TOPIC_NEIGHBOURS = f"""
WITH shared AS (
    SELECT DISTINCT t2.topic_id, m1.entity_id,
           (SELECT count(*) FROM hke_hlg_mentions mx WHERE mx.entity_id = m1.entity_id) AS mentions
    FROM hke_hlg_topics t1
    JOIN hke_hlg_statements s1 ON s1.collection_id = t1.collection_id AND s1.document_id = t1.document_id
                               AND s1.topic = t1.topic AND {live("s1")}
    JOIN hke_hlg_mentions m1 ON m1.statement_id = s1.statement_id AND {_BRIDGE.format(m="m1")}
    JOIN hke_hlg_mentions m2 ON m2.entity_id = m1.entity_id AND m2.statement_id <> m1.statement_id
    JOIN hke_hlg_statements s2 ON s2.statement_id = m2.statement_id AND {live("s2")}
    JOIN hke_hlg_topics t2 ON t2.collection_id = s2.collection_id AND t2.document_id = s2.document_id
                           AND t2.topic = s2.topic AND {live("t2")}
    WHERE t1.topic_id = ANY(%(ids)s) AND NOT t2.topic_id = ANY(%(ids)s)
)
SELECT t.topic_id, t.document_id, t.topic, t.heading_path, t.embedding <=> %(query_vector)s::vector AS distance,
       {_TOPIC_MATCHED}, x.shared,
       (SELECT e.name FROM shared y JOIN hke_hlg_entities e ON e.entity_id = y.entity_id
        WHERE y.topic_id = t.topic_id ORDER BY y.mentions, e.key LIMIT 1) AS via,
       x.fewest
FROM (SELECT topic_id, count(*) AS shared, min(mentions) AS fewest FROM shared GROUP BY topic_id) x
JOIN hke_hlg_topics t ON t.topic_id = x.topic_id
ORDER BY distance, t.topic_id
"""  # noqa: S608 - fixed fragments, no user text

# The current statements of the topics %(ids)s, each with its topic and its distance to the question.
TOPIC_STATEMENTS = f"""
SELECT {_COLUMNS}, s.embedding <=> %(query_vector)s::vector AS distance, t.topic_id
FROM hke_hlg_topics t
JOIN hke_hlg_statements s ON s.collection_id = t.collection_id AND s.document_id = t.document_id
                          AND s.topic = t.topic AND {live("s")}
WHERE t.topic_id = ANY(%(ids)s)
ORDER BY t.topic_id, distance, s.statement_id
"""  # noqa: S608 - fixed fragments, no user text

# The current (or as-of) topics with their texts, in document order of their sections.
TOPIC_TEXTS = f"""
SELECT t.topic_id, t.document_id, t.topic, t.heading_path, t.text, t.statements FROM hke_hlg_topics t
WHERE t.collection_id = %(collection_id)s AND {live("t")}
ORDER BY t.document_id, t.heading_path, t.topic_id
"""  # noqa: S608 - fixed fragments, no user text
