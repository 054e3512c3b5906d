"""The Compare page under Streamlit's AppTest, against the real database: both answers side by side, sources
linking to the tree, what the hierarchy added, scopes, a failing LLM column, and hostile document text."""

from __future__ import annotations

import json
import re
import uuid

import pytest
from streamlit.testing.v1 import AppTest

from core.ingest import SourceFile, ingest
from core.store import ElementStore

from .conftest import ROOT
from .helpers_pages import ingested_store, unescape, walk
from .test_llm_stub import Stub

APP = str(ROOT / "app.py")
QUESTIONS = {q["id"]: q for q in json.loads((ROOT / "data" / "questions.json").read_text("utf-8"))["questions"]}

HOSTILE = """\
# Hostile <script>alert('title')</script> Monitor
## Specs
* Weight : 9.9 kg <script>alert('weight')</script>
* Photo : <img src=x onerror=alert(1)> ![tracker](http://127.0.0.1:9/pixel.png)
* Colour : `$x$ :red[boom] [click](http://127.0.0.1:9/)`

<script>alert('block')</script>
"""


def compare_page(collection: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=300)
    at.session_state["collection"] = collection
    at.switch_page("pages/compare.py")
    return at


def ask(at: AppTest, question: str, k: int | None = None) -> AppTest:
    at.text_area(key="compare_question").input(question)
    if k is not None:
        at.slider(key="compare_k").set_value(k)
    next(b for b in at.button if getattr(b, "label", None) == "Ask").click()
    return at.run()


def markdown_bodies(at: AppTest) -> list[str]:
    return [e.proto.body for e in walk(at._tree) if getattr(getattr(e, "proto", None), "body", None) is not None
            and hasattr(e.proto, "allow_html")]


@pytest.fixture(scope="module")
def hostile_collection(db_url, use_embeddings):
    with ingested_store(db_url, use_embeddings, "hostile", {"hostile.md": HOSTILE}) as store:
        yield store.collection


def test_asking_shows_both_answers_side_by_side(samples_store):
    q = QUESTIONS["q05"]
    at = compare_page("samples").run()
    assert not at.exception
    assert any("Ask a question" in i.value for i in at.info)
    at = ask(at, q["question"])
    assert not at.exception, at.exception
    assert [s.value for s in at.subheader][:3] == ["Plain", "Hierarchical", "What the hierarchy added"]
    bodies = markdown_bodies(at)
    answers = [b for b in bodies if "“" in b and "[e\\:" in b]  # the extractive answers: value, then its quote
    assert len(answers) == 2, answers
    plain, hierarchical = answers
    assert q["gold_path"][0].split()[1] in hierarchical  # "Nova" … the product's own heading (escaped text)
    assert "24FL" in hierarchical and "24FL" not in plain.split("\n")[0].replace("Nova 24FL과", "")
    captions = unescape(" ".join(c.value for c in at.caption))
    assert captions.count("Answered by: extractive (no LLM configured)") == 2
    metrics = [m for m in at.metric if m.label == "Context tokens"]
    assert len(metrics) == 2 and int(metrics[1].value) > int(metrics[0].value)
    assert len(at.get("plotly_chart")) == 2, "one latency chart per column"
    # Sources link to the Document tree with the full element id highlighted.
    links = re.findall(r"\]\((/document_tree\?collection=samples&element=([0-9a-f]{32}))\)", "\n".join(bodies))
    ids = {element_id for _, element_id in links}
    assert len(ids) >= 4 and all(samples_store.get([i]) for i in ids)
    # What the hierarchy added: every hit with the heading path only the hierarchical context has.
    table = at.dataframe[1].value  # [0] is the hits both columns share
    assert len(table) == 4 and any(q["gold_path"][0] in path for path in table.iloc[:, 1])
    assert at.get("download_button"), "the comparison can be downloaded as JSON"


def test_the_answer_survives_a_rerun_without_asking_again(samples_store):
    at = ask(compare_page("samples").run(), QUESTIONS["q06"]["question"])
    calls = at.session_state["comparison"].created_at
    at.run()  # any widget interaction reruns the page
    assert not at.exception
    assert at.session_state["comparison"].created_at == calls
    assert [s.value for s in at.subheader][:2] == ["Plain", "Hierarchical"]


def test_scope_picker_restricts_sources_to_one_document(samples_store):
    doc = next(d for d in samples_store.documents() if d.filename == "nova-service-centers-ko.md")
    at = compare_page("samples").run()
    at.radio(key="compare_scope_kind").set_value("One document").run()
    at.selectbox(key="compare_scope_doc").set_value(doc.document_id).run()
    at = ask(at, "Nova 27QX 모니터의 무게는?", k=3)
    assert not at.exception
    comparison = at.session_state["comparison"]
    assert comparison.scope.kind == "document" and comparison.scope.id == doc.document_id
    for mode in ("plain", "hierarchical"):
        assert {s.document_id for s in comparison.results[mode].sources} == {doc.document_id}


def test_heading_subtree_scope(samples_store):
    doc = next(d for d in samples_store.documents() if d.filename == "nova-27qx-monitor-ko.md")
    heading = next(e for e in samples_store.elements(doc.document_id) if e.page_content == "크기 & 무게")
    at = compare_page("samples").run()
    at.radio(key="compare_scope_kind").set_value("One heading subtree").run()
    at.selectbox(key="compare_scope_doc").set_value(doc.document_id).run()
    at.selectbox(key="compare_scope_heading").set_value(heading.metadata["element_id"]).run()
    at = ask(at, "HDMI 단자", k=3)
    hits = at.session_state["comparison"].hits
    assert len(hits) == 3
    assert all("크기 & 무게" in (*h.path, h.text) for h in hits), "every hit is the heading or below it"


def test_example_questions_fill_the_question_box(samples_store):
    at = compare_page("samples").run()
    example = QUESTIONS["q10"]["question"]
    at.selectbox(key="compare_example").set_value(example).run()
    assert at.text_area(key="compare_question").value == example


def test_a_failing_llm_column_does_not_hide_the_other(samples_store, monkeypatch):
    too_long = {"status": 400, "error": {"message": "context_length_exceeded"}}
    with Stub([too_long, {"reply": "Hierarchical answer [e:00000000]."}]) as stub:
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test-NeverShowThis0000")
        monkeypatch.setenv("OPENAI_BASE_URL", stub.base_url)
        monkeypatch.setenv("HKE_CHAT_MODEL", "stub-model")
        at = ask(compare_page("samples").run(), QUESTIONS["q06"]["question"])
    assert not at.exception
    # The server's words are shown escaped (they can carry anything): read back as the user sees them.
    assert len(at.error) == 1 and "refused the request (400): Error code: 400" in unescape(at.error[0].value)
    assert "\\(400\\)" in at.error[0].value, "escaped: a server reply is not markdown"
    assert any(b.startswith("Hierarchical answer") for b in markdown_bodies(at))
    everything = "\n".join(markdown_bodies(at) + [e.value for e in at.error])
    assert "NeverShowThis" not in everything


def test_hostile_document_text_is_shown_as_text(hostile_collection):
    at = ask(compare_page(hostile_collection).run(), "How heavy is the hostile monitor?", k=6)
    assert not at.exception
    elements = [e for e in walk(at._tree) if hasattr(getattr(e, "proto", None), "allow_html")]
    assert elements and not any(e.proto.allow_html for e in elements), "no markdown may allow raw HTML"
    bodies = markdown_bodies(at)
    text = "\n".join(bodies)
    assert "\\<script\\>alert" in text, "the script tag is shown, escaped"
    # The raw HTML block is in the context only as a fenced code block, which markdown shows literally.
    assert "```html\n<script>alert('block')</script>\n```" in text
    for body in bodies:
        prose = re.sub(r"```html\n.*?\n```", "", body, flags=re.S)
        assert not re.search(r"(?<!\\)<(script|img)", prose), body
        assert not re.search(r"(?<!\\)!\[", prose) and "(http://127.0.0.1:9" not in prose
        assert not re.search(r"(?<!\\)(\$x|:red\[)", prose)


def test_empty_collection_shows_what_to_do(db_url):
    at = compare_page(f"empty_{uuid.uuid4().hex[:8]}").run()
    assert not at.exception
    assert any("No documents in collection" in i.value for i in at.info)


# -- search selector, the scope read from the question, long contexts, examples that fit ----------------------


def test_search_selector_scope_note_inline_paths_and_search_everywhere(samples_store):
    q = QUESTIONS["q01"]
    at = compare_page("samples").run()
    assert at.selectbox(key="compare_search").value == "default"
    at = ask(at, q["question"])
    assert not at.exception, at.exception
    captions = unescape(" ".join(c.value for c in at.caption))
    assert f"searched under: {q['gold_path'][0]}" in captions
    hits = at.dataframe[0].value
    assert list(hits.columns)[:2] == ["rank", "heading path › hit"]
    inside = hits[~hits["outside the named headings"]]
    assert len(inside) >= 3 and all(p.startswith(q["gold_path"][0]) for p in inside["heading path › hit"])
    comparison = at.session_state["comparison"]
    assert comparison.search["search"]["name"] == "hybrid" and comparison.search["children_budget"] == 200
    plain_ids = [e.element_id for e in comparison.results["plain"].context.hits]
    assert plain_ids == [e.element_id for e in comparison.results["hierarchical"].context.hits], "same hits"
    assert "2.9 kg" in comparison.results["hierarchical"].context.text
    # One click searches everywhere: the same question, no scope read from it.
    next(b for b in at.button if getattr(b, "label", None) == "Search everywhere").click()
    at = at.run()
    assert not at.exception, at.exception
    assert at.checkbox(key="compare_everywhere").value is True
    assert at.session_state["comparison"].search["notes"] == ["searched the whole collection"]
    assert "searched the whole collection" in unescape(" ".join(c.value for c in at.caption))
    assert not [b for b in at.button if getattr(b, "label", None) == "Search everywhere"]


def test_another_strategy_is_one_pick_away(samples_store):
    at = compare_page("samples").run()
    at.selectbox(key="compare_search").set_value("vector")  # inside the form: sent with "Ask"
    at = ask(at, QUESTIONS["q05"]["question"])
    assert not at.exception
    assert at.session_state["comparison"].search["search"]["name"] == "vector"


def test_the_search_selector_offers_what_the_registry_shows_on_the_page(samples_store, monkeypatch):
    from core.retrieval.strategies import REGISTRY, SearchConfig, Strategy, compare_choices

    at = compare_page("samples").run()
    assert at.selectbox(key="compare_search").options == list(compare_choices())
    assert "contextual" not in at.selectbox(key="compare_search").options  # needs an index most collections lack
    monkeypatch.setitem(REGISTRY, "probe", Strategy(SearchConfig("probe", vector=False, fulltext=True), "probe"))
    at = compare_page("samples").run()
    assert at.selectbox(key="compare_search").options[-1] == "probe"
    at.selectbox(key="compare_search").set_value("probe")
    at = ask(at, QUESTIONS["q05"]["question"])
    assert not at.exception, at.exception
    assert at.session_state["comparison"].search["search"]["name"] == "probe"


@pytest.fixture(scope="module")
def huge_collection(db_url, use_embeddings):
    name = f"huge_{uuid.uuid4().hex[:8]}"
    store = ElementStore(db_url, name, use_embeddings)
    line = " ".join(f"token{i % 997}" for i in range(120_000))  # ~1 MB on one line
    doc = f"# Logbook\n\n## Raw log\n\n{line}\n\n## Owner\n\n* Owner : Kim\n* Shift : night\n"
    assert not ingest(store, [SourceFile("log.md", doc.encode())]).errors
    yield name
    store.drop()


def test_a_huge_context_is_shown_cut_with_a_download(huge_collection):
    at = ask(compare_page(huge_collection).run(), "token5 token17 raw log")
    assert not at.exception, at.exception
    comparison = at.session_state["comparison"]
    assert comparison.results["hierarchical"].context.cut == 1
    assert comparison.results["hierarchical"].context.tokens <= 4000
    captions = unescape(" ".join(c.value for c in at.caption))
    assert "Shown cut:" in captions and "1 element(s) cut to the token budget" in captions
    labels = [b.proto.label for b in at.get("download_button")]
    assert labels.count("Download the context") == 2
    assert max(len(b) for b in markdown_bodies(at)) < 25_000, "nothing huge reaches the browser"


def test_example_questions_are_generated_for_a_collection_that_is_not_the_samples(db_url, use_embeddings):
    name = f"specs_{uuid.uuid4().hex[:8]}"
    store = ElementStore(db_url, name, use_embeddings)
    doc = "".join(f"## Scanner {m}\n\n### Specifications\n\n* Weight : {w} kg\n* Battery : {b} mAh\n\n"
                  for m, w, b in (("A1", 1.1, 2000), ("B2", 2.2, 3000), ("C3", 3.3, 4000)))
    assert not ingest(store, [SourceFile("scanners.md", ("# Scanners\n\n" + doc).encode())]).errors
    try:
        at = compare_page(name).run()
        picker = at.selectbox(key="compare_example")
        prompt, *options = picker.options  # the labels shown
        assert "generated from the documents of" in prompt and "answered from its own source" in prompt
        assert options and all("Scanner" in o for o in options), options
        assert not set(options) & {q["question"] for q in QUESTIONS.values()}
    finally:
        store.drop()


def test_a_comparative_question_shows_its_table_per_column(samples_store):
    at = ask(compare_page("samples").run(), "Which is heavier without the stand, the Nova 24FL or the Nova 32UX?")
    assert not at.exception, at.exception
    tables = [d.value for d in at.dataframe if "entity" in d.value.columns]
    assert len(tables) == 2, "one comparison table per column"
    hierarchical = tables[1]
    values = dict(zip(hierarchical["entity"], hierarchical["value"], strict=True))
    assert any("24FL" in e and v == "2.5 kg" for e, v in values.items()), values
    assert any("32UX" in e and v == "5.6 kg" for e, v in values.items()), values
    assert hierarchical["picked"].sum() == 1


EXAMPLES = "# Build options\n\n## skip\n\nBuilds to skip.\n\n### Examples\n\n```toml\n" + "\n\n".join(
    f"# Skip the {tool} builds\nskip = \"{tool}-*\"" for tool in ("alpha", "beta", "gamma", "delta")) + "\n```\n"


@pytest.fixture
def examples_collection(db_url, use_embeddings):
    with ingested_store(db_url, use_embeddings, "examples", {"options.md": EXAMPLES}) as store:
        yield store.collection


def test_a_source_is_one_line_of_its_list_even_when_its_text_has_blank_lines(examples_collection):
    # a code block's blank lines inside a list item end the item: the rest showed as body text below the list
    at = ask(compare_page(examples_collection).run(), "How do I skip the gamma builds?")
    assert not at.exception
    sources = [b for b in markdown_bodies(at) if b.startswith(("- cited", "- hit"))]
    code = [s for s in sources if "Skip the alpha builds" in s]
    assert code, sources
    assert all("\n" not in s for s in sources), code
