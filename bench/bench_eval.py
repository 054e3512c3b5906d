"""Retrieval and extractive answers per question set and mode, old and honest metrics side by side (k=4).

Question sets (each on its own corpus, ingested into its own collection of a scratch database):

=================  ==========================================  ====================================================
set                corpus                                      questions
=================  ==========================================  ====================================================
gold               data/samples                                data/questions.json (58, hand-written)
near-twin          data/near_twin                              data/near_twin/questions.json (33, hand-written)
python-markdown    bench/corpora/python-markdown (PyPI sdist)  generated: every kind of fact
pymdown            bench/corpora/pymdown-extensions (sdist)    generated: every kind, 80 spread over the documents
undici             bench/corpora/undici (Debian node-undici)   generated: "What is the default of option X of Y?"
comparative-*      samples, near_twin, python-markdown         data/comparative/*.json (61, hand-written)
shapes-*           samples, near_twin, python-markdown         data/shapes/*.json (46, hand-written)
entity-grid        data/samples                                data/entity_grid/samples.json (215, generated)
api-plain          bench/corpora/{fastify,pino,piscina,ws,     data/api_shapes/plain.json (164, generated, halves)
                   express-middleware,node-tar} (npm, node-ws)
api-template       the same six                                data/api_shapes/template.json (the same 164)
nodejs-plain       bench/corpora/nodejs (Debian nodejs-doc)    data/nodejs/plain.json (150, generated, held out)
nodejs-template    bench/corpora/nodejs                        data/nodejs/template.json (the same 150, templated)
heldout-*          bench/corpora/{cibuildwheel,npm-cli,        data/heldout/*.json (generated, plus hand-written
                   korean-nlp,copier,pdm-changelog}             multi-fact and FAQ sets; split by corpus, see its
                                                               README)
tune-*             bench/corpora/{semantic-release,            data/tune/*.json (generated, plus hand-written; FAQ,
                    concurrently-cli,korean-pykrx,               CLI, Korean prose, a tool's rule reference; tune)
                    markdownlint-rules,korean-moment,
                    isort-config,molecule-faq,
                    mkdocstrings-options,griffe-guide,
                    plugin-options}
=================  ==========================================  ====================================================

The comparative, shapes and entity-grid sets come from ``bench/write_question_sets.py``, the api-* sets from
``bench/write_api_sets.py``; every question of theirs has a ``split`` (``tune`` or ``held_out``) and each set is
also reported per half (``<set>/tune``, ``<set>/held_out``).

The generated sets are reproducible: ``python bench/bench_eval.py --write-sets`` writes them to
``bench/out/questions-<set>.json`` (the corpora come from ``bench/fetch_corpora.py``, fetched when missing).

Per set and mode it reports:

* ``recall``: a gold answer is in the context as whole tokens (core.evaluation.metrics.contains_answer);
* ``attribution``: strict: the element holding the answer (the gold element where the set names one) is in the
  context under its gold heading path;
* ``answer_contains``: the extractive answer (what ``ask`` and Compare print without an LLM) contains a gold
  answer as whole tokens; ``answer_exact``: its quoted value equals one (quotes ignored);
* ``table_right`` (comparative sets): every entity's value right and cited, "not stated" where the gold has
  none, and the pick right (core.evaluation.answer_checks.table_answer_right);
* ``row_key_named`` (questions whose gold element is a table row: generated from one, or a row of the gold
  document under the gold path holding the gold answer): the answer names the row (its first cell);
* ``wrong_entity`` (entity grid): the answer states a value cited from another product's sheet (a count);
  ``not_stated_right``: of the questions whose product does not state the attribute, the share answered so;
* ``all_facts`` (questions listing their ``facts``): every fact's answer is in the context; ``facts_attributed``:
  every fact's answer is held by an element of the context under *that fact's own* gold path (strict attribution
  per fact); ``facts_answered``: every fact's answer is in the answer;
* ``tokens``: mean context tokens (core.tokens);
* ``search_ms_p50`` / ``latency_ms_p50``: the search stage (heading match, searches, fusion) and the mode's whole
  latency (query embedding, search, its context), median over the questions;
* ``old_recall`` / ``old_attribution``: the previous definitions (substring match; every gold heading somewhere
  in the context), kept so before/after numbers can be compared.

Each mode runs through the evaluation's runner (``core.evaluation.ModeRunner``): exactly the retrieval that
``core eval`` runs. Writes ``bench/out/eval.json``.

Run: .venv/bin/python bench/bench_eval.py [--k 4] [--sets gold,near-twin,...] [--modes plain,hierarchical,...]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import statistics
import time
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from _common import CORPORA, OUT, QUESTIONS, ROOT, SAMPLES, scratch_database, write_result
from _synthetic import remove_scratch_database

NEAR_TWIN = ROOT / "data" / "near_twin"
COLUMNS = ("n", "recall", "attribution", "answer_contains", "answer_exact", "tokens", "old_recall",
           "old_attribution", "search_ms_p50", "latency_ms_p50")
EXTRA_COLUMNS = ("table_right", "wrong_entity", "not_stated_right", "row_key_named", "all_facts", "facts_attributed",
                 "facts_answered")
DATA = ROOT / "data"


@dataclass(frozen=True)
class SetSpec:
    """One question set: where its corpus is, and where its questions come from."""

    name: str
    corpus: Path
    questions: Path | None = None  # a hand-written set; None: generated from the corpus
    kinds: tuple[str, ...] = ("default", "key_value", "table")
    limit: int | None = None
    max_answer_elements: int = 3
    fetched: str | None = None  # the bench/fetch_corpora.py corpus it needs
    collection: str | None = None  # sets on the same corpus share its collection
    more: tuple[str, ...] = ()  # further bench/fetch_corpora.py corpora ingested into the same collection


SETS: dict[str, SetSpec] = {
    "gold": SetSpec("gold", SAMPLES, QUESTIONS),
    "near-twin": SetSpec("near-twin", NEAR_TWIN, NEAR_TWIN / "questions.json"),
    "python-markdown": SetSpec("python-markdown", CORPORA / "python-markdown", fetched="python-markdown"),
    "pymdown": SetSpec("pymdown", CORPORA / "pymdown-extensions", limit=80, fetched="pymdown-extensions"),
    # An API reference: option names repeat under many classes; common defaults (null, false) are kept because
    # strict attribution checks the gold element itself, not just the value.
    "undici": SetSpec("undici", CORPORA / "undici", kinds=("default",), max_answer_elements=50, fetched="undici"),
    "entity-grid": SetSpec("entity-grid", SAMPLES, DATA / "entity_grid" / "samples.json", collection="gold"),
    # Held out: no mechanism was tuned on the Node.js reference (bench/write_nodejs_sets.py writes both shapes).
    "nodejs-plain": SetSpec("nodejs-plain", CORPORA / "nodejs", DATA / "nodejs" / "plain.json", fetched="nodejs",
                            collection="nodejs"),
    "nodejs-template": SetSpec("nodejs-template", CORPORA / "nodejs", DATA / "nodejs" / "template.json",
                               fetched="nodejs", collection="nodejs"),
}
# API references in the two shapes of the Node.js sets, for tuning (bench/write_api_sets.py): one collection of
# six references, so an option name ("limit", "maxAge") recurs across packages as Node.js's do across modules.
API_CORPORA = ("fastify", "pino", "piscina", "ws", "express-middleware", "node-tar")
for _shape in ("plain", "template"):
    SETS[f"api-{_shape}"] = SetSpec(f"api-{_shape}", CORPORA / API_CORPORA[0], DATA / "api_shapes" / f"{_shape}.json",
                                    fetched=API_CORPORA[0], collection="api", more=API_CORPORA[1:])
# Held out (issues 29 and 31, bench/write_heldout_sets.py): five public corpora, each its own collection; the
# hand-written multi-fact questions of each ("facts" with their paths) share it. data/heldout/README.md: the split.
HELDOUT_CORPORA = ("cibuildwheel", "npm-cli", "korean-nlp", "copier", "pdm-changelog", "korean-payments")
for _corpus in HELDOUT_CORPORA:
    for _suffix in ("", "-multi") if (DATA / "heldout" / f"{_corpus}-multi.json").exists() else ("",):
        SETS[f"heldout-{_corpus}{_suffix}"] = SetSpec(
            f"heldout-{_corpus}{_suffix}", CORPORA / _corpus, DATA / "heldout" / f"{_corpus}{_suffix}.json",
            fetched=_corpus, collection=f"heldout-{_corpus}")
SETS["heldout-copier-faq"] = SetSpec("heldout-copier-faq", CORPORA / "copier", DATA / "heldout" / "copier-faq.json",
                                     fetched="copier", collection="heldout-copier")
# Two tune corpora of issue 29's FAQ/policy and changelog shapes (hand-written FAQ set; generated changelog set).
for _corpus in ("black-faq", "hatch-changelog"):
    for _suffix in ("", "-multi"):
        SETS[f"heldout-{_corpus}{_suffix}"] = SetSpec(
            f"heldout-{_corpus}{_suffix}", CORPORA / _corpus, DATA / "heldout" / f"{_corpus}{_suffix}.json",
            fetched=_corpus, collection=f"heldout-{_corpus}")
# Report-only (data/unseen/, bench/write_unseen_sets.py): five corpora nothing was tuned on, an independent check.
UNSEEN_CORPORA = ("bumpversion-ref", "httpie-cli", "korean-caselaw", "jupytext-faq", "pydantic-history")
for _corpus in UNSEEN_CORPORA:
    SETS[f"unseen-{_corpus}"] = SetSpec(f"unseen-{_corpus}", CORPORA / _corpus, DATA / "unseen" / f"{_corpus}.json",
                                        fetched=_corpus, collection=f"unseen-{_corpus}")
# Report-only, the second batch (data/unseen2/, bench/write_unseen2_sets.py): four more corpora nothing was tuned on.
UNSEEN2_CORPORA = ("webpack-options", "dotenv-faq", "korean-admdong", "structlog-guide")
for _corpus in UNSEEN2_CORPORA:
    SETS[f"unseen2-{_corpus}"] = SetSpec(f"unseen2-{_corpus}", CORPORA / _corpus,
                                         DATA / "unseen2" / f"{_corpus}.json", fetched=_corpus,
                                         collection=f"unseen2-{_corpus}")
# Report-only, the third batch (data/unseen3/, bench/write_unseen3_sets.py): four more corpora nothing was tuned on.
UNSEEN3_CORPORA = ("jupyterbook-guide", "aider-faq", "terser-options", "korean-manseryeok")
for _corpus in UNSEEN3_CORPORA:
    SETS[f"unseen3-{_corpus}"] = SetSpec(f"unseen3-{_corpus}", CORPORA / _corpus,
                                         DATA / "unseen3" / f"{_corpus}.json", fetched=_corpus,
                                         collection=f"unseen3-{_corpus}")
# Tune (data/tune/, bench/write_tune_sets.py): an FAQ, a CLI's docs and Korean prose, the shapes the report sets
# are weakest on, for tuning the reader without reading a report set.
TUNE_CORPORA = ("semantic-release", "concurrently-cli", "korean-pykrx", "markdownlint-rules", "korean-moment",
                "isort-config", "molecule-faq", "mkdocstrings-options",
                "griffe-guide", "plugin-options")
for _corpus in TUNE_CORPORA:
    SETS[f"tune-{_corpus}"] = SetSpec(f"tune-{_corpus}", CORPORA / _corpus, DATA / "tune" / f"{_corpus}.json",
                                      fetched=_corpus, collection=f"tune-{_corpus}")
SETS["heldout-samples-multi"] = SetSpec("heldout-samples-multi", SAMPLES, DATA / "heldout" / "samples-multi.json",
                                        collection="gold")
# The issue-21 sets: each kind on the samples, the near-twin corpus and Python-Markdown (sharing their collections).
for _kind in ("comparative", "shapes"):
    for _corpus, _collection, _file, _fetched in (
        (SAMPLES, "gold", "samples", None),
        (NEAR_TWIN, "near-twin", "near_twin", None),
        (CORPORA / "python-markdown", "python-markdown", "python_markdown", "python-markdown"),
    ):
        _name = f"{_kind}-{_collection if _collection != 'gold' else 'samples'}"
        SETS[_name] = SetSpec(_name, _corpus, DATA / _kind / f"{_file}.json", fetched=_fetched, collection=_collection)


def ensure_fetched(spec: SetSpec) -> None:
    import subprocess
    import sys

    for name in (spec.fetched, *spec.more) if spec.fetched else ():
        if not (CORPORA / name / ".fetched.json").exists():
            subprocess.run([sys.executable, str(ROOT / "bench" / "fetch_corpora.py"), "--corpus", name], check=True)


def load_set(spec: SetSpec):
    """The spec's QuestionSet (hand-written, or generated from its corpus)."""
    from core.evaluation import generate_questions, load_questions

    ensure_fetched(spec)
    if spec.questions is not None:
        return load_questions(spec.questions)
    return generate_questions([spec.corpus], limit=spec.limit, kinds=spec.kinds,
                              max_answer_elements=spec.max_answer_elements, name=spec.name)


# -- the previous metric definitions, for before/after ------------------------------------------------------------

_WS = re.compile(r"\s+")


def _old_normalise(text: str) -> str:
    return _WS.sub("", unicodedata.normalize("NFKC", text or "")).casefold()


def old_recall(texts: Sequence[str], answers: Sequence[str]) -> bool:
    haystack = _old_normalise("\n".join(texts))
    return any(a and _old_normalise(a) in haystack for a in answers)


# -- running -------------------------------------------------------------------------------------------------------


def _mean(values: Sequence[float | bool | None]) -> float | None:
    present = [float(v) for v in values if v is not None]
    return round(statistics.fmean(present), 4) if present else None


def _cited_documents(answer: str, context, filenames: dict[str, str]) -> list[str]:
    from core.partial_tree import cited_element_ids

    cited = cited_element_ids(answer, context.element_ids)
    return [filenames.get(e.document_id, "") for i in cited if (e := context.get(i)) is not None]


def _checks(question, answer: str, context, filenames: dict[str, str], product_files: set[str]) -> dict:
    """The comparative and entity-grid checks a question's extra fields ask for."""
    extra = question.extra
    out: dict = {}
    if extra.get("row_key") or extra.get("facts"):
        from core.evaluation.metrics import contains_answer

        if extra.get("row_key"):  # the value is in a table row: does the answer say which row?
            out["row_key_named"] = contains_answer(answer, [extra["row_key"]])
        if extra.get("facts"):
            text = "\n".join(e.text for e in context.elements)
            out["all_facts"] = all(contains_answer(text, fact["answers"]) for fact in extra["facts"])
            out["facts_attributed"] = facts_attributed(context, extra["facts"])
            out["facts_answered"] = all(contains_answer(answer, fact["answers"]) for fact in extra["facts"])
    if "table" not in extra and "entity" not in extra:
        return out
    from core.evaluation.answer_checks import states_value, table_answer_right

    if "table" in extra:
        out["table_right"] = table_answer_right(answer, extra["table"], extra.get("pick") or ())
    if "entity" in extra:
        documents = _cited_documents(answer, context, filenames)
        quoted = documents[0] if documents else ""
        out["wrong_entity"] = states_value(answer) and quoted in product_files and quoted != question.document
        out["not_stated_right"] = (not states_value(answer)) if extra.get("not_stated") else None
    return out


def facts_attributed(context, facts: Sequence[dict]) -> bool:
    """Strict attribution per fact: each fact's answer is held by an element of the context under that fact's own
    gold path. A question's one ``gold_path`` names one fact's place; the others' are only checked here."""
    from core.evaluation.metrics import ContextItem, grounded

    items = [ContextItem(e.text, tuple(e.path), e.role, e.category) for e in context.elements]
    return all(grounded(items, fact["answers"], fact["gold_path"]) for fact in facts)


def gold_row_keys(store, questions) -> dict[str, str]:
    """Per question whose gold element is a table row (a row under its gold path, of its document, holding a
    gold answer) and that names no ``row_key`` of its own: that row's key, its first cell. A question whose answer
    is a row's key has none: the row is the answer, and another row that only holds the value in a cell
    ("Display P3 · Gamut: DCI-P3 98%" for "DCI-P3") is not the row asked about."""
    from core.elements import row_cells
    from core.evaluation.metrics import contains_answer

    documents = store.documents()
    rows_of: dict[str, list] = {}
    out: dict[str, str] = {}
    for question in questions:
        if question.extra.get("row_key") or not question.document or not question.answers:
            continue
        wanted = question.document.replace("\\", "/")
        matching = [d for d in documents if d.source.replace("\\", "/").endswith(wanted)]
        if not matching:
            continue
        document_id = matching[0].document_id
        if document_id not in rows_of:
            rows_of[document_id] = [e for e in store.elements(document_id) if e.category == "TableRow"]
        gold_path = tuple(question.gold_path or ())
        holding = [cells[0][1] for row in rows_of[document_id]
                   if (not gold_path or tuple(row.heading_path[-len(gold_path):]) == gold_path)
                   and contains_answer(row.text, question.answers) and (cells := row_cells(row.text)) and cells[0][1]]
        if any(contains_answer(key, question.answers) for key in holding):
            continue  # a row's key is itself the answer ("which mode uses gamma 2.6?" → "DCI-P3"): no key to name
        keys = holding
        # of several rows holding the value, the gold one is the row the question names
        named = [key for key in keys if contains_answer(question.question, [key])]
        if len(keys) == 1 or len(named) == 1:
            out[question.id] = keys[0] if len(keys) == 1 else named[0]
    return out


def evaluate_set(store, questions, modes: Sequence[str], k: int) -> dict[str, dict]:
    from core.answering import ExtractiveAnswerer
    from core.evaluation import ModeRunner
    from core.evaluation.metrics import (
        ContextItem,
        answer_match,
        contains_answer,
        headings_present,
        strict_attribution,
    )

    runner = ModeRunner(store, modes, k=k, build_contextual=True)  # its own scratch collections: build their index
    answerer = ExtractiveAnswerer()
    filenames = {d.document_id: d.filename for d in store.documents()}
    product_files = {q.document for q in questions if "entity" in q.extra and q.document}
    rows: dict[str, list[dict]] = {m: [] for m in runner.modes}
    row_keys = gold_row_keys(store, questions)
    for question in questions:
        for mode, retrieval in runner.run(question.question).items():
            context = retrieval.context
            items = [ContextItem(e.text, tuple(e.path), e.role, e.category) for e in context.elements]
            answer = answerer.complete(question.question, context)
            evidence = answerer.evidence(question.question, context)
            quoted = evidence[0].excerpt if evidence else ""
            answers = question.answers
            rows[mode].append({
                "id": question.id,
                "recall": contains_answer("\n".join(i.text for i in items), answers) if answers else None,
                "attribution": strict_attribution(items, answers, question.gold_path, question.gold_element),
                "answer_contains": contains_answer(answer, answers) if answers else None,
                "answer_exact": answer_match(quoted, answers)[0] if answers else None,
                "tokens": context.tokens,
                "old_recall": old_recall([i.text for i in items], answers) if answers else None,
                "old_attribution": headings_present(items, question.gold_path),
                "latency_ms": retrieval.latency_ms,
                "search_ms": retrieval.timings.get("search", 0.0),
                "answer": answer,
                "split": question.extra.get("split"),
                **_checks(question, answer, context, filenames, product_files),
            })
            if question.id in row_keys:  # the value is in a table row: does the answer say which row?
                rows[mode][-1]["row_key_named"] = contains_answer(answer, [row_keys[question.id]])
    out = {}
    for mode, mode_rows in rows.items():
        out[mode] = {"aggregate": _aggregate(mode_rows), "rows": mode_rows}
        for half in ("tune", "held_out"):
            half_rows = [r for r in mode_rows if r.get("split") == half]
            if half_rows:
                out[mode][half] = _aggregate(half_rows)
    return out


def _aggregate(mode_rows: list[dict]) -> dict[str, float | int | None]:
    from core.evaluation.metrics import percentile

    agg: dict[str, float | int | None] = {"n": len(mode_rows)}
    for column in ("recall", "attribution", "answer_contains", "answer_exact", "old_recall", "old_attribution"):
        agg[column] = _mean([r[column] for r in mode_rows])
    agg["tokens"] = round(statistics.fmean(r["tokens"] for r in mode_rows), 1) if mode_rows else None
    for column in ("search_ms", "latency_ms"):
        p50 = percentile([r[column] for r in mode_rows], 50)
        agg[f"{column}_p50"] = None if p50 is None else round(p50, 1)
    if any("row_key_named" in r for r in mode_rows):
        agg["row_key_named"] = _mean([r.get("row_key_named") for r in mode_rows])
    if any("table_right" in r for r in mode_rows):
        agg["table_right"] = _mean([r.get("table_right") for r in mode_rows])
    for column in ("all_facts", "facts_attributed", "facts_answered"):
        if any(column in r for r in mode_rows):
            agg[column] = _mean([r.get(column) for r in mode_rows])
    if any("wrong_entity" in r for r in mode_rows):
        agg["wrong_entity"] = sum(bool(r.get("wrong_entity")) for r in mode_rows)
        agg["not_stated_right"] = _mean([r.get("not_stated_right") for r in mode_rows])
    return agg


def table(title: str, results: dict[str, dict]) -> str:
    columns = COLUMNS + tuple(c for c in EXTRA_COLUMNS if any(c in r["aggregate"] for r in results.values()))
    lines = [title, f"{'mode':<22}" + "".join(f"{c:>17}" for c in columns)]
    for mode, result in results.items():
        for label, agg in [(mode, result["aggregate"])] + [(f"{mode}/{h}", result[h]) for h in ("tune", "held_out")
                                                          if h in result]:
            lines.append(f"{label:<22}" + "".join(f"{'-' if agg.get(c) is None else agg.get(c):>17}"
                                                  for c in columns))
    return "\n".join(lines)


def write_sets(names: Sequence[str]) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    from core.evaluation import save_questions

    for name in names:
        spec = SETS[name]
        if spec.questions is not None:
            continue
        questions = load_set(spec)
        path = OUT / f"questions-{name}.json"
        save_questions(questions, path)
        print(f"wrote {path} ({len(questions)} questions)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--k", type=int, default=4)
    parser.add_argument("--sets", default=",".join(SETS), help=f"comma-separated, from {', '.join(SETS)}")
    parser.add_argument("--modes", default=None,
                        help="comma-separated evaluation modes (default: every mode of core.evaluation.modes)")
    parser.add_argument("--label", default="", help="a label stored with the results (e.g. before/after)")
    parser.add_argument("--embeddings", default="use", choices=("use", "e5"),
                        help="the offline embedder (the defaults' tuning was chosen with use)")
    parser.add_argument("--write-sets", action="store_true", help="only write the generated question sets")
    args = parser.parse_args()
    names = [s.strip() for s in args.sets.split(",") if s.strip()]
    unknown = [s for s in names if s not in SETS]
    if unknown:
        parser.error(f"unknown set(s) {', '.join(unknown)}; choose from {', '.join(SETS)}")
    if args.write_sets:
        write_sets(names)
        return
    started = time.perf_counter()
    url = scratch_database()  # before core reads its settings: the scratch data directory must be in them
    from core.evaluation.modes import ALL_MODES, parse_modes

    try:
        modes = list(parse_modes(args.modes) if args.modes else ALL_MODES)
    except ValueError as exc:
        remove_scratch_database()
        parser.error(str(exc))
    try:
        out = run_all(url, names, modes, args.k, args.embeddings)
    finally:
        remove_scratch_database()
    out["label"] = args.label
    out["seconds"] = round(time.perf_counter() - started, 1)
    suffix = f"-{args.label}" if args.label else ""
    path = write_result(f"eval{suffix}", out)
    print(f"\nwrote {path} in {out['seconds']} s")


def run_all(url: str, names: Sequence[str], modes: Sequence[str], k: int, embedder: str = "use") -> dict:
    from core.embeddings import make_embeddings
    from core.ingest import ingest_paths
    from core.store import ElementStore

    embeddings = make_embeddings(embedder)
    out: dict = {"environment": {"python": platform.python_version(), "cpus": os.cpu_count(),
                                 "embedder": str(embeddings.info), "answerer": "extractive (no LLM)", "k": k},
                 "sets": {}}
    for name in names:
        spec = SETS[name]
        questions = load_set(spec)
        store = ElementStore(url, f"bench_{(spec.collection or name).replace('-', '_')}", embeddings)
        t0 = time.perf_counter()
        # a corpus already ingested is skipped (same content hashes)
        report = ingest_paths(store, [spec.corpus, *(CORPORA / name for name in spec.more)])
        ingest_s = round(time.perf_counter() - t0, 1)
        t0 = time.perf_counter()
        results = evaluate_set(store, questions.questions, modes, k)
        seconds = round(time.perf_counter() - t0, 1)
        out["sets"][name] = {"questions": len(questions), "documents": report.documents, "elements": report.elements,
                             "ingest_s": ingest_s, "seconds": seconds, "description": questions.description,
                             "modes": results}
        print(table(f"\n== {name}: {len(questions)} questions, {report.elements} elements, k={k} ({seconds} s)",
                    results), flush=True)
    summary = {}
    for name, s in out["sets"].items():
        summary[name] = {mode: r["aggregate"] for mode, r in s["modes"].items()}
        for half in ("tune", "held_out"):
            halves = {mode: r[half] for mode, r in s["modes"].items() if half in r}
            if halves:
                summary[f"{name}/{half}"] = halves
    out["summary"] = summary
    print("\n" + json.dumps(summary, indent=1))
    return out


if __name__ == "__main__":
    main()
