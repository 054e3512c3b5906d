"""Structural communities: the heading tree as a second, curated hierarchy.

Level 0 is a document, level 1 its top sections, level 2 their subsections (``max_depth`` levels in all; deeper
sections fold into their level-``max_depth - 1`` ancestor). A document whose content all sits under one root
heading (the usual ``# Title``) is that heading, and its ``##`` sections are level 1. Like curated communities in
legal-norm Graph RAG, these are groupings analysts recognise at once.

A structural community holds the entities mentioned in its elements, and the relationships between them that
are evidenced inside it (a co-occurring sentence or a shared text unit within the section). Sections without any
content besides headings are skipped.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

from core.graph.communities.entity_graph import GraphData
from core.graph.extraction.text_units import ElementInfo, _Section, section_tree
from core.store.graph_records import Community, Relationship

DEFAULT_STRUCTURAL_DEPTH = 3


@dataclass
class _Node:
    title: str
    level: int
    heading_id: str | None
    element_ids: list[str] = field(default_factory=list)
    children: list[_Node] = field(default_factory=list)


def structural_communities(
    graph: GraphData,
    documents: Sequence[tuple[str, str]],
    *,
    max_depth: int = DEFAULT_STRUCTURAL_DEPTH,
) -> list[Community]:
    """Communities of kind ``"structural"`` (ids ``s1``, ``s2``…) for ``documents`` (``(id, title)`` pairs)."""
    if max_depth < 1:
        raise ValueError("max_depth must be at least 1")
    by_doc: dict[str, list[ElementInfo]] = defaultdict(list)
    for info in graph.infos.values():
        by_doc[info.document_id].append(info)
    roots = []
    for document_id, title in documents:
        elements = by_doc.get(document_id)
        if elements:
            roots.append(_document_node(section_tree(elements), title, max_depth))

    unit_of = {eid: info.unit_id for eid, info in graph.infos.items()}
    adjacency = _adjacency(graph)
    out: list[Community] = []
    counter = [0]

    def emit(node: _Node, parent: str | None) -> str | None:
        content = [e for e in node.element_ids if graph.infos[e].category != "Title"]
        if not content:
            return None
        counter[0] += 1
        cid = f"s{counter[0]}"
        community = _community(cid, counter[0], node, parent, graph, unit_of, adjacency)
        out.append(community)
        for child in node.children:
            child_id = emit(child, cid)
            if child_id is not None:
                community.children.append(child_id)
        return cid

    for root in roots:
        emit(root, None)
    return sorted(out, key=lambda c: (c.level, c.human_readable_id))


def _document_node(root: _Section, title: str, max_depth: int) -> _Node:
    sections = [item for item in root.items if isinstance(item, _Section)]
    preamble = [item for item in root.items if isinstance(item, ElementInfo)]
    if len(sections) == 1 and not preamble:
        return _section_node(sections[0], 0, max_depth)
    node = _Node(title, 0, None)
    for item in root.items:
        if isinstance(item, ElementInfo):
            node.element_ids.append(item.element_id)
        elif max_depth > 1:
            child = _section_node(item, 1, max_depth)
            node.children.append(child)
            node.element_ids.extend(child.element_ids)
        else:
            node.element_ids.extend(_all_elements(item))
    return node


def _section_node(section: _Section, level: int, max_depth: int) -> _Node:
    assert section.heading is not None
    node = _Node(section.heading.text, level, section.heading.element_id, [section.heading.element_id])
    for item in section.items:
        if isinstance(item, ElementInfo):
            node.element_ids.append(item.element_id)
        elif level + 1 < max_depth:
            child = _section_node(item, level + 1, max_depth)
            node.children.append(child)
            node.element_ids.extend(child.element_ids)
        else:
            node.element_ids.extend(_all_elements(item))
    return node


def _all_elements(section: _Section) -> list[str]:
    out: list[str] = []
    stack: list[_Section | ElementInfo] = [section]
    while stack:
        item = stack.pop()
        if isinstance(item, ElementInfo):
            out.append(item.element_id)
            continue
        if item.heading is not None:
            out.append(item.heading.element_id)
        stack.extend(reversed(item.items))
    return out


def _community(
    cid: str,
    hrid: int,
    node: _Node,
    parent: str | None,
    graph: GraphData,
    unit_of: dict[str, str],
    adjacency: dict[str, list[Relationship]],
) -> Community:
    element_set = set(node.element_ids)
    entity_ids: list[str] = []
    seen: set[str] = set()
    for element_id in node.element_ids:
        for idx in graph.element_sentences.get(element_id, ()):
            for eid in graph.sentence_entities.get(idx, ()):
                if eid not in seen:
                    seen.add(eid)
                    entity_ids.append(eid)
    unit_ids = list(dict.fromkeys(unit_of[e] for e in node.element_ids if unit_of.get(e)))
    unit_set = set(unit_ids)
    members = set(entity_ids)
    candidates = [r for eid in entity_ids for r in adjacency.get(eid, ()) if r.target_id in members]
    candidates.sort(key=lambda r: (-r.weight, r.human_readable_id))
    relationship_ids = [
        r.id
        for r in candidates
        if any(el in element_set for el in r.element_ids) or unit_set.intersection(r.text_unit_ids)
    ]
    entity_ids.sort(key=lambda e: (-graph.entity_by_id[e].degree, graph.entity_by_id[e].human_readable_id))
    return Community(
        id=cid,
        human_readable_id=hrid,
        kind="structural",
        level=node.level,
        parent=parent,
        children=[],
        title=node.title,
        entity_ids=entity_ids,
        relationship_ids=relationship_ids,
        text_unit_ids=unit_ids,
        element_ids=list(node.element_ids),
        size=len(entity_ids),
    )


def _adjacency(graph: GraphData) -> dict[str, list[Relationship]]:
    """Relationships by source entity, strongest first."""
    adjacency: dict[str, list[Relationship]] = defaultdict(list)
    for r in sorted(graph.relationships, key=lambda r: (-r.weight, r.human_readable_id)):
        adjacency[r.source_id].append(r)
    return adjacency
