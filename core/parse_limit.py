"""A time limit on parsers we do not control: each parse runs in a child process that is killed at the limit.

markdown-it has a cooperative deadline of its own (:mod:`core.markdown_loader` checks it inside its rules), but
unstructured (markdown, HTML, DOCX) offers no way in: 20 KB of ``[`` ran past 300 s and 2.5 MB of HTML with 150k
``<p>`` took 272 s. A thread cannot be stopped, so the work runs in a process, which can.

Children are forked from a fork server (a clean, single-threaded process: forking the app itself, with its
server and pool threads, could copy a held lock) that has the parsers imported already, so a parse pays a fork
(milliseconds), not a 3 s import. The server is started, and waited for, before the first limit starts counting.
"""

from __future__ import annotations

import multiprocessing
import sys
import threading
import types
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any, TypeVar

__all__ = ["ParseFailed", "ParseTimedOut", "parse_time_limit", "run_with_time_limit"]

T = TypeVar("T")

# What the fork server imports before forking children (see core/parse_preload.py).
_PRELOAD = ["core.parse_preload"]
_context_lock = threading.Lock()
_context: Any = None
_start_lock = threading.Lock()
# A child re-imports the parent's ``__main__`` from its file before it runs its target. Streamlit installs each page
# script it runs as ``__main__`` and leaves it there, so a parse started from the app would run a page script (its
# queries, its widgets) in the parser process first, and a script that only runs inside Streamlit kills it. The
# children start with this bare module as ``__main__`` instead: a parse needs nothing from it.
_BARE_MAIN = types.ModuleType("__main__")


class ParseTimedOut(RuntimeError):
    """The parse ran past its limit and was stopped."""


class ParseFailed(RuntimeError):
    """The parse raised ``kind`` (an exception class name) with ``message``, or its process died."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message


def parse_time_limit(default: float) -> float:
    """Seconds a parse may take: ``HKE_PARSE_TIMEOUT`` if set, else ``default``."""
    from core.config import load_settings

    raw = load_settings().parse_timeout
    if not raw:
        return default
    try:
        seconds = float(raw)
    except ValueError as exc:
        raise ValueError(f"HKE_PARSE_TIMEOUT must be a number of seconds, got {raw!r}") from exc
    if not seconds > 0:
        raise ValueError(f"HKE_PARSE_TIMEOUT must be more than 0 seconds, got {raw}")
    return seconds


def _fork_context() -> Any:
    global _context
    with _context_lock:
        if _context is None:
            context = multiprocessing.get_context("forkserver")
            # Explicit list: the default would also re-import __main__ (the CLI, Streamlit's runner) in the server.
            context.set_forkserver_preload(_PRELOAD)
            # Start the server and let its preload finish now, so that it is not counted in the first parse's limit.
            warm = context.Process(target=_noop, daemon=True)
            _start(warm)
            warm.join()
            _context = context
        return _context


def _noop() -> None:
    pass


def _start(process: multiprocessing.process.BaseProcess) -> None:
    """``process.start()`` with :data:`_BARE_MAIN` as ``__main__`` for the moment the child's preparation is read."""
    with _start_lock:
        main = sys.modules["__main__"]
        sys.modules["__main__"] = _BARE_MAIN
        try:
            process.start()
        finally:
            # Another thread (Streamlit's script runner) may have installed its own __main__ meanwhile: keep it.
            if sys.modules["__main__"] is _BARE_MAIN:
                sys.modules["__main__"] = main


def _child(sender: Connection, fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    try:
        result = fn(*args, **kwargs)
    except BaseException as exc:  # sent back by name: arbitrary exception classes need not pickle
        sender.send(("error", (type(exc).__name__, str(exc))))
    else:
        sender.send(("ok", result))
    finally:
        sender.close()


def run_with_time_limit(fn: Callable[..., T], *args: Any, limit: float, **kwargs: Any) -> T:
    """``fn(*args, **kwargs)`` in a child process, killed after ``limit`` s (:class:`ParseTimedOut`).

    An exception in the child becomes :class:`ParseFailed` with its class name and message; so does a child that
    dies without an answer (killed for memory, a crash in native code). ``fn`` must be a module-level function.
    """
    context = _fork_context()
    receiver, sender = context.Pipe(duplex=False)
    process = context.Process(target=_child, args=(sender, fn, args, kwargs), daemon=True, name="hke-parse")
    _start(process)
    sender.close()  # the child holds its own end: EOF here means it died
    try:
        if not receiver.poll(limit):
            raise ParseTimedOut(f"parsing stopped after {limit:g} s")
        try:
            kind, payload = receiver.recv()
        except EOFError:
            process.join(1)
            raise ParseFailed("died", f"the parser process died (exit code {process.exitcode})") from None
    finally:
        if process.is_alive():
            process.kill()
        process.join()
        receiver.close()
    if kind == "error":
        raise ParseFailed(*payload)
    return payload
