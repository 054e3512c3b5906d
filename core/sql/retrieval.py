"""SQL of retrieval: scoped vector search and the expansion of hits into partial trees.

Scope filters are predicates of the search statement itself, never a post-filter in Python: a search
restricted to a document or to a heading subtree returns the best ``k`` elements *inside* the scope even
when every better match lies outside it.

* Whole collection and one document: ``ORDER BY embedding <=> query LIMIT k`` with the scope as a WHERE
  predicate, so the planner can walk the HNSW index (``hke_emb_hnsw``, cosine ops). The session runs with
  ``hnsw.iterative_scan = relaxed_order`` (see ``core.store``), so a filtered HNSW walk keeps scanning until
  it has ``k`` rows; "relaxed" means rows may come slightly out of order, so the outer query re-sorts them.
  For a small document the planner prefers the ``(collection_id, document_id)`` index and an exact sort.
* A heading subtree: its members are found exactly, by a recursive walk down ``parent_id`` (expression
  index ``hke_emb_parent_id``), then ranked by exact distance. A subtree is a part of one document, so this
  is both exact and cheap; an HNSW post-filter would lose recall on small subtrees.

All statements take parameters; none is built from user text.
"""

# Shared column list of every search: the element plus its cosine distance to the query.

SEARCH_COLLECTION = """
WITH hits AS MATERIALIZED (
    SELECT e.id, e.document, e.cmetadata, e.embedding <=> %(query)s AS distance
    FROM langchain_pg_embedding e
    WHERE e.collection_id = %(collection_id)s
    ORDER BY e.embedding <=> %(query)s
    LIMIT %(k)s
)
SELECT id, document, cmetadata, distance FROM hits ORDER BY distance, id
"""

SEARCH_DOCUMENT = """
WITH hits AS MATERIALIZED (
    SELECT e.id, e.document, e.cmetadata, e.embedding <=> %(query)s AS distance
    FROM langchain_pg_embedding e
    WHERE e.collection_id = %(collection_id)s AND e.cmetadata->>'document_id' = %(document_id)s
    ORDER BY e.embedding <=> %(query)s
    LIMIT %(k)s
)
SELECT id, document, cmetadata, distance FROM hits ORDER BY distance, id
"""

# The recursive walks carry whole rows (and the distance) instead of ids joined back to the table afterwards:
# the join-back let the planner choose a sequential scan of the collection, which grows with the corpus.
SEARCH_SUBTREE = """
WITH RECURSIVE scope (id, document, cmetadata, distance) AS (
    SELECT e.id, e.document, e.cmetadata, e.embedding <=> %(query)s
    FROM langchain_pg_embedding e
    WHERE e.collection_id = %(collection_id)s AND e.cmetadata->>'element_id' = %(root_id)s
  UNION
    SELECT c.id, c.document, c.cmetadata, c.embedding <=> %(query)s
    FROM scope s
    JOIN langchain_pg_embedding c
      ON c.cmetadata->>'parent_id' = s.cmetadata->>'element_id' AND c.collection_id = %(collection_id)s
)
SELECT id, document, cmetadata, distance FROM scope
ORDER BY distance, id
LIMIT %(k)s
"""

# Hits' ancestors (walking up) plus, for heading hits, their descendants (walking down, bounded by depth and
# count), in ONE statement so that the "a heading brings its children" option keeps expansion at one round
# trip. Children carry their distance to the query so the extractive answerer can score them like hits.
EXPAND_WITH_CHILDREN = """
WITH RECURSIVE up (id, document, cmetadata) AS (
    SELECT e.id, e.document, e.cmetadata
    FROM langchain_pg_embedding e
    WHERE e.collection_id = %(collection_id)s AND e.cmetadata->>'element_id' = ANY(%(ids)s)
  UNION
    SELECT p.id, p.document, p.cmetadata
    FROM up w
    JOIN langchain_pg_embedding p
      ON p.cmetadata->>'element_id' = w.cmetadata->>'parent_id' AND p.collection_id = %(collection_id)s
),
down (id, document, cmetadata, distance, depth) AS (
    SELECT e.id, e.document, e.cmetadata, e.embedding <=> %(query)s, 0
    FROM langchain_pg_embedding e
    WHERE e.collection_id = %(collection_id)s AND e.cmetadata->>'element_id' = ANY(%(heading_ids)s)
  UNION ALL
    SELECT c.id, c.document, c.cmetadata, c.embedding <=> %(query)s, d.depth + 1
    FROM down d
    JOIN langchain_pg_embedding c
      ON c.cmetadata->>'parent_id' = d.cmetadata->>'element_id' AND c.collection_id = %(collection_id)s
    WHERE d.depth < %(max_depth)s
),
children AS (
    SELECT DISTINCT ON (id) id, document, cmetadata, distance
    FROM down
    WHERE depth > 0
    ORDER BY id
),
picked AS (
    SELECT id, document, cmetadata, distance
    FROM children
    ORDER BY cmetadata->>'document_id', (cmetadata->>'order')::int
    LIMIT %(max_children)s
)
SELECT id, document, cmetadata, NULL::float8 AS distance, false AS is_child FROM up
UNION ALL
SELECT id, document, cmetadata, distance, true FROM picked
"""

# Resolving a scope given on the command line: an element id or a unique prefix of one (hex only, checked by
# the caller, so LIKE wildcards cannot appear in it).
ELEMENTS_BY_PREFIX = """
SELECT id, document, cmetadata
FROM langchain_pg_embedding
WHERE collection_id = %(collection_id)s AND cmetadata->>'element_id' LIKE %(prefix)s || '%%'
ORDER BY id
LIMIT 2
"""
