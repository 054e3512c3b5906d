"""Throughput of core.textnorm on the Korean and English samples (words/s and terms/s, cold and cached).

Cold: every text analysed for the first time (the per-text cache cleared). Cached: the same texts again, which
is what the answerer sees when it scores the same context elements for several questions.

Run: .venv/bin/python bench/bench_textnorm.py
"""

from __future__ import annotations

import time

from _common import SAMPLES, write_result


def main() -> None:
    from core import textnorm
    from core.ingest import decode_text, parse

    texts = []
    for path in sorted(SAMPLES.glob("*.md")):
        text, _ = decode_text(path.read_bytes())
        texts.extend(d.page_content for d in parse(text, source=path.name, document_id=path.stem))
    textnorm.terms("워밍업")  # load the analyser once, outside the timing
    result: dict[str, object] = {"elements": len(texts), "characters": sum(len(t) for t in texts)}
    for label in ("cold", "cached"):
        if label == "cold":
            textnorm._analyses.cache_clear()
        started = time.perf_counter()
        n_terms = sum(len(textnorm.terms(t)) for t in texts)
        seconds = time.perf_counter() - started
        result[label] = {"seconds": round(seconds, 4), "terms": n_terms, "terms_per_s": round(n_terms / seconds)}
    print(result)
    write_result("textnorm", result)


if __name__ == "__main__":
    main()
