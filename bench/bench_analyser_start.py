"""The Korean analyser's start, with and without Kiwi's multi-word dictionary, side by side.

Every process that reads a Korean word (a one-shot ``python -m core ask`` on a collection with Korean text, the
app's first question, an ingest) builds one Kiwi analyser and pays its load and its first analysis. For each of
``--rounds`` rounds, alternating the order, a fresh interpreter builds the analyser each way and analyses one
word; then one process analyses every Korean line of the samples (and of the fetched Korean corpora under
``bench/corpora/korean-*``) each way and counts the lines whose terms (``core.textnorm.match_terms``) differ.

Run: .venv/bin/python bench/bench_analyser_start.py [--rounds 5]
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
import time
from functools import lru_cache

from _common import ROOT, SAMPLES, write_result

_HANGUL = re.compile("[\uac00-\ud7a3]")
_START = """
import json, sys, time
started = time.perf_counter()
from kiwipiepy import Kiwi
kiwi = Kiwi(**json.loads(sys.argv[1]))
built = time.perf_counter()
kiwi.analyze("라이선스는 어디에서 확인하나요?")
print(json.dumps({"build_s": built - started, "first_s": time.perf_counter() - built}))
"""
WAYS = {"default": {}, "no multi-word dictionary": {"load_multi_dict": False}}


def _start(kwargs: dict[str, bool]) -> dict[str, float]:
    out = subprocess.run([sys.executable, "-c", _START, json.dumps(kwargs)], capture_output=True, text=True,
                         check=True)
    return json.loads(out.stdout)


def _korean_lines() -> list[str]:
    files = sorted(SAMPLES.rglob("*.md")) + sorted((ROOT / "bench" / "corpora").glob("korean-*/**/*.md"))
    lines = (line.strip() for f in files for line in f.read_text(encoding="utf-8", errors="replace").splitlines())
    return list(dict.fromkeys(line[:2000] for line in lines if _HANGUL.search(line)))


def _terms_each_way(lines: list[str]) -> dict[str, object]:
    from kiwipiepy import Kiwi

    from core import textnorm

    read: dict[str, list[frozenset[str]]] = {}
    seconds: dict[str, float] = {}
    for way, kwargs in WAYS.items():
        textnorm._kiwi = lru_cache(maxsize=1)(lambda kwargs=kwargs: Kiwi(**kwargs))
        textnorm._analyses.cache_clear()
        textnorm.match_terms("워밍업")
        started = time.perf_counter()
        read[way] = [textnorm.match_terms(line) for line in lines]
        seconds[way] = round(time.perf_counter() - started, 3)
    default, other = read.values()
    return {"lines": len(lines), "lines_whose_terms_differ": sum(a != b for a, b in zip(default, other, strict=True)),
            "analysis_s": seconds}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    runs: dict[str, list[dict[str, float]]] = {way: [] for way in WAYS}
    for round_no in range(args.rounds):
        order = list(WAYS) if round_no % 2 == 0 else list(reversed(WAYS))
        for way in order:
            runs[way].append(_start(WAYS[way]))
    result: dict[str, object] = {"rounds": args.rounds}
    for way, timings in runs.items():
        result[way] = {key: round(statistics.median(t[key] for t in timings), 3) for key in ("build_s", "first_s")}
        result[way]["start_s"] = round(statistics.median(t["build_s"] + t["first_s"] for t in timings), 3)
    result["terms"] = _terms_each_way(_korean_lines())
    print(json.dumps(result, ensure_ascii=False, indent=1))
    write_result("analyser_start", result)


if __name__ == "__main__":
    main()
