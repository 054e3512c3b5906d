"""The app has no login, so by default it listens on the loopback interface only (issue 12, item 9)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import tomllib

import psutil

from .conftest import ROOT


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_config_binds_to_loopback_and_compose_publishes_on_loopback():
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    assert config["server"]["address"] == "127.0.0.1"
    compose = (ROOT / "docker" / "compose.yaml").read_text(encoding="utf-8")
    assert '"127.0.0.1:8501:8501"' in compose and '- "8501:8501"' not in compose


def test_streamlit_run_without_flags_listens_on_loopback_only(tmp_path):
    port = _free_port()
    env = {**os.environ, "HKE_DATA_DIR": str(tmp_path)}
    # No --server.address: what a user gets from `streamlit run app.py`. The app itself runs only once a browser
    # connects, so this starts no database.
    proc = subprocess.Popen([sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port)],
                            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        listening: list[str] = []
        deadline = time.monotonic() + 60
        while not listening and time.monotonic() < deadline:
            time.sleep(0.3)
            assert proc.poll() is None, "streamlit exited"
            listening = [c.laddr.ip for c in psutil.Process(proc.pid).net_connections("inet")
                         if c.status == psutil.CONN_LISTEN and c.laddr.port == port]
        assert listening == ["127.0.0.1"], listening
    finally:
        proc.terminate()
        proc.wait(timeout=20)
