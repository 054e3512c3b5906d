"""SQL of retrieval: scoped vector and full-text search, the headings a question may name, and the expansion
of hits into partial trees.

Scope filters are predicates of the search statement itself, never a post-filter in Python: a search
restricted to a document or to heading subtrees returns the best ``k`` elements *inside* the scope even
when every better match lies outside it.

* Whole collection and one document: ``ORDER BY embedding <=> query LIMIT k`` with the scope as a WHERE
  predicate, so the planner can walk the collection's HNSW index (``<table>_hnsw``, cosine ops). The session runs with
  ``hnsw.iterative_scan = relaxed_order`` (see ``core.store``), so a filtered HNSW walk keeps scanning until
  it has ``k`` rows; "relaxed" means rows may come slightly out of order, so the outer query re-sorts them.
  For a small document the planner prefers the ``(document_id, element_id)`` index and an exact sort.
* Heading subtrees: their members are found exactly, by a recursive walk down ``parent_id`` (the
  ``(document_id, parent_id)`` index), then ranked by exact distance. A subtree is a part of one document, so this
  is both exact and cheap; an HNSW post-filter would lose recall on small subtrees.
* Metadata is not content: an element that is only an HTML comment (``<!-- YAML … -->`` history blocks in API
  references) stays stored and visible in the tree, but no search returns it unless the caller opts in
  (``include_metadata``). Front matter never becomes an element (``core.markdown_loader``).

Statements are assembled at import time from fixed fragments (no user text) as templates over ``{elements}``,
the collection's table (``core.sql.elements.bind``); all values are parameters. Each returns the element
columns first (``core.sql.elements.ELEMENT_COLUMNS``, read by ``core.store.element_from_row``), then its extras.
"""

from __future__ import annotations

import functools

from core.sql.elements import FTS_COLUMN, PLANNED_ONCE_IDS, WALK_COLUMNS, ancestor_walk, cols
from core.sql.terms import METADATA_ELEMENT, TERM_COUNTS

__all__ = ["METADATA_ELEMENT", "TERM_COUNTS", "fulltext_statement", "vector_statement"]

# An element whose whole text is one HTML comment (METADATA_ELEMENT): a multi-line comment block is covered; a
# block that mixes a comment with real HTML is content and stays searchable.
_CONTENT_ONLY = f"AND NOT {METADATA_ELEMENT}"

# Full-text search reads the lexemes stored with each element (core.sql.elements.FTS_COLUMN: heading path and
# text under the 'simple' configuration) through the table's GIN index; no query parses stored text.
_FTS = f"e.{FTS_COLUMN}"

# The question's lexemes under the same 'simple' parser as the index, so "NV-24FL", "2.9" or "title_class" split
# the same way on both sides. The caller quotes them into tsquery text (core.retrieval.search.tsquery_lexeme).
QUESTION_LEXEMES = "SELECT tsvector_to_array(to_tsvector('simple', %(question)s))"
# The same for several texts in one round trip, in the order given.
TEXTS_LEXEMES = (
    "SELECT tsvector_to_array(to_tsvector('simple', t.text)) "
    "FROM unnest(%(texts)s::text[]) WITH ORDINALITY AS t(text, ord) ORDER BY t.ord"
)

# The members of the scope's heading subtrees (%(root_ids)s), walking down parent_id inside each document.
_WALK = """
walk (element_id, document_id) AS (
    SELECT e.element_id, e.document_id
    FROM {elements} e
    WHERE e.element_id = ANY(%(root_ids)s)
  UNION
    SELECT c.element_id, c.document_id
    FROM walk w
    JOIN {elements} c ON c.document_id = w.document_id AND c.parent_id = w.element_id
),"""

_SCOPE_FILTER = {
    "collection": "",
    "document": "AND e.document_id = %(document_id)s",
    "subtree": "AND e.element_id IN (SELECT element_id FROM walk)",
}

_VECTOR_TOP = f"""
WITH hits AS MATERIALIZED (
    SELECT {cols("e")}, e.embedding <=> %(query)s AS distance
    FROM {{elements}} e
    WHERE true {{scope}} {{content}}
    -- element_id breaks exact ties (identical texts embed identically): without it, which of them fills the last
    -- places depends on the scan's order, and a parallel scan's order changes from run to run. The planner keeps
    -- the HNSW index scan and adds an incremental sort on the tied runs.
    ORDER BY e.embedding <=> %(query)s, e.element_id
    LIMIT %(k)s
)
SELECT {cols("h")}, h.distance FROM hits h ORDER BY h.distance, h.element_id
"""  # noqa: S608 - fixed fragments, no user text

# The recursive walk carries whole rows (and the distance) instead of ids joined back to the table afterwards:
# the join-back let the planner choose a sequential scan of the collection, which grows with the corpus.
_VECTOR_SUBTREE = f"""
WITH RECURSIVE scope ({WALK_COLUMNS}, distance) AS (
    SELECT {cols("e")}, e.embedding <=> %(query)s
    FROM {{elements}} e
    WHERE e.element_id = ANY(%(root_ids)s)
  UNION
    SELECT {cols("c")}, c.embedding <=> %(query)s
    FROM scope s
    JOIN {{elements}} c ON c.document_id = s.document_id AND c.parent_id = s.element_id
),
best AS (
    SELECT * FROM scope e
    WHERE true {{content}}
    ORDER BY e.distance, e.element_id
    LIMIT %(k)s
)
SELECT {cols("b")}, b.distance FROM best b ORDER BY b.distance, b.element_id
"""  # noqa: S608 - fixed fragments, no user text

# Ranking: the sum of the IDF of the query terms an element matches (BM25 without the term-frequency and length
# parts; elements are short, so those matter little). ts_rank_cd has no IDF, so with OR-ed terms a frequent word
# such as "monitor" would weigh as much as the rare model code the question is really about.
# * %(terms)s are the question's terms one by one; %(scanned)s says which of them find candidates, and
#   %(query)s is those OR-ed, passed as one constant so the planner can use the GIN index with a real selectivity
#   estimate. A term left out of the scan (a common one: ``core.retrieval.search.scanned_terms``) still scores
#   the candidates that hold it, with its stored count %(counts)s (``core.sql.terms``): reading the elements of a
#   word that nearly every element holds would cost a pass over the collection for an IDF near zero.
# * One pass over the candidates notes which terms each holds (``held``): a bit mask, one tsquery test per term
#   written into the statement (up to MASK_TERMS terms; a statement per term count), or beyond that an array of
#   term ordinals made by a sub-select per candidate, which costs several times the tests themselves. Elements
#   holding the same terms score the same, so document frequencies and scores are computed per distinct set of
#   terms (a handful), not per element: no second pass over the matches. A scanned term's frequency is counted
#   among the candidates, which hold all its elements; in a scope, every term is scanned and frequencies are the
#   scope's.
# * The collection's size is the sum of its documents' element counts (hke_documents, written in the same
#   transaction as the elements): a few thousand rows by primary key instead of counting the element table; or
#   %(total)s, that sum as the question's term counts read it (``core.store.question_reads.QuestionReads``).
# Each element carries its cosine distance to the query vector, which the contexts show as similarity.
_FULLTEXT = f"""
WITH RECURSIVE {{walk}}
terms AS MATERIALIZED (
    SELECT t.ord::int AS ord, to_tsquery('simple', t.term) AS query, t.scanned, t.stored
    FROM unnest(%(terms)s::text[], %(scanned)s::bool[], %(counts)s::float8[])
         WITH ORDINALITY AS t(term, scanned, stored, ord)
),
matched AS MATERIALIZED (
    SELECT e.element_id, {{held}} AS held
    FROM {{elements}} e
    WHERE true {{scope}} {{content}}
      AND {{tsv}} @@ {{query}}
),
term_sets AS (
    SELECT m.held, count(*) AS n FROM matched m GROUP BY m.held
),
total AS (
    SELECT coalesce(%(total)s::float8, (SELECT greatest(coalesce(sum(n_elements), 0), 1)::float8
                                         FROM hke_documents WHERE collection_id = %(collection_id)s)) AS n
),
found AS (
    SELECT t.ord, sum(s.n)::float8 AS n
    FROM term_sets s
    JOIN terms t ON {{holds_t}}
    GROUP BY t.ord
),
weights AS MATERIALIZED (
    SELECT t.ord, ln(1.0 + (total.n - df.n + 0.5) / (df.n + 0.5)) AS idf
    FROM terms t
    LEFT JOIN found f ON f.ord = t.ord
    CROSS JOIN total
    CROSS JOIN LATERAL (SELECT CASE WHEN t.scanned THEN coalesce(f.n, 0) ELSE greatest(t.stored, f.n, 0) END) AS df(n)
),
-- Rounded: two term sets whose IDFs add up to the same score must tie exactly (then element_id orders them), not
-- differ in the last bit with the order the sum met its terms.
set_scores AS MATERIALIZED (
    SELECT s.held, round((SELECT sum(w.idf) FROM weights w WHERE {{holds_w}})::numeric, 9)::float8 AS score
    FROM term_sets s
),
scored AS (
    SELECT m.element_id, ss.score
    FROM matched m
    JOIN set_scores ss ON ss.held = m.held
    ORDER BY ss.score DESC, m.element_id
    LIMIT %(k)s
)
SELECT {cols("e")}, e.embedding <=> %(query_vector)s AS distance, s.score
FROM scored s
JOIN {{elements}} e ON e.element_id = s.element_id
ORDER BY s.score DESC, e.element_id
"""  # noqa: S608 - fixed fragments, no user text


# Terms held as a bit mask (bigint) up to this many; more (a long question) as an array of ordinals.
MASK_TERMS = 62

_HELD_ARRAY = "ARRAY(SELECT t.ord FROM terms t WHERE {tsv} @@ t.query ORDER BY t.ord)"
_HOLDS_ARRAY = "{ord} = ANY(s.held)"
# Each term's tsquery is read once (an InitPlan), then tested on every candidate.
_HELD_BIT = "CASE WHEN {tsv} @@ (SELECT t.query FROM terms t WHERE t.ord = {ord}) THEN {bit}::bigint ELSE 0 END"
_HOLDS_BIT = "s.held & (1::bigint << ({ord} - 1)) <> 0"


_QUERY = "to_tsquery('simple', %(query)s)"
# In a subtree the walk finds the candidates, not the GIN index, and the plan cache keeps a generic plan for a scope
# of one heading (:func:`one_root`), which would parse the query again for every element walked: parsed once, in a
# sub-select (0.47 -> 0.34 ms of server time a scoped full-text search on the samples; the same rows).
_SUBTREE_QUERY = f"(SELECT {_QUERY})"


def _fulltext(kind: str, include_metadata: bool, n_terms: int | None) -> str:
    """The full-text statement of a scope kind, candidates' terms as a bit mask of ``n_terms`` (else an array)."""
    if n_terms is None:
        held, holds = _HELD_ARRAY.format(tsv=_FTS), _HOLDS_ARRAY
    else:
        tests = (_HELD_BIT.format(tsv=_FTS, ord=i, bit=1 << (i - 1)) for i in range(1, n_terms + 1))
        held = "(" + " | ".join(tests) + ")"
        holds = _HOLDS_BIT
    return _FULLTEXT.format(walk=_WALK if kind == "subtree" else "", scope=_SCOPE_FILTER[kind],
                            query=_SUBTREE_QUERY if kind == "subtree" else _QUERY,
                            content="" if include_metadata else _CONTENT_ONLY, tsv=_FTS, held=held,
                            holds_t=holds.format(ord="t.ord"), holds_w=holds.format(ord="w.ord"),
                            elements="{elements}")  # filled in per collection by core.sql.elements.bind


def _build() -> tuple[dict[tuple[str, bool], str], dict[tuple[str, bool], str]]:
    vector: dict[tuple[str, bool], str] = {}
    fulltext: dict[tuple[str, bool], str] = {}
    keep = {"elements": "{elements}"}  # filled in per collection by core.sql.elements.bind
    for kind, scope in _SCOPE_FILTER.items():
        for include_metadata in (False, True):
            content = "" if include_metadata else _CONTENT_ONLY
            if kind == "subtree":
                vector[kind, include_metadata] = _VECTOR_SUBTREE.format(content=content, **keep)
            else:
                vector[kind, include_metadata] = _VECTOR_TOP.format(scope=scope, content=content, **keep)
            fulltext[kind, include_metadata] = _fulltext(kind, include_metadata, None)
    return vector, fulltext


_VECTOR, _FULLTEXT_BY_SCOPE = _build()


# A scope of one heading (most are) names its root by equality, %(root_id)s, in place of the array %(root_ids)s: the
# plan cache then finds the generic plan as cheap as a custom one and keeps it, where an array of unknown length
# made every execution plan anew (the scoped vector search, 0.34 -> 0.19 ms of server time on the samples). The walk
# is the same either way, and each statement orders its rows completely, so the plan never changes what it returns.
_ROOTS = "e.element_id = ANY(%(root_ids)s)"
_ONE_ROOT = "e.element_id = %(root_id)s"


def one_root(statement: str) -> str:
    """A subtree statement for a scope of one root heading, passed as %(root_id)s."""
    return statement.replace(_ROOTS, _ONE_ROOT)


def vector_statement(scope_kind: str, include_metadata: bool = False) -> str:
    """Nearest neighbours of %(query)s inside a scope (``collection``, ``document`` or ``subtree``)."""
    return _VECTOR[scope_kind, include_metadata]


@functools.lru_cache(maxsize=3 * 2 * MASK_TERMS)
def _masked(kind: str, include_metadata: bool, n_terms: int) -> str:
    return _fulltext(kind, include_metadata, n_terms)


def fulltext_statement(scope_kind: str, include_metadata: bool = False, n_terms: int | None = None) -> str:
    """IDF-ranked full-text matches of %(terms)s inside a scope, candidates from the %(scanned)s ones; with
    ``n_terms`` (the length of %(terms)s) up to :data:`MASK_TERMS`, the statement that tests each term inline."""
    if scope_kind not in _SCOPE_FILTER:
        raise KeyError(scope_kind)
    if n_terms is None or not 1 <= n_terms <= MASK_TERMS:
        return _FULLTEXT_BY_SCOPE[scope_kind, include_metadata]
    return _masked(scope_kind, include_metadata, n_terms)


# Hits' ancestors (walking up) plus, for heading hits, their descendants (walking down, bounded by depth and
# count), in ONE statement so that the "a heading brings its children" option keeps expansion at one round
# trip. Children carry their distance to the query so the extractive answerer can score them like hits.
EXPAND_WITH_CHILDREN = f"""
WITH RECURSIVE {ancestor_walk("up")},
down ({WALK_COLUMNS}, distance, depth) AS (
    SELECT {cols("e")}, e.embedding <=> %(query)s, 0
    FROM {{elements}} e
    WHERE e.element_id = ANY({PLANNED_ONCE_IDS.format(name="heading_ids")})
  UNION ALL
    SELECT {cols("c")}, c.embedding <=> %(query)s, d.depth + 1
    FROM down d
    JOIN {{elements}} c ON c.document_id = d.document_id AND c.parent_id = d.element_id
    WHERE d.depth < %(max_depth)s
),
children AS (
    SELECT DISTINCT ON (element_id) *
    FROM down
    WHERE depth > 0
    ORDER BY element_id
),
picked AS (
    SELECT *
    FROM children
    ORDER BY document_id, {{order_at}}
    LIMIT %(max_children)s
)
SELECT {cols("u")}, NULL::float8 AS distance, false AS is_child FROM up u
UNION ALL
SELECT {cols("p")}, p.distance, true FROM picked p
"""  # noqa: S608 - fixed fragments, no user text

# Resolving a scope given on the command line: an element id or a unique prefix of one (hex only, checked by
# the caller, so LIKE wildcards cannot appear in it).
ELEMENTS_BY_PREFIX = f"""
SELECT {cols("e")}
FROM {{elements}} e
WHERE e.element_id LIKE %(prefix)s || '%%'
ORDER BY e.element_id
LIMIT 2
"""  # noqa: S608 - fixed fragments, no user text

# The whole-collection and one-document statements by their historical names (benchmarks EXPLAIN them).
SEARCH_COLLECTION = vector_statement("collection")
SEARCH_DOCUMENT = vector_statement("document")
SEARCH_SUBTREE = vector_statement("subtree")
