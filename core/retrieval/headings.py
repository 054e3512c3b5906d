"""Search that uses the hierarchy: the headings a question names become the scope of its search.

Questions name things that are headings: a product, an API, a section, a policy clause. This module matches
the question's words against every heading path of the collection, lexically, in Korean and English:

* words are ``core.textnorm`` terms (casefolded, Korean particles and endings cut by part of speech, the nouns
  of Korean compounds added; ``fs.readFile`` also yields ``fs`` and ``readfile``); a Korean question word
  matches a heading word it equals or begins;
* each question word weighs its IDF among the headings (``ln(1 + N / df)``), so "Nova", present in dozens of
  headings, counts little and "24FL" much; times what kind of word it is (``core.retrieval.shape``): a name of a
  thing (an identifier in a code span, a model number, a capitalised name) outranks an attribute word
  ("stand", "option") even when the attribute word is rarer among the headings, and the words of a preamble
  ("In the Node.js fs module, …") count for little, so a heading that merely mentions the platform does not
  outweigh the API the question names;
* a heading scores the weights of the question words found in its *path* (its ancestors' texts and its own),
  provided its own text holds at least one of them (otherwise its ancestor is the match);
* the best-scoring headings win, ties included: a heading named the same way in several documents makes a
  scope of all of them. :func:`rank_headings` gives the runners-up too, so the pipeline can choose the scope
  jointly with the evidence inside it (a scope must hold the attribute asked). Below :data:`MIN_SCORE`
  nothing is scoped and the search runs over the whole collection, as when more than :data:`MAX_SCOPES`
  headings tie at the best score (a name too generic to mean one place). When those headings lie in more than
  :data:`MAX_SCOPES` documents, the words head many of the collection's pages (the tool's own name, "… in
  semantic-release"): that level is passed over, and a lower level may still name one.

Deterministic: the same question on the same collection always gives the same scope, and the caller shows it
("searched under: …") with a way to search everywhere instead.
"""

from __future__ import annotations

import bisect
import math
import re
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache

from core import textnorm
from core.changelog import release_heading
from core.retrieval.heading_refs import HeadingMatch, HeadingRef, _ref, load_headings
from core.retrieval.name_forms import other_number, run_together, spelled_whole
from core.retrieval.shape import IDENTIFIER, asking_words, code_names, name_runs, split_preamble
from core.retrieval.word_forms import clipped as _clipped
from core.retrieval.word_forms import joined_score, prose_words
from core.retrieval.word_forms import matches as _matches
from core.statements import without_default_phrases
from core.store import StoredHeading
from core.textnorm import is_release_version

__all__ = ["MAX_SCOPES", "MIN_SCORE", "HeadingIndex", "HeadingMatch", "HeadingRef", "called_names", "load_headings",
           "rank_headings", "words"]

# Below this a match is one common word (idf of a word in ~1 heading of 10); measured on the bench sets.
MIN_SCORE = 2.3
# A word in at most this share of the headings names something (a product, an API); a more common one does not.
DISTINCTIVE_SHARE = 0.05
# More tied headings than this means the name does not pick a place ("Usage" in every extension's page).
MAX_SCOPES = 6
# How much a question word counts, by kind (times its IDF): identifiers in code spans, then other names of things,
# then plain words; a preamble's words count for little whatever their kind.
CODE_FACTOR = 3.0
NAME_FACTOR = 2.0
PREAMBLE_FACTOR = 0.35
# Runners-up kept for the joint choice with the evidence: at most this many score levels, each at least this
# share of the best score.
RUNNERS_UP = 5
RUNNER_UP_SHARE = 0.5
# A word held by the headings of at least this share of the documents (and PLATFORM_MIN_DOCUMENTS of them) names
# the platform the collection documents ("Python-Markdown" heads its guides and release notes), not one thing in
# it: it counts like a preamble's words, so a heading path that merely repeats the platform does not outrank the
# thing.
PLATFORM_SHARE = 0.3
PLATFORM_MIN_DOCUMENTS = 3
_HANGUL = re.compile(r"[\uac00-\ud7a3]")
# More changed documents than this since the copy a process holds: it reloads the whole index instead.
FULL_RELOAD_DOCUMENTS = 500
_MODEL = re.compile(r"\d")
_CODE_SPAN = re.compile(r"`[^`\n]*`")
_LETTER = re.compile(r"[a-z]")
_PARTS = re.compile(r"[._\-/:]")


words = textnorm.name_words  # the matchable words of a heading or a question (cached)


_INITIALS = re.compile(r"^[A-Za-z]+(?:[ \t]+[A-Za-z]+){2,5}$")


def _initials(text: str) -> frozenset[str]:
    """The initials of a heading of three to six plain words: "Table of Contents" is also ``toc``, the name code
    uses for it (``markdown.extensions.toc``)."""
    stripped = text.strip()
    if _INITIALS.match(stripped):
        return frozenset({"".join(w[0] for w in stripped.split()).casefold()})
    return frozenset()


@lru_cache(maxsize=50_000)
def heading_words(text: str) -> frozenset[str]:
    """:func:`words` of a heading, plus its :func:`_initials`."""
    return words(text) | _initials(text)


def _question_words(question: str) -> set[str]:
    return {w for w in words(question) if len(w) >= 2 or w.isdigit()}


_CAMEL_PART = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")


def _code_words(name: str) -> tuple[set[str], set[str]]:
    """The words of a code name: the thing it names (the name whole, its last dotted part and that part's
    leading CamelCase words) and the namespace it sits in (the leading dotted parts: ``markdown.extensions``)."""
    *namespace, last = re.split(r"[.:]", name)
    space = {w for part in namespace for w in words(part)}
    thing = (set(words(name)) - space) | set(words(last))
    if re.search(r"[a-z][A-Z]", last):  # the qualifiers, not the kind: ``TocExtension`` → ``toc``, not ``extension``
        thing |= {p.casefold() for p in _CAMEL_PART.findall(last)[:-1] if len(p) >= 2}
    return thing, space - thing


def _kinds(text: str) -> dict[str, float]:
    thing: set[str] = set()
    space: set[str] = set()
    for name in code_names(text):
        t, s = _code_words(name)
        thing |= t
        space |= s
    pool = _question_words(text) | thing
    # a release's version ("1.14.0", "v4.3") names one section of a changelog as a model number names a product
    names = {w for run in name_runs(text) for w in words(run)} | space | {w for w in pool if is_release_version(w)}
    return {w: CODE_FACTOR if w in thing else NAME_FACTOR if w in names else 1.0 for w in pool}


# A heading that is a call: its name ("Method: `run(task[, options])`", "new WebSocket(address)", "send(req, …)").
_CALL = re.compile(r"^(?:[A-Z][a-z]+(?: [a-z]+)?:\s*)?`?(?:new\s+)?(?P<name>[A-Za-z_$][\w$.]*)\(")


def _called_name(heading: str) -> str | None:
    """The name a heading that is a call calls, casefolded (``send`` for ``send(req, path, [options])``)."""
    found = _CALL.match(heading.strip())
    return found.group("name").casefold() if found else None


def called_names(text: str, index: HeadingIndex, *, plain: bool = False) -> frozenset[str]:
    """The identifiers of ``text`` (casefolded) that some heading of the collection calls (``send(req, path,
    [options])``, ``fs.readFile(path[, options], callback)``): each names the thing asked about, however it is
    written ("`send`", "serveStatic"), not an option of it. A plain lower-case word outside code ("send", "set")
    counts only in a question with no code at all: one that writes its names in code writes its words as words.
    ``plain``: ``text`` has no ways of asking for a default left (``QuestionAnalysis.plain``)."""
    out: set[str] = set()
    text = text if plain else without_default_phrases(text)
    tokens = [t for span in _CODE_SPAN.findall(text) for t in IDENTIFIER.findall(span)]
    bare = IDENTIFIER.findall(_CODE_SPAN.sub(" ", text))
    tokens += [t for t in bare if not tokens or not t.isalpha() or not t.islower()]
    for token in tokens:
        word = token.casefold()
        if word not in out and word not in textnorm.ENGLISH_STOP_WORDS and index.calls(word):
            out.add(word)
    return frozenset(out)


def _with_called(factors: dict[str, float], called: Iterable[str]) -> dict[str, float]:
    """``factors`` with each called name's words counted as a code name's (the thing and its namespace)."""
    out = dict(factors)
    for name in called:
        thing, space = _code_words(name)
        for w in thing:
            out[w] = max(out.get(w, 0.0), CODE_FACTOR)
        for w in space:
            out[w] = max(out.get(w, 0.0), NAME_FACTOR)
    return out


def word_factors(question: str, index: HeadingIndex | None = None, *,
                 plain_parts: tuple[str, str] | None = None) -> dict[str, float]:
    """Each matchable word of ``question`` and how much it counts (see :data:`CODE_FACTOR` …).

    A preamble's words count :data:`PREAMBLE_FACTOR` when the question proper names a thing some heading holds;
    when it names none ("In the Footnotes extension, what is the default `SEPARATOR`?"), the preamble is where
    the thing is named and its words count by their kind. A preamble holding a heading of several words whole
    ("In 9.0 Migration Notes, …", "In PyMdown Extensions, …") names that place: its words count by their kind,
    platform words included. ``plain_parts``: ``QuestionAnalysis.plain_preamble`` and ``plain_rest``, if read."""
    # the words of asking for a default in other words ("if I don't pass one", "fall back to") name nothing
    preamble, rest = plain_parts or split_preamble(without_default_phrases(question))
    factors = _kinds(rest)
    if index is not None:
        factors = {w: PREAMBLE_FACTOR if _names_platform(w, index) else f for w, f in factors.items()}
        factors = _with_called(factors, called_names(rest, index, plain=True))
    named_rest = any(f >= NAME_FACTOR and (index is None or index.holding(w)) for w, f in factors.items())
    pre = _kinds(preamble)
    if index is not None:
        pre = _with_called(pre, called_names(preamble, index, plain=True))
    # the preamble's own words, not its code: "Using `markdown.extensions.…`" names no "Using Extensions" guide
    place = _whole_heading_words(set(words(_CODE_SPAN.sub(" ", preamble))), index) if index is not None else set()
    for w, f in pre.items():
        if w in place:
            factors[w] = max(f, factors.get(w, 0.0))
            continue
        if index is not None and _names_platform(w, index):
            f = PREAMBLE_FACTOR
        factors.setdefault(w, PREAMBLE_FACTOR if named_rest else f)
    return other_number(run_together(question, _without_asking(question, factors, index), index), index)


def _without_asking(question: str, factors: dict[str, float], index: HeadingIndex | None) -> dict[str, float]:
    """``factors`` less the words saying how the question asks (``core.retrieval.shape.asking_words``: "how
    **long** is …", "… by **default**"): a heading holding them ("DEFAULT VALUES", a setting named ``long``) is not the
    thing asked of. A heading of several words the question spells whole ("the Default Configs section") still
    names its place."""
    asking = asking_words(question) & factors.keys()
    if asking and index is not None:
        asking -= _whole_heading_words(set(words(_CODE_SPAN.sub(" ", question))), index)
    return {w: f for w, f in factors.items() if w not in asking}


def _names_platform(word: str, index: HeadingIndex) -> bool:
    """A platform word, or a dotted name made of platform words only (``markdown.markdown``: the platform's
    entry point, not a thing in it)."""
    parts = [p for p in _PARTS.split(word) if p]
    return index.is_platform(word) or (len(parts) > 1 and all(index.is_platform(p) for p in parts))


def _whole_heading_words(pool: set[str], index: HeadingIndex) -> set[str]:
    """The words of the headings of two or more words that ``pool`` holds whole."""
    out: set[str] = set()
    for i in index.held_whole(pool):
        if len(index.headings[i].text.split()) >= 2:
            out |= index.words_of(i)
    return out


class HeadingIndex:
    """A collection's headings with an inverted index from each word to the headings whose own text holds it,
    updated a document at a time (:meth:`replace_documents`).

    Headings are numbered as they are added; candidates are ranked in document order, (document id, position).
    Stored headings bring their words (``core.sql.headings``); other headings are tokenised here.
    """

    def __init__(self, headings: Iterable[HeadingRef | StoredHeading] = ()) -> None:
        self.headings: dict[int, HeadingRef] = {}
        self.postings: dict[str, set[int]] = {}
        self.lock = threading.RLock()  # one process's threads read it while one of them brings it up to date
        self._words: dict[int, frozenset[str]] = {}
        self._places: dict[tuple[str, tuple[str, ...]], int] = {}
        self._documents: dict[str, list[int]] = {}
        self._sorted: list[str] = []  # the Hangul-initial and prose words, sorted: prefix lookups by bisection
        self.prose: set[str] = set()  # the words headings write as prose (a clipped word's whole, see _matches)
        # Per document, how many of its headings hold each word; per word, how many documents: the platform words
        # (PLATFORM_SHARE) follow each document's change without a rescan.
        self._document_words: dict[str, Counter[str]] = {}
        self._word_documents: Counter[str] = Counter()
        self._children: dict[tuple[str | None, tuple[str, ...]], list[HeadingRef]] | None = None
        # Each heading's parent heading (the one at its path, in its document): a question reads a candidate's
        # ancestors by id instead of by place. A document with a path that is not a heading of its own is read by
        # place and tokenised, as before parent links (:meth:`unplaced_documents`).
        self._parent: dict[int, int | None] = {}
        self._unplaced: set[str] = set()
        # The headings that are a call (``send(req, path, [options])``) by the name they call, casefolded: a
        # question's identifiers are checked against these, not against every heading holding the word.
        self._calls: dict[str, set[int]] = {}
        self._next = 0
        self._add(headings)

    def _add(self, headings: Iterable[HeadingRef | StoredHeading]) -> None:
        self._children = None
        new_hangul: set[str] = set()
        added: set[str] = set()
        for h in headings:
            ref = h if isinstance(h, HeadingRef) else _ref(h)
            own_words = (h.words | _initials(h.text)) if isinstance(h, StoredHeading) else heading_words(h.text)
            prose = prose_words(h.text)
            i = self._next
            self._next += 1
            self.headings[i] = ref
            self._words[i] = own_words
            self._places[ref.document_id, (*ref.path, ref.text)] = i
            self._documents.setdefault(ref.document_id, []).append(i)
            added.add(ref.document_id)
            if (name := _called_name(ref.text)) is not None:
                self._calls.setdefault(name, set()).add(i)
            in_document = self._document_words.setdefault(ref.document_id, Counter())
            for w in own_words:
                if not in_document[w]:
                    self._word_documents[w] += 1
                in_document[w] += 1
                ids = self.postings.get(w)
                if ids is None:
                    ids = self.postings[w] = set()
                    if _HANGUL.match(w):
                        new_hangul.add(w)
                if _clipped(w) and w not in self.prose and w in prose:
                    self.prose.add(w)
                    new_hangul.add(w)
                ids.add(i)
        if len(new_hangul) > 64:
            self._sorted = sorted(set(self._sorted) | new_hangul)
        else:
            for w in new_hangul:
                at = bisect.bisect_left(self._sorted, w)
                if at == len(self._sorted) or self._sorted[at] != w:
                    self._sorted.insert(at, w)
        for document_id in added:
            self._link(document_id)

    def _link(self, document_id: str) -> None:
        """Note the parent of each heading of a document (after all its headings are in)."""
        unplaced = False
        for i in self._documents.get(document_id, ()):
            path = self.headings[i].path
            parent = self._places.get((document_id, path)) if path else None
            unplaced = unplaced or (parent is None and bool(path))
            self._parent[i] = parent
        if unplaced:
            self._unplaced.add(document_id)
        else:
            self._unplaced.discard(document_id)

    def replace_documents(self, document_ids: Iterable[str], headings: Iterable[HeadingRef | StoredHeading]) -> None:
        """Drop the headings of ``document_ids`` and add ``headings`` (theirs as they are now)."""
        for document_id in document_ids:
            self._word_documents.subtract(self._document_words.pop(document_id, Counter()).keys())
            self._unplaced.discard(document_id)
            for i in self._documents.pop(document_id, ()):
                ref = self.headings.pop(i)
                del self._parent[i]
                for w in self._words.pop(i):
                    ids = self.postings.get(w)
                    if ids is not None:
                        ids.discard(i)
                        if not ids:
                            del self.postings[w]  # a stale entry of _sorted is skipped by holding()
                place = (ref.document_id, (*ref.path, ref.text))
                if self._places.get(place) == i:
                    del self._places[place]
                if (name := _called_name(ref.text)) is not None:
                    self._calls[name].discard(i)
                    if not self._calls[name]:
                        del self._calls[name]
        self._add(headings)

    def children(self) -> dict[tuple[str | None, tuple[str, ...]], list[HeadingRef]]:
        """Headings by (document, parent path), in document order; document titles (empty path) under ``None``
        across documents. Built on first use after a change."""
        if self._children is None:
            out: dict[tuple[str | None, tuple[str, ...]], list[HeadingRef]] = {}
            for i in sorted(self.headings, key=self.order):
                h = self.headings[i]
                out.setdefault((h.document_id if h.path else None, h.path), []).append(h)
            self._children = out
        return self._children

    def is_platform(self, word: str) -> bool:
        """Whether ``word`` names the collection's platform (see :data:`PLATFORM_SHARE`)."""
        documents = len(self._document_words)
        return self._word_documents.get(word, 0) >= max(PLATFORM_MIN_DOCUMENTS, PLATFORM_SHARE * documents)

    def holding(self, question_word: str) -> set[int]:
        """The headings whose own text holds a word that ``question_word`` matches (see :func:`_matches`)."""
        out = set(self.postings.get(question_word, ()))
        for w in self.long_forms(question_word):
            out.update(self.postings.get(w, ()))
        return out

    def long_forms(self, question_word: str) -> list[str]:
        """The longer heading words ``question_word`` matches: a Korean word's, a clipped word's whole ("config")."""
        at, out = bisect.bisect_left(self._sorted, question_word), []
        if _HANGUL.match(question_word) or _clipped(question_word):
            while at < len(self._sorted) and self._sorted[at].startswith(question_word):
                if self._sorted[at] != question_word and _matches(question_word, self._sorted[at], self.prose):
                    out.append(self._sorted[at])
                at += 1
        return out

    def words_of(self, i: int) -> frozenset[str]:
        """The words of heading ``i``'s own text (:func:`heading_words`)."""
        return self._words[i]

    def held_whole(self, pool: Iterable[str]) -> list[int]:
        """The headings all of whose words are in ``pool``: each heading holding a pool word counts the pool words it
        holds, which equal its own only when it has no other (no tokenising, whatever the collection's size)."""
        held: Counter[int] = Counter()
        for w in set(pool):
            held.update(self.postings.get(w, ()))
        return [i for i, n in held.items() if n == len(self._words[i])]

    def calls(self, word: str) -> bool:
        """Whether a heading holding ``word`` is a call of it (``send(req, path)`` for "send")."""
        ids = self._calls.get(word)
        if not ids:
            return False
        if _HANGUL.match(word):
            return bool(ids & self.holding(word))
        held = self.postings.get(word, ())
        return any(i in held for i in ids)

    def heading_at(self, document_id: str, place: tuple[str, ...]) -> HeadingRef | None:
        """The heading of a document whose path and text are ``place``."""
        i = self._places.get((document_id, place))
        return self.headings[i] if i is not None else None

    def words_at(self, document_id: str, place: tuple[str, ...]) -> frozenset[str]:
        """The words of the heading at ``place`` (its path and text) of a document: stored, or tokenised."""
        i = self._places.get((document_id, place))
        return self._words[i] if i is not None else words(place[-1])

    def documents_holding(self, ids: Iterable[int]) -> set[str]:
        """The documents of the headings ``ids``."""
        return {self.headings[i].document_id for i in ids}

    def in_documents(self, document_ids: Iterable[str]) -> list[int]:
        """The headings of ``document_ids``."""
        return [i for d in document_ids for i in self._documents.get(d, ())]

    def unplaced_documents(self) -> set[str]:
        """The documents with a heading whose path is not a heading of theirs: their paths are read by place."""
        return set(self._unplaced)

    def order(self, i: int) -> tuple[str, int, int]:
        h = self.headings[i]
        return h.document_id, h.order, i


def rank_headings(question: str, headings: Sequence[HeadingRef] | HeadingIndex,
                  factors: dict[str, float] | None = None) -> list[HeadingMatch]:
    """The headings ``question`` names, best first: the best score's headings, then up to :data:`RUNNERS_UP` - 1
    lower score levels (each at least :data:`RUNNER_UP_SHARE` of the best). Empty when nothing is named (see the
    module docstring for the rule). ``factors``: the question's :func:`word_factors` on this index, if read already."""
    index = headings if isinstance(headings, HeadingIndex) else HeadingIndex(headings)
    factors = word_factors(question, index) if factors is None else factors
    wanted = set(factors)
    if not wanted or not index.headings:
        return []

    def found(heading_words: Iterable[str]) -> set[str]:
        pool = list(heading_words)
        return {q for q in wanted if any(_matches(q, w, index.prose) for w in pool)}

    def path_words(h: HeadingRef, *, own: bool = False) -> list[frozenset[str]]:
        """The words of each heading of ``h``'s path, root first (and of ``h`` itself with ``own``)."""
        place = (*h.path, h.text) if own else h.path
        return [index.words_at(h.document_id, place[: depth + 1]) for depth in range(len(place))]

    holding = {q: index.holding(q) for q in wanted}
    df = {q: len(ids) for q, ids in holding.items()}
    n = len(index.headings)
    weight = {q: factors[q] * math.log(1.0 + n / df[q]) for q in wanted if df[q]}
    # A model number the question names and some heading holds ("27QX") says which thing: a heading path
    # without any of them is about another thing, however well its other words match ("34WC › PBP / PIP").
    # A release's version works the same way: a changelog path without it is about another release.
    versions = {q for q in wanted if df[q] and factors[q] >= NAME_FACTOR and is_release_version(q)}
    models = {q for q in wanted if df[q] and factors[q] >= NAME_FACTOR and _MODEL.search(q) and _LETTER.search(q)}
    models |= versions
    # A candidate is a heading whose own text holds a question word; the words a heading holds are a bit mask
    # (one bit per question word), so a path's words are an OR and a score is read once per set of words. A path
    # holding a model number lies in a document where some heading holds one (or one read by place): the headings
    # of the other documents are not scored.
    bit = {q: 1 << k for k, q in enumerate(sorted(wanted))}
    required = sum(bit[q] for q in models)
    own_of: dict[int, int] = {}
    if models:
        documents = index.documents_holding(set().union(*(holding[q] for q in models)))
        for i in index.in_documents(documents | index.unplaced_documents()):
            own = sum(b for q, b in bit.items() if i in holding[q])
            if own:
                own_of[i] = own
    else:
        for q, ids in holding.items():
            for i in ids:
                own_of[i] = own_of.get(i, 0) | bit[q]

    def mask(words: set[str]) -> int:
        return sum(bit[q] for q in words)

    groups = _by_path_words(index, own_of, required, lambda h: [mask(found(ws)) for ws in path_words(h)])
    # a hyphenated or dotted plain word counts once (its parts are the same word); a code name's parts are the
    # thing and its namespace, weighed by kind already (`child_process.execFile` whole tells it from `…exec`)
    score = joined_score(question, {q for q in wanted if factors[q] < NAME_FACTOR}, bit, weight)
    scores = {m: score(m) for m in groups}
    if not scores:
        return []
    best = max(scores.values())
    if best < MIN_SCORE:
        return []
    distinctive = mask({q for q in wanted if df[q] <= DISTINCTIVE_SHARE * n})
    code = mask({q for q in wanted if factors[q] >= CODE_FACTOR})
    release = mask(versions)

    def levels(matched: int, above: list[int], own: int) -> list[bool]:
        # The levels of the path (root first, the heading last) that name the thing: they hold a distinctive word;
        # a code name when one matched ("In the body-parser package, … of `bodyParser.json([options])`": the call,
        # not the preamble's package title above it); a version when one matched (the release's own section,
        # not the whole changelog titled with the product's name above it). A word the heading itself repeats
        # names the heading's own thing: "Build customization › build-frontend" asked "which build frontend" is
        # the option, not the section whose title shares "build" with it.
        named = matched & distinctive
        if named & code:
            named &= code
        elif named & release:
            named &= release
        return [bool(a & named & ~own) for a in above] + [True]

    def mixes_release(match: HeadingMatch) -> bool:
        owns = [release_heading(h.text) for h in match.headings]
        return bool(versions) and any(owns) and not all(owns)

    out: list[HeadingMatch] = []
    for level in sorted(set(scores.values()), reverse=True)[:RUNNERS_UP]:
        if level < max(MIN_SCORE, RUNNER_UP_SHARE * best):
            break
        # the weight each heading of the path (root first, the heading last) adds with its own words
        tied = sorted(((m, *t) for m, group in groups.items() if scores[m] == level for t in group),
                      key=lambda t: index.order(t[1]))
        tied = spelled_whole(tied, lambda t: index.headings[t[1]].text, lambda w: bool(found([w])))
        match = _match_at(index, [(index.headings[i], levels(m, above, own_of.get(i, 0))) for m, i, above in tied],
                          level, found)
        if match is not None and mixes_release(match):
            # a version named: a release's own heading ("1.6.0 - 2022-07-23") is its section; a page titled with
            # the version ("Hatch v1.6.0", a release post) only tells about it
            own = tuple(h for h in match.headings if release_heading(h.text))
            match = HeadingMatch(own, match.words, match.score)
        if match is not None and all({x.element_id for x in match.headings} != {x.element_id for x in m.headings}
                                     for m in out):
            out.append(match)
        elif match is None and not out and len(index.documents_holding(i for _, i, _ in tied)) <= MAX_SCOPES:
            return []  # the best names too many places in a few documents: nothing is scoped
        # A level tied over more documents than a scope holds is passed over: its words head many of the
        # collection's pages, so they name what the collection is about ("… in semantic-release"), not a place;
        # a lower level may still name one.
    if versions:
        # a release's own section before a page titled with its version ("Tool v2.4.0", a release post), which
        # may match more of the question's words (the product's name) but only tells about the release
        out.sort(key=lambda m: not all(release_heading(h.text) for h in m.headings))
    return out


def _by_path_words(index: HeadingIndex, own_of: dict[int, int], required: int,
                   by_place: Callable[[HeadingRef], list[int]]) -> dict[int, list[tuple[int, list[int]]]]:
    """The candidates by the question words of their whole path (a bit mask), each with the words of each heading
    above it (root first); those whose path holds none of ``required`` are left out. An ancestor holding a
    question word is itself a candidate: its words are read from ``own_of`` along the parent links; a document read
    by place (:meth:`HeadingIndex.unplaced_documents`) goes through ``by_place``."""
    parent = index._parent
    unplaced = index._unplaced
    out: dict[int, list[tuple[int, list[int]]]] = {}
    for i, own in own_of.items():
        matched = own
        if unplaced and index.headings[i].document_id in unplaced:
            above = by_place(index.headings[i])
        elif (up := parent[i]) is None:
            above = []
        else:
            above = []
            while up is not None:
                above.append(own_of.get(up, 0))
                up = parent[up]
            above.reverse()
        for a in above:
            matched |= a
        if required and not matched & required:
            continue
        group = out.get(matched)
        if group is None:
            out[matched] = [(i, above)]
        else:
            group.append((i, above))
    return out


def _match_at(index: HeadingIndex, tied: Sequence[tuple[HeadingRef, list[bool]]], score: float,
              found: Callable[[Iterable[str]], set[str]]) -> HeadingMatch | None:
    """The scope of the headings tied at one score: each widened to its entity, nested ones dropped."""
    places: dict[str, HeadingRef] = {}
    for h, levels in tied:
        # Widen to the entity: the shallowest heading of the path whose own text holds a *distinctive* matched
        # word (in at most DISTINCTIVE_SHARE of the headings). "Nova 32UX … › Specifications › Stand" matched
        # "stand", but the question is about the Nova 32UX and the item it wants ("Weight (with stand)") sits in
        # a sibling section; a word shared by many headings ("Nova" in a guide's title) does not widen.
        depth = next((i for i, w in enumerate(levels) if w), len(levels) - 1)
        place = (*h.path, h.text)[: depth + 1]
        root = index.heading_at(h.document_id, place) or h
        places.setdefault(root.element_id, root)
    roots = list(places.values())
    # A root below another root of the same document is already inside that one's subtree.
    keys = {(h.document_id, (*h.path, h.text)) for h in roots}
    roots = [h for h in roots if not any((h.document_id, h.path[:i]) in keys for i in range(1, len(h.path) + 1))]
    if len(roots) > MAX_SCOPES:
        return None
    # The words the scope's own paths hold: every element inside carries them, so they rank nothing there.
    names = set().union(*(found(heading_words(text)) for h in roots for text in (*h.path, h.text)))
    return HeadingMatch(tuple(roots), tuple(sorted(names)), round(score, 3))


def best_headings(question: str, headings: Sequence[HeadingRef] | HeadingIndex) -> HeadingMatch | None:
    """The headings ``question`` names, or ``None`` (see the module docstring for the rule)."""
    ranked = rank_headings(question, headings)
    return ranked[0] if ranked else None
