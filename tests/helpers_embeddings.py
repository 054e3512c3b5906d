"""A deterministic hash embedder for tests where the model is not what is under test (loading USE costs seconds)."""

from __future__ import annotations

import hashlib

import numpy as np

from core.embeddings import EmbedderInfo, NamedEmbeddings


class HashEmbeddings(NamedEmbeddings):
    """512-d unit vectors seeded by the text's hash: deterministic, instant, distinct per text. The same size as USE,
    so it can share a database with it, under another identity (so it must never share its vectors)."""

    info = EmbedderInfo("hash", "test-sha256-512", 512)

    def embed_documents(self, texts):
        self._count(len(texts))
        return [self._vector(t) for t in texts]

    def embed_query(self, text):
        self._count(1)
        return self._vector(text)

    @staticmethod
    def _vector(text):
        seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")
        v = np.random.default_rng(seed).standard_normal(512)
        return (v / np.linalg.norm(v)).tolist()
