"""The Global search page under Streamlit's AppTest against the real database (empty states, an offline answer with
its report citations and contributing reports), and the ``progress`` callback of ``global_search`` itself."""

from __future__ import annotations

import threading
import uuid

import pytest
from streamlit.testing.v1 import AppTest

from core.graph import GlobalSearchOptions, global_search
from core.ingest import SourceFile, ingest
from core.progress import Progress
from core.retrieval.question import EMPTY_QUESTION, MAX_QUESTION_CHARS, QuestionError
from core.store import ElementStore

from .conftest import ROOT
from .helpers_graph import FakeGraphModel
from .helpers_pages import unescape
from .test_reports_page import ensure_samples_index, texts

APP = str(ROOT / "app.py")
QUESTION = "Who leads the Hanbit space institute?"


@pytest.fixture
def samples_index(samples_store):
    return ensure_samples_index(samples_store)


def search_page(collection: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=300)
    at.session_state["collection"] = collection
    at.switch_page("pages/global_search.py")
    return at


def test_no_documents_empty_state(db_url):
    at = search_page(f"empty_{uuid.uuid4().hex[:8]}").run()
    assert not at.exception
    assert "No documents in" in texts(at)


def test_no_index_points_to_the_reports_page(db_url, use_embeddings):
    store = ElementStore(db_url, f"noindex_{uuid.uuid4().hex[:8]}", use_embeddings)
    try:
        assert not ingest(store, [SourceFile("a.md", b"# A\n\nSome **Thing** here.\n")]).errors
        at = search_page(store.collection).run()
        assert not at.exception
        assert "No index yet" in texts(at) and "Build index" in texts(at)
        links = at.get("page_link")
        assert links and links[0].proto.page == "reports", "a link to the Community reports page"
    finally:
        store.drop()


def test_offline_answer_with_citations_and_contributing_reports(samples_index):
    at = search_page("samples").run()
    assert not at.exception, at.exception
    assert at.selectbox(key="global_level").value == 1, "the default level, as global_search uses"
    assert "will be extractive" in texts(at)
    at.button(key="global_ask").click().run()
    assert any(unescape(w.value) == EMPTY_QUESTION for w in at.warning)

    at.text_area(key="global_question").input(QUESTION)
    at.button(key="global_ask").click().run()
    assert not at.exception, at.exception
    page = texts(at)
    assert "Answered by: extractive (no LLM configured)" in page
    answer = next(m.value for m in at.markdown if "Extractive answer" in m.value)
    assert "[Data: Reports \\([e" in answer, "citations are links"
    assert "(/reports?collection=samples&community=e" in answer, "…to the Reports page with the report open"
    metrics = {m.label: m.value for m in at.metric}
    assert int(metrics["Reports read"]) > 10 and int(metrics["Reports cited"]) >= 1
    links = at.get("page_link")
    assert links, "each cited report has a link"
    first = links[0].proto
    assert first.page == "reports"
    assert "community=e" in first.query_string and "collection=samples" in first.query_string
    table = at.dataframe[0].value
    assert list(table.columns[:3]) == ["report", "title", "score"]
    assert table["report"].str.startswith("/reports?collection=samples&community=").all()
    assert table["score"].between(0, 100).all()

    # The answer survives a rerun (it lives in the session), and another level can be picked.
    at.selectbox(key="global_level").set_value(0).run()
    assert not at.exception
    assert any("Extractive answer" in m.value for m in at.markdown)


def test_a_question_over_the_shared_limit_is_refused_as_on_compare(samples_index):
    """One limit for every question input: Global search refuses what Compare refuses, with the same words."""
    at = search_page("samples").run()
    at.text_area(key="global_question").input("x" * (MAX_QUESTION_CHARS + 1))
    at.button(key="global_ask").click().run()
    assert not at.exception, at.exception
    warning = " ".join(unescape(w.value) for w in at.warning)
    assert f"{MAX_QUESTION_CHARS + 1:,} characters, the limit is {MAX_QUESTION_CHARS:,}" in warning
    assert not any("Extractive answer" in m.value for m in at.markdown), "no search ran"
    at.text_area(key="global_question").input("x" * MAX_QUESTION_CHARS)  # at the limit: searched
    at.button(key="global_ask").click().run()
    assert not at.exception and not at.warning
    with pytest.raises(QuestionError, match="limit is"):
        global_search(samples_index, "y" * (MAX_QUESTION_CHARS + 1), GlobalSearchOptions(use_llm="extractive"))


def test_structural_search_offline(samples_index):
    at = search_page("samples").run()
    at.radio(key="global_kind").set_value("structural").run()
    at.text_area(key="global_question").input("모니터 보증 기간")
    at.button(key="global_ask").click().run()
    assert not at.exception, at.exception
    assert "Structural" in texts(at) and "extractive (no LLM configured)" in texts(at)
    assert any("community=s" in unescape(m.value) for m in at.markdown), "structural reports are cited"


def test_global_search_reports_progress_from_the_calling_thread(samples_index):
    calls: list[tuple[str, int, int, int]] = []

    def progress(step: Progress) -> None:
        calls.append((step.stage, step.done, step.total, threading.get_ident()))

    global_search(samples_index, QUESTION, GlobalSearchOptions(use_llm="extractive"), progress=progress)
    assert [c[:3] for c in calls] == [("map", 0, 1), ("map", 1, 1), ("reduce", 1, 1)]

    calls.clear()
    options = GlobalSearchOptions(level=0, batch_tokens=800)
    answer = global_search(samples_index, "What is this collection about?", options,
                           chat_model=FakeGraphModel(model_name="fake-progress"), progress=progress)
    assert answer.generated_by == "llm"
    maps = [c for c in calls if c[0] == "map"]
    total = maps[0][2]
    assert total > 1, "several map batches"
    assert [c[1] for c in maps] == list(range(total + 1)), "one step per batch, in order"
    assert [c[:3] for c in calls if c[0] == "reduce"] == [("reduce", 0, 1), ("reduce", 1, 1)]
    assert {c[3] for c in calls} == {threading.get_ident()}, "never from a worker thread (a UI bar cannot be)"


def test_a_link_s_question_is_asked_and_kept_in_the_url(samples_index):
    """Issue 33, item 3: ``?q=`` (with ``?kind=`` and ``?level=``) asks its question as if typed, and the URL keeps
    what was asked, so a reload or a shared link shows the same answer."""
    at = AppTest.from_file(APP, default_timeout=300)
    at.session_state["collection"] = "samples"
    at.query_params["q"] = QUESTION
    at.query_params["kind"] = "entity"
    at.query_params["level"] = "0"
    at.switch_page("pages/global_search.py").run()
    assert not at.exception, at.exception
    assert at.text_area(key="global_question").value == QUESTION
    assert at.session_state["global_answer"][1].question == QUESTION
    assert at.session_state["global_level"] == 0
    assert at.query_params["q"] in (QUESTION, [QUESTION])


def test_a_model_whose_map_replies_do_not_parse_gets_the_offline_answer_with_a_notice(samples_index, monkeypatch):
    """Through the stub server: every map reply is prose, so the page shows the extractive answer and says why."""
    from .test_llm_stub import KEY, Stub

    with Stub([{"reply": "The monitors are very nice, I think."}]) as stub:
        monkeypatch.setenv("OPENAI_API_KEY", KEY)
        monkeypatch.setenv("OPENAI_BASE_URL", stub.base_url)
        monkeypatch.setenv("HKE_CHAT_MODEL", "stub-model")
        at = search_page("samples").run()
        at.text_area(key="global_question").input(QUESTION)
        at.button(key="global_ask").click().run()
        assert not at.exception, at.exception
        assert stub.requests and all(r["body"]["messages"][-1]["content"].startswith("Below are community reports")
                                     for r in stub.requests)  # fmt: skip
    notice = " ".join(unescape(w.value) for w in at.warning)
    assert "were not the JSON points asked for" in notice and "extractive (offline) answer" in notice
    assert any("[Data: Reports" in m.value for m in at.markdown), "the offline answer, with its citations"
    assert KEY not in texts(at)
