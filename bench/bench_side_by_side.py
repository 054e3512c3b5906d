"""Two checkouts answering the same questions in turn, question by question, at the same moment of a shared machine's
load: the default pipeline's latency as ``bench/bench_eval.py`` measures it, before and after a change.

Each checkout runs a worker of its own (this file, run by that checkout's Python with that checkout's ``core`` on its
path) against one database (``DATABASE_URL``; the question sets' corpora ingested there already, e.g. by a
``bench_eval.py`` run from either checkout, so that element ids match). The driver sends each question to both workers,
the first of them alternating, and records per question and side:

* ``latency_ms``: ``ModeRunner.run``'s latency of the default mode, as ``bench_eval.py`` reports it (the query's
  embedding, the search, the context);
* ``pipeline_ms``: the wall time of that run plus the extractive answer; ``cpu_ms``: this worker's CPU time for it;
  ``pg_cpu_ms``: the database backends' CPU time in the same span (``bench_pipeline.ServerClock``: only one worker runs
  at a time, so the backends' CPU is that question's); ``statements``: the SQL statements sent;
* ``raw_ms`` / ``raw_cpu_ms``: one hybrid search of the whole collection with the question's vector, its two
  statements alone (``core.retrieval.search.search``): the limit, the least any answer costs;
* the answer, so that a pure speed change is checked answer by answer.

Every question is new to both workers when first asked (a question is embedded on its first ask, as in
``bench_eval.py``).

Run: DATABASE_URL=... nice .venv/bin/python bench/bench_side_by_side.py --before /tmp/before --after . \\
     [--sets gold,entity-grid] [--label NAME]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path


def _worker(root: Path, names: list[str]) -> None:
    sys.path[:0] = [str(root), str(root / "bench")]
    from bench_eval import SETS, load_set
    from bench_pipeline import ServerClock, StatementCounter

    from core.answering import ExtractiveAnswerer
    from core.db import database_url
    from core.embeddings import make_embeddings
    from core.evaluation import ModeRunner
    from core.retrieval import warm_up
    from core.retrieval.scope import Scope
    from core.retrieval.search import embed_query, search, search_config
    from core.store import ElementStore

    url = database_url()
    embeddings = make_embeddings("use")
    runners: dict[str, ModeRunner] = {}
    asked: list[tuple[str, str]] = []
    for name in names:
        spec = SETS[name]
        collection = f"bench_{(spec.collection or name).replace('-', '_')}"
        if collection not in runners:
            store = ElementStore(url, collection, embeddings, create=False)
            warm_up(store)
            runners[collection] = ModeRunner(store, ["default"], k=4)
        asked += [(collection, q.question) for q in load_set(spec).questions]
    answerer = ExtractiveAnswerer()
    counter = StatementCounter()
    clock = ServerClock(url)
    config = search_config(None)
    for collection, runner in runners.items():  # the pool's connections made and the statements prepared
        for _ in range(6):
            runner.run(f"warm up the {collection} collection")
    clock.refresh()
    print(json.dumps({"questions": len(asked)}), flush=True)
    for line in sys.stdin:
        collection, question = asked[int(line)]
        runner = runners[collection]
        statements, server, cpu, wall = counter.count, clock(), time.process_time(), time.perf_counter()
        got = runner.run(question)["default"]
        answer = answerer.complete(question, got.context)
        row = {"pipeline_ms": (time.perf_counter() - wall) * 1000, "cpu_ms": (time.process_time() - cpu) * 1000,
               "pg_cpu_ms": (clock() - server) * 1000, "statements": counter.count - statements,
               "latency_ms": got.latency_ms, "answer": answer}
        query_vector = embed_query(runner.store, question)  # kept from the run above
        cpu, wall = time.process_time(), time.perf_counter()
        search(runner.store, question, query_vector, 4, Scope.whole(), config)
        row.update(raw_ms=(time.perf_counter() - wall) * 1000, raw_cpu_ms=(time.process_time() - cpu) * 1000)
        print(json.dumps(row), flush=True)


def _percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    at = (len(ordered) - 1) * p / 100
    low = int(at)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (at - low)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path)
    parser.add_argument("--after", type=Path, default=Path(__file__).resolve().parents[1])
    parser.add_argument("--sets", default="gold,entity-grid")
    parser.add_argument("--label", default="side-by-side")
    parser.add_argument("--worker", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    names = [s.strip() for s in args.sets.split(",") if s.strip()]
    if args.worker is not None:
        _worker(args.worker, names)
        return
    if not os.environ.get("DATABASE_URL") or args.before is None:
        parser.error("needs --before and DATABASE_URL (the database both checkouts read)")
    sides = {"before": args.before.resolve(), "after": args.after.resolve()}
    workers = {side: subprocess.Popen(
        [str(root / ".venv" / "bin" / "python"), str(Path(__file__).resolve()), "--worker", str(root),
         "--sets", ",".join(names)], cwd=root, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        for side, root in sides.items()}
    counts = {side: json.loads(w.stdout.readline())["questions"] for side, w in workers.items()}
    if len(set(counts.values())) != 1:
        raise SystemExit(f"the checkouts hold different question sets: {counts}")
    rows: dict[str, list[dict]] = {side: [] for side in sides}
    load = [os.getloadavg()[0]]
    for i in range(counts["before"]):
        order = ("before", "after") if i % 2 == 0 else ("after", "before")
        for side in order:
            workers[side].stdin.write(f"{i}\n")
            workers[side].stdin.flush()
            rows[side].append(json.loads(workers[side].stdout.readline()))
    load.append(os.getloadavg()[0])
    for w in workers.values():
        w.stdin.close()
        w.wait()
    summary: dict[str, dict[str, float]] = {}
    for side, side_rows in rows.items():
        out: dict[str, float] = {}
        for key in ("latency_ms", "pipeline_ms", "cpu_ms", "raw_ms", "raw_cpu_ms", "statements"):
            values = [r[key] for r in side_rows]
            out[f"{key}_p50"] = round(_percentile(values, 50), 2)
            out[f"{key}_p95"] = round(_percentile(values, 95), 2)
        out["pg_cpu_ms_mean"] = round(statistics.fmean(r["pg_cpu_ms"] for r in side_rows), 2)
        out["cpu_with_pg_ms_mean"] = round(statistics.fmean(r["cpu_ms"] + r["pg_cpu_ms"] for r in side_rows), 2)
        summary[side] = out
    same = sum(b["answer"] == a["answer"] for b, a in zip(rows["before"], rows["after"], strict=True))
    result = {"label": args.label, "sets": names, "questions": counts["before"], "load_average": load,
              "same_answers": same, "summary": summary, "rows": rows}
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from _common import write_result

    path = write_result(f"side-by-side-{args.label}", result)
    print(json.dumps({k: v for k, v in result.items() if k != "rows"}, indent=1))
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
