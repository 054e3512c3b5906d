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

Many at once over one ingest, and a saved sweep re-chosen under today's rule (docs/retrieval-stages.md)::

    .venv/bin/python bench/sweep.py --batch bench/sweep-retrieval.json SETS CHOSEN_ON [--record]
    .venv/bin/python bench/sweep.py --from-results bench/out/sweep-MIN_SCORE.json

``--constant`` and ``--config`` (a frozen config's field default) run each value in a fresh worker process.
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
from pathlib import Path
from typing import Any

from _common import scratch_database, write_result

# bench_eval (and through it core) is imported inside the functions: a sweep worker must set its value before any
# module of core that copies it is loaded (apply_override).

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


def apply_override(kind: str, dotted: str, value: Any) -> None:
    """Set a constant or a config default to ``value`` in a fresh process, right after its defining module loads and
    before any module that copies it (``from x import NAME``, a default argument, a registry built at import) does,
    so every reader sees the value and no cache holds the old one."""
    if kind == "constant":
        module_name, _, name = dotted.rpartition(".")
        setattr(importlib.import_module(module_name), name, value)
        return
    module_name, class_name, name = dotted.rsplit(".", 2)
    module = importlib.import_module(module_name)
    cls = getattr(module, class_name)
    old = {f.name: f.default for f in dataclasses.fields(cls)}[name]
    names = [f.name for f in dataclasses.fields(cls) if f.default is not dataclasses.MISSING]
    defaults = list(cls.__init__.__defaults__)
    defaults[names.index(name)] = value
    cls.__init__.__defaults__ = tuple(defaults)
    # Registry entries built at import with the default take the new default; those that set the field keep theirs.
    for attr in dir(module):
        held = getattr(module, attr)
        if isinstance(held, cls) and getattr(held, name) == old:
            setattr(module, attr, dataclasses.replace(held, **{name: value}))
        elif isinstance(held, dict):
            for key, entry in list(held.items()):
                inner = getattr(entry, "config", entry)
                if isinstance(inner, cls) and getattr(inner, name) == old:
                    new = dataclasses.replace(inner, **{name: value})
                    held[key] = dataclasses.replace(entry, config=new) if inner is not entry else new
    # A function whose default argument is an instance built at import (``config=DEFAULT_CONFIG``) takes the new one.
    for held in vars(module).values():
        defaults = getattr(held, "__defaults__", None)
        if callable(held) and defaults and any(isinstance(d, cls) and getattr(d, name) == old for d in defaults):
            held.__defaults__ = tuple(dataclasses.replace(d, **{name: value})
                                      if isinstance(d, cls) and getattr(d, name) == old else d for d in defaults)
    if hasattr(module, "DEFAULT_STRATEGY") and hasattr(module, "STRATEGIES"):
        module.DEFAULT_SEARCH = module.STRATEGIES[module.DEFAULT_STRATEGY]


def config_current(dotted: str) -> tuple[str, Any]:
    """The record's module and name (``SearchConfig.candidates``) and the field's default."""
    module_name, class_name, name = dotted.rsplit(".", 2)
    cls = getattr(importlib.import_module(module_name), class_name)
    return f"{module_name}:{class_name}.{name}", {f.name: f.default for f in dataclasses.fields(cls)}[name]


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
# Another value replaces the code's only when it answers at least this many more questions in all of the chosen-on
# sets together: one question is within what reordering ties moves, and a choice made on it is fitted to noise.
MIN_GAIN_QUESTIONS = 2


def choose(results: dict[Any, dict[str, dict[str, float]]], chosen_on: Sequence[str], current: Any = None) -> Any:
    """The value that answers the most questions on ``chosen_on``, then attributes the most; among values that
    score the same, the code's (``current``, else the first given) unless another saves at least
    :data:`TOKEN_SAVING` of the context tokens. A value beats the code's only by :data:`MIN_GAIN_QUESTIONS`."""
    def count(value: Any, metric: str) -> float:
        # questions, a whole number per set: the shares are saved rounded, and 0.9333 - 0.9267 of 150 is one question
        return sum(round((results[value][s][metric] or 0.0) * results[value][s].get("n", 1)) for s in chosen_on)

    def mean_tokens(value: Any) -> float:
        return sum(results[value][s]["tokens"] for s in chosen_on) / len(chosen_on)

    first = current if current in results else next(iter(results))
    best = max((count(v, "answer"), count(v, "attribution")) for v in results)
    tied = [v for v in results if (count(v, "answer"), count(v, "attribution")) == best]
    if first not in tied and count(first, "answer") > best[0] - MIN_GAIN_QUESTIONS:
        return first
    fewest = min(tied, key=mean_tokens)
    keep = first if first in tied else tied[0]
    return fewest if mean_tokens(fewest) < (1 - TOKEN_SAVING) * mean_tokens(keep) else keep


def main(argv: Sequence[str] | None = None) -> None:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["--worker"]:
        worker(argv[1:])
        return
    if argv[:1] == ["--from-results"]:
        for path in argv[1:]:
            rechoose(path)
        return
    if argv[:1] in (["--batch"], ["--reader"]):
        from _synthetic import run_then_remove_scratch_database

        path, sets, chosen_on, *flags = argv[1:]
        mode = flags[flags.index("--mode") + 1] if "--mode" in flags else "default"
        run = batch if argv[0] == "--batch" else reader_batch
        run_then_remove_scratch_database(lambda: run(path, sets.split(","), chosen_on.split(","), 4,
                                                     "--record" in flags, mode))
        return
    from _synthetic import remove_scratch_database
    from bench_eval import SETS

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument("--stage", choices=STAGE_FIELDS, help="a stage config of core.retrieval.stages")
    what.add_argument("--constant", help="a module constant, dotted (core.answering.extractive.TEXT_WEIGHT)")
    what.add_argument("--config", help="a frozen config's field default, dotted "
                                       "(core.retrieval.strategies.SearchConfig.candidates)")
    parser.add_argument("--field", help="the stage config's field (with --stage)")
    parser.add_argument("--values", required=True, help="comma-separated values to try")
    parser.add_argument("--sets", required=True, help=f"comma-separated, from {', '.join(SETS)}")
    parser.add_argument("--chosen-on", required=True, help="the sets the value is chosen on (a subset of --sets)")
    parser.add_argument("--record", action="store_true", help="write the choice as the constant's sweep record")
    parser.add_argument("--why", default="", help="what the constant does (kept from its record when empty)")
    parser.add_argument("--k", type=int, default=4)
    parser.add_argument("--mode", default="default", help="the evaluation mode scored (statements: the statement "
                                                          "search's constants)")
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
            values = [parse_value(v.strip(), current) for v in args.values.split(",") if v.strip()]
            results = sweep(url, sets, values, running, args.k, args.mode)
        else:
            kind, dotted = ("constant", args.constant) if args.constant else ("config", args.config)
            if kind == "constant":
                target, current, _ = constant_setter(dotted)
            else:
                target, current = config_current(dotted)
            values = [parse_value(v.strip(), current) for v in args.values.split(",") if v.strip()]
            results = sweep_isolated(url, sets, values, kind, dotted, args.k, args.mode)
    finally:
        remove_scratch_database()
    chosen = choose(results, chosen_on, current)
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


def _set_store(url: str, name: str, embeddings: Any, ingest: bool) -> Any:
    from _common import CORPORA
    from bench_eval import SETS

    from core.ingest import ingest_paths
    from core.store import ElementStore

    spec = SETS[name]
    store = ElementStore(url, f"bench_{(spec.collection or name).replace('-', '_')}", embeddings)
    if ingest:
        ingest_paths(store, [spec.corpus, *(CORPORA / more for more in spec.more)])
    return store


def _score(store: Any, name: str, k: int, mode: str = "default") -> dict[str, Any]:
    from bench_eval import SETS, evaluate_set, load_set

    agg = evaluate_set(store, load_set(SETS[name]).questions, [mode], k)[mode]["aggregate"]
    return {"answer": agg["answer_contains"], "attribution": agg["attribution"], "tokens": agg["tokens"],
            "n": agg["n"]}


def sweep(url: str, sets: Sequence[str], values: Sequence[Any], running: Any, k: int,
          mode: str = "default") -> dict[Any, dict]:
    """``{value: {set: {"answer", "attribution", "tokens", "n"}}}`` for the evaluation's default mode."""
    from core.embeddings import make_embeddings

    embeddings = make_embeddings("use")
    results: dict[Any, dict] = {v: {} for v in values}
    for name in sets:
        store = _set_store(url, name, embeddings, ingest=True)
        for value in values:
            with running(value):
                results[value][name] = _score(store, name, k, mode)
            _progress(name, value, results[value][name])
    return results


def sweep_isolated(url: str, sets: Sequence[str], values: Sequence[Any], kind: str, dotted: str,
                   k: int, mode: str = "default") -> dict[Any, dict]:
    """The same, each value evaluated in its own process (:func:`apply_override`); the sets are ingested once, here."""
    from core.embeddings import make_embeddings

    embeddings = make_embeddings("use")
    for name in sets:
        _set_store(url, name, embeddings, ingest=True)
    results: dict[Any, dict] = {}
    for value in values:
        results[value] = _run_worker(kind, dotted, value, k, sets, mode)
        for name in sets:
            _progress(name, value, results[value][name])
    return results


def _run_worker(kind: str, dotted: str, value: Any, k: int, sets: Sequence[str],
                mode: str = "default") -> dict[str, dict]:
    import json
    import subprocess

    done = subprocess.run([sys.executable, __file__, "--worker", kind, dotted, json.dumps(value), f"{k}:{mode}", *sets],
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"the worker for {dotted}={value!r} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def batch(path: str, sets: Sequence[str], chosen_on: Sequence[str], k: int, record: bool,
          mode: str = "default") -> None:
    """Sweep every entry of the JSON file ``path`` (``[{"constant"|"config"|"stage": DOTTED, "values": [...]}]``,
    a stage written ``probe.k``) over one ingest and one shared run of the code's values: each other value is one
    worker process. Each entry's choice is printed, written to ``bench/out`` and, with ``record``, recorded.
    ``mode``: the evaluation mode scored (``statements`` for the statement search's constants)."""
    from core.embeddings import make_embeddings

    entries = _entries(path)
    url = scratch_database()
    embeddings = make_embeddings("use")
    for name in sets:
        _set_store(url, name, embeddings, ingest=True)
    baseline = _run_worker("none", "-", None, k, sets, mode)
    for kind, dotted, target, current, values in entries:
        started = time.perf_counter()
        results = {v: baseline if v == current else _run_worker(kind, dotted, v, k, sets, mode) for v in values}
        _conclude(kind, dotted, target, current, values, results, sets, chosen_on, record, started, mode)


def reader_batch(path: str, sets: Sequence[str], chosen_on: Sequence[str], k: int, record: bool,
                 mode: str = "default") -> None:
    """The same for the reader's constants (``core.answering``; ``path`` may name several files, comma-separated),
    which change the answer and not the context: each question is retrieved once, and each value answers the kept
    contexts in this process (the reader reads its constants when it scores, so setting them on the module is
    enough). Attribution and tokens are the context's, the same for every value. The citation repair's constants
    (``core.answering.citations``) are scored by :func:`citation_scores`, the weak-match note's threshold
    (``WEAK_SCORE``) by how well the note tells wrong answers from right ones."""
    from bench_eval import SETS, _mean, load_set

    from core.answering import ExtractiveAnswerer
    from core.embeddings import make_embeddings
    from core.evaluation import ModeRunner
    from core.evaluation.metrics import ContextItem, contains_answer, strict_attribution

    files = [_entries(one) for one in path.split(",")]
    entries = [entry for one in files for entry in one]
    if any(kind != "constant" or not dotted.startswith("core.answering.") for kind, dotted, *_ in entries):
        raise SystemExit("--reader sweeps module constants of core.answering only; use --batch for the others")
    url = scratch_database()
    embeddings = make_embeddings("use")
    kept: dict[str, list[tuple[Any, Any]]] = {}
    context_scores: dict[str, dict[str, Any]] = {}
    for name in sets:
        store = _set_store(url, name, embeddings, ingest=True)
        runner = ModeRunner(store, [mode], k=k, build_contextual=True)
        kept[name], attribution, tokens = [], [], []
        for question in load_set(SETS[name]).questions:
            context = runner.run(question.question)[mode].context
            items = [ContextItem(e.text, tuple(e.path), e.role, e.category) for e in context.elements]
            attribution.append(strict_attribution(items, question.answers, question.gold_path, question.gold_element))
            tokens.append(context.tokens)
            kept[name].append((question, context))
        context_scores[name] = {"attribution": _mean(attribution), "tokens": round(sum(tokens) / len(tokens), 1),
                                "n": len(tokens)}
        print(f"{name}: {len(tokens)} contexts kept", flush=True)

    def score() -> dict[str, dict[str, Any]]:
        answerer = ExtractiveAnswerer()
        return {name: {"answer": _mean([contains_answer(answerer.complete(q.question, c), q.answers) if q.answers
                                        else None for q, c in kept[name]]), **context_scores[name]}
                for name in sets}

    def weak_notes() -> dict[str, dict[str, Any]]:
        """The weak-match note's threshold: ``attribution`` is the share of answers whose note tells right from
        wrong (the note on an answer without the gold, none on one with it); ``answer`` does not change."""
        from core.answering.prompts import EXTRACTIVE_WEAK_NOTE

        answerer = ExtractiveAnswerer()
        out = {}
        for name in sets:
            told, right = [], []
            for q, c in kept[name]:
                if q.answers:
                    answer = answerer.complete(q.question, c)
                    right.append(contains_answer(answer, q.answers))
                    told.append((EXTRACTIVE_WEAK_NOTE in answer) != right[-1])
            out[name] = {**context_scores[name], "answer": _mean(right), "attribution": _mean(told)}
        return out

    def citations() -> dict[str, dict[str, Any]]:
        return {name: {**citation_scores(kept[name]), "n": context_scores[name]["n"],
                       "tokens": context_scores[name]["tokens"]} for name in sets}

    for kind, dotted, target, current, values in entries:
        _, _, running = constant_setter(dotted)
        started = time.perf_counter()
        results = {}
        for value in values:
            with running(value):
                results[value] = (citations() if dotted.startswith("core.answering.citations.")
                                  else weak_notes() if dotted.endswith(".WEAK_SCORE") else score())
        _conclude(kind, dotted, target, current, values, results, sets, chosen_on, record, started, mode,
                  ["--reader", path, ",".join(sets), ",".join(chosen_on), "--record"])


def citation_scores(kept: Sequence[tuple[Any, Any]]) -> dict[str, float | None]:
    """How :func:`core.answering.citations.repair_citations` cites answers a model wrote without citations, offline:
    each question with a gold answer and a context that holds it is answered twice, tersely ("{gold}.") and
    restating the question ("{question}: {gold}."). ``answer``: the share of those answers cited to an element that
    holds the gold; ``attribution``: the share not cited to an element that does not (marked uncited instead)."""
    from core.answering.citations import repair_citations
    from core.evaluation.metrics import contains_answer
    from core.partial_tree import CITATION_RE

    right = wrong = total = 0
    for question, context in kept:
        answers = [a for a in question.answers if a.strip()]
        if not answers or not any(contains_answer(e.text, answers) for e in context.elements):
            continue
        by_prefix = {e.element_id.lower(): e for e in context.elements}
        for text in (f"{answers[0]}.", f"{question.question.rstrip(' ?？')}: {answers[0]}."):
            total += 1
            repaired = repair_citations(text, context)
            cited = [e for m in CITATION_RE.finditer(repaired.text if repaired else text)
                     for i, e in by_prefix.items() if i.startswith(m.group(1).lower())]
            if any(contains_answer(e.text, answers) for e in cited):
                right += 1
            elif cited:
                wrong += 1
    return {"answer": round(right / total, 4) if total else None,
            "attribution": round(1 - wrong / total, 4) if total else None}


def _entries(path: str) -> list[tuple[str, str, str, Any, list[Any]]]:
    """Each entry of a sweep file as (kind, dotted, target, the code's value, the values: the code's first)."""
    import json

    out = []
    for entry in json.loads(Path(path).read_text(encoding="utf-8")):
        kind = next(key for key in ("constant", "config", "stage") if key in entry)
        dotted = entry[kind]
        if kind == "constant":
            target, current, _ = constant_setter(dotted)
        elif kind == "config":
            target, current = config_current(dotted)
        else:
            target, current, _ = stage_setter(*dotted.split("."))
        values = [current, *(parse_value(str(v).lower() if isinstance(v, bool) else str(v), current)
                             for v in entry["values"] if v != current)]
        out.append((kind, dotted, target, current, values))
    return out


def _conclude(kind: str, dotted: str, target: str, current: Any, values: Sequence[Any], results: dict[Any, dict],
              sets: Sequence[str], chosen_on: Sequence[str], record: bool, started: float, mode: str,
              command: Sequence[str] = ()) -> None:
    chosen = choose(results, chosen_on, current)
    _print(target, values, sets, chosen_on, results, chosen, current)
    module, name = target.split(":")
    what = ["--stage", *dotted.split(".")[:1], "--field", dotted.split(".")[1]] if kind == "stage" \
        else ["--" + kind, dotted]
    command = list(command) or [*what, "--values", ",".join(map(str, values)), "--sets", ",".join(sets),
                                "--chosen-on", ",".join(chosen_on), "--record"]
    if mode != "default":
        command += ["--mode", mode]
    write_result(f"sweep-{name}", {"target": target, "current": current, "chosen": chosen, "mode": mode,
                                   "chosen_on": list(chosen_on), "results": {str(v): r for v, r in results.items()},
                                   "command": command, "seconds": round(time.perf_counter() - started, 1)})
    if record:
        _record(module, name, chosen, values, chosen_on, results[chosen], "", command)
        if chosen != current:
            print(f"CHANGE {target}: the chosen value {chosen!r} differs from the code's {current!r}", flush=True)


def rechoose(path: str) -> None:
    """Choose again from a sweep's saved results (``bench/out/sweep-NAME.json``) under today's :func:`choose`, and
    record the choice with the command that reproduces the sweep."""
    import json

    saved = json.loads(Path(path).read_text(encoding="utf-8"))
    module, name = saved["target"].split(":")
    if module == "core.retrieval.stages":
        config_name, field_name = name.split(".")
        stage = next(s for s in STAGE_FIELDS if type(getattr(_default_stages(), s)).__name__ == config_name)
        _, current, _ = stage_setter(stage, field_name)
        what = ["--stage", stage, "--field", field_name]
    elif "." in name:
        _, current = config_current(f"{module}.{name}")
        what = ["--config", f"{module}.{name}"]
    else:
        _, current, _ = constant_setter(f"{module}.{name}")
        what = ["--constant", f"{module}.{name}"]
    results = {parse_value(v, current): r for v, r in saved["results"].items()}
    values = list(results)
    sets = list(next(iter(results.values())))
    chosen_on = saved["chosen_on"]
    chosen = choose(results, chosen_on, current)
    _print(saved["target"], values, sets, chosen_on, results, chosen, current)
    command = saved.get("command") or [*what, "--values", ",".join(map(str, values)), "--sets", ",".join(sets),
                                       "--chosen-on", ",".join(chosen_on), "--record"]
    if "command" not in saved and saved.get("mode", "default") != "default":
        command += ["--mode", saved["mode"]]
    _record(module, name, chosen, values, chosen_on, results[chosen], "", command)


def _default_stages() -> Any:
    from core.retrieval import stages as stages_module

    return stages_module.DEFAULT_STAGES


def worker(argv: Sequence[str]) -> None:
    """``--worker KIND DOTTED VALUE_JSON K[:MODE] SET...``: one value's scores on the already ingested sets, as
    JSON."""
    import json

    kind, dotted, value, k_mode, *sets = argv
    k, _, mode = k_mode.partition(":")
    running: Any = None
    if kind == "stage":
        stage, _, field_name = dotted.partition(".")
        _, _, running = stage_setter(stage, field_name)
    elif kind != "none":
        apply_override(kind, dotted, json.loads(value))
    from contextlib import nullcontext

    from core.db import database_url
    from core.embeddings import make_embeddings

    url = database_url()  # the parent's scratch server (HKE_DATA_DIR or DATABASE_URL is inherited)
    embeddings = make_embeddings("use")
    with running(json.loads(value)) if running else nullcontext():
        scores = {name: _score(_set_store(url, name, embeddings, ingest=False), name, int(k), mode or "default")
                  for name in sets}
    print(json.dumps(scores))


def _progress(name: str, value: Any, row: dict[str, Any]) -> None:
    print(f"{name:24s} {value!s:>8}  answer {row['answer']}  attribution {row['attribution']}  "
          f"tokens {row['tokens']}", flush=True)


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
