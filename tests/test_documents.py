"""The document manager's library (``core.documents``), which the CLI's ``remove`` and the Overview page
both call, against the real Postgres."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from core.documents import (
    NotCurrentError,
    create_collection,
    drop_collection,
    list_documents,
    removal_preview,
    remove_document,
)
from core.ingest import SourceFile, ingest
from core.store import StoreError, list_collections

FILES = [SourceFile("a.md", b"# A\n\n- Size : 1\n"), SourceFile("b.md", b"# B\n\nText.\n")]


def test_retire_as_of_a_date_then_purge_and_the_list_says_each_state(store):
    assert not ingest(store, FILES, valid_from="2024-01-01").errors
    assert [(r.filename, r.version, r.status) for r in list_documents(store)] == [("a.md", 1, "current"),
                                                                                 ("b.md", 1, "current")]
    when = datetime(2025, 1, 1, tzinfo=UTC)
    done = remove_document(store, "a.md", when=when)
    assert done.removed and not done.purged and done.versions == 1 and done.retired_at == when
    rows = {r.filename: r for r in list_documents(store)}
    assert rows["a.md"].status == "retired" and rows["a.md"].retired_at == when
    with pytest.raises(NotCurrentError, match="it was retired"):
        remove_document(store, "a.md")
    preview = removal_preview(store, "a.md", purge=True)
    assert (preview.versions, preview.removed) == (1, False)
    assert [r.filename for r in list_documents(store)] == ["a.md", "b.md"]  # a preview deletes nothing
    gone = remove_document(store, "a.md", purge=True)
    assert gone.removed and gone.purged
    assert [r.filename for r in list_documents(store)] == ["b.md"]
    with pytest.raises(ValueError, match="give one"):
        remove_document(store, "b.md", purge=True, when=when)


def test_create_refuses_an_existing_collection_and_drop_deletes_it(db_url, use_embeddings, collection_name):
    made = create_collection(db_url, collection_name, use_embeddings)
    assert collection_name in {c.name for c in list_collections(db_url)}
    with pytest.raises(StoreError, match="already exists"):
        create_collection(db_url, collection_name, use_embeddings)
    with pytest.raises(StoreError, match="not valid"):
        create_collection(db_url, "no spaces/or slashes", use_embeddings)
    drop_collection(made)
    assert collection_name not in {c.name for c in list_collections(db_url)}
