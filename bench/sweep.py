"""Sweep one stage-config field (or one module constant) over question sets: answer, attribution and tokens per set.

The value is chosen on the sets named by ``--chosen-on`` only (best mean "answer contains gold", then strict
attribution, then the first value given unless another saves 2 % of the context tokens); the other sets are the
held-out report. With ``--record`` the choice is written as the constant's sweep record in ``data/tuning/``
(``core.tuning``): its value, the values tried, the sets it was chosen on, the chosen value's scores on every set,
and this command. When the choice differs from the value in the code, the code must change too
(tests/test_tuning.py fails until the record and the code agree).

Examples::

    .venv/bin/python bench/sweep.py --stage probe --field k --values 4,8,12 \\
        --sets gold,python-markdown,undici --chosen-on gold,python-markdown --record
    .venv/bin/python bench/sweep.py --constant core.answering.extractive.TEXT_WEIGHT --values 0.3,0.5,0.7 \\
        --sets gold,near-twin --chosen-on gold

Stages (``core.retrieval.stages.Stages``): heading_scope, probe, entities, context. A boolean field takes
``true,false``. Runs the evaluation's ``default`` mode (``bench/bench_eval.py``), extractive answers, k=4.
Writes ``bench/out/sweep-<name>.json``.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import shlex
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from _common import scratch_database, write_result
from _synthetic import remove_scratch_database
from bench_eval import SETS, evaluate_set, load_set

STAGE_FIELDS = ("heading_scope", "probe", "entities", "context")


def parse_value(text: str, like: Any) -> Any:
    """``text`` as the type of the current value ``like`` (``true``/``false`` for a boolean)."""
    if isinstance(like, bool):
        if text.lower() not in ("true", "false"):
            raise ValueError(f"a boolean field takes true or false, not {text!r}")
        return text.lower() == "true"
    return type(like)(text)


def stage_setter(stage: str, name: str) -> tuple[str, Any, Any]:
    """The record's module and name, the current value, and a context manager factory that runs with a value."""
    from core.retrieval import stages as stages_module

    if stage not in STAGE_FIELDS:
        raise ValueError(f"unknown stage {stage!r}; choose from {', '.join(STAGE_FIELDS)}")
    defaults = stages_module.DEFAULT_STAGES
    config = getattr(defaults, stage)
    if name not in {f.name for f in dataclasses.fields(config)}:
        raise ValueError(f"{type(config).__name__} has no field {name!r}")

    @contextmanager
    def running(value: Any) -> Iterator[None]:
        changed = defaults.but(**{stage: dataclasses.replace(config, **{name: value})})
        with stages_module.using(changed):
            yield

    return f"{stages_module.__name__}:{type(config).__name__}.{name}", getattr(config, name), running


def constant_setter(dotted: str) -> tuple[str, Any, Any]:
    """The same for a module constant (``core.answering.extractive.TEXT_WEIGHT``), set on its module meanwhile."""
    module_name, _, name = dotted.rpartition(".")
    module = importlib.import_module(module_name)
    if not hasattr(module, name):
        raise ValueError(f"{module_name} has no constant {name}")
    current = getattr(module, name)

    @contextmanager
    def running(value: Any) -> Iterator[None]:
        setattr(module, name, value)
        try:
            yield
        finally:
            setattr(module, name, current)

    return f"{module_name}:{name}", current, running


# Fewer context tokens decide between values that score the same only when they save at least this share.
TOKEN_SAVING = 0.02


def choose(results: dict[Any, dict[str, dict[str, float]]], chosen_on: Sequence[str]) -> Any:
    """The value with the best mean answer on ``chosen_on``, then attribution; among those the first value given
    (the code's, when listed first) unless another saves at least :data:`TOKEN_SAVING` of the context tokens."""
    def mean(value: Any, metric: str) -> float:
        return sum(results[value][s][metric] or 0.0 for s in chosen_on) / len(chosen_on)

    best = max((round(mean(v, "answer"), 4), round(mean(v, "attribution"), 4)) for v in results)
    tied = [v for v in results if (round(mean(v, "answer"), 4), round(mean(v, "attribution"), 4)) == best]
    fewest = min(tied, key=lambda v: mean(v, "tokens"))
    first = tied[0]
    return fewest if mean(fewest, "tokens") < (1 - TOKEN_SAVING) * mean(first, "tokens") else first


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument("--stage", choices=STAGE_FIELDS, help="a stage config of core.retrieval.stages")
    what.add_argument("--constant", help="a module constant, dotted (core.answering.extractive.TEXT_WEIGHT)")
    parser.add_argument("--field", help="the stage config's field (with --stage)")
    parser.add_argument("--values", required=True, help="comma-separated values to try")
    parser.add_argument("--sets", required=True, help=f"comma-separated, from {', '.join(SETS)}")
    parser.add_argument("--chosen-on", required=True, help="the sets the value is chosen on (a subset of --sets)")
    parser.add_argument("--record", action="store_true", help="write the choice as the constant's sweep record")
    parser.add_argument("--why", default="", help="what the constant does (kept from its record when empty)")
    parser.add_argument("--k", type=int, default=4)
    args = parser.parse_args(argv)
    sets = [s.strip() for s in args.sets.split(",") if s.strip()]
    chosen_on = [s.strip() for s in args.chosen_on.split(",") if s.strip()]
    unknown = [s for s in sets if s not in SETS]
    if unknown:
        parser.error(f"unknown set(s) {', '.join(unknown)}")
    if not set(chosen_on) <= set(sets):
        parser.error("--chosen-on must be a subset of --sets")
    if set(chosen_on) == set(sets):
        parser.error("leave at least one set out of --chosen-on: the report is on sets the value was not chosen on")
    started = time.perf_counter()
    url = scratch_database()
    try:
        if args.stage:
            if not args.field:
                parser.error("--stage needs --field")
            target, current, running = stage_setter(args.stage, args.field)
        else:
            target, current, running = constant_setter(args.constant)
        values = [parse_value(v.strip(), current) for v in args.values.split(",") if v.strip()]
        results = sweep(url, sets, values, running, args.k)
    finally:
        remove_scratch_database()
    chosen = choose(results, chosen_on)
    _print(target, values, sets, chosen_on, results, chosen, current)
    module, name = target.split(":")
    out = {"target": target, "current": current, "chosen": chosen, "chosen_on": chosen_on,
           "results": {str(v): r for v, r in results.items()}, "seconds": round(time.perf_counter() - started, 1)}
    path = write_result(f"sweep-{name}", out)
    print(f"wrote {path}")
    if args.record:
        _record(module, name, chosen, values, chosen_on, results[chosen], args.why, argv)
        if chosen != current:
            print(f"the chosen value {chosen!r} differs from the code's {current!r}: change the code to match",
                  file=sys.stderr)


def sweep(url: str, sets: Sequence[str], values: Sequence[Any], running: Any, k: int) -> dict[Any, dict]:
    """``{value: {set: {"answer", "attribution", "tokens", "n"}}}`` for the evaluation's default mode."""
    from _common import CORPORA

    from core.embeddings import make_embeddings
    from core.ingest import ingest_paths
    from core.store import ElementStore

    embeddings = make_embeddings("use")
    results: dict[Any, dict] = {v: {} for v in values}
    for name in sets:
        spec = SETS[name]
        questions = load_set(spec)
        store = ElementStore(url, f"bench_{(spec.collection or name).replace('-', '_')}", embeddings)
        ingest_paths(store, [spec.corpus, *(CORPORA / more for more in spec.more)])
        for value in values:
            with running(value):
                agg = evaluate_set(store, questions.questions, ["default"], k)["default"]["aggregate"]
            results[value][name] = {"answer": agg["answer_contains"], "attribution": agg["attribution"],
                                    "tokens": agg["tokens"], "n": agg["n"]}
            print(f"{name:24s} {value!s:>8}  answer {agg['answer_contains']}  attribution {agg['attribution']}  "
                  f"tokens {agg['tokens']}", flush=True)
    return results


def _print(target: str, values: Sequence[Any], sets: Sequence[str], chosen_on: Sequence[str],
           results: dict[Any, dict], chosen: Any, current: Any) -> None:
    print(f"\n{target}: chosen on {', '.join(chosen_on)}; * = chosen, (code: {current!r})")
    print(f"{'set':28s}" + "".join(f"{('*' if v == chosen else '') + str(v):>24s}" for v in values))
    for name in sets:
        mark = "" if name in chosen_on else " (held out)"
        cells = "".join(f"{_cell(results[v][name]):>24s}" for v in values)
        print(f"{name + mark:28s}{cells}")


def _cell(row: dict[str, float]) -> str:
    fmt = lambda x: "-" if x is None else f"{x:.3f}"  # noqa: E731
    return f"{fmt(row['answer'])}/{fmt(row['attribution'])}/{row['tokens']:.0f}"


def _record(module: str, name: str, chosen: Any, values: Sequence[Any], chosen_on: Sequence[str],
            scores: dict[str, dict], why: str, argv: Sequence[str] | None) -> None:
    from core.tuning import SetScore, TuningRecord, load_records, write_record

    old = load_records(module).get(name)
    record = TuningRecord(
        name, chosen, "sweep", why or (old.why if old else name), tuple(values), tuple(chosen_on),
        {s: SetScore(r["answer"] or 0.0, r["attribution"] or 0.0, r["tokens"]) for s, r in scores.items()},
        ".venv/bin/python bench/sweep.py " + shlex.join(sys.argv[1:] if argv is None else argv),
    )
    print(f"recorded in {write_record(module, record)}")


if __name__ == "__main__":
    main()
