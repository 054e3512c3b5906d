#!/usr/bin/env python3
"""Pack recorded prompts for the GPU run, and read the replies it brought back through the product's own parsers.

    python bench/llm_replay/analyze.py --pack prompts.jsonl prompts.json   # a sample of each kind, reduce's template
    python bench/llm_replay/analyze.py replies.json                         # what the product makes of the replies

The tier prompts (statement, triple, topic) are all kept, so that tiers_replay.py can build the LLM tiers of the
whole sample corpus from the replies.
"""

from __future__ import annotations

import argparse
import collections
import json
import random
import re
import statistics

from core.evaluation.judge import parse_verdict
from core.graph.extraction.llm import parse_records
from core.graph.prompts import reduce_messages
from core.graph.replies import parse_json_object, report_refs
from core.graph.reports.llm import _validate_report
from core.graph.search.global_search import parse_points
from core.hlg.llm import LLMTiers, grounded, says_more
from core.hlg.prompts import propositions, topic_name, triples

CAPS = {"answer": 14, "extraction": 12, "report": 12, "map": 4, "judge": 8, "statement": None, "triple": None,
        "topic": None}
GROUNDING = LLMTiers().grounding
CITATION = re.compile(r"\[e:([0-9a-f]{8})\]")
REDUCE_QUESTION = "What are the main themes of this collection?"


def pack(recorded: str, out: str) -> None:
    rows = [json.loads(line) for line in open(recorded, encoding="utf-8")]
    rng = random.Random(7)
    kept = []
    for kind, cap in CAPS.items():
        of_kind = [r for r in rows if r["kind"] == kind]
        kept += of_kind if cap is None or len(of_kind) <= cap else rng.sample(of_kind, cap)
    template = [{"role": "system" if role == "system" else "user", "content": content}
                for role, content in reduce_messages("QQQ_QUESTION", "PPP_POINTS", "a few paragraphs in markdown")]
    with open(out, "w", encoding="utf-8") as f:
        json.dump({"prompts": [{"kind": r["kind"], "messages": r["body"]["messages"],
                                "max_tokens": r["body"].get("max_tokens")} for r in kept],
                   "reduce_template": template, "reduce_question": REDUCE_QUESTION}, f, ensure_ascii=False)


def _prompt(row: dict) -> str:
    return row["messages"][-1]["content"]


def verdict_of(kind: str, rows: list[dict]) -> str:
    replies = [r["reply"] for r in rows]
    if kind == "statement":
        found = kept = none = 0
        for row in rows:
            path, _, content = _prompt(row).rsplit("Heading path: ", 1)[1].partition("\nContent: ")
            props = propositions(row["reply"])
            good = list(dict.fromkeys(p for p in props if grounded(p, f"{path} {content}", GROUNDING)
                                      and says_more(p, path.split(" > "))))
            found, kept, none = found + len(props), kept + len(good), none + (not good)
        return (f"propositions listed {found}, kept (grounded, saying more than the path, distinct) {kept}, "
                f"elements that keep their offline statements "
                f"{none}/{len(rows)}")
    if kind == "triple":
        found = kept = none = 0
        for row in rows:
            listed = _prompt(row).split("Statements:\n", 1)[1].strip().splitlines()
            spo = triples(row["reply"], len(listed))
            good = [t for t in spo
                    if grounded(t[1], listed[t[0]], GROUNDING) and grounded(t[3], listed[t[0]], GROUNDING)]
            found, kept, none = found + len(spo), kept + len(good), none + (not good)
        return (f"triples parsed {found}, grounded (kept) {kept}, batches that keep their offline facts "
                f"{none}/{len(rows)}")
    if kind == "topic":
        names = [topic_name(r) for r in replies]
        return (f"topic names {sum(bool(n) for n in names)}/{len(rows)}, of at most 8 words "
                f"{sum(0 < len(n.split()) <= 8 for n in names)}")
    if kind == "extraction":
        parsed = [parse_records(r) for r in replies]
        return (f"entities {sum(len(p.entities) for p in parsed)}, relationships "
                f"{sum(len(p.relationships) for p in parsed)}, units with none {sum(not p.entities for p in parsed)}")
    if kind == "report":
        return f"valid report JSON {sum(bool(_validate_report(parse_json_object(r))) for r in replies)}/{len(rows)}"
    if kind == "map":
        return f"points parsed {sum(len(parse_points(r, set())) for r in replies)}"
    if kind == "reduce":
        return f"report refs {[report_refs(r) for r in replies]}"
    if kind == "judge":
        return f"verdicts with a criterion {sum(any(parse_verdict(r).values()) for r in replies)}/{len(rows)}"
    cited = 0
    valid = 0
    for row in rows:
        known = set(CITATION.findall(json.dumps(row["messages"], ensure_ascii=False)))
        got = CITATION.findall(row["reply"])
        cited += bool(got)
        valid += bool(got) and all(g in known for g in got)
    return f"answers citing an element {cited}/{len(rows)}, all citations in context {valid}"


def analyze(path: str) -> None:
    data = json.load(open(path, encoding="utf-8"))
    print("env", data["env"], "model load", data["load_s"], "s")
    print("generation total", data.get("total_s"), "s")
    by_kind: dict[str, list[dict]] = collections.defaultdict(list)
    for row in data["results"]:
        by_kind[row["kind"]].append(row)
    for kind, rows in by_kind.items():
        tokens = [r["new_tokens"] for r in rows]
        bounds = sorted({r.get("bound") for r in rows if r.get("bound")})
        print(f"{kind}: n={len(rows)} bound {bounds} new tokens median {statistics.median(tokens)} max {max(tokens)}, "
              f"hit the bound {sum(r['hit_bound'] for r in rows)}, batch seconds {sorted({r['batch_s'] for r in rows})}"
              f" | {verdict_of(kind, rows)}")
    for kind, rows in by_kind.items():
        for row in rows[:3 if kind in ("statement", "triple", "topic") else 2]:
            print(f"--- {kind} ({row['new_tokens']} tokens): {row['reply'][:300]!r}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pack", nargs=2, metavar=("RECORDED", "OUT"))
    parser.add_argument("replies", nargs="?")
    args = parser.parse_args()
    if args.pack:
        pack(*args.pack)
    else:
        analyze(args.replies)
