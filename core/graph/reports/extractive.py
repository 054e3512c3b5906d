"""Community reports without a model: every statement is drawn from the corpus.

**Extractive reports** (offline, ``generated_by="extractive"``):

* title: the section heading (structural), or for entity communities the dominant section heading of the members
  or their most distinctive names, both by class-based TF-IDF against the other communities of the level;
* summary: a one-line description plus at most three central, non-redundant sentences chosen by embedding
  centrality with a redundancy penalty (MMR), the first ones drawn from the largest sub-communities;
* rating: importance, ``10 × (0.5 × coverage + 0.25 × reach + 0.25 × distinctiveness)``, with a one-line
  explanation giving the three numbers. Title, summary and rating are defined in :mod:`core.graph.reports.themes`;
* findings: the strongest relationships first (preferring ones that bring in an entity not yet covered), each with
  the sentences where its two entities occur together; then the most connected entities not yet covered, with
  their descriptions; for sections, then their own sentences. At most ``max_findings`` (10).

  At least ``min(5, material)`` of them (the 5-finding rule of :mod:`core.graph.reports.generate`).
"""

from __future__ import annotations

import math
from collections import defaultdict

from core.graph.communities.entity_graph import GraphData
from core.graph.communities.leiden import internal_degrees, join_names, top_entities
from core.graph.reports.context import (
    ReportContext,
    content_elements,
    content_sentences,
    make_report,
    path_of_element,
    rate,
    section_path,
)
from core.store.graph_records import MAX_FINDINGS, MIN_FINDINGS, Community, Entity, Finding, Relationship, Report
from core.text import clip

__all__ = ["MAX_CANDIDATE_SENTENCES", "SENTENCES_PER_ENTITY", "extractive_report"]

MAX_CANDIDATE_SENTENCES = 3000
SENTENCES_PER_ENTITY = 40


def extractive_report(
    community: Community,
    ctx: ReportContext,
    *,
    min_findings: int = MIN_FINDINGS,
    max_findings: int = MAX_FINDINGS,
) -> Report:
    graph = ctx.graph
    members = set(community.entity_ids)
    deg = internal_degrees(community.entity_ids, community.relationship_ids, graph)
    top = top_entities(community.entity_ids, community.relationship_ids, graph, n=3)
    top_names = [graph.entity_by_id[e].title for e in top]
    if community.kind == "structural":
        title = community.title
        path = section_path(community, graph)
        lead = f"Section “{path}”" if path else f"Section “{title}”"
        lead += f": {len(content_elements(community, graph))} elements, {community.size} entities"
        lead += f", chiefly {join_names(top_names)}." if top_names else "."
    else:
        title = ctx.themes.title(community) if ctx.themes is not None else join_names(top_names)
        documents = ctx.themes.importance(community).documents if ctx.themes is not None else 0
        lead = (
            f"{community.size} entities from {documents} document{'s' if documents != 1 else ''}, centred on "
            f"{join_names(top_names)}."
        )
    central = ctx.themes.summary_sentences(community) if ctx.themes is not None else []
    central = central or _central_sentences(community, graph, members, deg)
    summary = " ".join([lead, *(f"“{clip(graph.sentences[i].text, 260)}”" for i in central)])
    rating, rating_explanation = rate(community, ctx)
    findings = _extractive_findings(community, graph, deg, min_findings, max_findings)
    return make_report(community, title, summary, rating, rating_explanation, findings, "extractive")


def _central_sentences(community: Community, graph: GraphData, members: set[str], deg: dict[str, int]) -> list[int]:
    candidates: set[int] = set()
    if community.kind == "structural":
        candidates.update(content_sentences(community, graph)[:MAX_CANDIDATE_SENTENCES])
    else:
        for e in community.entity_ids:
            candidates.update(graph.entity_sentences.get(e, [])[:SENTENCES_PER_ENTITY])
    scored = []
    for idx in candidates:
        s = graph.sentences[idx]
        if s.category == "Title" or len(s.text) < 12:
            continue
        ents = [e for e in dict.fromkeys(graph.sentence_entities.get(idx, ())) if e in members]
        score = sum(1.0 + math.log1p(deg.get(e, 0)) for e in ents)
        if community.kind == "structural":
            score += 0.5  # every sentence of the section is on topic
        if score <= 0:
            continue
        score /= max(1.0, len(s.text) / 300)
        scored.append((-score, idx))
    scored.sort()
    chosen: list[int] = []
    used = 0
    for _neg, idx in scored:
        length = len(graph.sentences[idx].text)
        if chosen and used + length > 700:
            continue
        if any(graph.sentences[idx].text == graph.sentences[c].text for c in chosen):
            continue
        chosen.append(idx)
        used += length
        if len(chosen) == 3:
            break
    return sorted(chosen)


def _extractive_findings(
    community: Community, graph: GraphData, deg: dict[str, int], min_findings: int, max_findings: int
) -> list[Finding]:
    rels = [graph.relationship_by_id[r] for r in community.relationship_ids]
    local = _local_evidence(community, graph) if community.kind == "structural" else {}
    # In a section, pairs evidenced by the section's own sentences come first, and are quoted from it.
    rels.sort(key=lambda r: (-len(local.get(r.id, ())), -r.weight, -r.combined_degree, r.human_readable_id))
    findings: list[Finding] = []
    covered: set[str] = set()
    chosen: set[str] = set()
    # First pass: strong relationships that bring in an entity not covered yet; second pass: the rest.
    for new_only in (True, False):
        for r in rels:
            if len(findings) >= max_findings:
                break
            if r.id in chosen or (new_only and {r.source_id, r.target_id} <= covered):
                continue
            chosen.add(r.id)
            covered.update((r.source_id, r.target_id))
            findings.append(_relationship_finding(r, graph, local.get(r.id)))
    by_degree = sorted(community.entity_ids, key=lambda e: (-deg.get(e, 0), graph.entity_by_id[e].human_readable_id))
    described: set[str] = set()
    for e in by_degree:  # entities no relationship finding mentions
        if len(findings) >= max_findings:
            break
        if e not in covered:
            covered.add(e)
            described.add(e)
            findings.append(_entity_finding(graph.entity_by_id[e]))
    for e in by_degree:  # still short of five: describe the central entities themselves
        if len(findings) >= min(min_findings, max_findings):
            break
        if e not in described:
            described.add(e)
            findings.append(_entity_finding(graph.entity_by_id[e]))
    if community.kind == "structural" and len(findings) < max_findings:
        members = set(community.entity_ids)
        for idx in content_sentences(community, graph):
            if len(findings) >= min(min_findings, max_findings):
                break
            findings.append(_sentence_finding(idx, graph, members))
    return findings


def _local_evidence(community: Community, graph: GraphData) -> dict[str, list[int]]:
    """Relationship id -> sentences of this section where both ends occur."""
    pair_to_rel = {}
    for rid in community.relationship_ids:
        r = graph.relationship_by_id[rid]
        pair_to_rel[(min(r.source_id, r.target_id), max(r.source_id, r.target_id))] = rid
    members = set(community.entity_ids)
    out: dict[str, list[int]] = defaultdict(list)
    for idx in content_sentences(community, graph)[:MAX_CANDIDATE_SENTENCES]:
        ents = sorted({e for e in graph.sentence_entities.get(idx, ()) if e in members})
        for i, a in enumerate(ents):
            for b in ents[i + 1 :]:
                rid = pair_to_rel.get((a, b))
                if rid is not None and len(out[rid]) < 3:
                    out[rid].append(idx)
    return out


def _relationship_finding(r: Relationship, graph: GraphData, evidence: list[int] | None = None) -> Finding:
    sentences = evidence or graph.relationship_sentences.get(r.id, [])
    times = f"{r.weight:g}"
    element_ids = list(dict.fromkeys(graph.sentences[i].element_id for i in sentences)) if evidence else []
    element_ids = element_ids or list(r.element_ids[:5])
    if graph.mode == "llm":
        explanation = r.description
    elif sentences:
        texts = list(dict.fromkeys(graph.sentences[i].text for i in sentences))
        quotes = " ".join(f"“{clip(t, 240)}”" for t in texts[:2])
        explanation = f"They occur together (weight {times}). Evidence: {quotes}"
    else:
        explanation = f"They occur together in the same sections (weight {times}). {r.description}"
    path = path_of_element(element_ids[0], graph) if element_ids else ""
    if path:
        explanation += f" (in {path})"
    # Offline, the finding is what the corpus says about the pair: its first shared sentence.
    if graph.mode == "llm" or not sentences:
        summary = f"{r.source} and {r.target}"
    else:
        summary = f"{r.source} and {r.target}: “{clip(graph.sentences[sentences[0]].text, 110)}”"
    return Finding(
        summary=summary,
        explanation=explanation,
        entity_ids=[r.source_id, r.target_id],
        relationship_ids=[r.id],
        element_ids=element_ids[:5],
    )


def _entity_finding(e: Entity) -> Finding:
    return Finding(
        summary=f"{e.title} ({e.type.lower()}, {e.degree} connection{'s' if e.degree != 1 else ''})",
        explanation=e.description,
        entity_ids=[e.id],
        relationship_ids=[],
        element_ids=list(e.element_ids[:3]),
    )


def _sentence_finding(idx: int, graph: GraphData, members: set[str]) -> Finding:
    s = graph.sentences[idx]
    path = path_of_element(s.element_id, graph)
    return Finding(
        summary=clip(s.text, 100),
        explanation=f"“{clip(s.text, 400)}”" + (f" (in {path})" if path else ""),
        entity_ids=[e for e in dict.fromkeys(graph.sentence_entities.get(idx, ())) if e in members],
        relationship_ids=[],
        element_ids=[s.element_id],
    )
