"""The invariants of a stored collection, checked against a clean build of the same files.

After concurrent ingests, removals and drops a collection must look as if its final files had been ingested
one by one into an empty database:

1. no orphan parents: every ``parent_id`` names an element of the same document;
2. no duplicate ids: each element once, each document once, a document's rows exactly its ``n_elements``;
3. counts equal to a clean build: per file, the same content hash and the same elements in the same order;
4. vectors equal to a fresh embed: each stored vector is the embedder's vector of the element's embedded text.

The same holds for a collection's contextual index against the clean build's.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from core.db.pool import read_connection
from core.ingest import embedding_text
from core.store import ElementStore

ROWS = "SELECT element_id, parent_id, document_id, embedding FROM {elements}"


def _rows(store: ElementStore) -> list[tuple[str, str | None, str, np.ndarray]]:
    with read_connection(store.pool) as conn:
        return [(e, p, d, np.asarray(v, dtype=np.float32))
                for e, p, d, v in conn.execute(store.statement(ROWS)).fetchall()]


def _by_file(store: ElementStore) -> dict[str, tuple[str, list[tuple]]]:
    """Per source file: its content hash and its elements as (category, depth, order, heading path, text)."""
    out = {}
    for record in store.documents():
        assert record.source not in out, f"{record.source} stored twice in {store.collection}"
        elements = [(e.metadata.get("category"), e.metadata.get("category_depth"), e.metadata.get("order"),
                     tuple(e.metadata.get("heading_path") or ()), e.page_content)
                    for e in store.elements(record.document_id)]
        out[record.source] = (record.content_hash, elements)
    return out


def check_invariants(store: ElementStore, clean: ElementStore) -> dict[str, int]:
    """Assert the four invariants of ``store`` against ``clean`` (the same files ingested one by one); returns
    what was checked."""
    rows = _rows(store)
    ids = [e for e, *_ in rows]
    assert len(ids) == len(set(ids)), "duplicate element ids"
    by_doc = Counter(d for _, _, d, _ in rows)
    records = store.documents()
    assert len({r.document_id for r in records}) == len(records), "a document registered twice"
    assert {r.document_id: r.n_elements for r in records} == dict(by_doc), "rows per document differ from its record"
    members = {(d, e) for e, _, d, _ in rows}
    orphans = [(e, p) for e, p, d, _ in rows if p is not None and (d, p) not in members]
    assert orphans == [], f"elements whose parent is not in their document: {orphans[:5]}"

    assert _by_file(store) == _by_file(clean), "the stored files differ from a clean build of the same files"

    contextual = store.contextual or store.sibling_of is not None
    elements = {str(e.metadata["element_id"]): e for r in records for e in store.elements(r.document_id)}
    texts = [embedding_text(elements[e], contextual) for e, *_ in rows]
    fresh = np.asarray(store.embeddings.embed_documents(texts), dtype=np.float32) if texts else np.zeros((0, 0))
    stored = np.stack([v for *_, v in rows]) if rows else np.zeros((0, 0))
    assert np.allclose(stored, fresh, atol=1e-5), "a stored vector differs from a fresh embedding of its text"
    return {"documents": len(records), "elements": len(rows)}

