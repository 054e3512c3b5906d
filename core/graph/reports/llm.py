"""Community reports written by a chat model, from a context of the community's rows.

**LLM reports** (``generated_by="llm"``): the context lists entities highest-degree first, each followed by its
relationships, within a token budget, then source text with what is left. When a community's entities and
relationships do not fit, the reports of its sub-communities (already written: levels are done finest first)
replace their detail, largest first, and the entities they do not cover fill the rest. The reply is JSON; its
``[Data: Entities (…); Relationships (…); Sources (…); Reports (…)]`` references are mapped back to ids; a finding
that cites nothing resolvable is dropped; a reply that does not parse falls back to the extractive report (logged).
"""

from __future__ import annotations

import logging
import math
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from core.graph import prompts
from core.graph.llm_cache import CachedChat
from core.graph.replies import cited_ids, parse_json_object
from core.graph.reports.context import ReportContext, ReportStats, make_report, section_path
from core.store.graph_records import Community, Finding, Report
from core.text import clip

__all__ = ["build_context", "llm_report"]

log = logging.getLogger(__name__)


@dataclass
class _Refs:
    entities: dict[str, str] = field(default_factory=dict)  # human id -> entity id
    relationships: dict[str, str] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)  # human id -> text unit id
    reports: dict[str, str] = field(default_factory=dict)  # community id -> community id


def _cell(text: object) -> str:
    return " ".join(str(text).replace("|", "/").split())


def build_context(community: Community, ctx: ReportContext, budget: int) -> tuple[str, _Refs]:
    """The report context: see the module docstring. Returns the text and the id maps for citations."""
    from core.tokens import count_tokens

    graph = ctx.graph
    refs = _Refs()
    ent = graph.entity_by_id
    members = sorted(community.entity_ids, key=lambda e: (-ent[e].degree, ent[e].human_readable_id))
    rels_of: dict[str, list[str]] = defaultdict(list)
    for rid in community.relationship_ids:
        r = graph.relationship_by_id[rid]
        rels_of[r.source_id].append(rid)
        rels_of[r.target_id].append(rid)

    def entity_row(e: str) -> str:
        x = ent[e]
        return f"{x.human_readable_id}|{_cell(x.title)}|{x.type}|{_cell(clip(x.description, 400))}|{x.degree}"

    def rel_row(rid: str) -> str:
        r = graph.relationship_by_id[rid]
        description = _cell(clip(r.description, 400))
        return f"{r.human_readable_id}|{_cell(r.source)}|{_cell(r.target)}|{description}|{r.weight:g}"

    used = 0

    def take(rows: list[str], row: str, limit: float = budget) -> bool:
        """Add ``row`` to ``rows`` if the context stays within ``limit`` tokens; whether it was added."""
        nonlocal used
        cost = count_tokens(row)
        if used + cost > limit:
            return False
        rows.append(row)
        used += cost
        return True

    entity_rows: list[str] = []
    rel_rows: list[str] = []
    report_rows: list[str] = []
    source_rows: list[str] = []
    added_rels: set[str] = set()

    full = sum(count_tokens(entity_row(e)) for e in members) + sum(
        count_tokens(rel_row(r)) for r in community.relationship_ids
    )
    covered: set[str] = set()
    children = [ctx.reports[c] for c in community.children if c in ctx.reports]
    if full > budget and children:
        for child in sorted(children, key=lambda r: (-r.size, r.community_id)):
            row = f"{child.community_id}|{_cell(child.title)}|{_cell(clip(child.summary, 600))}|{child.rating:g}"
            if not take(report_rows, row, budget * 0.6):
                continue
            refs.reports[child.community_id] = child.community_id
            covered.update(ctx.communities[child.community_id].entity_ids)

    for e in members:
        if e in covered:
            continue
        if not take(entity_rows, entity_row(e)):
            break
        refs.entities[str(ent[e].human_readable_id)] = e
        for rid in sorted(rels_of[e], key=lambda r: -graph.relationship_by_id[r].weight):
            if rid in added_rels:
                continue
            if not take(rel_rows, rel_row(rid)):
                break
            added_rels.add(rid)
            refs.relationships[str(graph.relationship_by_id[rid].human_readable_id)] = rid

    member_set = set(community.entity_ids)
    units = sorted(
        (graph.unit_by_id[u] for u in community.text_unit_ids if u in graph.unit_by_id),
        key=lambda u: (-len(member_set.intersection(u.entity_ids)), u.human_readable_id),
    )
    for unit in units:
        if not take(source_rows, f"{unit.human_readable_id}|{_cell(clip(unit.text, 1200))}"):
            break
        refs.sources[str(unit.human_readable_id)] = unit.id

    parts = []
    if community.kind == "structural":
        parts.append(f"Section: {section_path(community, graph)}\n")
    if report_rows:
        parts.append("-----Reports-----\nid|title|summary|rating\n" + "\n".join(report_rows))
    if entity_rows:
        parts.append("-----Entities-----\nid|entity|type|description|degree\n" + "\n".join(entity_rows))
    if rel_rows:
        parts.append("-----Relationships-----\nid|source|target|description|weight\n" + "\n".join(rel_rows))
    if source_rows:
        parts.append("-----Sources-----\nid|text\n" + "\n".join(source_rows))
    return "\n\n".join(parts), refs


def llm_report(
    community: Community,
    ctx: ReportContext,
    chat: CachedChat,
    *,
    context_tokens: int,
    min_findings: int,
    max_findings: int,
    fallback: Report,
    stats: ReportStats,
) -> Report | None:
    context, refs = build_context(community, ctx, context_tokens)
    reply = chat(prompts.report_messages(context, min_findings, max_findings), kind="report",
                 valid=lambda text: _validate_report(parse_json_object(text)) is not None)
    data = parse_json_object(reply)
    parsed = _validate_report(data)
    if parsed is None:
        stats.fallbacks += 1
        log.warning("community %s: the LLM report did not parse; using the extractive report (%r)", community.id,
                    clip(reply or "", 120))  # fmt: skip
        return None
    title, summary, rating, rating_explanation, raw_findings = parsed
    findings: list[Finding] = []
    for item in raw_findings[:max_findings]:
        finding = _resolve_finding(item["summary"], item["explanation"], community, ctx, refs)
        if finding is None:
            stats.dropped_findings += 1
            log.info("community %s: dropped a finding that cites nothing that exists", community.id)
            continue
        findings.append(finding)
    if not findings:
        stats.fallbacks += 1
        log.warning("community %s: no LLM finding cited existing data; using the extractive report", community.id)
        return None
    explanation = rating_explanation or fallback.rating_explanation
    return make_report(community, title, summary, rating, explanation, findings, "llm")


def _validate_report(data: dict[str, Any] | None) -> tuple[str, str, float, str, list[dict[str, str]]] | None:
    if not isinstance(data, dict):
        return None
    title, summary = data.get("title"), data.get("summary")
    if not isinstance(title, str) or not title.strip() or not isinstance(summary, str):
        return None
    try:
        rating = float(data.get("rating"))
    except (TypeError, ValueError):
        return None
    if math.isnan(rating):
        return None
    rating = min(max(rating, 0.0), 10.0)
    explanation = data.get("rating_explanation")
    explanation = explanation.strip() if isinstance(explanation, str) else ""
    findings = data.get("findings")
    if not isinstance(findings, list):
        return None
    clean = []
    for item in findings:
        if isinstance(item, dict) and isinstance(item.get("summary"), str) and item["summary"].strip():
            clean.append({"summary": item["summary"].strip(), "explanation": str(item.get("explanation") or "")})
    if not clean:
        return None
    return title.strip(), summary.strip(), round(rating, 1), explanation, clean


def _resolve_finding(
    summary: str, explanation: str, community: Community, ctx: ReportContext, refs: _Refs
) -> Finding | None:
    graph = ctx.graph
    cited = cited_ids(f"{summary} {explanation}")
    entity_ids: list[str] = [refs.entities[i] for i in cited["entities"] if i in refs.entities]
    relationship_ids: list[str] = [refs.relationships[i] for i in cited["relationships"] if i in refs.relationships]
    element_ids: list[str] = []
    for rid in relationship_ids:
        r = graph.relationship_by_id[rid]
        entity_ids += [r.source_id, r.target_id]
        element_ids += r.element_ids[:3]
    for cid in cited["reports"]:
        child = ctx.reports.get(refs.reports.get(cid, ""))
        if child is not None:
            entity_ids += child.entity_ids[:5]
            relationship_ids += child.relationship_ids[:5]
            element_ids += child.element_ids[:5]
    if not entity_ids:
        # No usable [Data: …] reference: fall back to the context entities named in the text.
        text = f"{summary} {explanation}".casefold()
        for eid in refs.entities.values():
            title = graph.entity_by_id[eid].title
            if len(title) >= 3 and title.casefold() in text:
                entity_ids.append(eid)
    entity_ids = list(dict.fromkeys(entity_ids))
    for eid in entity_ids:
        element_ids += graph.entity_by_id[eid].element_ids[:3]
    for uid_h in cited["sources"]:
        unit = graph.unit_by_id.get(refs.sources.get(uid_h, ""))
        if unit is None:
            continue
        wanted = set(entity_ids)
        hits = [
            graph.sentences[i].element_id
            for eid in wanted
            for i in graph.entity_sentences.get(eid, ())
            if graph.sentences[i].unit_id == unit.id
        ]
        element_ids += hits[:5] or [e for e in unit.element_ids if graph.infos[e].category != "Title"][:3]
    element_ids = [e for e in dict.fromkeys(element_ids) if e in graph.infos]
    relationship_ids = list(dict.fromkeys(relationship_ids))
    if not (entity_ids or relationship_ids or element_ids):
        return None
    return Finding(summary, explanation, entity_ids, relationship_ids, element_ids)
