"""The pure builders of ``views``: the pyvis network through its own template, the hierarchy figure, breadcrumbs,
report search/sort, the exports, the cited answer markdown and the document tree. No database, no Streamlit.

The network page's behaviour in a browser (labels drawn as text, tooltips built from text nodes, no dialog, nothing
fetched) is checked by tests/e2e/test_network_page_e2e.py on the same hostile graph."""

from __future__ import annotations

import csv
import dataclasses
import html
import io
import json
import re

import pytest

from core.elements import Element
from core.store.graph_records import Entity, Finding, HierarchyRow, Relationship, Report
from views import answers, network, tree
from views import hierarchy as hv
from views import reports as rv

HOSTILE = "<img src=x onerror=alert(1)>"
SCRIPT = "</script><script>alert(2)</script>"


def entity(i: int, title: str | None = None, *, degree: int = 1, type_: str = "TERM", description: str = "") -> Entity:
    return Entity(id=f"n{i}", human_readable_id=i, title=title or f"Entity {i}", type=type_,
                  description=description or f"About entity {i}.", degree=degree)  # fmt: skip


def relationship(i: int, a: Entity, b: Entity, weight: float = 1.0, description: str = "") -> Relationship:
    return Relationship(id=f"r{i}", human_readable_id=i, source=a.title, target=b.title, source_id=a.id,
                        target_id=b.id, description=description or f"{a.title} and {b.title}",
                        weight=weight)  # fmt: skip


def hostile_graph() -> tuple[list[Entity], list[Relationship]]:
    ents = [
        entity(0, HOSTILE, degree=9, description=f"It says {SCRIPT} and <a href='javascript:alert(3)'>x</a>"),
        entity(1, "Signal Works", degree=5),
        entity(2, "Deep Array", degree=2, type_="PRODUCT"),
        entity(3, "[link](http://127.0.0.1:9/)", degree=1),
    ]
    rels = [
        relationship(0, ents[0], ents[1], 3.0, description=f"{HOSTILE} works with {SCRIPT}"),
        relationship(1, ents[1], ents[2], 1.0),
        relationship(2, ents[2], ents[3], 2.0),
        relationship(3, ents[0], ents[0], 1.0),  # a self-loop is dropped, not drawn
    ]
    return ents, rels


# -- network ----------------------------------------------------------------------------------------------------


def test_network_data_is_the_text_itself():
    """The data is plain text (the template escapes it once, at the page); a self-loop is not drawn."""
    ents, rels = hostile_graph()
    nodes, edges, _physics = network.network_data(ents, rels, sub_community_of={"n0": "c1", "n1": "c1", "n2": "c2"},
                                                  group_labels={"c1": f"c1 · {HOSTILE}"})  # fmt: skip
    by_id = {n["n_id"]: n for n in nodes}
    assert by_id["n0"]["label"] == HOSTILE
    tooltip = by_id["n0"]["title"].split("\n")
    assert tooltip[0] == HOSTILE and tooltip[2] == f"sub-community: c1 · {HOSTILE}"
    assert SCRIPT in tooltip[3]
    assert len(edges) == 3, "the self-loop is dropped"
    assert all(e["title"].startswith(f"{HOSTILE} — Signal Works") for e in edges if e["source"] == "n0")


def embedded_json(page: str, start: str) -> object:
    """The JSON the template wrote after ``start`` (``new vis.DataSet(`` or ``JSON.parse(``), decoded."""
    decoder = json.JSONDecoder()
    value, _end = decoder.raw_decode(page, page.index(start) + len(start))
    return value


def test_network_page_is_offline_and_escaped():
    ents, rels = hostile_graph()
    page = network.community_network_html(ents, rels, sub_community_of={"n0": "c1", "n1": "c1", "n2": "c2"},
                                          group_labels={"c1": f"first {HOSTILE}", "c2": "second"})  # fmt: skip
    # No document text reaches the page as markup: not in the data, not in the legend.
    assert HOSTILE not in page and "<script>alert(2)" not in page and "<a href=" not in page
    # In the data, tojson writes < > & ' as \u escapes (so "</script>" cannot close the script)...
    assert "\\u003cimg src=x onerror=alert(1)\\u003e" in page
    assert "\\u003c/script\\u003e\\u003cscript\\u003ealert(2)" in page
    # ...which decode back to the text itself: the canvas draws the characters.
    nodes = embedded_json(page, "nodes = new vis.DataSet(")
    assert [n["label"] for n in nodes][:1] == [HOSTILE] and all("n_id" not in n for n in nodes)
    # The legend is HTML, escaped once by autoescape.
    assert "first &lt;img src=x onerror=alert(1)&gt;" in page
    # Tooltips are elements built with textContent; pyvis' innerHTML popup is not in our template.
    assert "el.textContent = line" in page and "innerHTML" not in page.split("<body>", 1)[1]
    # vis.js is inlined; nothing is fetched: no src/href to any URL, no bootstrap, no CDN.
    assert "vis.Network" in page and "new vis.DataSet" in page
    assert not re.search(r"<(script|link)[^>]+(src|href)=", page), "a tag loads something"
    assert "cdn.jsdelivr" not in page and "bootstrap" not in page
    assert "data-hke-ready" in page


def test_network_colours_sizes_layout_and_physics():
    ents = [entity(i, degree=i + 1) for i in range(8)]
    rels = [relationship(i, ents[i], ents[i + 1]) for i in range(7)]
    groups = {f"n{i}": "a" if i < 4 else "b" for i in range(7)}  # n7 is in no sub-community
    nodes, _edges, physics = network.network_data(ents, rels, sub_community_of=groups)
    by_id = {n["n_id"]: n for n in nodes}
    assert not physics, "physics is off at every size: the layout is computed in Python"
    assert len({by_id[f"n{i}"]["color"] for i in range(4)}) == 1
    assert by_id["n0"]["color"] != by_id["n5"]["color"]
    assert by_id["n7"]["color"] == network.NO_GROUP
    assert by_id["n7"]["size"] > by_id["n3"]["size"] > by_id["n0"]["size"], "sized by degree"
    assert all(isinstance(n["x"], float) and isinstance(n["y"], float) for n in nodes), "positions precomputed"
    again, _e, _p = network.network_data(ents, rels, sub_community_of=groups)
    assert [(n["x"], n["y"]) for n in again] == [(n["x"], n["y"]) for n in nodes], "the seeded layout is stable"

    big = [entity(i) for i in range(120)]  # above pyvis's own loading-bar size (100) and our threshold
    big_rels = [relationship(i, big[i], big[i + 1]) for i in range(len(big) - 1)]
    nodes, _edges, physics = network.network_data(big, big_rels, sub_community_of={})
    assert not physics and not any(n["physics"] for n in nodes), "a big graph is drawn with physics off"
    page = network.community_network_html(big, big_rels, sub_community_of={})
    options = json.loads(embedded_json(page, "JSON.parse("))
    assert options["physics"]["enabled"] is False and options["physics"]["stabilization"]["enabled"] is False
    assert "loadingBar" not in page, "no loading bar when nothing is simulated"


def test_big_community_shows_hubs_and_folds_the_rest_into_sub_communities():
    from core.graph.communities.layout import COLLAPSE_ABOVE, MAX_HUBS

    n = 300
    big = [entity(i, degree=n - i) for i in range(n)]  # n0 is the biggest hub
    big_rels = [relationship(i, big[i], big[(i * 7 + 1) % n]) for i in range(n) if i != (i * 7 + 1) % n]
    # The last 20 are in no sub-community; the mapping's order differs from the entities' (as children come).
    groups = {f"n{i}": f"e{i % 5}" for i in reversed(range(n - 20))}
    labels = {f"e{k}": f"e{k} · Theme {k}" for k in range(5)}
    nodes, edges, physics = network.network_data(big, big_rels, sub_community_of=groups, group_labels=labels)
    assert n > COLLAPSE_ABOVE and not physics
    entity_nodes = [x for x in nodes if not x["n_id"].startswith("group:")]
    group_nodes = [x for x in nodes if x["n_id"].startswith("group:")]
    assert [x["n_id"] for x in entity_nodes] == [f"n{i}" for i in range(MAX_HUBS)], "the top hubs, labelled"
    assert {x["n_id"] for x in group_nodes} == {f"group:e{k}" for k in range(5)} | {"group:rest"}
    assert any("Theme 3 (+" in x["label"] for x in group_nodes)
    # A group's square has the colour the legend gives it.
    page_colours = network.group_colours(g for i, g in groups.items())
    for x in group_nodes:
        if x["n_id"] != "group:rest":
            assert x["color"] == page_colours[x["n_id"].removeprefix("group:")]
    assert len(nodes) == MAX_HUBS + 6 and len(edges) < len(big_rels) / 2
    keys = {x["n_id"] for x in nodes}
    assert all(e["source"] in keys and e["to"] in keys for e in edges)
    # A precomputed layout (the index's) is used as is; it is not recomputed.
    layout = {key: (float(i), -float(i)) for i, key in enumerate(keys)}
    placed, _e, _p = network.network_data(big, big_rels, sub_community_of=groups, group_labels=labels, layout=layout)
    assert all((x["x"], x["y"]) == layout[x["n_id"]] for x in placed)
    page = network.community_network_html(big, big_rels, sub_community_of=groups, group_labels=labels, layout=layout)
    ents, rels = hostile_graph()
    small = network.community_network_html(ents, rels, sub_community_of={})
    assert len(page) - len(small) < 60_000, "the data of 300 entities stays small beside vis.js itself"


def test_a_part_with_no_edge_to_the_rest_does_not_squeeze_the_layout():
    """A dense component of heavy edges plus parts with no edge to it (seen in python-markdown's changelog
    community): each part is laid out on its own, side by side; nothing is squeezed into a blob."""
    import math

    from core.graph.communities.layout import spring_layout

    hubs = [f"h{i}" for i in range(30)]
    edges = [(a, b, 64.0) for i, a in enumerate(hubs) for b in hubs[i + 1 : i + 4]]
    keys = [*hubs, "group:lonely", "p1", "p2"]
    pos = spring_layout(keys, [*edges, ("p1", "p2", 1.0)])
    assert set(pos) == set(keys)
    points = list(pos.values())
    close = [(a, b) for i, a in enumerate(points) for b in points[i + 1 :] if math.dist(a, b) < 25]
    assert close == [], f"{len(close)} pairs of nodes within 25 px"
    # The big component is laid out exactly as when it is alone; the others stand to its right.
    alone = spring_layout(hubs, edges)
    assert all(pos[h] == alone[h] for h in hubs)
    right_edge = max(x for x, _y in alone.values())
    assert pos["group:lonely"][0] > right_edge and pos["p1"][0] > right_edge and pos["p2"][0] > right_edge
    assert spring_layout(["one"], []) == {"one": (0.0, 0.0)} and spring_layout([], []) == {}


def test_network_groups_by_sub_community_or_type():
    ents = [entity(0, type_="PERSON"), entity(1, type_="PRODUCT"), entity(2, type_="PRODUCT")]

    class Child:
        def __init__(self, id_: str, title: str, entity_ids: list[str]) -> None:
            self.id, self.title, self.entity_ids = id_, title, entity_ids

    kids = [Child("e5", "Five", ["n0", "n1"]), Child("e6", "Six", ["n2"])]
    group_of, labels, what = network.network_groups(ents, kids)
    assert group_of == {"n0": "e5", "n1": "e5", "n2": "e6"} and labels["e5"] == "e5 · Five"
    assert what == "sub-community"
    group_of, labels, what = network.network_groups(ents, [])
    assert group_of == {"n0": "PERSON", "n1": "PRODUCT", "n2": "PRODUCT"} and what == "entity type"


# -- hierarchy --------------------------------------------------------------------------------------------------


def rows() -> list[HierarchyRow]:
    return [
        HierarchyRow("e1", None, 0, f"Root {HOSTILE}", 10, 8.0, "entity", 2),
        HierarchyRow("e2", None, 0, "Other root", 3, 4.5, "entity", 0),
        HierarchyRow("e3", "e1", 1, "Child A", 6, 7.0, "entity", 0),
        HierarchyRow("e4", "e1", 1, "Child B", 7, None, "entity", 0),  # children add up to more than the parent
    ]


def test_hierarchy_figure_sizes_colours_and_ids():
    fig = hv.hierarchy_figure(rows(), selected="e3")
    trace = fig.data[0]
    assert trace.type == "sunburst"
    ids, parents, values = list(trace.ids), list(trace.parents), list(trace.values)
    assert ids[0] == hv.ROOT_ID and parents[0] == ""
    assert dict(zip(ids, parents, strict=True))["e1"] == hv.ROOT_ID
    assert dict(zip(ids, parents, strict=True))["e3"] == "e1"
    value = dict(zip(ids, values, strict=True))
    # branchvalues="total": every parent at least as big as its children, or plotly drops it silently.
    for parent in parents:
        if parent:
            assert value[parent] >= sum(value[c] for c, p in zip(ids, parents, strict=True) if p == parent)
    assert value["e3"] == 6 and "e2" not in value, "only the picked branch is sent"
    assert dict(zip(hv.hierarchy_figure(rows()).data[0].ids, hv.hierarchy_figure(rows()).data[0].values,
                    strict=True))["e2"] == 3  # fmt: skip
    colours = dict(zip(ids, trace.marker.colors, strict=True))
    assert colours["e1"] == 8.0 and colours["e3"] == 7.0
    assert trace.marker.cmin == 0 and trace.marker.cmax == 10
    labels = dict(zip(ids, trace.labels, strict=True))
    assert "&lt;img" in labels["e1"] and HOSTILE not in json.dumps(fig.to_plotly_json()), "labels are escaped"
    widths = dict(zip(ids, trace.marker.line.width, strict=True))
    assert widths["e3"] > widths["e4"], "the selected community is outlined"
    real_size = {c[0]: c[3] for c in trace.customdata}
    assert real_size["e1"] == 10, "the hover shows the real entity count"
    assert hv.hierarchy_figure(rows(), chart="treemap").data[0].type == "treemap"
    # The picked leaf is shown among its siblings (its parent is the centre), with at most two levels below the
    # centre; labels too small to read are hidden.
    assert fig.data[0].level == "e1" and fig.data[0].maxdepth == 3
    assert hv.hierarchy_figure(rows(), selected="e1").data[0].level == "e1"
    assert fig.layout.uniformtext.mode == "hide" and fig.layout.uniformtext.minsize >= 10
    whole = hv.hierarchy_figure(rows())
    assert whole.data[0].level == hv.ROOT_ID and whole.data[0].maxdepth == 3
    with pytest.raises(ValueError):
        hv.hierarchy_figure(rows(), chart="pie")


def test_sector_labels_are_short_escaped_lines():
    """A title too long for one line of a sector is broken at words into at most two short lines, so a sector with
    room for it shows it (plotly hides a label that does not fit at the minimum size)."""
    label = hv.wrapped_label("Nova 32UX, Nova 34WC & Nova 27QX", 40)
    assert label.split("<br>") == ["Nova 32UX,", "Nova 34WC &amp;…"]
    assert all(len(html.unescape(line)) <= hv.LABEL_LINE + 1 for line in label.split("<br>"))
    assert hv.wrapped_label("Warranty", 40) == "Warranty"
    hostile = hv.wrapped_label(HOSTILE, 40)
    assert "<img" not in hostile and "&lt;img" in hostile
    fig = hv.hierarchy_figure([HierarchyRow("e1", None, 0, "Connecting Two Computers with KVM", 4, 5.0, "entity", 0)])
    assert fig.data[0].labels[1] == "Connecting<br>Two Compute…"
    # The outer ring's thin sectors get the title's first name on one line; inner rings the wrapped title.
    two_rings = hv.hierarchy_figure([
        HierarchyRow("e1", None, 0, "Nova 32UX, Nova 34WC & Nova 27QX", 9, 5.0, "entity", 1),
        HierarchyRow("e2", "e1", 1, "Returns and Refunds, Warranty & DOA", 9, 5.0, "entity", 0),
    ])
    labels = dict(zip(two_rings.data[0].ids, two_rings.data[0].labels, strict=True))
    assert labels["e1"] == "Nova 32UX,<br>Nova 34WC &amp;…" and labels["e2"] == "Returns and…"


def test_selected_community_reads_streamlit_click_events():
    # The shape Streamlit 1.67 sends for a click on a sunburst sector (PlotlyChart's hierarchical click handler).
    event = {"selection": {"points": [{"id": "e3", "label": "Child A", "parent": "e1", "current_path": "x/e1/",
                                       "point_number": 3}], "point_indices": [3], "box": [], "lasso": []}}  # fmt: skip
    assert hv.selected_community(event) == "e3"
    assert hv.selected_community({"selection": {"points": [{"id": hv.ROOT_ID}]}}) is None
    assert hv.selected_community({"selection": {"points": []}}) is None
    assert hv.selected_community(None) is None


def test_breadcrumbs_walk_to_the_root():
    assert [r.id for r in hv.breadcrumbs(rows(), "e3")] == ["e1", "e3"]
    assert [r.id for r in hv.breadcrumbs(rows(), "e2")] == ["e2"]
    assert hv.breadcrumbs(rows(), "nope") == []
    loop = [HierarchyRow("a", "b", 0, "A", 1, 1.0, "entity", 1), HierarchyRow("b", "a", 0, "B", 1, 1.0, "entity", 1)]
    assert len(hv.breadcrumbs(loop, "a")) == 2, "a cycle stops instead of looping"


# -- search, sort, export ---------------------------------------------------------------------------------------


def report(cid: str, title: str, *, rating: float = 5.0, size: int = 3, findings=(), summary: str = "") -> Report:
    return Report(community_id=cid, kind="entity", level=1, title=title, summary=summary or f"About {title}.",
                  rating=rating, rating_explanation="Because.", findings=list(findings), full_content="",
                  generated_by="extractive", parent="e1", children=["e9"], size=size)  # fmt: skip


def sample_reports() -> list[Report]:
    return [
        report("e2", "Satellites", rating=9.0, size=4,
               findings=[Finding("Orbit", "The orbit is sun-synchronous.", entity_ids=["n1"])]),
        report("e10", "Monitors", rating=6.0, size=12, summary="HDMI and DisplayPort ports."),
        report("e3", HOSTILE, rating=6.0, size=2,
               findings=[Finding("=HYPERLINK(\"http://x\")", "![x](http://127.0.0.1:9/p.png)")]),
    ]  # fmt: skip


def test_filter_and_sort_reports():
    reports = sample_reports()
    assert [r.community_id for r in rv.filter_reports(reports, query="sun-SYNCHRONOUS")] == ["e2"], "findings searched"
    assert [r.community_id for r in rv.filter_reports(reports, query="hdmi displayport")] == ["e10"]
    assert rv.filter_reports(reports, query="hdmi orbit") == [], "every word must match"
    members = {"e2": ["n1", "n2"], "e10": ["n3"], "e3": []}
    assert [r.community_id for r in rv.filter_reports(reports, entity_id="n3", members=members)] == ["e10"]
    assert [r.community_id for r in rv.filter_reports(reports, entity_id="n1", members={})] == ["e2"], "cited"
    assert [r.community_id for r in rv.sort_reports(reports, "rating")] == ["e2", "e10", "e3"]
    assert [r.community_id for r in rv.sort_reports(reports, "size")] == ["e10", "e2", "e3"]
    assert [r.community_id for r in rv.sort_reports(reports, "title")][0] == "e3"  # "<" sorts first
    with pytest.raises(ValueError):
        rv.sort_reports(reports, "colour")


def test_exports_markdown_json_csv():
    reports = sample_reports()
    md = rv.reports_markdown(reports, heading="samples: level 1")
    assert md.startswith("# samples\\: level 1\n")
    assert HOSTILE not in md and "\\<img src\\=x onerror\\=alert\\(1\\)\\>" in md, "report text is escaped"
    assert "![x](http" not in md, "no remote image in a previewer"
    assert "extractive (no LLM configured)" in md
    data = json.loads(rv.reports_json(reports, meta={"level": 1}))
    assert data["meta"] == {"level": 1} and [r["community_id"] for r in data["reports"]] == ["e2", "e10", "e3"]
    assert data["reports"][2]["title"] == HOSTILE, "JSON keeps the data exactly"
    rows_ = list(csv.DictReader(io.StringIO(rv.reports_csv(reports))))
    assert list(rows_[0]) == list(rv.CSV_COLUMNS) and len(rows_) == 3
    assert rows_[0]["children"] == "e9" and json.loads(rows_[0]["findings"])[0]["summary"] == "Orbit"
    hostile = dataclasses.replace(reports[0], title='=HYPERLINK("http://x")', summary="-2+3", parent="@x")
    cells = next(csv.DictReader(io.StringIO(rv.reports_csv([hostile]))))
    assert (cells["title"], cells["summary"], cells["parent"]) == ("'=HYPERLINK(\"http://x\")", "'-2+3", "'@x"), \
        "a formula cell is made text"
    assert rv.export_filename("my coll/../x", "entity", 2, "csv") == "my_coll_.._x-entity-level2-reports.csv"


def test_cited_answer_markdown_links_known_reports_only():
    text = (f"Intro with {HOSTILE}.\n\n- **Point one** — text [Data: Reports (e2, e99, +more)]\n"
            "- ![x](http://127.0.0.1:9/p.png) [Data: Reports (e3)]")  # fmt: skip
    md = answers.cited_answer_markdown(text, {"e2", "e3"}, lambda rid: f"/reports?community={rid}")
    assert "[e2](/reports?community=e2)" in md and "[e3](/reports?community=e3)" in md
    assert "e99" in md and "(/reports?community=e99)" not in md, "unknown ids are not links"
    assert HOSTILE not in md and "\\<img" in md
    assert "![x](http" not in md
    assert "\n- **Point one**" in md, "lists and bold survive the escaping"


# -- document tree ----------------------------------------------------------------------------------------------


def tree_element(i: int, text: str, category: str, parent: int | None, **extra: object) -> Element:
    return Element(f"{i:032x}", text, f"{parent:032x}" if parent is not None else None, category, order=i,
                   extra=extra)


def hostile_tree() -> list[Element]:
    return [
        tree_element(0, f"Title {HOSTILE}", "Title", None),
        tree_element(1, f"Para {SCRIPT}", "NarrativeText", 0),
        tree_element(2, "print('<b>')\n  indented", "CodeSnippet", 0),
        tree_element(3, f"| a | b |\n|---|---|\n| {HOSTILE} | 2 |", "Table", 0, text_as_html=f"<table>{HOSTILE}"),
        tree_element(4, "Deeper", "Title", 0),
        tree_element(5, "needle here", "ListItem", 4),
        tree_element(6, "Other root", "Title", None),
    ]


def test_tree_page_escapes_every_piece_of_document_text():
    page = tree.render_tree_html(hostile_tree())
    assert HOSTILE not in page and "<script>alert(2)" not in page and "<b>" not in page
    assert "Title &lt;img src=x onerror=alert(1)&gt;" in page
    assert "Para &lt;/script&gt;&lt;script&gt;alert(2)&lt;/script&gt;" in page
    assert "<pre>print(&#39;&lt;b&gt;&#39;)\n  indented</pre>" in page, "code keeps its lines"
    # A table is rebuilt from its markdown cells; the stored text_as_html is never used.
    assert "<table><tr><td>a</td><td>b</td></tr><tr><td>&lt;img src=x onerror=alert(1)&gt;</td><td>2</td></tr>" in page
    assert "<script>" not in page, "no script without a highlight"


def test_tree_structure_search_and_highlight():
    elements = hostile_tree()
    steps = tree.tree_steps(elements, open_depth=1)
    assert [(s.kind, s.element.element_id[-1] if s.element else None, s.is_open) for s in steps] == [
        ("open", "0", True), ("leaf", "1", False), ("leaf", "2", False), ("leaf", "3", False),
        ("open", "4", False), ("leaf", "5", False), ("close", None, False), ("close", None, False),
        ("leaf", "6", False),
    ]  # fmt: skip
    # A highlighted element opens its ancestors, is marked, and the page scrolls to it.
    target = f"{5:032x}"
    steps = tree.tree_steps(elements, highlight=[target], open_depth=0)
    assert [s.is_open for s in steps if s.kind == "open"] == [True, True]
    page = tree.render_tree_html(elements, highlight=[target])
    assert f'<span id="e-{target}" class="hit">' in page and "scrollTo" in page
    # A search shows the matches and their ancestors only, opened.
    assert tree.visible_ids(elements, "NEEDLE") == {f"{0:032x}", f"{4:032x}", target}
    page = tree.render_tree_html(elements, query="needle")
    assert "Other root" not in page and "Para" not in page and 'class="match"' in page
    assert "No element matches." in tree.render_tree_html(elements, query="zzz")
    assert tree.visible_ids(elements, "  ") is None


def test_tree_walk_survives_nesting_deeper_than_the_recursion_limit():
    deep = [tree_element(i, f"level {i}", "Title", i - 1 if i else None) for i in range(3000)]
    page = tree.render_tree_html(deep, open_depth=0)
    assert page.count("<details") == 2999 and page.count("</details>") == 2999


# -- the ingest summary and table (Overview page) --


def _ingest_report(statuses: list[tuple[str, str]]):
    from core.ingest.report import FileResult, IngestReport

    report = IngestReport(seconds=1.25)
    for path, status in statuses:
        report.record(FileResult(path, status, elements=0 if status == "error" else 4,
                                 reason="not UTF-8" if status == "error" else None))  # fmt: skip
    return report


@pytest.mark.parametrize(
    ("statuses", "level", "expected", "absent"),
    [
        ([("upload:a.md", "error")], "error", "The file could not be ingested; nothing was stored.", "the other"),
        ([("upload:a.md", "error"), ("upload:b.md", "error")], "error",
         "None of the 2 files could be ingested; nothing was stored.", "the other"),
        ([("upload:a.md", "error"), ("upload:b.md", "added")], "warning",
         "1 file could not be ingested; the other document was: 1 added, 0 replaced, 0 unchanged.", "None of"),
        ([("upload:a.md", "error"), ("upload:b.md", "added"), ("upload:c.md", "unchanged")], "warning",
         "1 file could not be ingested; the other 2 documents were: 1 added, 0 replaced, 1 unchanged.", "1 document"),
        ([("upload:a.md", "added"), ("upload:b.md", "unchanged")], "success",
         "2 documents: 1 added, 0 replaced, 1 unchanged; 4 elements written in 1.2s.", "could not"),
    ],
    ids=["one-failed", "all-failed", "one-other", "two-others", "none-failed"],
)
def test_ingest_summary_counts_only_what_happened(statuses, level, expected, absent):
    from views.ingest import ingest_summary

    got_level, message = ingest_summary(_ingest_report(statuses))
    assert got_level == level
    assert expected in message, message
    assert absent not in message


def test_ingest_table_shows_file_names_not_server_paths():
    from views.ingest import file_rows

    report = _ingest_report([("/srv/hke/corpora/docs/index.md", "added"),
                             ("/srv/hke/corpora/docs/extensions/index.md", "added"),
                             ("/srv/hke/corpora/docs/change_log/release-3.7.md", "error"),
                             ("upload:notes.md", "added")])
    assert [r["file"] for r in file_rows(report)] == ["index.md", "extensions/index.md", "change_log/release-3.7.md",
                                                          "notes.md"]
    report = _ingest_report([("/srv/hke/corpora/docs/a.md", "added"), ("/srv/hke/corpora/docs/sub/b.md", "added")])
    assert [r["file"] for r in file_rows(report)] == ["a.md", "sub/b.md"]
    assert not any("/srv" in str(r) for r in file_rows(report))


# -- wording (issue 33, item 6) --


def test_search_placeholders_come_from_the_collections_own_words():
    from views.placeholders import example_terms

    assert example_terms(["Installation", "`markdown.extensions.toc`", "Usage", "Options"], "x") == \
        "e.g. Installation, markdown.extensions.toc, Usage"
    # sentences and repeats are not search terms; nothing usable gives the fallback
    assert example_terms(["How do I install the package on Windows?", "usage", "Usage"], "any word") == "e.g. usage"
    assert example_terms([], "a word or a phrase") == "a word or a phrase"


def test_read_at_tells_two_documents_of_one_file_name_apart():
    from views.versions import distinct_names

    sources = ["/srv/hke/docs/index.md", "/srv/hke/docs/api/index.md", "/srv/hke/docs/faq.md"]
    assert distinct_names(sources, ["index.md", "index.md", "faq.md"]) == ["index.md", "api/index.md", "faq.md"]
    assert distinct_names(["/a/x.md", "/b/y.md"], ["x.md", "y.md"]) == ["x.md", "y.md"]


def test_evaluation_modes_are_named_in_the_compare_pages_words():
    from core.evaluation.mode_names import ALL_MODES, mode_label

    assert mode_label("plain") == "Plain · vector search"
    assert mode_label("hierarchical") == "Hierarchical · vector search, whole collection"
    assert mode_label("hybrid") == "Hierarchical · hybrid search, whole collection"
    assert mode_label("default").startswith("Hierarchical · default search")
    assert len({mode_label(m) for m in ALL_MODES}) == len(ALL_MODES)


def test_a_table_with_nothing_to_rank_says_so_in_plain_words():
    from core.answering import prompts

    assert prompts.TABLE_NOTHING_TO_RANK == "(Not ranked: fewer than two of these values are amounts that can be " \
                                           "compared.)"


def test_a_moved_document_is_shown_below_the_folder_both_paths_share_never_the_servers_folders():
    from views.versions import _relative_pair

    assert _relative_pair("/srv/docs/src/about/release.md", "/srv/docs/src/about/releases/7.0.md") == (
        "release.md", "releases/7.0.md")
    assert _relative_pair("/srv/docs/a.md", "b.md") == ("/srv/docs/a.md", "b.md")  # nothing shared: as stored
