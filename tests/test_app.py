"""Streamlit AppTest runs of the app shell and the Document tree page, against the real database."""

from __future__ import annotations

import os
import uuid
from urllib.parse import unquote, urlparse

import pytest
from streamlit.testing.v1 import AppTest

from .conftest import ROOT

APP = str(ROOT / "app.py")


def _app(collection: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    at.session_state["collection"] = collection
    return at


def _texts(at: AppTest) -> str:
    parts = [m.value for m in at.markdown] + [m.value for m in at.info] + [m.value for m in at.caption]
    parts += [m.value for m in at.success] + [m.value for m in at.warning] + [m.value for m in at.error]
    return "\n".join(str(p) for p in parts)


@pytest.mark.remote
def test_empty_state_tells_a_new_user_what_to_do(db_url):
    at = _app(f"empty_{uuid.uuid4().hex[:8]}").run()
    assert not at.exception
    assert "No documents in" in _texts(at) and "Ingest the samples" in _texts(at), _texts(at)
    # The sidebar says where data lives and that answers are extractive without a key.
    sidebar = "\n".join(c.value for c in at.sidebar.caption)
    assert "embedded Postgres" in sidebar or "external Postgres" in sidebar
    assert "extractive (no LLM configured)" in sidebar
    # Against a server reached with a password (CI's remote pass): its address is shown, never the password.
    remote = urlparse(os.environ.get("DATABASE_URL", ""))
    if remote.password:
        assert "external Postgres" in sidebar and f"@{remote.hostname}:{remote.port}" in sidebar, sidebar
        assert unquote(remote.password) not in sidebar and remote.password not in sidebar, "the password is shown"


def _wait_for_ingest(collection: str) -> None:
    """The button starts a background job (views.jobs): wait for it, as a user would watch the sidebar."""
    from views.jobs import runner

    job = runner().tables.list(collection, limit=1)[0]
    assert runner().wait(job.job_id, timeout=300).status == "done"  # the samples with their statement tiers


def test_ingest_the_samples_button_fills_an_empty_collection(db_url):
    collection = f"ui_{uuid.uuid4().hex[:8]}"
    at = _app(collection).run()
    at.button[0].click().run()  # "Ingest the samples"
    assert not at.exception
    _wait_for_ingest(collection)
    at.run()
    assert any("added" in s.value for s in at.success), _texts(at)
    assert [m.label for m in at.metric][:2] == ["Documents", "Elements"]
    assert int(at.metric[0].value) >= 8
    table = next(d.value for d in at.dataframe if "reason" in d.value)
    assert set(table["status"]) == {"added"}
    # The demo's list question reads the statement tiers: the samples' ingest builds them, with nothing else run.
    from core.answering import compare
    from core.ingest.tiers import tiers_built
    from core.retrieval import RetrievalRequest
    from views.ui import store

    samples = store(collection)
    assert tiers_built(samples)
    for question in ("List the monitors with USB-C", "USB-C가 있는 모니터를 모두 알려줘"):
        text = compare(samples, RetrievalRequest(question, k=6)).hierarchical.answer.text
        listed = text.splitlines()[0]
        assert listed.startswith("With USB-C:") and "Nova 34WC" in listed and "Nova 32UX" in listed, text
        assert "Nova 24FL" not in listed and "Nova 27QX" not in listed, text  # their sheets say "USB-C: X"


def test_overview_with_samples_shows_counts_and_chart(samples_store):
    at = _app("samples").run()
    assert not at.exception
    metrics = {m.label: m.value for m in at.metric}
    assert int(metrics["Documents"]) == len(samples_store.documents())
    assert int(metrics["Elements"]) == samples_store.stats().elements
    assert at.get("plotly_chart"), "the category/depth chart is missing"


def test_tree_page_browses_and_searches_a_document(samples_store):
    at = _app("samples")
    at.switch_page("pages/document_tree.py").run()
    assert not at.exception
    doc_box = at.selectbox(key="tree_document")
    assert len(doc_box.options) == len(samples_store.documents())
    at.text_input[0].input("무게").run()
    metrics = {m.label: m.value for m in at.metric}
    assert int(metrics["Matches"]) >= 1
    at.text_input[0].input("zzz-not-in-any-document").run()
    assert any("Nothing in this document" in w.value for w in at.warning)


def test_tree_page_highlights_a_linked_element(samples_store):
    doc = samples_store.documents()[0]
    element = samples_store.elements(doc.document_id)[3]
    at = _app("samples")
    at.query_params["element"] = element.metadata["element_id"]
    at.switch_page("pages/document_tree.py").run()
    assert not at.exception
    assert any(element.metadata["element_id"] in c.value for c in at.caption)


def test_tree_page_empty_state(db_url):
    at = _app(f"empty_{uuid.uuid4().hex[:8]}")
    at.switch_page("pages/document_tree.py").run()
    assert not at.exception
    assert "No documents in collection" in _texts(at)


def test_the_first_page_loads_the_report_pages_modules_in_the_background(db_url, monkeypatch):
    """The app's run starts one background load of the report pages' modules (a later run does not start another),
    and it ends with the modules in the process (AppTest runs the script in this process) and the survivors of one
    full collection frozen, out of the way of later full collections."""
    import gc
    import sys
    import threading

    from views import page_warmup

    started: list[threading.Thread] = []

    class Recorded(threading.Thread):
        def start(self) -> None:
            if self.name == "hke-warm-pages":
                started.append(self)
            super().start()

    monkeypatch.setattr(page_warmup.threading, "Thread", Recorded)
    page_warmup.warm_pages_in_background.clear()
    at = _app(f"warm_{uuid.uuid4().hex[:8]}").run()
    at.run()
    assert not at.exception
    assert len(started) == 1, started
    started[0].join(60)
    assert not started[0].is_alive()
    assert {"views.network", "views.report_parts", "plotly.graph_objects"} <= set(sys.modules)
    assert gc.get_freeze_count() > 100_000, "the loaded modules' objects are frozen"


@pytest.mark.remote
def test_ingest_the_manual_fills_its_own_collection_and_switches_to_it(db_url, use_embeddings, tmp_path, monkeypatch):
    """The Overview's second demo corpus: the manual's files go into a collection of their own, which the sidebar
    then shows; the progress and the table name the files, never the server's folder."""
    from core.store import ElementStore
    from views import ui

    (tmp_path / "guide.md").write_text("# Guide\n\n## Install\n\n- Python : 3.11\n", encoding="utf-8")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "faq.md").write_text("# FAQ\n\nA question and its answer.\n", encoding="utf-8")
    (tmp_path / "shot.png").write_bytes(b"\x89PNG\r\n")  # an image beside the pages is not a document
    manual = f"manual_{uuid.uuid4().hex[:8]}"
    monkeypatch.setattr(ui, "MANUAL_DIR", tmp_path)
    monkeypatch.setattr(ui, "MANUAL_COLLECTION", manual)
    try:
        at = _app(f"empty_{uuid.uuid4().hex[:8]}").run()
        assert "This app's manual** (2 files in `docs`)" in _texts(at)
        next(b for b in at.button if b.label == "Ingest the manual").click().run()
        assert not at.exception
        _wait_for_ingest(manual)
        # the page's rerun goes through app.py, whose sidebar switches to it
        assert at.session_state["collection"] == manual
        stored = ElementStore(db_url, manual, use_embeddings)
        assert sorted(d.filename for d in stored.documents()) == ["faq.md", "guide.md"]
        at.run()
        files = next(d.value for d in at.dataframe if "status" in d.value and "reason" in d.value)
        assert sorted(files["file"]) == ["guide.md", "sub/faq.md"]
        assert str(tmp_path) not in _texts(at)
    finally:
        ElementStore(db_url, manual, use_embeddings).drop()
