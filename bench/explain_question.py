"""The server's side of one default question: every statement the gold questions send is captured, then replayed
twice with ``EXPLAIN (ANALYZE)`` under each ``plan_cache_mode`` given (default ``auto``); per kind of statement, its
count per question and its mean planning and execution time; then one plan of each search statement with its
buffers (docs/pipeline-speed.md, speed5). EXPLAIN's timing inflates the figures: read the proportions.

Run: nice .venv/bin/python bench/explain_question.py [auto] [force_generic_plan] > explain.txt
"""

import collections
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(__file__))
from _common import scratch_database
from _synthetic import run_then_remove_scratch_database


def main():
    url = scratch_database()
    import psycopg
    from profile_question import samples_and_gold_questions

    from core.retrieval import RetrievalRequest, retrieve

    store, qs, vecs = samples_and_gold_questions(url)
    captured = []
    orig = psycopg.Cursor.execute

    def cap(cur, query, params=None, *a, **kw):
        captured.append((cur.connection, query, params))
        return orig(cur, query, params, *a, **kw)

    psycopg.Cursor.execute = cap
    for q in qs:
        retrieve(store, RetrievalRequest(q, k=4, query_vector=vecs[q]))
    psycopg.Cursor.execute = orig

    def kind(q):
        s = " ".join(str(q).split())
        if "walk (element_id, document_id)" in s:
            return "ft-subtree"
        if "terms AS MATERIALIZED" in s:
            return "ft-collection"
        if s.startswith("WITH hits AS MATERIALIZED"):
            return "vec-collection"
        if "RECURSIVE scope" in s:
            return "vec-subtree"
        if "RECURSIVE up" in s:
            return "expand"
        if "DISTINCT ON (document_id)" in s:
            return "versions"
        if "s.words_version" in s:
            return "heading-state"
        if "hke_term_state" in s:
            return "term-counts"
        return s[:40] or "check"

    res = collections.defaultdict(lambda: collections.defaultdict(list))
    modes = sys.argv[1:] or ["auto"]
    from core.db.pool import _configure_connection
    from core.db.urls import psycopg_conninfo

    with psycopg.connect(psycopg_conninfo(url), autocommit=True) as conn:
        _configure_connection(conn)
        conn.autocommit = True
        for mode in modes:
            conn.execute(f"SET plan_cache_mode = {mode}" if mode != "auto" else "RESET plan_cache_mode")
            for _ in range(2):
                for _conn, q, p in captured:
                    k = kind(q)
                    if not str(q).strip() or k == "check":
                        continue
                    rows = conn.execute("EXPLAIN (ANALYZE, FORMAT JSON) " + str(q), p).fetchone()[0]
                    plan = rows[0] if isinstance(rows, list) else json.loads(rows)[0]
                    res[(mode, k)]["plan"].append(plan.get("Planning Time", 0))
                    res[(mode, k)]["exec"].append(plan["Execution Time"])
    for (mode, k), d in sorted(res.items()):
        n = len(d["plan"]) / 2 / len(qs)
        plan, execution = statistics.fmean(d["plan"]), statistics.fmean(d["exec"])
        print(
            f"{mode:20s} {k:15s} per-q {n:4.2f}  plan mean {plan:6.3f}  exec mean {execution:6.3f}  "
            f"per-q total {(plan + execution) * n:6.3f}"
        )
    # one sample plan of each
    seen = set()
    with psycopg.connect(psycopg_conninfo(url), autocommit=True) as conn:
        _configure_connection(conn)
        conn.autocommit = True
        for _conn, q, p in captured:
            k = kind(q)
            if (
                k in seen
                or k in ("check",)
                or k not in ("vec-collection", "ft-collection", "ft-subtree", "vec-subtree", "expand")
            ):
                continue
            seen.add(k)
            print("=====", k)
            for (line,) in conn.execute("EXPLAIN (ANALYZE, BUFFERS) " + str(q), p).fetchall():
                print(line)


if __name__ == "__main__":
    run_then_remove_scratch_database(main)
