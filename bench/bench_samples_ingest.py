"""What building the statement tiers adds to the Overview's "Ingest the samples": the samples ingested into a fresh
database, once as a plain ingest and once with ``statement_tiers=True`` (what the button asks for), each in its own
process and scratch database so that neither finds the other's vectors in the embedding cache.

For each run: the ingest's seconds, the part of them spent on the tiers, the texts embedded, and the load average
beside it (the machine is shared: wall times are upper bounds). Medians of ``--reps`` per mode. Writes
``bench/out/bench_samples_ingest.json``.

Run: .venv/bin/python bench/bench_samples_ingest.py [--reps 2]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

from _common import SAMPLES, scratch_database, write_result


def one(mode: str) -> None:
    """One ingest of the samples into a fresh scratch database, its figures as a JSON line on stdout."""
    from _synthetic import remove_scratch_database

    url = scratch_database()
    try:
        from core.embeddings import make_embeddings
        from core.ingest import ingest_paths
        from core.store import ElementStore

        store = ElementStore(url, "samples", make_embeddings("use"))
        report = ingest_paths(store, [SAMPLES], statement_tiers=mode == "tiers")
        assert not report.errors, report.errors
        print(json.dumps({"mode": mode, "seconds": round(report.seconds, 2),
                          "tiers_seconds": round(report.tiers_seconds, 2),
                          "texts_embedded": report.texts_embedded, "load": round(os.getloadavg()[0], 1)}))
    finally:
        remove_scratch_database()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=2)
    parser.add_argument("--one", choices=["plain", "tiers"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        one(args.one)
        return
    runs: list[dict] = []
    for _ in range(args.reps):
        for mode in ("plain", "tiers"):  # in turn, so both see the same load
            done = subprocess.run([sys.executable, __file__, "--one", mode], capture_output=True, text=True,
                                  check=True)
            run = json.loads(done.stdout.strip().splitlines()[-1])
            runs.append(run)
            print(f"{mode}: {run['seconds']:.2f} s (tiers {run['tiers_seconds']:.2f} s), {run['texts_embedded']} "
                  f"texts embedded (load {run['load']})", flush=True)
    summary = {mode: {"seconds": statistics.median(r["seconds"] for r in runs if r["mode"] == mode),
                      "tiers_seconds": statistics.median(r["tiers_seconds"] for r in runs if r["mode"] == mode)}
               for mode in ("plain", "tiers")}  # fmt: skip
    extra = summary["tiers"]["seconds"] - summary["plain"]["seconds"]
    print(f"medians: plain {summary['plain']['seconds']:.2f} s, with the tiers {summary['tiers']['seconds']:.2f} s "
          f"(+{extra:.2f} s; the tiers' own part {summary['tiers']['tiers_seconds']:.2f} s)")
    print(f"wrote {write_result('bench_samples_ingest', {'runs': runs, 'medians': summary})}")


if __name__ == "__main__":
    main()
