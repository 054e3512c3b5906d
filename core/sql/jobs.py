"""SQL of background jobs (an ingest the app runs beside its pages): one row per job, its progress and its end.

* ``hke_jobs``: the collection by name (a job may create it, and its row outlives a dropped collection), the kind
  (``ingest``, ``index``), the status (``queued`` → ``running`` → ``done`` | ``failed`` | ``cancelled``;
  ``interrupted`` when the process that ran it died: its ``heartbeat_at`` stopped moving), progress ``done`` of
  ``total``, what is being worked on (an ingest's file name, never a server path; an index's stage), what was stored
  so far (``counts``), the error, ``cancel_requested`` (set by anyone, read by the running job at its next progress
  write) and ``request``: what a re-run needs (the folders it read), which is never shown.

All statements take parameters; none is built from user text.
"""

# Serialises the DDL below across processes (CREATE … IF NOT EXISTS still races on the catalog).
SCHEMA_LOCK_KEY = 4_851_220_041

STATUSES = ("queued", "running", "done", "failed", "interrupted", "cancelled")
ACTIVE = ("queued", "running")

CREATE_SCHEMA = [
    """
    CREATE TABLE IF NOT EXISTS hke_jobs (
        job_id       uuid PRIMARY KEY,
        collection   text NOT NULL,
        kind         text NOT NULL,
        status       text NOT NULL DEFAULT 'queued'
                     CONSTRAINT hke_jobs_status_check
                     CHECK (status IN ('queued', 'running', 'done', 'failed', 'interrupted', 'cancelled')),
        done         integer NOT NULL DEFAULT 0,
        total        integer NOT NULL DEFAULT 0,
        current_file text,
        counts       jsonb NOT NULL DEFAULT '{}',
        error        text,
        request      jsonb NOT NULL DEFAULT '{}',
        rerun_of     uuid,
        created_at   timestamptz NOT NULL DEFAULT now(),
        started_at   timestamptz,
        finished_at  timestamptz,
        heartbeat_at timestamptz NOT NULL DEFAULT now()
    )
    """,
    "ALTER TABLE hke_jobs ADD COLUMN IF NOT EXISTS cancel_requested boolean NOT NULL DEFAULT false",
    # A table made before jobs could be cancelled checks the statuses without 'cancelled'.
    """
    DO $$ BEGIN
        IF NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conrelid = 'hke_jobs'::regclass
                       AND conname = 'hke_jobs_status_check' AND pg_get_constraintdef(oid) LIKE '%cancelled%') THEN
            ALTER TABLE hke_jobs DROP CONSTRAINT IF EXISTS hke_jobs_status_check;
            ALTER TABLE hke_jobs ADD CONSTRAINT hke_jobs_status_check
                CHECK (status IN ('queued', 'running', 'done', 'failed', 'interrupted', 'cancelled'));
        END IF;
    END $$
    """,
    "CREATE INDEX IF NOT EXISTS hke_jobs_created ON hke_jobs (created_at DESC)",
    "CREATE INDEX IF NOT EXISTS hke_jobs_active ON hke_jobs (status) WHERE status IN ('queued', 'running')",
]

INSERT_JOB = """
INSERT INTO hke_jobs (job_id, collection, kind, total, counts, request, rerun_of)
VALUES (%(job_id)s, %(collection)s, %(kind)s, %(total)s, %(counts)s, %(request)s, %(rerun_of)s)
"""

START_JOB = """
UPDATE hke_jobs SET status = 'running', started_at = now(), heartbeat_at = now()
WHERE job_id = %(job_id)s AND status = 'queued'
"""

# The running job learns of a cancel request from its own progress write.
PROGRESS = """
UPDATE hke_jobs SET done = %(done)s, total = %(total)s, current_file = %(current_file)s, heartbeat_at = now()
WHERE job_id = %(job_id)s AND status = 'running'
RETURNING cancel_requested
"""

# A queued job is cancelled at once (it never starts); a running one is asked to stop and says so when it has.
CANCEL_QUEUED = """
UPDATE hke_jobs SET status = 'cancelled', cancel_requested = true, finished_at = now(), heartbeat_at = now()
WHERE job_id = %(job_id)s AND status = 'queued'
RETURNING status
"""

CANCEL_RUNNING = """
UPDATE hke_jobs SET cancel_requested = true
WHERE job_id = %(job_id)s AND status = 'running'
RETURNING status
"""

# What it stored stays in ``counts``; nothing else changes but the end.
FINISH_CANCELLED = """
UPDATE hke_jobs SET status = 'cancelled', error = %(error)s, current_file = NULL, finished_at = now(),
                    heartbeat_at = now()
WHERE job_id = %(job_id)s
"""

COUNTS = """
UPDATE hke_jobs SET counts = %(counts)s, heartbeat_at = now()
WHERE job_id = %(job_id)s AND status = 'running'
"""

FINISH_JOB = """
UPDATE hke_jobs SET status = %(status)s, counts = %(counts)s, error = %(error)s, current_file = NULL,
                    finished_at = now(), heartbeat_at = now()
WHERE job_id = %(job_id)s
"""

HEARTBEAT = """
UPDATE hke_jobs SET heartbeat_at = now()
WHERE job_id = ANY(%(job_ids)s) AND status IN ('queued', 'running')
"""

# A job whose process stopped beating is over: what it stored stays, its row says so.
FLAG_INTERRUPTED = """
UPDATE hke_jobs SET status = 'interrupted', finished_at = heartbeat_at, current_file = NULL
WHERE status IN ('queued', 'running') AND heartbeat_at < now() - make_interval(secs => %(stale_after_s)s)
RETURNING job_id
"""

_COLUMNS = """
job_id, collection, kind, status, done, total, current_file, counts, error, request, rerun_of, created_at,
started_at, finished_at, heartbeat_at, cancel_requested
"""

LIST_JOBS = f"""
SELECT {_COLUMNS} FROM hke_jobs
WHERE (%(collection)s::text IS NULL OR collection = %(collection)s)
ORDER BY created_at DESC, job_id
LIMIT %(limit)s
"""  # noqa: S608 - a fixed column list, no user text

GET_JOB = f"SELECT {_COLUMNS} FROM hke_jobs WHERE job_id = %(job_id)s"  # noqa: S608 - a fixed column list
