"""Child process for tests/test_database.py: uses core.db the way the app does, prints JSON lines.

Usage: ``python tests/helpers_db_child.py ACTION`` with HKE_DATA_DIR set. Actions:

* ``once``    start/attach, connect, print a report, exit normally (atexit releases the server).
* ``once-as-nobody`` the same after dropping root privileges to uid/gid 65534 (for the read-only data dir test).
* ``hold``    like ``once``, then block until stdin closes (or a signal arrives).
* ``threads`` start from 16 threads at once, then time repeated calls, stop_embedded(), restart, exit.
* ``thread-hold`` Streamlit-like: the main thread only waits for a SIGTERM handler of its own to fire
  (as Streamlit's does: it stops the server loop and returns), while database_url() runs in a worker thread.
* ``main-chain-hold`` the same with database_url() on the main thread (our handler chains to the existing one).
* ``status`` / ``stop`` / ``url-nostart`` print the result of status() / stop_embedded() / database_url(start=False).
"""

from __future__ import annotations

import json
import logging
import os
import signal
import sys
import threading
import time
from dataclasses import asdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core import db  # noqa: E402
from core.config import load_settings  # noqa: E402
from core.db.server import embedded_server, install_shutdown_hooks  # noqa: E402
from core.db.urls import DatabaseError  # noqa: E402


def emit(**payload) -> None:
    print(json.dumps(payload, default=str), flush=True)


def report(url: str) -> dict:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        one = conn.execute("SELECT 1").fetchone()[0]
        vec = conn.execute("SELECT '[1,2,3]'::vector <-> '[1,2,4]'::vector").fetchone()[0]
        buffers = conn.execute("SELECT pg_size_bytes(current_setting('shared_buffers'))").fetchone()[0]
    st = db.status()
    server = embedded_server(load_settings().pgdata)
    return {
        "pid": os.getpid(),
        "url": url,
        "select_one": one,
        "vector_distance": vec,
        "shared_buffers_bytes": buffers,
        "status": asdict(st),
        "started_here": server.started_here,
        "start_seconds": server.last_start_seconds,
        "sigterm_handler": repr(signal.getsignal(signal.SIGTERM)),
    }


def main() -> int:
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(process)d %(name)s %(message)s")
    action = sys.argv[1]
    if action == "once-as-nobody":
        # Root may write anywhere, so drop to an unprivileged user, after every import (the interpreter itself may
        # live under /root, unreadable to that user).
        import psycopg  # noqa: F401

        os.setgroups([])
        os.setgid(65534)
        os.setuid(65534)
        action = "once"
    if action in ("once", "hold"):
        t0 = time.monotonic()
        url = db.database_url()
        emit(event="ready", call_seconds=time.monotonic() - t0, **report(url))
        if action == "hold":
            sys.stdin.read()  # until the parent closes stdin (or a signal ends us)
        return 0
    if action == "threads":
        urls: list[str] = []
        errors: list[str] = []
        barrier = threading.Barrier(16)

        def worker() -> None:
            barrier.wait()
            try:
                urls.append(db.database_url())
            except Exception as exc:  # reported, asserted on by the test
                errors.append(repr(exc))

        t0 = time.monotonic()
        threads = [threading.Thread(target=worker) for _ in range(16)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        first = time.monotonic() - t0
        # The best of five rounds, as timeit reports: on a loaded machine the scheduler stalls some rounds, and a
        # call that did real work (a connection, a file read) makes every round slow.
        n = 400
        rounds = []
        for _ in range(5):
            t1 = time.monotonic()
            for _ in range(n):
                db.database_url()
            rounds.append((time.monotonic() - t1) / n)
        per_call = min(rounds)
        handles = db.status().attached_pids
        st1 = db.status()
        stopped = db.stop_embedded()
        st2 = db.status()
        t2 = time.monotonic()
        url2 = db.database_url()
        restart = time.monotonic() - t2
        st3 = db.status()
        emit(
            event="threads",
            pid=os.getpid(),
            distinct_urls=sorted(set(urls)),
            errors=errors,
            first_seconds=first,
            per_call_seconds=per_call,
            handles=handles,
            server_pid_before=st1.server_pid,
            stopped=stopped,
            running_after_stop=st2.running,
            restart_seconds=restart,
            url_after_restart=url2,
            server_pid_after=st3.server_pid,
            running_after_restart=st3.running,
        )
        return 0
    if action in ("thread-hold", "main-chain-hold"):
        stop = threading.Event()
        # Like streamlit.web.bootstrap: a main-thread handler that asks the server loop to stop; main() returns.
        signal.signal(signal.SIGTERM, lambda signum, frame: stop.set())
        box: dict = {}

        def script() -> None:
            box["hooks"] = install_shutdown_hooks()  # what app.py does
            box["url"] = db.database_url()

        if action == "thread-hold":  # Streamlit runs app.py in a (daemon) script thread
            t = threading.Thread(target=script, daemon=True)
            t.start()
            t.join()
        else:  # on the main thread our handler wraps the existing one and must hand over to it
            script()
        emit(event="ready", hooks=box.get("hooks"), **report(box["url"]))
        while not stop.wait(0.05):
            pass
        return 0
    if action == "status":
        emit(event="status", **asdict(db.status()))
        return 0
    if action == "stop":
        emit(event="stop", stopped=db.stop_embedded())
        return 0
    if action == "url-nostart":
        try:
            emit(event="url", url=db.database_url(start=False))
        except DatabaseError as exc:
            emit(event="error", error=str(exc))
        return 0
    raise SystemExit(f"unknown action {action!r}")


if __name__ == "__main__":
    try:
        sys.exit(main())
    except DatabaseError as exc:
        emit(event="error", error=str(exc))
        sys.exit(3)
