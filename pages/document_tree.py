"""Document tree: one document's elements as the tree retrieval walks, as of a date if asked, and its History.

The tree is ``views.tree``'s page (document text escaped by its template) in an iframe of fixed height, scrolled
to the highlighted element when a citation link names one. The frame allows scripts only (``views.frames``).
"As of" a date, every read is of each document's version in force at the end of that day (``views.versions``).
The History view (``views.versions.show_history``) walks one document's versions with the changes marked."""

import streamlit as st

from core.text import escape_markdown
from views import ui
from views.frames import sandboxed_page
from views.placeholders import example_terms
from views.tree import render_tree_html, visible_ids
from views.versions import as_of_picker, show_history, version_label

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

# A link from another page names an element: open its document and highlight it. The link is untrusted input
# (anyone can craft one): it is only shown escaped, and an id this collection does not hold is said to be unknown.
highlight = st.query_params.get("element")
if highlight and "tree_element" not in st.session_state:
    found = store.get([highlight])
    if found:
        st.session_state["tree_document"] = found[0].document_id
        st.session_state["tree_element"] = highlight
    else:
        st.warning(f"The link names element {escape_markdown(highlight[:200])}, which is not in collection "
                   f"**{escape_markdown(ui.current_collection())}**"
                   f"{' as of ' + when.date().isoformat() if when else ''}: nothing is highlighted.")

labels = {d.document_id: f"{d.title or d.filename} · {d.filename}" for d in documents}
ids = list(labels)
default = st.session_state.get("tree_document")
choice = st.selectbox("Document", ids, index=ids.index(default) if default in ids else 0,
                      format_func=labels.__getitem__)
st.session_state["tree_document"] = choice
view = st.radio("View", ["Tree", "History"], horizontal=True, key="tree_view", label_visibility="collapsed",
                captions=["the elements of this version", "its versions and what each one changed"])
if view == "History":
    show_history(store, choice, when)
    st.stop()

elements = store.elements(choice)
query = st.text_input("Search within this document", placeholder=example_terms(
    (e.text for e in elements if e.is_heading and e.category_depth > 0), "a word or a phrase"))

record = next(d for d in documents if d.document_id == choice)
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

hl = [st.session_state["tree_element"]] if st.session_state.get("tree_element") else []
sandboxed_page(render_tree_html(elements, highlight=hl, query=query), height=650,
               title=f"Element tree of {record.filename}", key="tree_frame")
if hl:
    st.caption(f"Highlighted element {escape_markdown(hl[0])} (from a citation).")
