"""Whether a unit defines the thing a question asks about or only mentions it (issue 29, item 3): the thing named
by an identifier, a code name or a model number, or a command-line flag the question types (``--fast``, ``-W``).
Retrieval puts the hits that define it above those that only mention it (a changelog line "Add the X option", a
blog post, a "see also"); the reader does the same with its units."""

from __future__ import annotations

import re
from collections.abc import Sequence

from core.elements import Element
from core.retrieval.analysis import QuestionAnalysis
from core.retrieval.hits import Hit
from core.retrieval.stages import ContextConfig
from core.statements import last_parts, table_rows, terms

__all__ = ["asked_thing", "command_flags", "definitions_first", "defines", "defines_flag"]

# Cost only: whether a unit defines or mentions the thing is read from this much of its text, so a hit of
# megabytes (one huge line) is not analysed word by word for every question; a definition leads its element.
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


def asked_thing(analysis: QuestionAnalysis, things: frozenset[str]) -> frozenset[str]:
    """The terms of the thing a question asks about, for telling a definition from a mention: the identifiers
    naming an attribute or option (``linenums``, ``keepAliveTimeout``), else the code names, else the names with
    a digit ("24FL"). Empty when it names none of them (then no hit is moved)."""
    for names in (analysis.identifiers(things), analysis.codes, analysis.models):
        found = last_parts(t for name in names for t in terms(name))
        if found:
            return found
    return frozenset()


# What a line leads with: the key before a colon ("* installer : pip"), else its first word or code span
# ("`installer` sets …"); a list marker, a number or a table's pipe before it is skipped.
_LEAD = re.compile(r"^\s*(?:[-*+]|\d+[.)]|\|)?\s*(?:(?P<key>[^:|\n]{1,80}?)\s*:|(?P<word>`[^`\n]+`|[^\s`]+))")


def defines(element: Element, thing: frozenset[str]) -> bool | None:
    """``True`` when ``element`` defines ``thing``: its own heading path names it, or its text leads with it (a
    ``key : value`` item, a table's row, a definition list's term); ``False`` when its text only mentions it (a
    changelog line "Add the X option", a blog post, a "see also"); ``None`` when it holds nothing of it."""
    if not thing:
        return None
    if thing <= last_parts(terms(" ".join(element.heading_path))):
        return True
    text = element.text[:DEFINES_TEXT_LIMIT]
    if not thing <= last_parts(terms(text)):
        return None
    lines = text.splitlines()
    if text.lstrip().startswith("|"):
        lines = [r[0] for r in table_rows(text) if r]
    for line in lines:
        lead = _LEAD.match(line)
        if lead and thing <= last_parts(terms(lead.group("key") or lead.group("word"))):
            return True
    return False


def definitions_first(hits: list[Hit], thing: frozenset[str], config: ContextConfig,
                       flags: Sequence[str] = ()) -> list[Hit]:
    """``hits`` with every hit that only mentions the thing asked after the hits that define it (each group keeps
    its order, a hit holding neither keeps its place relative to the definitions); else the typed ``flags``."""
    if not config.definitions_first or not (thing or flags):
        return hits
    kinds = [defines(h.element, thing) if thing else defines_flag(h.element.heading_path, h.element.text, flags)
             for h in hits]
    if True not in kinds or False not in kinds:
        return hits
    ordered = [h for h, d in zip(hits, kinds, strict=True) if d is not False] + \
              [h for h, d in zip(hits, kinds, strict=True) if d is False]
    return [Hit(h.element, rank, h.distance, h.outside_scope) for rank, h in enumerate(ordered)]
