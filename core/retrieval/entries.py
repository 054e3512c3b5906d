"""Identification questions: the question asks *which* entry of a class (a rule, an option, a function) does what it
says, and the answer is the entry's name, not a value inside it.

A reference lists its entries as the child headings of one heading that names their class: "Rules" over "MD003 -
Heading style", "MD004 - Unordered list style"; "Options" over "branches", "ci", "tagFormat". A question naming the
class in either number ("which markdownlint **rule** checks heading style", "cli flag of the branches **option**")
and one child by its whole name ("heading style", "branches") identifies that child. Its section is the scope,
whatever a rarer word of the question matches elsewhere ("rule" in "MD035 - Horizontal rule style"): the class word
says which kind of entry, the entry's name says which one.

The measure is the collection's own structure: the class is a heading with several child headings, the entry a child
whose naming terms (its title, for a code and a title: :func:`heading_name_terms`) the question holds whole, in
either number (the terms are stemmed). No word list names classes: "rule", "option", "함수" are whatever the
collection's headings call them. Two entries named equally whole are a tie, and nothing is identified.
"""

from __future__ import annotations

import re

from core.retrieval.heading_refs import HeadingMatch, HeadingRef
from core.retrieval.headings import MAX_SCOPES, HeadingIndex, words
from core.retrieval.shape import asking_words
from core.statements import in_other_number, number_forms, terms
from core.textnorm import is_release_version

__all__ = ["heading_name_terms", "named_entry", "unclassed_entries"]

# A heading that is a code and a title ("MD004 - Unordered list style", "E403: Forbidden", "W605 – invalid escape
# sequence"): the code (letters and digits, a letter first) says which entry, the title what it is about.
_CODED_HEADING = re.compile(r"[`'\"]?(?P<code>(?=[\w.-]*\d)[A-Za-z][\w.-]*)[`'\"]?\s*[-–—:]\s+(?P<title>.*[^\W\d_].*)")


# A heading written as a name is typed, one token with a lower-case first letter ("ci", "tagFormat", "dry-run",
# "--no-ci"): how a reference heads its options and settings. A capitalised heading ("Factory Reset") is prose, which
# a question's plain words name in passing ("reset the monitor to factory settings"), not an entry it asks about.
_TYPED_NAME = re.compile(r"`?-{0,2}[a-z][\w.$-]*`?")


def heading_name_terms(heading: str) -> frozenset[str]:
    """The terms that name a heading's section: all of its terms, or, for a code and a title ("MD004 - Unordered
    list style"), its title's. A question asking which code documents a thing names the section by its title
    ("markdownlint rule for unordered list style?"): the code is what it asks for, not a word it must spell."""
    coded = _CODED_HEADING.fullmatch(heading.strip())
    if coded is None or is_release_version(coded.group("code")):
        return terms(heading)
    return terms(coded.group("title"))


def _class_headings(index: HeadingIndex, question: str, asked: frozenset[str]
                    ) -> list[tuple[HeadingRef, list[HeadingRef]]]:
    """The headings the question names whole, in either number ("Rules" for "rule"), that head two or more child
    headings, with them: a class and its entries. Two children make a choice among siblings; one child is a
    section, not a list."""
    # each word in both numbers: a spurious form ("ciss") holds no heading, so spelling it costs nothing
    said = set(words(question))
    pool = said | {w + "s" for w in said} | set(in_other_number(question, asked))
    children = index.children()
    out = []
    for i in index.held_whole(pool):
        ref = index.headings[i]
        if all(index.is_platform(w) for w in index.words_of(i)):
            continue  # the platform's name heads its pages: it names what the collection is about, not a class
        entries = children.get((ref.document_id, (*ref.path, ref.text)), [])
        if len(entries) >= 2:
            out.append((ref, entries))
    return out


def named_entry(question: str, index: HeadingIndex) -> HeadingMatch | None:
    """The entry ``question`` identifies (see the module docstring), as a heading match: the entry's headings
    (the same title heading its own page too, up to ``MAX_SCOPES``) and the question words they hold; ``None``
    when the question names no class heading, no entry of one whole, or two entries equally. ``question``: the
    question proper, its preamble left out ("In Contributing to Python-Markdown, …" names the page, not a class)."""
    asked = terms(question)
    best: list[tuple[HeadingRef, frozenset[str], frozenset[str]]] = []
    size = 0
    for parent, entries in _class_headings(index, question, asked):
        kind = terms(parent.text)
        for entry in entries:
            name = heading_name_terms(entry.text) - kind
            # the entry is named by its own words, not by the class word or the platform's name alone
            if not name or not name <= asked:
                continue
            if len(name) > size:
                best, size = [], len(name)
            if len(name) == size:
                best.append((entry, name, kind))
    titles = {entry.text for entry, _name, _kind in best}
    if len(titles) != 1:
        return None
    title = titles.pop()
    own = [entry for entry, _name, _kind in best]
    # the same entry heading its own page ("MD003 - Heading style" as a page title beside the section in "Rules")
    same = [h for h in index.headings.values() if h.text == title and h not in own and not h.path]
    headings = tuple([*own, *same][:MAX_SCOPES])
    # the question's words the entry's path holds, as the heading match names them (the scope's own words)
    held = {w for entry in own for text in (*entry.path, entry.text) for w in words(text) if terms(w) & asked}
    return HeadingMatch(headings, tuple(sorted(held)), float(size), entry=True)


def unclassed_entries(question: str, index: HeadingIndex, taken: set[str]) -> HeadingMatch | None:
    """The entries ``question`` names whole without naming their class ("ci" for "what's the cli flag for ci"):
    headings among two or more siblings, each written as a name is typed (:data:`_TYPED_NAME`), whose every word
    the question says, outside ``taken`` (the candidates already), as one runner-up scope, or ``None`` when there
    are none or more than ``MAX_SCOPES`` (a word that heads entries everywhere, "timeout", picks no place). A
    runner-up is chosen only when its evidence states the attribute asked and the better-named candidates' does
    not."""
    children = index.children()
    found = []
    # the word after "how" says how it asks ("how long is …"), never which entry: not the setting `long`
    said = set(words(question)) - asking_words(question)
    spelled = said | {f for w in said for f in number_forms(w)}
    for i in index.held_whole(said):
        ref = index.headings[i]
        if not ref.path or ref.element_id in taken or len(children.get((ref.document_id, ref.path), [])) < 2:
            continue
        if _inside_a_longer_name(index, i, spelled):
            continue
        if not _TYPED_NAME.fullmatch(ref.text.strip()):
            continue
        if all(index.is_platform(w) for w in index.words_of(i)):
            continue
        found.append(ref)
    if not found or len(found) > MAX_SCOPES:
        return None
    held = sorted({w for ref in found for w in words(ref.text)})
    return HeadingMatch(tuple(found), tuple(held), 0.0, keyed=True)


def _inside_a_longer_name(index: HeadingIndex, i: int, spelled: set[str]) -> bool:
    """Whether heading ``i``'s words are a part of another heading's name whose every word the question spells, a
    word in either number: "which shell runs scripts" says `script-shell`, and names it, not the `shell` inside it.
    A joined name's whole token ("script-shell") is no word the question must spell."""
    own = index.words_of(i)
    for j in set().union(*(index.holding(w) for w in own)) - {i}:
        other = index.words_of(j)
        if own < other and {w for w in other if w.isalnum()} <= spelled:
            return True
    return False
