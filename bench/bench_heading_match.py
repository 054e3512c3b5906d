"""The heading match of one question against a large collection's heading index, in memory (no database).

Builds the heading index of ``--elements`` synthetic elements (bench/_synthetic.py: at 1M, 122,594 headings) and
times, per question shape, what a question costs before any search: ``word_factors`` (the words and how much each
counts; ``core.retrieval.pipeline`` reads them twice a question) and ``rank_headings`` (the named headings).
Shapes, each with ``--questions`` questions whose words are drawn from the headings' own words, the commonest
first (a common word is held by thousands of headings, the costly case):

* plain:    "What is the w1 w2 of product Pn?" (the retrieval benches' questions);
* preamble: "In the w1 w2 guide, what is the w3 of product Pn?" (a preamble that names a place);
* code:     "In w1, what does `w2` return?" (an identifier in code).

Run from any checkout to compare code versions on the same index:
    .venv/bin/python bench/bench_heading_match.py --elements 1000000
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, os.getcwd())  # the checkout run from: its core/ is the code measured
sys.path.insert(1, str(Path(__file__).resolve().parent))

from _synthetic import synthetic_corpus  # noqa: E402

from core.retrieval.headings import HeadingIndex, HeadingRef, rank_headings, word_factors  # noqa: E402


def headings(n_elements: int) -> list[HeadingRef]:
    out = []
    for record, docs, _ in synthetic_corpus(n_elements, seed=1_000_000, prefix="m"):
        for order, d in enumerate(docs):
            m = d.metadata
            if m.get("category") == "Title":
                out.append(HeadingRef(m["element_id"], d.page_content, tuple(m.get("heading_path") or ()),
                                      record.document_id, record.source, order))
    return out


def questions(index: HeadingIndex, n: int) -> dict[str, list[str]]:
    common = [w for w, _ in Counter({w: len(ids) for w, ids in index.postings.items()
                                     if w.isalpha() and len(w) >= 3}).most_common(3 * n + 3)]
    pick = [common[i : i + 3] for i in range(0, 3 * n, 3)]
    return {"plain": [f"What is the {a} {b} of product P{i}?" for i, (a, b, _) in enumerate(pick)],
            "preamble": [f"In the {a} {b} guide, what is the {c} of product P{i}?" for i, (a, b, c) in enumerate(pick)],
            "code": [f"In {a}, what does `{b}` return?" for a, b, _ in pick]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--elements", type=int, default=1_000_000)
    parser.add_argument("--questions", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=5, help="times each question is asked")
    args = parser.parse_args()
    t0 = time.perf_counter()
    index = HeadingIndex(headings(args.elements))
    print(f"{os.getcwd()}: {len(index.headings)} headings, index built in {time.perf_counter() - t0:.1f} s, "
          f"load average {os.getloadavg()[0]:.2f}", flush=True)
    for shape, asked in questions(index, args.questions).items():
        timings: dict[str, list[float]] = {"word_factors": [], "rank_headings": []}
        for _ in range(args.rounds):
            for q in asked:
                for name, f in (("word_factors", word_factors), ("rank_headings", rank_headings)):
                    t = time.perf_counter()
                    f(q, index)
                    timings[name].append((time.perf_counter() - t) * 1000)
        print(f"  {shape:9} " + ", ".join(f"{name} p50 {statistics.median(v):.2f} ms (max {max(v):.1f})"
                                          for name, v in timings.items()), flush=True)


if __name__ == "__main__":
    main()
