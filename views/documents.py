"""The Overview's document manager: the collection's documents (version, date, status), and what the CLI does to
them and to collections (``remove``, ``remove --purge``, ``collections --create/--drop``), through the same library
calls (:mod:`core.documents`). A re-ingest is a background job (:mod:`views.jobs`).

Document text (file names, titles) is shown in dataframes or through ``escape_markdown``; a purge names what it
deletes before it is confirmed.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pandas as pd
import streamlit as st

from core.config import DEFAULT_COLLECTION
from core.documents import (
    CURRENT,
    RETIRED,
    DocumentRow,
    create_collection,
    drop_collection,
    list_documents,
    removal_preview,
    remove_document,
)
from core.ingest import discover
from core.store import StoreError
from core.text import escape_markdown
from core.versions import DateError, parse_date
from views import jobs, ui

_MESSAGE = "_document_manager_message"


def _say(level: str, text: str) -> None:
    """Shown once, after the rerun that shows the change."""
    st.session_state[_MESSAGE] = (level, text)


def _changed() -> None:
    ui._store.clear()  # a dropped or purged collection's cached store (and its counts) must not be served again
    # The picked document may be gone: a new picker (a new key) starts from the first one, where the old one's
    # browser side would keep showing the name it had.
    st.session_state["dm_generation"] = st.session_state.get("dm_generation", 0) + 1
    st.rerun()


def _label(row: DocumentRow) -> str:
    return f"{row.filename} · v{row.version or 1} · {row.document_id[:8]}"


def _table(rows: list[DocumentRow]) -> None:
    st.dataframe(pd.DataFrame([
        {"file": r.filename, "title": r.title or "", "version": r.version,
         "valid from": r.valid_from.date().isoformat() if r.valid_from else "",
         "status": r.status, "retired": r.retired_at.date().isoformat() if r.retired_at else "",
         "elements": r.elements, "KB": round(r.n_bytes / 1024, 1)} for r in rows]),
        hide_index=True, width="stretch")  # fmt: skip


def _reingest(row: DocumentRow) -> None:
    path = Path(row.source)
    if not path.is_file():
        st.caption("Uploaded documents are not read from disk: upload the file again above to store a new version.")
        return
    if st.button("Re-ingest", key="dm_reingest", help="Read the file again; a changed file becomes a new version, "
                                                     "an unchanged one is skipped"):  # fmt: skip
        sources, problems = discover([path])
        jobs.start_ingest(sources, problems, paths=[path])
        _say("info", f"Re-ingest of {row.filename} started in the background (progress in the sidebar).")
        st.rerun()


def _retire(row: DocumentRow, collection: str) -> None:
    if row.status == RETIRED:
        st.caption("Retired: it is no longer in the collection; its history is kept until it is purged.")
        return
    first = row.valid_from.date() if row.valid_from else None
    day = st.date_input("Retire as of", value=max(date.today(), first or date.today()), min_value=first,
                        key="dm_retire_day",
                        help="From this date on, the collection no longer holds it; reads as of earlier dates do")
    if st.button("Retire", key="dm_retire"):
        try:
            # Today means now; the day its version took effect means that moment (a date alone is its midnight).
            when = None if day == date.today() else parse_date(day.isoformat(), what="the retirement date")[0]
            if when is not None and row.valid_from is not None:
                when = max(when, row.valid_from)
            done = remove_document(ui.store(collection), row.document_id, when=when)
        except (StoreError, DateError) as exc:
            st.error(escape_markdown(str(exc)))
            return
        _say("success", f"Retired {row.filename} as of {done.retired_at.date().isoformat() if done.retired_at else day}"
                        f": its {done.versions} version(s) are kept.")  # fmt: skip
        _changed()


def _purge(row: DocumentRow, collection: str) -> None:
    preview = removal_preview(ui.store(collection), row.document_id, purge=True)
    graph = (f", and the {preview.graph_text_units} GraphRAG text unit(s) drawn from it (with the entities only it "
             "mentions and the reports that drew on it)" if preview.graph_text_units else "")
    st.warning(f"Purging deletes **{escape_markdown(row.filename)}** for good: all {preview.versions} of its "
               f"version(s), their element rows and vectors, and its stored source{graph}. "
               "Its history cannot be read afterwards.", icon=":material/delete_forever:")  # fmt: skip
    sure = st.checkbox(f"Yes, purge {escape_markdown(row.filename)}", key=f"dm_purge_sure_{row.document_id}")
    if st.button("Purge", key="dm_purge", type="primary", disabled=not sure):
        remove_document(ui.store(collection), row.document_id, purge=True)
        _say("success", f"Purged {row.filename}: {preview.versions} version(s) deleted.")
        _changed()


def _collections(collection: str) -> None:
    left, right = st.columns(2)
    with left, st.form("dm_create", clear_on_submit=True, border=False):
        name = st.text_input("New collection", placeholder="letters, digits, -, _ and .")
        if st.form_submit_button("Create collection") and name.strip():
            try:
                create_collection(ui.db_url(), name.strip(), ui.embedder(ui.settings().embeddings))
            except (StoreError, ValueError) as exc:
                st.error(escape_markdown(str(exc)))
            else:
                _say("success", f"Created collection {name.strip()}: it is empty; ingest files into it above.")
                ui.switch_collection(name.strip())
                _changed()
    with right:
        typed = st.text_input(f"Drop `{escape_markdown(collection)}`: type its name to confirm", key="dm_drop_name",
                              help="Deletes the collection with all its documents, versions and indexes")
        if st.button("Drop collection", key="dm_drop", disabled=typed != collection):
            drop_collection(ui.store(collection))
            _say("success", f"Dropped collection {collection}.")
            ui.switch_collection(DEFAULT_COLLECTION)
            _changed()


def document_manager(collection: str) -> None:
    """The manager's section of the Overview page, for ``collection``."""
    st.subheader("Manage documents")
    said = st.session_state.pop(_MESSAGE, None)
    if said is not None:
        getattr(st, said[0])(escape_markdown(said[1]))
    info = {c.name: c for c in ui.collections()}.get(collection)
    rows = list_documents(ui.store(collection)) if info is not None else []
    if rows:
        current = sum(r.status == CURRENT for r in rows)
        st.caption(f"{len(rows)} document{'' if len(rows) == 1 else 's'}, {current} current; retired ones keep "
                   "their history until purged.")
        _table(rows)
        by_id = {r.document_id: r for r in rows}
        generation = st.session_state.get("dm_generation", 0)
        picked = st.selectbox("Document", list(by_id), format_func=lambda d: _label(by_id[d]),
                              key=f"dm_document_{generation}")
        row = by_id[picked]
        action = st.radio("Action", ["Re-ingest", "Retire", "Purge"], horizontal=True, key="dm_action")
        {"Re-ingest": _reingest, "Retire": lambda r: _retire(r, collection),
         "Purge": lambda r: _purge(r, collection)}[action](row)
    with st.expander("Collections: create or drop", expanded=info is None):
        _collections(collection)

