"""Overview: what is in the corpus, and how to put documents in it."""

import pandas as pd
import plotly.express as px
import streamlit as st

from core.ingest import SourceFile, discover
from views import documents, jobs, ui

st.title("Hierarchical Knowledge Explorer")
st.caption(
    "Markdown documents stored as parent-linked elements. Retrieval expands every hit to its "
    "root-to-leaf heading path, so an answer knows which product or section a value belongs to."
)

collection = ui.current_collection()
info = {c.name: c for c in ui.collections()}.get(collection)

# -- what is there ---------------------------------------------------------------------------------
if info is None or info.documents == 0:
    st.info(
        f"**No documents in `{collection}` yet.** Click **Ingest the samples** below to load the bundled "
        "sample corpus (product spec sheets, a policy handbook and an FAQ, in Korean and English), "
        "or upload your own `.md` files."
    )
else:
    stats = ui.store().stats()
    c1, c2, c3 = st.columns(3)
    c1.metric("Documents", stats.documents)
    c2.metric("Elements", stats.elements)
    c3.metric("Headings", stats.by_category.get("Title", 0))
    frame = pd.DataFrame(stats.by_category_depth, columns=["category", "depth", "elements"])
    frame["depth"] = frame["depth"].astype(str)
    fig = px.bar(frame, x="category", y="elements", color="depth", title="Elements by category and depth",
                 category_orders={"depth": sorted(frame["depth"].unique(), key=int)})
    st.plotly_chart(fig, width="stretch")

# -- ingest ----------------------------------------------------------------------------------------
st.subheader("Ingest")


def run_ingest(sources, problems=(), collection: str | None = None, paths=(), statement_tiers: bool = False):
    """Start the ingest as a background job: it goes on if this tab is closed (the sidebar shows its progress)."""
    jobs.start_ingest(sources, problems, collection=collection, paths=paths, statement_tiers=statement_tiers)
    if collection is not None:
        ui.switch_collection(collection)
    st.rerun()


left, right = st.columns(2)
with left:
    # Where they go is said: into the collection open now, which may already hold another corpus.
    st.markdown(f"**Sample corpus** ({len(discover([ui.SAMPLES_DIR])[0])} files in `data/samples`), into the "
                f"collection `{collection}`" + (" beside its documents" if info is not None and info.documents else ""))
    if st.button("Ingest the samples", type="secondary" if info is not None and info.documents else "primary"):
        sources, problems = discover([ui.SAMPLES_DIR])
        # with the statement tiers (offline; they embed about as many texts again as the elements): the demo's list
        # and statement questions read them
        run_ingest(sources, problems, paths=[ui.SAMPLES_DIR], statement_tiers=True)
    manual, _ = discover([ui.MANUAL_DIR]) if ui.MANUAL_DIR.is_dir() else ([], [])
    if manual:
        files = f"{len(manual)} file{'' if len(manual) == 1 else 's'}"
        st.markdown(f"**This app's manual** ({files} in `docs`), into the collection `{ui.MANUAL_COLLECTION}`: "
                    "explore the documentation with the app itself.")
        if st.button("Ingest the manual"):
            run_ingest(manual, collection=ui.MANUAL_COLLECTION, paths=[ui.MANUAL_DIR], statement_tiers=True)
with right:
    uploads = st.file_uploader("Upload markdown (or HTML, DOCX) files", type=["md", "markdown", "html", "htm", "docx"],
                               accept_multiple_files=True)
    if uploads and st.button("Ingest uploaded files"):
        run_ingest([SourceFile(name=u.name, data=u.getvalue()) for u in uploads])

jobs.last_ingest(collection)
documents.document_manager(collection)
