"""The Evaluation page under Streamlit's AppTest, against the real database."""

from __future__ import annotations

import uuid

from streamlit.testing.v1 import AppTest

from .conftest import ROOT

APP = str(ROOT / "app.py")


def _page(collection: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=300)
    at.session_state["collection"] = collection
    return at.switch_page("pages/evaluation.py")


def test_empty_state(db_url):
    at = _page(f"empty_{uuid.uuid4().hex[:8]}").run()
    assert not at.exception
    assert any("No documents in collection" in i.value for i in at.info)


def test_run_a_small_subset_shows_table_charts_and_exports(samples_store):
    at = _page("samples").run()
    assert not at.exception
    assert at.checkbox(key="eval_judge").disabled  # no LLM configured in tests
    assert any("The judge needs an LLM" in c.value for c in at.caption)
    at.number_input(key="eval_limit").set_value(3)
    at.multiselect(key="eval_modes").set_value(["plain", "hierarchical", "hybrid"])
    at.slider(key="eval_k").set_value(4)
    at.button[0].click().run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]

    frames = [d.value for d in at.dataframe]
    summary = next(f for f in frames if "Mode" in f.columns)  # after the stored-runs listing
    assert list(summary["Mode"]) == ["plain", "hierarchical", "hybrid"]
    assert {"Recall", "Attribution", "MRR", "Context tokens mean", "Latency ms p50"} <= set(summary.columns)
    assert len(at.get("plotly_chart")) >= 3  # metrics, token and latency distributions
    per_question = frames[-1]
    assert len(per_question) == 3 and {"plain recall", "hierarchical attribution"} <= set(per_question.columns)

    # Drill into the second question: its contexts per mode, side by side.
    ids = list(per_question["id"])
    at.selectbox(key="eval_question").set_value(ids[1]).run()
    assert not at.exception
    assert len([c for c in at.code if c.language == "markdown"]) == 3
    assert len(at.get("download_button")) == 2


def test_generated_question_set_from_the_collection(samples_store):
    at = _page("samples").run()
    at.radio(key="eval_source").set_value("Generated from this collection").run()
    assert not at.exception
    captions = [c.value.replace("\\", "") for c in at.caption]  # the name is shown markdown-escaped
    assert any("generated:samples" in c and "questions" in c for c in captions), captions
