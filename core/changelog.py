"""A changelog's words, as plain text: a release's own heading, the versions and issues a question names, and
whether it asks about releases at all. Shared by retrieval (a version names a release's section, a cited issue
pins its entry) and the reader (``core.answering.releases``); no database, no model."""

from __future__ import annotations

import re

__all__ = ["ASKING_WORDS", "DATE", "VERSION", "asks_about_releases", "asks_when", "asks_which_release", "cites",
           "names_version", "question_versions", "references", "release_heading"]

# The words asking for a time, both languages (question words, not a corpus's vocabulary).
_WHEN = re.compile(r"\b(?:when|dates?|day|dated)\b|언제|날짜|일자|출시일|배포일", re.I)
# A version: dotted numbers, optionally after a "v" ("2.29.3", "v1.12.0"), not part of a longer dotted run.
VERSION = re.compile(r"(?<![\w.])v?(\d+(?:\.\d+){1,3})(?![\w.]|-\d)", re.I)
_MONTHS = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
_WHICH_RELEASE = re.compile(r"\b(?:which|what)\s+(?:[\w.-]+\s+){0,2}?(?:version|release)\b(?!s|\s+of\b)"
                            r"|\bchangelog\b|(?:어느|어떤|몇)\s*(?:버전|릴리스)", re.I)
# The words a question asks which release with ("in what release did this land"), as heading words read them:
# they name no heading ("Making a release", "Compatible release").
ASKING_WORDS = frozenset({"release", "releases", "version", "versions", "changelog", "버전", "릴리스"})
# An issue or pull request cited ("#3903", "[#3903](…)"); an HTML entity ("&#4702;") is none.
_REFERENCE = re.compile(r"(?<![\w&#])#(\d{2,7})\b")
DATE = re.compile(rf"\b\d{{4}}-\d{{2}}-\d{{2}}\b|\b\d{{4}}/\d{{1,2}}/\d{{1,2}}\b|\b{_MONTHS}\s+\d{{1,2}},?\s+\d{{4}}\b"
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


def asks_which_release(question: str) -> bool:
    """Whether ``question`` asks which release something came in ("which version added X?", "in what release
    did this land: upgrade Ruff to 0.1.8", "X changelog - when was …", "#3903 - in what version?"; a version in
    the thing asked about is no answer). "Which version of Python …" asks about a version of something else,
    "which versions …" about several."""
    return _WHICH_RELEASE.search(question) is not None or (
        _REFERENCE.search(question) is not None and not question_versions(question)
        and asks_about_releases(question))


def asks_when(question: str) -> bool:
    """Whether ``question`` asks for a time ("when was …", "… release date", "언제 나왔어요?")."""
    return _WHEN.search(question) is not None


def question_versions(question: str) -> tuple[str, ...]:
    """The versions ``question`` names, without a leading "v"."""
    return tuple(dict.fromkeys(m.group(1) for m in VERSION.finditer(question)))


def names_version(text: str, version: str) -> bool:
    """Whether ``text`` names ``version`` exactly ("v2.29.3" names 2.29.3; "12.29.3" and "2.29.3.1" do not)."""
    return any(m.group(1) == version for m in VERSION.finditer(text))


def references(text: str) -> tuple[str, ...]:
    """The issue or pull request numbers ``text`` cites ("#3903" → ``3903``), each once."""
    return tuple(dict.fromkeys(_REFERENCE.findall(text)))


def cites(text: str, number: str) -> bool:
    """Whether ``text`` cites issue or pull request ``number`` ("(#3903)", "[#3903](…)")."""
    return number in _REFERENCE.findall(text)
