"""The offline GraphRAG index on the sample corpus, in the real database: tables, reports, citations, reads, CLI."""

from __future__ import annotations

import json

import networkx as nx
import pandas as pd
import psycopg
import pytest

from core.graph import (
    GlobalSearchOptions,
    GraphIndex,
    GraphIndexMissing,
    IndexConfig,
    community_subgraph,
    global_search,
    hierarchy,
    index_exists,
    index_info,
    load_citations,
    load_reports,
)
from core.graph.indexing.pipeline import STAGES, run_index
from core.graph.reports.generate import material
from core.store.graph_records import MAX_FINDINGS, MIN_FINDINGS
from core.store.graph_tables import GraphTables

OFFLINE = IndexConfig(extraction="offline", reports="extractive")


def snapshot(store) -> dict[str, list]:
    """Every graph row of the collection (minus build time), for equality checks."""
    out = {}
    queries = {
        "text_units": "SELECT id, human_readable_id, heading_path, text, element_ids, entity_ids FROM hke_text_units "
        "WHERE collection_id = %s ORDER BY id",
        "entities": "SELECT id, title, type, description, degree, text_unit_ids, element_ids FROM hke_entities "
        "WHERE collection_id = %s ORDER BY id",
        "relationships": "SELECT id, source_id, target_id, weight, description FROM hke_relationships "
        "WHERE collection_id = %s ORDER BY id",
        "communities": "SELECT id, kind, level, parent, children, title, entity_ids, relationship_ids, size "
        "FROM hke_communities WHERE collection_id = %s ORDER BY id",
        "reports": "SELECT community_id, title, summary, rating, rating_explanation, findings, full_content, "
        "generated_by FROM hke_community_reports WHERE collection_id = %s ORDER BY community_id",
    }
    with store.pool.connection() as conn:
        for name, query in queries.items():
            out[name] = [tuple(json.dumps(v, sort_keys=True) if isinstance(v, (dict, list)) else v for v in row)
                         for row in conn.execute(query, (store.collection_id,)).fetchall()]
    return out


@pytest.fixture(scope="module")
def indexed(samples_store):
    stages: list[tuple[str, int, int]] = []
    result = run_index(samples_store, config=OFFLINE, progress=lambda p: stages.append((p.stage, p.done, p.total)))
    return samples_store, result, stages


@pytest.mark.remote
def test_index_report_and_progress(indexed):
    store, result, stages = indexed
    report = result.report
    assert report.extraction == "offline" and report.llm_calls == 0 and report.cached_calls == 0
    assert report.text_units > 10 and report.entities > 100 and report.relationships > report.entities
    assert report.communities and min(report.communities) == 0
    assert report.structural_communities[0] == 10  # one per sample document
    assert report.reports == sum(report.communities.values()) + sum(report.structural_communities.values())
    assert report.extractive_reports == report.reports and report.llm_reports == 0
    assert list(report.stages) == list(STAGES)
    # progress: every stage reported, in order, ending with done == total
    seen = list(dict.fromkeys(s for s, _d, _t in stages))
    assert seen == list(STAGES)
    for stage in STAGES:
        last = [x for x in stages if x[0] == stage][-1]
        assert last[1] == last[2]
    assert index_exists(store)
    info = GraphIndex.open(store).info
    assert info.extraction == "offline" and info.params["max_cluster_size"] == 10


def test_reports_validate_against_the_schema(indexed):
    store, result, _ = indexed
    graph = result.graph
    by_id = {c.id: c for c in result.communities}
    stored = load_reports(store, level=None, kind=None)
    assert len(stored) == len(result.reports)
    for r in stored:
        c = by_id[r.community_id]
        assert r.kind == c.kind and r.level == c.level and r.generated_by == "extractive"
        assert r.title.strip() and r.summary.strip() and r.full_content.startswith(f"# {r.title}")
        assert 0 <= r.rating <= 10
        assert r.rating_explanation.strip() and "\n" not in r.rating_explanation
        # the 5-finding rule: at least min(5, material), at most 10
        assert min(MIN_FINDINGS, material(c, graph)) <= len(r.findings) <= MAX_FINDINGS, r.community_id
        for f in r.findings:
            assert f.summary.strip() and f.explanation.strip()
            assert f.entity_ids or f.element_ids
    assert any(len(r.findings) >= MIN_FINDINGS for r in stored)
    entity_reports = [r for r in stored if r.kind == "entity"]
    assert max(r.rating for r in entity_reports) > min(r.rating for r in entity_reports)  # ratings discriminate


def test_every_citation_resolves(indexed):
    store, _result, _ = indexed
    index = GraphIndex.open(store)
    entity_ids = {e.id for e in index.entities()}
    rel_ids = {r.id for r in index.relationships()}
    all_elements: set[str] = set()
    for r in index.reports(level=None, kind=None):
        for f in r.findings:
            assert set(f.entity_ids) <= entity_ids
            assert set(f.relationship_ids) <= rel_ids
            all_elements.update(f.element_ids)
    found = {d.id for d in store.get(all_elements)}
    assert found == all_elements, "every cited element id is in the element store"
    # load_citations on one report: nothing missing
    best = index.reports(level=0)[0]
    cited = load_citations(store, best)
    assert not cited.missing and cited.entities and cited.elements
    # entities and relationships point at existing units and elements
    unit_ids = {u.id for u in index.text_units()}
    for e in index.entities():
        assert set(e.text_unit_ids) <= unit_ids
    for rel in index.relationships():
        assert rel.source_id in entity_ids and rel.target_id in entity_ids


def test_community_hierarchy_is_consistent(indexed):
    store, _result, _ = indexed
    index = GraphIndex.open(store)
    for kind in ("entity", "structural"):
        comms = {c.id: c for c in index.communities(kind=kind)}
        assert comms
        for c in comms.values():
            assert c.kind == kind and c.size == len(c.entity_ids)
            if c.parent is None:
                assert c.level == 0
            else:
                parent = comms[c.parent]
                assert parent.level == c.level - 1 and c.id in parent.children
                if kind == "entity":
                    assert set(c.entity_ids) <= set(parent.entity_ids)
            for child in c.children:
                assert comms[child].parent == c.id
            members = set(c.entity_ids)
            for rel in index.relationships(c.relationship_ids):
                assert rel.source_id in members and rel.target_id in members
        assert [x.id for x in index.children(next(iter(comms)))] == sorted(
            comms[next(iter(comms))].children, key=lambda i: (-comms[i].size, comms[i].human_readable_id)
        )
    rows = hierarchy(store, "entity")
    assert {r.id for r in rows} == {c.id for c in index.communities(kind="entity")}
    assert all(r.rating is not None and r.title for r in rows)
    assert index.levels("entity") == {lvl: sum(1 for r in rows if r.level == lvl) for lvl in {r.level for r in rows}}


def test_structural_communities_follow_headings(indexed):
    store, _result, _ = indexed
    docs = GraphIndex.open(store).communities(kind="structural", level=0)
    titles = {c.title for c in docs}
    assert "한빛우주과학연구원 기관 소개" in titles
    hanbit = next(c for c in docs if c.title == "한빛우주과학연구원 기관 소개")
    sections = {c.title for c in GraphIndex.open(store).children(hanbit.id)}
    assert {"개요", "연혁", "조직", "주요 위성 사업", "협력 기관"} <= sections
    report = GraphIndex.open(store).report(hanbit.id)
    assert report.title == "한빛우주과학연구원 기관 소개" and report.kind == "structural"
    assert "서도윤" in {e.title for e in community_subgraph(store, hanbit.id)[0]}


@pytest.mark.remote
def test_reindex_is_deterministic(indexed):
    store, _result, _ = indexed
    before = snapshot(store)
    run_index(store, config=OFFLINE)
    assert snapshot(store) == before


@pytest.mark.remote
def test_reindex_is_atomic_when_the_write_fails(indexed):
    """A report that violates a DB constraint (rating 11) aborts the replace midway: the old index stays."""
    store, result, _ = indexed
    before = snapshot(store)
    bad = [*result.reports]
    bad[-1] = type(bad[-1])(**{**bad[-1].__dict__, "rating": 11.0})
    with pytest.raises(psycopg.errors.CheckViolation):
        GraphTables(store).replace_index(
            units=result.graph.units, entities=result.graph.entities[:5], relationships=[],
            communities=result.communities, reports=bad, extraction="offline", params={}, stats={},
        )  # fmt: skip
    assert snapshot(store) == before


def test_offline_global_search_cites_reports(indexed):
    store, _result, _ = indexed
    answer = global_search(store, "Who is the director of the space institute?",
                           GlobalSearchOptions(use_llm="extractive"))
    assert answer.generated_by == "extractive" and answer.answer.startswith("Extractive answer")
    assert answer.report_ids and answer.points
    selectable = {r.community_id for r in load_reports(store, level=None, kind="entity")}
    assert set(answer.report_ids) <= selectable
    for rid in answer.report_ids:
        assert f"[Data: Reports ({rid})]" in answer.answer
    assert all(0 < p.score <= 100 for p in answer.points)
    assert answer.points == sorted(answer.points, key=lambda p: -p.score)
    structural = global_search(store, "모니터 보증 기간", GlobalSearchOptions(kind="structural", level=1,
                                                                       use_llm="extractive"))
    assert structural.report_ids and structural.kind == "structural"


@pytest.mark.parametrize("question", ["What are the main themes of this collection?", "What is this corpus about?",
                                      "이 컬렉션의 주요 주제는 무엇인가요?", "문서들은 무엇에 관한 것인가요?"])
def test_offline_overview_lists_every_top_level_theme_cited(indexed, question):
    store, _result, _ = indexed
    answer = global_search(store, question, GlobalSearchOptions(use_llm="extractive"))
    top = load_reports(store, level=0, kind="entity")
    ranked = sorted(top, key=lambda r: (-r.rating, r.community_id))
    assert answer.report_ids == [r.community_id for r in ranked], "every theme, most important first"
    lines = [line for line in answer.answer.splitlines() if line.startswith("- **")]
    assert len(lines) == len(top)
    for line, report in zip(lines, ranked, strict=True):
        assert line.startswith(f"- **{report.title}**") and f"[Data: Reports ({report.community_id})]" in line
    assert "is linked to" not in answer.answer


def test_offline_search_below_the_relevance_floor_says_no_report_covers_it(indexed):
    store, _result, _ = indexed
    answer = global_search(store, "What is the recipe for kimchi stew?", GlobalSearchOptions(use_llm="extractive"))
    assert answer.report_ids == [] and answer.points == []
    assert "no community report covers" in answer.answer and "relevance floor" in answer.answer
    specific = global_search(store, "What ports does the Nova 32UX have?", GlobalSearchOptions(use_llm="extractive"))
    assert specific.report_ids and all(p.score >= 35 for p in specific.points)


def test_ratings_mean_importance_and_explain_themselves(indexed):
    store, _result, _ = indexed
    reports = load_reports(store, level=0, kind="entity")
    for r in reports:
        assert r.rating_explanation.startswith(f"Rated {r.rating:g}/10 for importance")
        assert "of the corpus's elements" in r.rating_explanation and "documents" in r.rating_explanation
    smallest = min(reports, key=lambda r: r.size)
    largest = max(reports, key=lambda r: r.size)
    assert smallest.rating < largest.rating
    assert all(r.rating < 5 for r in reports if r.size <= 3), "a two-entity community is not a major theme"


def test_summaries_are_central_non_redundant_and_cover_sub_communities(indexed):
    from core.graph.indexing.pipeline import _element_vectors
    from core.graph.reports.themes import Themes

    store, result, _ = indexed
    vectors = _element_vectors(store)
    assert vectors, "the stored element vectors are read for summaries"
    themes = Themes(result.graph, result.communities, vectors)
    by_id = {c.id: c for c in result.communities}
    graph = result.graph
    checked = 0
    for c in result.communities:
        if c.kind != "entity" or len(c.children) < 2:
            continue
        chosen = themes.summary_sentences(c)
        texts = [graph.sentences[i].text for i in chosen]
        assert 1 <= len(chosen) <= 3 and len(set(texts)) == len(texts)
        elements = {graph.sentences[i].element_id for i in chosen}

        def quotable(i: int) -> bool:  # a statement, not a heading, a table row or a "key : value" field
            s = graph.sentences[i]
            return s.category not in ("Title", "Table") and len(s.text) >= 25 and " : " not in s.text

        children = [by_id[k] for k in c.children]
        quotable_children = [k for k in children
                             if any(quotable(i) for e in k.entity_ids for i in graph.entity_sentences.get(e, [])[:40])]
        if not quotable_children:
            continue
        largest = max(quotable_children, key=lambda k: k.size)
        child_elements = {graph.sentences[i].element_id for e in largest.entity_ids
                          for i in graph.entity_sentences.get(e, [])[:40]}  # fmt: skip
        assert elements & child_elements, f"{c.id}: its largest sub-community {largest.id} is not quoted"
        checked += 1
    assert checked


def test_big_communities_have_their_layout_stored_at_index_time(indexed):
    from core.graph import community_layout
    from core.graph.communities.layout import PRECOMPUTE_ABOVE

    store, result, _ = indexed
    big = [c for c in result.communities if c.size > PRECOMPUTE_ABOVE]
    small = [c for c in result.communities if c.size <= PRECOMPUTE_ABOVE]
    assert big and small
    for c in big:
        layout = community_layout(store, c.id)
        shown = [k for k in layout if not k.startswith("group:")]
        assert shown and set(shown) <= set(c.entity_ids)
        assert all(isinstance(x, float) and isinstance(y, float) for x, y in layout.values())
    assert community_layout(store, small[0].id) == {}


def test_cli_index_estimate_and_confirmation(indexed, capsys, monkeypatch):
    from core.cli import main
    from core.graph.indexing.estimate import REPORT_OUTPUT_TOKENS

    store, result, _ = indexed
    assert main(["index", "--collection", store.collection, "--estimate", "--price-in", "2", "--price-out", "8",
                 "--json"]) == 0  # fmt: skip
    est = json.loads(capsys.readouterr().out)
    units_with_text = len({s.unit_id for s in result.graph.sentences})
    assert est["text_units"] == units_with_text
    assert est["extraction_calls"] == units_with_text * 2, "one call and one gleaning per unit (gleanings=1)"
    assert est["report_calls"] == len(result.communities)
    assert est["topic_calls"] > 0, "one topic name per heading section with statements (issue 31's tiers)"
    assert est["statement_calls"] > 0 and est["triple_calls"] > 0, "propositions and triples (issue 31's LLM tiers)"
    assert est["calls"] == (est["extraction_calls"] + est["report_calls"] + est["topic_calls"]
                            + est["statement_calls"] + est["triple_calls"])
    assert est["output_tokens"] >= est["report_calls"] * REPORT_OUTPUT_TOKENS
    assert est["cost_usd"] == pytest.approx(est["input_tokens"] * 2 / 1e6 + est["output_tokens"] * 8 / 1e6, abs=1e-3)
    assert main(["index", "--collection", store.collection, "--estimate"]) == 0
    assert "LLM calls" in capsys.readouterr().out
    # With an LLM configured, the run asks first; without a terminal and without --yes it refuses, indexing nothing.
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-used")
    monkeypatch.setattr("sys.stdin.isatty", lambda: False)
    built = index_info(store).built_at
    assert main(["index", "--collection", store.collection]) == 2
    err = capsys.readouterr().err
    assert "estimate:" in err and "--yes" in err
    assert index_info(store).built_at == built


def test_cli_reports_global_export(indexed, tmp_path, capsys):
    from core.cli import main
    from core.graph import levels as result_levels

    store, _result, _ = indexed
    assert main(["reports", "--collection", store.collection, "--level", "0", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows and all(r["level"] == 0 and r["kind"] == "entity" for r in rows)
    assert main(["reports", "--collection", store.collection, "--kind", "structural", "--level", "0"]) == 0
    assert "[extractive]" in capsys.readouterr().out
    assert main(["global", "What ports does the Nova 32UX have?", "--collection", store.collection, "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["generated_by"] == "extractive" and payload["report_ids"]
    levels = ", ".join(str(level) for level in sorted(result_levels(store)))
    for argv in (["global", "What ports?"], ["reports"]):
        assert main([*argv, "--collection", store.collection, "--level", "999999999999"]) == 2
        err = capsys.readouterr().err.strip()
        assert err == f"error: there is no entity level 999999999999: the levels are {levels}"
    for fmt in ("parquet", "csv"):
        out = tmp_path / fmt
        assert main(["export", "--collection", store.collection, "--format", fmt, "--out", str(out), "--json"]) == 0
        written = json.loads(capsys.readouterr().out)
        assert set(written) == {"text_units", "entities", "relationships", "communities", "community_reports",
                                "graph"}  # fmt: skip
    entities = pd.read_parquet(tmp_path / "parquet" / "entities.parquet")
    assert {"id", "title", "type", "description", "degree", "text_unit_ids", "element_ids"} <= set(entities.columns)
    reports = pd.read_csv(tmp_path / "csv" / "community_reports.csv")
    assert json.loads(reports["findings"][0])[0]["summary"]
    g = nx.read_graphml(tmp_path / "parquet" / "graph.graphml")
    assert g.number_of_nodes() == len(entities) and g.number_of_edges() > 0


@pytest.mark.remote
def test_cli_index_json_and_missing_index(store, capsys):
    from core.cli import main
    from core.ingest import ingest_paths
    from tests.conftest import SAMPLES

    assert not index_exists(store)
    with pytest.raises(GraphIndexMissing):
        GraphIndex.open(store)
    assert load_reports(store) == [] and hierarchy(store) == []
    assert main(["reports", "--collection", store.collection]) == 1
    ingest_paths(store, [SAMPLES / "nova-32ux-monitor-en.md"])
    assert main(["index", "--collection", store.collection, "--offline", "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    for key in ("text_units", "entities", "relationships", "communities", "reports", "llm_calls", "cached_calls",
                "seconds"):  # fmt: skip
        assert key in payload
    assert payload["llm_calls"] == 0 and payload["communities"]["0"] >= 1
    assert all(isinstance(k, str) for k in payload["communities"])


@pytest.mark.remote
def test_hostile_names_round_trip(store, tmp_path):
    """Names are data: stored and read back exactly, through parameterised SQL only (the UI escapes them)."""
    from core.ingest import ingest_paths

    source = tmp_path / "hostile.md"
    source.write_text(
        "# <img src=x onerror=alert(1)>\n\n"
        "The **<script>alert(1)</script>** widget talks to **Robert'); DROP TABLE hke_entities; SELECT ('**.\n\n"
        "## Details\n\n* Owner : <img src=x onerror=alert(1)>\n",
        encoding="utf-8",
    )
    ingest_paths(store, [source])
    result = run_index(store, config=OFFLINE)
    titles = {e.title for e in GraphIndex.open(store).entities()}
    assert "<img src=x onerror=alert(1)>" in titles
    assert "<script>alert(1)</script>" in titles
    assert "Robert'); DROP TABLE hke_entities; SELECT ('" in titles
    assert result.report.entities == len(titles)
    assert any("<img src=x onerror=alert(1)>" in r.title for r in load_reports(store, kind="structural"))


@pytest.mark.remote
def test_empty_collection_indexes_to_an_empty_index(store):
    report = run_index(store, config=OFFLINE).report
    assert (report.text_units, report.entities, report.relationships, report.reports) == (0, 0, 0, 0)
    assert report.communities == {} and index_exists(store)
    answer = global_search(store, "anything?", GlobalSearchOptions(use_llm="extractive"))
    assert answer.report_ids == [] and "nothing" in answer.answer
