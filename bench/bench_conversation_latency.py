"""A follow-up's own work (memory read, resolution, episode cut, turn appended), the store's design against the one
before it, interleaved in one process so that both see the same load (issue 32's ≤ 10 ms p50 target).

* ``before``: the memory read in a transaction (``BEGIN``, the read, ``COMMIT``: three round trips) and the append as
  a transaction of three statements (the conversation's row upserted, the turn inserted, old facts dropped), its
  commit waiting for the WAL flush; the SQL is kept here as it was;
* ``now``: :class:`core.store.conversations.ConversationTables` as it is: the read in autocommit (one round trip),
  the append in one statement whose commit does not wait for the flush.

Both resolve the same follow-ups of data/conversations/samples.json against the memory read and append the same
turn; the order alternates per round. The question's embedding is not part of either (retrieval embeds it either
way). Reported: p50 and p95 of each design's wall time, its CPU time, and the load average before and after.

Usage: ``python bench/bench_conversation_latency.py [--rounds 200]``; results in bench/out/conversation-latency.json.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
import uuid

from _common import ROOT, scratch_database, write_result

BEFORE_NEXT_TURN = """
INSERT INTO hke_conversations (collection_id, conversation_id, turns, as_of)
SELECT id, %(conversation)s, 1, %(as_of)s FROM hke_collections WHERE name = %(collection)s
ON CONFLICT (collection_id, conversation_id)
DO UPDATE SET turns = hke_conversations.turns + 1, updated_at = now()
RETURNING turns, as_of
"""
BEFORE_INSERT_TURN = """
INSERT INTO hke_conversation_turns (collection_id, conversation_id, turn, episode, question, understood_as, entity,
                                    attribute, attribute_terms, carried, answer, facts)
VALUES ((SELECT id FROM hke_collections WHERE name = %(collection)s),
        %(conversation)s, %(turn)s, %(episode)s, %(question)s, %(understood_as)s, %(entity)s,
        %(attribute)s, %(attribute_terms)s, %(carried)s, %(answer)s, %(facts)s)
"""
BEFORE_FORGET = """
UPDATE hke_conversation_turns SET facts = NULL
WHERE collection_id = (SELECT id FROM hke_collections WHERE name = %(collection)s)
  AND conversation_id = %(conversation)s AND turn <= %(turn)s - %(keep)s AND facts IS NOT NULL
"""


def _p(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 2)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=200)
    args = parser.parse_args()
    scratch_database()
    import numpy as np
    from psycopg.types.json import Jsonb

    from core.conversation import MemoryConfig, cut_episode, resolve, with_community_facts
    from core.db import database_url
    from core.db.pool import connection_pool
    from core.ingest import SourceFile, ingest
    from core.sql import conversations as sql
    from core.store import ElementStore
    from core.store.conversations import TURN_FIELDS, ConversationTables
    from tests.helpers_embeddings import HashEmbeddings

    store = ElementStore(database_url(), "conversation-latency", HashEmbeddings())
    assert not ingest(store, [SourceFile("a.md", data=b"# A\n\ntext\n")]).errors
    tables = ConversationTables(store.url, store.collection)
    tables.ensure_schema()
    pool = connection_pool(store.url)
    config = MemoryConfig()
    exchanges = json.loads((ROOT / "data" / "conversations" / "samples.json").read_text(encoding="utf-8"))["exchanges"]
    pairs = [(e["turns"][0]["question"], t["question"]) for e in exchanges for t in e["turns"][1:]
             if t["kind"] == "follow-up"]
    rng = np.random.default_rng(7)
    vector = rng.standard_normal(512).astype(np.float32)
    facts = [{"element_id": "e1", "value": "Weight : 2.9 kg"}, {"element_id": "e2", "value": "Warranty : 1 year"}]

    def fields(r) -> dict:
        return {"question": r.question, "understood_as": r.understood_as, "entity": r.slots.entity,
                "attribute": r.slots.attribute, "attribute_terms": sorted(r.slots.attribute_terms),
                "carried": r.carried, "answer": "2.9 kg", "facts": facts}

    def before(conversation: str, question: str) -> None:
        key = {"collection": store.collection, "conversation": conversation}
        with pool.connection() as conn:  # a transaction: BEGIN, the read, COMMIT
            rows = conn.execute(sql.RECENT_TURNS, {**key, "limit": config.keep_turns}).fetchall()
        recent = [dict(zip(TURN_FIELDS, row, strict=True)) for row in rows]
        r = with_community_facts(resolve(question, recent), recent, config)
        with pool.connection() as conn, conn.transaction():
            number = conn.execute(BEFORE_NEXT_TURN, {**key, "as_of": None}).fetchone()[0]
            turn = fields(r)
            conn.execute(BEFORE_INSERT_TURN, {**key, **turn, "turn": number,
                                              "episode": number if r.new_episode else r.carried["episode"],
                                              "carried": Jsonb(turn["carried"]), "facts": Jsonb(facts)})
            if number > config.keep_turns:
                conn.execute(BEFORE_FORGET, {**key, "turn": number, "keep": config.keep_turns})

    def now(conversation: str, question: str) -> None:
        _row, recent = tables.memory(conversation, config.keep_turns)
        r = resolve(question, recent)
        if recent:  # as start_turn does
            r = with_community_facts(cut_episode(r, recent[-1].get("query_vector"), vector, config), recent, config)
        tables.append(conversation, {**fields(r), "episode": None if r.new_episode else r.carried["episode"],
                                     "query_vector": vector}, keep=config.keep_turns)

    designs = {"before": before, "now": now}
    wall: dict[str, list[float]] = {name: [] for name in designs}
    cpu: dict[str, list[float]] = {name: [] for name in designs}
    load_before = os.getloadavg()
    for n in range(args.rounds):
        first, follow = pairs[n % len(pairs)]
        for name in (("before", "now") if n % 2 == 0 else ("now", "before")):
            conversation = f"{name}-{uuid.uuid4().hex[:8]}"
            designs[name](conversation, first)  # the first turn: its memory is what the follow-up reads
            t0, c0 = time.perf_counter(), time.process_time()
            designs[name](conversation, follow)
            wall[name].append((time.perf_counter() - t0) * 1000)
            cpu[name].append((time.process_time() - c0) * 1000)
    load_after = os.getloadavg()
    summary = {"rounds": args.rounds, "load_average_before_after": [[round(x, 2) for x in load_before],
                                                                    [round(x, 2) for x in load_after]]}
    for name in designs:
        summary[f"{name}_ms_p50"] = round(statistics.median(wall[name]), 2)
        summary[f"{name}_ms_p95"] = _p(wall[name], 0.95)
        summary[f"{name}_cpu_ms_p50"] = round(statistics.median(cpu[name]), 2)
    path = write_result("conversation-latency", {"summary": summary})
    print(json.dumps(summary, indent=1))
    print(f"written to {path}")
    store.drop()


if __name__ == "__main__":
    main()
