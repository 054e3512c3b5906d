"""The Community reports and Global search pages in a real browser: ``streamlit run app.py`` driven by Playwright in
Debian's headless Chromium, on the sample corpus indexed offline.

Reports: open the page, click a sunburst sector, pick a level, open a report, follow a child; the pyvis network
(a ``<canvas>`` in the component iframe) and the sunburst (``.js-plotly-plot``) must be on screen. A hostile entity
name must show as text in the cards, on the canvas and in the node tooltip, with no dialog (the shared ``page``
fixture fails the test if one opens) and no ``<img>`` created. Global search: an offline answer with report links
that open the report. Screenshots go to tests/artifacts/.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from core.graph import IndexConfig, build_index, hierarchy, load_reports
from views.reports import sort_reports

from ..helpers_pages import ingested_store
from ..test_reports_page import HOSTILE_DOC, HOSTILE_NAME, ensure_samples_index
from .conftest import hover_node, screenshot, wait_for_text

pytestmark = pytest.mark.e2e

MAIN = "[data-testid='stMain']"
NETWORK = "iframe[title^='Network of community']"


@pytest.fixture(scope="module")
def indexed_samples(samples_store):
    return ensure_samples_index(samples_store)


@pytest.fixture(scope="module")
def hostile_collection(db_url, use_embeddings):
    with ingested_store(db_url, use_embeddings, "e2e_hostile_rep", {"hostile.md": HOSTILE_DOC}) as store:
        build_index(store, config=IndexConfig(extraction="offline", reports="extractive"))
        yield store


def open_page(page, app_url: str, path: str, text: str) -> None:
    page.goto(f"{app_url}{path}")
    wait_for_text(page, text, timeout=90_000)


def opened(page) -> str | None:
    m = re.search(r"[?&]community=([^&]+)", page.url)
    return m.group(1) if m else None


def wait_for_report(page, community_id: str) -> None:
    page.wait_for_url(re.compile(rf"[?&]community={re.escape(community_id)}(&|$)"), timeout=60_000)
    wait_for_text(page, "Findings (", timeout=60_000)


def network_selector(community_id: str | None = None) -> str:
    """The network iframe: any community's, or ``community_id``'s."""
    return f"{MAIN} " + (f"iframe[title='Network of community {community_id}']" if community_id else NETWORK)


def network_frame(page, community_id: str | None = None):
    """The pyvis iframe's frame, once vis.js has drawn and our script has turned the labels back into text (with
    ``community_id``: once the frame shows that community's page)."""
    iframe = page.locator(network_selector(community_id)).first
    iframe.wait_for(timeout=60_000)
    iframe.scroll_into_view_if_needed()
    assert iframe.get_attribute("sandbox") == "allow-scripts", "scripts, but not the app's origin (views/frames.py)"
    frame = iframe.element_handle().content_frame()
    frame.locator("#mynetwork canvas").wait_for(timeout=60_000)
    assert frame.evaluate("String(window.origin)") == "null"
    frame.locator("body[data-hke-ready='1']").wait_for(state="attached", timeout=60_000)
    return frame


def network_canvas(page, community_id: str | None = None):
    """The network's canvas, found again through the page on every look: Streamlit may replace the iframe while a
    visibility check waits, and a frame handle would then point at the old one."""
    network_frame(page, community_id)
    return page.frame_locator(network_selector(community_id)).first.locator("#mynetwork canvas")


def sunburst_on_screen(page) -> None:
    chart = page.locator(f"{MAIN} .js-plotly-plot").first
    chart.wait_for(timeout=60_000)
    chart.locator("g.slice").first.wait_for(timeout=60_000)


def test_browse_a_level_open_a_report_follow_a_child(app_url, page, indexed_samples):
    rows = hierarchy(indexed_samples, "entity")
    level1 = sort_reports(load_reports(indexed_samples, level=1, kind="entity"), "rating")[:24]  # the cards shown
    parent = next(r for r in level1 if r.children)

    open_page(page, app_url, "/reports?collection=samples", "Community reports")
    page.get_by_role("button", name="Open report").first.wait_for(timeout=60_000)
    sunburst_on_screen(page)
    # Click a sunburst sector: its report opens. Slice 0 is the "All communities" centre; the next ones are
    # communities.
    page.locator(f"{MAIN} .js-plotly-plot g.slice").nth(3).click(force=True)
    page.wait_for_url(re.compile(r"[?&]community="), timeout=60_000)
    picked = opened(page)
    assert picked in {r.id for r in rows}, f"a sunburst click names a community: {picked}"
    wait_for_text(page, "Findings (")
    screenshot(page, "reports_sunburst_click", settle_ms=800)
    # Back to the list through the first breadcrumb.
    page.get_by_role("button", name=re.compile(r"All level-\d+ reports")).click()
    page.get_by_role("button", name="Open report").first.wait_for(timeout=60_000)

    # Pick a level.
    page.locator(f"{MAIN} [data-testid='stSelectbox']").filter(has_text="Level").click()
    page.get_by_role("option", name=re.compile(r"^Level 1 ")).click()
    wait_for_text(page, "reports at level 1")
    page.locator(f".st-key-card_{parent.community_id}").wait_for(timeout=60_000)
    # Streamlit redraws in place: wait until the level-0 cards have all been replaced (auto-retrying assertion).
    expect(page.locator(f"{MAIN} [class*='st-key-card_']")).to_have_count(len(level1), timeout=60_000)
    screenshot(page, "reports_level", settle_ms=800)

    # Open a report from its card.
    page.locator(f".st-key-card_{parent.community_id}").get_by_role("button", name="Open report").click()
    wait_for_report(page, parent.community_id)
    expect(page.locator(f"{MAIN} h3").first).to_have_text(parent.title, timeout=60_000)
    assert "extractive (no LLM configured)" in page.locator(MAIN).inner_text()
    # The sources are drawn after the title: wait for the first link rather than count them at once.
    page.locator(f"{MAIN} a[href*='/document_tree?collection=samples&element=']").first.wait_for(timeout=60_000)
    frame = network_frame(page)
    expect(frame.locator("#mynetwork canvas"), "the network canvas is on screen").to_be_visible(timeout=30_000)
    n_nodes = frame.evaluate("nodes.get().length")
    assert n_nodes == parent.size
    sunburst_on_screen(page)
    expect(page.locator(f"{MAIN} .js-plotly-plot").first, "the sunburst is on screen").to_be_visible(timeout=30_000)
    page.locator(f"{MAIN} h2, {MAIN} h3").first.scroll_into_view_if_needed()
    screenshot(page, "reports_open", settle_ms=800)
    page.locator(f"{MAIN} {NETWORK}").first.scroll_into_view_if_needed()
    screenshot(page, "reports_network", settle_ms=800)

    # Follow a child, then come back up through the breadcrumbs.
    child = parent.children[0]
    child_row = next(r for r in rows if r.id == child)
    page.get_by_role("button", name=re.compile(rf"^{child} ·")).first.click()
    wait_for_report(page, child)
    expect(page.locator(f"{MAIN} h3").first).to_have_text(child_row.title, timeout=60_000)
    expect(page.locator(f"{MAIN} .js-plotly-plot").first).to_be_visible(timeout=30_000)
    expect(network_canvas(page, child)).to_be_visible(timeout=30_000)
    screenshot(page, "reports_child", settle_ms=800)
    crumb = page.get_by_role("button", name=re.compile(rf"^{parent.community_id} ·")).first
    # Scroll first, then click: the network frame is sandboxed (an opaque origin, so Chromium may draw it in its own
    # process) and a click sent in the same step as the scroll can be hit-tested against the old layout.
    crumb.scroll_into_view_if_needed()
    page.wait_for_timeout(300)
    crumb.click()
    wait_for_report(page, parent.community_id)


def test_a_report_opened_by_its_link_draws_the_sunburst_after_its_network(app_url, page, indexed_samples):
    """The tab's first run leaves the sunburst out; the network's frame, once loaded, asks for the rerun that draws
    it, with no click (tests/test_reports_page.py checks the first run has no chart)."""
    parent = next(r for r in hierarchy(indexed_samples, "entity") if r.level == 0 and r.n_children >= 2)
    open_page(page, app_url, f"/reports?collection=samples&community={parent.id}", "Findings (")
    expect(network_canvas(page, parent.id)).to_be_visible(timeout=30_000)
    sunburst_on_screen(page)
    assert page.locator(f"{MAIN} .js-plotly-plot g.slice").count() > 1
    expect(page.get_by_text("The chart is drawn once the network is on screen")).to_have_count(0)


def test_hostile_entity_name_is_text_in_cards_and_graph(app_url, page, hostile_collection):
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    reports = load_reports(hostile_collection, kind="entity")
    report = next(r for r in reports if HOSTILE_NAME in r.title or HOSTILE_NAME in r.summary)
    open_page(page, app_url, f"/reports?collection={hostile_collection.collection}", "Community reports")
    card = page.locator(f".st-key-card_{report.community_id}")
    expect(card).to_contain_text(HOSTILE_NAME, timeout=60_000)  # the card shows the name as text
    sunburst_on_screen(page)

    card.get_by_role("button", name="Open report").click()
    wait_for_report(page, report.community_id)
    frame = network_frame(page)
    labels = frame.evaluate("nodes.get().map(n => n.name)")
    assert HOSTILE_NAME in labels, "the canvas draws the name itself, not its escaped form"
    # Hover the hostile node: vis.js shows its tooltip, built from text nodes only.
    node_id = frame.evaluate(f"nodes.get().find(n => n.name === {HOSTILE_NAME!r}).id")
    tooltip = hover_node(frame, page.mouse, node_id, starts_with=HOSTILE_NAME)
    assert tooltip.inner_text().startswith(HOSTILE_NAME)
    page.wait_for_timeout(1000)  # give any injected handler time to fire (the page fixture checks dialogs)
    screenshot(page, "reports_hostile")
    assert frame.locator("img").count() == 0, "no element was made from the name in the graph"
    assert page.locator(f"{MAIN} img[src='x']").count() == 0
    # The page's own scripts (the scroll-to-top one) are allowed; none may come from the document.
    assert page.evaluate(f"Array.from(document.querySelectorAll(\"{MAIN} script\"))"
                         ".filter(s => s.textContent.includes('alert')).length") == 0  # fmt: skip
    assert not [u for u in requests if "127.0.0.1:9/" in u or u.endswith("/x")], "the document's image was fetched"


def test_global_search_offline_answer_links_to_reports(app_url, page, indexed_samples):
    open_page(page, app_url, "/global_search?collection=samples", "Global search")
    box = page.locator(f"{MAIN} textarea").first
    box.wait_for(timeout=60_000)
    box.fill("Who leads the Hanbit space institute?")
    page.get_by_role("button", name="Search").click()
    wait_for_text(page, "Answered by: extractive (no LLM configured)", timeout=180_000)
    wait_for_text(page, "Contributing reports")  # the last section: the page is drawn in order
    # the expander of the answer's points: "The point" for one, "The N points, best first" for more
    page.get_by_text(re.compile(r"^The (point|\d+ points, best first)$")).first.wait_for(timeout=30_000)
    text = page.locator(MAIN).inner_text()
    assert "Extractive answer (no LLM)" in text and "Contributing reports" in text
    links = page.locator(f"{MAIN} a[href*='/reports?collection=samples&community=']")
    assert links.count() >= 1, "the answer cites reports with links"
    page.locator(f"{MAIN} [data-testid='stDataFrame'] canvas").first.wait_for(timeout=30_000)
    # The main area scrolls: show all of it (the grid redraws after the resize).
    screenshot(page, "global_search", viewport={"width": 1400, "height": 2000}, settle_ms=1500)

    cited = page.locator(f"{MAIN} [data-testid='stPageLink'] a").first
    href = cited.get_attribute("href") or ""
    community_id = re.search(r"community=([^&]+)", href).group(1)
    cited.click()
    wait_for_report(page, community_id)
    expect(network_canvas(page)).to_be_visible(timeout=30_000)
