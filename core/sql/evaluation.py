"""SQL of the evaluation: stored runs, results and judgements.

* ``hke_eval_runs``: one row per batch run, tied to the evaluated collection (``ON DELETE CASCADE``: dropping
  a collection drops its runs). ``summary`` holds the per-mode aggregates and judge win rates as JSON so that a
  run can be listed and compared without re-reading its results.
* ``hke_eval_results``: one row per (run, question, mode) with the retrieval and answer metrics and the context
  the mode built, so that a question can be inspected side by side later.
* ``hke_eval_judgements``: one row per (run, question, pair of modes, criterion) when an LLM judge ran.

The full-text search the evaluation modes use is the retrieval pipeline's (``core.sql.retrieval``), over the
lexemes and index every collection table has (``core.sql.elements.FTS_COLUMN``).

All statements take parameters; none is built from user text.
"""

# Serialises the DDL below across processes (CREATE … IF NOT EXISTS still races on the catalog).
SCHEMA_LOCK_KEY = 4_851_220_006

CREATE_SCHEMA = [
    """
    CREATE TABLE IF NOT EXISTS hke_eval_runs (
        run_id        uuid PRIMARY KEY,
        collection_id uuid NOT NULL REFERENCES hke_collections (id) ON DELETE CASCADE,
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
FROM hke_eval_runs r JOIN hke_collections c ON c.id = r.collection_id
WHERE (%(collection)s::text IS NULL OR c.name = %(collection)s)
ORDER BY r.started_at DESC, r.run_id
LIMIT %(limit)s
"""  # noqa: S608 - a fixed column list, no user text

GET_RUN = f"""
SELECT {_RUN_COLUMNS}
FROM hke_eval_runs r JOIN hke_collections c ON c.id = r.collection_id
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
