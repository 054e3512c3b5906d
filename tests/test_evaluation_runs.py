"""Batch runs against the real database: the four modes on a tiny corpus, storage, export, judge, cascade."""

from __future__ import annotations

import csv
import dataclasses
import io
import json

from langchain_core.language_models.fake_chat_models import FakeListChatModel

from core.evaluation import (
    ALL_MODES,
    Judge,
    QuestionSet,
    cli_payload,
    export_csv,
    export_json,
    list_runs,
    load_run,
    parse_questions,
    run_evaluation,
)
from core.evaluation.judge import CRITERIA
from core.evaluation.modes import ModeRunner
from core.ingest import SourceFile, ingest
from core.ingest.contextual import build_contextual_index, drop_contextual_index
from core.llm import RetryPolicy
from core.store import ElementStore

ALPHA = "# Alpha Phone\n## Specs\n* Weight : 101 g\n* Battery : 3100 mAh\n## Warranty\n* Period : 2 years\n"
BETA = "# Beta Phone\n## Specs\n* Weight : 202 g\n* Battery : 4200 mAh\n## Warranty\n* Period : 3 years\n"
QUESTIONS = parse_questions({"name": "tiny", "questions": [
    {"id": "a", "question": "How heavy is the Alpha Phone?", "answers": ["101 g"],
     "gold_path": ["Alpha Phone", "Specs"]},
    {"id": "b", "question": "Beta Phone warranty period?", "answers": ["3 years"],
     "gold_path": ["Beta Phone", "Warranty"], "tags": ["english"]},
]})


def _fill(store: ElementStore) -> None:
    report = ingest(store, [SourceFile("alpha.md", ALPHA.encode()), SourceFile("beta.md", BETA.encode())])
    assert not report.errors


def test_all_modes_on_a_tiny_corpus_stored_and_exported(store, db_url):
    _fill(store)
    try:
        # k covers the whole corpus, so every mode's context holds every element: the differences left are the
        # ones that rendering makes (plain contexts carry no heading paths).
        run = run_evaluation(store, QUESTIONS, modes=ALL_MODES, k=50, build_contextual=True)
        agg = run.aggregates
        assert run.status == "done" and len(run.results) == 2 * len(ALL_MODES)
        for mode in ALL_MODES:
            assert agg[mode]["recall"] == 1.0 and agg[mode]["hit_recall"] == 1.0, mode
        for mode in ("hierarchical", "contextual", "hybrid"):
            assert agg[mode]["attribution"] == 1.0 and agg[mode]["grounded"] == 1.0, mode
        assert agg["plain"]["grounded"] == 0.0
        assert agg["hierarchical"]["mrr"] == agg["plain"]["mrr"]  # the same hits, rendered differently
        assert run.summary["by_tag"]["english"]["plain"]["n"] == 1
        assert run.summary["contextual"]["collection"] == f"{store.collection}:contextual"
        assert run.summary["contextual"]["built"] and run.summary["contextual"]["embedded_documents"] == 2

        payload = cli_payload(run)
        assert set(payload) == set(ALL_MODES)
        for mode in ALL_MODES:
            assert list(payload[mode])[:6] == ["recall", "attribution", "mrr", "context_tokens_mean",
                                               "latency_ms_p50", "exact"]

        listed = list_runs(db_url, store.collection)
        assert [r.run_id for r in listed] == [run.run_id] and listed[0].status == "done"
        loaded = load_run(db_url, run.run_id)
        assert loaded is not None and loaded.aggregates == run.aggregates
        assert [(r.question_id, r.mode) for r in loaded.results] == [(r.question_id, r.mode) for r in run.results]
        assert loaded.results[1].context == run.results[1].context and "Alpha Phone" in loaded.results[1].context

        rows = list(csv.DictReader(io.StringIO(export_csv(loaded))))
        assert len(rows) == 2 * len(ALL_MODES) and rows[0]["mode"] == "plain" and rows[0]["recall"] == "1"
        # Text a spreadsheet would run as a formula is exported as text; numbers stay numbers.
        loaded.results[0] = dataclasses.replace(loaded.results[0], answer='=HYPERLINK("http://x")',
                                                question="@SUM(A1)")
        first = next(csv.DictReader(io.StringIO(export_csv(loaded))))
        assert (first["answer"], first["question"], first["recall"]) == ("'=HYPERLINK(\"http://x\")", "'@SUM(A1)", "1")
        exported = json.loads(export_json(loaded))
        assert exported["run"]["run_id"] == run.run_id and len(exported["results"]) == 2 * len(ALL_MODES)
        assert exported["aggregates"]["hierarchical"]["attribution"] == 1.0
    finally:
        drop_contextual_index(store)
    store.drop()
    # Runs hang off their collection: dropping it drops them.
    assert list_runs(db_url, store.collection) == [] and load_run(db_url, run.run_id) is None


def test_judged_run_stores_judgements(store, db_url):
    _fill(store)
    always_a = json.dumps({c: {"winner": "A"} for c in CRITERIA})
    judge = Judge(FakeListChatModel(responses=[always_a]), policy=RetryPolicy(attempts=1))
    run = run_evaluation(store, QUESTIONS, modes=["plain", "hierarchical"], k=3, judge=judge)
    assert len(run.judgements) == 2
    rates = run.summary["judge"]["win_rates"]
    assert {(w["mode_a"], w["mode_b"]) for w in rates} == {("plain", "hierarchical")}
    assert all(w["ties"] == 2 and w["win_rate"] == 0.5 for w in rates)  # a position-biased judge: all ties
    assert all("llm_answer" in r.details for r in run.results)  # the answers that were judged (extractive here)
    judged = cli_payload(run)["judge"]["hierarchical vs plain"]
    assert set(judged) == set(CRITERIA) and judged["directness"]["ci"][0] < 0.5 < judged["directness"]["ci"][1]
    loaded = load_run(db_url, run.run_id)
    assert loaded.judged and {j.question_id for j in loaded.judgements} == {"a", "b"}
    assert all(set(j.outcomes.values()) == {"tie"} and len(j.verdicts) == 2 for j in loaded.judgements)


def test_contextual_sibling_is_derived_and_kept_in_sync(store):
    _fill(store)
    try:
        sibling, sync = build_contextual_index(store)
        assert sibling.collection == store.collection + ":contextual" and sibling.contextual
        assert (sync.embedded_documents, sync.embedded_elements) == (2, store.stats().elements)
        base_ids = {e.metadata["element_id"] for d in store.documents() for e in store.elements(d.document_id)}
        elements = [e for d in sibling.documents() for e in sibling.elements(d.document_id)]
        ids = {e.metadata["element_id"] for e in elements}
        assert not ids & base_ids  # element ids are the table's primary key: they must differ
        assert {e.metadata["source_element_id"] for e in elements} == base_ids
        assert all(e.metadata.get("parent_id") in ids for e in elements if e.metadata.get("parent_id"))
        # Nothing changed: nothing is embedded again. A removed document disappears from the sibling too.
        assert build_contextual_index(store)[1].embedded_documents == 0
        store.write.remove_document(store.find_documents("beta.md")[0].document_id)
        again = build_contextual_index(store)[1]
        assert (again.embedded_documents, again.removed_documents) == (0, 1)
        # The contextual search sees the heading path: "Alpha" finds Alpha's items, which never say "Alpha".
        out = ModeRunner(store, ["contextual"], k=3).run("Alpha Phone battery")
        assert any("3100 mAh" in h.element.page_content for h in out["contextual"].hits)
    finally:
        drop_contextual_index(store)


def test_run_refuses_empty_inputs(store):
    empty = QuestionSet("none", ())
    try:
        run_evaluation(store, empty)
    except ValueError as exc:
        assert "empty" in str(exc)
    else:  # pragma: no cover
        raise AssertionError("an empty set must be refused")
    try:
        run_evaluation(store, QUESTIONS, modes="plain,nonsense")
    except ValueError as exc:
        assert "nonsense" in str(exc)
    try:
        run_evaluation(store, QUESTIONS, modes="plain")
    except ValueError as exc:
        assert "no documents" in str(exc)
