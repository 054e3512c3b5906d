"""Command-line flags a question types (``--fast``, ``-W``), and whether a unit defines or only mentions one: the
thing a CLI question asks about, for ranking a definition above its mentions (issue 29, item 3)."""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["command_flags", "defines_flag"]

# Cost only: as core.retrieval.pipeline.DEFINES_TEXT_LIMIT, a definition leads its element.
DEFINES_TEXT_LIMIT = 20_000
# A command-line flag as typed ("--workers", "-W", "--no-ci"): dashes right after a space or the start, then a
# letter; a hyphen inside a word ("pre-commit") is none.
_FLAG = re.compile(r"(?<![\w-])--?[A-Za-z][\w-]*")
# The flags a line leads with ("-W, --workers", "`--fast` / `--safe`:"), a list marker before them skipped.
_LEADING_FLAGS = re.compile(r"^\s*(?:[*+]\s+|-\s+(?=-))?(?P<flags>(?:`?--?[A-Za-z][\w-]*`?(?:\s*[,/|]\s*|\s+|$))+)")


def command_flags(text: str) -> list[str]:
    """The command-line flags ``text`` types (``--fast``, ``-W``), in order, each once."""
    return list(dict.fromkeys(_FLAG.findall(text)))


def defines_flag(heading_path: tuple[str, ...], text: str, flags: Sequence[str]) -> bool | None:
    """``True`` when an element under ``heading_path`` defines one of the command-line ``flags`` as typed: its own
    heading spells it ("--fast / --safe", "-W, --workers"), or its text leads with it (an option list's item);
    ``False`` when its text only spells it further on ("… as Black does when passed the --fast flag"); ``None``
    when it spells none. The flag itself, not its word: a heading "Offline mode" neither defines ``--offline``
    nor mentions it."""
    if not flags:
        return None
    wanted = {f.casefold() for f in flags}
    if any(wanted & {f.casefold() for f in _FLAG.findall(part)} for part in heading_path):
        return True
    text = text[:DEFINES_TEXT_LIMIT]
    spelled = {f.casefold() for f in _FLAG.findall(text)}
    if not wanted & spelled:
        return None
    lead = _LEADING_FLAGS.match(text)
    return bool(lead and wanted & {f.casefold() for f in _FLAG.findall(lead.group("flags"))})
