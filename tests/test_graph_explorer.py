"""The graph explorer's reads (``core.graph.communities.explore``) against the real database, its layout, its canvas
page, and the
page under AppTest: search, a neighbourhood, an entity's properties, and a hostile entity name kept as text."""

from __future__ import annotations

import json
import math
import uuid

import pytest
from streamlit.testing.v1 import AppTest

from core.graph import IndexConfig, build_index, communities, entities, relationships
from core.graph.communities.explore import (
    SPRING_LIMIT,
    entity_properties,
    neighbourhood,
    packed_layout,
    search_entities,
)
from core.text import escape_markdown as esc
from views import graph_explorer as gx

from .conftest import ROOT
from .helpers_pages import ingested_store, walk
from .test_reports_page import HOSTILE_DOC, HOSTILE_NAME, ensure_samples_index
from .test_views import HOSTILE, SCRIPT, hostile_graph

APP = str(ROOT / "app.py")


@pytest.fixture(scope="module")
def indexed(samples_store):
    return ensure_samples_index(samples_store)


@pytest.fixture(scope="module")
def hostile_index(db_url, use_embeddings):
    with ingested_store(db_url, use_embeddings, "hostile_graph", {"hostile.md": HOSTILE_DOC}) as store:
        build_index(store, config=IndexConfig(extraction="offline", reports="extractive"))
        yield store


def hub(store):
    return max(entities(store), key=lambda e: (e.degree, e.title))


# -- reads --------------------------------------------------------------------------------------------------------


def test_search_puts_the_exact_title_first_and_takes_wildcards_literally(indexed):
    top = hub(indexed)
    found = search_entities(indexed, f"  {top.title.upper()} ")
    assert found and found[0].id == top.id, "the exact title (any case, any spacing) comes first"
    word = top.title.split()[0][:3].lower()
    assert all(word in (e.title + " " + e.description).lower() for e in search_entities(indexed, word))
    for wildcard in ("%", "_"):
        found = search_entities(indexed, wildcard, limit=1000)
        assert all(wildcard in e.title + e.description for e in found), "a wildcard is a character to find"
        assert len(found) < len(entities(indexed))
    assert search_entities(indexed, "   ") == []


def test_neighbourhood_is_every_relationship_of_the_entity_and_its_other_ends(indexed):
    top = hub(indexed)
    near = neighbourhood(indexed, [top.id])
    expected = {r.id for r in relationships(indexed) if top.id in (r.source_id, r.target_id)}
    assert {r.id for r in near.relationships} == expected and expected
    ends = {top.id} | {r.source_id for r in near.relationships} | {r.target_id for r in near.relationships}
    assert {e.id for e in near.entities} == ends
    assert len(ends) - 1 == top.degree, "the index's degree counts the same neighbours"
    assert neighbourhood(indexed, []).entities == []


def test_entity_properties_name_its_communities_and_its_current_sources(indexed):
    top = hub(indexed)
    props = entity_properties(indexed, top.id, max_sources=3)
    assert props is not None and props.entity.id == top.id and props.degree == top.degree
    holding = {c.id for c in communities(indexed) if top.id in c.entity_ids}
    assert {c.id for c in props.communities} == holding and holding
    assert [e.element_id for e in props.elements] == top.element_ids[:3]
    assert props.more_elements == max(0, len(top.element_ids) - 3)
    assert all(top.id in (r.source_id, r.target_id) for r in props.relationships)
    assert entity_properties(indexed, "no-such-entity") is None


# -- layout and canvas ----------------------------------------------------------------------------------------------


def test_packed_layout_places_every_node_with_groups_apart():
    ids = [f"n{i}" for i in range(400)]
    groups = {n: f"g{i % 4}" for i, n in enumerate(ids[:300])}  # 100 in no group: one group of their own
    edges = [(ids[i], ids[(i + 4) % 300], 1.0) for i in range(300)]
    pos = packed_layout(ids, edges, groups, {n: i % 7 for i, n in enumerate(ids)})
    assert set(pos) == set(ids)
    assert pos == packed_layout(ids, edges, groups, {n: i % 7 for i, n in enumerate(ids)}), "deterministic"
    boxes = {}
    for n, (x, y) in pos.items():
        g = groups.get(n, "")
        x0, y0, x1, y1 = boxes.get(g, (x, y, x, y))
        boxes[g] = (min(x0, x), min(y0, y), max(x1, x), max(y1, y))
    keys = sorted(boxes)
    for i, a in enumerate(keys):
        for b in keys[i + 1:]:
            (ax0, ay0, ax1, ay1), (bx0, by0, bx1, by1) = boxes[a], boxes[b]
            assert ax1 < bx0 or bx1 < ax0 or ay1 < by0 or by1 < ay0, f"groups {a} and {b} overlap"


def test_a_group_too_big_for_a_spring_layout_is_spread_evenly():
    n = SPRING_LIMIT * 3
    ids = [f"n{i}" for i in range(n)]
    edges = [(ids[i], ids[(i + 1) % n], 1.0) for i in range(n)]  # one connected component
    pos = packed_layout(ids, edges, {}, {x: 0 for x in ids})
    points = sorted(pos.values())
    closest = min(math.dist(points[i], points[j]) for i in range(0, n, 37) for j in range(n) if j != i)
    assert len(set(points)) == n and closest > 10, "no two nodes on top of each other"


def test_canvas_page_keeps_hostile_text_out_of_the_markup():
    ents, rels = hostile_graph()
    layout = {e.id: (float(i * 50), 0.0) for i, e in enumerate(ents)}
    html = gx.explorer_html(ents, rels, layout, focus="n2", expanded=["n1"])
    assert HOSTILE not in html and SCRIPT not in html and "<img" not in html
    assert html.count("<script>") == 4, "vis.js, the labeller, ours: nothing else (and pyvis' nothing)"
    assert "<script src" not in html and "<link" not in html, "vis.js is inlined: nothing to fetch"
    nodes, _edges, canvas = gx.explorer_data(ents, rels, layout, focus="n2", expanded=["n1"])
    assert canvas.order[:3] == ["n2", "n1", "n0"], "the focus, the expanded, then by degree"
    assert {n["name"] for n in nodes} >= {HOSTILE}, "the name itself travels (the canvas draws characters)"


def test_the_whole_graph_hands_vis_no_edge_and_strokes_each_relationship_once():
    """vis.js built an object per edge (most of the whole graph's draw time): the overview's edges are lines the
    template strokes, one per related pair; a focused view keeps vis.js edges with their descriptions."""
    ents, rels = hostile_graph()
    layout = {e.id: (float(i * 50), 0.0) for i, e in enumerate(ents)}
    _nodes, edges, canvas = gx.explorer_data(ents, rels, layout, edge_text=False)
    pairs = {tuple(sorted((r.source_id, r.target_id))) for r in rels if r.source_id != r.target_id}
    assert edges == [] and {tuple(sorted(line[:2])) for line in canvas.lines} == pairs
    assert len(canvas.lines) == len(pairs) and all(isinstance(line[2], int) for line in canvas.lines)
    html = gx.explorer_html(ents, rels, layout, edge_text=False)
    assert '"lines": [[' in html and "beforeDrawing" in html and HOSTILE not in html
    _nodes, focused, canvas = gx.explorer_data(ents, rels, layout, focus="n2")
    assert canvas.lines == [] and len(focused) == len(pairs) and all("title" in e for e in focused)


def test_warming_after_an_index_build_leaves_the_first_view_to_the_cache(hostile_index, monkeypatch):
    from core.graph import index_info

    drawn: list[int] = []
    original = gx.explorer_html
    monkeypatch.setattr(gx, "explorer_html", lambda *a, **k: drawn.append(1) or original(*a, **k))
    gx.overview_page.clear()
    gx.warm(hostile_index.collection)
    assert drawn == [1]
    built = index_info(hostile_index).built_at.isoformat()
    level = min(c.level for c in communities(hostile_index, kind="entity"))
    assert "vis.Network" in gx.overview_page(hostile_index.collection, built, "", level)
    assert drawn == [1], "the page's first view was computed by the warm-up"


# -- the page -------------------------------------------------------------------------------------------------------


def explorer_page(collection: str, entity: str | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=300)
    at.session_state["collection"] = collection
    if entity:
        at.query_params["entity"] = entity
    at.switch_page("pages/graph_explorer.py")
    return at


def frame_html(at: AppTest) -> str:
    frames = [e for e in walk(at._tree) if getattr(e, "type", None) == "bidi_component"
              and e.proto.component_name.endswith("hke_graph_explorer")]  # fmt: skip
    assert frames, "the graph frame is missing"
    return json.loads(frames[0].proto.json)["html"]


def test_page_focuses_a_hostile_entity_and_shows_its_name_as_text(hostile_index):
    target = next(e for e in entities(hostile_index) if e.title == HOSTILE_NAME)
    at = explorer_page(hostile_index.collection, target.id).run()
    assert not at.exception, at.exception
    assert f"### {esc(HOSTILE_NAME)}" in [m.value for m in at.markdown], "the properties name it, escaped"
    assert not any(HOSTILE_NAME in m.value for m in at.markdown), "never as raw markup"
    neighbours = set(at.dataframe[0].value["entity"])
    assert neighbours >= {"Orbital Dynamics", "Signal Works"}, neighbours
    assert HOSTILE_NAME not in frame_html(at)


def test_page_without_an_index_says_how_to_build_one(db_url, use_embeddings):
    with ingested_store(db_url, use_embeddings, f"noidx_{uuid.uuid4().hex[:6]}", {"a.md": "# A\n\nText.\n"}) as s:
        at = explorer_page(s.collection).run()
        assert not at.exception, at.exception
        assert any("No index yet" in i.value for i in at.info)


FACTS_DOC = """\
# Orion Telescope

The **Orion Telescope** is built by **Vega Optics**.

- Aperture: 2.4 m
- Mirror | coating: <b>silver</b>
- Operator: Vega Optics
"""


def test_properties_list_the_entitys_facts_once_the_statement_tiers_are_built(db_url, use_embeddings):
    """The facts of the statement tiers (key : value items under the entity's heading) are in its properties panel,
    each escaped and linked to its source; before the tiers are built the panel says how to build them."""
    from core.graph.communities.explore import entity_facts
    from core.ingest.tiers import sync_tiers

    with ingested_store(db_url, use_embeddings, "facts_panel", {"orion.md": FACTS_DOC}) as store:
        build_index(store, config=IndexConfig(extraction="offline", reports="extractive"))
        target = next(e for e in entities(store) if e.title == "Orion Telescope")
        assert entity_properties(store, target.id).facts is None, "no tiers yet: nothing to list"
        at = explorer_page(store.collection, target.id).run()
        assert any("--tiers-only" in c.value for c in at.caption), "the panel says how to get the facts"
        sync_tiers(store)
        facts = {(f.predicate, f.value) for f in entity_properties(store, target.id).facts}
        assert ("Aperture", "2.4 m") in facts and ("Operator", "Vega Optics") in facts, facts
        assert entity_facts(store, "Vega Optics") == [], "a subject of nothing has no facts"
        at = explorer_page(store.collection, target.id).run()
        assert not at.exception, at.exception
        table = next(m.value for m in at.markdown if m.value.startswith("| attribute | value |"))
        assert "| Aperture | 2\\.4 m | 1 |" in table and "/document_tree?" in table
        assert "<b>" not in table and "\\<b\\>" in table, "document text is escaped in the table"
