"""The retrieval pipeline: one function every entry point calls.

:func:`retrieve` validates the question, embeds it once, finds the hits under a search strategy
(``core.retrieval.search``), scoped by the headings the question names (``core.retrieval.headings``), and
builds both contexts from the same hits:

* **plain**: the hit elements as they are, best first;
* **hierarchical**: every hit expanded to its root-to-leaf partial tree, a heading hit with the part of its own
  section closest to the question (``children_budget`` tokens), merged and rendered as markdown.

Compare, ``ask``, the LangChain retrievers below and evaluation all call it. Timings are in milliseconds; what
the search did is said in :attr:`Retrieval.notes`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

import numpy as np
import psycopg

from core.changelog import ASKING_WORDS, asks_which_release, cites
from core.elements import row_cells
from core.retrieval.analysis import QuestionAnalysis, analyse
from core.retrieval.bridge_hop import hop_through_clause_value, hop_to_described_section
from core.retrieval.context import (
    DEFAULT_CHILDREN_BUDGET,
    Context,
    ContextElement,
    EntityRef,
    Mode,
    build_hierarchical_context,
    build_plain_context,
    expand,
)
from core.retrieval.contextual import contextual_index, index_dropped
from core.retrieval.definitions import asked_thing, command_flags, definitions_first
from core.retrieval.entities import Entity, entity_hits, find_entities
from core.retrieval.entries import named_entry, unclassed_entries
from core.retrieval.faq_headings import asked_heading, faq_heading_match, led_by_asked_heading
from core.retrieval.heading_cache import heading_index
from core.retrieval.headings import (
    CODE_FACTOR,
    NAME_FACTOR,
    PREAMBLE_FACTOR,
    HeadingIndex,
    HeadingMatch,
    called_names,
    rank_headings,
    word_factors,
)
from core.retrieval.headings import words as heading_words
from core.retrieval.hits import Hit
from core.retrieval.lexicon import lexicon_for
from core.retrieval.named_rows import rows_the_question_names
from core.retrieval.parts_search import search_by_parts
from core.retrieval.probe import probe_scope
from core.retrieval.question import QuestionError, validate_question
from core.retrieval.request import RetrievalRequest
from core.retrieval.router import route
from core.retrieval.scope import PATH_SEPARATOR, Scope, short_text
from core.retrieval.search import (
    MAX_K,
    SearchConfig,
    collection_words,
    embed_query,
    fts_scored,
    ms,
    read_lexemes,
    search_config,
)
from core.retrieval.shape import asks_how, is_prose_question
from core.retrieval.stages import SearchContext, Stages, current_stages
from core.retrieval.statement_path import PathStep
from core.retrieval.statement_search import find_statement_hits
from core.retrieval.strategies import stage_list
from core.retrieval.titled import titled_document
from core.retrieval.topic_search import find_topic_hits
from core.retrieval.word_forms import clipped
from core.store import ElementStore, VersionRecord
from core.store.hlg_tables import HLGTables
from core.versions import DateError, check_date_range

__all__ = ["Retrieval", "RetrievalRequest", "find_hits", "retrieve", "warm_up"]

MODES: tuple[Mode, Mode] = ("plain", "hierarchical")


@dataclass
class Found:
    """The hits of one search and how they were found."""

    hits: list[Hit]
    scope: Scope
    heading_match: HeadingMatch | None
    notes: list[str]
    timings: dict[str, float]
    entities: list[Entity] = field(default_factory=list)
    index: HeadingIndex | None = None  # the heading index the scope was read from, read once per question
    path: tuple[PathStep, ...] = ()  # the statement path the statements search joined two places by


def _where(hit: Hit) -> str:
    path = [*hit.element.heading_path, hit.element.text]
    return PATH_SEPARATOR.join(short_text(p, 40) for p in path)


def find_hits(context: SearchContext, scope: Scope) -> Found:
    """The ``context.k`` hits of the question: inside ``scope`` when one is given; else inside the headings the
    question names (when the strategy scopes by headings), the last slot kept for the whole collection's best hit
    when the scoped search did not find it. A scope ranks; it never vetoes (:func:`_aside`)."""
    k, config, stages = context.k, context.config, context.stages
    if not 1 <= k <= MAX_K:
        raise ValueError(f"k must be between 1 and {MAX_K}, got {k}")
    if not scope.is_whole or not config.headings:
        hits, timings = context.search(context.question, k, scope)
        note = f"searched in: {scope.label}" if not scope.is_whole else "searched the whole collection"
        return Found(hits, scope, None, [note], timings)
    t0 = time.perf_counter()
    index = context.index or heading_index(context.store)
    with index.lock:  # another thread may bring this process's copy up to date meanwhile
        analysis = context.analysis
        # read once: choosing the scope weighs the same words
        factors = word_factors(context.question, index, plain_parts=(analysis.plain_preamble, analysis.plain_rest))
        if asks_which_release(context.question):
            factors = {w: f for w, f in factors.items() if w not in ASKING_WORDS}
        # a word on most of the collection's elements names the collection, as a platform word does
        common = collection_words(context.store, list(factors), stages.heading_scope.collection_word_share,
                                  stages.heading_scope.collection_word_min)
        factors = {w: min(f, PREAMBLE_FACTOR) if w in common else f for w, f in factors.items()}
        candidates = rank_headings(context.question, index, factors)
        # a clipped word ("config", "async") found its headings by their long form: a scope is searched by it too
        long = [w for q in factors if clipped(q) for w in index.long_forms(q) if w not in factors]
        if long:
            analysis = context.analysis = replace(analysis, query=f"{analysis.query} {' '.join(dict.fromkeys(long))}")
        faq = faq_heading_match(context.store, index, context.vector, stages.heading_scope.faq_floor,
                                context.question, near_floor=stages.heading_scope.faq_near_floor,
                                margin=stages.heading_scope.faq_margin,
                                centred_min=stages.heading_scope.faq_centred_min,
                                entry_floor=stages.heading_scope.faq_entry_floor,
                                entry_margin=stages.heading_scope.faq_entry_margin,
                                pinned=frozenset(w for name in (*analysis.models, *analysis.codes)
                                                 for w in heading_words(name)))
        if faq is not None:  # the FAQ's own question, asked in other words, is the first place to look
            candidates = [faq, *(m for m in candidates if m.headings != faq.headings)]
        things = called_names(analysis.plain, index, plain=True)
        # asked which entry of a class (a rule, an option) it is, the entry named whole is the place to look; a
        # question naming a thing by its code or model number ("the `cwd` option of `tar.x()`") asks about it,
        # not which one it is
        pinned = analysis.codes or analysis.models or things or "`" in analysis.text
        entry = None if pinned else named_entry(analysis.plain_rest, index)
        if entry is not None:
            own = {h.element_id for h in entry.headings}
            candidates = [entry, *(m for m in candidates if {h.element_id for h in m.headings} != own)]
        elif not pinned and candidates:
            taken = {h.element_id for m in candidates for h in m.headings}
            unclassed = unclassed_entries(analysis.plain_rest, index, taken)
            candidates = [*candidates, unclassed] if unclassed is not None else candidates
    if candidates and config.fulltext:  # the whole collection is searched by the question, a scope by its query
        read_lexemes(context.store, (context.question, analysis.query))
    timings = {"match_headings": ms(time.perf_counter() - t0)}
    pool = min(MAX_K, max(k, stages.context.pool)) if stages.context.definitions_first else k
    # the whole collection is searched by the question's own words, and by the names it writes in the other
    # script's letters as the collection writes them ("kookmin bank": 국민은행): a field's translation there pulls
    # in every table of that field (core.retrieval.lexicon), a name only what it names
    text = " ".join((context.question, *context.analysis.spelled_names))
    everywhere, found = context.search(text, pool, scope)
    everywhere = definitions_first(everywhere, asked_thing(context.analysis, things), stages.context,
                                    command_flags(context.analysis.text))[:k]
    timings.update(found)
    cited = _citing(context, everywhere, timings)
    if cited is not None:
        return cited
    if not candidates:
        note = "no heading named in the question: searched the whole collection"
        return Found(everywhere, scope, None, [note], timings, index=index)
    # asked how to do something, the FAQ entry asking it is the answer's place: what its section holds is a way,
    # never the value the other candidates are tried for ("Current firmware : 1.08" for "how do I update it?")
    settled = faq is not None and candidates[0] is faq and asks_how(analysis.plain_rest)
    match, scoped, found = _choose_scope(context, candidates, factors, things, settled=settled)
    if faq is not None and match is faq:
        scoped = led_by_asked_heading(context.store, faq, scoped)
    elif (asked := asked_heading(context.store, index, context.vector, match)) is not None:
        scoped = led_by_asked_heading(context.store, asked, scoped)
    scoped_scope = match.scope()
    for stage, value in found.items():
        timings[f"{stage}_scoped"] = value
    notes = [f"searched under: {match.label}"]
    if match.entry:
        notes.append("the question identifies this entry: it names it whole and the heading of its class")
    if match is not candidates[0]:
        notes.append(f"chose it over {candidates[0].label}, which states nothing the question asks")
    if match.documents > 1:
        notes.append(f"the heading is in {match.documents} documents: searched all of them")
    if not scoped:
        notes.append("nothing under it matched: searched the whole collection")
        return Found(everywhere, Scope.whole(), match, notes, timings, index=index)
    if match is not faq and _scope_yields(context, match, scoped, everywhere, factors):
        notes.append("the whole collection holds what is closer to the question than anything under it: "
                     "searched the whole collection")
        return Found(everywhere, Scope.whole(), None, notes, timings, index=index)
    pinned = _pinning_names(factors) if stages.heading_scope.pinned_veto else None
    # a README's title named whole pins its product as a code name does: another README's hit is an aside
    titled = titled_document(context, match) if pinned is not None else None
    # The whole collection's best hit keeps the last slot: a scope read wrongly from the question never hides it
    # (without it recall fell from 0.97 to 0.85 on the Python-Markdown set).
    best = everywhere[0] if everywhere else None
    if stages.heading_scope.outside_slot and best is not None \
            and best.element_id not in {h.element_id for h in scoped}:
        outside = not match.contains(best.element)
        if k > 1:
            aside = outside and _aside(best, pinned, titled)
            scoped = [*scoped[: k - 1], Hit(best.element, k - 1, best.distance, outside_scope=aside)]
            if outside:
                notes.append(f"kept the best hit of the whole collection, from outside it: {_where(best)}")
        elif outside:
            notes.append(f"the best hit of the whole collection lies outside it: {_where(best)} "
                         "(search everywhere to see it)")
    if len(scoped) < k:  # a small scope: the rest of the k places go to the whole collection's next best
        taken = {h.element_id for h in scoped}
        extra = [Hit(h.element, 0, h.distance,
                     outside_scope=not match.contains(h.element) and _aside(h, pinned, titled))
                 for h in everywhere if h.element_id not in taken][: k - len(scoped)]
        scoped += extra
        if any(not match.contains(h.element) for h in extra):
            notes.append(f"the scope holds fewer than {k} matches: the rest come from the whole collection")
    hits = [Hit(h.element, rank, h.distance, h.outside_scope) for rank, h in enumerate(scoped[:k])]
    return Found(hits, scoped_scope, match, notes, timings, index=index)


def _citing(context: SearchContext, everywhere: list[Hit], timings: dict[str, float]) -> Found | None:
    """The hits of a question citing an issue or pull request ("#3903"): the elements citing it first, then the
    whole collection's best. The number pins the entry, not a heading: a heading the question's other words
    name ("Making a release" for "which release has #3903?") is no place to look. ``None`` when the question cites
    none, or nothing cites it."""
    numbers = context.analysis.references
    if not numbers:
        return None
    # by its words alone: a number is matched as written, and the question's vector would rank the long
    # entries that share its other words ("change", "release") above the one citing it
    t0 = time.perf_counter()
    found = fts_scored(context.store, " ".join(numbers), context.vector, context.stages.probe.k, Scope.whole())
    timings["fts_cited"] = ms(time.perf_counter() - t0)
    citing = [h for h, _score in found if any(cites(h.element.text, n) for n in numbers)]
    if not citing:
        return None
    taken = {h.element_id for h in citing}
    hits = [*citing, *(h for h in everywhere if h.element_id not in taken)][: context.k]
    notes = [f"the question cites #{', #'.join(numbers)}: the entries citing it first, from the whole collection"]
    return Found([Hit(h.element, rank, h.distance) for rank, h in enumerate(hits)], Scope.whole(), None, notes,
                 timings)


def _scope_yields(context: SearchContext, match: HeadingMatch, scoped: list[Hit], everywhere: list[Hit],
                  factors: dict[str, float]) -> bool:
    """Whether a scope read from plain words is a guess the question's meaning contradicts (off by default: docs/
    guide-retrieval.md): the question names no model number or code name (one pins the thing whatever heading the
    scope holds), it is no entry asked for, each word the scope was read from is one the collection's text uses
    widely (``scope_yield_share``: "griffe" on 31 % of a guide's elements), the question is a sentence
    (``is_prose_question``), and the whole collection's closest hit is ``scope_yield_margin`` closer (cosine)."""
    config = context.stages.heading_scope
    named = set(match.words)
    if config.scope_yield_margin > 1 or match.entry or match.answered or not everywhere or not named \
            or _pinning_names(factors) or not is_prose_question(context.analysis.plain):
        return False
    inside = max(h.similarity for h in scoped)
    if max(h.similarity for h in everywhere) < inside + config.scope_yield_margin:
        return False
    return named <= collection_words(context.store, sorted(named), config.scope_yield_share, 1)


def _pinning_names(factors: dict[str, float]) -> set[str]:
    """The question's words that pin one thing down: identifiers from code spans and names with digits ("24FL",
    "H2"), whichever heading the scope was read from."""
    return {w for w, f in factors.items() if f >= CODE_FACTOR or (f >= NAME_FACTOR and any(c.isdigit() for c in w))}


def _aside(hit: Hit, pinned: set[str] | None, titled: str | None = None) -> bool:
    """Whether a hit from outside the scope is only an aside (the answer says "not stated" for the scope and
    quotes it beside): when the question pins one thing down by a model number or code name (``pinned``) and the
    hit's own heading path names none of them, it is about another thing, or only mentions this one (an FAQ
    line, a guide's "supported models"); as when the scope is the README ``titled`` names and the hit lies in
    another document. A question naming no such thing has its scope read from plain words, a guess: a hit outside
    it competes with the hits inside on its evidence. ``None``: every hit outside is an aside."""
    if pinned is None or titled not in (None, hit.element.document_id):
        return True
    if not pinned:
        return False
    return not pinned & _own_words(hit)


def _own_words(hit: Hit) -> set[str]:
    """The words a hit names its own subject by: its heading path, and for a table row its key and its column
    names, as a row has no heading of its own ("Runner: Linux / Arm 64-bit · … · auto32: armv7l" is the auto32
    of that runner)."""
    own = {w for part in hit.element.heading_path for w in heading_words(part)}
    if hit.element.category == "TableRow":
        cells = row_cells(hit.element.text)
        own.update(w for text in [cells[0][1]] + [header for header, _ in cells] if cells for w in heading_words(text))
    return own


def find_compared(context: SearchContext) -> Found:
    """The hits of a comparative, superlative or list question: one search of the whole collection, then one per
    thing compared (:func:`add_entity_hits`); at most one search per thing, plus one."""
    analysis, config = context.analysis, context.stages.entities
    text = analysis.query
    named: list[Entity] = []
    if analysis.shape is not None and len(analysis.shape.parts) >= 2:
        # the things' headings lead the query: a table listing them all (an index page of every extension's entry
        # point) matches every one, a page about one matches one
        index = context.index or heading_index(context.store)
        with index.lock:
            named = find_entities(index, analysis.shape, [], analysis.terms, config.max_entities)
        if named:
            text = " ".join(dict.fromkeys(e.part or e.heading.text for e in named)) + " " + analysis.query
    pool_k = min(MAX_K, max(context.k, config.per_entity))
    pool, timings = context.search(text, pool_k, Scope.whole())
    hits = [Hit(h.element, rank, h.distance) for rank, h in enumerate(pool[: context.k])]
    found = Found(hits, Scope.whole(), None, ["searched the whole collection, then each thing compared"], timings)
    return add_entity_hits(context, found, pool, named)


def _with_each_parts_best(context: SearchContext, found: Found, scope: Scope) -> Found:
    """``found`` and, after its hits, each part's best hit not among them: a comparison of two table rows
    ("which has the newer default image, manylinux-armv7l-image or manylinux-riscv64-image?") searched whole finds
    one row; each part searched on its own finds its own."""
    hits, _notes, timings, _named, _path = search_by_parts(context, lambda c: _search_one(c, scope))
    taken = {h.element_id for h in found.hits}
    # the parts' hits are taken in turns: the first of each part lead
    best = [h for h in hits[:len(context.analysis.parts)] if h.element_id not in taken]
    for stage, spent in timings.items():
        found.timings[stage] = round(found.timings.get(stage, 0.0) + spent, 3)
    if best:
        found.hits = [*found.hits, *(Hit(h.element, len(found.hits) + i, h.distance) for i, h in enumerate(best))]
        found.notes.append(f"each of the {len(context.analysis.parts)} parts searched as well: {len(best)} more")
    return found


def add_entity_hits(context: SearchContext, found: Found, pool: list[Hit] | None = None,
                    named: list[Entity] | None = None) -> Found:
    """For a comparative, superlative or list question, each entity's best hit joins ``found``'s hits. ``named``:
    the things the question's parts name, when found already (``find_entities`` with no hits)."""
    shape = context.analysis.shape
    if shape is None:
        return found
    t0 = time.perf_counter()
    index = found.index or context.index or heading_index(context.store)
    with index.lock:  # another thread may bring this process's copy up to date meanwhile
        extra, entities = entity_hits(context, index, shape, found.hits, pool, named=named)
    found.timings["entities"] = ms(time.perf_counter() - t0)
    if entities:
        found.notes.append(f"compared {len(entities)} entities: " + "; ".join(e.heading.label for e in entities))
    found.hits = found.hits + extra
    found.entities = entities
    return found


def _strong_names(match: HeadingMatch, factors: dict[str, float]) -> set[str]:
    """The words of ``match`` that pin one thing down: identifiers from code spans and names with digits
    ("24FL", "H2"). A runner-up scope that lacks one of them is about something else."""
    return {w for w in match.words if factors.get(w, 0.0) >= CODE_FACTOR
            or (factors.get(w, 0.0) >= NAME_FACTOR and any(c.isdigit() for c in w))}


def _choose_scope(
    context: SearchContext, candidates: list[HeadingMatch], factors: dict[str, float], things: frozenset[str],
    *, settled: bool = False,
) -> tuple[HeadingMatch, list[Hit], dict[str, float]]:
    """The named headings whose subtree holds the attribute asked, best-named first; the best-named when none
    does. The scope is chosen with the evidence inside it, not from heading words alone: "Nova 32UX ›
    Specifications › Stand" names "stand", but a question about another product's weight finds no weight there.
    A runner-up never lacks a model number or code name some candidate matched (that would answer for another
    product), and a scope of several headings ("Nova 24FL" heads its sheet and a release-notes section) narrows
    to the one holding the attribute when the whole does not show it in its first hits."""
    # The model numbers and code names any candidate matched: a runner-up lacking one is about another thing
    # ("Nova 32UX › Firmware Update" for a question on the 34WC's firmware, whose notes are the best-named scope).
    strong = set().union(*(_strong_names(m, factors) for m in candidates))
    # Best named by one document's title, named whole (a plugin's README: "@rollup/plugin-commonjs" for "what does
    # rollup commonjs do with …"), a runner-up in another document answers for another product (core.retrieval.titled)
    titled = titled_document(context, candidates[0])
    allowed = [candidates[0], *(m for m in candidates[1:] if strong <= set(m.words)
                                and (titled is None or any(h.document_id == titled for h in m.headings)))]
    first: tuple[HeadingMatch, list[Hit], dict[str, float]] | None = None
    for match in allowed:
        # The scope's own names say where, not what: they never count as the attribute asked.
        asked = context.analysis.asked_outside(set(match.words))
        hits, timings, holds = probe_scope(context, match.scope(), asked, things, entry=match.entry,
                                           keyed=match.keyed and not context.analysis.asks_default)
        if first is None:
            first = (match, hits, timings)
        if not asked or holds or match.entry or match.answered or settled:
            return match, hits, timings
        if len(match.headings) > 1:
            for heading in match.headings:
                narrow = HeadingMatch((heading,), match.words, match.score)
                hits, timings, holds = probe_scope(context, narrow.scope(), asked, things)
                if holds:
                    return narrow, hits, timings
    assert first is not None
    return first


@dataclass
class Retrieval:
    """One search and the two contexts built from its hits, with stage timings in milliseconds."""

    question: str
    k: int
    scope: Scope
    hits: list[Hit]
    plain: Context
    hierarchical: Context
    timings: dict[str, float]
    query_vector: np.ndarray = field(repr=False)
    search: SearchConfig = field(default_factory=lambda: search_config(None))
    heading_match: HeadingMatch | None = None
    notes: list[str] = field(default_factory=list)
    children_budget: int = DEFAULT_CHILDREN_BUDGET
    as_of: datetime | None = None
    versions: dict[str, VersionRecord] = field(default_factory=dict)  # the version each hit's document was read at
    analysis: QuestionAnalysis | None = field(default=None, repr=False)  # the question as every stage read it
    searches: int = 0  # the searches run (one per scope probed, one per entity compared, the whole collection's)
    stages: Stages = field(default_factory=current_stages, repr=False)
    path: tuple[PathStep, ...] = ()  # the statement path that joined two places (the statements search), each cited

    def context(self, mode: Mode) -> Context:
        return self.plain if mode == "plain" else self.hierarchical

    @property
    def search_ms(self) -> float:
        """Everything between the embedding and the contexts: heading match, searches, fusion."""
        skip = {"embed_query", "plain_context", "expand"}
        return round(sum(v for s, v in self.timings.items() if s not in skip), 3)

    def timings_for(self, mode: Mode) -> dict[str, float]:
        """Stages of ``mode``: the search is shared; only the hierarchical context pays for expansion."""
        return {
            "embed_query": self.timings["embed_query"],
            "search": self.search_ms,
            "expand": self.timings["expand"] if mode == "hierarchical" else 0.0,
        }

    @property
    def searched_under(self) -> str | None:
        """The heading path(s) the question's names scoped the search to, if any."""
        return self.heading_match.label if self.heading_match is not None else None

    @property
    def hierarchy_added(self) -> list[ContextElement]:
        """Elements only the hierarchical context has: the ancestors (and children) around the hits."""
        plain = set(self.plain.element_ids)
        return [e for e in self.hierarchical.elements if e.element_id not in plain]

    def describe(self) -> dict[str, Any]:
        return {"search": self.search.as_dict(), "stages": list(stage_list(self.search)),
                "scope": self.scope.as_dict(), "notes": list(self.notes), "children_budget": self.children_budget,
                "searches": self.searches, "path": [step.as_dict() for step in self.path]}


def retrieve(store: ElementStore, request: RetrievalRequest, *, sibling: ElementStore | None = None) -> Retrieval:
    """Validate and embed ``request.question`` once, find the hits once, and build both contexts from them.
    ``sibling`` is the contextual collection for the contextual strategy (read from the store when not given)."""
    # One connection for the question's reads; the contextual index and the HLG tiers use connections of their own.
    own = request.config.contextual or request.config.statements or request.config.topics or request.config.route
    with store.one_question(hold=not own) as asking:
        return _retrieve(asking, request, sibling=sibling)


def _search_one(context: SearchContext, scope: Scope) -> Found:
    """One question's hits on its config's own path: the statements search, or the scoped search and its entity
    hits (the search of each part of a question asking several things)."""
    if context.config.statements:
        hits, notes, timings, path = find_statement_hits(context)
        return Found(hits, Scope.whole(), None, notes, timings, path=path)
    found = add_entity_hits(context, find_hits(context, scope))
    found.hits, named = rows_the_question_names(context, found.hits)
    found.notes += named
    return found


def _retrieve(store: ElementStore, request: RetrievalRequest, *, sibling: ElementStore | None) -> Retrieval:
    question = validate_question(request.question)  # raises QuestionError (a ValueError) with a message for the user
    config = request.config
    stages = current_stages()
    budget = request.budget
    k, max_tokens, query_vector = request.k, request.max_tokens, request.query_vector
    scope = request.scope or Scope.whole()
    try:
        # the collection's field names across scripts ("weight" ↔ "무게"), read from the current collection
        lexicon, index = lexicon_for(store, question)
        analysis = analyse(question, lexicon)  # read once: every stage below reads the question through it
        if request.as_of is not None:
            store = _as_of(store, request.as_of, config)
        if config.contextual and sibling is None:
            sibling = contextual_index(store)  # reads only: a missing or stale index is an error saying how to build it
        t0 = time.perf_counter()
        vector = embed_query(store, question) if query_vector is None else np.asarray(query_vector, dtype=np.float32)
        t1 = time.perf_counter()
        context = SearchContext(store, vector, k, config, analysis, stages, sibling,
                                index=index if request.as_of is None else None)
        routing = route(analysis) if (config.route or config.parts) and scope.is_whole else None
        if routing is not None and routing.search == "statements" and not (config.route and HLGTables(store).built()):
            routing = None  # not routing bridges, or no tiers yet: the question takes the config's own path
        if routing is not None and routing.search == "parts" and not config.topics:  # each part on its own path
            hits, notes, timings, named, path = search_by_parts(context, lambda c: _search_one(c, scope))
            found = Found(hits, scope, None, [routing.note, *notes], timings, named, path=path)
        elif config.statements or (routing is not None and routing.search == "statements"):
            hits, notes, timings, path = find_statement_hits(context)
            found = Found(hits, Scope.whole(), None, ([routing.note] if routing else []) + notes, timings, path=path)
        elif config.topics:
            hits, notes, timings = find_topic_hits(context)
            found = Found(hits, Scope.whole(), None, notes, timings)
        elif config.headings and scope.is_whole and analysis.shape is not None \
                and stages.entities.one_search_each:
            found = find_compared(context)
            if config.parts and len(found.entities) < len(analysis.parts):
                # fewer things found by their headings than the question compares (rows of one table, named by
                # their keys): each part's own best hit too
                found = _with_each_parts_best(context, found, scope)
        else:
            found = find_hits(context, scope)
            if config.headings and scope.is_whole:
                found = add_entity_hits(context, found)
            found.hits, named = rows_the_question_names(context, found.hits)
            found.notes += named
            if config.parts and config.headings and scope.is_whole and analysis.bridge == "relative clause":
                found.hits, hopped = hop_to_described_section(context, found.hits)  # its thing's own section
                found.notes += hopped
                # or the value its row states ("the arch that auto32 picks …": armv7l), asked of in its place
                found.hits, hopped = hop_through_clause_value(context, found.hits, lambda c: _search_one(c, scope))
                found.notes += hopped
        t2 = time.perf_counter()
        plain = build_plain_context(found.hits, max_tokens)
        t3 = time.perf_counter()
        elements, children, child_distances = expand(store, found.hits, children_budget=budget, query_vector=vector,
                                                     prose_sections=stages.context.prose_sections)
        hierarchical = build_hierarchical_context(found.hits, elements, children, child_distances, max_tokens)
        t4 = time.perf_counter()
    except psycopg.errors.UndefinedTable as exc:  # another process dropped the collection (or its index) meanwhile
        gone = store.gone_error(exc) or (index_dropped(store) if sibling is not None and sibling.gone_error(exc)
                                         else None)
        if gone is None:
            raise
        raise gone from exc
    named = tuple(h.text for h in found.heading_match.headings) if found.heading_match else ()
    plain.named = hierarchical.named = named
    plain.lexicon = hierarchical.lexicon = lexicon
    hierarchical.entities = tuple(EntityRef(e.heading.text, (*e.heading.path, e.heading.text), e.heading.document_id)
                                  for e in found.entities)
    timings = {"embed_query": ms(t1 - t0), **found.timings, "plain_context": ms(t3 - t2), "expand": ms(t4 - t3)}
    if not found.timings:
        timings["search"] = ms(t2 - t1)
    versions = store.read.versions_of({h.element.document_id for h in found.hits})
    return Retrieval(question=question, k=k, scope=found.scope, hits=found.hits, plain=plain, hierarchical=hierarchical,
                     timings=timings, query_vector=vector, search=config, heading_match=found.heading_match,
                     notes=found.notes, children_budget=budget, as_of=request.as_of, versions=versions,
                     analysis=analysis, searches=context.searches, stages=stages, path=found.path)


def _as_of(store: ElementStore, when: datetime, config: SearchConfig) -> ElementStore:
    """The store read as of ``when``; a question no document existed for, or one the contextual index (which keeps
    no history) would answer, is refused with a message for the user."""
    if when.tzinfo is None:
        raise QuestionError("an as-of date needs a time zone (a plain date is midnight UTC)")
    try:
        check_date_range(when, what="the as-of date")
    except DateError as exc:
        raise QuestionError(str(exc)) from None
    if config.contextual:
        raise QuestionError("the contextual strategy searches the current collection only: pick another strategy "
                            "to ask as of a date")
    versions = store.read.versions_at(when)
    if not versions:
        first = store.read.first_valid_from()
        since = f" (its first version takes effect on {first.date().isoformat()})" if first else ""
        raise QuestionError(f"no version of any document in {store.collection!r} existed on "
                            f"{when.date().isoformat()}{since}")
    return store.as_of(when, versions)


def warm_up(store: ElementStore) -> None:
    """Pay the one-time costs before the first question (a fresh server's first one took ~6 s without it): the
    Korean analyser's model, the token encoder that fits contexts to their budget (0.7 s of CPU), this process's
    heading index and the unit registry the extractive answer uses."""
    from core import textnorm
    from core.quantities import registry
    from core.tokens import load_encoding

    textnorm.terms("워밍업 warm-up")
    load_encoding()
    heading_index(store)
    registry()
