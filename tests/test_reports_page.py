"""The Community reports page under Streamlit's AppTest, against the real database: the empty states, building the
index from the page, browsing the sample corpus by hierarchy and level, opening a report, drilling down and back
up, citations that open the Document tree, and a hostile entity name that stays text in cards, tables and graph."""

from __future__ import annotations

import json
import time
import uuid

import pytest
from streamlit.testing.v1 import AppTest

from core.graph import IndexConfig, build_index, community_subgraph, hierarchy, index_exists, levels, load_reports
from core.store import ElementStore
from core.store.jobs import JobTables

from .conftest import ROOT
from .helpers_pages import ingested_store, unescape, walk

APP = str(ROOT / "app.py")
HOSTILE_NAME = "<img src=x onerror=alert(1)>"
# Offline extraction takes **bold** text as entities: the hostile name becomes an entity, in communities whose
# titles, summaries and findings quote it.
HOSTILE_DOC = f"""\
# Hostile Research Lab

The **{HOSTILE_NAME}** team works with **Orbital Dynamics** and **Signal Works** on the **Deep Array** project.

## Partners

- **Orbital Dynamics** builds the **Deep Array** antenna with the **{HOSTILE_NAME}** team.
- **Signal Works** tests **Deep Array** receivers; see ![x](http://127.0.0.1:9/pixel.png).
- **Orbital Dynamics** and **Signal Works** share the **{HOSTILE_NAME}** lab.

## Results

The **Deep Array** project reached first light, logged by **Signal Works** and **{HOSTILE_NAME}**.
"""


def ensure_samples_index(store: ElementStore) -> ElementStore:
    """The sample corpus indexed offline, built only when missing (every offline build writes the same index)."""
    if not index_exists(store):
        build_index(store, config=IndexConfig(extraction="offline", reports="extractive"))
    return store


@pytest.fixture
def samples_index(samples_store):
    return ensure_samples_index(samples_store)


@pytest.fixture(scope="module")
def hostile_store(db_url, use_embeddings):
    """A collection holding the hostile document, ingested but not indexed (tests build the index)."""
    with ingested_store(db_url, use_embeddings, "hostile_rep", {"hostile.md": HOSTILE_DOC}) as store:
        yield store


def reports_page(collection: str, community: str | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=300)
    at.session_state["collection"] = collection
    if community:
        at.query_params["community"] = community
    at.switch_page("pages/reports.py")
    return at


def texts(at: AppTest) -> str:
    parts = [m.value for m in at.markdown] + [m.value for m in at.info] + [m.value for m in at.caption]
    parts += [m.value for m in at.success] + [m.value for m in at.warning] + [m.value for m in at.error]
    parts += [s.value for s in at.subheader]
    return "\n".join(str(p) for p in parts)


def button(at: AppTest, key: str):
    return next(b for b in at.button if b.key == key)


def opened(at: AppTest) -> str | None:
    """The open report: ``?community=`` (AppTest may hold query parameters as lists)."""
    value = at.query_params.get("community")
    return value[0] if isinstance(value, list) and value else value or None


def frame_data(at: AppTest) -> dict:
    """What the network's sandboxed frame component (``views.frames``) is given."""
    frames = [e for e in walk(at._tree) if getattr(e, "type", None) == "bidi_component"
              and e.proto.component_name == "hke_sandboxed_page"]  # fmt: skip
    assert frames, "the network frame is missing"
    data = json.loads(frames[0].proto.json)
    assert data["title"].startswith("Network of community")
    return data


def iframe_srcdoc(at: AppTest) -> str:
    """The network page the sandboxed frame is given as ``srcdoc``."""
    return frame_data(at)["html"]


# -- empty states -----------------------------------------------------------------------------------------------


def test_no_documents_empty_state(db_url):
    at = reports_page(f"empty_{uuid.uuid4().hex[:8]}").run()
    assert not at.exception
    assert "No documents in" in texts(at) and "Ingest the samples" in texts(at)


def test_no_index_empty_state_then_build_from_the_page(hostile_store):
    at = reports_page(hostile_store.collection).run()
    assert not at.exception
    assert "No index yet: click Build index" in texts(at)
    # The main area only: the sidebar lists running jobs of every collection (another test's, in parallel).
    assert [b.label for b in at.main.button] == ["Build index"]
    assert not at.get("plotly_chart"), "nothing else is drawn before an index exists"

    button(at, "reports_build").click().run()
    assert not at.exception, at.exception
    # The build is a background job of the app's process: the page says so (unless it already ended), then
    # shows the index once the job has written it.
    [job] = JobTables(hostile_store.url).list(hostile_store.collection, limit=5)
    assert job.kind == "index"
    assert "being built in the background" in texts(at) or not job.active, texts(at)
    for _ in range(600):
        if not JobTables(hostile_store.url).get(job.job_id).active:
            break
        time.sleep(0.1)
    at.run()
    assert index_exists(hostile_store)
    assert any("Index built in" in s.value for s in at.success), texts(at)
    assert any(b.key.startswith("open_") for b in at.button), "report cards appear after the build"


def test_an_llm_build_shows_its_estimate_and_needs_a_second_click(store, monkeypatch):
    from core.ingest import ingest_paths

    ingest_paths(store, [ROOT / "data" / "samples" / "nova-32ux-monitor-en.md"])
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-used")  # an LLM is configured; no call is made here
    at = reports_page(store.collection).run()
    button(at, "reports_build").click().run()
    assert not at.exception, at.exception
    warning = " ".join(unescape(w.value) for w in at.warning)
    assert "LLM calls" in warning and "US$" in warning and "Click Build index again" in warning
    assert not index_exists(store), "the first click only estimates"


# -- the sample corpus ------------------------------------------------------------------------------------------


def test_levels_cards_sorting_and_search(samples_index):
    at = reports_page("samples").run()
    assert not at.exception, at.exception
    counts = levels(samples_index, "entity")
    level_box = at.selectbox(key="reports_level_entity")
    assert level_box.options and len(level_box.options) == len(counts)
    assert at.get("plotly_chart"), "the hierarchy sunburst is on the page"
    assert len(at.get("download_button")) == 3, "Markdown, JSON and CSV exports"

    at.selectbox(key="reports_level_entity").set_value(1).run()
    assert not at.exception
    opens = [b for b in at.button if b.key.startswith("open_")]
    assert len(opens) == min(counts[1], 24)
    expected = load_reports(samples_index, level=1, kind="entity")
    best = max(expected, key=lambda r: (r.rating, r.size))
    assert opens[0].key == f"open_{best.community_id}", "sorted by rating, best first"
    assert f"{counts[1]} of {counts[1]} reports at level 1" in texts(at)
    assert "extractive (no LLM configured)" in texts(at)

    at.radio(key="reports_sort").set_value("size").run()
    biggest = max(expected, key=lambda r: (r.size, r.rating))
    assert [b for b in at.button if b.key.startswith("open_")][0].key == f"open_{biggest.community_id}"

    at.text_input(key="reports_query").input("zzz-nothing-matches").run()
    assert any("No report at this level matches" in w.value for w in at.warning)
    at.text_input(key="reports_query").input("위성").run()
    shown = [b.key.removeprefix("open_") for b in at.button if b.key.startswith("open_")]
    assert shown and len(shown) < counts[1]
    by_id = {r.community_id: r for r in expected}
    from views.reports import report_text

    assert all("위성" in report_text(by_id[c]) for c in shown), "every card found contains the words"


def test_entity_filter(samples_index):
    at = reports_page("samples").run()
    box = at.selectbox(key="reports_entity")
    entity_id = box.options[1]  # the most connected entity at level 0
    at.selectbox(key="reports_entity").set_value(entity_id).run()
    assert not at.exception
    shown = [b for b in at.button if b.key.startswith("open_")]
    assert 1 <= len(shown) < len(levels(samples_index, "entity")) + 1


def test_open_a_report_follow_a_child_and_go_back_up(samples_index):
    rows = hierarchy(samples_index, "entity")
    parent = next(r for r in rows if r.level == 0 and r.n_children >= 2)
    parent_ents, parent_rels = (len(x) for x in community_subgraph(samples_index, parent.id))
    at = reports_page("samples").run()
    button(at, f"open_{parent.id}").click().run()
    assert not at.exception, at.exception
    assert opened(at) == parent.id
    assert at.subheader and unescape(at.subheader[0].value) == parent.title
    labels = {m.label: m.value for m in at.metric}
    assert labels["Entities"] == str(parent.size) and "/ 10" in labels["Rating"]
    page = texts(at)
    assert "#### Findings" in page and "Why this rating" in page
    assert "/document_tree?collection=samples&element=" in page, "source elements link to the Document tree"
    assert "Entities: " in page and "Relationships: " in page, "citations resolve to entities and relationships"
    # The tables: only the open tab's is built and sent; the other one comes when its tab is picked.
    assert [t.label for t in at.tabs] == [f"Entities ({parent_ents})", f"Relationships ({parent_rels})"]
    assert len(at.dataframe) == 1 and "entity" in at.dataframe[0].value.columns
    at.session_state["report_tables"] = f"Relationships ({parent_rels})"  # what a click on the tab does
    at.run()
    assert len(at.dataframe) == 1 and list(at.dataframe[0].value.columns)[:2] == ["source", "target"]
    assert len(at.dataframe[0].value) == parent_rels
    srcdoc = iframe_srcdoc(at)
    assert "new vis.Network" in srcdoc and "cdn.jsdelivr" not in srcdoc
    children = [b for b in at.button if b.key.startswith("child_")]
    assert len(children) == parent.n_children

    child_id = children[0].key.removeprefix("child_")
    children[0].click().run()
    assert not at.exception
    assert opened(at) == child_id
    child = next(r for r in rows if r.id == child_id)
    assert unescape(at.subheader[0].value) == child.title
    assert at.selectbox(key="reports_level_entity").value == child.level, "the level picker follows the open report"
    crumbs = [b.key for b in at.button if b.key.startswith("crumb_")]
    assert crumbs == ["crumb_all", f"crumb_{parent.id}"], "breadcrumbs: all › parent › (this)"

    button(at, f"crumb_{parent.id}").click().run()
    assert opened(at) == parent.id
    assert unescape(at.subheader[0].value) == parent.title
    button(at, "crumb_all").click().run()
    assert opened(at) is None
    assert any(b.key.startswith("open_") for b in at.button), "back to the cards"


def test_deep_link_opens_a_structural_report_and_syncs_the_pickers(samples_index):
    doc = next(r for r in hierarchy(samples_index, "structural") if r.level == 0)
    at = reports_page("samples", community=doc.id).run()
    assert not at.exception, at.exception
    assert at.radio(key="reports_kind").value == "structural"
    assert at.selectbox(key="reports_level_structural").value == 0
    # The level picker names structural levels, not the entity hierarchy's (a shared picker kept stale labels).
    assert "(documents)" in at.selectbox(key="reports_level_structural").options[0]
    assert unescape(at.subheader[0].value) == doc.title
    assert "Structural community" in texts(at)
    # The jump box beside the sunburst opens another community (the sunburst click does the same in a browser).
    target = next(r for r in hierarchy(samples_index, "structural") if r.parent == doc.id)
    at.selectbox(key="reports_jump").set_value(target.id).run()
    assert opened(at) == target.id
    assert unescape(at.subheader[0].value) == target.title
    at.radio(key="reports_kind").set_value("entity").run()
    assert "(coarsest)" in at.selectbox(key="reports_level_entity").options[0]


def test_a_tab_opening_a_report_first_draws_its_chart_in_the_rerun_its_network_asks_for(samples_index):
    """A tab's first run with a report open leaves the hierarchy chart out (the browser's first plotly chart would
    hold the findings and the network back) and asks the network's frame for a rerun once loaded; that run, and
    every later one, draws the chart. The browser side: tests/e2e/test_reports_e2e.py."""
    rows = hierarchy(samples_index, "entity")
    parent = next(r for r in rows if r.level == 0 and r.n_children >= 2)
    child = next(r for r in rows if r.parent == parent.id)
    at = reports_page("samples", community=parent.id).run()
    assert not at.exception, at.exception
    assert "#### Findings" in texts(at) and len(at.dataframe) == 1, "the report itself is all there"
    assert frame_data(at)["rerun_when_loaded"] is True
    assert not at.get("plotly_chart"), "the chart waits for the network"
    assert "The chart is drawn once the network is on screen…" in texts(at)
    assert at.selectbox(key="reports_jump").options, "the jump box beside the chart is there already"

    at.run()  # what the frame's load trigger does
    assert not at.exception, at.exception
    assert at.get("plotly_chart"), "the rerun draws the chart"
    assert frame_data(at)["rerun_when_loaded"] is False, "one rerun per tab, not one per run"
    button(at, f"child_{child.id}").click().run()
    assert at.get("plotly_chart") and frame_data(at)["rerun_when_loaded"] is False


def test_unknown_community_says_so(samples_index):
    at = reports_page("samples", community="e99999").run()
    assert not at.exception
    assert any("There is no community e99999" in w.value for w in at.warning)


# -- hostile text -----------------------------------------------------------------------------------------------


def test_hostile_entity_name_is_text_in_cards_tables_and_graph(hostile_store):
    if not index_exists(hostile_store):
        build_index(hostile_store, config=IndexConfig(extraction="offline", reports="extractive"))
    reports = load_reports(hostile_store, kind="entity")
    target = next(r for r in reports if HOSTILE_NAME in r.title or HOSTILE_NAME in r.summary)
    at = reports_page(hostile_store.collection).run()
    assert not at.exception, at.exception
    bodies = [m.value for m in at.markdown]
    assert any(HOSTILE_NAME in unescape(b) for b in bodies), "the card shows the name as literal text"
    assert not any(HOSTILE_NAME in b for b in bodies), "…and never as raw markup"

    button(at, f"open_{target.community_id}").click().run()
    assert not at.exception, at.exception
    names = at.dataframe[0].value["entity"].tolist()
    assert HOSTILE_NAME in names, "the entity table holds the exact name"
    srcdoc = iframe_srcdoc(at)
    assert HOSTILE_NAME not in srcdoc, "the raw tag never reaches the network page"
    # The label is in the script's data with < and > as JSON escapes (the browser test checks it is drawn as text).
    assert "\\u003cimg src=x onerror=alert(1)\\u003e" in srcdoc, "the label is there, escaped"
    assert "![x](http" not in "".join(m.value for m in at.markdown), "no remote image in any markdown"


def test_switching_collection_closes_the_open_report(samples_index, hostile_store):
    at = reports_page("samples").run()
    first = next(b for b in at.button if b.key.startswith("open_"))
    first.click().run()
    assert opened(at) == first.key.removeprefix("open_")
    # Ids such as e1 exist in every collection: the old report must not turn into the new collection's namesake.
    # What the sidebar's Collection box does (AppTest reruns the page without app.py's sidebar, so set it directly).
    at.session_state["collection"] = hostile_store.collection
    at.run()
    assert not at.exception, at.exception
    assert opened(at) is None


# -- versions ---------------------------------------------------------------------------------------------------


def test_a_document_changed_since_the_index_is_named_and_its_stale_findings_are_withheld(db_url, use_embeddings):
    from core.ingest import SourceFile, ingest

    sentence = "reached first light"
    changed = HOSTILE_DOC.replace(sentence, "was cancelled before first light")
    with ingested_store(db_url, use_embeddings, "stale_rep", {"lab.md": HOSTILE_DOC}) as store:
        build_index(store, config=IndexConfig(extraction="offline", reports="extractive"))
        quoting = next(r for r in load_reports(store, kind=None)
                       if any(sentence in f.summary + f.explanation for f in r.findings))
        at = reports_page(store.collection, quoting.community_id).run()
        assert not at.exception, at.exception
        assert "changed since this index was built" not in texts(at)
        assert sentence in unescape(texts(at)), "the open report quotes the sentence that will change"

        assert not ingest(store, [SourceFile("lab.md", changed.encode())]).errors
        at = reports_page(store.collection, quoting.community_id).run()
        assert not at.exception, at.exception
        page = unescape(texts(at))
        assert "1 document changed since this index was built:** lab.md (v1 → v2)" in page, page
        assert "Summary withheld" in page
        assert sentence not in page, "retired text never shows in current mode"
