"""When a version starts to hold (``valid_from``): where that date comes from, strict parsing, and as-of choice.

Sources, first that has a date wins, none guessed:

1. an explicit value (the CLI's ``--valid-from DATE``);
2. the front matter: ``valid_from``, then ``effective``, then ``date``;
3. the file's last git commit date (``git log -1 --format=%cI -- FILE``) when the file is tracked in a git work tree
   and has no uncommitted changes (a commit date does not describe content that differs from the commit);
4. the ingest time.

An explicit or front-matter value that does not parse is an error, not a reason to fall through to the next source.

Every date the app takes (these, ``--as-of``, ``--since``, ``--until``, a question's dates, a retirement date) must
fall in years 1 to 9999 once read in UTC (:func:`check_date_range`): Postgres stores dates outside that range, but
Python cannot read them back, so one such row would make every read of its collection fail.
"""

from __future__ import annotations

import functools
import re
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from pathlib import Path
from typing import TypeVar

from core.front_matter import parse_front_matter

FRONT_MATTER_KEYS = ("valid_from", "effective", "date")
GIT_TIMEOUT_S = 5.0
ACCEPTED_FORMS = "YYYY-MM-DD, or an ISO 8601 date-time with an offset (YYYY-MM-DDTHH:MM[:SS[.ffffff]]+HH:MM or Z)"

_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_DATETIME = re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?(?:Z|[+-]\d{2}:\d{2})")


# The dates a Python datetime can hold in UTC: the only ones that may reach the database (module docstring).
EARLIEST = datetime(1, 1, 1, tzinfo=UTC)
LATEST = datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=UTC)
ACCEPTED_RANGE = "years 1 to 9999 in UTC (0001-01-01T00:00Z to 9999-12-31T23:59:59.999999Z)"


class DateError(ValueError):
    """A date that does not parse or is out of range; the message names the accepted forms or range."""


class DateRangeError(DateError):
    """A date that parses but falls outside :data:`ACCEPTED_RANGE`."""


def check_date_range(value: datetime, *, what: str = "date", text: str | None = None) -> datetime:
    """``value`` unchanged when its UTC value falls in :data:`ACCEPTED_RANGE`; :class:`DateError` otherwise.

    A naive ``value`` is read as UTC. ``text`` is the date as the user wrote it, for the message."""
    shown = repr(text) if text is not None else value.isoformat()
    offset = value.utcoffset() or timedelta(0)
    # Compared on the naive wall time: converting to UTC is what overflows at the edges.
    if value.replace(tzinfo=None) - EARLIEST.replace(tzinfo=None) < offset or \
            LATEST.replace(tzinfo=None) - value.replace(tzinfo=None) < -offset:
        raise DateRangeError(f"{what} {shown} is outside the accepted range: {ACCEPTED_RANGE}")
    return value


class DateSource(StrEnum):
    EXPLICIT = "explicit"
    FRONT_MATTER = "front_matter"
    GIT = "git"
    INGEST = "ingest"


@dataclass(frozen=True, slots=True)
class ValidFrom:
    """A version's start: an aware datetime (a plain date is midnight UTC, ``date_only``), and where it came from."""

    value: datetime
    source: DateSource
    date_only: bool = False
    detail: str = ""  # the front matter key, or the file the git date is of
    not_yet_valid: bool = False  # the date is after the moment it was resolved (kept, not clamped)


def check_not_before(value: datetime, earliest: datetime, *, what: str, earliest_is: str) -> datetime:
    """``value`` unchanged when it is in range and not before ``earliest``; :class:`DateError` naming both dates
    otherwise. ``earliest_is`` says what ``earliest`` is: ``remove --valid-to`` before a document's last version is
    refused with ``check_not_before(when, last.valid_from, what="--valid-to", earliest_is="version 3 of a.md")``."""
    check_date_range(value, what=what)
    if value < earliest:
        raise DateError(f"{what} {value.isoformat()} is before {earliest_is}, which takes effect on "
                        f"{earliest.isoformat()}: give a date on or after it")
    return value


def parse_date(text: str, *, what: str = "date") -> tuple[datetime, bool]:
    """``text`` as an aware datetime and whether it was a plain date; :class:`DateError` for any other form, or for
    a date outside :data:`ACCEPTED_RANGE`."""
    value = text.strip()
    try:
        if _DATE.fullmatch(value):
            return check_date_range(datetime.fromisoformat(value).replace(tzinfo=UTC), what=what, text=text), True
        if _DATETIME.fullmatch(value):
            parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
            return check_date_range(parsed, what=what, text=text), False
    except DateError:
        raise
    except ValueError as exc:  # the right shape with an impossible value: 2024-02-30, 25:00, year 0
        raise DateError(f"{what} {text!r} is not a real date ({exc}); accepted forms: {ACCEPTED_FORMS}, "
                        f"{ACCEPTED_RANGE}") from exc
    raise DateError(f"{what} {text!r} does not parse; accepted forms: {ACCEPTED_FORMS}")


@functools.lru_cache(maxsize=256)
def _work_tree(directory: Path) -> Path | None:
    """The git work tree ``directory`` is in (a parent holding ``.git``), found without running git."""
    for folder in (directory, *directory.parents):
        if (folder / ".git").exists():
            return folder
    return None


@functools.lru_cache(maxsize=16)
def _tracked(root: Path, index_stamp: float) -> frozenset[str]:
    """The files git tracks in the work tree ``root`` (as of its index, whose mtime keys the cache)."""
    git = shutil.which("git")
    if git is None:
        return frozenset()
    try:
        listed = subprocess.run([git, "-C", str(root), "ls-files", "-z"], capture_output=True, timeout=GIT_TIMEOUT_S,
                                check=False)
    except (subprocess.TimeoutExpired, OSError):
        return frozenset()
    return frozenset(str(root / name) for name in listed.stdout.decode("utf-8", "replace").split("\0") if name)


def _is_tracked(path: Path) -> bool:
    """Whether git tracks ``path``: one ``git ls-files`` per work tree and index state, not a process per file (a
    corpus of ignored files in a checkout costs nothing)."""
    root = _work_tree(path.parent)
    if root is None:
        return False
    index = root / ".git" / "index"
    stamp = index.stat().st_mtime if index.exists() else 0.0
    return str(path) in _tracked(root, stamp)


def git_commit_date(path: Path, *, timeout: float = GIT_TIMEOUT_S) -> datetime | None:
    """The last commit date of ``path`` if it is tracked, committed as it is, in a git work tree; else None."""
    git = shutil.which("git")
    if git is None or not path.is_file():
        return None
    where = path.resolve()
    if not _is_tracked(where):
        return None
    base = [git, "-C", str(where.parent)]
    try:
        status = subprocess.run([*base, "status", "--porcelain", "--", where.name],
                                capture_output=True, text=True, timeout=timeout, check=False)
        if status.returncode != 0 or status.stdout.strip():  # not a work tree, or untracked/modified
            return None
        log = subprocess.run([*base, "log", "-1", "--format=%cI", "--", where.name],
                             capture_output=True, text=True, timeout=timeout, check=False)
    except (subprocess.TimeoutExpired, OSError):
        return None
    stamp = log.stdout.strip()
    if log.returncode != 0 or not stamp:
        return None
    return datetime.fromisoformat(stamp)


def resolve_valid_from(
    *,
    explicit: str | None = None,
    text: str | None = None,
    path: Path | None = None,
    now: datetime | None = None,
) -> ValidFrom:
    """The version's ``valid_from`` from the first source that has one (module docstring); ``now`` is ingest time."""
    now = now or datetime.now(UTC)

    def found(value: datetime, source: DateSource, date_only: bool = False, detail: str = "") -> ValidFrom:
        return ValidFrom(value, source, date_only, detail, not_yet_valid=value > now)

    if explicit is not None and explicit.strip():
        value, date_only = parse_date(explicit, what="--valid-from")
        return found(value, DateSource.EXPLICIT, date_only)
    front = parse_front_matter(text) if text else {}
    for key in FRONT_MATTER_KEYS:
        if front.get(key, "").strip():
            value, date_only = parse_date(front[key], what=f"front matter {key}:")
            return found(value, DateSource.FRONT_MATTER, date_only, key)
    if path is not None:
        committed = git_commit_date(path)
        if committed is not None:
            check_date_range(committed, what=f"the last git commit date of {path}")
            return found(committed, DateSource.GIT, detail=str(path))
    return found(now, DateSource.INGEST)


V = TypeVar("V")


def version_as_of(versions: Sequence[tuple[datetime, V]], at: datetime) -> V | None:
    """The version in force at ``at``: the latest ``valid_from`` <= ``at`` (None before the first one).

    Two versions with the same ``valid_from``: the later in ``versions`` wins (the one ingested last).
    """
    if at.tzinfo is None:
        raise DateError("an as-of moment needs an offset (a naive datetime is ambiguous)")
    best: tuple[datetime, V] | None = None
    for valid_from, version in versions:
        if valid_from <= at and (best is None or valid_from >= best[0]):
            best = (valid_from, version)
    return best[1] if best else None
