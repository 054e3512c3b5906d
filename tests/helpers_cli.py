"""``python -m core …`` run in this process: the same entry point (:func:`core.cli.main`), its stdout, stderr and exit
status captured, without a fresh interpreter's 3–6 s of imports per call.

For tests about what a command does. A test about the process itself (what a usage error loads, the exit status of
``python -m core`` as a shell sees it, an environment the test process must not take on) starts a subprocess.
"""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
from collections.abc import Iterator, Mapping

from .conftest import ROOT


@contextlib.contextmanager
def _environment(env: Mapping[str, str] | None) -> Iterator[None]:
    if not env:
        yield
        return
    saved = {name: os.environ.get(name) for name in env}
    os.environ.update(env)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def cli(*args: str | bytes, env: Mapping[str, str] | None = None) -> subprocess.CompletedProcess:
    """Run ``python -m core *args`` in process; returns what :func:`subprocess.run` would (text mode). A bytes
    argument is decoded as the interpreter decodes ``argv`` (:func:`os.fsdecode`: undecodable bytes as surrogates)."""
    from core.cli import main

    # A binary buffer under stdout, as a real one has: `show --raw` writes the document's bytes there.
    out, err = io.BytesIO(), io.StringIO()
    text_out = io.TextIOWrapper(out, encoding="utf-8", errors="surrogateescape", write_through=True)
    with _environment(env), contextlib.redirect_stdout(text_out), contextlib.redirect_stderr(err):
        try:
            code = main([os.fsdecode(a) for a in args])
        except SystemExit as exc:  # argparse's usage errors and --help
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
        text_out.flush()
    stdout = out.getvalue().decode("utf-8", errors="replace").replace("\r\n", "\n")
    return subprocess.CompletedProcess([sys.executable, "-m", "core", *args], code, stdout, err.getvalue())


__all__ = ["ROOT", "cli"]
