"""Retrieval quality of the offline embedders on data/questions.json (README "Embeddings").

For each question, every element of the sample corpus is ranked by cosine similarity (exact search, what
pgvector returns without an approximate index) and the rank of the first element that contains a gold answer
is recorded. Reports MRR, recall@1 and recall@4, and embedding throughput, for `use` and `e5` in one run.

Run: .venv/bin/python bench/bench_embeddings.py
"""

from __future__ import annotations

import json
import time

import numpy as np
from _common import QUESTIONS, SAMPLES, write_result


def normalise(text: str) -> str:
    return "".join(text.casefold().split())


def main() -> None:
    from core.embeddings import make_embeddings
    from core.ingest import decode_text, parse

    elements = []
    for path in sorted(SAMPLES.glob("*.md")):
        text, _ = decode_text(path.read_bytes())
        for doc in parse(text, source=path.name, document_id=path.stem):
            elements.append((path.name, doc.page_content))
    questions = json.loads(QUESTIONS.read_text(encoding="utf-8"))["questions"]
    results = {}
    for provider in ("use", "e5"):
        emb = make_embeddings(provider)
        emb.embed_documents(["warm up"])
        t0 = time.perf_counter()
        matrix = np.asarray(emb.embed_documents([t for _, t in elements]), dtype=np.float32)
        embed_s = time.perf_counter() - t0
        ranks = []
        for q in questions:
            qv = np.asarray(emb.embed_query(q["question"]), dtype=np.float32)
            order = np.argsort(-(matrix @ qv))
            golds = [normalise(a) for a in q["answers"]]
            rank = next((i + 1 for i, idx in enumerate(order)
                         if elements[idx][0] == q["document"] and any(g in normalise(elements[idx][1]) for g in golds)),
                        None)
            ranks.append(rank)
        mrr = float(np.mean([1 / r if r else 0 for r in ranks]))
        r1 = float(np.mean([bool(r and r <= 1) for r in ranks]))
        r4 = float(np.mean([bool(r and r <= 4) for r in ranks]))
        results[provider] = {"model": str(emb.info), "mrr": round(mrr, 3), "recall@1": round(r1, 3),
                             "recall@4": round(r4, 3), "texts_per_s": round(len(elements) / embed_s)}
        print(f"{provider:4} MRR {mrr:.3f}  recall@1 {r1:.2f}  recall@4 {r4:.2f}  "
              f"{len(elements) / embed_s:,.0f} texts/s  ({emb.info})")
    path = write_result("embeddings", {"questions": len(questions), "elements": len(elements), **results})
    print(f"{len(questions)} questions over {len(elements)} elements; wrote {path}")


if __name__ == "__main__":
    main()
