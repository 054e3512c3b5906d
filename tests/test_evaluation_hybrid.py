"""Hybrid retrieval finds exact tokens that the vector search misses, in English and in Korean."""

from __future__ import annotations

from core.elements import Element
from core.ingest import SourceFile, ingest
from core.retrieval import (
    STRATEGIES,
    Hit,
    Scope,
    embed_query,
    fts_search,
    fts_terms,
    rrf_fuse,
    tsquery_lexeme,
    vector_search,
)
from core.retrieval.search import search


def hybrid_hits(store, question, query, k):
    return search(store, question, query, k, Scope.whole(), STRATEGIES["hybrid"].but(headings=False))

PARTS = ["charging cable", "wall bracket", "battery pack", "power adapter", "carry case", "screen protector",
         "stylus pen", "docking station", "cooling fan", "remote control", "antenna", "mounting screw"]
CODES = [f"QX-{7731 + i}" for i in range(len(PARTS))]
EN = "# Fleet Handbook\n## Spare parts\n" + "".join(f"* The {p} is part {c}.\n" for p, c in zip(PARTS, CODES,
                                                                                                  strict=True))
WAREHOUSES = ["빛고을창고", "한울창고", "새솔창고", "다온창고", "가람창고", "미르창고", "누리창고", "해솔창고"]
ITEMS = ["예비 충전 케이블", "벽걸이 브래킷", "교체용 배터리", "전원 어댑터", "휴대용 케이스", "화면 보호 필름",
         "스타일러스 펜", "도킹 스테이션"]
KO = "# 차량 관리 안내\n## 보관 장소\n" + "".join(f"* {i}은 {w}에 보관합니다.\n" for i, w in zip(ITEMS, WAREHOUSES,
                                                                                             strict=True))
K = 3


def _recall(store, questions: list[tuple[str, str]]) -> tuple[int, int]:
    vector_found = hybrid_found = 0
    for question, token in questions:
        query = embed_query(store, question)
        vector_found += any(token in h.element.page_content for h in vector_search(store, query, K))
        hybrid_found += any(token in h.element.page_content for h in hybrid_hits(store, question, query, K)[0])
    return vector_found, hybrid_found


def test_hybrid_finds_exact_tokens_the_vector_search_misses(store):
    assert not ingest(store, [SourceFile("en.md", EN.encode()), SourceFile("ko.md", KO.encode())]).errors
    english = [(f"Which spare part has the number {code}?", code) for code in CODES]
    korean = [(f"{w}에 있는 것은?", w) for w in WAREHOUSES]
    en_vector, en_hybrid = _recall(store, english)
    ko_vector, ko_hybrid = _recall(store, korean)
    # Part numbers and warehouse names are tokens, not meanings: the embedding blurs QX-7731 and QX-7734.
    assert en_hybrid == len(english) and en_vector < en_hybrid, (en_vector, en_hybrid)
    assert ko_hybrid == len(korean) and ko_vector < ko_hybrid, (ko_vector, ko_hybrid)
    # Full-text alone ranks the one element holding the token first; particles ("에", "은") are stripped.
    query = embed_query(store, korean[0][0])
    assert WAREHOUSES[0] in fts_search(store, korean[0][0], query, 5)[0].element.page_content


def test_fts_is_safe_with_tsquery_syntax_and_empty_questions(store):
    assert not ingest(store, [SourceFile("en.md", EN.encode())]).errors
    query = embed_query(store, "x")
    for hostile in ["it's a \\ back'slash & | ! ( ) :* <->", "'; DROP TABLE hke_documents; --", "???", " "]:
        fts_search(store, hostile, query, 5)  # must not raise
    assert fts_search(store, "the what is", query, 5) == []  # stop words only: no terms, no rows
    assert tsquery_lexeme("a'b\\c") == "'a''b\\\\c'" and tsquery_lexeme("무게", prefix=True) == "'무게':*"
    assert fts_terms("Nova 24FL 모니터의 무게는 얼마인가요?") == ["모니터", "무게"]


def test_rrf_fuse_orders_by_summed_reciprocal_ranks():
    def hits(*ids: str) -> list[Hit]:
        return [Hit(Element.from_metadata(i, {"element_id": i}), r, 0.5) for r, i in enumerate(ids)]

    fused = rrf_fuse([hits("a", "b", "c"), hits("c", "d")], k=3)
    # c: 1/63 + 1/61 beats a: 1/61; b (1/62) ties d (1/62) and loses on rank (both 2nd) then list order.
    assert [h.element_id for h in fused] == ["c", "a", "b"]
    assert [h.rank for h in fused] == [0, 1, 2]
