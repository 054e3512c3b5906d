"""The samples' whole default pipeline per question: wall and CPU time, the Postgres side included, against the raw SQL
search alone (issue 29, item 7: p50 ≤ 15 ms).

Per question of the sets (default: ``gold`` and ``entity-grid``, 273 questions on data/samples) it times:

* ``pipeline``: what ``ask`` runs without an LLM: the query embedding, ``core.retrieval.retrieve`` under the default
  strategy (heading scope, evidence probes, entity hits, both contexts) and the extractive answer;
* ``embed`` / ``retrieve`` / ``answer``: its three parts;
* ``raw_search``: the SQL of one hybrid search of the whole collection (its vector and full-text statements,
  ``core.retrieval.search.search`` with the question's vector), the least any answer costs: the limit;
* ``raw_embed``: the embedder's own call for the question (``embed`` keeps a local model's vector per text, so a
  question asked again, as here after the first pass, is not embedded again): what a new question adds.

For each: the wall-clock median (``*_wall_ms_p50``), this process's CPU time (``*_cpu_ms_p50``, ``time.process_time``)
and the CPU time of this process's Postgres backends in the same span (``*_pg_cpu_ms_mean``: each pooled
connection's ``pg_backend_pid()``, read from /proc: ``schedstat``'s nanoseconds, else ``stat``'s 10 ms ticks, whose
mean is exact and median is not); ``*_cpu_with_pg_ms_mean`` adds the two. Also the SQL statements sent per question
(``statements_p50``, the pool's connection checks included). On a shared machine wall time is mostly waiting for a
core; CPU time is what the code costs. The load average is recorded with the numbers. ``--rounds`` runs the
questions that many times.

Every slow first call (model loads, the unit registry, the tokenizer, the heading index) is made before timing.

Run: nice .venv/bin/python bench/bench_pipeline.py [--sets gold,entity-grid] [--rounds 1] [--label NAME]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from _common import ROOT, SAMPLES, scratch_database, write_result
from _synthetic import run_then_remove_scratch_database

DATA = ROOT / "data"
SETS = {"gold": DATA / "questions.json", "entity-grid": DATA / "entity_grid" / "samples.json",
        "comparative-samples": DATA / "comparative" / "samples.json",
        "shapes-samples": DATA / "shapes" / "samples.json"}
PARTS = ("pipeline", "embed", "retrieve", "answer", "raw_search", "raw_embed")


class ServerClock:
    """CPU seconds used by the Postgres backends of this process's pool (the connections the questions are read on),
    from /proc: ``pg_backend_pid()`` of each, found in ``pg_stat_activity`` by the pool's application name. Read
    again by :meth:`refresh` after the warm-up pass, when the pool holds the connections it will lend."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.tick = os.sysconf("SC_CLK_TCK")
        self.pids: list[int] = []
        self.seen: dict[int, float] = {}  # each backend's CPU seconds when last read
        self.refresh()

    def refresh(self) -> None:
        import psycopg

        from core.db.pool import application_name
        from core.db.urls import psycopg_conninfo

        with psycopg.connect(psycopg_conninfo(self.url), autocommit=True) as conn:
            rows = conn.execute("SELECT pid FROM pg_stat_activity WHERE application_name = %s",
                                (application_name(),)).fetchall()
        self.pids = [int(pid) for (pid,) in rows]

    def __call__(self) -> float:
        """The backends' CPU seconds so far. A backend that ended (the pool lets a connection idle for
        ``POOL_MAX_IDLE_S`` go) keeps what it was last read at: summing only the live ones ran the clock backwards
        and gave a question negative server time. Read from ``/proc/PID/schedstat`` (nanoseconds on a CPU) where
        the kernel keeps it: ``stat``'s 10 ms ticks are charged to whichever process runs when a tick lands, which
        on a shared machine moved a run's mean by a millisecond or more."""
        for pid in self.pids:
            try:
                self.seen[pid] = int(Path(f"/proc/{pid}/schedstat").read_text().split()[0]) / 1e9
                continue
            except (OSError, IndexError, ValueError):
                pass
            try:
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            self.seen[pid] = (int(fields[11]) + int(fields[12])) / self.tick  # utime, stime
        return sum(self.seen.values())


class StatementCounter:
    """The SQL statements this process sends (psycopg's cursor execute, the pool's connection checks included)."""

    def __init__(self) -> None:
        import psycopg

        self.count = 0
        original = psycopg.Cursor.execute

        def counted(cursor, *args, **kwargs):
            self.count += 1
            return original(cursor, *args, **kwargs)

        psycopg.Cursor.execute = counted


@contextmanager
def timed(clock: ServerClock | None, into: dict[str, list[float]], part: str) -> Iterator[None]:
    """Time the block into ``into``; the server's CPU only with a ``clock`` (reading it costs this process too)."""
    wall, cpu, server = time.perf_counter(), time.process_time(), clock() if clock else 0.0
    yield
    into[f"{part}_wall_ms"].append((time.perf_counter() - wall) * 1000.0)
    into[f"{part}_cpu_ms"].append((time.process_time() - cpu) * 1000.0)
    if clock:
        into[f"{part}_pg_cpu_ms"].append((clock() - server) * 1000.0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default="gold,entity-grid", help=f"comma-separated, from {', '.join(SETS)}")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--label", default="")
    args = parser.parse_args()
    url = scratch_database()
    out = run(url, [s.strip() for s in args.sets.split(",") if s.strip()], args.rounds)
    out["label"] = args.label
    path = write_result(f"pipeline{'-' + args.label if args.label else ''}", out)
    print(f"wrote {path}")


def run(url: str, names: list[str], rounds: int) -> dict:
    from core.answering import ExtractiveAnswerer
    from core.embeddings import make_embeddings
    from core.evaluation import load_questions
    from core.ingest import ingest_paths
    from core.retrieval import DEFAULT_SEARCH, RetrievalRequest, Scope, retrieve, warm_up
    from core.retrieval.search import embed_query, search
    from core.store import ElementStore
    from core.tokens import count_tokens

    store = ElementStore(url, "bench_pipeline", make_embeddings("use"))
    ingest_paths(store, [SAMPLES])
    questions = [q.question for name in names for q in load_questions(SETS[name]).questions]
    answerer = ExtractiveAnswerer()
    clock, counter = ServerClock(url), StatementCounter()

    def pipeline(question: str, into: dict[str, list[float]]) -> None:
        with timed(None, into, "embed"):
            vector = embed_query(store, question)
        with timed(None, into, "retrieve"):
            retrieval = retrieve(store, RetrievalRequest(question, k=4, query_vector=vector))
        with timed(None, into, "answer"):
            answerer.complete(question, retrieval.hierarchical)

    def raw_search(question: str) -> Callable[[], object]:
        vector = embed_query(store, question)
        return lambda: search(store, question, vector, 4, Scope.whole(), DEFAULT_SEARCH)

    warm_up(store)
    count_tokens("warm up")
    scratch: dict[str, list[float]] = {f"{p}_{m}": [] for p in PARTS for m in ("wall_ms", "cpu_ms", "pg_cpu_ms")}
    for question in questions:  # first calls: models, the unit registry, tokenizer tables, per-text caches alike
        pipeline(question, scratch)
    clock.refresh()
    result_backends = len(clock.pids)
    samples = {key: [] for key in scratch}
    statements: list[int] = []
    load_before = os.getloadavg()
    for _ in range(rounds):
        for question in questions:
            sent = counter.count
            with timed(clock, samples, "pipeline"):
                pipeline(question, samples)
            statements.append(counter.count - sent)
            search_once = raw_search(question)
            with timed(clock, samples, "raw_search"):
                search_once()
            with timed(None, samples, "raw_embed"):
                store.embeddings.embed_query(question)
    load_after = os.getloadavg()
    result: dict = {"questions": len(questions), "rounds": rounds, "sets": names,
                    "load_average_before": [round(x, 2) for x in load_before],
                    "load_average_after": [round(x, 2) for x in load_after],
                    "environment": {"python": platform.python_version(), "cpus": os.cpu_count()},
                    "backends_clocked": result_backends}
    for key, values in samples.items():
        if values:
            result[f"{key}_p50"] = round(statistics.median(values), 2)
            result[f"{key}_mean"] = round(statistics.fmean(values), 2)
    result["statements_p50"] = statistics.median(statements)
    # The server's CPU without schedstat is counted in clock ticks (10 ms): its mean per question is exact, its
    # median is not.
    for part in ("pipeline", "raw_search"):
        result[f"{part}_cpu_with_pg_ms_mean"] = round(result[f"{part}_cpu_ms_mean"] + result[f"{part}_pg_cpu_ms_mean"],
                                                      2)
    # A question asked for the first time also pays the embedder's own call (``embed`` keeps vectors per text).
    first_ask = result["pipeline_cpu_with_pg_ms_mean"] - result["embed_cpu_ms_mean"] + result["raw_embed_cpu_ms_mean"]
    result["new_question_cpu_with_pg_ms_mean"] = round(first_ask, 2)
    for measure in ("wall_ms_p50", "cpu_with_pg_ms_mean"):
        result[f"pipeline_over_raw_search_{measure}"] = round(
            result[f"pipeline_{measure}"] / max(result[f"raw_search_{measure}"], 1e-9), 2)
    for key in sorted(result):
        if key.endswith("_p50") or "pg" in key or key.startswith(("load", "pipeline_over", "backends")):
            print(f"{key:<36} {result[key]}")
    return result


if __name__ == "__main__":
    run_then_remove_scratch_database(main)
