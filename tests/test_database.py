"""core.db against the real embedded Postgres: lifecycle, crash recovery, sharing, signals, URLs.

Each server-side test runs client processes (tests/helpers_db_child.py) on its own short data dir under
/tmp (Unix socket paths must stay short), and stops whatever it started. Nothing is mocked.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import queue
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import psutil
import psycopg
import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from core import db  # noqa: E402
from core.config import Settings, load_settings  # noqa: E402
from core.db.server import embedded_server  # noqa: E402
from core.db.urls import DatabaseError, psycopg_conninfo, redact_url, sqlalchemy_url  # noqa: E402

HELPER = ROOT / "tests" / "helpers_db_child.py"
SECRET = "TopSecret99"

embedded_only = pytest.mark.skipif(
    bool(os.environ.get("DATABASE_URL")),
    reason="DATABASE_URL is set, so the app would not use the embedded server: embedded-server tests skipped",
)


# -- helpers ---------------------------------------------------------------------------------------


def settings_for(data_dir: Path, database_url: str | None = None) -> Settings:
    return dataclasses.replace(load_settings(), data_dir=data_dir, database_url=database_url)


def gone(pid: int | None, timeout: float = 5.0) -> bool:
    """The process has exited (zombies count as exited) within ``timeout``."""
    if pid is None:
        return True
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if psutil.Process(pid).status() == psutil.STATUS_ZOMBIE:
                return True
        except psutil.NoSuchProcess:
            return True
        time.sleep(0.05)
    return False


def postgres_in(data_dir: Path) -> list[psutil.Process]:
    """Live postgres processes whose data directory is under ``data_dir``."""
    found = []
    for proc in psutil.process_iter(["name"]):
        if proc.info["name"] != "postgres":
            continue
        with contextlib.suppress(psutil.Error):
            if proc.status() != psutil.STATUS_ZOMBIE and proc.cwd().startswith(str(data_dir) + os.sep):
                found.append(proc)
    return found


class Child:
    """A helper process using core.db the way the app does."""

    def __init__(self, action: str, data_dir: Path, **popen: object) -> None:
        env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
        env.update(HKE_DATA_DIR=str(data_dir), PYTHONPATH=str(ROOT), PYTHONUNBUFFERED="1")
        self.stderr = tempfile.TemporaryFile("w+")
        self.proc = subprocess.Popen(
            [sys.executable, str(HELPER), action],
            cwd=ROOT,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.stderr,
            text=True,
            **popen,
        )
        self.pid = self.proc.pid
        self._lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        for line in self.proc.stdout:
            self._lines.put(line)
        self._lines.put(None)

    def event(self, timeout: float = 60.0) -> dict:
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self._lines.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                raise AssertionError(f"no output from child within {timeout}s; stderr:\n{self.log()}") from None
            if line is None:
                raise AssertionError(f"child exited ({self.proc.wait()}) without output; stderr:\n{self.log()}")
            if line.startswith("{"):
                return json.loads(line)

    def log(self) -> str:
        self.stderr.seek(0)
        return self.stderr.read()

    def close_stdin(self) -> None:
        with contextlib.suppress(OSError):
            self.proc.stdin.close()

    def wait(self, timeout: float = 20.0) -> int:
        return self.proc.wait(timeout=timeout)

    def kill(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            self.proc.kill()
        self.proc.wait(timeout=10)


@dataclasses.dataclass
class Shared:
    root: Path  # everything of this module lives under here
    data_dir: Path  # HKE_DATA_DIR of the shared server (stopped between tests)
    cold: dict  # the report of the cold start (initdb) that created it
    cold_exit: int


@pytest.fixture(scope="module")
def shared():
    """One data dir for the module, created by a real cold start: initdb is the slow part, so it runs once."""
    root = Path(tempfile.mkdtemp(dir="/tmp", prefix="hke-"))
    data_dir = root / "nested" / "hke"  # parents must be created
    child = Child("once", data_dir)
    try:
        cold = child.event()
        code = child.wait()
    except BaseException:
        child.kill()
        raise
    yield Shared(root, data_dir, cold, code)
    with contextlib.suppress(Exception):
        db.stop_embedded(settings_for(data_dir))
    for proc in postgres_in(root):
        with contextlib.suppress(psutil.Error):
            proc.kill()
    shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def env(shared):
    """Per test: the shared data dir; afterwards every child and server the test started is gone."""
    children: list[Child] = []
    yield shared, children
    for child in children:
        if child.proc.poll() is None:
            child.kill()
    for pgdata in shared.root.rglob("pgdata"):
        with contextlib.suppress(Exception):
            db.stop_embedded(settings_for(pgdata.parent))
    leftovers = postgres_in(shared.root)
    for proc in leftovers:
        with contextlib.suppress(psutil.Error):
            proc.kill()
    assert not leftovers, f"test left postgres processes running: {[p.pid for p in leftovers]}"


def start_child(env, action: str, data_dir: Path | None = None) -> Child:
    shared, children = env
    child = Child(action, data_dir or shared.data_dir)
    children.append(child)
    return child


def ready(child: Child) -> dict:
    event = child.event()
    assert event["event"] == "ready", (event, child.log())
    return event


# -- URLs (no server) ------------------------------------------------------------------------------


def test_url_helpers_convert_both_ways_and_redact():
    for given in ("postgres://u:p@h:5432/db", "postgresql://u:p@h:5432/db", "postgresql+psycopg://u:p@h:5432/db",
                  "postgresql+psycopg2://u:p@h:5432/db"):
        assert psycopg_conninfo(given) == "postgresql://u:p@h:5432/db"
        assert sqlalchemy_url(given) == "postgresql+psycopg://u:p@h:5432/db"
    for convert in (psycopg_conninfo, sqlalchemy_url):
        with pytest.raises(DatabaseError) as err:
            convert(f"mysql://u:{SECRET}@h/db")
        assert SECRET not in str(err.value) and "mysql" in str(err.value)

    url = "postgresql://postgres@/postgres?host=/tmp/x/pgdata&port=5432"
    assert psycopg_conninfo(url) == url
    assert sqlalchemy_url(url) == "postgresql+psycopg://postgres@/postgres?host=/tmp/x/pgdata&port=5432"
    assert psycopg_conninfo("host=/tmp dbname=x") == "host=/tmp dbname=x"
    # A keyword/value string (what psycopg's make_conninfo returns) becomes a URL SQLAlchemy reads the same way.
    from sqlalchemy.engine import make_url

    sa = make_url(sqlalchemy_url("host=/tmp/x dbname=hke application_name=t1"))
    assert (sa.drivername, dict(sa.query)) == ("postgresql+psycopg", {"host": "/tmp/x", "dbname": "hke",
                                                                      "application_name": "t1"})

    assert redact_url(f"postgresql+psycopg://user:{SECRET}@db:5432/hke") == "postgresql+psycopg://user:***@db:5432/hke"
    assert redact_url("postgresql+psycopg://user:p@ss:w/rd@db/hke?sslmode=require") == (
        "postgresql+psycopg://user:***@db/hke?sslmode=require"
    )
    assert redact_url(url) == url
    assert redact_url(f"postgresql://u@h/db?password={SECRET}&x=1") == "postgresql://u@h/db?password=***&x=1"
    assert redact_url(f"host=h password={SECRET} dbname=x") == "host=h password=*** dbname=x"

    external = settings_for(Path("/nonexistent"), f"postgres+psycopg://u:{SECRET}@h/db")
    assert db.database_url(external) == f"postgresql://u:{SECRET}@h/db"


def test_external_url_unreachable_or_malformed_never_leaks_password(caplog):
    caplog.set_level("DEBUG", logger="hke.database")
    down = settings_for(Path("/nonexistent"), f"postgresql://hke:{SECRET}@127.0.0.1:1/db")
    st = db.status(down)
    assert (st.mode, st.running) == ("external", False)
    assert "127.0.0.1" in st.error and st.url_redacted == "postgresql://hke:***@127.0.0.1:1/db"
    assert db.stop_embedded(down) is False
    assert "nothing to stop" in caplog.text

    # libpq echoes a malformed URI, password included, in its error message.
    malformed = settings_for(Path("/nonexistent"), f"postgresql://hke:{SECRET}@[::1/db")
    st = db.status(malformed)
    assert not st.running and "IPv6" in st.error
    assert SECRET not in repr(st) and SECRET not in caplog.text


# -- embedded server -------------------------------------------------------------------------------


def test_a_shared_buffers_size_is_digits_and_a_unit_or_refused_naming_the_variable(monkeypatch):
    monkeypatch.delenv("HKE_SHARED_BUFFERS", raising=False)
    assert load_settings().shared_buffers == ""
    for size in ("512MB", "6GB", "256kB"):
        monkeypatch.setenv("HKE_SHARED_BUFFERS", size)
        assert load_settings().shared_buffers == size
    # It goes on the server's command line: anything but digits and a unit is refused.
    for bad in ("6 GB", "6gb", "6TB", "-1GB", "0MB", "6GB -c fsync=off", "6GB'; rm -rf /", "lots"):
        monkeypatch.setenv("HKE_SHARED_BUFFERS", bad)
        with pytest.raises(ValueError, match="HKE_SHARED_BUFFERS must be a size"):
            load_settings()


@embedded_only
def test_cold_start_creates_data_dir_enables_pgvector_and_exit_stops_server(env, monkeypatch):
    shared, _ = env
    data_dir, event = shared.data_dir, shared.cold  # the module fixture's cold start (initdb)
    assert event["event"] == "ready", event
    st = event["status"]
    assert st["pgdata"] == str(data_dir / "pgdata") and st["socket_dir"] == str(data_dir / "pgdata")
    assert st["running"] and st["postgres_version"].startswith("18") and st["pgvector_version"] == "0.8.6"
    assert event["select_one"] == 1 and event["vector_distance"] == 1.0
    # Unset, the server keeps Postgres' own size (measured as fast as 6 GB at 1M elements: README, "Scale").
    assert event["shared_buffers_bytes"] == 128 * 2**20
    assert st["shared_buffers"] and event["started_here"] and st["attached_pids"] == [event["pid"]]
    assert "_on_signal" in event["sigterm_handler"]
    print(f"cold start (initdb + start + pgvector): {event['start_seconds']:.2f}s")
    assert shared.cold_exit == 0
    assert gone(st["server_pid"]), "the last client exited but the server is still running"
    assert not db.status(settings_for(data_dir)).running

    nostart = start_child(env, "url-nostart").event()
    assert nostart["event"] == "error" and "not running" in nostart["error"]
    assert not postgres_in(shared.root), "database_url(start=False) must not start the server"

    monkeypatch.setenv("HKE_SHARED_BUFFERS", "160MB")  # each start applies the size it is given
    warm = start_child(env, "once")
    event = ready(warm)
    print(f"warm start (existing pgdata): {event['start_seconds']:.2f}s")
    assert event["shared_buffers_bytes"] == 160 * 2**20 and event["status"]["shared_buffers"] == "160MB"
    assert event["started_here"] and warm.wait() == 0 and gone(event["status"]["server_pid"])


def _overcommit_refuses_huge_maps() -> bool:
    with contextlib.suppress(OSError):
        return Path("/proc/sys/vm/overcommit_memory").read_text().strip() != "1"
    return False


@embedded_only
@pytest.mark.skipif(not _overcommit_refuses_huge_maps(), reason="this kernel maps any size (vm.overcommit_memory=1)")
def test_shared_buffers_the_machine_refuses_are_an_error_naming_the_variable_and_a_smaller_size_starts(env):
    shared, _ = env
    settings = settings_for(shared.data_dir)
    with pytest.raises(DatabaseError, match=r"could not allocate HKE_SHARED_BUFFERS=900GB .* set a smaller size"):
        db.database_url(dataclasses.replace(settings, shared_buffers="900GB"))
    assert not postgres_in(shared.root)
    try:
        with psycopg.connect(db.database_url(dataclasses.replace(settings, shared_buffers="144MB"))) as conn:
            assert conn.execute("SHOW shared_buffers").fetchone()[0] == "144MB"
    finally:
        db.stop_embedded(settings)


@embedded_only
def test_unwritable_data_dir_raises_clear_error(env):
    shared, _ = env
    root = shared.root / "unwritable"
    root.mkdir()
    (root / "afile").write_text("not a directory")
    under_file = root / "afile" / "data"
    with pytest.raises(DatabaseError, match="data directory") as err:
        db.database_url(settings_for(under_file))
    assert str(under_file) in str(err.value) and "HKE_DATA_DIR" in str(err.value)

    readonly = root / "ro"
    readonly.mkdir()
    target = readonly / "data"
    if os.geteuid() == 0:  # root writes anywhere: the client drops to an unprivileged user
        for path in (shared.root, root, readonly):
            path.chmod(0o755)
        child = start_child(env, "once-as-nobody", target)
    else:
        readonly.chmod(0o555)
        child = start_child(env, "once", target)
    event = child.event()
    assert child.wait() == 3
    assert event["event"] == "error" and str(target) in event["error"] and "HKE_DATA_DIR" in event["error"], event
    assert not target.exists()


@embedded_only
@pytest.mark.parametrize("pid_file", ["dead pid", "pid reused by a live process"])
def test_stale_postmaster_pid_after_crash_is_recovered(env, pid_file):
    shared, _ = env
    first = start_child(env, "hold")
    crashed = ready(first)["status"]["server_pid"]
    os.kill(crashed, signal.SIGKILL)
    first.kill()
    assert gone(crashed)
    pid_path = shared.data_dir / "pgdata" / "postmaster.pid"
    assert pid_path.exists(), "a SIGKILLed postmaster leaves its postmaster.pid"
    if pid_file == "pid reused by a live process":
        lines = pid_path.read_text().splitlines()
        pid_path.write_text("\n".join([str(os.getpid()), *lines[1:]]) + "\n")
    assert not db.status(settings_for(shared.data_dir)).running

    second = start_child(env, "once")
    event = ready(second)
    assert event["select_one"] == 1 and event["started_here"]
    assert event["status"]["server_pid"] != crashed
    assert event["status"]["attached_pids"] == [second.pid], "the SIGKILLed client must have been pruned"
    assert "stale" in second.log()
    assert second.wait() == 0 and gone(event["status"]["server_pid"])


@embedded_only
def test_dead_client_pids_are_pruned_so_last_live_exit_stops_server(env):
    shared, _ = env
    a, b = start_child(env, "hold"), start_child(env, "hold")
    server = ready(a)["status"]["server_pid"]
    assert ready(b)["status"]["server_pid"] == server
    assert sorted(db.status(settings_for(shared.data_dir)).attached_pids) == sorted([a.pid, b.pid])
    b.kill()  # SIGKILL: no cleanup; the kernel drops its lock, so it stops counting at once
    assert db.status(settings_for(shared.data_dir)).attached_pids == [a.pid]
    a.close_stdin()  # a exits normally: b is dead, so a is the last user
    assert a.wait() == 0
    assert gone(server), "a dead client kept the server alive"

    # Client files nobody holds: a dead pid's, and one named after a live process that is not a client (a reused
    # pid). Neither counts, and the last client's exit removes them.
    clients_dir = embedded_server(shared.data_dir / "pgdata").clients_dir
    for pid in (b.pid, os.getpid()):
        (clients_dir / str(pid)).touch()
    c = start_child(env, "once")
    event = ready(c)
    assert event["status"]["attached_pids"] == [c.pid]
    assert c.wait() == 0 and gone(event["status"]["server_pid"])
    assert list(clients_dir.iterdir()) == []


@embedded_only
def test_sigterm_of_starting_process_stops_server(env):
    child = start_child(env, "hold")
    server = ready(child)["status"]["server_pid"]
    child.proc.send_signal(signal.SIGTERM)
    assert child.wait(timeout=10) == 128 + signal.SIGTERM
    assert gone(server), f"orphaned postmaster {server} after SIGTERM; child log:\n{child.log()}"


@embedded_only
@pytest.mark.parametrize("action", ["thread-hold", "main-chain-hold"])
def test_sigterm_with_an_existing_handler_like_streamlit(env, action):
    """The process has its own SIGTERM handler that ends main() (as Streamlit's does); the database is started
    from a worker thread (Streamlit's script thread: we cannot install a handler) or from the main thread
    (ours wraps and calls theirs). Either way the exit runs atexit, which stops the server."""
    child = start_child(env, action)
    event = ready(child)
    assert event["hooks"] is True
    handler = "lambda" if action == "thread-hold" else "_on_signal"
    assert handler in event["sigterm_handler"]
    child.proc.send_signal(signal.SIGTERM)
    assert child.wait(timeout=10) == 0
    assert gone(event["status"]["server_pid"]), child.log()


@embedded_only
def test_two_processes_share_one_server_until_the_last_exits(env):
    shared, _ = env
    a, b = start_child(env, "hold"), start_child(env, "hold")
    ea, eb = ready(a), ready(b)
    server = ea["status"]["server_pid"]
    assert eb["status"]["server_pid"] == server and ea["url"] == eb["url"]
    assert [ea["started_here"], eb["started_here"]].count(True) == 1
    st = db.status(settings_for(shared.data_dir))
    assert st.running and sorted(st.attached_pids) == sorted([a.pid, b.pid])

    first, second = (a, b) if ea["started_here"] else (b, a)
    first.proc.send_signal(signal.SIGTERM)  # the one that started it leaves first
    assert first.wait(timeout=10) == 128 + signal.SIGTERM
    st = db.status(settings_for(shared.data_dir))
    assert st.running and st.server_pid == server and st.attached_pids == [second.pid]

    second.close_stdin()
    assert second.wait() == 0
    assert gone(server)


@embedded_only
def test_stop_embedded_from_another_process(env):
    shared, _ = env
    child = start_child(env, "hold")
    server = ready(child)["status"]["server_pid"]
    assert db.stop_embedded(settings_for(shared.data_dir)) is True
    assert gone(server) and child.proc.poll() is None
    assert db.stop_embedded(settings_for(shared.data_dir)) is False
    child.close_stdin()
    assert child.wait() == 0 and "Traceback" not in child.log()
    assert not postgres_in(shared.root)


@embedded_only
def test_repeated_calls_are_cheap_thread_safe_and_restart_after_stop(env):
    child = start_child(env, "threads")
    event = child.event()
    assert event["event"] == "threads", event
    assert event["errors"] == [] and len(event["distinct_urls"]) == 1
    assert event["handles"] == [child.pid], "16 concurrent first calls must register the process once"
    print(f"cached database_url(): {event['per_call_seconds'] * 1e6:.0f} µs per call")
    assert event["per_call_seconds"] < 2e-3
    assert event["stopped"] and not event["running_after_stop"]
    assert event["running_after_restart"] and event["server_pid_after"] != event["server_pid_before"]
    assert child.wait() == 0
    assert gone(event["server_pid_after"]), "after a restart in the same process, exit must still stop the server"


@embedded_only
def test_long_data_dir_gets_a_short_socket_dir(env):
    shared, _ = env
    data_dir = shared.root / ("d" * 60) / ("e" * 60)
    assert len(str(data_dir / "pgdata" / ".s.PGSQL.5432")) > 108
    data_dir.mkdir(parents=True)
    # A copy of the stopped shared cluster (ownership kept) saves an initdb.
    subprocess.run(["cp", "-a", str(shared.data_dir / "pgdata"), str(data_dir)], check=True)
    try:
        child = start_child(env, "once", data_dir)
        event = ready(child)
        socket_dir = event["status"]["socket_dir"]
        assert event["select_one"] == 1 and len(socket_dir + "/.s.PGSQL.5432") < 100
        assert child.wait() == 0 and gone(event["status"]["server_pid"])
        shutil.rmtree(socket_dir, ignore_errors=True)
    finally:
        with contextlib.suppress(Exception):
            db.stop_embedded(settings_for(data_dir))
        shutil.rmtree(shared.root / ("d" * 60), ignore_errors=True)


@embedded_only
def test_external_mode_reports_version_and_never_stops_the_server(env):
    shared, _ = env
    child = start_child(env, "hold")
    event = ready(child)
    socket_dir = event["status"]["socket_dir"]
    external = settings_for(shared.root / "unused", f"postgresql://postgres:{SECRET}@/postgres?host={socket_dir}")
    st = db.status(external)
    assert (st.mode, st.running, st.pgvector_version) == ("external", True, "0.8.6")
    assert st.postgres_version.startswith("18") and SECRET not in repr(st) and "***" in st.url_redacted
    assert db.stop_embedded(external) is False
    assert not gone(event["status"]["server_pid"], timeout=0.2)
    child.close_stdin()
    assert child.wait() == 0 and gone(event["status"]["server_pid"])


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@embedded_only
@pytest.mark.slow
def test_streamlit_sigterm_stops_server(env, tmp_path):
    """Real `streamlit run`: the script thread starts the database; SIGTERM to Streamlit must stop it."""
    pytest.importorskip("streamlit")
    websockets = pytest.importorskip("websockets.sync.client")
    from streamlit.proto.BackMsg_pb2 import BackMsg

    shared, _ = env
    root = shared.data_dir
    app = tmp_path / "app.py"
    app.write_text(
        "import sys\n"
        f"sys.path.insert(0, {str(ROOT)!r})\n"
        "import streamlit as st\n"
        "from core.db import database_url, status\n"
        "from core.db.server import install_shutdown_hooks\n"
        "install_shutdown_hooks()\n"
        "database_url()\n"
        "st.write('pid=%s' % status().server_pid)\n"
    )
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    env.update(HKE_DATA_DIR=str(root), PYTHONPATH=str(ROOT))
    cmd = [sys.executable, "-m", "streamlit", "run", str(app), "--server.headless=true",
           f"--server.port={port}", "--server.address=127.0.0.1", "--browser.gatherUsageStats=false"]
    with tempfile.TemporaryFile("w+") as log:
        proc = subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT, cwd=tmp_path)
        try:
            deadline = time.monotonic() + 30
            while True:
                try:
                    ws = websockets.connect(f"ws://127.0.0.1:{port}/_stcore/stream", subprotocols=["streamlit"])
                    break
                except OSError:
                    assert time.monotonic() < deadline and proc.poll() is None, "streamlit did not start"
                    time.sleep(0.2)
            with ws:
                msg = BackMsg()
                msg.rerun_script.query_string = ""
                ws.send(msg.SerializeToString())
                server = None
                while server is None and time.monotonic() < deadline:
                    st = db.status(settings_for(root))
                    server = st.server_pid if st.running else None
                    time.sleep(0.1)
                assert server, "the script did not start the database"
                proc.send_signal(signal.SIGTERM)  # with the session still connected
                assert proc.wait(timeout=15) == 0
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            log.seek(0)
            output = log.read()
    assert gone(server), f"Streamlit exited on SIGTERM but left postmaster {server}:\n{output}"


@pytest.mark.skipif(not os.environ.get("DATABASE_URL"), reason="needs DATABASE_URL (CI: tests/tcp_postgres.py)")
def test_external_server_with_a_password(db_url):
    """Against the server of DATABASE_URL (in CI: TCP on 127.0.0.1, scram-sha-256, no Unix socket): status reports
    it without its password, a wrong password is a clear error that names neither password, and nothing stops it."""
    from urllib.parse import unquote, urlsplit

    settings = load_settings()
    given = urlsplit(psycopg_conninfo(settings.database_url))
    st = db.status(settings)
    assert (st.mode, st.running, st.error) == ("external", True, None)
    assert st.pgvector_version and st.postgres_version
    if given.password:
        password = unquote(given.password)
        assert password not in repr(st) and "***" in st.url_redacted
        wrong_password = "Wr0ng-" + password[:6]
        wrong = given._replace(netloc=f"{given.username}:{wrong_password}@{given.hostname}:{given.port}").geturl()
        bad = db.status(settings_for(Path("/nonexistent"), wrong))
        assert not bad.running and "password authentication failed" in bad.error, bad
        assert password not in repr(bad) and wrong_password not in repr(bad)
    assert db.stop_embedded(settings) is False and db.status(settings).running


@pytest.mark.slow
def test_the_tcp_server_of_ci_needs_its_password_and_leaves_nothing_behind(tmp_path):
    """tests/tcp_postgres.py, which CI's second pass runs the database tests against: TCP only, a password, a role
    that is not a superuser, pgvector ready; stop() leaves no process and no directory."""
    from urllib.parse import urlsplit

    import psycopg

    from tests import tcp_postgres

    root = Path(tempfile.mkdtemp(prefix="hke-tcp-", dir="/tmp")) / "server"
    postmaster = None
    try:
        url = tcp_postgres.start(root)
        postmaster = int((root / "pgdata" / "postmaster.pid").read_text().split()[0])
        parts = urlsplit(url)
        assert parts.hostname == "127.0.0.1" and parts.password and not list(root.rglob(".s.PGSQL.*"))
        st = db.status(settings_for(tmp_path, url))
        assert (st.mode, st.running, st.pgvector_version) == ("external", True, "0.8.6"), st
        with psycopg.connect(url) as conn:
            assert conn.execute("SELECT rolsuper FROM pg_roles WHERE rolname = current_user").fetchone() == (False,)
        with pytest.raises(psycopg.OperationalError, match="password"):
            psycopg.connect(url.replace(f":{parts.password}@", "@"), connect_timeout=5)
    finally:
        tcp_postgres.stop(root)
        shutil.rmtree(root.parent, ignore_errors=True)
    assert postmaster and gone(postmaster) and not root.exists()
