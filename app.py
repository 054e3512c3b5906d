"""Hierarchical Knowledge Explorer: ``streamlit run app.py``."""

import streamlit as st

from core.store.database import install_shutdown_hooks

# Stop the embedded Postgres when Streamlit is stopped (SIGTERM/SIGINT), leaving no orphan server.
install_shutdown_hooks()

st.set_page_config(page_title="Hierarchical Knowledge Explorer", page_icon="🌳", layout="wide")

from views import jobs, page_warmup, ui  # noqa: E402  (after set_page_config)

ui.enter_app_run()

navigation = st.navigation(
    [
        st.Page("pages/overview.py", title="Overview", icon=":material/home:", default=True),
        st.Page("pages/document_tree.py", title="Document tree", icon=":material/account_tree:",
                url_path="document_tree"),
        st.Page("pages/compare.py", title="Compare", icon=":material/compare_arrows:", url_path="compare"),
        st.Page("pages/evaluation.py", title="Evaluation", icon=":material/analytics:", url_path="evaluation"),
        st.Page("pages/reports.py", title="Community reports", icon=":material/hub:", url_path="reports"),
        st.Page("pages/graph_explorer.py", title="Graph explorer", icon=":material/scatter_plot:",
                url_path="graph_explorer"),
        st.Page("pages/global_search.py", title="Global search", icon=":material/travel_explore:",
                url_path="global_search"),
    ]
)
try:
    ui.sidebar()
    jobs.sidebar_jobs()  # running and finished background jobs, on every page
    page_warmup.warm_pages_in_background()
    navigation.run()
except Exception as exc:  # Streamlit's stop/rerun are BaseExceptions and pass through
    if not ui.is_database_failure(exc):
        raise
    # The server died or restarted under a running page: say so in the words ingest uses. The pool checks each
    # connection before use, so the next run (after a restart) just works.
    ui.show_database_error(exc)
