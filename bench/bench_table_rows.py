"""Tables of many rows against the parse limit: a pipe table and an HTML table of ``--rows`` rows (ragged rows and
an empty header cell included), parsed into a Table element and one TableRow element per row.

Reports the seconds of each parse, the rows kept, and the markdown parse limit (core.markdown_loader).

Run: .venv/bin/python bench/bench_table_rows.py [--rows 10000]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=10_000)
    args = parser.parse_args()
    from core.markdown_loader import PARSE_TIME_LIMIT_S, parse_markdown

    n = args.rows
    pipe = "| name | | n |\n|---|---|---|\n" + "\n".join(
        f"| r{i} | x |" if i % 7 == 0 else f"| r{i} | x | {i} |" for i in range(n)) + "\n"
    html = "<table><tr><th>name</th><th></th><th>n</th></tr>" + "".join(
        f"<tr><td>r{i}</td><td colspan=2>{i}</td></tr>" if i % 7 == 0
        else f"<tr><td>r{i}</td><td>x</td><td>{i}</td></tr>" for i in range(n)) + "</table>\n"
    out: dict[str, object] = {"rows": n, "parse_limit_s": PARSE_TIME_LIMIT_S}
    for name, text in (("pipe", pipe), ("html", html)):
        t0 = time.perf_counter()
        docs = parse_markdown(text, source=f"{name}.md", document_id=name)
        seconds = time.perf_counter() - t0
        rows = [d for d in docs if d.metadata["category"] == "TableRow"]
        assert len(rows) == n and all(len(d.metadata["cells"]) == 3 for d in rows)
        out[name] = {"seconds": round(seconds, 2), "row_elements": len(rows)}
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
