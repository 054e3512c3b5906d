"""SQL of a collection's stored field pairs (``core.retrieval.lexicon``): its field words of both scripts, their
vectors under the collection's embedder and the cross-script pairs computed from them, one row per collection; and
what each document contributes to them (``hke_document_fields``), one row per document.

* ``version``: the heading index's version (``core.sql.headings``, counting the collection's document writes)
  the row was computed at; a reader whose collection is at another version computes the row again.
* ``fingerprint``: the embedder, the pairing's config and the format the row was computed with; another one is
  computed again too. ``embedder`` alone says whether the stored vectors of words still in the collection can be
  kept (a rebuild embeds only the new words).
* ``scripts``: the scripts the fields are in (``true``: Hangul).
* ``terms``, ``outlines``: each word's terms and loanword outline (``core.loanwords``), computed with it.
* ``vectors``: the words' unit vectors, little-endian float32 rows of ``dimension`` values, one per word of ``texts``.

All statements take parameters.
"""

from __future__ import annotations

SCHEMA_LOCK_KEY = 4_851_220_051

CREATE_SCHEMA = [
    """
    CREATE TABLE IF NOT EXISTS hke_field_pairs (
        collection_id uuid PRIMARY KEY REFERENCES hke_collections (id) ON DELETE CASCADE,
        version       bigint NOT NULL,
        fingerprint   text NOT NULL,
        embedder      text NOT NULL,
        scripts       boolean[] NOT NULL,
        texts         text[] NOT NULL,
        terms         jsonb NOT NULL,
        outlines      text[] NOT NULL,
        dimension     integer NOT NULL,
        vectors       bytea NOT NULL,
        pairs         jsonb NOT NULL,  -- [source terms, target terms, the target as written]
        updated_at    timestamptz NOT NULL DEFAULT now()
    )
    """,
    # What each document contributes to its collection's row, so that a change re-reads only the documents it
    # changed: its field units with how many of its elements name each, and its ``key : value`` items (the key
    # and the sha256 of the item's text, whose vector the embedding cache holds), in document order.
    """
    CREATE TABLE IF NOT EXISTS hke_document_fields (
        collection_id uuid NOT NULL REFERENCES hke_collections (id) ON DELETE CASCADE,
        document_id   text NOT NULL,
        source_key    text NOT NULL,  -- the content hash and loader the document's elements were parsed from
        format        text NOT NULL,  -- the extraction's code and limits
        units         jsonb NOT NULL, -- {unit: elements naming it}
        items         jsonb NOT NULL, -- [[key, text sha256], ...]
        PRIMARY KEY (collection_id, document_id)
    )
    """,
]

READ_DOCUMENT_FIELDS = """
SELECT document_id, source_key, format, units, items FROM hke_document_fields WHERE collection_id = %(collection_id)s
"""

WRITE_DOCUMENT_FIELDS = """
INSERT INTO hke_document_fields AS f (collection_id, document_id, source_key, format, units, items)
SELECT %(collection_id)s, d.document_id, d.source_key, d.format, d.units, d.items
FROM unnest(%(document_ids)s::text[], %(source_keys)s::text[], %(formats)s::text[], %(units)s::jsonb[],
            %(items)s::jsonb[]) AS d(document_id, source_key, format, units, items)
ON CONFLICT (collection_id, document_id) DO UPDATE SET
    source_key = EXCLUDED.source_key, format = EXCLUDED.format, units = EXCLUDED.units, items = EXCLUDED.items
"""

# The rows of documents the collection no longer holds.
FORGET_DOCUMENT_FIELDS = """
DELETE FROM hke_document_fields
WHERE collection_id = %(collection_id)s AND NOT (document_id = ANY(%(document_ids)s::text[]))
"""

# What every process reads: a few hundred bytes to a few kilobytes.
READ_HEAD = """
SELECT version, fingerprint, embedder, scripts, pairs FROM hke_field_pairs WHERE collection_id = %(collection_id)s
"""

# The words too: only a collection in one script asked in the other, or a rebuild, needs them.
READ = """
SELECT version, fingerprint, embedder, scripts, pairs, texts, terms, outlines, dimension, vectors
FROM hke_field_pairs WHERE collection_id = %(collection_id)s
"""

# A row computed at an older version never replaces one computed at a newer (two processes computing at once).
WRITE = """
INSERT INTO hke_field_pairs AS f (collection_id, version, fingerprint, embedder, scripts, texts, terms, outlines,
                                  dimension, vectors, pairs)
VALUES (%(collection_id)s, %(version)s, %(fingerprint)s, %(embedder)s, %(scripts)s, %(texts)s, %(terms)s,
        %(outlines)s, %(dimension)s, %(vectors)s, %(pairs)s)
ON CONFLICT (collection_id) DO UPDATE SET
    version = EXCLUDED.version, fingerprint = EXCLUDED.fingerprint, embedder = EXCLUDED.embedder,
    scripts = EXCLUDED.scripts, texts = EXCLUDED.texts, terms = EXCLUDED.terms, outlines = EXCLUDED.outlines,
    dimension = EXCLUDED.dimension, vectors = EXCLUDED.vectors, pairs = EXCLUDED.pairs, updated_at = now()
WHERE f.version <= EXCLUDED.version
"""
