"""Which element of a new version is which element of the old one: stable keys and the kind of each change.

An element id hashes its text and its parent (:func:`core.elements.element_id_for`), so an edited or moved element
gets a new id. A *key* is what stays: like Akoma Ntoso's wId, it is carried from the old element to the new element
that matches it, and a new element that matches nothing gets a fresh one.

Matching runs in passes, surest first; each pass only looks at elements no earlier pass matched:

1. exact content, unique: the same category and text (whitespace collapsed) once on each side;
2. exact content in context: among repeated texts, the one whose parent matched the new one's parent, else the one
   under the same heading path (parents are resolved first: the walk is in document order);
3. similar text between non-headings of one category, best score first: the mean of rapidfuzz's ``ratio`` over
   characters and over word/punctuation tokens >= :data:`SIMILAR_MIN` (characters alone rate two unrelated short
   lines of the same shape, "May 20, 2009: Released version 2.0.1" and "Jul 5, 2012: Released version 2.2.0",
   as similar; tokens alone miss ``md.output_format`` → ``md.set_output_format()``);
   a parent that matched adds :data:`PARENT_BONUS`, the same heading path :data:`PATH_BONUS`;
4. headings by subtree: an unmatched heading whose matched children mostly (Dice >= :data:`SUBTREE_MIN`) come from
   one unmatched old heading is that heading, renamed; deepest first, so renamed sections nest;
5. pass 2 again (those renamed parents give context), then the remaining repeated texts in document order;
6. similar headings: as pass 3, and a heading with the same leading label (``제7조``, ``Article 7``, ``§ 7``, ``2.1``)
   under the matching parent is matched whatever its title became (an article repealed in place keeps its number).

A split paragraph (one into two) matches the part most like it: that part is ``modified``, the other ``added``;
a merge matches the merged text to the most similar source (``modified``) and the other source is ``removed``.

Classification of a matched pair: same text (whitespace collapsed) and same parent (the new parent is the match of
the old parent, or both are roots) and kept its order among those siblings → ``unchanged``; same text but another
parent or another order among its siblings → ``moved``. Order: a longest run of siblings that kept their relative
order stays put and only the others are ``moved``, so moving one section up marks that section, not all the ones
it jumped over (for two swapped neighbours, the one now first is the one marked). Changed text → ``renamed`` for a
heading whose children mostly stayed (Dice >= :data:`SUBTREE_MIN`, children on both sides), else ``modified``;
when text and place both changed the text decides the op and :attr:`ElementMatch.moved` says the place changed too.
Children of a moved or renamed heading that stayed under it are ``unchanged``: their parent's key did not change.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from bisect import bisect_left
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
from rapidfuzz import fuzz, process

from core.elements import Element

Op = Literal["added", "removed", "modified", "moved", "renamed", "unchanged"]
OPS: tuple[Op, ...] = ("added", "removed", "modified", "moved", "renamed", "unchanged")

SIMILAR_MIN = 60.0  # 0-100: each half of a paragraph split in two scores ~67 against the whole
PARENT_BONUS = 10.0
PATH_BONUS = 5.0
SUBTREE_MIN = 0.5

_NO = -1
_TOKEN = re.compile(r"\w+|[^\w\s]")
_LABEL = re.compile(
    r"^\s*(?:제\s*(\d+)\s*조(?:\s*의\s*(\d+))?|(?:article|art\.|section|sec\.|§)\s*(\d+[a-z]?)|(\d+(?:\.\d+)*)[.)]?(?=\s))",
    re.IGNORECASE,
)


def normalize_text(text: str) -> str:
    """NFC, whitespace runs collapsed to one space, trimmed: texts equal after this are the same content."""
    return " ".join(unicodedata.normalize("NFC", text).split())


def content_hash(category: str, text: str) -> str:
    """The hash exact matching compares: category and normalized text."""
    return hashlib.sha256(f"{category}\x1f{normalize_text(text)}".encode()).hexdigest()[:32]


def heading_label(text: str) -> str | None:
    """The leading number of a heading (``제7조의2`` → ``7-2``, ``Article 7`` → ``7``, ``2.1 Scope`` → ``2.1``)."""
    found = _LABEL.match(text)
    if not found:
        return None
    korean, korean_sub, western, dotted = found.groups()
    if korean:
        return f"{korean}-{korean_sub}" if korean_sub else korean
    return (western or dotted).lower()


@dataclass(frozen=True, slots=True)
class ElementMatch:
    """One element's fate between two versions: ``old`` and/or ``new`` (never both None) and its stable key."""

    op: Op
    key: str
    old: Element | None
    new: Element | None
    moved: bool = False  # its parent or its order among siblings changed (the op says so alone for ``moved``)
    matched_by: str = ""  # the pass that paired it: exact, context, similar, subtree, label, order ("" if unpaired)


@dataclass(frozen=True, slots=True)
class VersionMatch:
    """Every element of both versions, in diff order (see :func:`match_versions`), and the new version's keys."""

    matches: tuple[ElementMatch, ...]
    keys: Mapping[str, str]  # new element_id -> stable key

    def counts(self) -> dict[str, int]:
        out = dict.fromkeys(OPS, 0)
        for match in self.matches:
            out[match.op] += 1
        return out


class _Side:
    """One version as index arrays: parents, children, normalized texts, content keys."""

    def __init__(self, elements: Sequence[Element]) -> None:
        self.elements = list(elements)
        position = {e.element_id: i for i, e in enumerate(self.elements)}
        if len(position) != len(self.elements):
            raise ValueError("a version lists the same element_id twice; pass each element once")
        self.parent = [position.get(e.parent_id, _NO) if e.parent_id else _NO for e in self.elements]
        self.children: list[list[int]] = [[] for _ in self.elements]
        for i, p in enumerate(self.parent):
            if p != _NO:
                self.children[p].append(i)
        self.text = [normalize_text(e.text) for e in self.elements]
        self.tokens = [_TOKEN.findall(t) for t in self.text]
        self.content = [(e.category, t) for e, t in zip(self.elements, self.text, strict=True)]
        self.path = [tuple(normalize_text(h) for h in e.heading_path) for e in self.elements]
        self.match = [_NO] * len(self.elements)
        self.how = [""] * len(self.elements)


class _Matcher:
    def __init__(self, old: Sequence[Element], new: Sequence[Element]) -> None:
        self.o = _Side(old)
        self.n = _Side(new)

    def pair(self, i: int, j: int, how: str) -> None:
        self.o.match[i], self.n.match[j] = j, i
        self.o.how[i] = self.n.how[j] = how

    def parents_correspond(self, i: int, j: int) -> bool:
        po, pn = self.o.parent[i], self.n.parent[j]
        return po == pn == _NO or (po != _NO and self.o.match[po] == pn)

    def exact_unique(self) -> None:
        old_by: dict[tuple[str, str], list[int]] = defaultdict(list)
        new_by: dict[tuple[str, str], list[int]] = defaultdict(list)
        for i, c in enumerate(self.o.content):
            old_by[c].append(i)
        for j, c in enumerate(self.n.content):
            new_by[c].append(j)
        self.old_by = old_by
        for content, js in new_by.items():
            is_ = old_by.get(content, [])
            if len(js) == 1 and len(is_) == 1:
                self.pair(is_[0], js[0], "exact")

    def exact_in_context(self) -> None:
        for j in range(len(self.n.elements)):
            if self.n.match[j] != _NO:
                continue
            free = [i for i in self.old_by.get(self.n.content[j], ()) if self.o.match[i] == _NO]
            best = next((i for i in free if self.parents_correspond(i, j)), None)
            if best is None:
                best = next((i for i in free if self.o.path[i] == self.n.path[j]), None)
            if best is not None:
                self.pair(best, j, "context")

    def exact_leftovers(self) -> None:
        for j in range(len(self.n.elements)):
            if self.n.match[j] == _NO:
                free = next((i for i in self.old_by.get(self.n.content[j], ()) if self.o.match[i] == _NO), None)
                if free is not None:
                    self.pair(free, j, "order")

    def similar(self, headings: bool) -> None:
        by_category: dict[str, tuple[list[int], list[int]]] = defaultdict(lambda: ([], []))
        for i, e in enumerate(self.o.elements):
            if self.o.match[i] == _NO and e.is_heading == headings:
                by_category[e.category][0].append(i)
        for j, e in enumerate(self.n.elements):
            if self.n.match[j] == _NO and e.is_heading == headings:
                by_category[e.category][1].append(j)
        candidates: list[tuple[float, int, int, str]] = []
        for is_, js in by_category.values():
            if not is_ or not js:
                continue
            # Labelled headings may match below the text threshold, so their scores are all kept; otherwise a
            # pair under the threshold on either measure cannot reach it on the mean.
            cutoff = 0.0 if headings else 2 * SIMILAR_MIN - 100
            chars = process.cdist([self.n.text[j] for j in js], [self.o.text[i] for i in is_],
                                  scorer=fuzz.ratio, score_cutoff=cutoff, workers=1)
            tokens = process.cdist([self.n.tokens[j] for j in js], [self.o.tokens[i] for i in is_],
                                   scorer=fuzz.ratio, score_cutoff=cutoff, workers=1)
            both = (chars + tokens) / 2.0 if headings else np.where((chars > 0) & (tokens > 0), (chars + tokens) / 2, 0)
            for a, b in zip(*both.nonzero(), strict=True):
                i, j, ratio = is_[b], js[a], float(both[a, b])
                context = self.parents_correspond(i, j)
                same_label = headings and context and heading_label(self.o.text[i]) is not None and (
                    heading_label(self.o.text[i]) == heading_label(self.n.text[j]))
                if ratio < SIMILAR_MIN and not same_label:
                    continue
                score = ratio + (PARENT_BONUS if context else 0.0) + (PATH_BONUS if self.o.path[i] == self.n.path[j]
                                                                       else 0.0) + (100.0 if same_label else 0.0)
                candidates.append((-score, j, i, "label" if same_label else "similar"))
        for _, j, i, how in sorted(candidates):
            if self.o.match[i] == _NO and self.n.match[j] == _NO:
                self.pair(i, j, how)

    def subtree_dice(self, i: int, j: int) -> float:
        kids_o, kids_n = self.o.children[i], self.n.children[j]
        if not kids_o or not kids_n:
            return 0.0
        shared = sum(1 for c in kids_n if self.n.match[c] != _NO and self.o.parent[self.n.match[c]] == i)
        return 2.0 * shared / (len(kids_o) + len(kids_n))

    def headings_by_subtree(self) -> None:
        for j in reversed(range(len(self.n.elements))):
            if self.n.match[j] != _NO or not self.n.elements[j].is_heading:
                continue
            votes: dict[int, int] = defaultdict(int)
            for c in self.n.children[j]:
                i_child = self.n.match[c]
                if i_child != _NO:
                    p = self.o.parent[i_child]
                    if p != _NO and self.o.match[p] == _NO and self.o.elements[p].is_heading:
                        votes[p] += 1
            if votes:
                best = max(sorted(votes), key=lambda p: self.subtree_dice(p, j))
                if self.subtree_dice(best, j) >= SUBTREE_MIN:
                    self.pair(best, j, "subtree")

    def run(self) -> None:
        self.exact_unique()
        self.exact_in_context()
        self.similar(headings=False)
        self.headings_by_subtree()
        self.exact_in_context()
        self.exact_leftovers()
        self.similar(headings=True)

    def reordered(self) -> set[int]:
        """New indices of siblings outside a longest run that kept its relative order."""
        groups: dict[int, list[int]] = defaultdict(list)
        for j, i in enumerate(self.n.match):
            if i != _NO and self.parents_correspond(i, j):
                groups[self.n.parent[j]].append(j)
        out: set[int] = set()
        for js in groups.values():
            kept = _longest_increasing([self.n.match[j] for j in js])
            out.update(j for k, j in enumerate(js) if k not in kept)
        return out


def _longest_increasing(values: list[int]) -> set[int]:
    """Positions of one longest strictly increasing subsequence (patience sorting, O(n log n))."""
    tails: list[int] = []  # value at the end of each pile
    tail_at: list[int] = []  # position of that value
    previous = [_NO] * len(values)
    for k, v in enumerate(values):
        pile = bisect_left(tails, v)
        previous[k] = tail_at[pile - 1] if pile else _NO
        if pile == len(tails):
            tails.append(v)
            tail_at.append(k)
        else:
            tails[pile], tail_at[pile] = v, k
    kept: set[int] = set()
    k = tail_at[-1] if tail_at else _NO
    while k != _NO:
        kept.add(k)
        k = previous[k]
    return kept


def _fresh_key(element_id: str, taken: set[str]) -> str:
    key, n = element_id, 0
    while key in taken:
        n += 1
        key = hashlib.sha256(f"{element_id}#{n}".encode()).hexdigest()[:32]
    return key


def match_versions(
    old: Sequence[Element], new: Sequence[Element], *, old_keys: Mapping[str, str] | None = None
) -> VersionMatch:
    """Pair the elements of two versions of one document, give each new element a stable key, classify each change.

    ``old_keys`` maps the old version's element ids to their keys (an element missing from it, or every element of
    a first version, has its element id as key). A new element with no match gets its own element id as key, or a
    hash of it where that key is already taken. The result lists every element once, in the new version's document
    order, with each removed element right after the new place of the nearest old element before it that survived.
    """
    m = _Matcher(old, new)
    m.run()
    old_keys = old_keys or {}
    o_key = [old_keys.get(e.element_id, e.element_id) for e in m.o.elements]
    taken = {o_key[i] for i in m.n.match if i != _NO}
    n_key: list[str] = []
    for j, e in enumerate(m.n.elements):
        i = m.n.match[j]
        if i != _NO:
            n_key.append(o_key[i])
        else:
            n_key.append(_fresh_key(e.element_id, taken))
            taken.add(n_key[-1])
    reordered = m.reordered()

    ordered: list[tuple[tuple[int, int, int], ElementMatch]] = []
    for j, e in enumerate(m.n.elements):
        i = m.n.match[j]
        if i == _NO:
            ordered.append(((j, 0, 0), ElementMatch("added", n_key[j], None, e)))
            continue
        moved = j in reordered or not m.parents_correspond(i, j)
        if m.o.text[i] == m.n.text[j]:
            op: Op = "moved" if moved else "unchanged"
        elif e.is_heading and m.subtree_dice(i, j) >= SUBTREE_MIN:
            op = "renamed"
        else:
            op = "modified"
        ordered.append(((j, 0, 0), ElementMatch(op, n_key[j], m.o.elements[i], e, moved, m.n.how[j])))
    anchor = _NO
    for i, e in enumerate(m.o.elements):
        if m.o.match[i] != _NO:
            anchor = m.o.match[i]
            continue
        ordered.append(((anchor, 1, i), ElementMatch("removed", o_key[i], e, None)))
    ordered.sort(key=lambda item: item[0])
    return VersionMatch(tuple(match for _, match in ordered),
                        {e.element_id: n_key[j] for j, e in enumerate(m.n.elements)})
