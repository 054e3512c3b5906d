"""SQL of retrieval: scoped vector and full-text search, the headings a question may name, and the expansion
of hits into partial trees.

Scope filters are predicates of the search statement itself, never a post-filter in Python: a search
restricted to a document or to heading subtrees returns the best ``k`` elements *inside* the scope even
when every better match lies outside it.

* Whole collection and one document: ``ORDER BY embedding <=> query LIMIT k`` with the scope as a WHERE
  predicate, so the planner can walk the HNSW index (``hke_emb_hnsw``, cosine ops). The session runs with
  ``hnsw.iterative_scan = relaxed_order`` (see ``core.store``), so a filtered HNSW walk keeps scanning until
  it has ``k`` rows; "relaxed" means rows may come slightly out of order, so the outer query re-sorts them.
  For a small document the planner prefers the ``(collection_id, document_id)`` index and an exact sort.
* Heading subtrees: their members are found exactly, by a recursive walk down ``parent_id`` (expression
  index ``hke_emb_parent_id``), then ranked by exact distance. A subtree is a part of one document, so this
  is both exact and cheap; an HNSW post-filter would lose recall on small subtrees.
* Metadata is not content: an element that is only an HTML comment (``<!-- YAML … -->`` history blocks in API
  references) stays stored and visible in the tree, but no search returns it unless the caller opts in
  (``include_metadata``). Front matter never becomes an element (``core.markdown_loader``).

Statements are assembled at import time from fixed fragments (no user text); all values are parameters.
"""

from __future__ import annotations

__all__ = ["FTS_VECTOR", "HEADINGS", "fulltext_statement", "vector_statement"]

# An element whose whole text is one HTML comment. Postgres regex '.' matches newlines, so a multi-line
# comment block is covered; a block that mixes a comment with real HTML is content and stays searchable.
METADATA_ELEMENT = (
    "(e.cmetadata->>'category' = 'UncategorizedText' AND e.document ~ '^\\s*<!--' AND e.document ~ '-->\\s*$')"
)
_CONTENT_ONLY = f"AND NOT {METADATA_ELEMENT}"

# What full-text search sees of an element: its heading path and its own text. ``heading_path`` is a JSON array
# of the heading texts above the element; as text ('["Nova 24FL …", "제품사양"]') the parser drops the brackets,
# quotes and commas. With the path, "Nova 24FL 무게" finds "* 무게 : 2.9 kg" under the Nova 24FL heading, which
# the item's own text never names (the contextual-retrieval idea applied to the lexical side, with no
# re-embedding). The 'simple' configuration lowercases and splits but does no stemming or stop words, which
# is what makes it usable on Korean (stock Postgres has no Korean configuration); Korean particles are handled
# by prefix terms ('모니터':*) that the caller passes in. The index expression must match the queries'.
# Only the first FTS_MAX_CHARS of an element are indexed: a tsvector holds at most 1 MB, and one 5 MB element
# (within the ingest limit) would otherwise make the index, and so every insert, fail.
FTS_MAX_CHARS = 100_000
FTS_VECTOR = (
    "to_tsvector('simple', coalesce(cmetadata->>'heading_path', '') || ' ' || left(document, 100000))"
)
_FTS_VECTOR_E = (
    "to_tsvector('simple', coalesce(e.cmetadata->>'heading_path', '') || ' ' || left(e.document, 100000))"
)
FTS_INDEX = f"CREATE INDEX IF NOT EXISTS hke_emb_fts_path_v2 ON langchain_pg_embedding USING gin ({FTS_VECTOR})"
# The first version indexed whole elements (see FTS_MAX_CHARS); databases made before carry it.
DROP_OLD_FTS_INDEX = "DROP INDEX IF EXISTS hke_emb_fts_simple_path"
FTS_INDEX_LOCK_KEY = 4_851_220_006  # the evaluation schema's key: both create the same index

# The question's lexemes under the same 'simple' parser as the index, so "NV-24FL", "2.9" or "title_class" split
# the same way on both sides. The caller quotes them into tsquery text (core.retrieval.search.tsquery_lexeme).
QUESTION_LEXEMES = "SELECT tsvector_to_array(to_tsvector('simple', %(question)s))"

# The members of the scope's heading subtrees (%(root_ids)s), walking down parent_id.
_WALK = """
walk (id, element_id) AS (
    SELECT e.id, e.cmetadata->>'element_id'
    FROM langchain_pg_embedding e
    WHERE e.collection_id = %(collection_id)s AND e.cmetadata->>'element_id' = ANY(%(root_ids)s)
  UNION
    SELECT c.id, c.cmetadata->>'element_id'
    FROM walk w
    JOIN langchain_pg_embedding c
      ON c.cmetadata->>'parent_id' = w.element_id AND c.collection_id = %(collection_id)s
),"""

_SCOPE_FILTER = {
    "collection": "",
    "document": "AND e.cmetadata->>'document_id' = %(document_id)s",
    "subtree": "AND e.id IN (SELECT id FROM walk)",
}

_VECTOR_TOP = """
WITH hits AS MATERIALIZED (
    SELECT e.id, e.document, e.cmetadata, e.embedding <=> %(query)s AS distance
    FROM langchain_pg_embedding e
    WHERE e.collection_id = %(collection_id)s {scope} {content}
    ORDER BY e.embedding <=> %(query)s
    LIMIT %(k)s
)
SELECT id, document, cmetadata, distance FROM hits ORDER BY distance, id
"""

# The recursive walk carries whole rows (and the distance) instead of ids joined back to the table afterwards:
# the join-back let the planner choose a sequential scan of the collection, which grows with the corpus.
_VECTOR_SUBTREE = """
WITH RECURSIVE scope (id, document, cmetadata, distance) AS (
    SELECT e.id, e.document, e.cmetadata, e.embedding <=> %(query)s
    FROM langchain_pg_embedding e
    WHERE e.collection_id = %(collection_id)s AND e.cmetadata->>'element_id' = ANY(%(root_ids)s)
  UNION
    SELECT c.id, c.document, c.cmetadata, c.embedding <=> %(query)s
    FROM scope s
    JOIN langchain_pg_embedding c
      ON c.cmetadata->>'parent_id' = s.cmetadata->>'element_id' AND c.collection_id = %(collection_id)s
)
SELECT e.id, e.document, e.cmetadata, e.distance FROM scope e
WHERE true {content}
ORDER BY e.distance, e.id
LIMIT %(k)s
"""

# Ranking: the sum of the IDF of the query terms an element matches (BM25 without the term-frequency and length
# parts; elements are short, so those matter little). ts_rank_cd has no IDF, so with OR-ed terms a frequent word
# such as "monitor" would weigh as much as the rare model code the question is really about.
# * %(query)s is all terms OR-ed, passed as one constant so the planner can use the GIN index
#   (hke_emb_fts_simple_path) with a real selectivity estimate; %(terms)s are the same terms one by one.
# * Every element matching any term is in ``matched``, so a term's document frequency is counted there: no
#   second scan of the collection per term. In a scope, frequencies are the scope's.
# Each element carries its cosine distance to the query vector, which the contexts show as similarity.
_FULLTEXT = """
WITH RECURSIVE {walk}
terms AS MATERIALIZED (
    SELECT t.ord, to_tsquery('simple', t.term) AS query
    FROM unnest(%(terms)s::text[]) WITH ORDINALITY AS t(term, ord)
),
matched AS MATERIALIZED (
    SELECT e.id, {tsv} AS tsv
    FROM langchain_pg_embedding e
    WHERE e.collection_id = %(collection_id)s {scope} {content}
      AND {tsv} @@ to_tsquery('simple', %(query)s)
),
total AS (
    SELECT greatest(count(*), 1)::float8 AS n FROM langchain_pg_embedding WHERE collection_id = %(collection_id)s
),
weights AS (
    SELECT t.ord, t.query, ln(1.0 + (total.n - count(*) + 0.5) / (count(*) + 0.5)) AS idf
    FROM terms t
    JOIN matched m ON m.tsv @@ t.query
    CROSS JOIN total
    GROUP BY t.ord, t.query, total.n
),
scored AS (
    SELECT m.id, sum(w.idf) AS score
    FROM matched m
    JOIN weights w ON m.tsv @@ w.query
    GROUP BY m.id
    ORDER BY score DESC, m.id
    LIMIT %(k)s
)
SELECT e.id, e.document, e.cmetadata, e.embedding <=> %(query_vector)s AS distance, s.score
FROM scored s
JOIN langchain_pg_embedding e ON e.id = s.id
ORDER BY s.score DESC, e.id
"""


def _build() -> tuple[dict[tuple[str, bool], str], dict[tuple[str, bool], str]]:
    vector: dict[tuple[str, bool], str] = {}
    fulltext: dict[tuple[str, bool], str] = {}
    for kind, scope in _SCOPE_FILTER.items():
        for include_metadata in (False, True):
            content = "" if include_metadata else _CONTENT_ONLY
            if kind == "subtree":
                vector[kind, include_metadata] = _VECTOR_SUBTREE.format(content=content)
            else:
                vector[kind, include_metadata] = _VECTOR_TOP.format(scope=scope, content=content)
            walk = _WALK if kind == "subtree" else ""
            fulltext[kind, include_metadata] = _FULLTEXT.format(walk=walk, scope=scope, content=content,
                                                                tsv=_FTS_VECTOR_E)
    return vector, fulltext


_VECTOR, _FULLTEXT_BY_SCOPE = _build()


def vector_statement(scope_kind: str, include_metadata: bool = False) -> str:
    """Nearest neighbours of %(query)s inside a scope (``collection``, ``document`` or ``subtree``)."""
    return _VECTOR[scope_kind, include_metadata]


def fulltext_statement(scope_kind: str, include_metadata: bool = False) -> str:
    """IDF-ranked full-text matches of %(terms)s inside a scope."""
    return _FULLTEXT_BY_SCOPE[scope_kind, include_metadata]


# Every heading of the collection with its path and document: the names a question can be matched against.
HEADINGS = """
SELECT cmetadata->>'element_id', document, cmetadata->'heading_path', cmetadata->>'document_id',
       coalesce(cmetadata->>'filename', '')
FROM langchain_pg_embedding
WHERE collection_id = %(collection_id)s AND cmetadata->>'category' = 'Title'
ORDER BY cmetadata->>'document_id', (cmetadata->>'order')::int
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

# The whole-collection and one-document statements by their historical names (benchmarks EXPLAIN them).
SEARCH_COLLECTION = vector_statement("collection")
SEARCH_DOCUMENT = vector_statement("document")
SEARCH_SUBTREE = vector_statement("subtree")
