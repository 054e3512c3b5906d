"""SQL of the stored term counts: for each lexeme of a collection, how many of its elements hold it.

Full-text ranking weighs a term by its inverse document frequency (``core.sql.retrieval``). Counting a term's
elements at question time means reading all of them, and a word every element holds (a product name in every
heading path) makes that the whole collection. The counts are kept instead, written in the transaction that writes
a document: its elements' lexemes are subtracted before its old elements go and added once its new ones are in.

* ``hke_term_counts``: (collection, lexeme) → elements of the collection whose stored lexemes
  (``core.sql.elements.FTS_COLUMN``) hold it. Only content elements count, as only they are searched by default
  (an element that is one HTML comment is metadata, ``core.sql.retrieval.METADATA_ELEMENT``). Lexemes sort
  bytewise (``COLLATE "C"``) so a prefix term ('모니터':*) is a range of the primary key.
* ``hke_term_state``: one row per collection once its counts hold every document. A collection made before the
  counts (or moved by ``migrate``) has none until :data:`FILL` runs under the collection's write lock, when the
  store opens it.

Document writes of a collection are serialised by the heading index's state row (``core.sql.headings.NEXT_VERSION``),
taken first by every write, so two writes never update the same counts at once.
"""

from __future__ import annotations

# An element that is only an HTML comment (Postgres regex '.' matches newlines): kept, not searched by default.
METADATA_ELEMENT = "(e.category = 'UncategorizedText' AND e.content ~ '^\\s*<!--' AND e.content ~ '-->\\s*$')"

CREATE_SCHEMA = [
    """
    CREATE TABLE IF NOT EXISTS hke_term_counts (
        collection_id uuid NOT NULL REFERENCES hke_collections (id) ON DELETE CASCADE,
        lexeme        text COLLATE "C" NOT NULL,
        n_elements    integer NOT NULL,
        PRIMARY KEY (collection_id, lexeme)
    )
    """,
    """
    CREATE TABLE IF NOT EXISTS hke_term_state (
        collection_id uuid PRIMARY KEY REFERENCES hke_collections (id) ON DELETE CASCADE
    )
    """,
]

SCHEMA_READY = "to_regclass('hke_term_counts') IS NOT NULL AND to_regclass('hke_term_state') IS NOT NULL"

MARK_COMPLETE = "INSERT INTO hke_term_state (collection_id) VALUES (%(collection_id)s) ON CONFLICT DO NOTHING"

# Lexemes with the number of content elements holding each: of one document, or of the whole collection.
_LEXEMES = f"""
SELECT u.lexeme COLLATE "C" AS lexeme, count(*)::int AS n
FROM {{{{elements}}}} e
CROSS JOIN LATERAL unnest(tsvector_to_array(e.fts)) AS u(lexeme)  -- core.sql.elements.FTS_COLUMN
WHERE NOT {METADATA_ELEMENT} {{where}}
GROUP BY 1
"""  # noqa: S608 - fixed fragments, no user text
_DOCUMENT_LEXEMES = _LEXEMES.format(where="AND e.document_id = %(document_id)s")

# Before a document's elements are deleted: its lexemes counted out. Returns the lexemes no element holds any more.
SUBTRACT_DOCUMENT = f"""
WITH gone AS ({_DOCUMENT_LEXEMES})
UPDATE hke_term_counts t SET n_elements = t.n_elements - g.n
FROM gone g
WHERE t.collection_id = %(collection_id)s AND t.lexeme = g.lexeme
RETURNING t.lexeme, t.n_elements
"""  # noqa: S608 - fixed fragments, no user text

DELETE_UNUSED = """
DELETE FROM hke_term_counts
WHERE collection_id = %(collection_id)s AND lexeme = ANY(%(lexemes)s::text[]) AND n_elements <= 0
"""

# After a document's elements are written: its lexemes counted in (in lexeme order, so row locks are taken in one
# order even without the collection's write lock).
ADD_DOCUMENT = f"""
INSERT INTO hke_term_counts AS t (collection_id, lexeme, n_elements)
SELECT %(collection_id)s, d.lexeme, d.n FROM ({_DOCUMENT_LEXEMES}) d ORDER BY d.lexeme
ON CONFLICT (collection_id, lexeme) DO UPDATE SET n_elements = t.n_elements + EXCLUDED.n_elements
"""  # noqa: S608 - fixed fragments, no user text

# Counting a whole collection (when the store opens one made before the counts, or a check).
COUNT_COLLECTION = _LEXEMES.format(where="")

DELETE_COLLECTION_COUNTS = "DELETE FROM hke_term_counts WHERE collection_id = %(collection_id)s"

FILL = f"""
INSERT INTO hke_term_counts (collection_id, lexeme, n_elements)
SELECT %(collection_id)s, c.lexeme, c.n FROM ({COUNT_COLLECTION}) c
"""  # noqa: S608 - fixed fragments, no user text

STORED_COUNTS = "SELECT lexeme, n_elements FROM hke_term_counts WHERE collection_id = %(collection_id)s"

# At question time, per term: its stored count (a prefix term: the sum over the lexemes it covers, an upper bound
# when one element holds two of them), the collection's size (its documents' element counts, written with them)
# and whether the counts are complete. %(keys)s are bare lexemes, %(prefix)s says which are prefixes.
TERM_COUNTS = """
SELECT EXISTS (SELECT 1 FROM hke_term_state WHERE collection_id = %(collection_id)s),
       (SELECT greatest(coalesce(sum(n_elements), 0), 1) FROM hke_documents WHERE collection_id = %(collection_id)s),
       ARRAY(
           SELECT CASE WHEN t.prefix THEN
                      (SELECT coalesce(sum(c.n_elements), 0) FROM hke_term_counts c
                       WHERE c.collection_id = %(collection_id)s
                         AND c.lexeme >= t.key COLLATE "C" AND c.lexeme < (t.key || chr(1114111)) COLLATE "C")
                  ELSE
                      (SELECT coalesce(max(c.n_elements), 0) FROM hke_term_counts c
                       WHERE c.collection_id = %(collection_id)s AND c.lexeme = t.key COLLATE "C")
                  END
           FROM unnest(%(keys)s::text[], %(prefix)s::bool[]) WITH ORDINALITY AS t(key, prefix, ord)
           ORDER BY t.ord)
"""

TERMS_COMPLETE = "SELECT EXISTS (SELECT 1 FROM hke_term_state WHERE collection_id = %(collection_id)s)"

# Which of some names (%(names)s) the collection's elements hold: every lexeme of the name counted (the parser of
# the stored lexemes splits "lengthening_typos" as it split the documents). NULL when the counts are not filled.
KNOWN_NAMES = """
SELECT CASE WHEN EXISTS (SELECT 1 FROM hke_term_state WHERE collection_id = %(collection_id)s) THEN
    ARRAY(
        SELECT n.name FROM unnest(%(names)s::text[]) AS n(name)
        WHERE NOT EXISTS (
            SELECT 1 FROM unnest(tsvector_to_array(to_tsvector('simple', n.name))) AS l(lexeme)
            WHERE NOT EXISTS (SELECT 1 FROM hke_term_counts c
                              WHERE c.collection_id = %(collection_id)s AND c.lexeme = l.lexeme COLLATE "C"))
          AND to_tsvector('simple', n.name) <> ''::tsvector)
END
"""
