"""``HKE_EMBEDDINGS=openai`` against a local OpenAI-compatible server needs nothing else from the network: no
tokenizer download (tiktoken's cache is empty and every non-local address is refused), texts sent as text, and a
text over the model's input limit embedded in pieces that each fit."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
import pytest

from core.config import load_settings
from core.embeddings import OPENAI_EMBEDDING_MAX_TOKENS, make_embeddings
from core.tokens import count_tokens

DIMENSION = 8


def _vector(text: str) -> list[float]:
    seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")
    v = np.random.default_rng(seed).standard_normal(DIMENSION)
    return (v / np.linalg.norm(v)).tolist()


class EmbeddingsStub:
    """``POST /v1/embeddings`` on 127.0.0.1: a deterministic unit vector per input; records every input."""

    def __init__(self) -> None:
        self.inputs: list[object] = []
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                given = body["input"] if isinstance(body["input"], list) else [body["input"]]
                stub.inputs.extend(given)
                data = [{"object": "embedding", "index": i, "embedding": _vector(str(t))} for i, t in enumerate(given)]
                payload = json.dumps({"object": "list", "data": data, "model": body["model"],
                                      "usage": {"prompt_tokens": 1, "total_tokens": 1}}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def offline(monkeypatch, tmp_path):
    """No network but loopback: every lookup of another host is refused and recorded; tiktoken's cache is empty."""
    refused: list[str] = []
    real = socket.getaddrinfo

    def local_only(host, *args, **kwargs):
        if host not in ("127.0.0.1", "localhost", "::1"):
            refused.append(str(host))
            raise socket.gaierror(socket.EAI_NONAME, f"network blocked by the test: {host}")
        return real(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", local_only)
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path / "tiktoken-cache"))
    return refused


def test_openai_embeddings_at_a_local_server_download_nothing(offline):
    stub = EmbeddingsStub()
    try:
        settings = dataclasses.replace(load_settings(), openai_api_key="sk-test-local", openai_base_url=stub.base_url,
                                       embedding_model="local-embedder")
        embedder = make_embeddings("openai", settings)
        assert embedder.info.dimension == DIMENSION  # probed: not a model with a known size
        long_text = " ".join(f"word{i}" for i in range(OPENAI_EMBEDDING_MAX_TOKENS * 2))
        vectors = embedder.embed_documents(["A short paragraph.", long_text])
        query = embedder.embed_query("a question")
    finally:
        stub.close()
    assert offline == [], f"tried the network: {offline}"
    assert all(isinstance(t, str) for t in stub.inputs), "texts are sent as text, not token ids"
    assert vectors[0] == _vector("A short paragraph.") and query == _vector("a question")
    probe, short, *pieces, asked = stub.inputs
    assert (probe, short, asked) == ("dimension probe", "A short paragraph.", "a question")
    assert len(pieces) >= 3 and "".join(pieces) == long_text
    assert all(count_tokens(p, "cl100k_base") <= OPENAI_EMBEDDING_MAX_TOKENS for p in pieces)
    weights = [count_tokens(p, "cl100k_base") for p in pieces]
    average = np.average([_vector(p) for p in pieces], axis=0, weights=weights)
    assert np.allclose(vectors[1], average / np.linalg.norm(average))
