#!/usr/bin/env python3
"""The LLM tiers of the sample corpus built from a real model's replies, against the offline tiers.

A stub on 127.0.0.1 answers each statement, triple and topic prompt with the reply the GPU run generated for exactly
that prompt (replies.json, from generate_gpu.py); a prompt with no generated reply (a triple prompt over propositions
that parsed, which the recording never saw) is answered "(no recorded reply)", prose, and counted. The samples are
ingested into a fresh collection, the tiers built offline and counted, then built again with the stub as the model
(the real OpenAI client, the product's own parsers, cache and fallbacks), and counted again.

    python bench/llm_replay/tiers_replay.py replies.json
"""

from __future__ import annotations

import json
import sys
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

NO_REPLY = "(no recorded reply)"


def _key(messages: list[dict]) -> str:
    return json.dumps([[m["role"], m["content"]] for m in messages], ensure_ascii=False)


def serve(replies: dict[str, str], asked: list[str]) -> ThreadingHTTPServer:
    class Replay(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            reply = replies.get(_key(body["messages"]))
            asked.append("recorded" if reply is not None else "unrecorded")
            data = json.dumps({
                "id": "r", "object": "chat.completion", "created": 0, "model": "replay",
                "choices": [{"index": 0, "message": {"role": "assistant", "content": reply or NO_REPLY},
                             "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Replay)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def main(path: str) -> None:
    import dataclasses

    from core.config import load_settings
    from core.ingest import ingest_paths
    from core.ingest.tiers import sync_tiers
    from core.llm import chat_model
    from core.store import open_store

    data = json.load(open(path, encoding="utf-8"))
    tiers = ("statement", "triple", "topic")
    replies = {_key(r["messages"]): r["reply"] for r in data["results"] if r["kind"] in tiers}
    asked: list[str] = []
    server = serve(replies, asked)
    settings = dataclasses.replace(load_settings(), openai_api_key="any", chat_model="replay",
                                   openai_base_url=f"http://127.0.0.1:{server.server_address[1]}/v1")
    store = open_store(f"replay_{uuid.uuid4().hex[:8]}")
    try:
        report = ingest_paths(store, [Path("data/samples")])
        assert not report.errors, report.errors
        offline = sync_tiers(store)
        print("offline tiers:", offline.counts)
        print("offline statements by kind:", _kinds(store))
        with_model = sync_tiers(store, chat_model=chat_model(settings))
        print("LLM tiers:", with_model.counts)
        print("LLM statements by kind:", _kinds(store), "| facts by kind:", _fact_kinds(store))
        print("model:", with_model.llm.describe() if with_model.llm else "-")
        print(f"topics: {with_model.topic_calls} asked, {with_model.topic_fallbacks} kept offline")
        print(f"prompts answered from the GPU replies {asked.count('recorded')}, with no recorded reply "
              f"{asked.count('unrecorded')}")
    finally:
        store.drop()
        server.shutdown()


def _kinds(store) -> dict[str, int]:
    with store.pool.connection() as conn:
        return dict(conn.execute("SELECT kind, count(*) FROM hke_hlg_statements WHERE collection_id = %s AND "
                                 "valid_to IS NULL GROUP BY kind ORDER BY kind", (store.collection_id,)).fetchall())


def _fact_kinds(store) -> dict[str, int]:
    with store.pool.connection() as conn:
        return dict(conn.execute("SELECT kind, count(*) FROM hke_hlg_facts WHERE collection_id = %s GROUP BY kind "
                                 "ORDER BY kind", (store.collection_id,)).fetchall())


if __name__ == "__main__":
    main(sys.argv[1])
