"""Document tree: one document's elements as the tree retrieval walks, as of a date if asked, and its History.

The tree is ``views.tree``'s page (document text escaped by its template) in an iframe of fixed height, scrolled
to the highlighted element when a citation link names one. The frame allows scripts only (``views.frames``).
"As of" a date, every read is of each document's version in force at the end of that day (``views.versions``).
The History view (``views.versions.show_history``) walks one document's versions with the changes marked."""

import streamlit as st

from core.answering.version_history import VersionChoiceError, source_of
from core.ingest import IngestError, decode_text
from core.store import StoreError
from core.text import escape_markdown
from views import ui
from views.frames import sandboxed_page
from views.placeholders import example_terms
from views.source import element_label, show_source
from views.tree import render_tree_html, visible_ids
from views.versions import as_of_picker, show_history, version_label

ui.route_through_app()  # a deep link on a fresh server: drawn through app.py (views/ui.py)

st.title("Document tree")
store = ui.require_documents()
when = as_of_picker("tree")
if when is not None:
    store = store.as_of(when)
    documents = store.read.versions_at(when)  # each document's version in force then
    if not documents:
        first = store.read.first_valid_from()
        since = f" Its first version takes effect on {first.date().isoformat()}." if first else ""
        st.warning(f"No document of collection **{escape_markdown(ui.current_collection())}** was in force on "
                   f"{when.date().isoformat()}.{since}", icon=":material/event_busy:")
        st.stop()
else:
    documents = store.documents()

# The view lives in the URL (?document=, ?view=, ?element=): a link reproduces it, a reload keeps it. A link is
# untrusted input (anyone can craft one): it is only shown escaped, and an id this collection does not hold is said
# to be unknown.
VIEWS = {"tree": "Tree", "history": "History", "source": "Source"}  # in the URL: on the page
labels = {d.document_id: f"{d.title or d.filename} · {d.filename}" for d in documents}
ids = list(labels)
linked_document, linked_view = ui.from_link("document"), ui.from_link("view")
if linked_document in labels:
    st.session_state["tree_document"] = linked_document
    st.session_state.pop("tree_element", None)
if linked_view in VIEWS:
    st.session_state["tree_view"] = VIEWS[linked_view]
highlight = ui.from_link("element")
if highlight:
    found = store.get([highlight])
    if found:
        st.session_state["tree_document"] = found[0].document_id
        st.session_state["tree_element"] = highlight
    else:
        st.warning(f"The link names element {escape_markdown(highlight[:200])}, which is not in collection "
                   f"**{escape_markdown(ui.current_collection())}**"
                   f"{' as of ' + when.date().isoformat() if when else ''}: nothing is highlighted.")
if st.session_state.get("tree_document") not in labels:
    st.session_state["tree_document"] = ids[0]


def _new_document() -> None:
    st.session_state.pop("tree_element", None)  # an element of the other document is not in this one


choice = st.selectbox("Document", ids, format_func=labels.__getitem__, key="tree_document",
                      on_change=_new_document)
ui.keep_in_url("document", choice)
st.session_state.setdefault("tree_view", "Tree")
view = st.radio("View", list(VIEWS.values()), horizontal=True, key="tree_view",
                label_visibility="collapsed", captions=["the elements of this version", "its versions and what "
                                                        "each one changed", "this version rendered as markdown"])
ui.keep_in_url("view", view.lower())
if view == "History":
    ui.keep_in_url("element", st.session_state.get("tree_element"))
    show_history(store, choice, when)
    st.stop()

elements = store.elements(choice)
by_id = {e.element_id: e for e in elements}
if st.session_state.get("tree_element") not in by_id:
    st.session_state["tree_element"] = None
picked = st.selectbox("Selected element", [None, *by_id], key="tree_element",
                      format_func=lambda e: "— none —" if e is None else element_label(by_id[e]),
                      placeholder="None: pick one to mark it in the tree and the source",
                      help="Marked in the tree and the source; the URL keeps it, so a link shows it too.")
ui.keep_in_url("element", picked)
record = next(d for d in documents if d.document_id == choice)
if view == "Source":
    versions = store.read.versions(choice)
    version = next((v for v in versions if v.content_hash == record.content_hash), versions[-1] if versions else None)
    try:
        file_text = decode_text(source_of(store, choice, version, record.filename))[0] if version else None
    except (VersionChoiceError, StoreError, IngestError):
        file_text = None  # a version stored before files were kept: the rendering from its elements still shows
    if when is not None:
        st.caption(f"Version {version_label(record)}, in force at the end of {when.date().isoformat()} (UTC).")
    show_source(elements, picked, file_text, record.filename)
    st.stop()

query = st.text_input("Search within this document", placeholder=example_terms(
    (e.text for e in elements if e.is_heading and e.category_depth > 0), "a word or a phrase"))

shown = visible_ids(elements, query)
c1, c2, c3 = st.columns(3)
c1.metric("Elements", len(elements))
c2.metric("Matches" if query else "Headings",
          len([e for e in elements if query.strip().casefold() in e.text.casefold()]) if query
          else sum(e.is_heading for e in elements))
c3.metric("Source", record.filename)
if when is not None:
    st.caption(f"Version {version_label(record)}, in force at the end of {when.date().isoformat()} (UTC).")
if query and not shown:
    st.warning(f"Nothing in this document contains “{escape_markdown(query)}”.")

hl = [picked] if picked else []
sandboxed_page(render_tree_html(elements, highlight=hl, query=query), height=650,
               title=f"Element tree of {record.filename}", key="tree_frame")
if hl:
    st.caption(f"Highlighted element {escape_markdown(hl[0])} (from a citation or your pick).")
