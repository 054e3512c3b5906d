"""Embedding threads per call: the per-call choice (``core.embeddings.ThreadBudget``) against a fixed one or two
threads, side by side in one run, on an idle machine and under contention.

Each setting embeds the same element texts in ingest's batches (64 texts a call) through the product's embedder:
- idle: nothing else started by the benchmark (the load average is printed: other work on the machine shows there);
- other processes: ``--spinners`` busy-looping processes keep the cores loaded while the embedder runs;
- in-process: ``--callers`` threads embed at once, as Streamlit sessions and ingest beside questions do.
Settings alternate within each round, so a drift in the machine's load hits them alike. The targets: the choice is
at least the faster fixed setting's rate when idle, and never slower than one thread under contention.

Run: .venv/bin/python bench/bench_threads.py [--rounds 3] [--texts 640]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import threading
import time

from _common import SAMPLES, write_result

SETTINGS = {"chosen per call": None, "1 thread": 1, "2 threads": 2}


def sample_texts(n: int) -> list[str]:
    from core.ingest import decode_text, parse

    texts: list[str] = []
    for path in sorted(SAMPLES.glob("*.md")):
        text, _ = decode_text(path.read_bytes())
        texts += [el.page_content for el in parse(text, source=path.name, document_id=path.stem)]
    return (texts * (n // len(texts) + 1))[:n]


def rate(embed, texts: list[str], callers: int) -> float:
    """Texts per second with ``callers`` threads embedding 64-text batches of ``texts`` between them."""
    batches = [texts[i:i + 64] for i in range(0, len(texts), 64)]
    chunks = [batches[i::callers] for i in range(callers)]

    def work(mine: list[list[str]]) -> None:
        for batch in mine:
            embed.embed_documents(batch)

    start = time.perf_counter()
    threads = [threading.Thread(target=work, args=(chunk,)) for chunk in chunks]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return len(texts) / (time.perf_counter() - start)


def measure(texts: list[str], callers: int, rounds: int) -> tuple[dict[str, float], float]:
    """Median texts/s of each setting, and the share of the per-call choices that took more than one thread."""
    from core.embeddings import ThreadBudget, make_embeddings

    chosen: list[int] = []

    class CountedBudget(ThreadBudget):
        def threads_for(self, n_texts: int, alone: bool) -> int:
            threads = super().threads_for(n_texts, alone)
            chosen.append(threads)
            return threads

    embed = make_embeddings("use")
    embed.embed_documents(texts[:64])
    seen: dict[str, list[float]] = {name: [] for name in SETTINGS}
    for _ in range(rounds):
        for name, threads in SETTINGS.items():
            embed.budget = CountedBudget(threads) if threads is None else ThreadBudget(threads)
            seen[name].append(rate(embed, texts, callers))
    share = sum(t > 1 for t in chosen) / max(len(chosen), 1)
    return {name: round(statistics.median(values)) for name, values in seen.items()}, round(share, 2)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--texts", type=int, default=640)
    parser.add_argument("--spinners", type=int, default=4, help="busy processes for the contended case (default 4)")
    parser.add_argument("--callers", type=int, default=4, help="threads embedding at once, in-process case")
    args = parser.parse_args()
    texts = sample_texts(args.texts)
    cores = len(os.sched_getaffinity(0))
    results: dict[str, dict] = {}

    load = os.getloadavg()[0]
    rates, share = measure(texts, 1, args.rounds)
    results["idle"] = {"texts_per_s": rates, "calls on 2+ threads": share, "load_average_before": round(load, 2)}
    spinners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(args.spinners)]
    try:
        time.sleep(1.0)  # the load probe needs an interval of the spinners running to see them
        rates, share = measure(texts, 1, args.rounds)
        results["other processes"] = {"texts_per_s": rates, "calls on 2+ threads": share, "spinners": args.spinners,
                                      "load_average": round(os.getloadavg()[0], 2)}
    finally:
        for p in spinners:
            p.kill()
            p.wait()
    rates, share = measure(texts, args.callers, args.rounds)
    results["in-process callers"] = {"texts_per_s": rates, "calls on 2+ threads": share, "callers": args.callers,
                                     "load_average": round(os.getloadavg()[0], 2)}

    print(f"{len(texts)} sample element texts in 64-text calls, {cores} cores, median of {args.rounds} rounds")
    for case, row in results.items():
        r = row["texts_per_s"]
        extra = ", ".join(f"{k} {v}" for k, v in row.items() if k != "texts_per_s")
        print(f"{case:>20}: chosen {r['chosen per call']:>5} | 1 thread {r['1 thread']:>5} | "
              f"2 threads {r['2 threads']:>5} texts/s → chosen/1 thread {r['chosen per call'] / r['1 thread']:.2f}, "
              f"chosen/best fixed {r['chosen per call'] / max(r['1 thread'], r['2 threads']):.2f} ({extra})")
    print(f"wrote {write_result('bench_threads', {'cores': cores, 'texts': len(texts), 'results': results})}")


if __name__ == "__main__":
    main()
