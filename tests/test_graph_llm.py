"""The LLM paths of the index and of global search, through fake LangChain chat models and the real database."""

from __future__ import annotations

import pytest

from core.graph import (
    GlobalSearchOptions,
    GraphIndex,
    GraphIndexError,
    IndexConfig,
    build_index,
    global_search,
    load_citations,
    load_reports,
)
from core.graph.indexing.pipeline import run_index
from core.graph.llm_cache import cache_size
from tests.conftest import SAMPLES
from tests.helpers_graph import FakeGraphModel
from tests.test_graph_index import snapshot

LLM = IndexConfig(extraction="llm", reports="llm", concurrency=2)
SMALL_CORPUS = ["hanbit-space-institute-overview-ko.md", "nova-32ux-monitor-en.md"]


@pytest.fixture(scope="module")
def small_store(db_url, use_embeddings):
    """Two sample documents ingested once for this module. Tests rebuild the index as they need it; their fake
    models have distinct names, so their LLM cache entries (keyed by model) never meet."""
    import uuid

    from core.ingest import ingest_paths
    from core.store import ElementStore

    store = ElementStore(db_url, f"t_llm_{uuid.uuid4().hex[:8]}", use_embeddings)
    report = ingest_paths(store, [SAMPLES / name for name in SMALL_CORPUS])
    assert not report.errors
    yield store
    store.drop()


def test_llm_extraction_and_reports_with_cache(small_store):
    store = small_store
    model = FakeGraphModel()
    first = build_index(store, chat_model=model, config=LLM)
    assert first.extraction == "llm"
    assert first.llm_calls == model.calls > 0 and first.cached_calls == 0
    assert first.skipped_llm_replies > 0  # the fake always appends one malformed record: skipped, logged
    index = GraphIndex.open(store)
    assert index.info.extraction == "llm" and index.info.params["model"] == "hke-fake-graph:fake-graph-1"
    titles = {e.title: e for e in index.entities()}
    assert {"한빛우주과학연구원", "서도윤", "Nova 32UX", "DisplayPort"} <= set(titles)
    assert titles["서도윤"].type == "PERSON" and titles["서도윤"].description.endswith("is mentioned in the text.")
    rels = index.relationships()
    assert rels and all(r.weight % 5 == 0 for r in rels)  # strengths (5 each) are summed over units
    # reports: LLM-written where the fake's JSON cites existing rows; the uncitable finding is dropped
    reports = load_reports(store, level=None, kind=None)
    llm_reports = [r for r in reports if r.generated_by == "llm"]
    assert llm_reports and first.llm_reports == len(llm_reports)
    for r in llm_reports:
        assert r.title == "Fake community report" and r.rating == 7.5
        assert 1 <= len(r.findings) <= 2  # "Uncited" (an id that does not exist) never survives
        assert all(f.summary != "Uncited" for f in r.findings)
        assert not load_citations(store, r).missing
    assert cache_size(store.pool, store.collection_id) == first.llm_calls

    # Re-index the unchanged corpus with a fresh model object: every call is a cache hit.
    again = FakeGraphModel()
    second = build_index(store, chat_model=again, config=LLM)
    assert second.llm_calls == 0 and again.calls == 0
    assert second.cached_calls == first.llm_calls
    assert (second.entities, second.relationships, second.reports) == (first.entities, first.relationships,
                                                                        first.reports)  # fmt: skip


def test_malformed_replies_are_skipped_not_fatal(small_store):
    store = small_store
    model = FakeGraphModel(model_name="fake-malformed", malformed=3)  # every third reply is garbage
    report = build_index(store, chat_model=model, config=LLM)
    assert report.extraction == "llm" and report.entities > 0
    assert report.skipped_llm_replies > 0
    reports = load_reports(store, level=None, kind=None)
    assert {r.generated_by for r in reports} == {"llm", "extractive"}  # garbage reports fell back to extractive
    assert report.llm_reports + report.extractive_reports == report.reports == len(reports)


def test_a_model_that_stops_answering_midway_falls_back_and_the_index_completes(small_store):
    """Calls that fail after some succeeded: those units and communities fall back (issue 30), counted."""
    store = small_store
    model = FakeGraphModel(model_name="fake-failing", fail_on_call=5)
    report = build_index(store, chat_model=model, config=LLM)
    assert model.calls >= 5
    assert report.fallback_units >= 1 and report.llm_units + report.fallback_units == report.text_units
    assert report.fallback_reports == report.reports and report.llm_reports == 0
    assert GraphIndex.open(store).info.extraction == "llm"
    # the calls that succeeded before the failures were cached: a re-run does not pay for them again
    retry = FakeGraphModel(model_name="fake-failing")
    report = build_index(store, chat_model=retry, config=LLM)
    assert report.cached_calls >= 4 and report.llm_calls == retry.calls and report.fallback_units == 0


def test_a_model_that_fails_every_call_keeps_the_previous_index(small_store):
    store = small_store
    build_index(store, config=IndexConfig(extraction="offline", reports="extractive"))
    before = snapshot(store)
    model = FakeGraphModel(model_name="fake-dead", fail_on_call=1)
    with pytest.raises(GraphIndexError, match="failed every call .*previous index is unchanged"):
        build_index(store, chat_model=model, config=LLM)
    assert 3 <= model.calls <= 4  # stopped after three failed calls (two threads: one more may be under way)
    assert snapshot(store) == before
    assert GraphIndex.open(store).info.extraction == "offline"


def test_llm_global_search_map_reduce(small_store):
    store = small_store
    run_index(store, chat_model=FakeGraphModel(model_name="fake-global"), config=LLM)
    model = FakeGraphModel(model_name="fake-global")
    answer = global_search(store, "What is this collection about?", GlobalSearchOptions(level=0, batch_tokens=800),
                           chat_model=model)
    assert answer.generated_by == "llm"
    level0 = {r.community_id for r in load_reports(store, level=0)}
    assert answer.report_ids and set(answer.report_ids) <= level0
    assert "zz9" not in answer.report_ids  # the reducer's made-up id is not a citation
    assert answer.points and all(p.score > 0 for p in answer.points)  # 0-scored points were dropped
    assert answer.points == sorted(answer.points, key=lambda p: -p.score)
    n_map = sum(1 for p in model.prompts_seen if p.startswith("Below are community reports"))
    assert n_map >= 1 and model.calls == n_map + 1  # several token-bounded map batches, one reduce
    assert "[Data: Reports (" in answer.answer
    # same question again: answered from the cache
    cached = global_search(store, "What is this collection about?", GlobalSearchOptions(level=0, batch_tokens=800),
                           chat_model=FakeGraphModel(model_name="fake-global"))
    assert cached.llm_calls == 0 and cached.cached_calls == model.calls and cached.answer == answer.answer


def test_llm_global_search_with_no_map_reply_that_parses_answers_offline(small_store):
    store = small_store
    build_index(store, config=IndexConfig(extraction="offline", reports="extractive"))
    model = FakeGraphModel(model_name="fake-garbage", malformed=1)  # every map reply is garbage
    question = "What is this collection about?"
    answer = global_search(store, question, GlobalSearchOptions(level=0), chat_model=model)
    offline = global_search(store, question, GlobalSearchOptions(level=0, use_llm="extractive"))
    assert answer.generated_by == "extractive" and answer.answer == offline.answer
    assert answer.report_ids == offline.report_ids != []
    assert "not the JSON points" in answer.notice and offline.notice == ""
    assert answer.llm_calls == model.calls >= 1  # the map calls it cost; no reduce call was made
    assert all(not p.startswith("Several analysts") for p in model.prompts_seen)


def test_report_context_uses_sub_community_reports_when_too_big(small_store):
    """With a tiny budget, a parent community's context is made of its children's reports."""
    from core.graph.reports.context import ReportContext
    from core.graph.reports.extractive import extractive_report
    from core.graph.reports.llm import build_context

    result = run_index(small_store, config=IndexConfig(extraction="offline", reports="extractive"), write=False)
    graph, comms = result.graph, result.communities
    parent = next(c for c in comms if c.kind == "entity" and c.children and c.level == 0)
    ctx = ReportContext(graph, {c.id: c for c in comms}, graph.strength(), {})
    ctx.max_size = {(c.kind, c.level): max(x.size for x in comms if (x.kind, x.level) == (c.kind, c.level))
                    for c in comms}  # fmt: skip
    for child_id in parent.children:
        ctx.reports[child_id] = extractive_report(ctx.communities[child_id], ctx)
    text, refs = build_context(parent, ctx, budget=600)
    assert "-----Reports-----" in text and refs.reports
    assert set(refs.reports) <= set(parent.children)
    full, full_refs = build_context(parent, ctx, budget=100_000)
    assert "-----Reports-----" not in full and len(full_refs.entities) == parent.size
    # highest degree first
    ent = graph.entity_by_id
    degrees = [ent[e].degree for e in full_refs.entities.values()]
    assert degrees == sorted(degrees, reverse=True)
