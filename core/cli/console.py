"""What every command prints: one JSON document or text on stdout, errors and progress on stderr."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from core.config import load_settings
from core.progress import Progress, ProgressCallback, no_progress


def emit(payload: Any, as_json: bool, text: str | None = None) -> None:
    """``payload`` as JSON with ``--json`` (or when there is no ``text``), else ``text``."""
    if as_json or text is None:
        print(json.dumps(payload, ensure_ascii=False, indent=2, default=str))
    else:
        print(text)


def fail(message: str, code: int = 2) -> int:
    """Print ``error: message`` on stderr, the database password redacted, and return the exit status ``code``."""
    url = configured_database_url()
    if url or _MAY_HOLD_SECRET.search(message):
        from core.store.database import redact_text  # the database driver: only when there is something to hide

        message = redact_text(message, url)
    print(f"error: {message}", file=sys.stderr)
    return code


# What core.db.urls.redact_text hides when no database URL is configured: URL-like strings, userinfo@host and
# password settings. A message with none of these (most usage errors) is printed without loading the driver.
_MAY_HOLD_SECRET = re.compile(r"://|@|password", re.IGNORECASE)


def configured_database_url() -> str | None:
    """The configured database URL, for redaction; None when a setting is bad (the command reports that itself)."""
    try:
        return load_settings().database_url
    except ValueError:
        return None


class _TqdmBar:
    """A tqdm bar on stderr following a job's :class:`Progress`: its stage as the label, its message after."""

    def __init__(self, desc: str, unit: str) -> None:
        from tqdm import tqdm

        self._bar = tqdm(desc=desc, unit=unit, file=sys.stderr, total=0, dynamic_ncols=True)

    def __call__(self, progress: Progress) -> None:
        if progress.stage:
            self._bar.set_description_str(progress.stage, refresh=False)
        if progress.total and self._bar.total != progress.total:
            self._bar.total = progress.total
        self._bar.n = progress.done
        self._bar.set_postfix_str(progress.message[-40:], refresh=True)

    def close(self) -> None:
        self._bar.close()


@contextmanager
def progress_bar(desc: str, unit: str) -> Iterator[ProgressCallback]:
    """A progress callback drawing a bar on a terminal; on a pipe or file it draws nothing (stdout stays clean)."""
    if not sys.stderr.isatty():
        yield no_progress
        return
    bar = _TqdmBar(desc, unit)
    try:
        yield bar
    finally:
        bar.close()
