"""Conversations (issue 32): follow-ups resolved offline against a bounded memory, measured on data/conversations/.

For every exchange, each turn is asked in a fresh conversation (``core.conversation.start_turn``, then the answer
with the turn's question vector, then ``finish``) and its gold standalone question is asked alone (the upper bound);
both answered by the offline extractive answerer from the hierarchical context. Reported:

* resolution accuracy: the turn was understood as the gold entity (its name inside the resolved one) and attribute
  (the gold attribute word among the resolved attribute's terms), over follow-ups and switches;
* follow-up answers right (an accepted answer inside the answer) against the standalone questions' score;
* topic switches wrongly carried over (a switch turn whose memory carried anything);
* context tokens per turn: the memory sent (standalone question, carried slots and facts) against resending the
  whole history (every earlier question and answer, then the question), at turn >= 2 and at turn >= 3;
* a follow-up's extra latency: the time of the conversation's own work (memory read, resolution, the turn appended)
  outside the answer and the question's one embedding (the turn embeds the standalone question for the episode cut
  and hands the vector to retrieval, which then embeds nothing), p50 and p95, each part's p50, and beside it the
  whole follow-up's time against the standalone question's, asked one after the other in the same run, with the
  load average (the machine is shared);
* the embedding distance of each later turn's standalone question from the turn before's: the largest over the
  follow-ups, the smallest over the switches, and the follow-ups it cut into a new episode;
* 1,000 turns appended to one conversation: the turns whose facts the memory keeps, and the memory read's time over
  the first and the last hundred turns.

``--paired N`` measures the follow-up's extra latency as the issue states it, a follow-up against a standalone
question: each follow-up of the set, its earlier turns already in a fresh conversation, is asked whole (the memory
read, the resolution, the one embedding, the answer, the turn appended) and the standalone question it was
understood as is asked alone (the same text: the same search and answer), interleaved, the order alternating per
pair, after one untimed pass that warms the model, the caches and the pools, N passes over the set. Reported under
``paired``: the p50 (and p95) of the pairs' wall-time differences, each side's p50, the CPU-time difference's p50,
and the load average before and after.

A set naming a ``corpus`` (``data/conversations/npm-cli.json``, ``cibuildwheel.json``, ``korean-nlp.json``) is asked
over that public corpus (``bench/corpora/<corpus>``), ingested into its own collection; the others over data/samples.

``--chained`` asks every exchange of the set in one conversation, one after the other, as a long session would:
the memory then holds many facts and past ``CommunityConfig.min_facts`` a follow-up carries its nearest community's
facts. Each row then also says how many facts the follow-up carried and how many were on its topic (cited, earlier
in the conversation, by a turn whose gold entity or gold attribute is the follow-up's); the summary's
``carried_facts_on_topic`` is their share over the follow-ups.

``--sweep FIELD=V1,V2,…`` (repeatable) asks the set once per value of a memory constant (a ``MemoryConfig`` field, or
``communities.FIELD`` of its ``CommunityConfig``), the answers of one question text asked once (retrieval does not
read the memory: only the standalone question decides the answer), and reports each value's summary under
``sweep`` with the exchanges' split (tune or held out): the record in data/tuning cites it.

Usage: ``python bench/bench_conversations.py [--set data/conversations/samples.json] [--no-long] [--repeat N]
[--sweep episode_distance=0.3,0.45,0.6,0.8] [--paired N]``; results in bench/out/conversations.json
(bench/out/conversations-<corpus>.json for a corpus's set).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
import uuid
from pathlib import Path

from _common import CORPORA, ROOT, SAMPLES, scratch_database, write_result

SET = ROOT / "data" / "conversations" / "samples.json"


def _normal(text: str) -> str:
    return " ".join(text.casefold().split())


def _right(answer: str, accepted: list[str]) -> bool:
    return any(_normal(a) in _normal(answer) for a in accepted)


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


def _long_conversation(store, turns: int = 1_000) -> dict:
    """1,000 turns appended to one conversation: the memory a turn reads stays bounded, and so does its time."""
    from core.conversation import MemoryConfig
    from core.store.conversations import ConversationTables

    keep = MemoryConfig().keep_turns
    tables = ConversationTables(store.url, store.collection)
    fact = [{"element_id": "e", "value": "Weight : 2.9 kg"}]
    read_ms = []
    t0 = time.perf_counter()
    for n in range(turns):
        t1 = time.perf_counter()
        tables.recent("long", keep)
        read_ms.append((time.perf_counter() - t1) * 1000)
        tables.append("long", {
            "episode": 1, "question": f"question {n}", "understood_as": f"question {n}", "entity": "Nova 24FL",
            "attribute": "weight", "attribute_terms": ["weight"], "carried": {}, "answer": "2.9 kg", "facts": fact,
        }, keep=keep)
    seconds = time.perf_counter() - t0
    stored = tables.turns("long")
    return {"long_turns": len(stored), "long_turns_with_facts": sum(t["facts"] is not None for t in stored),
            "long_summary_rows": len(tables.summary("long")),
            "long_memory_read_ms_p50_first_100": round(statistics.median(read_ms[:100]), 2),
            "long_memory_read_ms_p50_last_100": round(statistics.median(read_ms[-100:]), 2),
            "long_seconds": round(seconds, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", type=Path, default=SET)
    parser.add_argument("--no-long", action="store_true", help="skip the 1,000-turn conversation")
    parser.add_argument("--repeat", type=int, default=1,
                        help="ask the set this many times (more follow-ups timed; the answers' measures are the same)")
    parser.add_argument("--paired", type=int, default=0, metavar="N",
                        help="N interleaved passes timing each follow-up against its standalone question")
    parser.add_argument("--chained", action="store_true",
                        help="ask every exchange in one conversation (the memory holds many facts)")
    parser.add_argument("--sweep", action="append", default=[], metavar="FIELD=V1,V2",
                        help="ask the set once per value of a MemoryConfig field (communities.FIELD for its "
                             "CommunityConfig's)")
    args = parser.parse_args()
    exchange_set = json.loads(args.set.read_text(encoding="utf-8"))
    corpus = exchange_set.get("corpus")
    scratch_database()
    from core.answering import compare
    from core.answering.answerers import ExtractiveAnswerer
    from core.db import database_url
    from core.embeddings import make_embeddings
    from core.ingest import ingest_paths
    from core.retrieval import RetrievalRequest
    from core.store import ElementStore

    store = ElementStore(database_url(), f"conversations-{corpus or 'samples'}", make_embeddings("use"))
    report = ingest_paths(store, [CORPORA / corpus if corpus else SAMPLES])
    assert not report.errors, report.errors
    answerer = ExtractiveAnswerer()
    exchanges = exchange_set["exchanges"]

    def answer(text: str, query_vector=None):
        return compare(store, RetrievalRequest(text, query_vector=query_vector), answerer=answerer,
                       modes=("hierarchical",))

    answer("warm-up question")  # the model and the pools loaded before anything is timed
    embed_ms: list[float] = []
    embed_cpu_ms: list[float] = []
    embed_query = store.embeddings.embed_query

    def timed_embed(text: str, embed_query=embed_query):  # the turn's one embedding, timed apart from its own work
        t0, c0 = time.perf_counter(), time.process_time()
        vector = embed_query(text)
        embed_ms.append((time.perf_counter() - t0) * 1000)
        embed_cpu_ms.append((time.process_time() - c0) * 1000)
        return vector

    store.embeddings.embed_query = timed_embed
    from dataclasses import replace as replaced

    from core.conversation import MemoryConfig

    held: dict[str, object] = {}

    def held_answer(text: str, query_vector=None):  # one question text answered once in a sweep
        if text not in held:
            held[text] = answer(text, query_vector)
        return held[text]

    def ask(config: MemoryConfig, sweeping: bool) -> list[dict]:
        ask_one = held_answer if sweeping else answer
        return _ask(exchanges * (1 if sweeping else max(1, args.repeat)), store, config, ask_one, embed_ms,
                    embed_cpu_ms, chained=args.chained)

    load_before = os.getloadavg()
    sweep: dict[str, dict] = {}
    for swept_field in args.sweep:
        field, _, values = swept_field.partition("=")
        sweep[field] = {}
        for raw in values.split(","):
            value = type(_field_value(MemoryConfig(), field))(raw)
            config = _with_field(MemoryConfig(), field, value, replaced)
            swept = ask(config, True)
            sweep[field][raw] = {split: _summary([r for r in swept if r["split"] == split])
                                 for split in sorted({r["split"] for r in swept})}
            print(f"{field}={raw}: " + json.dumps({k: {m: v[m] for m in ("resolution_accuracy",
                  "follow_up_vs_standalone", "switches_carried_over", "memory_vs_history_tokens_turn_ge_3",
                  "memory_tokens_mean_turn_ge_2", "carried_facts_on_topic", "follow_ups_carrying_a_community",
                  "follow_ups_cut_by_distance")} for k, v in sweep[field][raw].items()}))
    store.embeddings.embed_query = embed_query
    if args.paired:
        paired = _paired(exchanges, store, answer, args.paired)
        print(json.dumps({"paired": paired}, indent=1))
        path = write_result(f"conversations-paired-{corpus or 'samples'}", {"set": str(args.set), "paired": paired})
        print(f"written to {path}")
        store.drop()
        return
    store.embeddings.embed_query = timed_embed
    rows = ask(MemoryConfig(), False)
    store.embeddings.embed_query = embed_query
    load_after = os.getloadavg()
    summary = {"exchanges": len(exchanges), **_summary(rows),
               "load_average_before_after": [[round(x, 2) for x in load_before], [round(x, 2) for x in load_after]]}
    if not args.no_long:
        summary.update(_long_conversation(store))
    path = write_result(f"conversations-{corpus or 'samples'}{'-chained' if args.chained else ''}"
                        if corpus or args.chained else "conversations",
                        {"set": str(args.set.resolve().relative_to(ROOT)), "summary": summary, "turns": rows,
                         "chained": args.chained, **({"sweep": sweep} if sweep else {})})
    for r in rows:
        if r["turn"] > 1 and not (r["resolved"] and r["right"] == r["standalone_right"]):
            print(f"  {r['exchange']} turn {r['turn']} ({r['kind']}): understood as {r['understood_as']!r}; "
                  f"resolved {r['resolved']}, right {r['right']} (standalone {r['standalone_right']})")
    print(json.dumps(summary, indent=1))
    print(f"written to {path}")
    store.drop()


def _field_value(config, field: str):
    for part in field.split("."):
        config = getattr(config, part)
    return config


def _with_field(config, field: str, value, replaced):
    head, _, rest = field.partition(".")
    if not rest:
        return replaced(config, **{head: value})
    return replaced(config, **{head: _with_field(getattr(config, head), rest, value, replaced)})


def _ask(exchanges: list[dict], store, config, answer, embed_ms: list[float], embed_cpu_ms: list[float], *,
         chained: bool = False) -> list[dict]:
    """Each exchange asked in a fresh conversation (``chained``: all in one), each turn's gold standalone question
    alone after it."""
    from core.conversation import answer_text, facts_of, start_turn

    rows = []
    conversation = f"bench-{uuid.uuid4().hex[:8]}"
    cited_about: dict[str, set[str]] = {}  # element id -> the gold entities and attributes of the turns citing it
    for exchange in exchanges:
        if not chained:
            conversation = f"bench-{uuid.uuid4().hex[:8]}"
            cited_about = {}
        for number, gold in enumerate(exchange["turns"], start=1):
            embed_ms.clear()
            embed_cpu_ms.clear()
            t0, c0 = time.perf_counter(), time.process_time()
            pending = start_turn(store, conversation, gold["question"], config=config)
            t1, c1 = time.perf_counter(), time.process_time()
            result = answer(pending.resolution.understood_as, pending.query_vector)  # embedded by the turn
            t2, c2 = time.perf_counter(), time.process_time()
            turn = pending.finish(result)
            t3, c3 = time.perf_counter(), time.process_time()
            embedded, embedded_cpu = sum(embed_ms), sum(embed_cpu_ms)
            embed_ms.clear()
            t4 = time.perf_counter()
            standalone = answer(gold["standalone"])  # embeds the question itself
            t5 = time.perf_counter()
            slots = turn.resolution.slots
            topic = {"entity:" + _normal(gold["entity"]), "attribute:" + gold["attribute"]}
            carried_facts = [f for key in ("facts", "summary") for f in turn.resolution.carried.get(key, [])]
            on_topic = sum(bool(cited_about.get(f["element_id"], set()) & topic) for f in carried_facts)
            for f in facts_of(turn.result, config):
                cited_about.setdefault(f["element_id"], set()).update(topic)
            rows.append({
                "exchange": exchange["id"], "language": exchange["language"], "split": exchange.get("split", ""),
                "turn": number, "kind": gold["kind"],
                "question": gold["question"], "understood_as": turn.resolution.understood_as,
                "resolved": bool(slots.entity) and _normal(gold["entity"]) in _normal(slots.entity or "")
                and gold["attribute"] in slots.attribute_terms,
                "right": _right(answer_text(turn.result), gold["answers"]),
                "standalone_right": _right(answer_text(standalone), gold["answers"]),
                "carried": bool(turn.resolution.memory), "episode": turn.episode, "conversation_turn": turn.number,
                "distance": turn.resolution.distance, "memory_tokens": turn.memory_tokens,
                "history_tokens": turn.history_tokens, "carried_facts": len(carried_facts),
                "carried_facts_on_topic": on_topic, "community": "community" in turn.resolution.carried,
                "overhead_ms": round((t1 - t0 + t3 - t2) * 1000 - embedded, 2),
                "overhead_cpu_ms": round((c1 - c0 + c3 - c2) * 1000 - embedded_cpu, 2),
                "start_ms": round((t1 - t0) * 1000 - embedded, 2), "append_ms": round((t3 - t2) * 1000, 2),
                "embed_ms": round(embedded, 2), "follow_up_total_ms": round((t3 - t0) * 1000, 2),
                "standalone_total_ms": round((t5 - t4) * 1000, 2),
            })
    return rows


def _paired(exchanges: list[dict], store, answer, passes: int) -> dict:
    """Each follow-up asked whole in a conversation against its standalone question asked alone, interleaved."""
    from core.conversation import start_turn

    follow_ups = [(e["turns"][:i], t) for e in exchanges for i, t in enumerate(e["turns"]) if i and t["kind"] ==
                  "follow-up"]
    earlier_answers: dict[str, object] = {}  # the earlier turns are set up, not timed: each text answered once

    def conversation_before(earlier: list[dict]) -> str:
        conversation = f"paired-{uuid.uuid4().hex[:8]}"
        for gold in earlier:
            pending = start_turn(store, conversation, gold["question"])
            text = pending.resolution.understood_as
            if text not in earlier_answers:
                earlier_answers[text] = answer(text, pending.query_vector)
            pending.finish(earlier_answers[text])
        return conversation

    def follow_up(conversation: str, question: str) -> str:
        pending = start_turn(store, conversation, question)
        return pending.finish(answer(pending.resolution.understood_as, pending.query_vector)).resolution.understood_as

    understood = {}
    for earlier, gold in follow_ups:  # the untimed pass: the standalone texts, the caches and the pools warmed
        understood[gold["question"]] = follow_up(conversation_before(earlier), gold["question"])
        answer(understood[gold["question"]])
    wall: dict[str, list[float]] = {"follow_up": [], "standalone": []}
    cpu: dict[str, list[float]] = {"follow_up": [], "standalone": []}
    load_before = os.getloadavg()
    for n in range(passes):
        for i, (earlier, gold) in enumerate(follow_ups):
            conversation = conversation_before(earlier)
            sides = {"follow_up": lambda: follow_up(conversation, gold["question"]),  # noqa: B023 (called at once)
                     "standalone": lambda: answer(understood[gold["question"]])}  # noqa: B023
            for side in ("follow_up", "standalone") if (n + i) % 2 == 0 else ("standalone", "follow_up"):
                t0, c0 = time.perf_counter(), time.process_time()
                sides[side]()
                wall[side].append((time.perf_counter() - t0) * 1000)
                cpu[side].append((time.process_time() - c0) * 1000)
    load_after = os.getloadavg()
    extra = [f - s for f, s in zip(wall["follow_up"], wall["standalone"], strict=True)]
    extra_cpu = [f - s for f, s in zip(cpu["follow_up"], cpu["standalone"], strict=True)]
    return {"pairs": len(extra), "follow_ups": len(follow_ups), "passes": passes,
            "extra_ms_p50": round(statistics.median(extra), 2), "extra_ms_p95": round(_percentile(extra, 0.95), 2),
            "follow_up_ms_p50": round(statistics.median(wall["follow_up"]), 2),
            "standalone_ms_p50": round(statistics.median(wall["standalone"]), 2),
            "extra_cpu_ms_p50": round(statistics.median(extra_cpu), 2),
            "follow_up_cpu_ms_p50": round(statistics.median(cpu["follow_up"]), 2),
            "standalone_cpu_ms_p50": round(statistics.median(cpu["standalone"]), 2),
            "load_average_before_after": [[round(x, 2) for x in load_before], [round(x, 2) for x in load_after]]}


def _summary(rows: list[dict]) -> dict:
    later = [r for r in rows if r["turn"] > 1]
    follow_ups = [r for r in rows if r["kind"] == "follow-up"]
    switches = [r for r in rows if r["kind"] == "switch"]

    def token_ratio(min_turn: int) -> float:
        picked = [r for r in rows if r["turn"] >= min_turn]
        return round(sum(r["memory_tokens"] for r in picked) / max(1, sum(r["history_tokens"] for r in picked)), 3)

    def p50(key: str, digits: int = 2) -> float | None:
        return round(statistics.median([r[key] for r in follow_ups]), digits) if follow_ups else None

    right = sum(r["right"] for r in follow_ups)
    upper = sum(r["standalone_right"] for r in follow_ups)
    return {
        "turns": len(rows), "follow_ups": len(follow_ups), "switches": len(switches),
        "resolution_accuracy": round(sum(r["resolved"] for r in later) / max(1, len(later)), 3),
        "follow_up_answers_right": round(right / max(1, len(follow_ups)), 3),
        "standalone_answers_right": round(upper / max(1, len(follow_ups)), 3),
        "follow_up_vs_standalone": round(right / upper, 3) if upper else None,
        "switches_carried_over": sum(r["carried"] for r in switches),
        "memory_vs_history_tokens_turn_ge_2": token_ratio(2),
        "memory_vs_history_tokens_turn_ge_3": token_ratio(3),
        "memory_tokens_mean_turn_ge_2": round(statistics.mean([r["memory_tokens"] for r in later]), 1) if later
        else None,
        "follow_up_extra_ms_p50": p50("overhead_ms"),
        "follow_up_extra_ms_p95": round(_percentile([r["overhead_ms"] for r in follow_ups], 0.95), 2),
        "follow_up_extra_cpu_ms_p50": p50("overhead_cpu_ms"),
        "follow_up_memory_read_and_resolution_ms_p50": p50("start_ms"),
        "follow_up_append_ms_p50": p50("append_ms"),
        "follow_up_embed_ms_p50": p50("embed_ms"),
        "follow_up_total_ms_p50": p50("follow_up_total_ms", 1),
        "standalone_total_ms_p50": p50("standalone_total_ms", 1),
        "follow_up_distance_max": max((r["distance"] for r in follow_ups if r["distance"] is not None), default=None),
        "switch_distance_min": min((r["distance"] for r in switches if r["distance"] is not None), default=None),
        "follow_ups_cut_by_distance": sum(r["episode"] == r["conversation_turn"] for r in follow_ups),
        "carried_facts": sum(r["carried_facts"] for r in follow_ups),
        "carried_facts_on_topic": round(sum(r["carried_facts_on_topic"] for r in follow_ups)
                                        / max(1, sum(r["carried_facts"] for r in follow_ups)), 3),
        "follow_ups_carrying_a_community": sum(r["community"] for r in follow_ups),
    }


if __name__ == "__main__":
    main()
