"""English questions over Korean sheets, and Korean over English: the collection's own field words matched across
scripts by the multilingual embedder.

A sheet names a field in one language ("무게 : 2.9 kg") and a question may ask it in the other ("weight"). No word
list can know every corpus's fields, so the counterparts come from the collection itself:

* its **field vocabulary**: the words (and short phrases) of the keys of its ``key : value`` items, of its table
  header cells and of its short headings (:func:`field_texts`), never a product or model name (a word with a digit);
* each field word of one script is paired with the other script's field word closest to it under the collection's
  embedder, when the cosine reaches :attr:`LexiconConfig.threshold` and beats the runner-up by
  :attr:`LexiconConfig.margin` (``weight`` ↔ ``무게``, ``power consumption`` ↔ ``소비전력``); a match that is only
  close, or close to two words alike, pairs nothing.

Cost: the pairs are computed once per collection version (the heading index's, see
``core.retrieval.heading_cache``), and only when the collection holds field words in both scripts, and stored with
the words' vectors (``core.store.field_pairs``): every other process reads them (one row), and a rebuild after a
change embeds only the words not stored yet. A collection in one script pairs nothing until a question in the other
script comes: then that question's own words are embedded (a few, cached per process) and matched against the
stored field words. A collection with no Hangul at all and an English question reads and embeds nothing.
"""

from __future__ import annotations

import functools
import hashlib
import re
import sys
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

import core.elements
import core.statements
import core.textnorm
from core.bounded_cache import BoundedCache
from core.elements import Element, row_cells
from core.ingest.embedding import text_sha256
from core.loanwords import outline
from core.retrieval.headings import HeadingIndex
from core.retrieval.loanword_pairs import collection_words, loanword_pairs, with_name_compounds
from core.statements import GENERAL, NO_LEXICON, Lexicon, statement, table_rows, terms
from core.store import ElementStore
from core.store.field_pairs import DocumentFields, FieldPairTables, StoredFieldPairs
from core.textnorm import has_hangul, strip_particles

__all__ = ["EMPTY", "lexicon_for", "FieldVocabulary", "Lexicon", "LexiconConfig", "collection_lexicon", "field_texts",
           "question_lexicon"]


@dataclass(frozen=True)
class LexiconConfig:
    """How close two field words must be to name one field (cosine of the collection's embedder)."""

    threshold: float = 0.7
    margin: float = 0.05
    # a loanword ("틸트" for "tilt") pairs by its outline when the embedder finds it at least this close, and a
    # romanised name ("kookmin" for 국민, core.retrieval.loanword_pairs) by its spelling
    loanword_floor: float = 0.3
    # two keys pair by their items (key and value together) at least this close (item_pairs)
    item_threshold: float = 0.5
    # a question's word pairs with a field of a collection in the other script at least this close: only the
    # question's few words are matched, not every field with every field, so fewer pairs happen by chance
    question_threshold: float = 0.5
    # a question's word and a collection's word of the same outline are one loanword at least this close
    # (core.retrieval.loanword_pairs): a word and its loanword spelling measure .69 ("티커", "ticker") to .94
    # ("테스트", "test") under the bundled embedder; words sharing an outline by chance .2 to .57 ("보관", "begin")
    pairing_floor: float = 0.65


# The share of a collection's field words a script needs for the collection to hold fields in that script.
MIN_SCRIPT_SHARE = 0.2
# An outline of fewer consonants ("hub": HP) matches too many words by chance.
MIN_OUTLINE = 3
# A field phrase of more words names a sentence, not a field ("Nova 27QX를 선택해야 하는 이유").
MAX_FIELD_WORDS = 4
# Bounds the first question's embedding work on a very large collection: its most frequent field words are kept.
MAX_VOCABULARY = 3000
# This process's lexicons: one per collection version, and the vectors of field and question words already embedded.
CACHE_SIZE = 16
WORD_VECTORS = 4096
# The shape of a stored row (core.store.field_pairs): a change here computes every collection's row again.
FORMAT = "4"
# An element longer than this is prose or code, never a field's label.
MAX_FIELD_TEXT = 2000
# Labels whose field units this process keeps (headings and keys recur at every version of a collection).
UNITS_CACHE = 32_768

_WORD = re.compile(r"[A-Za-z]+|[\uac00-\ud7a3]+")
_TOKEN = re.compile(r"\w+")
_PARENTHESES = re.compile(r"\([^()]*\)|\[[^\]]*\]")
_DIGIT = re.compile(r"\d")
# The modules whose code decides a document's field words (:func:`_fields_format`).
_FIELD_CODE = (core.statements, core.textnorm, core.elements, sys.modules[__name__])
_FORMAT_HELD: str | None = None


EMPTY = NO_LEXICON


@dataclass(frozen=True)
class FieldVocabulary:
    """A collection's field words and phrases, each with its terms, its script and its unit vector."""

    texts: tuple[str, ...]
    terms: tuple[frozenset[str], ...]
    hangul: np.ndarray  # bool per text
    vectors: np.ndarray  # one unit row per text
    outlines: tuple[str, ...] = ()  # each text's loanword outline (core.loanwords), "" for a phrase

    @property
    def embedded(self) -> bool:
        """Whether the words' vectors are held: a collection in one script keeps its words unembedded until a
        question in the other script needs them."""
        return not self.texts or self.vectors.shape[1] > 0

    @property
    def scripts(self) -> frozenset[bool]:
        """The scripts (``True``: Hangul) the fields are written in; a few words of the other script (a product
        name in a Korean heading, "Sora Tote 상품 정보") are names, not fields of that script."""
        if not len(self.hangul):
            return frozenset()
        share = float(np.mean(self.hangul))
        return frozenset(h for h, part in ((True, share), (False, 1.0 - share)) if part >= MIN_SCRIPT_SHARE)


def _units(text: str) -> tuple[str, ...]:
    """A field text's words, and the text itself when it is a phrase of a few words (parentheses dropped)."""
    return _units_within(text, MAX_FIELD_WORDS)


# Cached: every version of a collection counts all of its headings again. The limit is part of the key, since a
# sweep sets it per process.
@functools.lru_cache(maxsize=UNITS_CACHE)
def _units_within(text: str, max_words: int) -> tuple[str, ...]:
    text = _PARENTHESES.sub(" ", text)
    if _DIGIT.search(text) and len(text.split()) == 1:
        return ()
    words = [w for w in _WORD.findall(text) if len(w) > 1 and terms(w)]
    out = [w.casefold() for w in words]
    # the nouns inside a Korean compound name fields of their own ("소비전력": 소비, 전력)
    out += [t for w in words if has_hangul(w) for t in sorted(terms(w)) if t != w and len(t) > 1 and has_hangul(t)]
    if 1 < len(words) <= max_words and not _DIGIT.search(text) and len({has_hangul(w) for w in words}) == 1:
        out.append(" ".join(text.split()).casefold())
    return tuple(out)


def _element_fields(text: str, category: str) -> tuple[list[str], str | None]:
    """The labels an element names fields with (a ``key : value`` item's key, a table's header cells), and the key
    it states a value under when that key can name a field (a few words, no digit)."""
    key = None
    if category not in ("CodeSnippet", "Table", "TableRow"):
        found = statement(frozenset(), text, category)
        key = found[0] if found and found[0] else None
    item = key if key and len(key.split()) <= MAX_FIELD_WORDS and not _DIGIT.search(key) else None
    if category == "CodeSnippet":
        return [], None
    if category == "TableRow":
        return [header for header, _cell in row_cells(text)], None
    if category == "Table" or text.lstrip().startswith("|"):
        rows = table_rows(text)
        return list(rows[0]) if rows else [], item
    return ([key] if key else []), item


def _count(counts: dict[str, int], label: str, times: int = 1) -> None:
    for unit in _units(label):
        counts[unit] = counts.get(unit, 0) + times


def _ranked(counts: Mapping[str, int], headings: Iterable[str]) -> list[str]:
    counts = dict(counts)
    for heading in headings:
        if len(heading.split()) <= MAX_FIELD_WORDS:
            _count(counts, heading)
    return sorted(counts, key=lambda u: (-counts[u], u))[:MAX_VOCABULARY]


def field_texts(texts: Iterable[tuple[str, str]], headings: Iterable[str]) -> list[str]:
    """The field words of elements ``(text, category)`` and of ``headings``, most frequent first: the keys of
    ``key : value`` items, the header cells of tables and table rows, and headings of a few words."""
    counts: dict[str, int] = {}
    for text, category in texts:
        for label in _element_fields(text, category)[0]:
            _count(counts, label)
    return _ranked(counts, headings)


def document_fields(elements: Iterable[Element], source_key: str = "", fmt: str = "") -> DocumentFields:
    """What one document's elements contribute to the collection's field words (:func:`field_texts`' counts)
    and to its items (key, sha256 of the item's text)."""
    counts: dict[str, int] = {}
    items: list[tuple[str, str]] = []
    for e in elements:
        if len(e.text) > MAX_FIELD_TEXT:
            continue
        labels, item = _element_fields(e.text, e.category or "")
        for label in labels:
            _count(counts, label)
        if item:
            items.append((item, text_sha256(e.text)))
    return DocumentFields(source_key, fmt, counts, tuple(items))


def _unit_rows(matrix: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.where(norms == 0, 1.0, norms)


def vocabulary(units: Sequence[str], embed: Callable[[list[str]], list[list[float]]] | None,
               known: Mapping[str, np.ndarray] | None = None) -> FieldVocabulary:
    """``units`` with their terms and scripts, embedded by ``embed`` (one batch; those in ``known``, unit vectors
    already stored, are not); unembedded when ``embed`` is ``None``."""
    if embed is None:
        return _vocabulary(tuple(units), tuple(terms(u) for u in units), np.zeros((len(units), 0), np.float32))
    known = known or {}
    todo = [u for u in units if u not in known]
    fresh = dict(zip(todo, _unit_rows(np.asarray(embed(todo), dtype=np.float32)), strict=True)) if todo else {}
    vectors = np.stack([known[u] if u in known else fresh[u] for u in units]).astype(np.float32) if units \
        else np.zeros((0, 1), np.float32)
    return _vocabulary(tuple(units), tuple(terms(u) for u in units), vectors)


def _scripts(units: Sequence[str]) -> frozenset[bool]:
    """The scripts (``True``: Hangul) ``units`` hold fields in (:attr:`FieldVocabulary.scripts`), read before
    anything is embedded."""
    return _vocabulary(tuple(units), tuple(frozenset() for _ in units), np.zeros((len(units), 0), np.float32),
                       tuple("" for _ in units)).scripts


def _vocabulary(texts: tuple[str, ...], found: tuple[frozenset[str], ...], vectors: np.ndarray,
                outlines: tuple[str, ...] | None = None) -> FieldVocabulary:
    return FieldVocabulary(texts, found, np.array([has_hangul(u) for u in texts], dtype=bool), vectors,
                           outlines if outlines is not None else tuple(outline(u) for u in texts))


def match(sources: Sequence[str], vectors: np.ndarray, vocab: FieldVocabulary, hangul: bool,
          config: LexiconConfig, *, mutual_check: bool = False, asking: bool = False) -> Lexicon:
    """Each source (a word or phrase, with its vector) paired with the vocabulary's field of script ``hangul`` it
    is clearly closest to, or whose loanword outline it shares (``core.loanwords``: "tilt" ↔ "틸트")."""
    targets = np.flatnonzero(vocab.hangul == hangul)
    if not len(targets) or not len(sources):
        return EMPTY
    similarity = vectors @ vocab.vectors[targets].T
    # the best similarity each target has to any field of the sources' script (precomputed pairs only)
    own = (vocab.vectors[np.flatnonzero(vocab.hangul != hangul)] @ vocab.vectors[targets].T).max(axis=0) \
        if mutual_check else None
    outlines: dict[str, list[int]] = {}
    for j, i in enumerate(targets):
        if len(vocab.outlines[i]) >= MIN_OUTLINE:
            outlines.setdefault(vocab.outlines[i], []).append(j)
    # of the fields of the sources' script sharing an outline, the one closest to the target is its loanword
    rivals: dict[str, np.ndarray] = {}
    if mutual_check:
        others = np.flatnonzero(vocab.hangul != hangul)
        for key in outlines:
            same = [i for i in others if vocab.outlines[i] == key]
            if same:
                rivals[key] = (vocab.vectors[same] @ vocab.vectors[targets].T).max(axis=0)
    pairs, spellings = [], []
    for i, text in enumerate(sources):
        source = terms(text)
        row = similarity[i]
        order = np.argsort(-row)
        best = float(row[order[0]])
        # asking: the runner-up is another field; a phrase holding the best word, or a word of the best phrase
        # ("origin", "country of origin"), names the same one
        named = vocab.terms[targets[order[0]]] if asking else frozenset()
        second = next((float(row[j]) for j in order[1:] if not vocab.terms[targets[j]] & named), -1.0)
        # the target's own closest source is this one, or as close: a word close to everything (a hub) pairs none
        mutual = own is None or best >= float(own[order[0]]) - config.margin
        chosen = int(order[0]) if best >= config.threshold and best - second >= config.margin and mutual else None
        shape = outline(text)
        same = outlines.get(shape, []) if len(shape) >= MIN_OUTLINE else []
        if chosen is None and len(same) == 1 and float(row[same[0]]) >= config.loanword_floor \
                and (shape not in rivals or float(row[same[0]]) >= float(rivals[shape][same[0]])):
            chosen = same[0]
        target = vocab.terms[targets[chosen]] if chosen is not None else frozenset()
        if source and target and target != source:
            pairs.append((source, target))
            spellings.append(vocab.texts[targets[chosen]])
    return Lexicon(tuple(pairs), tuple(spellings))


@dataclass
class _Held:
    """One collection version's scripts and precomputed pairs (``read`` once a question needed them), and its
    vocabulary (``None`` until a question needs it)."""

    hangul_headings: bool
    read: bool = False
    scripts: frozenset[bool] = frozenset()
    vocab: FieldVocabulary | None = None
    lexicon: Lexicon = EMPTY
    lock: threading.Lock = field(default_factory=threading.Lock)


_HELD: BoundedCache[tuple, _Held] = BoundedCache(CACHE_SIZE)
_WORD_VECTORS: BoundedCache[tuple, np.ndarray] = BoundedCache(WORD_VECTORS)


def _fields_format() -> str:
    """What a stored document contribution was computed with: this extraction's code (the modules that read
    fields) and limits, so that a new release computes the contributions again instead of reading stale ones."""
    global _FORMAT_HELD
    if _FORMAT_HELD is None:
        code = b"".join(Path(m.__file__).read_bytes() for m in _FIELD_CODE if m.__file__)
        limits = repr((FORMAT, MAX_FIELD_WORDS, MAX_FIELD_TEXT)).encode()
        _FORMAT_HELD = hashlib.sha256(code + limits).hexdigest()[:16]
    return _FORMAT_HELD


def _read_fields(store: ElementStore, headings: Sequence[str]) -> tuple[list[str], dict[str, list[str]]]:
    """The collection's field words (:func:`field_texts`), and its ``key : value`` items by key (the sha256 of
    their texts). Each document's contribution is stored (``core.store.field_pairs``): after a change only the
    documents changed are read again, not the collection. Reads run on the question's held connection (a pool
    lent out whole would wait for it)."""
    fmt = _fields_format()
    if store.as_of_date is not None:  # a date's elements: computed, never stored
        found = [document_fields(store.read.elements(d), "", fmt) for d in store.read.document_ids()]
    else:
        tables = FieldPairTables(store)
        sources = store.read.document_sources()
        stored = tables.read_documents()
        fresh = {d: document_fields(store.read.elements(d), key, fmt) for d, key in sources
                 if (held := stored.get(d)) is None or held.source_key != key or held.format != fmt}
        current = [d for d, _ in sources]
        if fresh or set(stored) - set(current):
            tables.write_documents(fresh, current)
        found = [fresh.get(d) or stored[d] for d in current]
    counts: dict[str, int] = {}
    items: dict[str, list[str]] = {}
    for contribution in found:
        for unit, times in contribution.units.items():
            counts[unit] = counts.get(unit, 0) + times
        for key, sha in contribution.items:
            items.setdefault(key, []).append(sha)
    return _ranked(counts, headings), items


def _embedder(store: ElementStore, known: Mapping[str, np.ndarray]) -> Callable[[list[str]], list[list[float]]]:
    """Embeds field words with ``store``'s embedder, through this process's word vectors: a word another collection
    (the same corpus ingested again, a test's) or a question already had embedded is not embedded again."""
    model = store.embeddings.info

    def embed(units: list[str]) -> list[list[float]]:
        held = {u: v for u in units if (v := _WORD_VECTORS.get((model.provider, model.model, u))) is not None}
        todo = [u for u in units if u not in held]
        if todo:
            for unit, vector in zip(todo, _unit_rows(np.asarray(store.embeddings.embed_documents(todo), np.float32)),
                                    strict=True):
                _WORD_VECTORS.put((model.provider, model.model, unit), vector)
                held[unit] = vector
        return [held[u] for u in units]

    for unit, vector in known.items():
        _WORD_VECTORS.put((model.provider, model.model, unit), vector)
    return embed


def _general_terms() -> frozenset[str]:
    return frozenset(t for row in GENERAL for side in row for w in side.split() for t in terms(w))


def item_pairs(store: ElementStore, items: dict[str, list[str]], config: LexiconConfig) -> Lexicon:
    """Keys of the two scripts paired by what their items state, key and value together ("Contrast ratio :
    1,000:1" and "명암비 : 3,000:1", "Country of origin : China" and "제조국 : 중국"): each key's items' stored
    vectors (``items``: key → the sha256 of its items' texts; the embedding cache: nothing is embedded), averaged.
    Keys close alike to a source ("무게(스탠드 포함)", "무게(스탠드 제외)") give it the terms they share."""
    # a question's read: a standby serves it
    stored = store.cached_vectors({h for hashes in items.values() for h in hashes}, primary=False)
    keys = [k for k, hashes in items.items() if any(h in stored for h in hashes)]
    if not keys:
        return EMPTY
    matrix = _unit_rows(np.stack([np.mean([stored[h] for h in items[k] if h in stored], axis=0) for k in keys]))
    hangul = np.array([has_hangul(k) for k in keys], dtype=bool)
    general = _general_terms()
    pairs, spellings = [], []
    for script in (False, True):
        sources, targets = np.flatnonzero(hangul == script), np.flatnonzero(hangul != script)
        if not len(sources) or not len(targets):
            return EMPTY
        similarity = matrix[sources] @ matrix[targets].T
        closest_source = similarity.max(axis=0)
        for a, i in enumerate(sources):
            row = similarity[a]
            j = int(np.argmax(row))
            best = float(row[j])
            if best < config.item_threshold or best < float(closest_source[j]) - config.margin:
                continue
            close = [terms(keys[targets[b]]) for b in np.flatnonzero(row >= best - config.margin)]
            # a qualifier ("Max", "제외") is asked in the question's own words (statements.GENERAL): the pair names
            # the field, whichever qualifier the question adds
            target = frozenset.intersection(*close) - general
            source = terms(keys[i]) - general
            if source and target and source != target:
                pairs.append((source, target))
                spellings.append(" ".join(w for w in _WORD.findall(keys[targets[j]]) if terms(w) & target))
    return Lexicon(tuple(pairs), tuple(spellings))


def _fingerprint(store: ElementStore, config: LexiconConfig) -> tuple[str, str]:
    """What a stored row was computed with: the embedder, and the embedder with the config, :data:`FORMAT`, the
    extraction's code (:func:`_fields_format`) and the module's limits (a sweep sets them per process)."""
    info = store.embeddings.info
    embedder = f"{info.provider}/{info.model}/{info.dimension}"
    limits = (MIN_SCRIPT_SHARE, MIN_OUTLINE, MAX_FIELD_WORDS, MAX_VOCABULARY)
    return f"{embedder}|{FORMAT}|{_fields_format()}|{config!r}|{limits!r}", embedder


def _pairs(store: ElementStore, vocab: FieldVocabulary, items: dict[str, list[str]],
           config: LexiconConfig) -> Lexicon:
    """The cross-script pairs of a collection whose fields are in both scripts (none otherwise)."""
    if len(vocab.scripts) != 2:
        return EMPTY
    found = [item_pairs(store, items, config)]
    for hangul in (False, True):
        rows = np.flatnonzero(vocab.hangul == hangul)
        found.append(match([vocab.texts[i] for i in rows], vocab.vectors[rows], vocab, not hangul, config,
                           mutual_check=True))
    return Lexicon(tuple(p for f in found for p in f.pairs), tuple(w for f in found for w in f.spellings))


def stored_lexicon(store: ElementStore, version: int, headings: Callable[[], Sequence[str]],
                   config: LexiconConfig, *, words: bool = True
                   ) -> tuple[frozenset[bool], FieldVocabulary | None, Lexicon]:
    """The scripts the collection's fields are in, its field vocabulary (``words``: embedded; else ``None`` when
    read from the store, possibly unembedded when computed) and its pairs at ``version``: read from the store
    (``core.store.field_pairs``) when computed there at this version with this embedder and config; else computed
    now and stored for the processes after. Words are embedded only when pairs need them: a collection whose fields
    are in both scripts, or ``words`` (a collection in one script asked in the other); the vectors stored, or held
    by this process, are not embedded again."""
    tables = FieldPairTables(store)
    fingerprint, embedder = _fingerprint(store, config)
    head = tables.read_head()
    current = head is not None and head.version == version and head.fingerprint == fingerprint
    if current and not words:
        return head.scripts, None, Lexicon(head.pairs, head.spellings)
    stored = tables.read() if head is not None and head.embedder == embedder else None
    known = dict(zip(stored.texts, stored.vectors, strict=True)) if stored is not None \
        and stored.vectors.shape[1] > 0 else {}
    if current and stored is not None and stored.version == version and stored.fingerprint == fingerprint:
        if known or not stored.texts:
            return stored.scripts, _vocabulary(stored.texts, stored.terms, stored.vectors, stored.outlines), \
                Lexicon(stored.pairs, stored.spellings)
        units: list[str] = list(stored.texts)  # stored unembedded: embedded now, the pairs kept
        vocab = vocabulary(units, _embedder(store, known))
        lexicon = Lexicon(stored.pairs, stored.spellings)
    else:
        units, items = _read_fields(store, headings())
        both = len(_scripts(units)) == 2
        vocab = vocabulary(units, _embedder(store, known) if both or words else None, known)
        lexicon = _pairs(store, vocab, items, config) if both else EMPTY
    if store.as_of_date is None:  # the row holds the current collection's fields, never a date's
        tables.write(StoredFieldPairs(version, fingerprint, embedder, vocab.scripts, vocab.texts, vocab.terms,
                                      vocab.outlines, vocab.vectors, lexicon.pairs, lexicon.spellings))
    return vocab.scripts, vocab, lexicon


def collection_lexicon(store: ElementStore, version: int, headings: Callable[[], Sequence[str]],
                       question_hangul: bool, config: LexiconConfig | None = None
                       ) -> tuple[frozenset[bool], Callable[[], FieldVocabulary | None], Lexicon]:
    """The scripts the collection's fields are in (read when the question or the headings hold Hangul), its field
    vocabulary (read when asked for: only a collection in one script asked in the other needs it) and its
    cross-script pairs, kept per process for ``version`` (the heading index's) and stored per collection
    (:func:`stored_lexicon`)."""
    config = config or LexiconConfig()
    key = (store.url, str(store.collection_id), version, config)
    held = _HELD.get(key)
    if held is None:
        held = _Held(any(has_hangul(h) for h in headings()))
        _HELD.put(key, held)

    def vocabulary_now() -> FieldVocabulary | None:
        with held.lock:
            if held.vocab is None or not held.vocab.embedded:
                held.scripts, held.vocab, held.lexicon = stored_lexicon(store, version, headings, config)
                held.read = True
            return held.vocab

    if not held.hangul_headings and not question_hangul:
        return frozenset(), vocabulary_now, EMPTY  # English headings, an English question: nothing read
    with held.lock:
        if not held.read:
            held.scripts, held.vocab, held.lexicon = stored_lexicon(store, version, headings, config, words=False)
            held.read = True
        return held.scripts, vocabulary_now, held.lexicon


def _question_units(question: str, kept: frozenset[str], hangul: bool) -> list[str]:
    """The question's words of one script (names left out), and its runs of two or three such words. A word is
    one script's whole ("FL" of "24FL의" is a model number's, no English word)."""
    tokens = [strip_particles(w) if hangul else w for w in _TOKEN.findall(_PARENTHESES.sub(" ", question))]
    words = [w for w in tokens if _WORD.fullmatch(w) and has_hangul(w) == hangul]
    content = [w for w in words if len(w) > 1 and (ts := terms(w)) and not ts & kept]
    out = [w.casefold() for w in content]
    for n in (2, 3):
        for i in range(len(content) - n + 1):
            out.append(" ".join(content[i:i + n]).casefold())
    return list(dict.fromkeys(out))


def question_lexicon(store: ElementStore, scripts: frozenset[bool], fields: Callable[[], FieldVocabulary | None],
                     precomputed: Lexicon, question: str, kept: Callable[[], frozenset[str]],
                     config: LexiconConfig | None = None) -> Lexicon:
    """The pairs that translate ``question``: the precomputed ones when the collection's fields are in both
    scripts (or in none); else, when the question holds words of the script the fields are not in, those words
    matched against the fields (``fields()``, read then) now (each word embedded once per process)."""
    if len(scripts) != 1:
        return precomputed
    field_hangul = next(iter(scripts))
    units = _question_units(question, kept(), not field_hangul)
    if not units:
        return EMPTY
    vocab = fields()
    if vocab is None or not len(vocab.texts):
        return EMPTY
    vectors = dict(zip(units, _embedder(store, {})(units), strict=True))
    matrix = np.stack([vectors[u] for u in units])
    config = config or LexiconConfig()
    return match(units, matrix, vocab, field_hangul, replace(config, threshold=config.question_threshold),
                 asking=True)


def headings_hold_hangul(index: HeadingIndex) -> bool:
    """Whether any heading of the collection (``index``: its heading index) is written in Hangul."""
    with index.lock:
        return any(has_hangul(h.text) for h in index.headings.values())


def lexicon_for(store: ElementStore, question: str, config: LexiconConfig | None = None
                ) -> tuple[Lexicon, HeadingIndex]:
    """The pairs translating ``question`` over ``store``'s collection (:data:`EMPTY` when nothing needs
    translating): what ``core.retrieval.analysis.analyse`` reads the question's terms with; and the heading index
    read for it (this process's copy, brought up to date: the question's stages read it again)."""
    from core.retrieval.analysis import name_terms
    from core.retrieval.heading_cache import heading_index, held_version

    index = heading_index(store)
    version = held_version(store)
    config = config or LexiconConfig()
    if version is None:
        return EMPTY, index

    def headings() -> list[str]:
        with index.lock:
            return [h.text for h in index.headings.values()]

    scripts, fields, precomputed = collection_lexicon(store, version, headings, has_hangul(question), config)
    named = name_terms(question)
    # a loanword of the question in the collection's other script, wherever the collection writes it (a cell, an
    # identifier, a long heading), not only among its field words
    romanised: dict[str, frozenset[str]] = {}
    loans = loanword_pairs(store, version, question, named, _embedder(store, {}),
                          floor=config.pairing_floor, margin=config.margin, romanised=romanised,
                          spelling_floor=config.loanword_floor)
    # a word the question writes romanised ("nonghyup" for 농협) is a name: no run of words holding it is a field
    # by meaning ("virtual accounts nonghyup" read as 가상계좌 would hide the name's own pair)
    kept = named.union(*romanised.values())
    found = question_lexicon(store, scripts, fields, precomputed, question, lambda: kept, config)
    joined = _joined(found, loans)
    if romanised:
        # a name's own words count ("Kookmin Bank": the bank is the name's kind, 국민은행)
        asked = joined.translate(terms(question))
        joined = with_name_compounds(joined, romanised, collection_words(store, version), asked)
    return joined, index


def _joined(first: Lexicon, second: Lexicon) -> Lexicon:
    """The pairs of both lexicons, each pair once, each with its spelling."""
    if not second:
        return first
    spellings = (*first.spellings, *("" for _ in range(len(first.pairs) - len(first.spellings))))
    pairs, spelled = list(first.pairs), list(spellings)
    for pair, spelling in zip(second.pairs, second.spellings, strict=True):
        if pair not in pairs:
            pairs.append(pair)
            spelled.append(spelling)
    return Lexicon(tuple(pairs), tuple(spelled), first.names | second.names)
