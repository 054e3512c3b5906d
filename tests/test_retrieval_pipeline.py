"""The one retrieval pipeline: strategies, search scoped by the headings a question names, sections brought by
heading hits, metadata kept out of search, the context token budget, and evaluation's ``default`` mode running
exactly what ``ask`` and the Compare page run. Real Postgres, real USE embeddings."""

from __future__ import annotations

import json

import pytest

from core.answering import ExtractiveAnswerer
from core.ingest import SourceFile, ingest
from core.retrieval import (
    CUT_MARK,
    DEFAULT_SEARCH,
    STRATEGIES,
    QuestionError,
    RetrievalRequest,
    Scope,
    SearchConfig,
    retrieve,
    search_config,
)
from core.tokens import count_tokens

NAMES = ["Aurora 300", "Borealis 500", "Cirrus 700", "Draco 900", "Eridan 1100"]
WEIGHTS = ["2.1 kg", "3.4 kg", "4.7 kg", "5.3 kg", "6.8 kg"]
TWINS = "# Product catalogue\n\nReturns are accepted within 30 days of purchase, with the receipt.\n\n" + "".join(
    f"## {name}\n\nA handheld scanner for warehouses and shops.\n\n### Specifications\n\n"
    f"* Weight : {weight}\n* Battery : {3000 + 500 * i} mAh\n* Scan rate : {100 + 10 * i} per second\n"
    f"* Warranty : {1 + i % 2} years\n\n"
    for i, (name, weight) in enumerate(zip(NAMES, WEIGHTS, strict=True))
)
KOREAN = """# 노바 스캐너 안내

## 노바 S1 스캐너

### 제품사양

* 무게 : 1.2 kg
* 배터리 : 2000 mAh

## 노바 S2 스캐너

### 제품사양

* 무게 : 1.9 kg
* 배터리 : 2600 mAh
"""
API_A = """# http module

## http.request(url, options)

<!-- YAML
added: v0.3.6
changes:
  - version: v15.3.0
    description: zebrafishcomment appears only in this comment
-->

* timeout : Default: 5000
* encoding : Default: 'utf8'
"""
API_B = """---
title: frontmatterqux only here
---

# net module

## http.request(url, options)

* timeout : Default: 120000
"""


def _ids_under(result, root_text: str) -> bool:
    return all(root_text in [*h.element.metadata.get("heading_path", []), h.element.page_content]
               for h in result.hits if not h.outside_scope)


@pytest.fixture
def twins(store):
    report = ingest(store, [SourceFile("twins.md", TWINS.encode()), SourceFile("ko.md", KOREAN.encode())])
    assert not report.errors
    return store


def test_strategies_are_named_configs_and_unknown_ones_are_refused():
    assert search_config(None) is DEFAULT_SEARCH and search_config("default") == DEFAULT_SEARCH
    assert search_config("fulltext") == STRATEGIES["fulltext"] and not STRATEGIES["fulltext"].vector
    assert search_config("hybrid", headings=False).headings is False
    assert "full-text" in STRATEGIES["hybrid"].describe()
    with pytest.raises(ValueError, match="unknown search"):
        search_config("bm42")
    with pytest.raises(ValueError, match="vector list, the full-text list or both"):
        SearchConfig("nothing", vector=False, fulltext=False)


@pytest.mark.remote
def test_each_strategy_runs_and_says_which_it_was(twins):
    seen = {}
    for name in ("vector", "fulltext", "hybrid"):
        result = retrieve(twins, RetrievalRequest("Scan rate of the Draco 900", k=3, search=name, everywhere=True))
        assert result.search.name == name and len(result.hits) == 3
        assert result.notes == ["searched the whole collection"]
        seen[name] = [h.element_id for h in result.hits]
    # Full text ranks by the rare tokens of the question: the Draco's scan-rate line is in its hits.
    assert any("130 per second" in h.element.page_content
               for h in retrieve(twins, RetrievalRequest("Scan rate of the Draco 900", k=3, search="fulltext")).hits)
    assert seen["vector"] != seen["fulltext"]


@pytest.mark.remote
def test_a_named_heading_scopes_the_search_and_says_so_english(twins):
    result = retrieve(twins, RetrievalRequest("How heavy is the Borealis 500?", k=4))
    assert result.searched_under == "Product catalogue › Borealis 500"
    assert result.notes[0] == "searched under: Product catalogue › Borealis 500"
    assert _ids_under(result, "Borealis 500")
    # The near-twin case: five identical "Specifications" lists; the Borealis' weight line is in the context,
    # under its own product heading.
    weight = next(e for e in result.hierarchical.elements if e.text == "Weight : 3.4 kg")
    assert weight.path[:2] == ("Product catalogue", "Borealis 500")
    assert not any(w in result.hierarchical.text for w in WEIGHTS if w != "3.4 kg")


@pytest.mark.remote
def test_a_named_heading_scopes_the_search_korean(twins):
    result = retrieve(twins, RetrievalRequest("노바 S2 스캐너의 무게는 얼마인가요?", k=3))
    assert result.searched_under is not None and "노바 S2 스캐너" in result.searched_under
    assert _ids_under(result, "노바 S2 스캐너")
    assert "1.9 kg" in result.hierarchical.text and "1.2 kg" not in result.hierarchical.text


def test_a_heading_in_several_documents_searches_all_of_them(store):
    docs = [SourceFile("a.md", API_A.encode()), SourceFile("b.md", API_B.encode())]
    assert not ingest(store, docs).errors
    result = retrieve(store, RetrievalRequest("What is the default timeout of http.request?", k=4))
    assert "2 headings in 2 documents" in result.searched_under
    assert "the heading is in 2 documents: searched all of them" in result.notes
    texts = result.hierarchical.text
    assert "Default: 5000" in texts and "Default: 120000" in texts


def test_a_name_matching_no_heading_falls_back_to_the_whole_collection(twins):
    result = retrieve(twins, RetrievalRequest("Which scanner is sold with a leather holster?", k=3))
    assert result.searched_under is None and result.scope.is_whole
    assert result.notes == ["no heading named in the question: searched the whole collection"]
    everywhere = retrieve(twins, RetrievalRequest("How heavy is the Borealis 500?", k=4, everywhere=True))
    assert everywhere.notes == ["searched the whole collection"] and everywhere.searched_under is None


def test_a_scope_never_hides_a_much_closer_hit(twins):
    # "Aurora 300" names a heading, but what the question asks is in the catalogue's returns sentence. The scope
    # is read from a name without a model number: it ranks, it does not veto, so the sentence is no aside.
    question = "Aurora 300: are returns accepted within 30 days of purchase, with the receipt?"
    result = retrieve(twins, RetrievalRequest(question, k=4, search="vector"))
    assert result.searched_under and "Aurora 300" in result.searched_under
    kept = [h for h in result.hits if h.element.page_content.startswith("Returns are accepted")]
    assert len(kept) == 1 and not kept[0].outside_scope
    assert any(n.startswith("kept the best hit of the whole collection, from outside it: Product catalogue › Returns")
               for n in result.notes)
    answer = ExtractiveAnswerer().complete(question, result.hierarchical)
    assert "Returns are accepted within 30 days" in answer and "Not stated" not in answer


CLI = """# tool

## Commands

### tool build

Builds the project.

* Cache dir : Default: `~/.cache/tool`
* Jobs : Default: 4

## Troubleshooting

### Cache

Clearing the cache directory fixes most stale builds.
"""
SHEETS = """# Scanners

## Nova S1

* Weight : 1.2 kg
* Warranty : 2 years

## Nova S2

* Weight : 1.9 kg
* Battery : 2600 mAh
"""


REFERENCE = """# tool reference

## Options

| Option | Default | Description |
| --- | --- | --- |
| installer | pip | The installer used for environments |
| python | 3.12 | The interpreter |

## Changelog

### 1.4.0

- Add the installer option for uv targets.

## Installer plugins

Plugins can replace the installer entirely; see the plugin guide.
"""


@pytest.mark.parametrize("question, value", [("What is the default cache dir?", "~/.cache/tool"),
                                             ("What is the default installer?", "pip"),
                                             ("What does the installer option default to?", "pip")])
def test_a_guessed_heading_never_vetoes_the_hit_stating_the_attribute(store, question, value):
    # The CLI-docs failure of issue 29: the scope went to an unrelated heading ("Troubleshooting › Cache",
    # "Installer plugins"), the search found the option's line outside it, set it aside and answered "Not stated".
    docs = [SourceFile("cli.md", CLI.encode()), SourceFile("ref.md", REFERENCE.encode())]
    assert not ingest(store, docs).errors
    result = retrieve(store, RetrievalRequest(question, k=3))
    assert result.searched_under, "the scope is still read from the question: it ranks"
    stating = [h for h in result.hits if value in h.element.page_content]
    assert stating and not stating[0].outside_scope, (result.searched_under, result.notes)
    answer = ExtractiveAnswerer().complete(question, result.hierarchical)
    assert value in answer and "Not stated" not in answer


def test_a_scope_pinned_by_a_model_number_still_sets_another_things_value_aside(store):
    assert not ingest(store, [SourceFile("sheets.md", SHEETS.encode())]).errors
    question = "What is the warranty of the Nova S2?"
    result = retrieve(store, RetrievalRequest(question, k=3))
    assert "Nova S2" in (result.searched_under or "")
    aside = [h for h in result.hits if "2 years" in h.element.page_content]
    assert aside and aside[0].outside_scope, "S1's warranty is about another thing"
    assert "Not stated" in ExtractiveAnswerer().complete(question, result.hierarchical)


RUNNERS = """# Guide

## Platforms

### Architectures

#### Overview

##### arm_32

The older wheel for boards, loads on hardware from before 2015.

## Options

### archs

| Runner | native | auto | auto16 |
| --- | --- | --- | --- |
| Linux / Mips 32-bit | mips32 | mips32 | mips16 |
| Linux / Risc 64-bit | risc64 | risc64 | risc16 |
"""


def test_a_table_row_naming_the_pinned_thing_in_its_cells_is_the_answer_not_an_aside(store):
    # The scope was read from the bare number of "32-bit" (heading "arm_32"); the row whose own key and column
    # name the runner and "auto16" states the value, and a table row names its subject by its cells, not by a
    # heading of its own.
    assert not ingest(store, [SourceFile("guide.md", RUNNERS.encode())]).errors
    question = "what does auto16 build on a Linux Mips 32-bit runner?"
    result = retrieve(store, RetrievalRequest(question, k=4))
    stating = [h for h in result.hits if "mips16" in h.element.page_content]
    assert stating and not stating[0].outside_scope, (result.searched_under, result.notes)
    answer = ExtractiveAnswerer().complete(question, result.hierarchical)
    assert "mips16" in answer and "Not stated" not in answer, answer


def test_comments_and_front_matter_are_stored_but_not_searched(store):
    docs = [SourceFile("a.md", API_A.encode()), SourceFile("b.md", API_B.encode())]
    assert not ingest(store, docs).errors
    stored = [e.page_content for d in store.documents() for e in store.elements(d.document_id)]
    assert any("zebrafishcomment" in t for t in stored), "the comment stays stored (tree, export)"
    question = "YAML added v0.3.6 changes version v15.3.0 description zebrafishcomment appears only in this comment"
    for name in ("vector", "hybrid"):
        result = retrieve(store, RetrievalRequest(question, k=4, search=name))
        assert not any("zebrafishcomment" in h.element.page_content for h in result.hits)
        assert "zebrafishcomment" not in result.hierarchical.text, "nor brought in as a section"
    assert not retrieve(store, RetrievalRequest("frontmatterqux", k=2, search="fulltext")).hits
    opted_in = retrieve(store, RetrievalRequest(question, k=2,
                                                search=search_config("vector").but(include_metadata=True)))
    assert "zebrafishcomment" in opted_in.hits[0].element.page_content


def test_a_heading_hit_brings_its_own_section(twins):
    scoped = Scope.subtree(next(e.metadata["element_id"] for d in twins.documents() for e in twins.elements(
        d.document_id) if e.page_content == "Cirrus 700"))
    question = "Cirrus 700"
    bare = retrieve(twins, RetrievalRequest(question, k=1, scope=scoped, search="vector", children_budget=0))
    assert [h.element.page_content for h in bare.hits] == ["Cirrus 700"]
    assert "Weight" not in bare.hierarchical.text
    brought = retrieve(twins, RetrievalRequest(question, k=1, scope=scoped, search="vector"))  # the default budget
    children = [e for e in brought.hierarchical.elements if e.role == "child"]
    assert any(e.text == "Weight : 4.7 kg" for e in children)
    assert brought.hierarchical.tokens - bare.hierarchical.tokens <= brought.children_budget + 20
    with pytest.raises(ValueError, match="0 or more tokens"):
        retrieve(twins, RetrievalRequest(question, children_budget=-1))


def test_a_5_mb_single_line_element_is_cut_to_the_context_budget(store, monkeypatch):
    line = " ".join(f"w{i % 5000}" for i in range(900_000))  # ~5 MB, one paragraph, one line
    assert len(line) > 4_500_000
    doc = f"# Huge\n\n## Log\n\n{line}\n\n## Note\n\n* Owner : Kim\n"
    assert not ingest(store, [SourceFile("huge.md", doc.encode())]).errors
    monkeypatch.setenv("HKE_CONTEXT_TOKENS", "1500")
    result = retrieve(store, RetrievalRequest("w17 w4242 log", k=3))
    assert any(len(h.element.page_content) > 4_500_000 for h in result.hits), "the huge element is a hit"
    for context in (result.plain, result.hierarchical):
        assert context.tokens <= 1500 and context.cut == 1
        assert CUT_MARK.split("{")[0] in context.text
    assert count_tokens(result.hierarchical.text) == result.hierarchical.tokens
    monkeypatch.setenv("HKE_CONTEXT_TOKENS", "ten")
    with pytest.raises(ValueError, match="HKE_CONTEXT_TOKENS"):
        retrieve(store, RetrievalRequest("w17", k=1))


def test_eval_default_mode_runs_exactly_what_ask_runs(twins):
    from core.evaluation import load_questions, run_evaluation

    questions = load_questions({"name": "t", "questions": [
        {"id": "w", "question": "How heavy is the Borealis 500?", "answers": ["3.4 kg"],
         "gold_path": ["Product catalogue", "Borealis 500", "Specifications"]},
        {"id": "k", "question": "노바 S2 스캐너의 무게는 얼마인가요?", "answers": ["1.9 kg"]},
    ]})
    run = run_evaluation(twins, questions, modes="default", k=4, persist=False)
    for row, question in zip(run.results, questions.questions, strict=True):
        asked = retrieve(twins, RetrievalRequest(question.question, k=4))
        assert row.mode == "default" and row.context == asked.hierarchical.text
        assert [h["element_id"] for h in row.details["hits"]] == [h.element_id for h in asked.hits]
        assert row.details["notes"] == asked.notes and row.score.recall


@pytest.mark.remote
def test_cli_ask_takes_a_search_and_reports_the_scope(twins, monkeypatch, capsys):
    from core.cli import main

    monkeypatch.setenv("HKE_COLLECTION", twins.collection)
    code = main(["ask", "How heavy is the Borealis 500?", "--search", "hybrid", "--json",
                 "--collection", twins.collection])
    payload = json.loads(capsys.readouterr().out)
    assert code == 0 and payload["search"]["search"]["name"] == "hybrid"
    assert payload["search"]["notes"][0] == "searched under: Product catalogue › Borealis 500"
    assert "3.4 kg" in payload["hierarchical"]["context"]
    with pytest.raises(SystemExit):
        main(["ask", "x", "--search", "bm42", "--collection", twins.collection])
    assert main(["ask", "   ", "--collection", twins.collection]) == 2
    with pytest.raises(QuestionError):
        retrieve(twins, RetrievalRequest(""))


def test_a_small_scope_fills_the_rest_of_k_from_the_whole_collection(twins):
    result = retrieve(twins, RetrievalRequest("노바 S1 스캐너의 배터리는?", k=8, search="vector"))
    assert "노바 S1 스캐너" in result.searched_under
    inside = [h for h in result.hits if not h.outside_scope]
    outside = [h for h in result.hits if h.outside_scope]
    assert len(result.hits) == 8 and len(inside) == 4, "the S1 subtree holds 4 elements"
    assert all("노바 S1 스캐너" not in h.element.metadata.get("heading_path", []) for h in outside)
    assert "the scope holds fewer than 8 matches: the rest come from the whole collection" in result.notes
    assert [h.rank for h in result.hits] == list(range(8))


@pytest.mark.remote
def test_the_heading_index_follows_the_collection_and_matches_like_a_fresh_scan(store):
    from core.retrieval.heading_cache import heading_index
    from core.retrieval.headings import best_headings, load_headings

    assert not ingest(store, [SourceFile("a.md", API_A.encode())]).errors
    question = "What is the default timeout of http.request?"
    first = heading_index(store)
    assert heading_index(store) is first, "unchanged collection: the index is reused, not rebuilt"
    assert retrieve(store, RetrievalRequest(question, k=4)).searched_under.count("headings in") == 0
    # A second document naming the same API: the held index must see it at once.
    assert not ingest(store, [SourceFile("b.md", API_B.encode())]).errors
    assert heading_index(store) is first, "brought up to date in place"
    assert sorted(h.text for h in first.headings.values()).count("http.request(url, options)") == 2
    assert "2 headings in 2 documents" in retrieve(store, RetrievalRequest(question, k=4)).searched_under
    # The cached index decides exactly as one built fresh from the database.
    for q in (question, "http.request 기본 시간 제한은?", "timeout", "nothing named here"):
        assert best_headings(q, heading_index(store)) == best_headings(q, load_headings(store))
