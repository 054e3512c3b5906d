"""Search: how the ``k`` hits of a :class:`~core.retrieval.strategies.SearchConfig` are found.

The strategies themselves (their configs, names and where each is offered) are the registry in
:mod:`core.retrieval.strategies`, re-exported here.

Every search takes a :class:`~core.retrieval.scope.Scope`; the scope is a predicate of the SQL statement
(``core.sql.retrieval``), never a post-filter.
"""

from __future__ import annotations

import re
import time
import unicodedata
from collections.abc import Mapping, Sequence

import numpy as np

from core import textnorm
from core.bounded_cache import BoundedCache
from core.embeddings import E5Embeddings, USEEmbeddings
from core.retrieval.contextual import sibling_scope, to_base_hits
from core.retrieval.hits import Hit
from core.retrieval.scope import Scope
from core.retrieval.strategies import (
    DEFAULT_SEARCH,
    DEFAULT_STRATEGY,
    MAX_K,
    STRATEGIES,
    SearchConfig,
    search_config,
)
from core.site_markup import is_markup_only
from core.store import ElementStore
from core.store.question_reads import Scored
from core.store.reader import ElementReader

__all__ = [
    "DEFAULT_SEARCH",
    "DEFAULT_STRATEGY",
    "MAX_K",
    "STRATEGIES",
    "SearchConfig",
    "embed_query",
    "fts_scored",
    "fts_search",
    "collection_words",
    "fts_terms",
    "fuse",
    "rrf_fuse",
    "scanned_terms",
    "search_config",
    "tsquery_lexeme",
    "vector_search",
]


def ms(seconds: float) -> float:
    return round(seconds * 1000.0, 3)


# -- vector ----------------------------------------------------------------------------------------------------


# A local model's vector of a text is a pure function of the text (the model is fixed by its class): a text asked
# again (a Compare rerun, evaluation's modes, a follow-up that resolves to the same question) is not embedded again.
# Remote models (OpenAI) and test doubles are always called.
_LOCAL_MODELS = (USEEmbeddings, E5Embeddings)
_QUERY_VECTORS: BoundedCache[tuple[type, str], np.ndarray] = BoundedCache(1024)


def embed_query(store: ElementStore, question: str) -> np.ndarray:
    """The query vector of ``question`` under ``store``'s embedder (read-only; a local model's is kept per text)."""
    embeddings = store.embeddings
    if type(embeddings) not in _LOCAL_MODELS:
        return np.asarray(embeddings.embed_query(question), dtype=np.float32)
    key = (type(embeddings), question)
    vector = _QUERY_VECTORS.get(key)
    if vector is None:
        vector = np.asarray(embeddings.embed_query(question), dtype=np.float32)
        vector.setflags(write=False)  # shared by every caller of the same text
        _QUERY_VECTORS.put(key, vector)
    return vector


def _hits(found: Sequence[Scored]) -> list[Hit]:
    return [Hit(f.element, rank, f.distance) for rank, f in enumerate(found)]


def vector_search(
    store: ElementStore, query_vector: np.ndarray, k: int = 4, scope: Scope | None = None, *,
    include_metadata: bool = False,
) -> list[Hit]:
    """The ``k`` nearest elements inside ``scope`` (one statement, scope applied in SQL)."""
    if not 1 <= k <= MAX_K:
        raise ValueError(f"k must be between 1 and {MAX_K}, got {k}")
    return _hits(store.read.vector_search(query_vector, scope or Scope.whole(), k, include_metadata=include_metadata))


# -- full text -------------------------------------------------------------------------------------------------

def fts_terms(question: str) -> list[str]:
    """The question's Korean terms (``core.textnorm``: particles and endings cut by part of speech), searched as
    prefixes so "모니터의" finds "모니터" and "모니터는"; at least two syllables."""
    return sorted(t for t in textnorm.term_set(question) if textnorm.has_hangul(t) and len(t) >= 2)


def is_stopword(word: str) -> bool:
    return word in textnorm.ENGLISH_STOP_WORDS


def tsquery_lexeme(lexeme: str, *, prefix: bool = False) -> str:
    """``lexeme`` quoted as tsquery text: inside single quotes, quotes and backslashes doubled (so no operator
    in it is ever interpreted), plus ``:*`` for a prefix match."""
    quoted = "'" + lexeme.replace("\\", "\\\\").replace("'", "''") + "'"
    return quoted + (":*" if prefix else "")


# A term is common when more than COMMON_SHARE of the collection's elements, and more than COMMON_FLOOR of them,
# hold it: its IDF is small (ln 101 ≈ 4.6 at 1 %, against about 11 for a word of ten elements in 100,000), and
# reading its elements is most of a query's cost. Below COMMON_FLOOR elements a scan is cheap, so a small
# collection scans every term and ranks exactly as without the rule.
COMMON_SHARE = 0.01
COMMON_FLOOR = 2000


def scanned_terms(counts: Sequence[int], total: int, *, share: float | None = None,
                  floor: int | None = None) -> list[bool]:
    """Which terms find the full-text candidates, from each term's element count (the "common terms" rule of
    Lucene's CommonTermsQuery): the uncommon ones that some element holds; when every held term is common, the
    rarest of them alone. The others only add their IDF to the candidates that hold them."""
    share = COMMON_SHARE if share is None else share
    limit = max(share * total, COMMON_FLOOR if floor is None else floor)
    scanned = [0 < n <= limit for n in counts]
    held = [i for i, n in enumerate(counts) if n > 0]
    if not any(scanned) and held:
        rarest = min(held, key=lambda i: (counts[i], i))
        scanned[rarest] = True
    return scanned


def fts_scored(
    store: ElementStore, question: str, query_vector: np.ndarray, k: int, scope: Scope | None = None, *,
    include_metadata: bool = False, common_share: float | None = None, common_floor: int | None = None,
    config: SearchConfig = DEFAULT_SEARCH,
) -> list[tuple[Hit, float]]:
    """The ``k`` elements inside ``scope`` that best match the question's words, best first, with their
    IDF-sum scores. The words that named the scope (``scope.names``) are left out: inside it they match all.

    Over the whole collection, common words (:func:`scanned_terms`, from the stored term counts of
    ``core.sql.terms``) score the candidates the rarer words find but do not find candidates themselves; a scope,
    or a search that includes metadata elements, is read whole."""
    scope = scope or Scope.whole()
    question = unicodedata.normalize("NFKC", question)
    named = set(scope.names)
    with store.read.session() as read:
        lexemes = read.question_lexemes(question)
        # "svcAmt는" is one lexeme to the parser, held by no document writing "svcAmt": read as the word written bare
        bare = _particle_free(read, lexemes)
        lexemes = list(dict.fromkeys(bare.get(lex, lex) for lex in lexemes))
        lexemes = _repeated_name_once(read, question, lexemes, config.joined_name_share)
        lexemes = _parts_for_the_whole(lexemes)
        keys = [lex for lex in lexemes if not is_stopword(lex) and lex not in named]
        # a version matches however it is written: "2.29.3" finds "Release v2.29.3", "v1.12.0" finds "1.12.0"
        keys += [form for lex in keys for form in textnorm.version_forms(lex)
                 if form not in lexemes and form not in named]
        n_exact = len(keys)
        keys += [stem for stem in fts_terms(question) if stem not in lexemes and stem not in named]
        keys += [lex for lex in _bare_korean(read, keys[:n_exact], config.korean_prefix_min)
                 if lex not in keys[n_exact:]]
        if not keys:
            return []
        prefix = [i >= n_exact for i in range(len(keys))]
        terms = [tsquery_lexeme(key, prefix=p) for key, p in zip(keys, prefix, strict=True)]
        scanned, counts = [True] * len(terms), [0] * len(terms)
        if scope.kind == "collection" and not include_metadata:  # the counts hold content elements only
            stored = read.term_counts(keys, prefix)
            counts = stored.counts
            if stored.complete:  # else (counts not filled yet) every term is scanned
                scanned = scanned_terms(counts, stored.total, share=common_share, floor=common_floor)
                if not any(scanned):  # no element holds any of the words
                    return []
        found = read.fulltext_search(terms, scanned, counts, query_vector, scope, k,
                                     include_metadata=include_metadata)
    return [(hit, f.score) for hit, f in zip(_hits(found), found, strict=True)]


# A hyphenated word on at least ``SearchConfig.joined_name_share`` of the elements is a name the collection repeats
# (the tool "semantic-release" on a quarter of its elements, the port "USB-C" on a fifth of the monitor sheets'),
# not the question's subject: its parts are not searched beside it. Option and file names ("sbom-type",
# "build-verbosity", "e-books") sit on under 3 % of the elements of every tune corpus: they keep their parts.


def _repeated_name_once(read: ElementReader, question: str, lexemes: list[str], share: float) -> list[str]:
    """``lexemes`` less the parts of a hyphenated name the collection repeats (on ``share`` of its elements):
    Postgres's parser reads "semantic-release" as the word and each of its parts, so every element writing the
    tool's name matched the question three times over, above the one holding the question's other words. A part
    the question writes alone stays; a word no element holds whole ("python-kis는") is found by its parts, and a
    rare one ("e-books", a row's own subject) keeps them: counted once it fell below elements holding the
    question's other, commoner words."""
    joined = [lex for lex in lexemes if "-" in lex.strip("-")]
    if not joined:
        return lexemes
    held = read.term_counts(joined, [False] * len(joined), for_search=False)
    if not held.total:
        return lexemes
    alone = set(textnorm.name_words(_HYPHENATED.sub(" ", question)))
    parts = {p for lex, n in zip(joined, held.counts, strict=True) if n >= share * held.total
             for p in lex.split("-")}
    return [lex for lex in lexemes if lex not in parts or lex in alone]


_HYPHENATED = re.compile(r"\S*\w-\w\S*")
_DIGIT = re.compile(r"\d")


def _parts_for_the_whole(lexemes: list[str]) -> list[str]:
    """``lexemes`` less each hyphenated word whose every part is searched (its stop words aside, one part at
    least): an element writing the word holds its parts too, so the word added a second count of the same words.
    "built-in" on a section heading (and so in the path of each of its items) counted as itself and "built", above
    the one line stating "Speakers" for "built-in speakers". The parts count, as a standard analyser splits the
    word; a rare word of several parts ("e-books") still weighs as several. A name whose parts were left out
    (:func:`_repeated_name_once`; "semantic-release" with only "release" written alone), or with a number in a
    part, is searched whole."""
    held = set(lexemes)

    def replaced(lex: str) -> bool:
        parts = [p for p in lex.split("-") if p and not is_stopword(p)]
        # a name with a number in a part ("utf-8", "manylinux-armv7l-image") is an identifier: its exact form is
        # what the documents write, and a number alone matches every number
        return "-" in lex.strip("-") and bool(parts) and all(p in held and not _DIGIT.search(p) for p in parts)

    return [lex for lex in lexemes if not replaced(lex)]


def collection_words(store: ElementStore, words: Sequence[str], share: float, least: int) -> frozenset[str]:
    """Those of ``words`` that name the whole collection, held by at least ``share`` of its elements (in their text
    or heading path) and at least ``least`` of them (``HeadingScopeConfig``), from the stored term counts; none
    while the counts are not filled yet."""
    plain = [w for w in words if w and not textnorm.has_hangul(w)]
    if not plain:
        return frozenset()
    with store.read.session() as read:
        held = read.term_counts(plain, [False] * len(plain), for_search=False)
    if not held.complete or not held.total:
        return frozenset()
    floor = max(least, share * held.total)
    return frozenset(w for w, n in zip(plain, held.counts, strict=True) if n >= floor)


# A Korean word of at least ``SearchConfig.korean_prefix_min`` syllables that the question writes bare and no element
# holds bare is searched as a prefix too: the documents write it with a particle or an ending ("수정주가를",
# "반영하여"), one lexeme each to the parser, so the bare word matched nothing. A shorter word begins too many others:
# at 2, an English superlative over two product families ("Which Aster hub has the longest warranty?") ranked the
# Korean family's rows, though entity-grid gained three questions. Swept: 2, 3 and 4 gain the same pykrx question;
# off gains none.


def _bare_korean(read: ElementReader, lexemes: Sequence[str], least: int) -> list[str]:
    """The Hangul ``lexemes`` of ``least`` syllables or more that no element holds as written."""
    bare = [lex for lex in lexemes if len(lex) >= least and _ALL_HANGUL.fullmatch(lex)]
    if not bare:
        return []
    held = read.term_counts(bare, [False] * len(bare), for_search=False)
    return [lex for lex, n in zip(bare, held.counts, strict=True) if n == 0]


_ALL_HANGUL = re.compile(r"[\uac00-\ud7a3]+")


def _particle_free(read: ElementReader, lexemes: Sequence[str]) -> dict[str, str]:
    """The question's lexemes that are a Latin or number word with a Korean particle ("svcamt는", "005는") and that
    no element holds as written, each with its word ("svcamt"): the parser keeps the two scripts of one word in one
    lexeme, which no document writing the word bare ("### svcAmt") holds. A lexeme the collection holds ("git에",
    written so in a document) is searched as it is; a hyphenated word ("python-kis는") is already searched by the
    parts the parser cuts from it ("python")."""
    # a lexeme that ends another ("는" of "svcamt는") is no word of its own: the proper suffixes of every lexeme,
    # once, instead of testing each pair (a question's lexemes are tens, its searches several)
    ends = {other[i:] for other in lexemes for i in range(1, len(other) + 1)}
    whole = [lex for lex in lexemes if not _JOINED.search(lex) and lex not in ends]
    stems = {lex: stem for lex in whole if (stem := textnorm.without_particle(lex)) != lex}
    if not stems:
        return {}
    held = read.term_counts(list(stems), [False] * len(stems), for_search=False)
    return {lex: stem for (lex, stem), n in zip(stems.items(), held.counts, strict=True) if n == 0}


_JOINED = re.compile(r"[-.]")


def read_lexemes(store: ElementStore, texts: Sequence[str]) -> None:
    """The lexemes of the texts a question's full-text searches will read, in one round trip (each search would
    read its own): normalised as :func:`fts_scored` normalises them."""
    store.read.read_lexemes(unicodedata.normalize("NFKC", text) for text in texts)


def fts_search(store: ElementStore, question: str, query_vector: np.ndarray, k: int,
               scope: Scope | None = None) -> list[Hit]:
    """The ``k`` elements that best match the question's words (IDF-weighted), best first."""
    return [hit for hit, _score in fts_scored(store, question, query_vector, k, scope)]


# -- fusion ------------------------------------------------------------------------------------------------------


def rrf_fuse(rankings: Sequence[Sequence[Hit]], k: int, rrf_k: int = 60,
             weights: Sequence[float] | None = None) -> list[Hit]:
    """Weighted reciprocal rank fusion: score = Σ wᵢ/(rrf_k + rank), rank 1-based per list; ties keep the earlier
    list's order."""
    weights = weights or [1.0] * len(rankings)
    scores: dict[str, float] = {}
    for ranking, weight in zip(rankings, weights, strict=True):
        for position, hit in enumerate(ranking, start=1):
            scores[hit.element_id] = scores.get(hit.element_id, 0.0) + weight / (rrf_k + position)
    return _ordered(rankings, scores, k)


def _ordered(rankings: Sequence[Sequence[Hit]], scores: Mapping[str, float], k: int) -> list[Hit]:
    first_seen: dict[str, tuple[int, int]] = {}
    hits: dict[str, Hit] = {}
    for list_index, ranking in enumerate(rankings):
        for position, hit in enumerate(ranking, start=1):
            first_seen.setdefault(hit.element_id, (position, list_index))
            hits.setdefault(hit.element_id, hit)
    order = sorted(scores, key=lambda e: (-scores[e], first_seen[e], e))[:k]
    return [Hit(hits[e].element, rank, hits[e].distance) for rank, e in enumerate(order)]


def relative_fuse(scored: Sequence[Sequence[tuple[Hit, float]]], k: int, weights: Sequence[float]) -> list[Hit]:
    """Relative score fusion: each list's scores scaled to 0..1 between its worst and best candidate, then
    a weighted sum. Unlike RRF it keeps *how much* better the best lexical match is than the rest."""
    scores: dict[str, float] = {}
    for items, weight in zip(scored, weights, strict=True):
        if not items:
            continue
        values = [s for _, s in items]
        low, high = min(values), max(values)
        for hit, value in items:
            scaled = 1.0 if high == low else (value - low) / (high - low)
            scores[hit.element_id] = scores.get(hit.element_id, 0.0) + weight * scaled
    return _ordered([[h for h, _ in items] for items in scored], scores, k)


def fuse(config: SearchConfig, vector: Sequence[Hit], lexical: Sequence[tuple[Hit, float]], k: int) -> list[Hit]:
    """The ``k`` best of both candidate lists under ``config``'s fusion."""
    best = lexical[0][1] if lexical else 0.0
    lexical = [(h, s) for h, s in lexical if s >= config.fulltext_cutoff * best]
    weights = (1.0, config.fulltext_weight)
    if config.fusion == "relative":
        return relative_fuse([[(h, h.similarity) for h in vector], lexical], k, weights)
    return rrf_fuse([vector, [h for h, _ in lexical]], k, weights=weights)


def search(
    store: ElementStore, question: str, query_vector: np.ndarray, k: int, scope: Scope, config: SearchConfig,
    *, sibling: ElementStore | None = None,
) -> tuple[list[Hit], dict[str, float]]:
    """The ``k`` best hits inside ``scope`` under ``config`` (no heading scoping here), with stage timings in ms.

    With ``config.contextual`` the vector list comes from ``sibling`` (the contextual collection), mapped back to
    the elements of ``store``.
    """
    timings: dict[str, float] = {}
    # a single list fetches as many candidates as fusion does: the markup-only elements dropped below (anchors
    # embed alike, so they come in runs) must not leave it short of k
    pool = min(MAX_K, max(config.candidates, k))
    vector: list[Hit] = []
    lexical: list[tuple[Hit, float]] = []
    if config.vector:
        t0 = time.perf_counter()
        if config.contextual:
            if sibling is None:
                raise ValueError("the contextual search needs the collection's contextual index (contextual_index)")
            found = vector_search(sibling, query_vector, pool, sibling_scope(sibling, scope),
                                  include_metadata=config.include_metadata)
            vector = to_base_hits(store, found)
        else:
            vector = vector_search(store, query_vector, pool, scope, include_metadata=config.include_metadata)
        timings["vector_search"] = ms(time.perf_counter() - t0)
    if config.fulltext:
        t0 = time.perf_counter()
        lexical = fts_scored(store, question, query_vector, pool, scope, include_metadata=config.include_metadata,
                             config=config)
        timings["fts_search"] = ms(time.perf_counter() - t0)
    # an element that is only markup (an anchor "{#option-x}", a block's fence) states nothing: never a hit, though
    # its embedding sits next to the name it anchors
    vector = [h for h in vector if not is_markup_only(h.element.text)]
    lexical = [(h, s) for h, s in lexical if not is_markup_only(h.element.text)]
    if not config.hybrid:
        return (vector if config.vector else [h for h, _ in lexical])[:k], timings
    t0 = time.perf_counter()
    hits = fuse(config, vector, lexical, k)
    timings["fuse"] = ms(time.perf_counter() - t0)
    return hits, timings
