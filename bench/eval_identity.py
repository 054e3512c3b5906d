"""Whether two ``bench/bench_eval.py`` results answer every question alike: per set and mode, the questions whose
answer, context tokens or scores differ. A pure speed change must show none.

Both runs must read the same stored corpus (element ids are in the answers' citations): run them from one folder,
or against one database (``DATABASE_URL``), where the second run finds the corpora ingested already.

Run: .venv/bin/python bench/eval_identity.py bench/out/eval-before.json bench/out/eval-after.json
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

# What a row says about its question; the timings (search_ms, latency_ms) are left out.
COMPARED = ("answer", "tokens", "recall", "attribution", "answer_contains", "answer_exact", "old_recall",
            "old_attribution", "table_right", "wrong_entity", "not_stated_right", "row_key_named", "all_facts")


def differences(before: dict, after: dict) -> dict[str, dict[str, list[str]]]:
    """``{set: {mode: [question ids whose rows differ]}}`` for the sets and modes both results hold."""
    out: dict[str, dict[str, list[str]]] = {}
    for name, result in before["sets"].items():
        other = after["sets"].get(name)
        if other is None:
            continue
        for mode, rows in result["modes"].items():
            if mode not in other["modes"]:
                continue
            theirs = {r["id"]: r for r in other["modes"][mode]["rows"]}
            changed = [r["id"] for r in rows["rows"] if r["id"] not in theirs
                       or any(r.get(c) != theirs[r["id"]].get(c) for c in COMPARED)]
            changed += [i for i in theirs if i not in {r["id"] for r in rows["rows"]}]
            out.setdefault(name, {})[mode] = changed
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    args = parser.parse_args()
    before, after = (json.loads(p.read_text(encoding="utf-8")) for p in (args.before, args.after))
    found = differences(before, after)
    total = same = 0
    for name, modes in found.items():
        for mode, changed in modes.items():
            n = len(before["sets"][name]["modes"][mode]["rows"])
            total, same = total + n, same + n - len(changed)
            print(f"{name:<32} {mode:<10} {n - len(changed):>4} / {n:<4} identical"
                  + (f"  differ: {', '.join(map(str, changed[:10]))}" if changed else ""))
    print(f"all sets: {same} / {total} questions identical")
    sys.exit(0 if same == total else 1)


if __name__ == "__main__":
    main()
