#!/usr/bin/env python3
"""Record the product's real chat requests: an OpenAI-compatible stub on 127.0.0.1 that appends every request to a
JSONL file and answers with a minimal well-formed reply of the request's kind (so the product goes on to its next call).

Run: python bench/llm_replay/record.py PORT OUT.jsonl, then point OPENAI_BASE_URL=http://127.0.0.1:PORT/v1 (any
OPENAI_API_KEY) at it and run `ask`, `index`, `global` and `eval --judge`. README.md beside this file has the steps.
"""

from __future__ import annotations

import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

# The first phrase of each prompt (core/graph/prompts.py, core/evaluation/prompts.py, core/hlg/prompts.py) that tells
# its kind apart.
KIND_MARKERS = (
    ("statement", "Split the content below into propositions"),
    ("triple", "For each numbered statement below"),
    ("topic", "You name the topic of a group of statements"),
    ("extraction", "as a graph"),
    ("report", "Write a report about one community"),
    ("reduce", "analysts read reports"),
    ("map", "community reports, each a summary"),
    ("judge", "Answer A"),
)
# The statement and triple replies parse but name nothing of the text, so the tiers keep their offline statements and
# the recorded triple prompts are those over the offline statements.
REPLIES = {
    "statement": "- Nothing.",
    "triple": "1 | x | y | z",
    "topic": "Topic",
    "extraction": "<|DONE|>",
    "report": json.dumps({"title": "t", "summary": "s", "rating": 1, "rating_explanation": "r", "findings": []}),
    "map": json.dumps({"points": []}),
    "reduce": "Nothing.",
    "judge": json.dumps({"winner": "tie"}),
    "answer": "Not stated.",
}


def kind_of(messages: list[dict]) -> str:
    text = json.dumps(messages, ensure_ascii=False)
    return next((kind for kind, marker in KIND_MARKERS if marker in text), "answer")


def chunk(piece: str | None) -> bytes:
    delta = {"content": piece} if piece else {}
    body = {"id": "r", "object": "chat.completion.chunk", "created": 0, "model": "recorder",
            "choices": [{"index": 0, "delta": delta, "finish_reason": None if piece else "stop"}]}
    return f"data: {json.dumps(body)}\n\n".encode()


def handler(out_path: str) -> type[BaseHTTPRequestHandler]:
    class Recorder(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            kind = kind_of(body.get("messages", []))
            with open(out_path, "a", encoding="utf-8") as out:
                out.write(json.dumps({"kind": kind, "body": body}, ensure_ascii=False) + "\n")
            reply = REPLIES[kind]
            self.send_response(200)
            if body.get("stream"):
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                self.wfile.write(chunk(reply) + chunk(None) + b"data: [DONE]\n\n")
                return
            data = json.dumps({
                "id": "r", "object": "chat.completion", "created": 0, "model": "recorder",
                "choices": [{"index": 0, "message": {"role": "assistant", "content": reply}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
            }).encode()
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    return Recorder


if __name__ == "__main__":
    ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), handler(sys.argv[2])).serve_forever()
