"""Loading the report pages' modules in the background when the app starts (``app.py``).

Kept out of :mod:`views.ui`, which :mod:`views.report_parts` imports: the pages' shared module must not import the
page parts back (tests/test_import_cycles.py).
"""

from __future__ import annotations

import gc
import threading

import streamlit as st

from core.config import load_settings


@st.cache_resource(show_spinner=False)
def warm_pages_in_background() -> threading.Thread | None:
    """Load what the report pages need on their first open, once per process, beside the first page the user sees:
    their modules (pyvis, plotly's figures, the graph package), the network template (vis.js in line, ~470 KB to
    compile) and plotly's validators. bench/bench_report_open.py measures the first open with and without this.

    Then one full garbage collection, and the survivors frozen (``gc.freeze``): the imports leave some 300,000
    long-lived objects, and the collector's next full pass over them (0.3 s, measured inside a first report open)
    would fall in a user's page run; frozen, they are skipped by every later pass."""
    if not load_settings().warm_pages:
        return None

    def load() -> None:
        import plotly.graph_objects as go

        from views.network import community_network_html
        from views.report_parts import show_hierarchy  # noqa: F401  (the reports page's own imports)

        community_network_html([], [], sub_community_of={})
        go.Figure(go.Sunburst(ids=["a"], labels=["a"], parents=[""])).to_json()
        gc.collect()
        gc.freeze()

    thread = threading.Thread(target=load, name="hke-warm-pages", daemon=True)
    thread.start()
    return thread
