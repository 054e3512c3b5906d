"""``python -m core eval`` on the session's database, through the CLI's entry point in process
(tests/test_cli_validation.py starts it as a fresh interpreter)."""

from __future__ import annotations

import json

from .conftest import ROOT
from .helpers_cli import cli as run_cli

KEYS = ["recall", "attribution", "mrr", "context_tokens_mean", "latency_ms_p50", "exact"]


def test_eval_json_shape_and_out_file(samples_store, tmp_path):
    out = tmp_path / "run.json"
    proc = run_cli("eval", str(ROOT / "data" / "questions.json"), "--collection", "samples", "--limit", "3",
                   "--k", "4", "--json", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    payload = json.loads(proc.stdout)
    assert list(payload) == ["plain", "hierarchical", "hybrid", "default"]  # the default modes, no judge
    for mode, aggregates in payload.items():
        assert list(aggregates)[: len(KEYS)] == KEYS, mode
        assert aggregates["n"] == 3
        for key in ("recall", "attribution", "mrr", "exact"):
            assert aggregates[key] is None or 0.0 <= aggregates[key] <= 1.0
        assert aggregates["context_tokens_mean"] > 0 and aggregates["latency_ms_p50"] > 0
    assert payload["plain"]["attribution"] <= payload["hierarchical"]["attribution"]
    assert "stored as run" in proc.stderr
    written = json.loads(out.read_text(encoding="utf-8"))
    assert written["aggregates"] == payload and len(written["results"]) == 3 * 4

    csv_out = tmp_path / "run.csv"
    proc = run_cli("eval", str(ROOT / "data" / "questions.json"), "--collection", "samples", "--limit", "2",
                   "--modes", "plain,hybrid", "--no-store", "--out", str(csv_out))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[0].split()[:3] == ["mode", "recall", "attribution"]  # text table
    assert csv_out.read_text(encoding="utf-8").splitlines()[0].startswith("run_id,collection,question_set")
    assert "not stored" in proc.stderr


def test_eval_usage_errors(samples_store, tmp_path, capsys, monkeypatch):
    """In process: the same entry point as ``python -m core eval`` (tests/test_cli_validation.py runs these in a
    fresh interpreter and checks that nothing heavy is loaded first)."""
    from core.cli import main

    def usage_error(*argv: str) -> str:
        try:
            code = main(list(argv))
        except SystemExit as exc:
            code = exc.code
        assert code == 2
        return capsys.readouterr().err

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    questions = str(ROOT / "data" / "questions.json")
    assert "magic" in usage_error("eval", questions, "--collection", "samples", "--modes", "plain,magic")
    assert "OPENAI_API_KEY" in usage_error("eval", questions, "--collection", "samples", "--judge")
    broken = tmp_path / "broken.json"
    broken.write_text('{"questions": [{"id": "x"}]}', encoding="utf-8")
    assert "question" in usage_error("eval", str(broken), "--collection", "samples")
    assert "does not exist" in usage_error("eval", questions, "--collection", "no_such_collection_here")
