"""What makes an extractive report read as a theme: its title, its importance rating and its summary sentences.

**Title** (entity communities; a section keeps its heading). Two candidates are computed, both class-based TF-IDF
against the other communities of the same level (the way BERTopic labels topics), where a community's "document"
is the sentences that mention its entities (at most :data:`SENTENCES_PER_ENTITY` each):

* *headings*: the section headings those sentences sit under (every heading on the path counts), weighted
  ``tf × log(1 + A / f)`` with ``tf`` the count in this community, ``f`` the count over the level and ``A`` the
  average count per community. Headings every community has ("Options", "Usage") score low; the heading that
  is this community's own scores high. The title is the best heading, joined by the second when it scores at
  least :data:`SECOND_HEADING_SHARE` of the first.
* *terms*: the same weighting over the entity names mentioned in those sentences, top three joined.

The heading title is used when its best heading covers at least :data:`MIN_HEADING_SHARE` of the community's
sentences (the members mostly live under it); otherwise the terms title. :func:`title_candidates` returns both.

**Rating** (0–10, importance)::

    rating = 10 × (0.5 × coverage + 0.25 × reach + 0.25 × coverage × distinctiveness)

* coverage = √(share / largest share at this kind and level), share = the community's content elements over the
  corpus's content elements (an element counts when it mentions a member; for a section, its own elements);
* reach = documents its elements come from / the most any community of this kind and level reaches (in a corpus
  of fewer than :data:`MIN_DOCUMENTS_FOR_REACH` documents, top-level sections stand in for documents);
* distinctiveness = the share of its members' relationship weight that stays inside the community, counted in
  proportion to coverage: a two-entity island is perfectly cohesive, and still no major theme.

**Summary sentences**: maximal marginal relevance over element embeddings (the vectors stored at ingest; no new
embedding at index time). Candidates are the content elements that mention the most members; centrality is the
cosine to their (mention-weighted) centroid; each pick maximises ``λ·centrality − (1−λ)·max similarity to the
picks so far`` (λ = :data:`MMR_LAMBDA`). The first picks are drawn one from each of the largest sub-communities, so
the summary covers them. From each picked element the sentence naming the most members is quoted. Without vectors
(a store that has none), the sentences naming the most members are used.
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from core.graph.communities.entity_graph import GraphData
from core.graph.communities.leiden import join_names
from core.store.graph_records import Community
from core.text import clip
from core.textnorm import has_hangul

SENTENCES_PER_ENTITY = 40
MIN_HEADING_SHARE = 0.3
SECOND_HEADING_SHARE = 0.6
MMR_LAMBDA = 0.7
MAX_SUMMARY_SENTENCES = 3
MAX_CANDIDATES = 300
MAX_TITLE_CHARS = 60
WEIGHTS = {"coverage": 0.5, "reach": 0.25, "distinctiveness": 0.25}
MIN_DOCUMENTS_FOR_REACH = 3


@dataclass
class Importance:
    rating: float
    share: float  # of the corpus's content elements
    documents: int
    cohesion: float
    max_share: float
    total_documents: int


class Themes:
    """Titles, ratings and summary sentences for the communities of one index run (see the module docstring)."""

    def __init__(
        self, graph: GraphData, communities: Sequence[Community], vectors: dict[str, np.ndarray] | None = None
    ) -> None:
        self.graph = graph
        self.by_id = {c.id: c for c in communities}
        self.vectors = vectors or {}
        infos = graph.infos
        self.content = {e for e, info in infos.items() if info.category != "Title"}
        documents = {info.document_id for info in infos.values()}
        # Reach is counted in documents, or in top-level sections when the corpus is one or two files.
        self._by_sections = len(documents) < MIN_DOCUMENTS_FOR_REACH
        self.reach_unit = "top-level sections" if self._by_sections else "documents"
        self.total_documents = len({self._place(e) for e in infos}) or 1
        self._sections: dict[tuple[str, ...], set[str]] | None = None
        self._elements: dict[str, set[str]] = {}
        self._documents: dict[str, int] = {}
        self._max_share: dict[tuple[str, int], float] = defaultdict(float)
        self._max_docs: dict[tuple[str, int], int] = defaultdict(int)
        for c in communities:
            elements = self._content_elements(c)
            self._elements[c.id] = elements
            self._documents[c.id] = len({self._place(e) for e in elements})
            key = (c.kind, c.level)
            self._max_share[key] = max(self._max_share[key], len(elements) / max(1, len(self.content)))
            self._max_docs[key] = max(self._max_docs[key], self._documents[c.id])
        self._titles: dict[str, tuple[str, str, float]] = {}
        levels: dict[int, list[Community]] = defaultdict(list)
        for c in communities:
            if c.kind == "entity":
                levels[c.level].append(c)
        self._heading_ranks: dict[str, list[str]] = {}
        self._term_ranks: dict[str, list[str]] = {}
        for level_communities in levels.values():
            self._title_level(level_communities)
        self._settled: dict[str, str] = {}
        self._settle([c for c in communities if c.kind == "entity"])

    def _place(self, element_id: str) -> tuple[str, ...]:
        info = self.graph.infos[element_id]
        return (info.document_id, *info.heading_path[:2]) if self._by_sections else (info.document_id,)

    def _content_elements(self, community: Community) -> set[str]:
        """The content elements a community cites: its own (a section), or those where a member is mentioned."""
        if community.kind == "structural":
            return {e for e in community.element_ids if e in self.content}
        graph = self.graph
        out: set[str] = set()
        for e in community.entity_ids:
            out.update(graph.sentences[i].element_id for i in graph.entity_sentences.get(e, ()))
        if out & self.content:
            return out & self.content
        # Members named only in headings (a community of section titles): what those sections hold is theirs.
        return {c for e in out if e in graph.infos and graph.infos[e].category == "Title"
                for c in self._section_content(e)}  # fmt: skip

    def _section_content(self, heading_id: str) -> set[str]:
        if self._sections is None:
            self._sections = defaultdict(set)
            for e in self.content:
                info = self.graph.infos[e]
                for depth in range(1, len(info.heading_path) + 1):
                    self._sections[(info.document_id, *info.heading_path[:depth])].add(e)
        info = self.graph.infos[heading_id]
        return self._sections.get((info.document_id, *info.heading_path, info.text), set())

    # -- rating --

    def importance(self, community: Community) -> Importance:
        graph = self.graph
        key = (community.kind, community.level)
        share = len(self._elements[community.id]) / max(1, len(self.content))
        max_share = self._max_share[key] or 1.0
        docs = self._documents[community.id]
        internal = sum(graph.relationship_by_id[r].weight for r in community.relationship_ids)
        strength = graph.strength()
        incident = sum(strength.get(e, 0.0) for e in community.entity_ids)
        boundary = max(incident - 2 * internal, 0.0)
        cohesion = internal / (internal + boundary) if internal + boundary > 0 else 0.0
        coverage = math.sqrt(min(share / max_share, 1.0)) if max_share > 0 else 0.0
        reach = docs / self._max_docs[key] if self._max_docs[key] else 0.0
        score = (WEIGHTS["coverage"] * coverage + WEIGHTS["reach"] * reach
                 + WEIGHTS["distinctiveness"] * coverage * cohesion)  # fmt: skip
        return Importance(round(10 * score, 1), share, docs, cohesion, max_share, self.total_documents)

    def rate(self, community: Community) -> tuple[float, str]:
        """The rating and its one-line explanation."""
        if not self._elements[community.id] and community.size == 0:
            return 0.0, "Rated 0/10: nothing in the corpus mentions it."
        imp = self.importance(community)
        what = "section" if community.kind == "structural" else "community"
        if imp.rating == 0:
            why = ("no text of the corpus mentions its members (they are named only in headings with nothing "
                   "under them)" if not self._elements[community.id] else
                   f"it covers only {imp.share:.2%} of the corpus's elements and reaches {imp.documents} of "
                   f"{imp.total_documents} {self.reach_unit}")  # fmt: skip
            return 0.0, f"Rated 0/10 for importance: {why}."
        explanation = (
            f"Rated {imp.rating:g}/10 for importance: it covers {imp.share:.1%} of the corpus's elements (the "
            f"largest {what} at level {community.level} covers {imp.max_share:.1%}), reaches {imp.documents} of "
            f"{imp.total_documents} {self.reach_unit}, and {imp.cohesion:.0%} of its relationship weight stays inside."
        )
        return imp.rating, explanation

    # -- titles --

    def title(self, community: Community) -> str:
        """The community's title: unique among its siblings and different from every ancestor's."""
        return self._settled.get(community.id) or self._preferred(community)

    def _preferred(self, community: Community) -> str:
        return self.title_candidates(community)[0 if self._use_headings(community) else 1] or community.title

    def _candidates(self, community: Community) -> list[str]:
        """Titles in order of preference: the preferred one, the other kind, then single headings and terms."""
        headings, terms, _share = self.title_candidates(community)
        names = self._term_ranks.get(community.id, [])
        by_headings = [headings, *self._heading_ranks.get(community.id, [])[:5]]
        by_terms = [terms, *(join_names(names[i : i + 2]) for i in range(0, min(len(names), 6), 2))]
        ordered = by_headings + by_terms if self._use_headings(community) else by_terms + by_headings
        return [t for t in dict.fromkeys(ordered) if t and not is_fragment(t)]

    def _settle(self, communities: list[Community]) -> None:
        """Coarse levels first, biggest first: each community takes its first candidate no sibling has taken and
        no ancestor carries; failing that, its preferred title qualified by a member name."""
        by_id = {c.id: c for c in communities}
        taken: dict[tuple[str | None, int], set[str]] = defaultdict(set)  # (parent, level) -> sibling titles
        for c in sorted(communities, key=lambda c: (c.level, -c.size, c.human_readable_id)):
            ancestors: set[str] = set()
            parent = by_id.get(c.parent) if c.parent else None
            while parent is not None:
                ancestors.add(self._settled[parent.id].casefold())
                parent = by_id.get(parent.parent) if parent.parent else None
            used = taken[(c.parent, c.level)] | ancestors
            title = next((t for t in self._candidates(c) if t.casefold() not in used), "")
            if not title:
                base = self._preferred(c)
                members = [n for n in self._term_ranks.get(c.id, []) if n.casefold() not in base.casefold()]
                qualified = [f"{base}: {n}" for n in members] + [f"{base} ({c.id})"]
                title = next(t for t in qualified if t.casefold() not in used)
            self._settled[c.id] = title
            taken[(c.parent, c.level)].add(title.casefold())

    def title_candidates(self, community: Community) -> tuple[str, str, float]:
        """(heading title, terms title, share of the community's sentences under its best heading)."""
        return self._titles.get(community.id, ("", "", 0.0))

    def _use_headings(self, community: Community) -> bool:
        headings, _terms, share = self.title_candidates(community)
        return bool(headings) and share >= MIN_HEADING_SHARE

    def _sentences(self, community: Community) -> list[int]:
        out: list[int] = []
        for e in community.entity_ids:
            out.extend(self.graph.entity_sentences.get(e, [])[:SENTENCES_PER_ENTITY])
        return sorted(set(out))

    def _title_level(self, communities: list[Community]) -> None:
        graph = self.graph
        heading_tf: dict[str, Counter] = {}
        term_tf: dict[str, Counter] = {}
        sizes: dict[str, int] = {}
        above: dict[str, set[str]] = defaultdict(set)  # heading name -> the heading names found above it
        qualified: set[str] = set()  # names that carry their parent heading ("연혁: 2009~2015")
        for c in communities:
            headings: Counter = Counter()
            terms: Counter = Counter()
            sentences = self._sentences(c)
            for idx in sentences:
                info = graph.infos.get(graph.sentences[idx].element_id)
                if info is not None:
                    path = [*info.heading_path, info.text] if info.category == "Title" else info.heading_path
                    path = [h for h in path if h.strip()]
                    names = _heading_names(path)
                    qualified.update(n for n, h in zip(names, path, strict=True) if n != _heading_name(h))
                    for i, name in enumerate(names):
                        above[name].update(names[:i])
                    headings.update(set(names))
                terms.update(e for e in set(graph.sentence_entities.get(idx, ()))
                             if e in graph.entity_by_id and not is_fragment(graph.entity_by_id[e].title))  # fmt: skip
            heading_tf[c.id], term_tf[c.id], sizes[c.id] = headings, terms, len(sentences)
        # A heading most communities of the level have ("Overview", "Options") names none of them.
        spread: Counter = Counter()
        for counts in heading_tf.values():
            spread.update(counts.keys())
        for counts in heading_tf.values():
            for heading in [h for h in counts if len(heading_tf) >= 4 and spread[h] * 2 > len(heading_tf)]:
                del counts[heading]
        heading_best = _class_tfidf(heading_tf)
        term_best = _class_tfidf(term_tf)
        for c in communities:
            ranked = heading_best.get(c.id, [])
            heading_title = ""
            share = 0.0
            if ranked:
                first, first_score = ranked[0]
                names = [first]
                if len(ranked) > 1 and ranked[1][1] >= SECOND_HEADING_SHARE * first_score:
                    second = ranked[1][0]
                    # Two headings of one path are one place (the narrower says it); a generic one names nothing.
                    # A qualified name is already two headings: joining a third reads as a list of places.
                    related = second in above[first] or first in above[second]
                    plain = not ({first, second} & qualified) and not is_generic_heading(second)
                    if (len(first) + len(second) <= MAX_TITLE_CHARS and second.casefold() not in first.casefold()
                            and not related and plain):  # fmt: skip
                        names.append(second)
                heading_title = join_names(names)
                share = heading_tf[c.id][first] / max(1, sizes[c.id])
            self._heading_ranks[c.id] = [h for h, _s in ranked]
            self._term_ranks[c.id] = [graph.entity_by_id[e].title for e, _s in term_best.get(c.id, [])[:8]]
            terms = self._term_ranks[c.id][:3]
            self._titles[c.id] = (heading_title, join_names(terms) if terms else "", share)

    # -- summary sentences --

    def summary_sentences(self, community: Community, limit: int = MAX_SUMMARY_SENTENCES) -> list[int]:
        """Sentence indices for the summary, in document order (see the module docstring)."""
        graph = self.graph
        members = set(community.entity_ids)
        mentions: Counter = Counter()
        best_sentence: dict[str, tuple[int, int]] = {}  # element -> (members named, sentence index)
        if community.kind == "structural":
            sentence_ids = [i for e in community.element_ids for i in graph.element_sentences.get(e, ())]
        else:
            sentence_ids = self._sentences(community)
        for idx in sentence_ids:
            s = graph.sentences[idx]
            if (s.category in ("Title", "Table", "TableRow") or len(s.text) < 25
                    or (s.category == "ListItem" and " : " in s.text)):
                continue  # a summary quotes statements, not headings, table rows or "key : value" fields
            named = sum(1 for e in set(graph.sentence_entities.get(idx, ())) if e in members)
            weight = named + (1 if community.kind == "structural" else 0)
            if weight == 0:
                continue
            mentions[s.element_id] += weight
            if s.element_id not in best_sentence or named > best_sentence[s.element_id][0]:
                best_sentence[s.element_id] = (named, idx)
        candidates = [e for e, _n in mentions.most_common(MAX_CANDIDATES) if e in self.vectors]
        if not candidates:
            ranked = sorted(best_sentence.values(), key=lambda v: (-v[0], v[1]))
            return sorted(idx for _n, idx in ranked[:limit])
        matrix = np.stack([self.vectors[e] for e in candidates]).astype(np.float32)
        matrix /= np.linalg.norm(matrix, axis=1, keepdims=True) + 1e-9
        weights = np.asarray([mentions[e] for e in candidates], dtype=np.float32)
        centroid = (matrix * weights[:, None]).sum(axis=0)
        centroid /= np.linalg.norm(centroid) + 1e-9
        centrality = matrix @ centroid
        position = {e: i for i, e in enumerate(candidates)}
        pools: list[list[int]] = []
        children = sorted((self.by_id[c] for c in community.children if c in self.by_id), key=lambda c: -c.size)
        for child in children[:limit]:
            child_elements = {graph.sentences[i].element_id for i in self._sentences(child)}
            pool = [position[e] for e in child_elements if e in position]
            if pool:
                pools.append(pool)
        chosen: list[int] = []
        texts: set[str] = set()
        for pool in [*pools, list(range(len(candidates)))] + [list(range(len(candidates)))] * limit:
            if len(chosen) >= limit:
                break
            pick = _mmr_pick(pool, chosen, matrix, centrality, texts, candidates, best_sentence, graph)
            if pick is not None:
                chosen.append(pick)
                texts.add(graph.sentences[best_sentence[candidates[pick]][1]].text)
        return sorted(best_sentence[candidates[i]][1] for i in chosen)


_NUMBERING = re.compile(r"^(?:\d+(?:\.\d+)*\.?|[IVX]+\.)\s+")
_WORD = re.compile(r"[^\W\d_]{2,}")  # two letters in a row (any script): something that reads as a word
# Headings that say where a reader is in any document, not what it is about.
GENERIC_HEADINGS = frozenset({
    "overview", "introduction", "summary", "general", "general information", "contents", "table of contents",
    "notes", "note", "details", "about", "background", "other", "others", "misc", "miscellaneous", "appendix",
    "example", "examples", "usage", "added", "changed", "fixed", "removed",  # changelog sections say when, not what
    "개요", "소개", "요약", "기본정보", "기본 정보", "일반", "일반 정보",
    "목차", "참고", "기타", "상세", "상세 정보", "부록",
})  # fmt: skip


def is_generic_heading(name: str) -> bool:
    """A heading that names no subject ("Overview", "개요", "Notes")."""
    return " ".join(name.casefold().split()) in GENERIC_HEADINGS


def is_fragment(name: str) -> bool:
    """A name that does not read as a title part: mostly a number ("2009~2015", "2016~현재", "3.1"), or a short
    cut-off word ("Typ", "Max") rather than an acronym ("DVI", "PC") or a Hangul word."""
    name = name.strip()
    letters = sum(ch.isalpha() for ch in name)
    if not _WORD.search(name) or (letters < 3 and sum(ch.isdigit() for ch in name) >= 2):
        return True
    return len(name) <= 3 and not name.isupper() and not has_hangul(name)


def _heading_name(heading: str) -> str:
    """A heading as a title part: one line, numbering ("2. ", "3.1 ") dropped, clipped."""
    return clip(_NUMBERING.sub("", " ".join(heading.split())), MAX_TITLE_CHARS)


def _heading_names(path: Sequence[str]) -> list[str]:
    """Each heading of a path as a title part. A heading that is a fragment or generic on its own ("2009~2015",
    "개요") is named with the heading above it ("연혁: 2009~2015"), which says what it is part of."""
    names: list[str] = []
    for i, heading in enumerate(path):
        name = _heading_name(heading)
        if i and (is_fragment(name) or is_generic_heading(name)):
            parent = _heading_name(path[i - 1])
            if len(parent) + len(name) + 2 <= MAX_TITLE_CHARS:
                name = f"{parent}: {name}"
        names.append(name)
    return names


def _mmr_pick(
    pool: list[int], chosen: list[int], matrix: np.ndarray, centrality: np.ndarray, texts: set[str],
    candidates: list[str], best_sentence: dict[str, tuple[int, int]], graph: GraphData,
) -> int | None:  # fmt: skip
    best, best_score = None, -math.inf
    chosen_matrix = matrix[chosen] if chosen else None
    for i in pool:
        if i in chosen or graph.sentences[best_sentence[candidates[i]][1]].text in texts:
            continue
        redundancy = float((chosen_matrix @ matrix[i]).max()) if chosen_matrix is not None else 0.0
        score = MMR_LAMBDA * float(centrality[i]) - (1 - MMR_LAMBDA) * redundancy
        if score > best_score:
            best, best_score = i, score
    return best


def _class_tfidf(tf: dict[str, Counter]) -> dict[str, list[tuple[str, float]]]:
    """Per class, its terms by ``tf × log(1 + A / f)`` (BERTopic's c-TF-IDF), best first."""
    if not tf:
        return {}
    total: Counter = Counter()
    for counts in tf.values():
        total.update(counts)
    average = sum(total.values()) / len(tf)
    out: dict[str, list[tuple[str, float]]] = {}
    for cid, counts in tf.items():
        scored = [(term, n * math.log(1 + average / total[term])) for term, n in counts.items()]
        out[cid] = sorted(scored, key=lambda ts: (-ts[1], ts[0]))
    return out
