"""The heading index's parent links (each heading's parent heading, read by id when a question scores a path) and
its documents read by place: equal to a rebuild after every kind of write, in memory and through the store; and
the ranking they serve equals the ranking that reads every path by place, on the sample corpora and their
question sets. Real Postgres for the store part; the hash embedder (the model is not under test)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.markdown_loader import parse_markdown
from core.retrieval.heading_cache import heading_index
from core.retrieval.headings import (
    HeadingIndex,
    HeadingRef,
    called_names,
    heading_words,
    load_headings,
    rank_headings,
    words,
)
from core.retrieval.shape import split_preamble
from tests.test_retrieval_stored_index import put

ROOT = Path(__file__).resolve().parents[1]


def _refs(folder: Path) -> list[HeadingRef]:
    out = []
    for path in sorted(folder.glob("*.md")):
        for d in parse_markdown(path.read_text(encoding="utf-8"), source=str(path), document_id=path.stem):
            m = d.metadata
            if m["category"] == "Title":
                out.append(HeadingRef(m["element_id"], d.page_content, tuple(m["heading_path"]), path.stem,
                                      m["filename"], m["order"]))
    return out


def _questions() -> list[str]:
    out = []
    for path in (ROOT / "data").rglob("*.json"):
        if "nodejs" in path.parts:
            continue
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (ValueError, UnicodeDecodeError):
            continue
        if isinstance(data, dict):
            out += [q["question"] for q in data.get("questions", ()) if isinstance(q, dict) and "question" in q]
    return out


def _read_by_place(index: HeadingIndex) -> HeadingIndex:
    """The same index with every document's paths read by place and tokenised: the ranking before parent links."""
    index._unplaced = set(index._documents)
    return index


def _links(index: HeadingIndex) -> tuple[dict[str, str | None], set[str]]:
    """Each heading's parent (element ids) and the documents read by place."""
    return ({h.element_id: index.headings[p].element_id if (p := index._parent[i]) is not None else None
             for i, h in index.headings.items()}, index.unplaced_documents())


def _h(doc: str, n: int, text: str, *path: str) -> HeadingRef:
    return HeadingRef(f"{doc}-{n}", text, tuple(path), doc, f"{doc}.md", n)


def _doc(doc: str, title: str, *, placed: bool = True) -> list[HeadingRef]:
    """A title, two sections (one a duplicate name, as READMEs have) and a subsection; unplaced: one heading's path
    names a heading the document lacks."""
    out = [_h(doc, 0, title), _h(doc, 1, "Usage", title), _h(doc, 2, "Options 24FL", title, "Usage"),
           _h(doc, 3, "Usage", title), _h(doc, 4, "무게 사양", title, "Usage")]
    if not placed:
        out.append(_h(doc, 5, "Stand", title, "Specifications"))
    return out


QUESTIONS = ["What are the Options of the Nova 24FL?", "Nova 32UX usage", "무게는?", "Stand of the Nova 27QX",
             "Which options does usage list?", "24FL 무게"]


def test_parent_links_equal_a_rebuild_after_each_write():
    docs = {"a": _doc("a", "Nova 24FL"), "b": _doc("b", "Nova 32UX", placed=False), "c": _doc("c", "Nova 27QX")}
    index = HeadingIndex([h for d in docs.values() for h in d])
    assert index.unplaced_documents() == {"b"}
    for changed, headings in (
        (["a"], _doc("a", "Nova 24FL Pro")),  # a document rewritten
        (["b"], _doc("b", "Nova 32UX")),  # its missing heading gone: read by id again
        (["c"], _doc("c", "Nova 27QX", placed=False)),  # a heading under a path it lacks
        (["a"], []),  # a document removed
        (["d"], _doc("d", "Nova 24FL")),  # a document added
    ):
        index.replace_documents(changed, headings)
        for document_id in changed:
            docs.pop(document_id, None)
        if headings:
            docs[headings[0].document_id] = headings
        rebuilt = HeadingIndex([h for d in sorted(docs) for h in docs[d]])
        assert _links(index) == _links(rebuilt)
        for q in QUESTIONS:
            assert rank_headings(q, index) == rank_headings(q, rebuilt), q
            assert rank_headings(q, index) == rank_headings(q, _read_by_place(HeadingIndex(rebuilt.headings.values())))
    assert _links(index)[1] == {"c"}
    links = _links(index)[0]
    # a path two headings share ("Usage" twice) is the later one's, as reading by place finds it
    assert links["c-2"] == links["c-4"] == "c-3" and links["c-1"] == "c-0"
    assert links["c-5"] is None and links["d-0"] is None
    index.replace_documents(["c"], [])  # the document read by place removed
    assert _links(index) == _links(HeadingIndex(docs["d"] + docs["b"])) and not index.unplaced_documents()


@pytest.mark.parametrize("corpus", ["samples", "near_twin"])
def test_the_ranking_by_parent_links_equals_the_ranking_by_place(corpus):
    """Every question of the sets (those of the held-out platform aside) against the corpus' headings: same
    matches, in the same order, with the same scores and scope names."""
    headings = _refs(ROOT / "data" / corpus)
    fast, by_place = HeadingIndex(headings), _read_by_place(HeadingIndex(headings))
    assert not fast.unplaced_documents()
    questions = _questions()
    assert len(questions) > 300
    named = 0
    for q in questions:
        ranked = rank_headings(q, fast)
        assert ranked == rank_headings(q, by_place), q
        named += bool(ranked)
    assert named > 50, "the comparison covers questions that name headings"



def test_the_stored_index_brought_up_to_date_keeps_links_equal_to_a_rebuild(hash_store):
    store = hash_store
    put(store, "ko", [("Title", "노바 24FL 모니터", []), ("Title", "제품사양", ["노바 24FL 모니터"]),
                      ("ListItem", "무게 : 2.9 kg", ["노바 24FL 모니터", "제품사양"])])
    put(store, "en", [("Title", "Nova 32UX", []), ("Title", "Ports", ["Nova 32UX"]),
                      ("Title", "USB-C", ["Nova 32UX", "Ports"])])
    index = heading_index(store)
    put(store, "ko", [("Title", "노바 27QX 모니터", []), ("Title", "제품사양", ["노바 27QX 모니터"]),
                      ("Title", "크기 & 무게", ["노바 27QX 모니터", "제품사양"])], "2")
    store.write.remove_document("en")
    put(store, "fr", [("Title", "Nova 34WC", []), ("Title", "Ports", ["Nova 34WC"])])
    assert heading_index(store) is index, "brought up to date in place"
    rebuilt = HeadingIndex(load_headings(store))
    assert _links(index) == _links(rebuilt)
    assert _links(index)[0] == {"ko-0": None, "ko-1": "ko-0", "ko-2": "ko-1", "fr-0": None, "fr-1": "fr-0"}
    for q in ("노바 27QX 모니터의 무게는?", "Which ports does the Nova 34WC have?", "제품사양"):
        assert rank_headings(q, index) == rank_headings(q, rebuilt), q


def test_the_names_headings_call_follow_each_write():
    a = [_h("a", 0, "Nova API"), _h("a", 1, "Method: `run(task[, options])`", "Nova API"),
         _h("a", 2, "send(req, path, [options])", "Nova API")]
    b = [_h("b", 0, "Other"), _h("b", 1, "new WebSocket(address)", "Other")]
    index = HeadingIndex(a + b)
    question = "What do `run`, `send` and `WebSocket` return, and what does `Nova` do?"
    assert called_names(question, index) == {"run", "send", "websocket"}
    index.replace_documents(["a"], a[:2])  # send's heading gone
    assert called_names(question, index) == {"run", "websocket"} == called_names(question, HeadingIndex(a[:2] + b))
    index.replace_documents(["b"], [])
    assert called_names(question, index) == {"run"}
    index.replace_documents(["a"], [])
    assert called_names(question, index) == frozenset() and not index._calls


@pytest.mark.parametrize("corpus", ["samples", "near_twin"])
def test_the_headings_a_preamble_holds_whole_are_found_by_counting_as_by_reading_each(corpus):
    """The headings whose words a preamble holds whole ("In 9.0 Migration Notes, …"), found by counting the pool
    words each heading holds, equal those found by reading every heading's words: for every question's preamble
    and words, and for the words of every heading with a word added or taken away."""
    index = HeadingIndex(_refs(ROOT / "data" / corpus))

    def read_each(pool: set[str]) -> set[int]:
        return {i for i, h in index.headings.items() if (own := heading_words(h.text)) and own <= pool}

    pools = [set(words(part)) for q in _questions() for part in (split_preamble(q)[0], q)]
    for h in index.headings.values():
        own = set(heading_words(h.text))
        pools += [own, own | {"extra"}, own - {min(own, default="")}]
    found = 0
    for pool in pools:
        assert set(index.held_whole(pool)) == read_each(pool), sorted(pool)
        found += bool(read_each(pool))
    assert found > 100, "the comparison covers pools that hold headings whole"
