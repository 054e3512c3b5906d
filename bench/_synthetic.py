"""Synthetic corpora for the retrieval benchmarks: documents shaped like real ones, with random vectors.

Each document is a heading tree (``#`` title, 3–7 ``##`` sections, some with ``###`` subsections) holding
``key : value`` list items with nested sub-items, and now and then a paragraph, a table or a code block:
depth 3–6, branching like the sample spec sheets. Its words are drawn with the frequencies of real
documentation (:func:`vocabulary`). Vectors are deterministic unit vectors with cluster
structure (document → section → element), so HNSW sees something closer to real embeddings than uniform
noise. Everything is loaded through ``store.write.replace_document`` (one COPY per document).
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np
from langchain_core.documents import Document

from core.sql import elements as element_sql
from core.store import DocumentRecord, ElementStore

# Words are drawn with the frequencies of real documentation: the sample corpus (Korean and English) and the
# Python-Markdown docs (bench/fetch_corpora.py, fetched through pip when missing). A handful of words spread over
# every element would make every element match every question, which no real corpus does.
_WORD = re.compile(r"[^\W\d_][\w\-.']*[^\W_]|[^\W\d_]", re.UNICODE)


@dataclass(frozen=True)
class Vocabulary:
    words: np.ndarray  # most frequent first
    cdf: np.ndarray  # cumulative share of the words above
    sources: tuple[str, ...]

    def draw(self, rng: np.random.Generator, n: int) -> list[str]:
        return [str(w) for w in self.words[np.searchsorted(self.cdf, rng.random(n), side="right")]]


@functools.lru_cache(maxsize=1)
def vocabulary() -> Vocabulary:
    """Every word of the real corpora with its count (casefolded; Korean words keep their particles)."""
    from _common import SAMPLES, ensure_python_markdown

    folders = [SAMPLES]
    docs = ensure_python_markdown()
    if docs is not None:
        folders.append(docs)
    counts: Counter[str] = Counter()
    for folder in folders:
        for path in sorted(folder.rglob("*.md")):
            counts.update(w.casefold() for w in _WORD.findall(path.read_text(encoding="utf-8", errors="replace")))
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    total = float(sum(c for _, c in ranked))
    cdf = np.cumsum([c / total for _, c in ranked])
    cdf[-1] = 1.0
    return Vocabulary(np.array([w for w, _ in ranked]), cdf, tuple(str(f) for f in folders))


@dataclass
class _Node:
    element_id: str
    parent_id: str | None
    category: str
    depth: int
    text: str
    path: tuple[str, ...]
    cluster: np.ndarray


def _unit(v: np.ndarray) -> np.ndarray:
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


def synthetic_document(doc_no: int, rng: np.random.Generator, dim: int, prefix: str) -> tuple[list[_Node], str]:
    """One document's nodes in document order (parents always before their children)."""
    document_id = f"{prefix}{doc_no:06d}"
    nodes: list[_Node] = []
    counter = 0

    def new(parent: _Node | None, category: str, depth: int, text: str, spread: float) -> _Node:
        nonlocal counter
        counter += 1
        base = parent.cluster if parent is not None else rng.standard_normal(dim)
        cluster = base + spread * rng.standard_normal(dim)
        path = (*parent.path, parent.text) if parent is not None and parent.category == "Title" else (
            parent.path if parent is not None else ()
        )
        node = _Node(f"{document_id}-{counter:05d}", parent.element_id if parent else None, category, depth, text,
                     path, cluster)
        nodes.append(node)
        return node

    vocab = vocabulary()

    def words(n: int) -> str:
        return " ".join(vocab.draw(rng, n))

    def word() -> str:
        return vocab.draw(rng, 1)[0]

    title = new(None, "Title", 0, f"Product P{doc_no} {words(4)}", 1.0)
    for s in range(int(rng.integers(3, 8))):
        section = new(title, "Title", 1, f"{s + 1}. {words(2).title()}", 0.8)
        subsections = [section]
        if rng.random() < 0.6:
            subsections = [new(section, "Title", 2, f"{s + 1}.{t + 1} {words(2).title()}", 0.6)
                           for t in range(int(rng.integers(2, 6)))]
        for sub in subsections:
            for _ in range(int(rng.integers(2, 9))):
                item = new(sub, "ListItem", 0, f"{words(2)} : {rng.integers(1, 999)} {word()}", 0.5)
                if rng.random() < 0.35:
                    for _ in range(int(rng.integers(1, 4))):
                        child = new(item, "ListItem", 1, f"{words(6)} note {rng.integers(1, 99)}", 0.4)
                        if rng.random() < 0.2:
                            new(child, "ListItem", 2, f"{words(5)} detail", 0.3)
            kind = rng.random()
            if kind < 0.15:
                new(sub, "NarrativeText", 0, f"{words(25)}.", 0.5)
            elif kind < 0.20:
                new(sub, "Table", 0, "| key | value |\n| --- | --- |\n" + "\n".join(
                    f"| {word()} | {rng.integers(1, 99)} |" for _ in range(4)), 0.5)
            elif kind < 0.23:
                new(sub, "CodeSnippet", 0, f"tool --model P{doc_no} update fw_{rng.integers(1, 9)}.bin", 0.5)
    return nodes, document_id


def synthetic_corpus(
    n_elements: int, *, seed: int = 7, dim: int = 512, prefix: str = "syn", start_doc: int = 0
) -> Iterator[tuple[DocumentRecord, list[Document], np.ndarray]]:
    """Documents totalling exactly ``n_elements`` elements (the last one cut short, parents kept)."""
    rng = np.random.default_rng(seed)
    produced = 0
    doc_no = start_doc
    while produced < n_elements:
        nodes, document_id = synthetic_document(doc_no, rng, dim, prefix)
        nodes = nodes[: n_elements - produced]
        vectors = _unit(np.stack([n.cluster for n in nodes]).astype(np.float32))
        docs = [
            Document(
                id=n.element_id,
                page_content=n.text,
                metadata={
                    "element_id": n.element_id, "parent_id": n.parent_id, "category": n.category,
                    "category_depth": n.depth, "document_id": document_id, "source": f"{document_id}.md",
                    "filename": f"{document_id}.md", "order": i, "heading_path": list(n.path),
                    **({"language": "sh"} if n.category == "CodeSnippet" else {}),
                },
            )
            for i, n in enumerate(nodes)
        ]  # fmt: skip
        record = DocumentRecord(document_id, f"{document_id}.md", f"{document_id}.md", nodes[0].text,
                                f"hash-{document_id}-{len(nodes)}", "synthetic", len(docs), 0)
        produced += len(docs)
        doc_no += 1
        yield record, docs, vectors


def synthetic_questions(n: int, *, seed: int = 3, products: int = 2000) -> list[str]:
    """Questions in the synthetic corpus' words: two content words (no stop words, 3+ characters) drawn with the
    corpus' frequencies, about a product."""
    from core.textnorm import ENGLISH_STOP_WORDS

    rng = np.random.default_rng(seed)
    vocab = vocabulary()

    def content_word() -> str:
        while True:
            w = vocab.draw(rng, 1)[0]
            if len(w) >= 3 and w not in ENGLISH_STOP_WORDS:
                return w

    return [f"What is the {content_word()} {content_word()} of product P{int(rng.integers(products))}?"
            for _ in range(n)]


def load(store: ElementStore, n_elements: int, **kwargs) -> tuple[int, float]:
    """Insert a synthetic corpus; returns (documents, seconds)."""
    t0 = time.perf_counter()
    n_docs = 0
    for record, docs, vectors in synthetic_corpus(n_elements, **kwargs):
        store.write.replace_document(record, docs, vectors)
        n_docs += 1
    return n_docs, time.perf_counter() - t0


def drop_hnsw(store: ElementStore) -> None:
    """Bulk loads go much faster without the HNSW index; it is rebuilt afterwards (scratch database only)."""
    with store.pool.connection() as conn:
        conn.execute(store.statement("DROP INDEX IF EXISTS {hnsw}"))


def build_hnsw(store: ElementStore, maintenance_work_mem: str = "1GB", parallel_workers: int = 2) -> float:
    t0 = time.perf_counter()
    with store.pool.connection() as conn:
        conn.execute("SELECT set_config('maintenance_work_mem', %s, false)", (maintenance_work_mem,))
        conn.execute("SELECT set_config('max_parallel_maintenance_workers', %s, false)", (str(parallel_workers),))
        conn.execute(store.statement(element_sql.CREATE_VECTOR_INDEX))
        conn.execute(store.statement("ANALYZE {elements}"))
        conn.execute("RESET maintenance_work_mem")
        conn.execute("RESET max_parallel_maintenance_workers")
    return time.perf_counter() - t0


def analyze(store: ElementStore) -> None:
    with store.pool.connection() as conn:
        conn.execute(store.statement("ANALYZE {elements}"))


def random_queries(store: ElementStore, n: int, *, seed: int = 11, noise: float = 0.6) -> list[np.ndarray]:
    """Queries near stored elements (a perturbed stored vector), like a question near its answer."""
    rng = np.random.default_rng(seed)
    with store.pool.connection() as conn:
        # Ids drawn first: sorting whole rows at random would read every vector of a million-row table.
        rows = conn.execute(store.statement(
            "SELECT embedding FROM {elements} WHERE element_id IN "
            "(SELECT element_id FROM {elements} ORDER BY random() LIMIT %s) ORDER BY element_id"), (n,)).fetchall()
    out = []
    for (vector,) in rows:
        v = np.asarray(vector, dtype=np.float32)
        out.append(_unit(v + noise * rng.standard_normal(v.shape[0]).astype(np.float32) / np.sqrt(v.shape[0])))
    return out


def set_shared_buffers(size: str) -> str:
    """Restart the scratch embedded server with ``shared_buffers`` = ``size`` (``HKE_SHARED_BUFFERS``, checked by
    ``core.config``; ``default``: Postgres' own 128 MB); returns its URL. The restart empties the buffers."""
    if os.environ.get("DATABASE_URL"):
        raise SystemExit("--shared-buffers applies to the scratch embedded server only (DATABASE_URL is set)")
    from core.db import database_url, stop_embedded
    from core.db.pool import close_pools

    if size == "default":
        os.environ.pop("HKE_SHARED_BUFFERS", None)
    else:
        os.environ["HKE_SHARED_BUFFERS"] = size
    close_pools()
    stop_embedded()
    return database_url()


def prewarm(store: ElementStore) -> dict[str, int]:
    """Read the collection's HNSW index, rows and full-text index into shared buffers (``pg_prewarm``): the blocks
    read per relation."""
    out = {}
    with store.pool.connection() as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS pg_prewarm")
        for name in ("{hnsw}", "{elements}", "{fts}"):
            relation = store.statement(name).strip('"')
            out[relation] = int(conn.execute("SELECT pg_prewarm(%s::regclass)", (relation,)).fetchone()[0])
    return out


def remove_scratch_database() -> None:
    """Stop the scratch embedded server and delete its data directory (nothing to do with DATABASE_URL set)."""
    if os.environ.get("DATABASE_URL"):
        return
    from core.db import stop_embedded
    from core.db.pool import close_pools

    data_dir = os.environ.get("HKE_DATA_DIR", "")
    close_pools()
    stop_embedded()
    if os.path.basename(data_dir).startswith("hke-bench-"):  # only what _common.scratch_database made
        shutil.rmtree(data_dir, ignore_errors=True)


def run_then_remove_scratch_database(main: Callable[[], None]) -> None:
    """Run a benchmark's ``main``; its scratch server goes away also after a failure."""
    try:
        main()
    finally:
        remove_scratch_database()
