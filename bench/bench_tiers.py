"""The statement, fact and topic tiers (issue 31) against the element index: rows, bytes and build time per corpus.

Each corpus is ingested into its own collection of a scratch database, then ``core.ingest.tiers.sync_tiers`` builds
its tiers offline; the bytes are ``pg_column_size`` of the rows (``HLGTables.storage``), the tiers' (statements,
mentions, support, facts, entities, topics) against the element rows' (current and history). Writes
``bench/out/tiers.json``.

Run: .venv/bin/python bench/bench_tiers.py [--corpora samples,cibuildwheel,npm-cli]
"""

from __future__ import annotations

import argparse
import time

from _common import CORPORA, SAMPLES, scratch_database, write_result
from _synthetic import remove_scratch_database

CORPUS_NAMES = ("samples", "cibuildwheel", "npm-cli", "copier", "korean-nlp", "pdm-changelog")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpora", default=",".join(CORPUS_NAMES))
    args = parser.parse_args()
    names = [n.strip() for n in args.corpora.split(",") if n.strip()]
    url = scratch_database()
    from core.embeddings import make_embeddings
    from core.ingest import ingest_paths
    from core.ingest.tiers import sync_tiers
    from core.store import ElementStore
    from core.store.hlg_tables import HLGTables

    embeddings = make_embeddings("use")
    out: dict = {"embedder": str(embeddings.info), "corpora": {}}
    try:
        for name in names:
            store = ElementStore(url, f"tiers_{name.replace('-', '_')}", embeddings)
            report = ingest_paths(store, [SAMPLES if name == "samples" else CORPORA / name])
            t0 = time.perf_counter()
            sync = sync_tiers(store)
            seconds = round(time.perf_counter() - t0, 1)
            storage = HLGTables(store).storage().as_dict()
            out["corpora"][name] = {"elements": report.elements, "tiers_s": seconds, "counts": sync.counts,
                                    "embedded": sync.embedded, "reused": sync.reused, "storage": storage}
            print(f"{name}: {report.elements} elements; {sync.counts}; tiers {storage['tiers'] / 1e6:.2f} MB "
                  f"(topics {storage['topics'] / 1e6:.2f} MB) against elements {storage['elements'] / 1e6:.2f} MB: "
                  f"{storage['ratio']}x; built in {seconds} s", flush=True)
    finally:
        remove_scratch_database()
    print(f"wrote {write_result('tiers', out)}")


if __name__ == "__main__":
    main()
