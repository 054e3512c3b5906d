#!/usr/bin/env python3
"""Speed of the element diff (core/versions), and its op counts over consecutive Python-Markdown releases.

1. A synthetic 506-element manual (tests/helpers_versions.py) against an edited copy (a heading renamed, a section
   moved, a paragraph split, a list item edited, one paragraph added and one removed), and against a rewrite sharing
   no text (every element unmatched: the similarity pass's worst case). p50 and max of ``diff_elements`` over runs.
2. The docs of each Python-Markdown release (``python bench/fetch_corpora.py --corpus python-markdown --releases``),
   file by file, for each consecutive pair: op counts and the time of all diffs of the pair (parsing excluded);
   the gold changes of data/versions/python-markdown-gold.json are looked up in those diffs.

Usage: python bench/bench_diff.py [--runs 30]. Prints JSON; the load average is part of it.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from collections import Counter
from pathlib import Path

from _common import CORPORA, ROOT

from core.elements import Element
from core.markdown_loader import parse_markdown
from core.versions import diff_elements
from core.versions.matching import OPS
from tests.helpers_versions import EDITS, Node, base_manual, parse

RELEASES = CORPORA / "python-markdown-releases"
GOLD = ROOT / "data" / "versions" / "python-markdown-gold.json"


def _timed(old: list[Element], new: list[Element], runs: int) -> dict[str, float]:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        diff_elements(old, new)
        times.append((time.perf_counter() - start) * 1000)
    return {"p50_ms": round(statistics.median(times), 2), "max_ms": round(max(times), 2)}


def synthetic(runs: int) -> dict[str, object]:
    base = base_manual(sections=36)
    nodes = base
    for name in ("rename_heading", "move_section", "split_paragraph", "edit_list_item", "add_and_remove"):
        nodes, _ = EDITS[name](nodes)
    old, new = parse(base), parse(nodes)
    rewrite = parse([Node(n.gid, n.kind, f"{n.text[::-1]} {k}") for k, n in enumerate(base)], document_id="other")
    counts = Counter(c.op for c in diff_elements(old, new))
    return {"elements": len(old), "edited": _timed(old, new, runs), "edit_ops": dict(counts),
            "rewritten": _timed(old, rewrite, max(3, runs // 5))}


def _load(path: Path, document_id: str) -> list[Element]:
    text = path.read_text(encoding="utf-8")
    return [Element.from_document(d) for d in parse_markdown(text, source=path.name, document_id=document_id)]


def releases() -> dict[str, object]:
    if not RELEASES.is_dir():
        return {"skipped": f"no {RELEASES}: run python bench/fetch_corpora.py --corpus python-markdown --releases"}
    dates = json.loads((RELEASES / "releases.json").read_text(encoding="utf-8"))
    versions = list(dates)
    gold = json.loads(GOLD.read_text(encoding="utf-8")) if GOLD.is_file() else {"pairs": {}}
    out: dict[str, object] = {}
    for a, b in zip(versions, versions[1:], strict=False):
        files = sorted({p.relative_to(RELEASES / a).as_posix() for p in (RELEASES / a).rglob("*.md")}
                       | {p.relative_to(RELEASES / b).as_posix() for p in (RELEASES / b).rglob("*.md")})
        counts: Counter[str] = Counter()
        changes = []
        elapsed = 0.0
        elements = 0
        for rel in files:
            old = _load(RELEASES / a / rel, rel) if (RELEASES / a / rel).is_file() else []
            new = _load(RELEASES / b / rel, rel) if (RELEASES / b / rel).is_file() else []
            elements += len(old) + len(new)
            start = time.perf_counter()
            diff = diff_elements(old, new, include_unchanged=True)
            elapsed += time.perf_counter() - start
            counts.update(c.op for c in diff)
            changes += [(rel, c) for c in diff if c.op != "unchanged"]
        found = []
        for fact in gold["pairs"].get(f"{a}->{b}", []):
            hit = any(rel == fact["file"] and c.op == fact["op"]
                      and fact["text"] in (c.after or "") + (c.before or "") for rel, c in changes)
            found.append(hit)
        out[f"{a}->{b}"] = {"dates": [dates[a], dates[b]], "files": len(files), "elements": elements,
                            "ops": {op: counts[op] for op in OPS}, "diff_ms": round(elapsed * 1000, 1),
                            "gold_found": f"{sum(found)}/{len(found)}"}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    ap.add_argument("--runs", type=int, default=30)
    args = ap.parse_args()
    result = {"load_before": os.getloadavg()[0], "synthetic": synthetic(args.runs), "releases": releases(),
              "load_after": os.getloadavg()[0]}
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
