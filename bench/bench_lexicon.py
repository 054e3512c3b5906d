"""What the collection's cross-script field pairs (``core.retrieval.lexicon``) cost: computing them once for a
collection version, and reading them back in a process that did not compute them (the stored row,
``core.store.field_pairs``), which is what every later process pays.

Ingests the samples (data/samples: Korean and English sheets) into a scratch database, computes the pairs once
(timed), then reads the stored pairs ``--reads`` times as a new process would (this process's copy forgotten each
time) and reports the median and the worst, and the median of reading the words too (their vectors: what a
collection in one script asked in the other needs); then adds one document and times the rebuild, which embeds only the
words not stored yet.

Run: .venv/bin/python bench/bench_lexicon.py [--reads 50]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from _common import ROOT, scratch_database, write_result
from _synthetic import run_then_remove_scratch_database

EXTRA = """# Kite Lamp product details
## Specifications
* Material : brushed aluminium
* Country of origin : Portugal
* Shipping fee : 5 dollars
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reads", type=int, default=50)
    args = parser.parse_args()
    from core.embeddings import make_embeddings
    from core.ingest import ingest_paths
    from core.retrieval import lexicon
    from core.retrieval.heading_cache import held_version
    from core.store import ElementStore

    store = ElementStore(scratch_database(), "lexicon_bench", make_embeddings("use"))
    ingest_paths(store, [ROOT / "data" / "samples"])
    question = "What is the viewing angle of the Nova 24FL?"
    started = time.perf_counter()
    found, _ = lexicon.lexicon_for(store, question)
    build_s = time.perf_counter() - started
    version = held_version(store)
    assert version is not None

    def headings() -> list[str]:
        raise AssertionError("a stored row is read, the headings are not")

    reads = []
    for _ in range(args.reads):
        started = time.perf_counter()
        _scripts, _, read = lexicon.stored_lexicon(store, version, headings, lexicon.LexiconConfig(), words=False)
        reads.append((time.perf_counter() - started) * 1000)
        assert read.pairs == found.pairs or not found
    words = []
    for _ in range(args.reads):
        started = time.perf_counter()
        _scripts, vocab, _ = lexicon.stored_lexicon(store, version, headings, lexicon.LexiconConfig())
        words.append((time.perf_counter() - started) * 1000)
    folder = Path(tempfile.mkdtemp(prefix="hke-lexicon-"))
    (folder / "kite.md").write_text(EXTRA, encoding="utf-8")
    ingest_paths(store, [folder])
    shutil.rmtree(folder, ignore_errors=True)
    embedded = store.embeddings.texts_embedded
    started = time.perf_counter()
    lexicon.lexicon_for(store, question)
    rebuild_s = time.perf_counter() - started
    out = {"field_words": len(vocab.texts), "pairs": len(found.pairs), "build_s": round(build_s, 2),
           "read_ms_p50": round(statistics.median(reads), 2), "read_ms_max": round(max(reads), 2),
           "read_with_words_ms_p50": round(statistics.median(words), 2),
           "rebuild_s": round(rebuild_s, 2), "rebuild_words_embedded": store.embeddings.texts_embedded - embedded}
    store.drop()
    print(out)
    print(f"wrote {write_result('lexicon', out)}")


if __name__ == "__main__":
    run_then_remove_scratch_database(main)
