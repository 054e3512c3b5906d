"""Where each question's gold element ranks by cosine alone, per offline embedder: no fusion, scope or reader.

Every non-empty element (headings excepted) of a corpus is embedded twice: its text alone (what the default's
vector list searches) and its heading path before its text (the ``contextual`` strategy's sibling index, as
``core.ingest.embedding_text`` builds it). A question's gold elements are those holding a gold answer as whole
tokens (``core.evaluation.metrics.contains_answer``) under its gold path; its rank is the best of theirs.
Prints top-1, top-4, top-10 and MRR per embedder and text. Use it on tune sets.

Run: .venv/bin/python bench/bench_dense_rank.py --sets tune-griffe-guide,tune-korean-moment [--embedders use,e5]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from core.embeddings import make_embeddings  # noqa: E402
from core.evaluation.metrics import contains_answer  # noqa: E402
from core.ingest.embedding import MAX_EMBED_CHARS  # noqa: E402
from core.markdown_loader import parse_markdown  # noqa: E402

TUNE = ROOT / "data" / "tune"
CORPORA = ROOT / "bench" / "corpora"


def elements(corpus: Path) -> list[tuple[tuple[str, ...], str]]:
    found = []
    for path in sorted(corpus.glob("**/*.md")):
        for doc in parse_markdown(path.read_text(encoding="utf-8", errors="replace"), source=str(path),
                                  document_id=str(path)):
            if doc.metadata["category"] != "Title" and doc.page_content.strip():
                found.append((tuple(doc.metadata.get("heading_path") or ()), doc.page_content))
    return found


def under(path: tuple[str, ...], gold: list[str]) -> bool:
    return not gold or list(path[:len(gold)]) == gold or list(path[-len(gold):]) == gold


def ranks(embedder: str, units: list[tuple[tuple[str, ...], str]], questions: list[dict], with_path: bool
          ) -> np.ndarray:
    embed = make_embeddings(embedder)
    texts = [(" > ".join([*p, t]) if with_path and p else t)[:MAX_EMBED_CHARS] for p, t in units]
    matrix = np.asarray(embed.embed_documents(texts), dtype=np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    found = []
    for q in questions:
        gold = [i for i, (p, t) in enumerate(units)
                if contains_answer(t, q["answers"]) and under(p, q.get("gold_path") or [])]
        if not gold:
            continue
        vector = np.asarray(embed.embed_query(q["question"]), dtype=np.float32)
        order = np.argsort(-(matrix @ (vector / np.linalg.norm(vector))), kind="stable")
        place = np.empty_like(order)
        place[order] = np.arange(len(order))
        found.append(int(min(place[g] for g in gold)))
    return np.asarray(found)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", required=True, help="comma-separated tune sets (data/tune/<name>.json)")
    parser.add_argument("--embedders", default="use,e5")
    args = parser.parse_args()
    for name in args.sets.split(","):
        spec = json.loads((TUNE / f"{name.removeprefix('tune-')}.json").read_text(encoding="utf-8"))
        units = elements(CORPORA / name.removeprefix("tune-"))
        print(f"== {name}: {len(units)} elements, {len(spec['questions'])} questions", flush=True)
        for embedder in args.embedders.split(","):
            for with_path in (False, True):
                r = ranks(embedder, units, spec["questions"], with_path)
                print(f"  {embedder:4s} {'path' if with_path else 'text'}  n={len(r)}  top1={np.mean(r < 1):.3f}  "
                      f"top4={np.mean(r < 4):.3f}  top10={np.mean(r < 10):.3f}  mrr={np.mean(1 / (r + 1)):.3f}",
                      flush=True)


if __name__ == "__main__":
    main()
