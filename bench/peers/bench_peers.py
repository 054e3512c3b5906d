"""Ours against two peers on the same questions, in one run: strict attribution and context tokens at k=4.

Systems (same USE embeddings from core.embeddings, same k, same token counter core.tokens.count_tokens):

* ``ours:<mode>``: the product's retrieval (``core.evaluation.ModeRunner``, what ``core eval`` runs), context as
  the product renders it.
* ``langchain``: ``MarkdownHeaderTextSplitter`` (h1–h6) then ``RecursiveCharacterTextSplitter`` (1,000 chars,
  100 overlap: the documented recipe), each chunk embedded as "h1 › h2 › …" + text in LangChain's
  ``InMemoryVectorStore``; the context is the k chunks with their header paths.
* ``langchain-sections``: the same without the character splitter (one chunk per header section).
* ``llamaindex``: ``MarkdownNodeParser`` nodes; each node embedded and shown as LlamaIndex renders it
  (``MetadataMode.EMBED`` / ``MetadataMode.LLM``: the ``header_path`` metadata plus the text), cosine top-k.

Attribution, the same test for every system: one unit of the context holds a gold answer (whole tokens,
core.evaluation.metrics.contains_answer) and shows the gold heading path in order. For the peers the unit is a
chunk and its header path (matched leniently: each gold heading as a substring, in order); for ours an element and
its heading path in the context (core.evaluation.metrics.grounded). The gold *element* is not used here: our
parser's element text (tables re-joined, links resolved) is not a substring of a raw markdown chunk, which would
count every peer chunk as wrong.

``all_values`` (comparative sets, which have a gold table instead of one gold heading path): the context holds
every value the gold table states (each as whole tokens), the retrieval a comparison's answer needs. The peers
have no table answerer, so their answers are not compared; this compares what each system hands one.

Run (in the peers venv, see requirements.txt):
    .venv-peers/bin/python bench/peers/bench_peers.py [--sets gold,near-twin,...] [--ours hierarchical,hybrid]
Writes bench/out/peers.json.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

BENCH = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(BENCH))

from _common import write_result  # noqa: E402
from _synthetic import remove_scratch_database  # noqa: E402
from bench_eval import SETS, load_set  # noqa: E402

K = 4
CHUNK_CHARS = 1000
CHUNK_OVERLAP = 100


@dataclass(frozen=True)
class Unit:
    """A retrievable unit of a peer: what is embedded, what the model is shown, and the header path it shows."""

    embed_text: str
    context_text: str
    path: tuple[str, ...]
    path_text: str  # the header path as shown (matched in order, tolerant of "/" inside headings)


def _markup_free(text: str) -> str:
    from core.evaluation.metrics import normalise

    return normalise(text).replace("*", "").replace("\\", "").replace("_", "")


def _in_order_text(haystack: str, headings: Sequence[str]) -> bool:
    position = 0
    for heading in headings:
        found = haystack.find(_markup_free(heading), position)
        if found < 0:
            return False
        position = found + 1
    return True


def unit_attributed(unit: Unit, answers: Sequence[str], gold_path: Sequence[str]) -> bool:
    from core.evaluation.metrics import contains_answer

    return contains_answer(unit.context_text, answers) and _in_order_text(_markup_free(unit.path_text), gold_path)


def markdown_files(corpus: Path) -> list[tuple[str, str]]:
    from core.ingest import decode_text

    out = []
    for path in sorted(corpus.rglob("*.md")):
        try:
            text, _ = decode_text(path.read_bytes())
        except Exception:  # noqa: BLE001 - a file our ingest rejects is skipped by the peers too
            continue
        out.append((str(path.relative_to(corpus)), text))
    return out


def langchain_units(files: Sequence[tuple[str, str]], *, split_chars: bool) -> list[Unit]:
    from langchain_text_splitters import MarkdownHeaderTextSplitter, RecursiveCharacterTextSplitter

    headers = [("#" * i, f"h{i}") for i in range(1, 7)]
    splitter = MarkdownHeaderTextSplitter(headers_to_split_on=headers, strip_headers=True)
    chars = RecursiveCharacterTextSplitter(chunk_size=CHUNK_CHARS, chunk_overlap=CHUNK_OVERLAP)
    units = []
    for _name, text in files:
        docs = splitter.split_text(text)
        if split_chars:
            docs = chars.split_documents(docs)
        for doc in docs:
            path = tuple(str(doc.metadata[f"h{i}"]) for i in range(1, 7) if doc.metadata.get(f"h{i}"))
            shown = " › ".join(path)
            body = f"{shown}\n\n{doc.page_content}" if shown else doc.page_content
            units.append(Unit(body, body, path, shown))
    return units


def llamaindex_units(files: Sequence[tuple[str, str]]) -> list[Unit]:
    from llama_index.core import Document
    from llama_index.core.node_parser import MarkdownNodeParser
    from llama_index.core.schema import MetadataMode

    parser = MarkdownNodeParser()
    units = []
    for name, text in files:
        for node in parser.get_nodes_from_documents([Document(text=text, metadata={"file_name": name})]):
            header_path = str(node.metadata.get("header_path", "/"))
            first = node.get_content().lstrip().splitlines()[0] if node.get_content().strip() else ""
            own = first.lstrip("#").strip() if first.startswith("#") else ""
            shown = f"{header_path}{own}"
            units.append(Unit(node.get_content(MetadataMode.EMBED), node.get_content(MetadataMode.LLM),
                              tuple(p for p in header_path.split("/") if p) + ((own,) if own else ()), shown))
    return units


class PeerIndex:
    """Cosine top-k over the units' embeddings (LangChain's in-memory store for the LangChain peer)."""

    def __init__(self, name: str, units: list[Unit], embeddings, *, langchain_store: bool) -> None:
        self.name = name
        self.units = units
        t0 = time.perf_counter()
        if langchain_store:
            from langchain_core.documents import Document
            from langchain_core.vectorstores import InMemoryVectorStore

            self.store = InMemoryVectorStore(embeddings)
            self.store.add_documents([Document(page_content=u.embed_text, metadata={"i": i})
                                      for i, u in enumerate(units)])
            self.matrix = None
        else:
            self.store = None
            vectors = embeddings.embed_documents([u.embed_text for u in units])
            matrix = np.asarray(vectors, dtype=np.float32)
            self.matrix = matrix / np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)
        self.index_seconds = round(time.perf_counter() - t0, 1)

    def search(self, question: str, query_vector: np.ndarray) -> list[Unit]:
        if self.store is not None:
            docs = self.store.similarity_search_by_vector(query_vector.tolist(), k=K)
            return [self.units[d.metadata["i"]] for d in docs]
        q = query_vector / max(float(np.linalg.norm(query_vector)), 1e-12)
        order = np.argsort(-(self.matrix @ q))[:K]
        return [self.units[i] for i in order]


def all_values_in(context: str, table: Mapping[str, str | None] | None) -> bool | None:
    """A comparison's retrieval: every value its gold table states is in the context (None: no table)."""
    from core.evaluation.metrics import contains_answer

    values = [v for v in (table or {}).values() if v]
    return all(contains_answer(context, [v]) for v in values) if values else None


_PEER_INDEXES: dict[Path, list[PeerIndex]] = {}


def all_facts_in(context: str, facts: Sequence[Mapping] | None) -> bool | None:
    """A multi-fact question's retrieval: every fact it lists is in the context (None: no facts)."""
    from core.evaluation.metrics import contains_answer

    return all(contains_answer(context, f["answers"]) for f in facts) if facts else None


def run_set(url: str, name: str, ours_modes: Sequence[str], embeddings) -> dict:
    from core.evaluation import ModeRunner
    from core.evaluation.metrics import ContextItem, contains_answer, grounded
    from core.ingest import ingest_paths
    from core.store import ElementStore
    from core.tokens import count_tokens

    spec = SETS[name]
    questions = load_set(spec).questions
    # sets on one corpus share its collection and the peers' indexes (built once per corpus)
    store = ElementStore(url, f"peers_{(spec.collection or name).replace('-', '_')}", embeddings)
    ingest_paths(store, [spec.corpus])
    if spec.corpus not in _PEER_INDEXES:
        files = markdown_files(spec.corpus)
        _PEER_INDEXES[spec.corpus] = [
            PeerIndex("langchain", langchain_units(files, split_chars=True), embeddings, langchain_store=True),
            PeerIndex("langchain-sections", langchain_units(files, split_chars=False), embeddings,
                      langchain_store=True),
            PeerIndex("llamaindex", llamaindex_units(files), embeddings, langchain_store=False),
        ]
    peers = _PEER_INDEXES[spec.corpus]
    runner = ModeRunner(store, ours_modes, k=K)
    rows: dict[str, list[tuple[bool | None, bool | None, int, bool | None, bool | None]]] = {
        f"ours:{m}": [] for m in runner.modes}
    rows.update({p.name: [] for p in peers})
    for question in questions:
        answers, gold_path = question.answers, question.gold_path
        table = question.extra.get("table")
        facts = question.extra.get("facts")
        for mode, retrieval in runner.run(question.question).items():
            items = [ContextItem(e.text, tuple(e.path), e.role, e.category) for e in retrieval.context.elements]
            rows[f"ours:{mode}"].append((
                contains_answer("\n".join(i.text for i in items), answers) if answers else None,
                grounded(items, answers, gold_path),
                retrieval.context.tokens,
                all_values_in(" ".join(i.text for i in items), table),
                all_facts_in("\n".join(i.text for i in items), facts),
            ))
        vector = np.asarray(embeddings.embed_query(question.question), dtype=np.float32)
        for peer in peers:
            units = peer.search(question.question, vector)
            context = "\n\n".join(u.context_text for u in units)
            rows[peer.name].append((
                contains_answer(context, answers) if answers else None,
                any(unit_attributed(u, answers, gold_path) for u in units) if gold_path and answers else None,
                count_tokens(context),
                all_values_in(context, table),
                all_facts_in(context, facts),
            ))

    def mean(values: Sequence[bool | None]) -> float | None:
        present = [float(v) for v in values if v is not None]
        return round(statistics.fmean(present), 4) if present else None

    out = {}
    for system, system_rows in rows.items():
        out[system] = {
            "recall": mean([r[0] for r in system_rows]),
            "attribution": mean([r[1] for r in system_rows]),
            "tokens": round(statistics.fmean(r[2] for r in system_rows), 1),
            "all_values": mean([r[3] for r in system_rows]),
            "all_facts": mean([r[4] for r in system_rows]),
        }
    units = {p.name: {"units": len(p.units), "index_s": p.index_seconds} for p in peers}
    return {"questions": len(questions), "systems": out, "peer_units": units}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default=",".join(SETS))
    parser.add_argument("--ours", default="hierarchical,hybrid", help="our evaluation modes to include")
    parser.add_argument("--label", default="")
    args = parser.parse_args()
    from _common import scratch_database

    from core.embeddings import make_embeddings

    names = [s for s in args.sets.split(",") if s]
    modes = [m for m in args.ours.split(",") if m]
    embeddings = make_embeddings("use")
    started = time.perf_counter()
    url = scratch_database()
    out: dict = {"k": K, "embedder": str(embeddings.info), "sets": {}}
    try:
        for name in names:
            result = run_set(url, name, modes, embeddings)
            out["sets"][name] = result
            print(f"\n== {name} ({result['questions']} questions, k={K})")
            print(f"{'system':<26}{'recall':>10}{'attribution':>13}{'tokens':>10}{'all_values':>12}"
                  f"{'all_facts':>11}")
            for system, agg in result["systems"].items():
                print(f"{system:<26}{agg['recall']!s:>10}{agg['attribution']!s:>13}{agg['tokens']!s:>10}"
                      f"{agg['all_values']!s:>12}{agg['all_facts']!s:>11}", flush=True)
    finally:
        remove_scratch_database()
    out["seconds"] = round(time.perf_counter() - started, 1)
    path = write_result(f"peers{'-' + args.label if args.label else ''}", out)
    print(f"\nwrote {path} in {out['seconds']} s")


if __name__ == "__main__":
    main()
