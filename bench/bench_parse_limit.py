"""What the hard parse limit costs: an unstructured parse in a killable child process (``core.parse_limit``, as
ingest runs it) against the same parse in the calling process, side by side in one run, alternated over rounds.

Inputs: the sample corpus converted to HTML (``markdown`` package, already a dependency of unstructured) and the
same markdown through ``--loader unstructured``. The fork server's one-time start (it imports and warms the
parsers) is timed separately.

Run: .venv/bin/python bench/bench_parse_limit.py [--rounds 5]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()

    import markdown

    from core.html_docx_loader import parse_html
    from core.parse_limit import _fork_context, run_with_time_limit
    from core.unstructured_loader import parse_with_unstructured

    texts = {p.name: p.read_text(encoding="utf-8") for p in sorted((ROOT / "data" / "samples").glob("*.md"))}
    html = {name: markdown.markdown(text, extensions=["tables"]) for name, text in texts.items()}
    t0 = time.perf_counter()
    _fork_context()
    server_start = time.perf_counter() - t0
    # warm the in-process parsers as the fork server warms its own
    for name, text in html.items():
        parse_html(text, source=name, document_id="0" * 16)
    for name, text in texts.items():
        parse_with_unstructured(text, source=name, document_id="0" * 16)

    jobs = {
        "html": [(parse_html, (text,), {"source": n, "document_id": "0" * 16}) for n, text in html.items()],
        "markdown (unstructured)": [(parse_with_unstructured, (text,), {"source": n, "document_id": "0" * 16})
                                    for n, text in texts.items()],
    }
    results = {}
    for kind, calls in jobs.items():
        inline, child = [], []
        for _ in range(args.rounds):
            for fn, a, kw in calls:
                t = time.perf_counter()
                fn(*a, **kw)
                inline.append(time.perf_counter() - t)
                t = time.perf_counter()
                run_with_time_limit(fn, *a, limit=60, **kw)
                child.append(time.perf_counter() - t)
        results[kind] = {
            "files": len(calls), "rounds": args.rounds,
            "in_process_ms_median": round(statistics.median(inline) * 1000, 1),
            "child_process_ms_median": round(statistics.median(child) * 1000, 1),
            "overhead_ms_median": round((statistics.median(child) - statistics.median(inline)) * 1000, 1),
            "ratio_child_over_in_process": round(statistics.median(child) / statistics.median(inline), 2),
        }
    print(json.dumps({"fork_server_start_s": round(server_start, 2), **results}, indent=2))


if __name__ == "__main__":
    main()
