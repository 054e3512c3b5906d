"""The Evaluation page in a real browser: run a small subset, see charts and the per-question drill-down."""

from __future__ import annotations

import pytest

from .conftest import screenshot, wait_for_text

pytestmark = pytest.mark.e2e


def test_evaluation_runs_and_charts_in_the_browser(app_url, page, samples_store):
    page.goto(f"{app_url}/evaluation?collection=samples")
    wait_for_text(page, "Run evaluation", timeout=90_000)
    limit = page.get_by_label("Questions (0 = all)")
    limit.fill("4")
    limit.press("Enter")
    page.get_by_role("button", name="Run evaluation").click()
    # The previous run stays on screen (faded) while this one runs: wait for this run's own completion line.
    wait_for_text(page, "Done: 4 questions × 4 modes", timeout=240_000)
    wait_for_text(page, "Per question")
    page.locator(".js-plotly-plot").nth(2).wait_for(timeout=60_000)
    assert page.locator(".js-plotly-plot").count() >= 3
    assert "Recall and attribution per mode" in page.locator(".js-plotly-plot").first.inner_text()
    # Streamlit scrolls inside its own container, so a full-page screenshot is the viewport: make it tall.
    screenshot(page, "evaluation", viewport={"width": 1400, "height": 3000}, settle_ms=1500)

    # Drill into another question: its contexts appear per mode.
    box = page.locator('[data-testid="stSelectbox"]').filter(has_text="Inspect a question")
    box.scroll_into_view_if_needed()  # its options open below it: in the viewport, not under the fold
    box.click()
    page.get_by_role("option").nth(2).click()
    wait_for_text(page, "hierarchical context")
    page.get_by_text("Download run (JSON)").first.wait_for(timeout=30_000)
    page.get_by_text("Per question").first.scroll_into_view_if_needed()
    screenshot(page, "evaluation_question", settle_ms=1000)
