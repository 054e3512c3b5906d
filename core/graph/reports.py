"""Community reports in GraphRAG's shape: title, summary, rating 0–10 with a one-line explanation, findings.

Every finding cites ids that exist: entities and relationships of the index, and element ids of the store.

**Extractive reports** (offline, ``generated_by="extractive"``):

* title: the section heading (structural), or for entity communities the dominant section heading of the members
  or their most distinctive names, both by class-based TF-IDF against the other communities of the level;
* summary: a one-line description plus at most three central, non-redundant sentences chosen by embedding
  centrality with a redundancy penalty (MMR), the first ones drawn from the largest sub-communities;
* rating: importance, ``10 × (0.5 × coverage + 0.25 × reach + 0.25 × distinctiveness)``, with a one-line
  explanation giving the three numbers. Title, summary and rating are defined in :mod:`core.graph.themes`;
* findings: the strongest relationships first (preferring ones that bring in an entity not yet covered), each with
  the sentences where its two entities occur together; then the most connected entities not yet covered, with
  their descriptions; for sections, then their own sentences. At most ``max_findings`` (10).

  **The 5-finding rule:** a report has at least ``min(5, material)`` findings, where ``material`` is the number
  of relationships plus entities of the community (plus, for a section, its content sentences). So a two-entity
  community with one relationship has three findings: there is nothing else to say that is not invented.

**LLM reports** (``generated_by="llm"``): the context lists entities highest-degree first, each followed by its
relationships, within a token budget, then source text with what is left. When a community's entities and
relationships do not fit, the reports of its sub-communities (already written: levels are done finest first)
replace their detail, largest first, and the entities they do not cover fill the rest. The reply is JSON; its
``[Data: Entities (…); Relationships (…); Sources (…); Reports (…)]`` references are mapped back to ids; a finding
that cites nothing resolvable is dropped; a reply that does not parse falls back to the extractive report (logged).
"""

from __future__ import annotations

import json
import logging
import math
import re
from collections import defaultdict
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from core.graph import prompts
from core.graph.communities import internal_degrees, join_names, top_entities
from core.graph.graph import GraphData
from core.graph.llm_cache import CachedChat
from core.graph.model import MAX_FINDINGS, MIN_FINDINGS, Community, Finding, Report
from core.graph.text import clip
from core.graph.themes import Themes

log = logging.getLogger(__name__)

DEFAULT_CONTEXT_TOKENS = 6000
MAX_CANDIDATE_SENTENCES = 3000
SENTENCES_PER_ENTITY = 40


@dataclass
class ReportStats:
    llm: int = 0
    extractive: int = 0
    fallbacks: int = 0  # LLM replies that did not parse, replaced by extractive reports
    dropped_findings: int = 0


@dataclass
class _Context:
    graph: GraphData
    communities: dict[str, Community]
    strength: dict[str, float]
    max_size: dict[tuple[str, int], int]
    reports: dict[str, Report] = field(default_factory=dict)
    themes: Themes | None = None

    def __post_init__(self) -> None:
        if self.themes is None:
            self.themes = Themes(self.graph, list(self.communities.values()))


def material(community: Community, graph: GraphData) -> int:
    """How many findings the data can support (see the 5-finding rule in the module docstring)."""
    n = len(community.entity_ids) + len(community.relationship_ids)
    if community.kind == "structural":
        n += len(_content_sentences(community, graph))
    return n


def generate_reports(
    graph: GraphData,
    communities: Sequence[Community],
    *,
    chat: CachedChat | None = None,
    context_tokens: int = DEFAULT_CONTEXT_TOKENS,
    concurrency: int = 4,
    min_findings: int = MIN_FINDINGS,
    max_findings: int = MAX_FINDINGS,
    progress: Callable[[int, int], None] | None = None,
    element_vectors: dict[str, np.ndarray] | None = None,
) -> tuple[list[Report], ReportStats]:
    """A report for every community. Finest levels first, so parents can use their children's reports.

    ``element_vectors`` (element id → stored embedding) lets summaries pick central, non-redundant sentences.
    """
    by_id = {c.id: c for c in communities}
    max_size: dict[tuple[str, int], int] = defaultdict(int)
    for c in communities:
        max_size[(c.kind, c.level)] = max(max_size[(c.kind, c.level)], c.size)
    ctx = _Context(graph, by_id, graph.strength(), max_size, themes=Themes(graph, communities, element_vectors))
    stats = ReportStats()
    order = sorted(communities, key=lambda c: (c.kind, -c.level, c.human_readable_id))
    done = 0
    total = len(order)

    def one(c: Community) -> tuple[Report, ReportStats]:
        local = ReportStats()
        fallback = extractive_report(c, ctx, min_findings=min_findings, max_findings=max_findings)
        if chat is None:
            return fallback, local
        report = llm_report(c, ctx, chat, context_tokens=context_tokens, min_findings=min_findings,
                            max_findings=max_findings, fallback=fallback, stats=local)  # fmt: skip
        return report or fallback, local

    levels: dict[tuple[str, int], list[Community]] = defaultdict(list)
    for c in order:
        levels[(c.kind, c.level)].append(c)
    with ThreadPoolExecutor(max_workers=max(1, concurrency if chat is not None else 1)) as pool:
        for key in sorted(levels, key=lambda k: (k[0], -k[1])):
            batch = levels[key]
            for c, (report, local) in zip(batch, pool.map(one, batch), strict=True):
                ctx.reports[c.id] = report
                stats.fallbacks += local.fallbacks
                stats.dropped_findings += local.dropped_findings
                if report.generated_by == "llm":
                    stats.llm += 1
                else:
                    stats.extractive += 1
                done += 1
                if progress:
                    progress(done, total)
    return [ctx.reports[c.id] for c in sorted(communities, key=lambda c: (c.kind, c.level, c.human_readable_id))], stats


# -- rating -----------------------------------------------------------------------------------------


def rate(community: Community, ctx: _Context) -> tuple[float, str]:
    """Importance rating and its one-line explanation (formula in :mod:`core.graph.themes`)."""
    assert ctx.themes is not None
    return ctx.themes.rate(community)


# -- extractive -------------------------------------------------------------------------------------


def extractive_report(
    community: Community,
    ctx: _Context,
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
        path = _section_path(community, graph)
        lead = f"Section “{path}”" if path else f"Section “{title}”"
        lead += f": {len(_content_elements(community, graph))} elements, {community.size} entities"
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
    return _make_report(community, title, summary, rating, rating_explanation, findings, "extractive")


def _central_sentences(community: Community, graph: GraphData, members: set[str], deg: dict[str, int]) -> list[int]:
    candidates: set[int] = set()
    if community.kind == "structural":
        candidates.update(_content_sentences(community, graph)[:MAX_CANDIDATE_SENTENCES])
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
        for idx in _content_sentences(community, graph):
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
    for idx in _content_sentences(community, graph)[:MAX_CANDIDATE_SENTENCES]:
        ents = sorted({e for e in graph.sentence_entities.get(idx, ()) if e in members})
        for i, a in enumerate(ents):
            for b in ents[i + 1 :]:
                rid = pair_to_rel.get((a, b))
                if rid is not None and len(out[rid]) < 3:
                    out[rid].append(idx)
    return out


def _relationship_finding(r: Any, graph: GraphData, evidence: list[int] | None = None) -> Finding:
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
    path = _path_of_element(element_ids[0], graph) if element_ids else ""
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


def _entity_finding(e: Any) -> Finding:
    return Finding(
        summary=f"{e.title} ({e.type.lower()}, {e.degree} connection{'s' if e.degree != 1 else ''})",
        explanation=e.description,
        entity_ids=[e.id],
        relationship_ids=[],
        element_ids=list(e.element_ids[:3]),
    )


def _sentence_finding(idx: int, graph: GraphData, members: set[str]) -> Finding:
    s = graph.sentences[idx]
    path = _path_of_element(s.element_id, graph)
    return Finding(
        summary=clip(s.text, 100),
        explanation=f"“{clip(s.text, 400)}”" + (f" (in {path})" if path else ""),
        entity_ids=[e for e in dict.fromkeys(graph.sentence_entities.get(idx, ())) if e in members],
        relationship_ids=[],
        element_ids=[s.element_id],
    )


def _content_elements(community: Community, graph: GraphData) -> list[str]:
    return [e for e in community.element_ids if e in graph.infos and graph.infos[e].category != "Title"]


def _content_sentences(community: Community, graph: GraphData) -> list[int]:
    out: list[int] = []
    for element_id in _content_elements(community, graph):
        out.extend(graph.element_sentences.get(element_id, ()))
    return out


def _path_of_element(element_id: str, graph: GraphData) -> str:
    info = graph.infos.get(element_id)
    if info is None:
        return ""
    path = list(info.heading_path) + ([info.text] if info.category == "Title" else [])
    return " > ".join(clip(p, 60) for p in path)


def _section_path(community: Community, graph: GraphData) -> str:
    if community.element_ids:
        first = graph.infos.get(community.element_ids[0])
        if first is not None and first.category == "Title":
            return " > ".join(clip(p, 60) for p in [*first.heading_path, first.text])
    return community.title


def render_markdown(report: Report) -> str:
    lines = [f"# {report.title}", "", report.summary, "",
             f"**Rating:** {report.rating:g}/10. {report.rating_explanation}", ""]  # fmt: skip
    if report.findings:
        lines.append("## Findings")
        for i, f in enumerate(report.findings, start=1):
            lines += ["", f"### {i}. {f.summary}", "", f.explanation]
    label = "LLM" if report.generated_by == "llm" else "extractive (no LLM)"
    lines += ["", f"_Generated by: {label}._"]
    return "\n".join(lines)


# -- LLM --------------------------------------------------------------------------------------------


@dataclass
class _Refs:
    entities: dict[str, str] = field(default_factory=dict)  # human id -> entity id
    relationships: dict[str, str] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)  # human id -> text unit id
    reports: dict[str, str] = field(default_factory=dict)  # community id -> community id


def _cell(text: Any) -> str:
    return " ".join(str(text).replace("|", "/").split())


def build_context(community: Community, ctx: _Context, budget: int) -> tuple[str, _Refs]:
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
            cost = count_tokens(row)
            if used + cost > budget * 0.6:
                continue
            report_rows.append(row)
            refs.reports[child.community_id] = child.community_id
            covered.update(ctx.communities[child.community_id].entity_ids)
            used += cost

    for e in members:
        if e in covered:
            continue
        row = entity_row(e)
        cost = count_tokens(row)
        if used + cost > budget:
            break
        entity_rows.append(row)
        refs.entities[str(ent[e].human_readable_id)] = e
        used += cost
        for rid in sorted(rels_of[e], key=lambda r: -graph.relationship_by_id[r].weight):
            if rid in added_rels:
                continue
            row = rel_row(rid)
            cost = count_tokens(row)
            if used + cost > budget:
                break
            rel_rows.append(row)
            added_rels.add(rid)
            refs.relationships[str(graph.relationship_by_id[rid].human_readable_id)] = rid
            used += cost

    member_set = set(community.entity_ids)
    units = sorted(
        (graph.unit_by_id[u] for u in community.text_unit_ids if u in graph.unit_by_id),
        key=lambda u: (-len(member_set.intersection(u.entity_ids)), u.human_readable_id),
    )
    for unit in units:
        row = f"{unit.human_readable_id}|{_cell(clip(unit.text, 1200))}"
        cost = count_tokens(row)
        if used + cost > budget:
            break
        source_rows.append(row)
        refs.sources[str(unit.human_readable_id)] = unit.id
        used += cost

    parts = []
    if community.kind == "structural":
        parts.append(f"Section: {_section_path(community, graph)}\n")
    if report_rows:
        parts.append("-----Reports-----\nid|title|summary|rating\n" + "\n".join(report_rows))
    if entity_rows:
        parts.append("-----Entities-----\nid|entity|type|description|degree\n" + "\n".join(entity_rows))
    if rel_rows:
        parts.append("-----Relationships-----\nid|source|target|description|weight\n" + "\n".join(rel_rows))
    if source_rows:
        parts.append("-----Sources-----\nid|text\n" + "\n".join(source_rows))
    return "\n\n".join(parts), refs


_DATA_REF = re.compile(r"\[Data:([^\]]*)\]", re.IGNORECASE)
_TABLE_REF = re.compile(r"(Entities|Relationships|Sources|Reports)\s*\(([^)]*)\)", re.IGNORECASE)


def parse_json_object(text: str) -> dict[str, Any] | None:
    """The first JSON object in a reply (code fences and chatter around it are ignored), else None."""
    if not text:
        return None
    start = text.find("{")
    while start != -1:
        depth = 0
        in_string = False
        escape = False
        for i in range(start, len(text)):
            ch = text[i]
            if in_string:
                if escape:
                    escape = False
                elif ch == "\\":
                    escape = True
                elif ch == '"':
                    in_string = False
                continue
            if ch == '"':
                in_string = True
            elif ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
                if depth == 0:
                    try:
                        value = json.loads(text[start : i + 1])
                    except json.JSONDecodeError:
                        break
                    return value if isinstance(value, dict) else None
        start = text.find("{", start + 1)
    return None


def cited_ids(text: str) -> dict[str, list[str]]:
    """``{"entities": [...], "relationships": [...], "sources": [...], "reports": [...]}`` from [Data: …] refs."""
    out: dict[str, list[str]] = {"entities": [], "relationships": [], "sources": [], "reports": []}
    for block in _DATA_REF.findall(text or ""):
        for table, ids in _TABLE_REF.findall(block):
            for raw in ids.split(","):
                raw = raw.strip().strip("'\"")
                if raw and not raw.startswith("+"):
                    out[table.lower()].append(raw)
    return out


def llm_report(
    community: Community,
    ctx: _Context,
    chat: CachedChat,
    *,
    context_tokens: int,
    min_findings: int,
    max_findings: int,
    fallback: Report,
    stats: ReportStats,
) -> Report | None:
    context, refs = build_context(community, ctx, context_tokens)
    prompt = prompts.REPORT_PROMPT.format(context=context, min_findings=min_findings, max_findings=max_findings)
    reply = chat([("system", prompts.REPORT_SYSTEM), ("human", prompt)],
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
    return _make_report(community, title, summary, rating, explanation, findings, "llm")


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
    summary: str, explanation: str, community: Community, ctx: _Context, refs: _Refs
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


def _make_report(
    community: Community, title: str, summary: str, rating: float, rating_explanation: str,
    findings: list[Finding], generated_by: str,
) -> Report:
    """A report for ``community`` with its markdown rendering; one place for both generators."""
    report = Report(
        community_id=community.id,
        kind=community.kind,
        level=community.level,
        title=title,
        summary=summary,
        rating=rating,
        rating_explanation=rating_explanation,
        findings=findings,
        full_content="",
        generated_by=generated_by,
        parent=community.parent,
        children=list(community.children),
        size=community.size,
    )
    report.full_content = render_markdown(report)
    return report
