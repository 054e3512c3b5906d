"""Every named constant of retrieval and answering has a sweep record holding its value (core.tuning)."""

from __future__ import annotations

import json

import pytest

from core import tuning
from core.tuning import SetScore, TuningError, TuningRecord


def test_every_named_constant_has_a_record_with_its_value() -> None:
    gaps = tuning.missing()
    assert gaps == [], ("named constants without a matching record in data/tuning/ (run bench/sweep.py --record, "
                        "or add a limit record):\n" + "\n".join(gaps))


def test_every_record_names_a_constant_the_code_still_has() -> None:
    stale = [f"{m}.{name}" for m in tuning.tuned_modules() for name in tuning.load_records(m)
             if name not in tuning.named_constants(m)]
    assert stale == []


def test_a_changed_constant_is_reported(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(tuning, "TUNING_DIR", tmp_path)
    tuning.write_record("core.retrieval.stages", TuningRecord("EvidenceProbeConfig.k", 3, "unswept", "probe depth"))
    gaps = tuning.missing(["core.retrieval"])
    assert "core.retrieval.stages.EvidenceProbeConfig.k: the code holds 8, the record 3" in gaps
    assert any(g.startswith("core.retrieval.headings.MIN_SCORE: no record") for g in gaps)


def test_config_fields_are_named_constants() -> None:
    names = tuning.named_constants("core.retrieval.strategies")
    assert names["SearchConfig.candidates"] == 20
    assert "MAX_K" in names
    # imported from elsewhere, not the module's own constant
    assert "MAX_K" not in tuning.named_constants("core.retrieval.search")


def test_a_sweep_record_needs_a_score_on_a_set_it_was_not_chosen_on() -> None:
    score = SetScore(0.9, 0.8, 300.0)
    with pytest.raises(TuningError, match="not chosen on"):
        TuningRecord("X", 1, "sweep", "why", (1, 2), ("gold",), {"gold": score}, "bench/sweep.py ...")
    ok = TuningRecord("X", 1, "sweep", "why", (1, 2), ("gold",), {"gold": score, "undici": score}, "bench/sweep.py")
    assert ok.held_out == {"undici": score}
    assert TuningRecord.from_dict("X", json.loads(json.dumps(ok.as_dict()))) == ok


@pytest.mark.parametrize("raw, message", [
    ({"value": 1, "evidence": "guess", "why": "x"}, "evidence must be one of"),
    ({"value": 1, "evidence": "limit", "why": " "}, "says why"),
    ({"evidence": "limit", "why": "x"}, "malformed"),
    ({"value": 1, "evidence": "sweep", "why": "x", "command": "c", "chosen_on": ["a"],
      "scores": {"b": {"answer": "high"}}}, "malformed"),
])
def test_a_malformed_record_is_refused_with_its_name(raw, message) -> None:
    with pytest.raises(TuningError, match=message):
        TuningRecord.from_dict("X", raw)


def test_a_malformed_file_is_refused_with_its_path(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(tuning, "TUNING_DIR", tmp_path)
    (tmp_path / "core.retrieval.pipeline.json").write_bytes(b"\xff\xfe not json")
    with pytest.raises(TuningError, match="core.retrieval.pipeline.json"):
        tuning.load_records("core.retrieval.pipeline")


def test_sweep_chooses_on_its_sets_and_records_the_held_out_scores(tmp_path, monkeypatch) -> None:
    from .helpers_bench import bench_module

    sweep = bench_module("sweep")
    results = {4: {"gold": {"answer": 0.8, "attribution": 0.9, "tokens": 300.0, "n": 40},
                   "undici": {"answer": 1.0, "attribution": 1.0, "tokens": 200.0, "n": 40}},
               8: {"gold": {"answer": 0.9, "attribution": 0.9, "tokens": 320.0, "n": 40},
                   "undici": {"answer": 0.5, "attribution": 0.5, "tokens": 250.0, "n": 40}}}
    assert sweep.choose(results, ["gold"]) == 8, "chosen on gold alone, whatever undici says"
    one_more = {4: results[4], 8: {**results[8], "gold": {**results[8]["gold"], "answer": 0.825}}}
    assert sweep.choose(one_more, ["gold"], current=4) == 4, "one question more is noise: the code's value stays"
    assert sweep.choose(results, ["gold"], current=4) == 8, "four more questions replace it"
    two_more = {4: {"a": {"answer": 0.9267, "attribution": 1.0, "tokens": 1.0, "n": 150},
                    "b": {"answer": 0.8571, "attribution": 1.0, "tokens": 1.0, "n": 28}},
                8: {"a": {"answer": 0.9333, "attribution": 1.0, "tokens": 1.0, "n": 150},
                    "b": {"answer": 0.8929, "attribution": 1.0, "tokens": 1.0, "n": 28}}}
    assert sweep.choose(two_more, ["a", "b"], current=4) == 8, "one question on each set is two, saved shares rounded"
    tie = {8: {"gold": {"answer": 0.9, "attribution": 0.9, "tokens": 300.0}},
           12: {"gold": {"answer": 0.9, "attribution": 0.9, "tokens": 299.0}},
           4: {"gold": {"answer": 0.9, "attribution": 0.9, "tokens": 250.0}}}
    assert sweep.choose({v: tie[v] for v in (8, 12)}, ["gold"]) == 8, "a token's saving decides nothing"
    assert sweep.choose(tie, ["gold"]) == 4, "a sixth fewer tokens does"
    assert sweep.parse_value("false", True) is False and sweep.parse_value("12", 8) == 12
    target, current, running = sweep.stage_setter("probe", "k")
    assert target == "core.retrieval.stages:EvidenceProbeConfig.k" and current == 8
    from core.retrieval.stages import current_stages

    with running(4):
        assert current_stages().probe.k == 4
    assert current_stages().probe.k == 8
    with pytest.raises(ValueError, match="no field"):
        sweep.stage_setter("probe", "depth")
    monkeypatch.setattr(tuning, "TUNING_DIR", tmp_path)
    sweep._record("core.retrieval.stages", "EvidenceProbeConfig.k", 8, [4, 8], ["gold"], results[8], "probe depth",
                  ["--stage", "probe"])
    record = tuning.load_records("core.retrieval.stages")["EvidenceProbeConfig.k"]
    assert record.evidence == "sweep" and record.chosen_on == ("gold",) and set(record.held_out) == {"undici"}
    assert record.command.endswith("bench/sweep.py --stage probe")


def test_a_sweep_worker_sets_a_value_every_copy_of_it_sees(tmp_path) -> None:
    """A constant imported by value elsewhere, a frozen config's default, the registry built from it and a function
    whose default argument is an instance of it all take the swept value in the worker process (bench/sweep.py
    apply_override), or a sweep measures nothing."""
    import subprocess
    import sys

    from .helpers_bench import ROOT

    code = ("import sweep\n"
            "sweep.apply_override('constant', 'core.retrieval.headings.CODE_FACTOR', 9.5)\n"
            "sweep.apply_override('config', 'core.retrieval.strategies.SearchConfig.candidates', 33)\n"
            "sweep.apply_override('config', 'core.retrieval.statement_search.StatementSearchConfig.entry', 5)\n"
            "import core.retrieval.pipeline as p, core.evaluation.modes as m\n"
            "from core.retrieval.statement_search import find_statement_hits as f\n"
            "print(p.CODE_FACTOR, m.MODE_SPECS['default'].search.candidates, f.__defaults__[0].entry)\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT / "bench", capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["9.5", "33", "5"]


def test_the_citation_sweep_scores_answers_cited_to_the_element_holding_the_gold(monkeypatch) -> None:
    """bench/sweep.py's offline measure of the citation repair: an uncited answer restating the gold is cited to the
    element that holds it; a share threshold no sentence meets leaves it uncited, never cited wrongly."""
    from core.answering import citations
    from core.evaluation.questions import Question
    from core.retrieval import Context, ContextElement

    from .helpers_bench import bench_module

    sweep = bench_module("sweep")
    elements = [ContextElement("a" * 32, "aaaaaaaa", "hit", "ListItem", "Build frontend : pip (the default)", "d"),
                ContextElement("b" * 32, "bbbbbbbb", "hit", "ListItem", "Build frontend : uv, when asked for", "d")]
    context = Context("hierarchical", "", "", elements, 20)
    kept = [(Question("q", "What is the default build frontend?", ("pip",)), context),
            (Question("none", "Which colour is it?", ("teal",)), context)]  # the context lacks it: not counted
    assert sweep.citation_scores(kept) == {"answer": 1.0, "attribution": 1.0}
    monkeypatch.setattr(citations, "MIN_SHARE", 1.01)
    assert sweep.citation_scores(kept) == {"answer": 0.0, "attribution": 1.0}
