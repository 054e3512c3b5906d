"""An FAQ's question headings matched by meaning: a user asks an FAQ's question in other words ("how can I see
which version would publish without releasing" for "Is there a way to preview which version would currently get
published?"), which the heading scope's word match misses or sends elsewhere. The embedder reads one question
against the other; a question heading close enough (``HeadingScopeConfig.faq_floor``) is a scope candidate ahead
of the word match.

A heading is an FAQ question when it is written as a question (ends with "?" or "？"). The headings' vectors are
embedded once per process for each set of question headings (the embedder's own cache answers a text seen before),
so a question costs one matrix product and no statement.

Below the floor, the closest question heading still leads when the embedder's choice is clear: its cosine is at
least ``faq_near_floor`` and, with the mean of the question headings' vectors taken out of every vector (what every
heading of the FAQ shares: the tool's name, "Can I …", which the bundled embedder weighs heavily and which brings a
heading sharing only the tool's name close), it leads the others by ``faq_margin``. "how can I see which version
semantic-release would publish without releasing" is .63 from "Is there a way to preview which version would
currently get published?" and .61 from "Can I use semantic-release to publish non-JavaScript packages?"; centred,
.40 against .21.

A question heading the question opens as ("why does flake8 complain about black's code?" and "Why does Flake8
report warnings?": the same words up to and with a word naming a thing, not the platform's) asks what it asks
whatever the cosine: the bundled embedder reads a short question by its topic words, and another heading sharing
"why does black … code" comes closer. A part of a question asking several things (``core.retrieval.parts``) is
matched so as well, each part against the headings on its own.
"""

from __future__ import annotations

import re
import weakref

import numpy as np

from core.bounded_cache import BoundedCache
from core.elements import Element
from core.retrieval.heading_refs import HeadingMatch, HeadingRef
from core.retrieval.headings import HeadingIndex, words
from core.retrieval.hits import Hit
from core.store import ElementStore

__all__ = ["asked_heading", "faq_entry_match", "faq_heading_match", "led_by_asked_heading", "question_headings"]

CACHE_SIZE = 16  # sets of question headings (collections, versions) whose vectors one process keeps
_QUESTION_MARKS = ("?", "？")

_TOKEN = re.compile(r"[^\W_][\w.+-]*")

_VECTORS: BoundedCache[tuple, np.ndarray] = BoundedCache(CACHE_SIZE)
_ENTRY_VECTORS: BoundedCache[tuple, np.ndarray] = BoundedCache(CACHE_SIZE)
_CENTRED: BoundedCache[tuple, tuple[np.ndarray, np.ndarray]] = BoundedCache(CACHE_SIZE)


# Per heading index, the state it was read at (headings held, the last one's number) and its question headings:
# every question asks them, and reading every heading of the collection each time cost a short question about
# 0.2 ms. Headings are numbered upwards as they are added, so adding some changes the last number and only dropping
# some leaves fewer: either changes the state.
_QUESTION_HEADINGS: weakref.WeakKeyDictionary[HeadingIndex, tuple[tuple[int, int], list[HeadingRef]]] = \
    weakref.WeakKeyDictionary()


def question_headings(index: HeadingIndex) -> list[HeadingRef]:
    """The headings of ``index`` written as questions, in the index's order."""
    state = (len(index.headings), next(reversed(index.headings), -1))
    held = _QUESTION_HEADINGS.get(index)
    if held is not None and held[0] == state:
        return list(held[1])
    found = [h for h in index.headings.values() if h.text.rstrip().endswith(_QUESTION_MARKS)]
    _QUESTION_HEADINGS[index] = (state, found)
    return list(found)


def _vectors(store: ElementStore, headings: list[HeadingRef]) -> np.ndarray:
    key = (store.url, str(store.collection_id), tuple(h.element_id for h in headings))
    held = _VECTORS.get(key)
    if held is None:
        raw = np.asarray(store.embeddings.embed_documents([h.text for h in headings]), dtype=np.float32)
        held = raw / np.maximum(np.linalg.norm(raw, axis=1, keepdims=True), 1e-9)
        _VECTORS.put(key, held)
    return held


def _entry_text(heading: HeadingRef, elements: list[Element]) -> str:
    """An FAQ entry as one text: its question heading and the first paragraph of its answer (the heading alone
    where the answer opens with no paragraph)."""
    first = next((e for e in elements if e.parent_id == heading.element_id and e.category == "NarrativeText"), None)
    return f"{heading.text} {first.text}" if first is not None else heading.text


def _entry_vectors(store: ElementStore, headings: list[HeadingRef]) -> np.ndarray:
    """The FAQ entries' vectors (:func:`_entry_text`), normalised; each document holding a question heading is read
    once per set of question headings, as their vectors are embedded once."""
    key = (store.url, str(store.collection_id), tuple(h.element_id for h in headings))
    held = _ENTRY_VECTORS.get(key)
    if held is None:
        documents: dict[str, list[Element]] = {}
        for heading in headings:
            if heading.document_id not in documents:
                documents[heading.document_id] = sorted(store.read.elements(heading.document_id),
                                                        key=lambda e: e.order)
        texts = [_entry_text(h, documents[h.document_id]) for h in headings]
        raw = np.asarray(store.embeddings.embed_documents(texts), dtype=np.float32)
        held = raw / np.maximum(np.linalg.norm(raw, axis=1, keepdims=True), 1e-9)
        _ENTRY_VECTORS.put(key, held)
    return held


def faq_entry_match(store: ElementStore, headings: list[HeadingRef], query: np.ndarray, floor: float,
                    margin: float) -> tuple[int, float] | None:
    """The FAQ entry whose question and first answer paragraph, read together, ask what the question asks in
    other words: its cosine is at least ``floor`` and leads every other entry's by ``margin``; its index in
    ``headings`` and that cosine, or ``None``. A user's paraphrase shares the answer's words more than the heading's
    ("does it check idempotence itself or just look at ansible's output?" for "Why is my idempotence action
    failing?" over "… will simply run the converge action twice and check against Ansible's standard output").
    A floor above 1: never."""
    if floor > 1 or len(headings) < 2:
        return None
    scores = _entry_vectors(store, headings) @ query
    order = np.argsort(-scores)
    best, second = float(scores[order[0]]), float(scores[order[1]])
    if best < floor or best - second < margin:
        return None
    return int(order[0]), best


def _centred(store: ElementStore, headings: list[HeadingRef]) -> tuple[np.ndarray, np.ndarray]:
    """The question headings' vectors less their mean, normalised, and that mean."""
    key = (store.url, str(store.collection_id), tuple(h.element_id for h in headings))
    held = _CENTRED.get(key)
    if held is None:
        vectors = _vectors(store, headings)
        mean = vectors.mean(axis=0)
        centred = vectors - mean
        held = (centred / np.maximum(np.linalg.norm(centred, axis=1, keepdims=True), 1e-9), mean)
        _CENTRED.put(key, held)
    return held


def _unit(vector: np.ndarray) -> np.ndarray:
    return vector / max(float(np.linalg.norm(vector)), 1e-9)


def _stands_out(store: ElementStore, headings: list[HeadingRef], query: np.ndarray, best: int,
                margin: float) -> bool:
    """Whether heading ``best`` leads every other question heading by ``margin`` once the headings' mean vector
    is taken out of them and of the question: what all of them share tells none apart."""
    if len(headings) < 2:
        return False
    centred, mean = _centred(store, headings)
    asked = query - mean
    scores = centred @ _unit(asked)
    others = np.delete(scores, best)
    return float(scores[best]) - float(others.max()) >= margin


def faq_heading_match(store: ElementStore, index: HeadingIndex, query_vector: np.ndarray,
                      floor: float, question: str = "", *, near_floor: float = 1.01, margin: float = 1.01,
                      centred_min: int = 8, pinned: frozenset[str] = frozenset(), entry_floor: float = 1.01,
                      entry_margin: float = 1.01) -> HeadingMatch | None:
    """The FAQ question heading that asks what the question asks (cosine at least ``floor``; or at least
    ``near_floor`` and standing out from the others by ``margin``, :func:`_stands_out`, in a collection of at
    least ``centred_min`` question headings, the heading holding every name the question pins (``pinned``: a
    model number, a code); else the one ``question`` opens as: :func:`opened_as`; else the entry whose heading
    and first answer paragraph read together match it, :func:`faq_entry_match` with ``entry_floor`` and
    ``entry_margin``), as a heading match with no words of the question (its words are not what it matched by),
    scored by the cosine it matched by; ``None`` when there is none."""
    headings = question_headings(index)
    if not headings:
        return None
    query = _unit(np.asarray(query_vector, dtype=np.float32))
    scores = _vectors(store, headings) @ query
    best = int(np.argmax(scores))
    # a weaker match never outweighs a name the question pins and the heading lacks ("Nova 27QX … 스피커 사양" is the
    # product's sheet, not "Q. 모니터에 스피커가 있나요?")
    clear = near_floor <= float(scores[best]) < floor and len(headings) >= centred_min \
        and pinned <= words(headings[best].text) and _stands_out(store, headings, query, best, margin)
    if float(scores[best]) < floor and not clear:
        opening = [i for i, h in enumerate(headings) if opened_as(question, h.text, index)]
        if not opening:
            entry = faq_entry_match(store, headings, query, entry_floor, entry_margin)
            if entry is None or not pinned <= words(headings[entry[0]].text):
                return None
            return HeadingMatch((headings[entry[0]],), (), entry[1], answered=True)
        # several open as the question ("why does molecule call …": "Why does Molecule make so many shell calls?",
        # "Why does Molecule only support …"): what their answers say tells them apart, not their shared opening
        ranked = _entry_vectors(store, headings) @ query if len(opening) > 1 and entry_floor <= 1 else scores
        best = max(opening, key=lambda i: float(ranked[i]))
    return HeadingMatch((headings[best],), (), float(scores[best]))


def asked_heading(store: ElementStore, index: HeadingIndex, query_vector: np.ndarray,
                  match: HeadingMatch) -> HeadingMatch | None:
    """``match`` as the FAQ question heading it is, with the question's cosine to it, when it is one heading
    written as a question (found by the question's words, not by meaning); ``None`` otherwise. Such a heading is
    the definition of its section as much as one matched by meaning: it leads the hits
    (:func:`led_by_asked_heading`), so its answer's paragraphs closest to the question come with it, whichever of
    its sub-headings holds them."""
    if len(match.headings) != 1:
        return None
    heading = match.headings[0]
    headings = question_headings(index)
    at = next((i for i, h in enumerate(headings) if h.element_id == heading.element_id), None)
    if at is None:
        return None
    query = _unit(np.asarray(query_vector, dtype=np.float32))
    return HeadingMatch((heading,), match.words, float(_vectors(store, headings)[at] @ query))


def opened_as(question: str, heading: str, index: HeadingIndex) -> bool:
    """``question`` opens with ``heading``'s own first words, a question word first, up to and with a word that
    names a thing (one :func:`~core.retrieval.headings.words` keeps, not the collection's platform): "why does
    flake8 …" is "Why does Flake8 report warnings?", "how do i …" is no FAQ's question by its asking words alone."""
    asked, asking = _TOKEN.findall(question.casefold()), _TOKEN.findall(heading.casefold())
    if not asked or not asking or asked[0] != asking[0] or not _ASKING.match(asked[0]):
        return False
    for mine, theirs in zip(asked, asking, strict=False):
        if mine != theirs:
            return False
        if words(mine) - {w for w in words(mine) if index.is_platform(w)}:
            return True
    return False


# the words a question heading opens with
_ASKING = re.compile(r"^(?:what|which|who|whom|whose|where|when|why|how|is|are|does|do|can|should|will)$")


def led_by_asked_heading(store: ElementStore, faq: HeadingMatch, scoped: list[Hit]) -> list[Hit]:
    """``scoped`` led by the FAQ question heading the question asks in other words: a heading hit brings its own
    section (its answer's paragraphs) and carries the similarity the reader weighs the section by."""
    heading = faq.headings[0]
    held = next((h for h in scoped if h.element_id == heading.element_id), None)
    if held is not None:  # found among the scope's hits: it leads them, the last place may go outside the scope
        return [held, *(h for h in scoped if h is not held)]
    found = store.read.get([heading.element_id])
    if not found:
        return scoped
    return [Hit(found[0], 0, 1.0 - faq.score), *scoped]
