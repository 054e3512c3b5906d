"""SQL of the evaluation: stored runs and results, and the full-text half of the hybrid mode.

* ``hke_eval_runs``: one row per batch run, tied to the evaluated collection (``ON DELETE CASCADE``: dropping
  a collection drops its runs). ``summary`` holds the per-mode aggregates and judge win rates as JSON so that a
  run can be listed and compared without re-reading its results.
* ``hke_eval_results``: one row per (run, question, mode) with the retrieval and answer metrics and the context
  the mode built, so that a question can be inspected side by side later.
* ``hke_eval_judgements``: one row per (run, question, pair of modes, criterion) when an LLM judge ran.

Full-text search covers each element's heading path and text (``FTS_VECTOR``) with the ``simple``
configuration: it lowercases and splits on non-word characters but does no language-specific stemming or stop
words, which is what makes it usable on Korean (stock Postgres has no Korean configuration, and an English one
would stem nothing useful there). Korean particles glued to words (``모니터의``) are handled by prefix terms
(``'모니터':*``) that the caller passes in.

All statements take parameters; none is built from user text.
"""

# What full-text search sees of an element: its heading path and its own text. ``heading_path`` is a JSON array
# of the heading texts above the element; as text ('["Nova 24FL …", "제품사양"]') the parser drops the brackets,
# quotes and commas. With the path, "Nova 24FL 무게" finds "* 무게 : 2.9 kg" under the Nova 24FL heading, which
# the item's own text never names (the contextual-retrieval idea applied to the lexical side, with no
# re-embedding). A fixed expression, no user text; ``e`` is the alias every query below uses.
FTS_VECTOR = "to_tsvector('simple', coalesce(cmetadata->>'heading_path', '') || ' ' || document)"
_FTS_VECTOR_E = "to_tsvector('simple', coalesce(e.cmetadata->>'heading_path', '') || ' ' || e.document)"

# Serialises the DDL below across processes (CREATE … IF NOT EXISTS still races on the catalog).
SCHEMA_LOCK_KEY = 4_851_220_006

CREATE_SCHEMA = [
    """
    CREATE TABLE IF NOT EXISTS hke_eval_runs (
        run_id        uuid PRIMARY KEY,
        collection_id uuid NOT NULL REFERENCES langchain_pg_collection (uuid) ON DELETE CASCADE,
        question_set  text NOT NULL,
        n_questions   integer NOT NULL,
        modes         text[] NOT NULL,
        k             integer NOT NULL,
        judged        boolean NOT NULL DEFAULT false,
        config        jsonb NOT NULL,
        summary       jsonb,
        status        text NOT NULL DEFAULT 'running',
        error         text,
        started_at    timestamptz NOT NULL DEFAULT now(),
        finished_at   timestamptz
    )
    """,
    "CREATE INDEX IF NOT EXISTS hke_eval_runs_collection ON hke_eval_runs (collection_id, started_at DESC)",
    """
    CREATE TABLE IF NOT EXISTS hke_eval_results (
        run_id          uuid NOT NULL REFERENCES hke_eval_runs (run_id) ON DELETE CASCADE,
        question_id     text NOT NULL,
        mode            text NOT NULL,
        position        integer NOT NULL,
        question        text NOT NULL,
        tags            text[] NOT NULL DEFAULT '{}',
        recall          boolean,
        hit_recall      boolean,
        attribution     boolean,
        grounded        boolean,
        first_hit_rank  integer,
        reciprocal_rank double precision,
        context_tokens  integer NOT NULL,
        latency_ms      double precision NOT NULL,
        exact           boolean,
        contains        boolean,
        answer          text,
        context         text,
        details         jsonb NOT NULL DEFAULT '{}',
        PRIMARY KEY (run_id, question_id, mode)
    )
    """,
    """
    CREATE TABLE IF NOT EXISTS hke_eval_judgements (
        run_id      uuid NOT NULL REFERENCES hke_eval_runs (run_id) ON DELETE CASCADE,
        question_id text NOT NULL,
        mode_a      text NOT NULL,
        mode_b      text NOT NULL,
        criterion   text NOT NULL,
        outcome     text NOT NULL,
        verdicts    jsonb NOT NULL DEFAULT '{}',
        PRIMARY KEY (run_id, question_id, mode_a, mode_b, criterion)
    )
    """,
    # The hybrid mode's full-text half; the expression must match the one in FTS_SEARCH for the planner to use it.
    f"CREATE INDEX IF NOT EXISTS hke_emb_fts_simple_path ON langchain_pg_embedding USING gin ({FTS_VECTOR})",
]

# -- runs -------------------------------------------------------------------------------------------

INSERT_RUN = """
INSERT INTO hke_eval_runs (run_id, collection_id, question_set, n_questions, modes, k, judged, config)
VALUES (%(run_id)s, %(collection_id)s, %(question_set)s, %(n_questions)s, %(modes)s, %(k)s, %(judged)s, %(config)s)
"""

FINISH_RUN = """
UPDATE hke_eval_runs SET summary = %(summary)s, status = %(status)s, error = %(error)s, finished_at = now()
WHERE run_id = %(run_id)s
"""

INSERT_RESULT = """
INSERT INTO hke_eval_results (run_id, question_id, mode, position, question, tags, recall, hit_recall, attribution,
                              grounded, first_hit_rank, reciprocal_rank, context_tokens, latency_ms, exact, contains,
                              answer, context, details)
VALUES (%(run_id)s, %(question_id)s, %(mode)s, %(position)s, %(question)s, %(tags)s, %(recall)s, %(hit_recall)s,
        %(attribution)s, %(grounded)s, %(first_hit_rank)s, %(reciprocal_rank)s, %(context_tokens)s, %(latency_ms)s,
        %(exact)s, %(contains)s, %(answer)s, %(context)s, %(details)s)
"""

INSERT_JUDGEMENT = """
INSERT INTO hke_eval_judgements (run_id, question_id, mode_a, mode_b, criterion, outcome, verdicts)
VALUES (%(run_id)s, %(question_id)s, %(mode_a)s, %(mode_b)s, %(criterion)s, %(outcome)s, %(verdicts)s)
"""

_RUN_COLUMNS = """
r.run_id, c.name, r.question_set, r.n_questions, r.modes, r.k, r.judged, r.config, r.summary, r.status, r.error,
r.started_at, r.finished_at
"""

LIST_RUNS = f"""
SELECT {_RUN_COLUMNS}
FROM hke_eval_runs r JOIN langchain_pg_collection c ON c.uuid = r.collection_id
WHERE (%(collection)s::text IS NULL OR c.name = %(collection)s)
ORDER BY r.started_at DESC, r.run_id
LIMIT %(limit)s
"""  # noqa: S608 - a fixed column list, no user text

GET_RUN = f"""
SELECT {_RUN_COLUMNS}
FROM hke_eval_runs r JOIN langchain_pg_collection c ON c.uuid = r.collection_id
WHERE r.run_id = %(run_id)s
"""  # noqa: S608 - a fixed column list, no user text

RESULTS_OF_RUN = """
SELECT question_id, mode, position, question, tags, recall, hit_recall, attribution, grounded, first_hit_rank,
       reciprocal_rank, context_tokens, latency_ms, exact, contains, answer, context, details
FROM hke_eval_results
WHERE run_id = %(run_id)s
ORDER BY position, array_position(%(modes)s::text[], mode), mode
"""

JUDGEMENTS_OF_RUN = """
SELECT question_id, mode_a, mode_b, criterion, outcome, verdicts
FROM hke_eval_judgements
WHERE run_id = %(run_id)s
ORDER BY question_id, mode_a, mode_b, criterion
"""

DELETE_RUN = "DELETE FROM hke_eval_runs WHERE run_id = %(run_id)s"

# -- hybrid: full-text search ------------------------------------------------------------------------

# The question's lexemes under the same 'simple' parser as the index, so "NV-24FL", "2.9" or "title_class" split
# the same way on both sides. The caller quotes them into tsquery text (see core.evaluation.modes.fts_search).
QUESTION_LEXEMES = "SELECT tsvector_to_array(to_tsvector('simple', %(question)s))"

# Ranking: the sum of the IDF of the query terms an element matches (BM25 without the term-frequency and length
# parts; elements are short, so those matter little). ts_rank_cd has no IDF, so with OR-ed terms a frequent word
# such as "monitor" would weigh as much as the rare model code the question is really about.
# * %(query)s is all terms OR-ed, passed as one constant so the planner can use the GIN index
#   (hke_emb_fts_simple_path) with a real selectivity estimate; %(terms)s are the same terms one by one.
# * Every element matching any term is in ``matched``, so a term's document frequency is counted there: no
#   second scan of the collection per term.
# Each element carries its cosine distance to the query vector, which the contexts show as similarity.
FTS_SEARCH = f"""
WITH terms AS MATERIALIZED (
    SELECT t.ord, to_tsquery('simple', t.term) AS query
    FROM unnest(%(terms)s::text[]) WITH ORDINALITY AS t(term, ord)
),
matched AS MATERIALIZED (
    SELECT e.id, {_FTS_VECTOR_E} AS tsv
    FROM langchain_pg_embedding e
    WHERE e.collection_id = %(collection_id)s
      AND {_FTS_VECTOR_E} @@ to_tsquery('simple', %(query)s)
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
"""  # noqa: S608 - only the fixed expression above is interpolated
