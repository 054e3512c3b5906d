"""SQL of the stored heading index: every heading of a collection with its matchable words, kept per document.

Matching a question against the headings (``core.retrieval.headings``) needs each heading's words, which come from
the Korean/English normaliser (``core.textnorm``) in Python. They are computed when a document is written and kept
in ``hke_headings``, so no question ever tokenises the collection's headings, and a process that has the index in
memory brings it up to date by reading only the documents that changed since:

* ``hke_headings``: one row per heading (element id, position, text, ancestors' texts, file name, words), found
  by collection and document; a document's rows are replaced in the transaction that replaces it.
* ``hke_heading_state``: one row per collection, ``version`` counting its document writes. Every write of a
  document takes this row's lock first and holds it to its commit, so versions follow commit order and a
  reader that has seen version ``v`` has seen every change numbered ``v`` or less. ``complete`` is false until
  the rows of every document are in (a collection made before the index, or moved by ``migrate``: filled once
  by :data:`HEADINGS_OF_ELEMENTS` when the store opens it; a question never writes); ``words_version`` names
  the normaliser that made the words, so a changed normaliser fills it again; ``filled`` is the version of the
  last fill, after which a reader reloads every row.
* ``hke_heading_changes``: per document, the version that last wrote it (removals included).

All statements take parameters; the element table is a ``{elements}`` template (``core.sql.elements.bind``).
"""

from __future__ import annotations

CREATE_SCHEMA = [
    """
    CREATE TABLE IF NOT EXISTS hke_headings (
        collection_id uuid NOT NULL REFERENCES hke_collections (id) ON DELETE CASCADE,
        document_id   text NOT NULL,
        "order"       integer NOT NULL,
        element_id    text NOT NULL,
        content       text NOT NULL,
        heading_path  text[] NOT NULL,
        filename      text NOT NULL,
        words         text[] NOT NULL,
        PRIMARY KEY (collection_id, element_id)
    )
    """,
    "CREATE INDEX IF NOT EXISTS hke_headings_document ON hke_headings (collection_id, document_id)",
    """
    CREATE TABLE IF NOT EXISTS hke_heading_state (
        collection_id uuid PRIMARY KEY REFERENCES hke_collections (id) ON DELETE CASCADE,
        version       bigint NOT NULL,
        complete      boolean NOT NULL,
        words_version text NOT NULL,
        filled        bigint NOT NULL DEFAULT 0
    )
    """,
    """
    CREATE TABLE IF NOT EXISTS hke_heading_changes (
        collection_id uuid NOT NULL REFERENCES hke_collections (id) ON DELETE CASCADE,
        document_id   text NOT NULL,
        version       bigint NOT NULL,
        PRIMARY KEY (collection_id, document_id)
    )
    """,
    "CREATE INDEX IF NOT EXISTS hke_heading_changes_version ON hke_heading_changes (collection_id, version)",
]

SCHEMA_READY = (
    "to_regclass('hke_headings') IS NOT NULL AND to_regclass('hke_heading_state') IS NOT NULL "
    "AND to_regclass('hke_heading_changes') IS NOT NULL"
)

# A collection made by this code starts complete: its documents' rows are written with them.
NEW_STATE = """
INSERT INTO hke_heading_state (collection_id, version, complete, words_version)
VALUES (%(collection_id)s, 0, true, %(words_version)s)
ON CONFLICT (collection_id) DO NOTHING
"""

# The first statement of every document write (and of a fill): the collection's row lock, held to the commit.
# A collection without a row (made before the index) gets one that says its rows are not all there.
NEXT_VERSION = """
INSERT INTO hke_heading_state AS s (collection_id, version, complete, words_version)
VALUES (%(collection_id)s, 1, false, '')
ON CONFLICT (collection_id) DO UPDATE SET version = s.version + 1
RETURNING version, complete, words_version
"""

RECORD_CHANGE = """
INSERT INTO hke_heading_changes (collection_id, document_id, version)
VALUES (%(collection_id)s, %(document_id)s, %(version)s)
ON CONFLICT (collection_id, document_id) DO UPDATE SET version = EXCLUDED.version
"""

DELETE_DOCUMENT_HEADINGS = (
    "DELETE FROM hke_headings WHERE collection_id = %(collection_id)s AND document_id = %(document_id)s"
)

COPY_HEADINGS = (
    'COPY hke_headings (collection_id, document_id, "order", element_id, content, heading_path, filename, words) '
    "FROM STDIN WITH (FORMAT BINARY)"
)
COPY_HEADING_TYPES = ["uuid", "text", "int4", "text", "text", "text[]", "text", "text[]"]

# Per question: the collection's version and the documents written since the version a reader holds.
STATE = """
SELECT s.version, s.complete, s.words_version, s.filled,
       ARRAY(SELECT c.document_id FROM hke_heading_changes c
             WHERE c.collection_id = s.collection_id AND c.version > %(since)s ORDER BY c.document_id)
FROM hke_heading_state s
WHERE s.collection_id = %(collection_id)s
"""

_HEADING_COLUMNS = 'document_id, "order", element_id, content, heading_path, filename, words'

HEADINGS = f"SELECT {_HEADING_COLUMNS} FROM hke_headings WHERE collection_id = %(collection_id)s"  # noqa: S608

HEADINGS_OF_DOCUMENTS = (
    f"SELECT {_HEADING_COLUMNS} FROM hke_headings "  # noqa: S608 - a fixed column list
    "WHERE collection_id = %(collection_id)s AND document_id = ANY(%(document_ids)s)"
)

# Filling a collection's rows from its elements: every heading, with the file name its elements record.
HEADINGS_OF_ELEMENTS = """
SELECT e.document_id, e."order", e.element_id, e.content, e.heading_path, coalesce(e.metadata->>'filename', '')
FROM {elements} e
WHERE e.category = 'Title'
"""

DELETE_COLLECTION_HEADINGS = "DELETE FROM hke_headings WHERE collection_id = %(collection_id)s"

MARK_COMPLETE = """
UPDATE hke_heading_state SET complete = true, words_version = %(words_version)s, filled = version
WHERE collection_id = %(collection_id)s
"""
