"""SQL of document versions: every ingest of a changed document is a version, and elements are shared by versions.

* ``hke_document_versions``: one row per (collection, document, version) with its validity (``valid_from`` to
  ``valid_to``, the next version's ``valid_from`` or the retirement), where the date came from, ``recorded_at``
  (the ingest time), the content hash, the counts of each kind of change, and its *layout*: the ids of its
  elements in document order with their source lines, and the content hashes of its source blocks. The layout is
  what lets an element row serve every version it is unchanged in while its place in the document moves.
* An element row lives in its collection's table (``{elements}``) while it is current, with the version it
  appeared in (``since_version``), the date that version takes effect (``valid_from``) and its stable key
  (``element_key``, Akoma Ntoso's wId); when a version drops it (or the document is retired) the row moves to
  ``{history}`` with the version it stopped in (``until_version``) and the date it stopped (``valid_to``). The
  dates are the versions' own (a document's versions are kept in date order), so a row is in the version valid at
  D exactly when ``valid_from <= D < valid_to``: a read as of D filters rows by their dates and never joins them
  to their versions.
  Each element version is stored once: current-mode reads never look at the history, and an unchanged element is
  neither copied nor embedded again.
* ``hke_source_blocks``: the source bytes of every version, split into blocks (a blank line ends one), keyed by
  their hash and shared by versions; ``core show`` joins a version's blocks back into the file, byte for byte.

Reads "as of" a date bind ``{elements}`` to :data:`AS_OF_ELEMENTS` instead of the table (``core.store.reader``):
the rows of each document's version valid at ``%(as_of)s``. A row's stored order and lines are those of the latest
version it is in; the reader puts the rows a read returns in their place in the version valid then, from that
version's layout (:data:`LAYOUTS`), and the one statement that orders rows inside SQL (picking a heading's first
children) orders them with :data:`ORDER_AT`.
"""

from __future__ import annotations

# core.sql.elements' stored lexemes column (that module builds its schema from this one's, so it is named here).
FTS_COLUMN = "fts"

CREATE_SCHEMA = [
    """
    CREATE TABLE IF NOT EXISTS hke_document_versions (
        collection_id     uuid NOT NULL REFERENCES hke_collections (id) ON DELETE CASCADE,
        document_id       text NOT NULL,
        version           integer NOT NULL,
        valid_from        timestamptz NOT NULL,
        valid_to          timestamptz,
        valid_from_source text NOT NULL,
        date_only         boolean NOT NULL DEFAULT false,
        recorded_at       timestamptz NOT NULL DEFAULT now(),
        retired_at        timestamptz,
        content_hash      text NOT NULL,
        source            text NOT NULL,
        filename          text NOT NULL,
        title             text,
        n_elements        integer NOT NULL,
        n_bytes           integer NOT NULL,
        added             integer NOT NULL DEFAULT 0,
        removed           integer NOT NULL DEFAULT 0,
        modified          integer NOT NULL DEFAULT 0,
        moved             integer NOT NULL DEFAULT 0,
        renamed           integer NOT NULL DEFAULT 0,
        element_ids       text[] NOT NULL,
        start_lines       integer[] NOT NULL,
        end_lines         integer[] NOT NULL,
        blocks            text[],
        label             text,
        moved_from        text,
        moved_to          text,
        PRIMARY KEY (collection_id, document_id, version)
    )
    """,
    # A collection made before labels and moves gets their columns (opening it, or ``migrate``).
    """
    ALTER TABLE hke_document_versions ADD COLUMN IF NOT EXISTS label text,
        ADD COLUMN IF NOT EXISTS moved_from text, ADD COLUMN IF NOT EXISTS moved_to text
    """,
    """
    CREATE TABLE IF NOT EXISTS hke_source_blocks (
        collection_id uuid NOT NULL REFERENCES hke_collections (id) ON DELETE CASCADE,
        block_hash    text NOT NULL,
        data          bytea NOT NULL,
        PRIMARY KEY (collection_id, block_hash)
    )
    """,
    # An element's place in a version's layout (ELEMENTS_OF_VERSION). Each call reads the whole layout array out of
    # its TOAST storage, so reads as of a date never call it per row: the reader places the rows a read returns.
    """
    CREATE OR REPLACE FUNCTION hke_layout_place(element_ids text[], element_id text) RETURNS integer
    LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE COST 1000
    AS $$ BEGIN RETURN array_position(element_ids, element_id) - 1; END $$
    """,
    # An element's place in its document's version valid at a date (NULL if it is not in that version).
    """
    CREATE OR REPLACE FUNCTION hke_order_at(collection uuid, document text, element text, at timestamptz)
    RETURNS integer LANGUAGE sql STABLE PARALLEL SAFE
    AS $$ SELECT array_position(v.element_ids, element) - 1 FROM hke_document_versions v
          WHERE v.collection_id = collection AND v.document_id = document AND v.valid_from <= at
            AND (v.valid_to IS NULL OR v.valid_to > at) $$
    """,
]

SCHEMA_READY = (
    "to_regclass('hke_document_versions') IS NOT NULL AND to_regclass('hke_source_blocks') IS NOT NULL "
    "AND to_regprocedure('hke_layout_place(text[],text)') IS NOT NULL "
    "AND to_regprocedure('hke_order_at(uuid,text,text,timestamptz)') IS NOT NULL "
    "AND EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = to_regclass('hke_document_versions') "
    "AND attname = 'moved_to' AND NOT attisdropped)"
)

# -- an element table's history ---------------------------------------------------------------------

ADD_VERSION_COLUMNS = [
    "ALTER TABLE {elements} ADD COLUMN IF NOT EXISTS since_version integer NOT NULL DEFAULT 1",
    "ALTER TABLE {elements} ADD COLUMN IF NOT EXISTS element_key text",
    "ALTER TABLE {elements} ADD COLUMN IF NOT EXISTS valid_from timestamptz",
]

# A history made before the rows carried their dates gets them (CREATE_HISTORY makes a new one with both).
ADD_HISTORY_DATES = [
    "ALTER TABLE {history} ADD COLUMN IF NOT EXISTS valid_from timestamptz",
    "ALTER TABLE {history} ADD COLUMN IF NOT EXISTS valid_to timestamptz",
]

VERSION_COLUMNS_MISSING = (
    "SELECT to_regclass({history_name}) IS NULL OR to_regclass({history_children_name}) IS NULL "
    "OR NOT EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = to_regclass({history_name}) "
    "AND attname = 'valid_to' AND NOT attisdropped)"
)

# The dates of rows written before rows carried them, from their versions: a row takes effect with the version it
# appeared in and stops when the version before the one it stopped in ends (the next version, or the retirement).
FILL_ROW_DATES = [
    """
    UPDATE {elements} e SET valid_from = v.valid_from
    FROM hke_document_versions v
    WHERE e.valid_from IS NULL AND v.collection_id = %(collection_id)s AND v.document_id = e.document_id
      AND v.version = e.since_version
    """,
    """
    UPDATE {history} h SET valid_from = f.valid_from, valid_to = l.valid_to
    FROM hke_document_versions f, hke_document_versions l
    WHERE h.valid_to IS NULL AND f.collection_id = %(collection_id)s AND f.document_id = h.document_id
      AND f.version = h.since_version AND l.collection_id = %(collection_id)s AND l.document_id = h.document_id
      AND l.version = h.until_version - 1
    """,
]

# The history has the element table's columns (the stored lexemes included) and the version a row stopped in.
CREATE_HISTORY = [
    """
    CREATE TABLE IF NOT EXISTS {history} (
        LIKE {elements} INCLUDING DEFAULTS INCLUDING GENERATED,
        until_version integer NOT NULL,
        valid_to      timestamptz,
        PRIMARY KEY (element_id, since_version)
    )
    """,
    "CREATE INDEX IF NOT EXISTS {history_doc} ON {history} (document_id, since_version, until_version)",
    # The walk down a subtree as of a date joins each level's children by parent in both tables.
    "CREATE INDEX IF NOT EXISTS {history_children} ON {history} (document_id, parent_id)",
    f"CREATE INDEX IF NOT EXISTS {{history_fts}} ON {{history}} USING gin ({FTS_COLUMN})",
]

# Every column but the generated lexemes, which follow the row's content and heading path by themselves.
_STORED = ("element_id", "content", "embedding", "parent_id", "document_id", "category", "category_depth", '"order"',
           "heading_path", "embedded_text_sha256", "metadata", "element_key", "since_version", "valid_from")
_STORED_COLUMNS = ", ".join(_STORED)

# A version drops the elements in %(ids)s: they move to the history, stopping at %(version)s on %(valid_to)s.
RETIRE_ELEMENTS = f"""
WITH gone AS (
    DELETE FROM {{elements}} WHERE document_id = %(document_id)s AND element_id = ANY(%(ids)s)
    RETURNING {_STORED_COLUMNS}
)
INSERT INTO {{history}} ({_STORED_COLUMNS}, until_version, valid_to)
SELECT {_STORED_COLUMNS}, %(version)s, %(valid_to)s FROM gone
"""  # noqa: S608 - fixed fragments, no user text

RETIRE_DOCUMENT = f"""
WITH gone AS (
    DELETE FROM {{elements}} WHERE document_id = %(document_id)s
    RETURNING {_STORED_COLUMNS}
)
INSERT INTO {{history}} ({_STORED_COLUMNS}, until_version, valid_to)
SELECT {_STORED_COLUMNS}, %(version)s, %(valid_to)s FROM gone
"""  # noqa: S608 - fixed fragments, no user text

# An element a version keeps may have moved in the document: its order and lines follow the current version.
UPDATE_KEPT = """
UPDATE {elements} e SET "order" = k.ord, metadata = e.metadata || k.lines
FROM unnest(%(ids)s::text[], %(orders)s::int[], %(lines)s::jsonb[]) AS k(element_id, ord, lines)
WHERE e.element_id = k.element_id AND e.document_id = %(document_id)s
  AND (e."order" <> k.ord OR NOT e.metadata @> k.lines)
"""


PURGE_HISTORY = "DELETE FROM {history} WHERE document_id = %(document_id)s"

# -- versions ---------------------------------------------------------------------------------------

_VERSION_FIELDS = """document_id, version, valid_from, valid_to, valid_from_source, date_only, recorded_at,
       retired_at, content_hash, source, filename, title, n_elements, n_bytes, added, removed, modified, moved,
       renamed, label, moved_from, moved_to"""

LAST_VERSION = f"""
SELECT {_VERSION_FIELDS}
FROM hke_document_versions
WHERE collection_id = %(collection_id)s AND document_id = %(document_id)s
ORDER BY version DESC
LIMIT 1
"""  # noqa: S608 - fixed fragments, no user text

VERSIONS_OF_DOCUMENT = f"""
SELECT {_VERSION_FIELDS}
FROM hke_document_versions
WHERE collection_id = %(collection_id)s AND document_id = %(document_id)s
ORDER BY version
"""  # noqa: S608 - fixed fragments, no user text

# Each document's version valid at %(as_of)s (none for a document that did not exist then, or was retired).
VERSIONS_AT = f"""
SELECT {_VERSION_FIELDS}
FROM hke_document_versions
WHERE collection_id = %(collection_id)s AND valid_from <= %(as_of)s AND (valid_to IS NULL OR valid_to > %(as_of)s)
ORDER BY document_id
"""  # noqa: S608 - fixed fragments, no user text

# The version of each of %(document_ids)s that a read sees: the one valid at %(as_of)s, or (NULL) the latest.
VERSIONS_READ = f"""
SELECT DISTINCT ON (document_id) {_VERSION_FIELDS}
FROM hke_document_versions
WHERE collection_id = %(collection_id)s AND document_id = ANY(%(document_ids)s)
  AND (%(as_of)s::timestamptz IS NULL
       OR (valid_from <= %(as_of)s::timestamptz AND (valid_to IS NULL OR valid_to > %(as_of)s::timestamptz)))
ORDER BY document_id, version DESC
"""  # noqa: S608 - fixed fragments, no user text

FIRST_VALID_FROM = "SELECT min(valid_from) FROM hke_document_versions WHERE collection_id = %(collection_id)s"

# The versions recorded in a collection, of every document, newest validity last (``core changes``): each
# document's first version only when it is the continuation of a moved one.
VERSIONS_SINCE = f"""
SELECT {_VERSION_FIELDS}
FROM hke_document_versions
WHERE collection_id = %(collection_id)s AND valid_from > %(since)s AND (version > 1 OR moved_from IS NOT NULL)
ORDER BY valid_from, document_id, version
"""  # noqa: S608 - fixed fragments, no user text

HAS_HISTORY = """
SELECT EXISTS (SELECT 1 FROM hke_document_versions WHERE collection_id = %(collection_id)s AND version > 1)
"""

# The documents retired in a window: their last version, with its retirement date.
RETIRED_SINCE = f"""
SELECT {_VERSION_FIELDS}
FROM hke_document_versions
WHERE collection_id = %(collection_id)s AND retired_at > %(since)s
ORDER BY retired_at, document_id
"""  # noqa: S608 - fixed fragments, no user text

# Documents that ever had a version, current or retired (history and diff of a removed document still work).
DOCUMENTS_WITH_VERSIONS = """
SELECT DISTINCT ON (document_id) document_id, source, filename, retired_at IS NOT NULL AS retired
FROM hke_document_versions
WHERE collection_id = %(collection_id)s
ORDER BY document_id, version DESC
"""

LAYOUT = """
SELECT element_ids, start_lines, end_lines, blocks
FROM hke_document_versions
WHERE collection_id = %(collection_id)s AND document_id = %(document_id)s AND version = %(version)s
"""

# The layouts of several (document, version) pairs at once.
LAYOUTS = """
SELECT v.document_id, v.version, v.element_ids, v.start_lines, v.end_lines
FROM hke_document_versions v
JOIN unnest(%(document_ids)s::text[], %(versions)s::int[]) AS w(document_id, version)
  ON v.document_id = w.document_id AND v.version = w.version
WHERE v.collection_id = %(collection_id)s
"""

INSERT_VERSION = """
INSERT INTO hke_document_versions (collection_id, document_id, version, valid_from, valid_from_source, date_only,
    content_hash, source, filename, title, n_elements, n_bytes, added, removed, modified, moved, renamed,
    element_ids, start_lines, end_lines, blocks, label, moved_from)
VALUES (%(collection_id)s, %(document_id)s, %(version)s, %(valid_from)s, %(valid_from_source)s, %(date_only)s,
    %(content_hash)s, %(source)s, %(filename)s, %(title)s, %(n_elements)s, %(n_bytes)s, %(added)s, %(removed)s,
    %(modified)s, %(moved)s, %(renamed)s, %(element_ids)s, %(start_lines)s, %(end_lines)s, %(blocks)s, %(label)s,
    %(moved_from)s)
"""

# The version before a new one ends where the new one starts.
CLOSE_VERSION = """
UPDATE hke_document_versions SET valid_to = %(valid_to)s
WHERE collection_id = %(collection_id)s AND document_id = %(document_id)s AND version = %(version)s
"""

# ``moved_to``: the document that continues this one (a move or rename found in a snapshot), else NULL.
RETIRE_VERSION = """
UPDATE hke_document_versions SET valid_to = greatest(valid_from, %(retired_at)s), retired_at = %(retired_at)s,
    moved_to = %(moved_to)s
WHERE collection_id = %(collection_id)s AND document_id = %(document_id)s AND version = %(version)s
"""

DELETE_VERSIONS = """
DELETE FROM hke_document_versions WHERE collection_id = %(collection_id)s AND document_id = %(document_id)s
"""

# A document stored before versions existed gets its version 1 from what is stored (no source blocks kept).
BACKFILL = """
INSERT INTO hke_document_versions (collection_id, document_id, version, valid_from, valid_from_source,
    recorded_at, content_hash, source, filename, title, n_elements, n_bytes, element_ids, start_lines, end_lines)
SELECT d.collection_id, d.document_id, 1, d.ingested_at, 'ingest', d.ingested_at, d.content_hash, d.source,
       d.filename, d.title, d.n_elements, d.n_bytes,
       ARRAY(SELECT e.element_id FROM {elements} e WHERE e.document_id = d.document_id ORDER BY e."order"),
       ARRAY(SELECT coalesce((e.metadata->>'start_line')::int, 0) FROM {elements} e
             WHERE e.document_id = d.document_id ORDER BY e."order"),
       ARRAY(SELECT coalesce((e.metadata->>'end_line')::int, 0) FROM {elements} e
             WHERE e.document_id = d.document_id ORDER BY e."order")
FROM hke_documents d
WHERE d.collection_id = %(collection_id)s
  AND NOT EXISTS (SELECT 1 FROM hke_document_versions v
                  WHERE v.collection_id = d.collection_id AND v.document_id = d.document_id)
"""

NEEDS_BACKFILL = """
SELECT EXISTS (SELECT 1 FROM hke_documents d WHERE d.collection_id = %(collection_id)s
               AND NOT EXISTS (SELECT 1 FROM hke_document_versions v
                               WHERE v.collection_id = d.collection_id AND v.document_id = d.document_id))
"""

# -- source blocks ----------------------------------------------------------------------------------

INSERT_BLOCKS = """
INSERT INTO hke_source_blocks (collection_id, block_hash, data)
SELECT %(collection_id)s, b.block_hash, b.data
FROM unnest(%(hashes)s::text[], %(data)s::bytea[]) AS b(block_hash, data)
ON CONFLICT DO NOTHING
"""

BLOCKS = """
SELECT block_hash, data FROM hke_source_blocks WHERE collection_id = %(collection_id)s AND block_hash = ANY(%(hashes)s)
"""

# Blocks no version holds any more (after a purge).
DELETE_UNUSED_BLOCKS = """
DELETE FROM hke_source_blocks b
WHERE b.collection_id = %(collection_id)s
  AND NOT EXISTS (SELECT 1 FROM hke_document_versions v
                  WHERE v.collection_id = b.collection_id AND b.block_hash = ANY(v.blocks))
"""

# -- reads as of a date -----------------------------------------------------------------------------

# What ``{elements}`` is bound to in a read as of %(as_of)s (core.store.reader): the current rows and the history,
# each row kept when its dates hold %(as_of)s. The filter sits outside the UNION ALL on purpose: the planner flattens
# a UNION ALL of plain selects into one scan of both tables (an "append relation") only when its branches have no
# WHERE of their own, and only then do walks and scope predicates reach each table's indexes.
AS_OF_ELEMENTS = f"""(
    SELECT {", ".join("x." + c for c in _STORED)}, x.{FTS_COLUMN}
    FROM (SELECT {_STORED_COLUMNS}, {FTS_COLUMN}, NULL::timestamptz AS valid_to FROM {{elements}}
          UNION ALL
          SELECT {_STORED_COLUMNS}, {FTS_COLUMN}, valid_to FROM {{history}}) x
    WHERE x.valid_from <= %(as_of)s AND (x.valid_to IS NULL OR x.valid_to > %(as_of)s)
)"""  # noqa: S608 - fixed fragments, no user text

# ``{order_at}`` in a read as of a date: a row's place in its document's version valid then (its stored "order" is
# that of the latest version it is in).
ORDER_AT = "hke_order_at(%(as_of_collection)s, document_id, element_id, %(as_of)s)"

# The elements of one version of one document, with that version's order and lines (``core show``, diffs).
ELEMENTS_OF_VERSION = f"""
SELECT x.element_id, x.content, x.parent_id, x.document_id, x.category, x.category_depth,
       hke_layout_place(v.element_ids, x.element_id) AS "order", x.heading_path, x.embedded_text_sha256,
       x.metadata || jsonb_build_object(
           'start_line', v.start_lines[hke_layout_place(v.element_ids, x.element_id) + 1],
           'end_line', v.end_lines[hke_layout_place(v.element_ids, x.element_id) + 1]) AS metadata,
       x.element_key, x.since_version
FROM (SELECT {_STORED_COLUMNS}, NULL::int AS until_version FROM {{elements}} WHERE document_id = %(document_id)s
      UNION ALL
      SELECT {_STORED_COLUMNS}, until_version FROM {{history}} WHERE document_id = %(document_id)s) x
JOIN hke_document_versions v
  ON v.collection_id = %(collection_id)s AND v.document_id = x.document_id AND v.version = %(version)s
WHERE x.since_version <= v.version AND (x.until_version IS NULL OR x.until_version > v.version)
ORDER BY 7
"""  # noqa: S608 - fixed fragments, no user text


# -- invariants -------------------------------------------------------------------------------------

# Rows that no version accounts for: each count must be 0 after any ingest, retire or purge.
ORPHANS = """
SELECT
  (SELECT count(*) FROM {history} h WHERE NOT EXISTS (
       SELECT 1 FROM hke_document_versions v WHERE v.collection_id = %(collection_id)s
         AND v.document_id = h.document_id AND v.version = h.since_version)) AS history_without_version,
  (SELECT count(*) FROM {elements} e WHERE NOT EXISTS (
       SELECT 1 FROM hke_documents d WHERE d.collection_id = %(collection_id)s
         AND d.document_id = e.document_id)) AS elements_without_document,
  (SELECT count(*) FROM hke_documents d WHERE d.collection_id = %(collection_id)s AND NOT EXISTS (
       SELECT 1 FROM hke_document_versions v WHERE v.collection_id = d.collection_id
         AND v.document_id = d.document_id AND v.valid_to IS NULL AND v.retired_at IS NULL))
       AS documents_without_current_version,
  (SELECT count(*) FROM hke_document_versions v WHERE v.collection_id = %(collection_id)s
       AND v.blocks IS NOT NULL AND EXISTS (
       SELECT 1 FROM unnest(v.blocks) AS b(h) WHERE NOT EXISTS (
           SELECT 1 FROM hke_source_blocks s WHERE s.collection_id = v.collection_id AND s.block_hash = b.h)))
       AS versions_missing_blocks,
  (SELECT count(*) FROM hke_source_blocks s WHERE s.collection_id = %(collection_id)s AND NOT EXISTS (
       SELECT 1 FROM hke_document_versions v WHERE v.collection_id = s.collection_id
         AND s.block_hash = ANY(v.blocks))) AS unused_blocks,
  (SELECT count(*) FROM {elements} e WHERE e.valid_from IS NULL)
    + (SELECT count(*) FROM {history} h WHERE h.valid_from IS NULL OR h.valid_to IS NULL) AS rows_without_dates
"""

# Bytes a document's versions take: its element rows (current and history) and its source blocks.
STORAGE = """
SELECT
  (SELECT coalesce(sum(pg_column_size(e.*)), 0) FROM {elements} e WHERE e.document_id = %(document_id)s),
  (SELECT coalesce(sum(pg_column_size(h.*)), 0) FROM {history} h WHERE h.document_id = %(document_id)s),
  (SELECT coalesce(sum(pg_column_size(v.*)), 0) FROM hke_document_versions v
   WHERE v.collection_id = %(collection_id)s AND v.document_id = %(document_id)s),
  (SELECT coalesce(sum(length(s.data)), 0) FROM hke_source_blocks s WHERE s.collection_id = %(collection_id)s)
"""
