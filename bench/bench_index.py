"""Issue 4 benchmark: the GraphRAG index.

1. Offline index of a ~1 MB markdown corpus (public docs fetched through pip, see bench/fetch_corpora.py),
   ingested into a fresh collection first (ingest timed separately, not part of the target), then indexed with
   the time of each stage: text units, extraction, graph, leiden, structural, reports, store. Target ≤ 60 s.
2. Hierarchical Leiden on a 10k-node / 30k-edge synthetic graph with planted groups.
3. LLM calls of a second index run with a counting fake chat model: must be 0 (the Postgres response cache).
4. Opening the largest report (issue 13): what the Reports page does to show it, timed — the report, its
   community, entities and relationships, the network page (with the index's stored layout), the cited
   elements and the hierarchy figure. Target < 3 s. Also prints the top-20 entities and the level-0 titles.

Run:  .venv/bin/python bench/bench_index.py [--corpus concat|folders] [--skip-llm] [--collection NAME]
(``--collection`` reuses an ingested collection of DATABASE_URL/HKE_DATA_DIR instead of ingesting afresh.)
Writes bench/out/index.json and prints a table. Uses DATABASE_URL if set, else a throw-away embedded server.
"""

from __future__ import annotations

import argparse
import json
import re
import threading
import time
import uuid
from typing import Any

from _common import CORPORA, ensure_corpora, scratch_database, write_result

STAGE_NAMES = {
    "load": "load elements",
    "text_units": "text units",
    "extraction": "extraction",
    "graph": "graph",
    "communities": "leiden",
    "structural": "structural",
    "reports": "reports",
    "store": "store (1 transaction)",
}


def counting_model(name: str) -> Any:
    """A fast, deterministic fake chat model that answers the index prompts and counts its calls."""
    from langchain_core.language_models.chat_models import BaseChatModel
    from langchain_core.messages import AIMessage
    from langchain_core.outputs import ChatGeneration, ChatResult

    from core.graph import prompts

    d, r, done = prompts.TUPLE_DELIMITER, prompts.RECORD_DELIMITER, prompts.COMPLETION_DELIMITER

    class CountingModel(BaseChatModel):
        model_name: str = name
        calls: int = 0
        lock: Any = None

        @property
        def _llm_type(self) -> str:
            return "bench-counting-fake"

        def _generate(self, messages, stop=None, run_manager=None, **kwargs):
            if self.lock is None:
                self.lock = threading.Lock()
            with self.lock:
                self.calls += 1
            prompt = str(messages[-1].content)
            if prompt.startswith("Read the text below"):
                text = prompt.split("\nText:\n", 2)[-1]
                names = list(dict.fromkeys(re.findall(r"\b[A-Z][a-zA-Z]{3,}\b", text)))[:8]
                records = [f'("entity"{d}{n}{d}concept{d}{n} appears in the text.)' for n in names]
                records += [f'("relationship"{d}{a}{d}{b}{d}{a} and {b} appear together.{d}3)'
                            for a, b in zip(names, names[1:], strict=False)]  # fmt: skip
                content = r.join(records) + done
            elif prompt.startswith("Write a report about one community"):
                ids = re.findall(r"^(\d+)\|", prompt.split("-----Entities-----")[-1], re.M)[:2] or ["0"]
                content = json.dumps({"title": "Report", "summary": "Fake.", "rating": 5, "rating_explanation": "Fake.",
                                      "findings": [{"summary": "Entities",
                                                    "explanation": f"[Data: Entities ({', '.join(ids)})]"}]})
            else:
                content = done if "record format" in prompt else "N"
            return ChatResult(generations=[ChatGeneration(message=AIMessage(content=content))])

    return CountingModel()


def themes(result: Any) -> dict[str, Any]:
    """The top-20 entities by degree and the level-0 titles (ratings first), printed and returned."""
    top = sorted(result.graph.entities, key=lambda e: (-e.degree, e.human_readable_id))[:20]
    level0 = sorted((r for r in result.reports if r.kind == "entity" and r.level == 0),
                    key=lambda r: (-r.rating, r.community_id))  # fmt: skip
    print("\ntop-20 entities by degree: " + " | ".join(f"{e.title} ({e.degree})" for e in top))
    print("level-0 entity communities, highest rated first:")
    for r in level0:
        print(f"  {r.community_id:>5}  {r.rating:4.1f}  {r.size:4d} entities  {r.title}")
    return {"top_entities": [[e.title, e.degree] for e in top],
            "level0": [[r.community_id, r.rating, r.size, r.title] for r in level0]}  # fmt: skip


def open_report(store: Any, community_id: str) -> tuple[float, int, int, int]:
    """What the Reports page does to open one report, timed: (seconds, relationships, page bytes, figure bytes)."""
    from core.graph import (
        children,
        community,
        community_layout,
        community_subgraph,
        hierarchy,
        load_citations,
        load_reports,
    )
    from views.hierarchy import hierarchy_figure
    from views.network import community_network_html, network_groups

    t0 = time.perf_counter()
    c = community(store, community_id)
    report = next(r for r in load_reports(store, level=c.level, kind=c.kind) if r.community_id == c.id)
    ents, rels = community_subgraph(store, c.id)
    group_of, labels, what = network_groups(ents, children(store, c.id))
    page = community_network_html(ents, rels, sub_community_of=group_of, group_labels=labels, grouping=what,
                                  layout=community_layout(store, c.id))  # fmt: skip
    load_citations(store, report)
    figure = hierarchy_figure(hierarchy(store, c.kind), selected=c.id).to_json()
    return time.perf_counter() - t0, len(rels), len(page), len(figure)


def open_largest_report(store: Any, result: Any) -> dict[str, Any]:
    """Open the largest community's report as the page does, in a warm process (the app's: imports and plotly's
    validators loaded by opening the smallest report first), without Streamlit's cache."""
    largest = max(result.communities, key=lambda c: (c.size, c.kind == "entity"))
    open_report(store, min(result.communities, key=lambda c: c.size).id)
    seconds, n_rels, page_bytes, figure_bytes = open_report(store, largest.id)
    print(f"\nopen the largest report ({largest.id}, {largest.kind}, {largest.size} entities, {n_rels} "
          f"relationships): {seconds:.2f}s (target < 3 s: {'met' if seconds < 3 else 'MISSED'}); network page "
          f"{page_bytes / 1e6:.2f} MB, hierarchy figure {figure_bytes / 1e6:.2f} MB")
    entity = max((c for c in result.communities if c.kind == "entity"), key=lambda c: c.size)
    entity_seconds, entity_rels, entity_page, _figure = open_report(store, entity.id)
    print(f"open the largest entity-community report ({entity.id}, {entity.size} entities, {entity_rels} "
          f"relationships): {entity_seconds:.2f}s; network page {entity_page / 1e6:.2f} MB")
    return {"community": largest.id, "entities": largest.size, "relationships": n_rels, "seconds": round(seconds, 3),
            "network_html_bytes": page_bytes, "figure_json_bytes": figure_bytes, "met": seconds < 3,
            "largest_entity_community": {"community": entity.id, "entities": entity.size,
                                         "seconds": round(entity_seconds, 3), "network_html_bytes": entity_page}}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", choices=["concat", "folders"], default="concat",
                    help="concat: the ~1 MB single file; folders: the 118 original documents")
    ap.add_argument("--skip-llm", action="store_true", help="skip the LLM-cache check (part 3)")
    ap.add_argument("--collection", help="an already ingested collection to index (skips the ingest)")
    args = ap.parse_args()

    concat = ensure_corpora()
    paths = [concat] if args.corpus == "concat" else [CORPORA / "python-markdown", CORPORA / "pymdown-extensions"]
    corpus_bytes = sum(p.stat().st_size for path in paths for p in ([path] if path.is_file() else path.rglob("*.md")))

    from core.embeddings import make_embeddings
    from core.graph import IndexConfig
    from core.graph.communities.leiden import time_leiden
    from core.graph.indexing.pipeline import run_index
    from core.ingest import ingest_paths
    from core.store import ElementStore

    if args.collection:
        from core.db import database_url

        url = database_url()
        store = ElementStore(url, args.collection, make_embeddings("use"), create=False)
    else:
        url = scratch_database()
        store = ElementStore(url, f"bench_index_{uuid.uuid4().hex[:8]}", make_embeddings("use"))
    results: dict[str, Any] = {"corpus": {"kind": args.corpus, "bytes": corpus_bytes}}
    try:
        if not args.collection:
            t0 = time.perf_counter()
            ingest = ingest_paths(store, paths, batch_size=64)
            ingest_seconds = time.perf_counter() - t0
            assert not ingest.errors, ingest.errors
            results["ingest"] = {"documents": ingest.documents, "elements": ingest.elements,
                                 "seconds": round(ingest_seconds, 2)}  # fmt: skip
            print(f"ingest (not part of the index target): {ingest.documents} documents, {ingest.elements} "
                  f"elements, {corpus_bytes / 1e6:.2f} MB in {ingest_seconds:.1f}s")

        # 1. offline index
        offline = run_index(store, config=IndexConfig(extraction="offline", reports="extractive"))
        rep = offline.report
        results["offline_index"] = {
            "seconds": rep.seconds,
            "stages": rep.stages,
            "text_units": rep.text_units,
            "entities": rep.entities,
            "relationships": rep.relationships,
            "communities": {str(k): v for k, v in rep.communities.items()},
            "structural_communities": {str(k): v for k, v in rep.structural_communities.items()},
            "reports": rep.reports,
            "english_ner": offline.params.get("english_ner_used"),
            "target_seconds": 60,
            "met": rep.seconds <= 60,
        }
        print()
        print(f"{'stage':<24}{'seconds':>10}")
        print("-" * 34)
        for stage, seconds in rep.stages.items():
            print(f"{STAGE_NAMES.get(stage, stage):<24}{seconds:>10.2f}")
        print("-" * 34)
        print(f"{'index total':<24}{rep.seconds:>10.2f}   (target ≤ 60 s: {'met' if rep.seconds <= 60 else 'MISSED'})")
        print(f"\n{rep.text_units} text units, {rep.entities} entities, {rep.relationships} relationships; "
              f"entity communities per level {dict(rep.communities)}, structural {dict(rep.structural_communities)}; "
              f"{rep.reports} reports")
        results["themes"] = themes(offline)
        results["open_largest_report"] = open_largest_report(store, offline)

        # 3. LLM cache: the second run makes no calls
        if not args.skip_llm:
            config = IndexConfig(extraction="llm", reports="llm", concurrency=4)
            first_model = counting_model("bench-1")
            t1 = time.perf_counter()
            first = run_index(store, chat_model=first_model, config=config).report
            first_s = time.perf_counter() - t1
            second_model = counting_model("bench-1")
            t2 = time.perf_counter()
            second = run_index(store, chat_model=second_model, config=config).report
            second_s = time.perf_counter() - t2
            results["llm_cache"] = {
                "first_run": {"llm_calls": first.llm_calls, "cached_calls": first.cached_calls,
                              "seconds": round(first_s, 2)},
                "second_run": {"llm_calls": second.llm_calls, "cached_calls": second.cached_calls,
                               "model_calls": second_model.calls, "seconds": round(second_s, 2)},
                "met": second.llm_calls == 0 and second_model.calls == 0,
            }  # fmt: skip
            print(f"\nLLM index with a counting fake model: first run {first.llm_calls} calls ({first_s:.1f}s); "
                  f"second run {second.llm_calls} calls, {second.cached_calls} cache hits ({second_s:.1f}s) "
                  f"→ {'0 calls: met' if results['llm_cache']['met'] else 'MISSED'}")
    finally:
        if not args.collection:
            store.drop()

    # 2. Leiden on 10k nodes
    leiden = time_leiden(10_000, 30_000)
    results["leiden_10k"] = {k: (round(v, 3) if k == "seconds" else int(v)) for k, v in leiden.items()}
    print(f"\nhierarchical Leiden, {int(leiden['nodes'])} nodes / {int(leiden['edges'])} edges: "
          f"{leiden['seconds']:.2f}s, {int(leiden['communities'])} communities on {int(leiden['levels'])} levels")
    path = write_result("index", results)
    print(f"\nwrote {path}")


if __name__ == "__main__":
    main()
