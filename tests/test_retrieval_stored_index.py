"""What retrieval reads from the store instead of recomputing per question: the full-text lexemes stored in each
element's row, and the heading index kept per document. Guards: the stored lexemes are exactly what the query side
matched before (Korean prefix terms included) and no query parses stored text; a document change updates only
that document's headings, in this process and in another one; a collection table made before either gets them
when it is opened. Real Postgres; the hash embedder (the model is not under test)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from langchain_core.documents import Document

from core.retrieval.heading_cache import heading_index
from core.retrieval.headings import best_headings, load_headings
from core.retrieval.search import fts_scored
from core.sql import elements as element_sql
from core.sql import retrieval as retrieval_sql
from core.store import DocumentRecord, ElementStore
from tests.helpers_embeddings import HashEmbeddings

ROOT = Path(__file__).resolve().parents[1]

KOREAN = [  # (category, text, heading path)
    ("Title", "노바 24FL 모니터", []),
    ("Title", "제품사양", ["노바 24FL 모니터"]),
    ("ListItem", "무게는 2.9 kg입니다", ["노바 24FL 모니터", "제품사양"]),
    ("ListItem", "모니터의 밝기는 350 니트", ["노바 24FL 모니터", "제품사양"]),
]
ENGLISH = [
    ("Title", "Nova 32UX monitor", []),
    ("Title", "Ports", ["Nova 32UX monitor"]),
    ("ListItem", "USB-C port charges the NV-24FL at 65 W; see fs.readFile v16.7.0", ["Nova 32UX monitor", "Ports"]),
    ("NarrativeText", "The stand's weight is 4.1 kg.", ["Nova 32UX monitor"]),
]


def put(store: ElementStore, document_id: str, items: list[tuple[str, str, list[str]]], version: str = "1") -> None:
    """Store ``items`` as one document (parents: the last heading above each element)."""
    docs, parents = [], {}
    for order, (category, text, path) in enumerate(items):
        element_id = f"{document_id}-{order}"
        parent = parents.get(tuple(path))
        if category == "Title":
            parents[(*path, text)] = element_id
        docs.append(Document(id=element_id, page_content=text, metadata={
            "element_id": element_id, "parent_id": parent, "document_id": document_id, "category": category,
            "category_depth": len(path), "order": order, "heading_path": list(path), "filename": f"{document_id}.md"}))
    vectors = np.asarray(store.embeddings.embed_documents([d.page_content for d in docs]), dtype=np.float32)
    record = DocumentRecord(document_id, f"{document_id}.md", f"{document_id}.md", items[0][1],
                            f"{document_id}-{version}", "test", len(docs), 1)
    assert store.write.replace_document(record, docs, vectors)



def _matching(store: ElementStore, where: str, term: str) -> set[str]:
    with store.pool.connection() as conn:
        rows = conn.execute(store.statement(f"SELECT element_id FROM {{elements}} WHERE {where} @@ to_tsquery("  # noqa: S608
                                            "'simple', %s)"), (term,)).fetchall()
    return {r[0] for r in rows}


def test_stored_lexemes_are_what_the_query_side_matched_korean_and_english(hash_store):
    store = hash_store
    put(store, "ko", KOREAN)
    put(store, "en", ENGLISH)
    with store.pool.connection() as conn:
        rows = conn.execute(store.statement(
            f"SELECT element_id, {element_sql.FTS_COLUMN}::text, ({element_sql.FTS_EXPRESSION})::text "  # noqa: S608
            "FROM {elements}")).fetchall()
    assert len(rows) == 8
    for element_id, stored, computed in rows:
        assert stored == computed, element_id
    # Prefix terms (what fts_terms makes of Korean questions) and exact ones match the same rows as before.
    for term in ("'모니터':*", "'무게':*", "'제품사양':*", "'nv-24fl'", "'usb-c'", "'fs.readfile'", "'65'", "'weight'"):
        stored = _matching(store, element_sql.FTS_COLUMN, term)
        assert stored, term
        assert stored == _matching(store, f"({element_sql.FTS_EXPRESSION})", term), term
    vector = np.asarray(store.embeddings.embed_query("q"), dtype=np.float32)
    found = [h.element.page_content for h, _ in fts_scored(store, "모니터의 무게는?", vector, 4)]
    assert "무게는 2.9 kg입니다" in found
    found = [h.element.page_content for h, _ in fts_scored(store, "Which port charges the NV-24FL?", vector, 4)]
    assert found[0].startswith("USB-C port")


@pytest.mark.parametrize("n_terms", [None, 1])  # terms held as an array, or as a bit mask
@pytest.mark.parametrize("scope_kind", ["collection", "document", "subtree"])
def test_no_full_text_query_parses_stored_text(hash_store, scope_kind, n_terms):
    store = hash_store
    put(store, "en", ENGLISH)
    params = {"collection_id": store.collection_id, "terms": ["'usb-c'"], "scanned": [True], "counts": [0],
              "total": None, "query": "'usb-c'", "k": 4,
              "query_vector": np.zeros(512, dtype=np.float32), "document_id": "en", "root_ids": ["en-0"]}
    statement = "EXPLAIN (VERBOSE, COSTS OFF) " + store.statement(retrieval_sql.fulltext_statement(scope_kind,
                                                                                                  n_terms=n_terms))
    with store.pool.connection() as conn:
        plan = "\n".join(r[0] for r in conn.execute(statement, params))
    assert "to_tsvector" not in plan
    assert f"{element_sql.FTS_COLUMN}" in plan


CHILD = """
import json, sys
sys.path.insert(0, sys.argv[1])
from core.retrieval.heading_cache import heading_index
from core.store import ElementStore
from tests.helpers_embeddings import HashEmbeddings
from tests.test_retrieval_stored_index import put
store = ElementStore(sys.argv[2], sys.argv[3], HashEmbeddings(), create=False)
if sys.argv[4] == "change":
    put(store, "ko", [("Title", "노바 27QX 모니터", []), ("ListItem", "무게 : 3.1 kg", ["노바 27QX 모니터"])], "2")
index = heading_index(store)
print(json.dumps(sorted(h.text for h in index.headings.values())))
"""


def _child(store: ElementStore, action: str) -> list[str]:
    out = subprocess.run([sys.executable, "-c", CHILD, str(ROOT), store.url, store.collection, action],
                         capture_output=True, text=True, timeout=120, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_a_document_change_updates_only_its_headings_in_this_process_and_another(hash_store):
    store = hash_store
    put(store, "ko", KOREAN)
    put(store, "en", ENGLISH)
    index = heading_index(store)
    english = {i: h for i, h in index.headings.items() if h.document_id == "en"}
    assert sorted(h.text for h in english.values()) == ["Nova 32UX monitor", "Ports"]
    version = store.read.heading_state().version

    assert _child(store, "change") == ["Nova 32UX monitor", "Ports", "노바 27QX 모니터"]  # another process writes

    state = store.read.heading_state(version)
    assert state.changed == ("ko",), "the change names the one document written"
    assert heading_index(store) is index, "brought up to date in place, not rebuilt"
    assert {i: h for i, h in index.headings.items() if h.document_id == "en"} == english, "untouched: same entries"
    assert sorted(h.text for h in index.headings.values() if h.document_id == "ko") == ["노바 27QX 모니터"]
    assert index.holding("27qx") and not index.holding("24fl") and not index.holding("제품사양")
    for q in ("노바 27QX 모니터의 무게는?", "Nova 24FL 무게", "Which ports does the Nova 32UX have?"):
        assert best_headings(q, index) == best_headings(q, load_headings(store)), q

    store.write.remove_document("en")
    assert sorted(h.text for h in heading_index(store).headings.values()) == ["노바 27QX 모니터"]
    assert _child(store, "read") == ["노바 27QX 모니터"], "a fresh process reads the stored index"


def _make_old(store: ElementStore, *, with_old_index: bool) -> None:
    """The table and state of a collection made before the stored lexemes and the stored heading index."""
    with store.pool.connection() as conn:
        conn.execute(store.statement("DROP INDEX {fts}"))
        conn.execute(store.statement(f"ALTER TABLE {{elements}} DROP COLUMN {element_sql.FTS_COLUMN}"))  # noqa: S608
        if with_old_index:
            conn.execute(store.statement(
                f"CREATE INDEX {{fts}} ON {{elements}} USING gin ({element_sql.FTS_EXPRESSION})"))  # noqa: S608
        for table in ("hke_headings", "hke_heading_state", "hke_heading_changes"):
            conn.execute(f"DELETE FROM {table} WHERE collection_id = %s", (store.collection_id,))  # noqa: S608
        conn.commit()


@pytest.mark.parametrize("with_old_index", [True, False])
def test_a_collection_made_before_the_stored_lexemes_and_headings_gets_them_on_open(hash_store, with_old_index):
    store = hash_store
    put(store, "ko", KOREAN)
    put(store, "en", ENGLISH)
    vector = np.asarray(store.embeddings.embed_query("q"), dtype=np.float32)
    question = "Nova 24FL 모니터의 무게는?"
    expected = [(h.element_id, s) for h, s in fts_scored(store, question, vector, 4)]
    match = best_headings(question, load_headings(store))
    assert expected and match is not None
    _make_old(store, with_old_index=with_old_index)
    with pytest.raises(Exception, match="fts"):
        fts_scored(store, question, vector, 4)  # what this version's query needs is missing

    reopened = ElementStore(store.url, store.collection, HashEmbeddings(), create=False)
    with reopened.pool.connection() as conn:
        generated = conn.execute("SELECT attgenerated FROM pg_attribute WHERE attrelid = %s::regclass AND attname = %s",
                                 (reopened.table, element_sql.FTS_COLUMN)).fetchone()
        indexdef = conn.execute("SELECT indexdef FROM pg_indexes WHERE indexname = %s",
                                (f"{reopened.table}_fts",)).fetchone()[0]
    assert generated == ("s",), "a stored generated column"
    assert indexdef.endswith(f"USING gin ({element_sql.FTS_COLUMN})"), indexdef
    assert [(h.element_id, s) for h, s in fts_scored(reopened, question, vector, 4)] == expected

    assert reopened.read.heading_state().current, "filled from the elements when opened"
    assert best_headings(question, heading_index(reopened)) == match
    assert sorted(h.element_id for h in reopened.read.headings()) == sorted(h.element_id for h in load_headings(store))
    ElementStore(store.url, store.collection, HashEmbeddings(), create=False)  # opening again changes nothing
