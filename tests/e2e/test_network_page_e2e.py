"""The community network page (``views.network``, pyvis through our template) straight in headless Chromium, without
Streamlit: hostile labels and tooltips are drawn as text, nothing is fetched, no dialog opens (the ``page``
fixture fails the test if one does), and a big community is drawn collapsed with physics off."""

from __future__ import annotations

import pytest

from core.graph.communities.layout import MAX_HUBS
from views import network

from ..test_views import HOSTILE, SCRIPT, entity, hostile_graph, relationship
from .conftest import hover_node, screenshot

pytestmark = pytest.mark.e2e


def show(page, html: str) -> list[str]:
    """Load ``html`` as the page's document; return every URL it asked for (none is expected)."""
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    page.set_content(html, wait_until="load")
    page.locator("body[data-hke-ready='1']").wait_for(state="attached", timeout=30_000)
    page.locator("#mynetwork canvas").wait_for(timeout=30_000)
    return requests


def hover(page, node_id: str) -> str:
    return hover_node(page, page.mouse, node_id).inner_text()


def test_hostile_labels_and_tooltips_are_text(page):
    ents, rels = hostile_graph()
    html = network.community_network_html(ents, rels, sub_community_of={"n0": "c1", "n1": "c1", "n2": "c2"},
                                          group_labels={"c1": f"first {HOSTILE}", "c2": "second"})  # fmt: skip
    requests = show(page, html)
    assert page.evaluate("nodes.get().map(n => n.name)")[0] == HOSTILE, "the canvas draws the name itself"
    assert page.locator(".hke-legend").inner_text().count(f"first {HOSTILE}") == 1, "the legend shows it as text"
    text = hover(page, "n0")
    assert text.startswith(HOSTILE) and "</script><script>alert(2)</script>" in text
    assert page.locator(".vis-tooltip b").first.inner_text() == HOSTILE, "first line bold, as a text node"
    page.wait_for_timeout(500)  # time for any injected handler to fire
    assert page.locator("img").count() == 0 and page.locator("a").count() == 0, "nothing was made from the text"
    assert page.evaluate("document.scripts.length") == 3, "vis.js, the labeller and ours, nothing injected"
    assert [u for u in requests if not u.startswith(("about:", "data:"))] == [], "the page fetched something"
    screenshot(page, "network_hostile_tooltip", full_page=False)


def test_big_community_is_drawn_collapsed_with_physics_off(page):
    n = 300
    big = [entity(i, degree=n - i) for i in range(n)]
    rels = [relationship(i, big[i], big[(i * 7 + 1) % n]) for i in range(n) if i != (i * 7 + 1) % n]
    groups = {f"n{i}": f"e{i % 5}" for i in range(n - 20)}
    labels = {f"e{k}": f"e{k} · Theme {k}" for k in range(5)}
    html = network.community_network_html(big, rels, sub_community_of=groups, group_labels=labels)
    show(page, html)
    ids = page.evaluate("nodes.get().map(n => n.id)")
    assert len(ids) == MAX_HUBS + 6 and sum(i.startswith("group:") for i in ids) == 6
    assert page.evaluate("network.physics.options.enabled") is False
    before = page.evaluate("network.getPositions(['n0'])['n0']")
    page.wait_for_timeout(500)
    assert page.evaluate("network.getPositions(['n0'])['n0']") == before, "nothing moves: the layout is given"
    assert hover(page, "group:e3").startswith("e3 · Theme 3")
    screenshot(page, "network_collapsed", full_page=False)


def labels_overlapping(page) -> list[tuple[int, int]]:
    rects = page.evaluate("window.hkeLabelRects")
    return [(i, j) for i, a in enumerate(rects) for j, b in enumerate(rects[:i])
            if a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]]


def test_a_dense_community_labels_its_hubs_without_piling_labels_up(page):
    n = 70  # below the collapse threshold: every entity is drawn, most of them near the centre
    ents = [entity(i, f"A fairly long entity name {i}", degree=n - i) for i in range(n)]
    rels = [relationship(i * n + j, ents[i], ents[j]) for i in range(n) for j in range(i + 1, n) if (i + j) % 3 == 0]
    show(page, network.community_network_html(ents, rels, sub_community_of={}))
    page.wait_for_function("window.hkeLabelled && window.hkeLabelled.length > 0")
    labelled = page.evaluate("window.hkeLabelled")
    assert labelled[0] == "n0", "the most connected entity is named first"
    assert 0 < len(labelled) < n, "not every label fits at this zoom"
    assert labels_overlapping(page) == []
    page.evaluate("network.moveTo({scale: network.getScale() * 4, position: network.getPositions(['n50'])['n50']})")
    page.wait_for_function("window.hkeLabelled.includes('n50')")  # zoomed in, a minor entity gets its label
    assert labels_overlapping(page) == []
    screenshot(page, "network_dense_labels", full_page=False)


def test_the_sunburst_fits_its_frame_and_its_labels_do_not_overlap(page, samples_store):
    """The samples' entity hierarchy in the Reports column's size (344 × 460): the circle stays inside the chart with
    room around it, and no two labels shown overlap (rotated labels crossed their neighbours before)."""
    import plotly.io as pio

    from core.graph import hierarchy
    from views import hierarchy as hv

    from ..test_reports_page import ensure_samples_index

    fig = hv.hierarchy_figure(hierarchy(ensure_samples_index(samples_store), "entity"), height=460)
    fig.update_layout(width=344)
    page.set_content(pio.to_html(fig, include_plotlyjs=True, full_html=True), wait_until="load")
    page.locator("g.slice text").first.wait_for(timeout=30_000)
    chart = page.locator(".main-svg").first.bounding_box()
    rings = page.locator(".sunburstlayer").bounding_box()
    assert rings["x"] >= chart["x"] + 5 and rings["x"] + rings["width"] <= chart["x"] + chart["width"] - 5
    boxes = page.evaluate("""[...document.querySelectorAll('g.slice text')]
        .filter(t => t.textContent && getComputedStyle(t).opacity !== '0')
        .map(t => { const r = t.getBoundingClientRect(); return [t.textContent, r.left, r.top, r.right, r.bottom]; })
        .filter(b => b[3] > b[1])""")
    assert len(boxes) > 5, "the sectors with room are labelled"
    crossing = [(a[0], b[0]) for i, a in enumerate(boxes) for b in boxes[:i]
                if a[1] < b[3] - 1 and b[1] < a[3] - 1 and a[2] < b[4] - 1 and b[2] < a[4] - 1]
    assert crossing == []
    screenshot(page, "sunburst_samples", full_page=False)


def test_explorer_canvas_draws_a_script_tag_name_as_text(page):
    """The Graph explorer's canvas page: an entity named with a script tag is labelled with those characters, its
    tooltip shows them, nothing runs (the ``page`` fixture fails on a dialog) and nothing is fetched."""
    from views import graph_explorer as gx

    ents, rels = hostile_graph()
    ents[1].title = SCRIPT
    rels[0].target = SCRIPT
    layout = {e.id: (float(i * 120), float(i % 2) * 80) for i, e in enumerate(ents)}
    requests = show(page, gx.explorer_html(ents, rels, layout, focus="n1"))
    page.wait_for_function("window.hkeLabelled && window.hkeLabelled.length === 4")
    assert page.evaluate("window.hkeLabelled[0]") == "n1", "the focus is labelled first"
    assert page.evaluate("nodes.get('n1').name") == SCRIPT and page.evaluate("nodes.get('n0').name") == HOSTILE
    assert hover(page, "n1").startswith(SCRIPT), "the tooltip shows the tag as text"
    page.wait_for_timeout(500)
    assert page.evaluate("document.scripts.length") == 3, "vis.js, the labeller and ours, nothing injected"
    assert page.locator("img").count() == 0
    assert [u for u in requests if not u.startswith(("about:", "data:"))] == [], "the page fetched something"
    screenshot(page, "graph_explorer_hostile", full_page=False)



def test_labels_at_the_frames_edges_stay_inside_it(page):
    # The graph explorer's canvas, its entities on a line with long names: vis fits the nodes, not their labels, so
    # the outermost labels reached past the canvas' edges and were cut there.
    from views.graph_explorer import explorer_html

    ents = [entity(i, f"Outermost entity name number {i}", degree=10) for i in range(5)]
    rels = [relationship(i, ents[i], ents[i + 1]) for i in range(4)]
    layout = {e.id: (i * 400.0, (i % 2) * 40.0) for i, e in enumerate(ents)}
    page.set_viewport_size({"width": 900, "height": 700})  # the explorer's column in the app: about this wide
    show(page, explorer_html(ents, rels, layout, edge_text=False, height_px=500))
    page.wait_for_function("window.hkeLabelled && window.hkeLabelled.length > 0")
    width = page.evaluate("document.querySelector('#mynetwork canvas').clientWidth")
    rects = page.evaluate("window.hkeLabelRects")
    assert {"n0", "n4"} <= set(page.evaluate("window.hkeLabelled")), "the outermost entities are named"
    assert all(r[0] >= 0 and r[2] <= width for r in rects), (width, rects)
    assert labels_overlapping(page) == []
