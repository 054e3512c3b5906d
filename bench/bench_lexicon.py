"""What the collection's cross-script field pairs (``core.retrieval.lexicon``) cost: computing them once for a
collection version, and reading them back in a process that did not compute them (the stored row,
``core.store.field_pairs``), which is what every later process pays.

Ingests the samples (data/samples: Korean and English sheets) into a scratch database, computes the pairs once
(timed), then reads the stored pairs ``--reads`` times as a new process would (this process's copy forgotten each
time) and reports the median and the worst, and the median of reading the words too (their vectors: what a
collection in one script asked in the other needs); then adds one document and times the rebuild, which embeds only the
words not stored yet. Then the costs a test run pays: the same corpus ingested into a second collection (this process
holds its words' vectors: nothing is embedded again), and a collection in one script (the samples' Korean sheets)
asked in its own script (its words are not embedded) and then in the other.

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
    from core.bounded_cache import BoundedCache
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
    rebuild_embedded = store.embeddings.texts_embedded - embedded
    again = ElementStore(store.url, "lexicon_bench_again", store.embeddings)
    ingest_paths(again, [ROOT / "data" / "samples"])
    embedded = store.embeddings.texts_embedded
    started = time.perf_counter()
    lexicon.lexicon_for(again, question)
    again_s, again_embedded = time.perf_counter() - started, store.embeddings.texts_embedded - embedded
    again.drop()
    korean = ElementStore(store.url, "lexicon_bench_korean", store.embeddings)
    ingest_paths(korean, sorted((ROOT / "data" / "samples").glob("*-ko.md")) or [ROOT / "data" / "samples"])
    lexicon._WORD_VECTORS = BoundedCache(lexicon.WORD_VECTORS)  # as a new process: nothing embedded yet
    embedded = store.embeddings.texts_embedded
    started = time.perf_counter()
    lexicon.lexicon_for(korean, "Nova 24FL의 무게는?")  # a model number is no English word
    own_s, own_embedded = time.perf_counter() - started, store.embeddings.texts_embedded - embedded
    started = time.perf_counter()
    lexicon.lexicon_for(korean, "What is the weight of the Nova 24FL?")
    other_s = time.perf_counter() - started
    korean.drop()
    out = {"field_words": len(vocab.texts), "pairs": len(found.pairs), "build_s": round(build_s, 2),
           "same_corpus_again_s": round(again_s, 2), "same_corpus_again_words_embedded": again_embedded,
           "one_script_own_question_s": round(own_s, 2), "one_script_own_words_embedded": own_embedded,
           "one_script_other_question_s": round(other_s, 2),
           "read_ms_p50": round(statistics.median(reads), 2), "read_ms_max": round(max(reads), 2),
           "read_with_words_ms_p50": round(statistics.median(words), 2),
           "rebuild_s": round(rebuild_s, 2), "rebuild_words_embedded": rebuild_embedded}
    store.drop()
    print(out)
    print(f"wrote {write_result('lexicon', out)}")


if __name__ == "__main__":
    run_then_remove_scratch_database(main)
