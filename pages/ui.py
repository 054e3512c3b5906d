"""Shared pieces of the Streamlit pages: cached resources, the sidebar, empty states.

Expensive things (the database, the embedder, stores) live in ``st.cache_resource``; what the user
picked lives in ``st.session_state``. No SQL and no prompt text here: pages call ``core``.
"""

from __future__ import annotations

import json
from pathlib import Path

import streamlit as st

from core.config import DEFAULT_COLLECTION, Settings, load_settings
from core.database import DatabaseError, connection_lost, database_url, redact_url, unavailable_message
from core.embeddings import make_embeddings
from core.partial_tree import escape_markdown
from core.store import ElementStore, StoreError, list_collections


def _leave_legacy_pages_mode() -> None:
    """Route a deep link on a fresh server through app.py.

    Streamlit decides at start-up that an app with a ``pages/`` folder is a v1 multipage app, and keeps that
    until ``st.navigation`` first runs: a first request for ``/compare`` would run this page alone, with no
    navigation, sidebar or collection. Both modes hash a page by its url path, so after switching the flag
    off, a rerun lands on the same page, this time through app.py.
    """
    from streamlit.runtime.pages_manager import PagesManager

    if PagesManager.uses_pages_directory:
        PagesManager.uses_pages_directory = False
        st.rerun()


_leave_legacy_pages_mode()

ROOT = Path(__file__).resolve().parents[1]
SAMPLES_DIR = ROOT / "data" / "samples"
QUESTIONS_FILE = ROOT / "data" / "questions.json"


def settings() -> Settings:
    return load_settings()


def db_url() -> str:
    # Not cached by Streamlit: the call is cheap once attached, and it restarts the server after a crash or `db stop`.
    return database_url(load_settings())


@st.cache_resource(show_spinner="Loading the embedding model…")
def embedder(provider: str):
    return make_embeddings(provider, load_settings())


@st.cache_resource(show_spinner=False)
def _store(collection: str, provider: str, contextual: bool) -> ElementStore:
    options = {"contextual": True} if contextual else None
    return ElementStore(db_url(), collection, embedder(provider), create=True, options=options)


def store(collection: str | None = None, *, contextual: bool = False) -> ElementStore:
    """The store for ``collection`` (default: the one picked in the sidebar)."""
    return _store(collection or current_collection(), settings().embeddings, contextual)


def collections() -> list:
    try:
        return list_collections(db_url())
    except (StoreError, DatabaseError) as exc:
        show_database_error(exc)
        st.stop()


def show_database_error(exc: BaseException) -> None:
    """What every page shows when the database cannot be used: the words ingest and the CLI use, no traceback."""
    message = unavailable_message(exc, _configured_url()) if connection_lost(exc) else str(exc)
    st.error(message[:1].upper() + message[1:], icon=":material/error:")


def _configured_url() -> str | None:
    try:
        return database_url(load_settings(), start=False)  # never (re)starts a server from an error path
    except (DatabaseError, ValueError):
        return None


def is_database_failure(exc: BaseException) -> bool:
    """Whether ``exc`` is the database going away (or refusing to start): shown as a message, not a traceback."""
    return isinstance(exc, DatabaseError) or connection_lost(exc)


def current_collection() -> str:
    return st.session_state.get("collection", DEFAULT_COLLECTION)


def sidebar() -> None:
    """Where the data lives and what answers come from. Never shows a password or a key."""
    s = settings()
    # Contextual siblings (`<name>__ctx`) are evaluation machinery, not corpora a user picks.
    names = [c.name for c in collections() if not c.options.get("contextual_of")]
    if DEFAULT_COLLECTION not in names:
        names.insert(0, DEFAULT_COLLECTION)
    # A link names a collection once; applying it on every rerun would undo the user's own pick afterwards.
    wanted = st.query_params.get("collection")
    if wanted and wanted in names and st.session_state.get("_collection_from_url") != wanted:
        st.session_state["collection"] = wanted
        st.session_state["_collection_from_url"] = wanted
    current = current_collection()
    if current not in names:
        names.append(current)
    with st.sidebar:
        st.selectbox("Collection", names, index=names.index(current), key="collection",
                     help="One collection per corpus. New ones are made by ingesting into them.")
        db = "embedded Postgres (pgvector)" if s.database_mode == "embedded" else "external Postgres"
        st.caption(f"**Database:** {db}")
        if s.database_mode == "external":
            st.caption(f"`{redact_url(db_url())}`")
        st.caption(f"**Embeddings:** {s.embeddings}")
        if s.has_llm:
            st.caption(f"**Answers:** {s.llm_mode}")
        else:
            st.caption("**Answers:** extractive (no LLM configured). Set `OPENAI_API_KEY` to use an LLM.")


def require_documents(store_: ElementStore | None = None) -> ElementStore:
    """The current store, or an empty state that tells the user what to do (and stops the page)."""
    info = {c.name: c for c in collections()}.get(current_collection())
    if info is None or info.documents == 0:
        st.info(
            f"No documents in collection **{escape_markdown(current_collection())}** yet: go to **Overview** and "
            "click **Ingest the samples**, or upload your own markdown files."
        )
        st.page_link("pages/overview.py", label="Go to Overview", icon=":material/home:")
        st.stop()
    return store_ or store()


def tree_link(element_id: str, collection: str | None = None) -> str:
    """A URL of the Document tree page with ``element_id`` highlighted."""
    return f"/document_tree?collection={collection or current_collection()}&element={element_id}"


@st.cache_data(show_spinner=False)
def example_questions() -> list[str]:
    """The questions of ``data/questions.json``, for example pickers; empty if the file is missing or broken."""
    try:
        data = json.loads(QUESTIONS_FILE.read_text(encoding="utf-8"))
        return [str(q["question"]) for q in data.get("questions", []) if q.get("question")]
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return []


@st.cache_resource(show_spinner="Warming up the embedding model…")
def warm_embedder(provider: str) -> bool:
    """Run the (cached) embedder once, so that the first question's latency is not the model's first call."""
    embedder(provider).embed_query("warm-up")
    return True
