"""A release's date, read off the line that dates it.

A changelog dates each release in its heading ("## [1.12.0](…) - 2024-05-28", "## Release v2.29.3 (2025-01-02)")
or in a version-history item ("* 0.23.2 (2026-06-12)"). Such a line is the answer to "when was X 1.12.0
released?", although it is a heading: the reader otherwise quotes no heading and would quote an entry below it
instead, which names the release only through its path. The line is measured, not listed: it names the version
asked for, it holds a date the question does not, and it is short (a heading or an item, not a paragraph that
mentions a version and a date in passing).
"""

from __future__ import annotations

import re
from typing import Protocol, TypeVar

from core.retrieval import Context, ContextElement
from core.statements import question_terms, terms

__all__ = ["asks_about_releases", "asks_when", "dated_release", "mentions_last", "question_versions",
           "release_heading"]

class _Placed(Protocol):
    @property
    def element(self) -> ContextElement: ...


E = TypeVar("E", bound=_Placed)

# A line that dates a release is a heading or an item; a paragraph this long states other things too.
MAX_RELEASE_LINE_CHARS = 120

# The words asking for a time, both languages (question words, not a corpus's vocabulary).
_WHEN = re.compile(r"\b(?:when|date|day|dated)\b|언제|날짜|일자|출시일|배포일", re.I)
# A version: dotted numbers, optionally after a "v" ("2.29.3", "v1.12.0"), not part of a longer dotted run.
_VERSION = re.compile(r"(?<![\w.])v?(\d+(?:\.\d+){1,3})(?![\w.]|-\d)", re.I)
_MONTHS = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
_DATE = re.compile(rf"\b\d{{4}}-\d{{2}}-\d{{2}}\b|\b\d{{4}}/\d{{1,2}}/\d{{1,2}}\b|\b{_MONTHS}\s+\d{{1,2}},?\s+\d{{4}}\b"
                   rf"|\b\d{{1,2}}\s+{_MONTHS}\s+\d{{4}}\b|\d{{4}}년\s*\d{{1,2}}월\s*\d{{1,2}}일", re.I)


# A release's own heading: a version, perhaps after "Release" / "Version" and before a date ("19.3b0", "[1.12.0] -
# 2024-05-28", "Release v2.29.3 (2025-01-02)", "Version 1.6 (2024-04-20)").
_RELEASE_HEADING = re.compile(r"^(?:release|version)?\s*\[?v?\d+(?:\.\d+){1,3}(?:[-.]?(?:a|b|rc|post|dev)\d*)?\]?"
                              r"(?:\s*(?:[-–—:(].{0,40})?)?$", re.I)
# A question about releases themselves: which version, which release, what changed, a changelog.
_ABOUT_RELEASES = re.compile(r"\b(?:versions?|releases?|released|changelog|changes?|changed|land(?:ed)?|added|fixed)\b"
                             r"|버전|릴리스|변경", re.I)


def release_heading(text: str) -> bool:
    """Whether a heading is a release's own (a changelog's section for one version)."""
    return len(text) <= 80 and _RELEASE_HEADING.match(" ".join(text.split())) is not None


def asks_about_releases(question: str) -> bool:
    """Whether ``question`` asks about a release (names a version, asks when, which version, what changed)."""
    return bool(question_versions(question)) or asks_when(question) or _ABOUT_RELEASES.search(question) is not None


def mentions_last(question: str, evidence: list[E]) -> list[E]:
    """``evidence`` (best first) with the changelog entries after the rest, unless the question asks about a
    release. An entry under a release heading ("Change Log › 19.3b0 › Fix the --line-length option …") mentions
    what it changed; the page that documents the thing defines it, and answers a question about the thing."""
    if asks_about_releases(question):
        return evidence
    entries = [any(release_heading(p) for p in e.element.path) for e in evidence]
    if not any(entries) or all(entries):
        return evidence
    return ([e for e, entry in zip(evidence, entries, strict=True) if not entry]
            + [e for e, entry in zip(evidence, entries, strict=True) if entry])


def asks_when(question: str) -> bool:
    """Whether ``question`` asks for a time ("when was …", "… release date", "언제 나왔어요?")."""
    return _WHEN.search(question) is not None


def question_versions(question: str) -> tuple[str, ...]:
    """The versions ``question`` names, without a leading "v"."""
    return tuple(dict.fromkeys(m.group(1) for m in _VERSION.finditer(question)))


def _names_version(text: str, version: str) -> bool:
    return any(m.group(1) == version for m in _VERSION.finditer(text))


def dated_release(question: str, context: Context) -> tuple[ContextElement, str, str] | None:
    """The context's line that dates the release ``question`` asks the time of, with the version and the date.

    Where two lines date the same version (a tool's changelog and its plugin's), the one whose text and heading
    path hold more of the question's words is it ("hatchling 1.6.0" is the line under "Hatchling history");
    ties go to the earlier element of the context.
    """
    versions = question_versions(question)
    if not versions or not asks_when(question):
        return None
    asked = question_terms(question)
    in_question = {m.group(0) for m in _DATE.finditer(question)}
    best: tuple[int, int] | None = None
    found: tuple[ContextElement, str, str] | None = None
    for position, element in enumerate(context.elements):
        text = " ".join(element.text.split())
        if len(text) > MAX_RELEASE_LINE_CHARS:
            continue
        version = next((v for v in versions if _names_version(text, v)), None)
        date = next((m.group(0) for m in _DATE.finditer(text) if m.group(0) not in in_question), None)
        if version is None or date is None:
            continue
        overlap = len(asked & terms(" ".join((text, *element.path))))
        if best is None or (overlap, -position) > best:
            best, found = (overlap, -position), (element, version, date)
    return found
