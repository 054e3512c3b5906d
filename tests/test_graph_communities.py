"""Hierarchical Leiden and structural communities, without a database."""

from __future__ import annotations

import random
from pathlib import Path

from core.graph.communities.entity_graph import build_graph
from core.graph.communities.leiden import entity_communities, hierarchical_clusters, time_leiden
from core.graph.communities.structural import structural_communities
from core.graph.extraction.offline import OfflineExtractor
from core.graph.extraction.text_units import build_text_units
from core.markdown_loader import parse_markdown

SAMPLES = Path(__file__).resolve().parents[1] / "data" / "samples"


def _planted(n_groups: int = 12, size: int = 15, seed: int = 3) -> list[tuple[str, str, float]]:
    rng = random.Random(seed)
    edges = []
    for g in range(n_groups):
        nodes = [f"g{g}n{i}" for i in range(size)]
        for i, a in enumerate(nodes):
            for b in nodes[i + 1 :]:
                if rng.random() < 0.5:
                    edges.append((a, b, 1.0 + rng.random()))
        edges.append((nodes[0], f"g{(g + 1) % n_groups}n0", 0.2))
    return edges


def test_leiden_is_deterministic_and_hierarchical():
    edges = _planted()
    a = hierarchical_clusters(edges, max_cluster_size=10, seed=42)
    b = hierarchical_clusters(list(reversed(edges)), max_cluster_size=10, seed=42)  # input order does not matter
    assert a == b
    levels = {c.level for c in a}
    assert 0 in levels and len(levels) >= 2  # groups of 15 > 10 are split one level down
    by_cluster = {c.cluster: c for c in a}
    for c in a:
        if c.parent is not None:
            parent = by_cluster[c.parent]
            assert parent.level == c.level - 1 and set(c.nodes) <= set(parent.nodes)
    # level 0 covers every node exactly once
    level0 = [n for c in a if c.level == 0 for n in c.nodes]
    assert len(level0) == len(set(level0)) == len({n for e in edges for n in e[:2]})
    assert hierarchical_clusters([], seed=1) == []


def test_entity_and_structural_communities_on_a_sample():
    doc = "nova-32ux-monitor-en.md"
    docs = [(doc, parse_markdown((SAMPLES / doc).read_text(encoding="utf-8"), source=doc, document_id=doc))]
    units, infos = build_text_units(docs)
    graph = build_graph(OfflineExtractor(english_ner="heuristic").extract(units, infos), units, infos)

    comms = entity_communities(graph, seed=7)
    assert comms == entity_communities(graph, seed=7)
    ids = {c.id for c in comms}
    clustered = {e for c in comms if c.level == 0 for e in c.entity_ids}
    linked = {r.source_id for r in graph.relationships} | {r.target_id for r in graph.relationships}
    assert clustered == linked
    for c in comms:
        assert c.kind == "entity" and c.id.startswith("e") and c.title
        assert (c.parent in ids) if c.level else c.parent is None
        assert all(child in ids for child in c.children)

    structural = structural_communities(graph, [(doc, "Nova 32UX")], max_depth=3)
    by_level = {lvl: [c for c in structural if c.level == lvl] for lvl in {c.level for c in structural}}
    (root,) = by_level[0]
    assert root.title.startswith("Nova 32UX 31.5-inch") and root.parent is None  # the document's single H1
    assert {"Why Nova 32UX", "Color Modes", "Specifications", "Firmware Update"} <= {c.title for c in by_level[1]}
    spec = next(c for c in by_level[1] if c.title == "Specifications")
    assert {"Display", "Connectivity", "Power"} <= {c.title for c in structural if c.parent == spec.id}
    assert max(by_level) == 2
    for c in structural:
        assert c.kind == "structural" and set(c.element_ids) <= set(infos)
        if c.parent:
            parent = next(p for p in structural if p.id == c.parent)
            assert set(c.element_ids) <= set(parent.element_ids)
    flat = structural_communities(graph, [(doc, "Nova 32UX")], max_depth=1)
    assert len(flat) == 1 and set(flat[0].element_ids) == set(infos)


def test_leiden_timing_helper_runs():
    stats = time_leiden(2000, 6000)
    assert stats["nodes"] > 1500 and stats["edges"] == 6000 and stats["communities"] > 10


def test_package_attributes_are_the_functions():
    # ``communities``, ``text_units`` and ``global_search`` are also submodule names.
    import core.graph.communities.leiden  # noqa: F401
    import core.graph.extraction.text_units  # noqa: F401
    import core.graph.search.global_search  # noqa: F401

    for name in ("communities", "text_units", "global_search", "build_index", "load_reports", "hierarchy"):
        assert callable(getattr(core.graph, name)), name
