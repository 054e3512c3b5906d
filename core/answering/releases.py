"""A release's date, read off the line that dates it.

A changelog dates each release in its heading ("## [1.12.0](…) - 2024-05-28", "## Release v2.29.3 (2025-01-02)")
or in a version-history item ("* 0.23.2 (2026-06-12)"). Such a line is the answer to "when was X 1.12.0
released?", although it is a heading: the reader otherwise quotes no heading and would quote an entry below it
instead, which names the release only through its path. The line is measured, not listed: it names the version
asked for, it holds a date the question does not, and it is short (a heading or an item, not a paragraph that
mentions a version and a date in passing).
"""

from __future__ import annotations

from typing import Protocol, TypeVar

from core.changelog import (
    DATE,
    asks_about_releases,
    asks_when,
    asks_which_release,
    names_version,
    question_versions,
    references,
    release_heading,
)
from core.retrieval import Context, ContextElement
from core.statements import question_terms, terms

__all__ = ["asks_about_releases", "asks_when", "asks_which_release", "dated_release", "mentions_last",
           "question_versions", "release_heading", "release_of"]

class _Placed(Protocol):
    @property
    def element(self) -> ContextElement: ...


E = TypeVar("E", bound=_Placed)

# A line that dates a release is a heading or an item; a paragraph this long states other things too.
MAX_RELEASE_LINE_CHARS = 120

def mentions_last(question: str, evidence: list[E]) -> list[E]:
    """``evidence`` (best first) with the changelog entries after the rest, unless the question asks about a
    release. An entry under a release heading ("Change Log › 19.3b0 › Fix the --line-length option …") mentions
    what it changed; the page that documents the thing defines it, and answers a question about the thing.

    Asked which release (about releases, naming no version: "which version added X?", "#3903 - in what
    version?"), the order turns round: the entries first, those citing an issue the question cites before them,
    since only an entry's release answers."""
    entries = [release_of(e.element) is not None for e in evidence]
    if not any(entries):
        return evidence
    if asks_which_release(question):
        cited = set(references(question))
        # an entry citing the issue asked about, then the other entries, then the rest
        rank = [0 if entry and cited & set(references(e.element.text)) else 1 if entry else 2
                for e, entry in zip(evidence, entries, strict=True)]
        return [e for _r, _i, e in sorted(zip(rank, range(len(evidence)), evidence, strict=True),
                                          key=lambda t: t[:2])]
    if asks_about_releases(question) or all(entries):
        return evidence
    return ([e for e, entry in zip(evidence, entries, strict=True) if not entry]
            + [e for e, entry in zip(evidence, entries, strict=True) if entry])


def release_of(element: ContextElement) -> str | None:
    """The release heading an entry sits under (the nearest one of its path), ``None`` outside a changelog."""
    return next((p for p in reversed(element.path) if release_heading(p)), None)


def dated_release(question: str, context: Context) -> tuple[ContextElement, str, str] | None:
    """The context's line that dates the release ``question`` asks the time of, with the version and the date.

    Where two lines date the same version (a tool's changelog and its plugin's), the one whose text and heading
    path hold more of the question's words is it ("hatchling 1.6.0" is the line under "Hatchling history");
    ties go to the earlier element of the context.
    """
    versions = question_versions(question)
    if not versions or not asks_when(question):
        return None
    asked = question_terms(question, context.lexicon)
    in_question = {m.group(0) for m in DATE.finditer(question)}
    best: tuple[int, int] | None = None
    found: tuple[ContextElement, str, str] | None = None
    for position, element in enumerate(context.elements):
        text = " ".join(element.text.split())
        if len(text) > MAX_RELEASE_LINE_CHARS:
            continue
        # the line itself names the version, or it is the date line right under the release's heading
        # ("### v4.3.5" › "_27 October 2026_")
        named = text if element.category == "Title" or not element.path or not release_heading(element.path[-1]) \
            else f"{element.path[-1]} {text}"
        version = next((v for v in versions if names_version(named, v)), None)
        date = next((m.group(0) for m in DATE.finditer(text) if m.group(0) not in in_question), None)
        if version is None or date is None:
            continue
        overlap = len(asked & terms(" ".join((text, *element.path))))
        if best is None or (overlap, -position) > best:
            best, found = (overlap, -position), (element, version, date)
    return found
