"""The Graph explorer page in a real browser on the sample corpus indexed offline: search an entity, focus it, click
a neighbour on the canvas (vis.js in the sandboxed frame; the click travels to Python as a message) and see it
expanded, with its properties and source links. Screenshots go to tests/artifacts/."""

from __future__ import annotations

import re

import pytest

from core.graph import entities
from core.graph.communities.explore import neighbourhood

from ..test_reports_page import ensure_samples_index
from .conftest import screenshot, wait_for_text
from .test_reports_e2e import open_page

pytestmark = pytest.mark.e2e

FRAME = "iframe[title='Entity graph']"


def canvas_frame(page, node_id: str):
    """The explorer's frame once it draws ``node_id``."""
    page.locator(FRAME).wait_for(timeout=60_000)
    frame = page.frame_locator(FRAME)
    frame.locator("body[data-hke-ready='1']").wait_for(state="attached", timeout=60_000)
    handle = page.locator(FRAME).element_handle().content_frame()
    handle.wait_for_function(f"nodes.get({node_id!r}) !== null", timeout=60_000)
    return handle


def test_whole_graph_then_search_focus_and_click_to_expand(page, app_url, samples_store):
    """One tab: the whole graph as the page opens, then an entity searched, focused and expanded on it."""
    store = ensure_samples_index(samples_store)
    title = {e.id: e.title for e in entities(store)}
    hub = max(entities(store), key=lambda e: (e.degree, e.title))
    near = neighbourhood(store, [hub.id])
    # A neighbour with neighbours of its own that the hub does not have: expanding it must add them.
    hub_side = {e.id for e in near.entities}
    neighbour = next(e for e in sorted(near.entities, key=lambda e: (-e.degree, e.title))
                     if e.id != hub.id and {x.id for x in neighbourhood(store, [e.id]).entities} - hub_side)

    open_page(page, app_url, f"/graph_explorer?collection={store.collection}", "Graph explorer")
    # The twelve most connected, in the right-hand column: all of them on screen (they wrap), none scrolled away.
    pills = page.locator("[data-testid='stMain'] [data-testid='stButtonGroup']").first
    pills.locator("button").nth(11).wait_for(timeout=60_000)
    column = pills.bounding_box()
    for i in range(12):
        box = pills.locator("button").nth(i).bounding_box()
        assert box["x"] + box["width"] <= column["x"] + column["width"] + 1, f"pill {i} is outside its column"
    # The whole graph's edges are stroked by the template, not vis.js: hovering one still names its two ends.
    page.locator(FRAME).wait_for(timeout=60_000)
    frame = page.locator(FRAME).element_handle().content_frame()
    frame.wait_for_function("window.hkeLabelled && window.hkeLabelled.length > 0", timeout=60_000)
    pick = frame.evaluate("""(() => {
      for (const [a, b] of window.hkeLines) {  // a long line, its middle off every node
        const pa = network.canvasToDOM(network.getPositions([a])[a]);
        const pb = network.canvasToDOM(network.getPositions([b])[b]);
        const mid = {x: (pa.x + pb.x) / 2, y: (pa.y + pb.y) / 2};
        if (Math.hypot(pa.x - pb.x, pa.y - pb.y) > 80 && network.getNodeAt(mid) === undefined) {
          return {a, b, x: mid.x, y: mid.y};
        }
      }
      return null; })()""")
    assert pick is not None, "no edge long enough to hover"
    box = page.locator(FRAME).bounding_box()
    page.mouse.move(box["x"] + pick["x"] + 3, box["y"] + pick["y"] + 3)
    page.mouse.move(box["x"] + pick["x"], box["y"] + pick["y"])
    tip = page.frame_locator(FRAME).locator(".hke-edge-tip")
    tip.wait_for(state="visible", timeout=10_000)
    # the picked line, or one crossing it there: the two ends of a line drawn
    pairs = {f"{title[a]} — {title[b]}" for a, b, _ in frame.evaluate("window.hkeLines")}
    assert tip.inner_text() in pairs

    # Search the most connected entity, focus it, then click a neighbour on the canvas to expand it.
    page.get_by_label("Search an entity").fill(hub.title)
    page.get_by_label("Search an entity").press("Enter")
    matches = page.locator("[data-testid='stMain'] [data-testid='stButtonGroup'] button")
    matches.filter(has_text=re.compile(rf"^{re.escape(hub.title[:40])} \(")).first.click()
    page.wait_for_url(re.compile(rf"[?&]entity={hub.id}"), timeout=60_000)
    wait_for_text(page, "Source elements (")
    assert page.locator("[data-testid='stMain'] a[href*='/document_tree?'][href*='element=']").count() > 0
    assert page.locator("[data-testid='stMain'] a[href*='/reports?'][href*='community=']").count() > 0

    frame = canvas_frame(page, neighbour.id)
    drawn = set(frame.evaluate("nodes.getIds()"))
    assert hub.id in drawn and neighbour.id in drawn and len(drawn) > 2
    point = frame.evaluate(f"network.canvasToDOM(network.getPositions([{neighbour.id!r}])[{neighbour.id!r}])")
    box = page.locator(FRAME).bounding_box()
    page.mouse.click(box["x"] + point["x"], box["y"] + point["y"])

    page.wait_for_url(re.compile(rf"[?&]entity={neighbour.id}"), timeout=60_000)
    page.locator("[data-testid='stMain'] h3", has_text=neighbour.title).wait_for(timeout=60_000)
    frame = canvas_frame(page, neighbour.id)
    frame.wait_for_function(f"nodes.length > {len(drawn)}", timeout=60_000)
    expanded = set(frame.evaluate("nodes.getIds()"))
    assert drawn < expanded, "the hub's neighbourhood stays, the neighbour's own neighbours join it"
    assert frame.evaluate("window.hkeLabelled")[:2] == [neighbour.id, hub.id], "the focus, then the expanded"
    screenshot(page, "graph_explorer_expanded")
