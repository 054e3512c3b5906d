"""Shared pieces of the Streamlit pages: cached resources, the sidebar, empty states.

Expensive things (the database, the embedder, stores) live in ``st.cache_resource``; what the user
picked lives in ``st.session_state``. No SQL and no prompt text here: pages call ``core``.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path

import streamlit as st

from core.config import DEFAULT_COLLECTION, Settings, load_settings
from core.embeddings import make_embeddings
from core.retrieval import Scope
from core.store import ElementStore, StoreError, list_collections
from core.store.database import (
    DatabaseError,
    connection_lost,
    database_url,
    redact_text,
    redact_url,
    unavailable_message,
)
from core.text import escape_markdown

# In a session's state once app.py has routed one of its runs, or once a run of a page alone was sent back there.
_ROUTED = "_routed_through_app"


def enter_app_run() -> None:
    """Mark this session as one app.py routes (app.py's first call, every run)."""
    st.session_state[_ROUTED] = True


def route_through_app() -> None:
    """Route a deep link on a fresh server through app.py: every page calls this before drawing anything.

    Streamlit decides at start-up that an app with a ``pages/`` folder is a v1 multipage app, and keeps that
    until ``st.navigation`` first runs: a first request for ``/compare`` would run this page alone, with no
    navigation, sidebar or collection. Both modes hash a page by its url path, so after switching the flag
    off, a rerun lands on the same page, this time through app.py. Every session whose first run was such a page
    is rerun, not only the one that switched the flag: tabs opened while the first run imports run their pages
    alone too. Once per session: a page run as the main script itself (`streamlit run pages/x.py`) then draws alone.

    The rerun is requested, not raised, and carried out at the page's next Streamlit call, after the imports:
    ``st.rerun`` stops the script where it is called, and a stop inside a module's import left the tabs importing
    it at the same moment with a half-made one (``ImportError: cannot import name 'ui' from 'views'``).
    """
    from streamlit.runtime.pages_manager import PagesManager
    from streamlit.runtime.scriptrunner import get_script_run_ctx
    from streamlit.runtime.scriptrunner_utils.script_requests import RerunData

    PagesManager.uses_pages_directory = False
    if st.session_state.get(_ROUTED):
        return
    st.session_state[_ROUTED] = True
    ctx = get_script_run_ctx()
    if ctx is not None and ctx.script_requests is not None:
        ctx.script_requests.request_rerun(RerunData(query_string=ctx.query_string,
                                                    page_script_hash=ctx.page_script_hash))


ROOT = Path(__file__).resolve().parents[1]
SAMPLES_DIR = ROOT / "data" / "samples"
# The second demo corpus: this app's own documentation, ingested into a collection of its own.
MANUAL_DIR = ROOT / "docs"
MANUAL_COLLECTION = "manual"
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
    url = _configured_url()
    message = unavailable_message(exc, url) if connection_lost(exc) else redact_text(str(exc), url)
    st.error(escape_markdown(message[:1].upper() + message[1:]), icon=":material/error:")


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


def switch_collection(name: str) -> None:
    """Show ``name`` from the next run on: the sidebar's picker is already drawn in this run, so its value can
    only be set before it is drawn again."""
    st.session_state["_switch_collection"] = name


def sidebar() -> None:
    """Where the data lives and what answers come from. Never shows a password or a key."""
    s = settings()
    names = [c.name for c in collections()]  # a collection's contextual index is not listed: it is not a corpus
    if DEFAULT_COLLECTION not in names:
        names.insert(0, DEFAULT_COLLECTION)
    # A link names a collection once; applying it on every rerun would undo the user's own pick afterwards.
    wanted = st.query_params.get("collection")
    if wanted and wanted in names and st.session_state.get("_collection_from_url") != wanted:
        st.session_state["collection"] = wanted
        st.session_state["_collection_from_url"] = wanted
    switch_to = st.session_state.pop("_switch_collection", None)
    if switch_to is not None:
        if switch_to not in names:
            names.append(switch_to)
        st.session_state["collection"] = switch_to
    current = current_collection()
    warned = False
    if wanted and wanted not in names:
        # Shown until the user picks a collection: the parameter stays in the URL, a stale complaint would not.
        first_seen = st.session_state.setdefault("_unknown_collection_link", (wanted, current))
        warned = first_seen == (wanted, current)
        if warned:
            st.warning(f"The link names collection **{escape_markdown(wanted[:100])}**, which does not exist: "
                       f"showing **{escape_markdown(current)}** instead. Pick a collection in the sidebar.",
                       icon=":material/link_off:")  # fmt: skip
    if current not in names:
        names.append(current)
    # The box reads its value from the session state alone: a default (index=) beside a value set there is what
    # Streamlit warns about on every deep link.
    st.session_state["collection"] = current
    if not warned:  # a reload or a shared link shows the collection shown now
        st.session_state["_collection_from_url"] = current
        set_query_param("collection", current)
    with st.sidebar:
        st.selectbox("Collection", names, key="collection",
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


def set_query_param(name: str, value: str | None) -> None:
    """Keep the view's state in the URL, so that a reload or a shared link shows the same view: ``value`` as
    ``name``, or no ``name`` when ``value`` is None. Written only when it changes (each write is a browser history
    step)."""
    if value is None:
        if name in st.query_params:
            del st.query_params[name]
    elif st.query_params.get(name) != value:
        st.query_params[name] = value


def from_link(name: str) -> str | None:
    """The URL's ``name`` when this session has not yet seen that value (a shared link, a reload, a link from
    another page), else None: a link sets the view once, and the user's own picks win afterwards. Untrusted: the
    caller checks it against what exists and shows it only escaped."""
    value = st.query_params.get(name)
    seen = st.session_state.setdefault("_seen_in_url", {})
    if value is None or seen.get(name) == value:
        return None
    seen[name] = value
    return value


def keep_in_url(name: str, value: str | None) -> None:
    """Write the view's ``name`` to the URL (:func:`set_query_param`) as a value this session has already applied,
    so that :func:`from_link` does not read it back as a new link."""
    st.session_state.setdefault("_seen_in_url", {})[name] = value
    set_query_param(name, value)


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


SOURCE_LINE_CHARS = 160


def source_text(text: str) -> str:
    """An element's text as one line of a sources list, cut at SOURCE_LINE_CHARS: a blank line (a code block's)
    inside a markdown list item would end the item and show the rest as body text below the list."""
    text = " ".join(text.split())
    return text if len(text) <= SOURCE_LINE_CHARS else text[: SOURCE_LINE_CHARS - 1] + "…"


def tree_link(element_id: str, collection: str | None = None, as_of: date | None = None) -> str:
    """A URL of the Document tree page with ``element_id`` highlighted (in the tree as of ``as_of``, if given)."""
    day = f"&as_of={as_of.isoformat()}" if as_of is not None else ""
    return f"/document_tree?collection={collection or current_collection()}&element={element_id}{day}"


@st.cache_data(show_spinner="Finding example questions that fit this collection…", max_entries=32)
def example_questions(collection: str, fingerprint: str) -> tuple[tuple[str, ...], str]:
    """Example questions that fit ``collection`` and where they come from (``fingerprint`` changes with its
    documents, so an ingest refreshes them)."""
    from core.evaluation.examples import example_questions as fitting

    found = fitting(store(collection), QUESTIONS_FILE)
    return found.questions, found.source


@st.cache_resource(show_spinner="Preparing full-text search and the Korean analyser…")
def warm_search(collection: str) -> bool:
    """The retrieval pipeline's one-time costs (full-text index, Korean analyser), once per process."""
    from core.retrieval import warm_up

    warm_up(store(collection))
    return True


@st.cache_resource(show_spinner="Warming up the embedding model…")
def warm_embedder(provider: str) -> bool:
    """Run the (cached) embedder once, so that the first question's latency is not the model's first call."""
    embedder(provider).embed_query("warm-up")
    return True


SCOPE_KINDS = ("Whole collection", "One document", "One heading subtree")


def scope_picker(store_: ElementStore, key: str) -> Scope:
    """A scope the user picks by hand: the whole collection, a document, or a heading's subtree."""
    kind = st.radio("Search in", SCOPE_KINDS, horizontal=True, key=f"{key}_scope_kind",
                    help="Results never come from outside a scope you pick: the filter is part of the SQL search. "
                         "With the whole collection, headings the question names scope the search (see below).")
    if kind == SCOPE_KINDS[0]:
        return Scope.whole()
    labels = {d.document_id: f"{d.title or d.filename} · {d.filename}" for d in store_.documents()}
    doc_id = st.selectbox("Document", list(labels), format_func=labels.__getitem__, key=f"{key}_scope_doc")
    if kind == SCOPE_KINDS[1]:
        return Scope.document(doc_id, labels[doc_id])
    headings = [e for e in store_.elements(doc_id) if e.is_heading]
    if not headings:
        st.warning("This document has no headings; searching the whole document instead.")
        return Scope.document(doc_id, labels[doc_id])
    by_id = {h.element_id: h for h in headings}

    def label(element_id: str) -> str:
        h = by_id[element_id]
        return "\u2003" * h.category_depth + h.text

    heading_id = st.selectbox("Heading", list(by_id), format_func=label, key=f"{key}_scope_heading")
    path = [*by_id[heading_id].heading_path, by_id[heading_id].text]
    return Scope.subtree(heading_id, " › ".join(path))
