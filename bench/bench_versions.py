#!/usr/bin/env python3
"""Versions and time (issue 20): every target of the issue measured side by side in one run.

===========================================  =====================================================================
row                                          how
===========================================  =====================================================================
identical re-ingest                          every corpus below ingested again as it is: versions made, texts embedded
one item edited in a 100-element document    a fee schedule (title, heading, 98 items), one item's number changed:
                                             versions made, texts embedded, element rows the new version wrote
as-of answers                                the legal ordinance (ko + en, v1..v4 dated by front matter) and the
                                             docs of seven Python-Markdown releases (dated by PyPI upload):
                                             each as-of question's hits, plain and hierarchical contexts hold only
                                             elements of the version valid at D (by the store's layout *and* by
                                             parsing the file that was valid at D), and the gold answer is there
diff op type and identity F1                 the edit suite (tests/helpers_versions.edit_suite_scores)
diff of a 500-element document               bench/bench_diff.synthetic (506 elements)
as-of search latency                         synthetic documents with 10 versions each: retrieve() current-only,
                                             as of a date mid-history and after the last version, interleaved
storage                                      bytes per version (store.read.storage) next to the elements changed
"between R1 and R2" (--between)              the docs/html of 8 pip releases (dated by their NEWS.rst): "What
                                             changed [in the S docs] between D1 and D2?" per adjacent pair and 3
                                             spans; recall / precision of element changes and file arrivals /
                                             removals against the two releases' files parsed on their own
release snapshots (``--snapshots``)          five pymdown-extensions releases (``fetch_corpora.py
                                             --snapshot-releases``, dated by their sdists) copied one after the other
                                             over one folder and ingested with ``--snapshot``: every page dropped in
                                             release R read as of R, midway to the next release and in 2100 (store
                                             reads and retrieval of its title: target never served), and the moves
                                             linked against the gold pairs: a page gone in R and a page new in R
                                             whose parsed elements' exact texts overlap >= 50% of the larger
===========================================  =====================================================================

Real embeddings (USE) for the as-of answers; the deterministic hash embedder for the synthetic latency corpus
(its vectors do not change what the statements cost). Python-Markdown's releases come from
``python bench/fetch_corpora.py --corpus python-markdown --releases`` (fetched when missing).
Writes ``bench/out/versions.json``.

Run: .venv/bin/python bench/bench_versions.py [--docs 40] [--versions 10] [--questions 60]
     .venv/bin/python bench/bench_versions.py --hardening   (issue 28's date rows only: bench/_hardening.py)
     .venv/bin/python bench/bench_versions.py --between   (that row alone, hash embedder, ~2 min)
     .venv/bin/python bench/bench_versions.py --snapshots   # the release snapshots alone (hash embedder)
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
from _common import CORPORA, ROOT, scratch_database, write_result
from _synthetic import remove_scratch_database, synthetic_questions, vocabulary

RELEASES = CORPORA / "python-markdown-releases"
LEGAL = ROOT / "data" / "versions" / "legal"
PYMD_GOLD = ROOT / "data" / "versions" / "python-markdown-gold.json"


def _load() -> float:
    return round(os.getloadavg()[0], 2)


def _day(text: str) -> datetime:
    from core.versions import parse_date

    return parse_date(text)[0]


# -- the corpora as dated files -------------------------------------------------------------------------------------

# A corpus: per file name, its dated contents oldest first (None: the file is gone from that date on).
History = dict[str, list[tuple[datetime, bytes | None]]]


def legal_history() -> History:
    gold = json.loads((LEGAL / "gold.json").read_text(encoding="utf-8"))
    out: History = {}
    for lang, pattern in gold["files"].items():
        out[f"{lang}/library-ordinance.md"] = [(_day(day), (LEGAL / pattern.format(version=v)).read_bytes())
                                               for v, day in gold["versions"].items()]
    return out


def release_folders_history(root: Path, fetch_flag: str) -> tuple[History, dict[str, str]]:
    """Each file's versions over the release folders under ``root`` (fetched with ``fetch_corpora.py --corpus
    python-markdown FETCH_FLAG`` when missing), dated by ``releases.json``: a version per release that changed it,
    ``None`` where a release dropped it; and {release: date}."""
    if not (root / "releases.json").is_file():
        subprocess.run([sys.executable, str(ROOT / "bench" / "fetch_corpora.py"), "--corpus", "python-markdown",
                        fetch_flag], check=True)
    dates = json.loads((root / "releases.json").read_text(encoding="utf-8"))
    names = sorted({p.relative_to(root / v).as_posix() for v in dates for p in (root / v).rglob("*.md")})
    out: History = {}
    for name in names:
        entries: list[tuple[datetime, bytes | None]] = []
        for v, day in dates.items():
            path = root / v / name
            data = path.read_bytes() if path.is_file() else None
            if (entries and entries[-1][1] == data) or (not entries and data is None):
                continue
            entries.append((_day(day), data))
        out[name] = entries
    return out, dates


def releases_history() -> tuple[History, dict[str, str]]:
    return release_folders_history(RELEASES, "--releases")


def ingest_history(store, history: History, *, explicit_dates: bool) -> dict[str, object]:
    """Ingest each dated state of every file in date order: a file that is gone is retired on that date."""
    from core.ingest import SourceFile, ingest
    from core.ingest.pipeline import document_id_for

    moments = sorted({day for entries in history.values() for day, _ in entries})
    embedded = versions = 0
    t0 = time.perf_counter()
    for day in moments:
        sources = [SourceFile(name, data) for name, entries in history.items() for d, data in entries
                   if d == day and data is not None]
        report = ingest(store, sources, valid_from=day.date().isoformat() if explicit_dates else None)
        if report.errors:
            raise RuntimeError(report.errors)
        embedded += report.texts_embedded
        versions += report.added + report.replaced
        for name, entries in history.items():
            if any(d == day and data is None for d, data in entries):
                store.write.remove_document(document_id_for(store.collection, f"upload:{name}"), when=day)
    return {"moments": len(moments), "versions": versions, "texts_embedded": embedded,
            "seconds": round(time.perf_counter() - t0, 1)}


def reingest_latest(store, history: History) -> dict[str, int]:
    """The latest state of every file, ingested again as it is."""
    from core.ingest import SourceFile, ingest

    sources = [SourceFile(name, entries[-1][1]) for name, entries in history.items() if entries[-1][1] is not None]
    before = sum(len(store.read.versions(d.document_id)) for d in store.documents())
    report = ingest(store, sources)
    after = sum(len(store.read.versions(d.document_id)) for d in store.documents())
    return {"files": len(sources), "versions_made": after - before, "texts_embedded": report.texts_embedded}


# -- as-of questions ------------------------------------------------------------------------------------------------


def legal_questions() -> list[dict]:
    gold = json.loads((LEGAL / "gold.json").read_text(encoding="utf-8"))
    return [{**q, "set": f"legal-{lang}", "absent": [q["absent"]] if q.get("absent") else []}
            for lang, qs in gold["as_of"].items() for q in qs]


def releases_questions(dates: dict[str, str]) -> list[dict]:
    """From each gold change of data/versions/python-markdown-gold.json, the changelog's sentence asked as of the
    later release's date and as of the day before it; the fact's text is expected where that version holds it."""
    gold = json.loads(PYMD_GOLD.read_text(encoding="utf-8"))
    out = []
    for pair, facts in gold["pairs"].items():
        before, after = pair.split("->")
        for fact in facts:
            text, op = fact["text"], fact["op"]
            on = dates[after]
            out.append({"set": "python-markdown", "question": fact["changelog"], "date": on,
                        "answer": None if op == "removed" else text, "absent": [text] if op == "removed" else [],
                        "version": after})
            day_before = (_day(on) - timedelta(days=1)).date().isoformat()
            out.append({"set": "python-markdown", "question": fact["changelog"], "date": day_before,
                        "answer": text if op == "removed" else None, "absent": [text] if op == "added" else [],
                        "version": before})
    return out


def _valid_at(entries: list[tuple[datetime, bytes | None]], when: datetime) -> bytes | None:
    from core.versions import version_as_of

    return version_as_of(entries, when)


def check_question(store, question: dict, history: History) -> dict:
    """One as-of question: are all its hits' and contexts' elements of the version valid at D, and is the gold
    answer there (and the superseded text not)?"""
    from core.ingest.parsing import content_hash, parse_source
    from core.ingest.pipeline import document_id_for
    from core.retrieval import QuestionError, RetrievalRequest, retrieve

    when = _day(question["date"]) if len(question["date"]) == 10 else datetime.fromisoformat(
        question["date"].replace("Z", "+00:00"))
    row = {"set": question["set"], "question": question["question"], "date": question["date"]}
    try:
        got = retrieve(store, RetrievalRequest(question["question"], k=4, as_of=when))
    except QuestionError as exc:
        row.update(refused=True, from_valid_version=question["version"] is None, answer_found=None,
                   superseded_shown=0, reason=str(exc))
        return row
    by_doc = {document_id_for(store.collection, f"upload:{name}"): (name, entries) for name, entries in history.items()}
    expected_ids: dict[str, set[str] | None] = {}
    wrong_version = 0
    for doc_id, version in got.versions.items():
        name, entries = by_doc[doc_id]
        data = _valid_at(entries, when)
        if data is None or version.content_hash != content_hash(data, "markdown-it", False):
            wrong_version += 1
            expected_ids[doc_id] = None
            continue
        layout = store.read.layout(doc_id, version.version)
        parsed = {d.metadata["element_id"] for d in parse_source(data, name=name, source=name, document_id=doc_id)[0]}
        expected_ids[doc_id] = set(layout.element_ids) & parsed if layout else None
    shown = [(h.element.document_id, h.element_id) for h in got.hits]
    for context in (got.plain, got.hierarchical):
        shown += [(e.document_id, e.element_id) for e in context.elements]
    outside = sum(1 for doc_id, element_id in shown if element_id not in (expected_ids.get(doc_id) or set()))
    texts = got.plain.text + "\n" + got.hierarchical.text
    answer = question.get("answer")
    row.update(refused=False, versions={d: v.version for d, v in got.versions.items()},
               elements_checked=len(shown), elements_outside=outside, wrong_version_docs=wrong_version,
               from_valid_version=outside == 0 and wrong_version == 0 and question["version"] is not None,
               answer_found=None if answer is None else answer in got.hierarchical.text,
               answer_found_plain=None if answer is None else answer in got.plain.text,
               superseded_shown=sum(1 for a in question["absent"] if a in texts))
    return row


def as_of_answers(store, history: History, questions: list[dict]) -> dict:
    rows = [check_question(store, q, history) for q in questions]
    answered = [r for r in rows if r["answer_found"] is not None]
    return {"questions": len(rows),
            "from_valid_version": sum(r["from_valid_version"] for r in rows),
            "elements_checked": sum(r.get("elements_checked", 0) for r in rows),
            "elements_outside_valid_version": sum(r.get("elements_outside", 0) for r in rows),
            "superseded_text_shown": sum(r["superseded_shown"] for r in rows),
            "answer_found": f"{sum(bool(r['answer_found']) for r in answered)}/{len(answered)}",
            "answer_found_plain": f"{sum(bool(r.get('answer_found_plain')) for r in answered)}/{len(answered)}",
            "rows": rows}


# -- release snapshots -----------------------------------------------------------------------------------------------

SNAPSHOT_RELEASES = CORPORA / "pymdown-extensions-releases"


def _exact_share(old: list, new: list) -> float:
    """The gold's measure, independent of core.versions' matching: the share of elements (over the larger side)
    whose category and whitespace-collapsed text occur on both sides, counted as multisets."""
    from collections import Counter

    def texts(elements: list) -> Counter:
        return Counter((e.metadata["category"], " ".join(e.page_content.split())) for e in elements)

    if not old or not new:
        return 0.0
    return sum((texts(old) & texts(new)).values()) / max(len(old), len(new))


def release_snapshots(url: str, *, snapshot: bool = True) -> dict:
    """Each release copied over one folder and ingested as a snapshot at its date (``snapshot=False``: a plain
    ingest at that date, as before snapshots); the dropped pages read as of later dates, and the moves linked
    against the gold pairs."""
    import shutil
    import tempfile
    from pathlib import Path

    from core.ingest import IngestError, ingest_paths, parse_source
    from core.ingest.pipeline import document_id_for
    from core.retrieval import QuestionError, RetrievalRequest, retrieve
    from core.store import ElementStore
    from tests.helpers_embeddings import HashEmbeddings

    if not (SNAPSHOT_RELEASES / "releases.json").is_file():
        subprocess.run([sys.executable, str(ROOT / "bench" / "fetch_corpora.py"), "--corpus", "pymdown-extensions",
                        "--snapshot-releases"], check=True)
    dates = json.loads((SNAPSHOT_RELEASES / "releases.json").read_text(encoding="utf-8"))
    store = ElementStore(url, f"bench_versions_{'snapshots' if snapshot else 'plain'}", HashEmbeddings())
    work = Path(tempfile.mkdtemp(prefix="hke-snap-")) / "docs"

    def pages(version: str) -> dict[str, bytes]:
        root = SNAPSHOT_RELEASES / version
        return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*.md"))
                if not any(part.startswith(".") for part in p.relative_to(root).parts)}

    def doc_id(name: str) -> str:
        return document_id_for(store.collection, str((work / name).resolve()))

    def parsed(name: str, data: bytes) -> list:
        try:
            return parse_source(data, name=name, source=name, document_id=doc_id(name))[0]
        except IngestError:  # a page with no content (link definitions only): refused, never stored
            return []

    versions = list(dates)
    ingests, dropped, gold_moves = [], [], set()
    previous: dict[str, bytes] = {}
    started = time.perf_counter()
    for n, version in enumerate(versions):
        files = pages(version)
        if work.exists():
            shutil.rmtree(work)
        for name, data in files.items():
            (work / name).parent.mkdir(parents=True, exist_ok=True)
            (work / name).write_bytes(data)
        t0 = time.perf_counter()
        report = ingest_paths(store, [work], snapshot=snapshot, valid_from=dates[version], label=version)
        ingests.append({"release": version, "date": dates[version], "files": len(files), "added": report.added,
                        "replaced": report.replaced, "unchanged": report.unchanged, "errors": report.errors,
                        "retired": len(report.retired), "seconds": round(time.perf_counter() - t0, 2)})
        gone, new = sorted(set(previous) - set(files)), sorted(set(files) - set(previous)) if n else []
        until = dates[versions[n + 1]] if n + 1 < len(versions) else None
        dropped += [(name, version, dates[version], until, previous[name]) for name in gone
                    if store.read.last_version(doc_id(name)) is not None]
        for old_name in gone:
            old = parsed(old_name, previous[old_name])
            for new_name in new:
                if _exact_share(old, parsed(new_name, files[new_name])) >= 0.5:
                    gold_moves.add((old_name, new_name))
        previous = files
    ingest_seconds = round(time.perf_counter() - started, 1)

    served_rows = []
    for name, version, day, until, data in dropped:
        doc = doc_id(name)
        title = next((e.page_content for e in parsed(name, data) if e.metadata["category"] == "Title"), name)
        start = _day(day)
        later = [start, start + (((_day(until) - start) / 2) if until else timedelta(days=180)), _day("2100-01-01")]
        for when in later:
            reads = bool(store.as_of(when).elements(doc)) or doc in {v.document_id for v in
                                                                     store.read.versions_at(when)}
            try:
                got = retrieve(store, RetrievalRequest(title, k=8, as_of=when))
                hits = doc in got.versions or any(h.element.document_id == doc for h in got.hits)
            except QuestionError:
                hits = False
            served_rows.append({"page": name, "dropped_in": version, "as_of": when.date().isoformat(),
                                "store_read": reads, "retrieved": hits})
    linked = set()
    names = {doc_id(n): n for v in versions for n in pages(v)}
    for d, _source, _name, _retired in store.read.versioned_documents():
        first = store.read.versions(d)[0]
        if first.moved_from:
            linked.add((names.get(first.moved_from, first.moved_from), names.get(d, d)))
    return {"releases": ingests, "ingest_seconds": ingest_seconds,
            "dropped_pages": len(dropped), "dropped_reads": len(served_rows),
            "dropped_served": sum(r["store_read"] or r["retrieved"] for r in served_rows),
            "moves_gold": len(gold_moves), "moves_linked_of_gold": len(gold_moves & linked),
            "moves_linked_outside_gold": sorted(map(list, linked - gold_moves)),
            "moves_missed": sorted(map(list, gold_moves - linked)), "moves_gold_pairs": sorted(map(list, gold_moves)),
            "orphans": store.read.orphans().total, "rows": served_rows}


# -- one edited item ------------------------------------------------------------------------------------------------

ITEMS = [f"* Rule {i}: the fee for item {i} is {10 + i} won." for i in range(98)]
FEES_V1 = "# Fee schedule\n\n## Items\n\n" + "\n".join(ITEMS) + "\n"
FEES_V2 = FEES_V1.replace("the fee for item 41 is 51 won.", "the fee for item 41 is 999 won.")


def one_edit(store) -> dict:
    from core.ingest import SourceFile, ingest

    first = ingest(store, [SourceFile("fees.md", FEES_V1.encode())], valid_from="2024-01-01")
    doc_id = store.documents()[0].document_id
    same = ingest(store, [SourceFile("fees.md", FEES_V1.encode())], valid_from="2024-02-01")
    after_same = len(store.read.versions(doc_id))
    edited = ingest(store, [SourceFile("fees.md", FEES_V2.encode())], valid_from="2024-03-01")
    versions = store.read.versions(doc_id)
    written = sum(1 for e in store.elements(doc_id) if e.since_version == versions[-1].version)
    return {"elements": first.elements, "identical_versions_made": after_same - 1,
            "identical_texts_embedded": same.texts_embedded, "edit_versions_made": len(versions) - after_same,
            "edit_texts_embedded": edited.texts_embedded, "edit_element_rows_written": written,
            "edit_ops": {"modified": versions[-1].modified, "added": versions[-1].added,
                         "removed": versions[-1].removed}}


# -- the synthetic versioned corpus: latency and storage ------------------------------------------------------------


def synthetic_markdown(doc_no: int, rng: np.random.Generator) -> list[str]:
    """One document as lines of markdown: a title, sections of `key : value` items (100-200 elements)."""
    vocab = vocabulary()

    def words(n: int) -> str:
        return " ".join(vocab.draw(rng, n))

    lines = [f"# Product P{doc_no} {words(3)}", ""]
    n_elements, target = 1, int(rng.integers(100, 201))
    section = 0
    while n_elements < target:
        section += 1
        lines += [f"## {section}. {words(2).title()}", ""]
        n_elements += 1
        for _ in range(min(int(rng.integers(6, 16)), target - n_elements)):
            lines.append(f"- {words(2)} : {int(rng.integers(1, 999))} {words(1)}")
            n_elements += 1
        lines.append("")
    return lines


def edit_items(lines: list[str], rng: np.random.Generator, n: int) -> list[str]:
    """``n`` items get another value (what an amendment of a spec sheet does)."""
    out = list(lines)
    items = [i for i, line in enumerate(out) if line.startswith("- ")]
    for i in rng.choice(items, size=min(n, len(items)), replace=False):
        key = out[i].split(" : ")[0]
        out[i] = f"{key} : {int(rng.integers(1000, 99999))} revised"
    return out


def build_versioned(store, docs: int, versions: int, edits: int) -> dict:
    """``docs`` documents, ``versions`` dated versions each (each editing ``edits`` items); the storage of each
    version round next to the elements it changed."""
    from core.ingest import SourceFile, ingest

    rng = np.random.default_rng(20)
    texts = {f"p{d:03d}.md": synthetic_markdown(d, rng) for d in range(docs)}
    start = datetime(2020, 1, 1, tzinfo=UTC)
    dates = [start + timedelta(days=90 * v) for v in range(versions)]
    rounds = []
    t0 = time.perf_counter()
    for v, day in enumerate(dates):
        if v:
            texts = {name: edit_items(lines, rng, edits) for name, lines in texts.items()}
        report = ingest(store, [SourceFile(name, "\n".join(lines).encode()) for name, lines in texts.items()],
                        valid_from=day.date().isoformat())
        if report.errors:
            raise RuntimeError(report.errors)
        rounds.append({"version": v + 1, "texts_embedded": report.texts_embedded, **_storage(store)})
    seconds = time.perf_counter() - t0
    for prev, cur in zip(rounds, rounds[1:], strict=False):
        for part in ("bytes", "element_rows", "version_rows"):
            cur[f"{part}_added"] = cur[part] - prev[part]
        cur["blocks_added"] = cur["source_blocks"] - prev["source_blocks"]
    again = reingest_latest(store, {name: [(dates[-1], "\n".join(lines).encode())] for name, lines in texts.items()})
    first = rounds[0]
    later = rounds[1:]
    changed = sum(r["changed_elements"] for r in later)
    elements = store.stats().elements
    return {"documents": docs, "versions_per_document": versions, "edits_per_version": edits,
            "elements_current": elements, "seconds": round(seconds, 1), "dates": [d.isoformat() for d in dates],
            "identical_reingest": again,
            "storage": {"first_version_bytes": first["bytes"], "first_version_bytes_per_element":
                        round(first["bytes"] / max(1, first["elements"]), 1),
                        "later_versions_bytes_per_version": round(statistics.fmean(r["bytes_added"] for r in later)),
                        "later_versions_changed_per_version": round(changed / len(later), 1),
                        "later_versions_bytes_per_changed_element": round(
                            sum(r["bytes_added"] for r in later) / max(1, changed), 1),
                        "later_versions_element_row_bytes_per_changed_element": round(
                            sum(r["element_rows_added"] for r in later) / max(1, changed), 1),
                        "later_versions_version_row_bytes_per_version": round(
                            statistics.fmean(r["version_rows_added"] for r in later)),
                        "later_versions_share_of_first": round(
                            statistics.fmean(r["bytes_added"] for r in later) / first["bytes"], 4),
                        "source_blocks_first": first["source_blocks"],
                        "source_blocks_per_later_version": round(statistics.fmean(r["blocks_added"] for r in later)),
                        "rounds": rounds}}


def _storage(store) -> dict[str, int]:
    """Bytes of every document's rows (current, history, versions) and of the collection's source blocks."""
    rows = layouts = blocks = changed = elements = 0
    for record in store.documents():
        parts = store.read.storage(record.document_id)
        rows += parts["current_rows"] + parts["history_rows"]
        layouts += parts["version_rows"]
        blocks = parts["source_blocks"]  # the collection's, the same for every document
        last = store.read.versions(record.document_id)[-1]
        changed += last.added + last.removed + last.modified + last.moved + last.renamed
        elements += last.n_elements
    return {"bytes": rows + layouts, "element_rows": rows, "version_rows": layouts, "source_blocks": blocks,
            "changed_elements": changed, "elements": elements}


def analyze(store) -> None:
    with store.pool.connection() as conn:
        for table in ("{elements}", "{history}", "hke_document_versions"):
            conn.execute(store.statement(f"ANALYZE {table}"))


def latency(store, dates: list[str], questions: int) -> dict:
    """retrieve() current-only and as of two dates, interleaved (each question asked in all three, the order
    rotating), after one warm-up round."""
    from core.retrieval import RetrievalRequest, retrieve

    first, last = datetime.fromisoformat(dates[0]), datetime.fromisoformat(dates[-1])
    modes = {"current": None, "as_of_mid": first + (last - first) / 2 + timedelta(days=1),
             "as_of_after_last": last + timedelta(days=30)}
    asked = synthetic_questions(questions, products=40)
    for when in modes.values():
        retrieve(store, RetrievalRequest(asked[0], k=4, as_of=when))
    times: dict[str, list[float]] = {m: [] for m in modes}
    stages: dict[str, dict[str, list[float]]] = {m: {} for m in modes}
    names = list(modes)
    for i, question in enumerate(asked):
        for mode in names[i % 3:] + names[:i % 3]:
            t0 = time.perf_counter()
            got = retrieve(store, RetrievalRequest(question, k=4, as_of=modes[mode]))
            times[mode].append((time.perf_counter() - t0) * 1000)
            for stage, ms in got.timings.items():
                stages[mode].setdefault(stage, []).append(ms)
    out: dict[str, object] = {"questions": questions, "dates": {m: (w.isoformat() if w else None)
                                                                for m, w in modes.items()}}
    for mode in modes:
        out[mode] = {"p50_ms": round(float(np.percentile(times[mode], 50)), 1),
                     "p95_ms": round(float(np.percentile(times[mode], 95)), 1),
                     "stages_p50_ms": {s: round(float(np.percentile(v, 50)), 2) for s, v in stages[mode].items()}}
    for mode in ("as_of_mid", "as_of_after_last"):
        out[f"{mode}_ratio_p50"] = round(out[mode]["p50_ms"] / out["current"]["p50_ms"], 2)
        out[f"{mode}_ratio_p95"] = round(out[mode]["p95_ms"] / out["current"]["p95_ms"], 2)
    return out


# -- the run --------------------------------------------------------------------------------------------------------


# -- "what changed between R1 and R2" over pip's releases -------------------------------------------------------------

PIP_RELEASES = CORPORA / "pip-releases"
# Release pairs asked about: each release against the next, and three spans over several releases.
SPANS = (("23.0", "23.3"), ("23.3", "24.3"), ("23.0", "24.3"))
# Subjects asked about over every adjacent pair ("What changed in the configuration docs between D1 and D2?"): the
# gold keeps the files whose path holds the word.
SUBJECTS = ("configuration", "installation", "caching")


def pip_history() -> tuple[History, dict[str, str]]:
    return release_folders_history(PIP_RELEASES, "--pip-releases")


def _texts(data: bytes, name: str) -> list[str]:
    from core.markdown_loader import parse_markdown

    docs = parse_markdown(data.decode("utf-8"), source=name, document_id="gold")
    return [" ".join(d.page_content.split()) for d in docs]


def between_gold(history: History, day1: datetime, day2: datetime) -> tuple[Counter, Counter]:
    """What changed from the release in force at ``day1`` to the one at ``day2``, from the two releases' files
    parsed on their own: per file the element texts lost (``-``) and gained (``+``), as multisets, and the files
    that appear (``doc+``) or go (``doc-``)."""
    elements: Counter = Counter()
    documents: Counter = Counter()
    for name, entries in history.items():
        old, new = _valid_at(entries, day1), _valid_at(entries, day2)
        if old == new:
            continue
        if old is None or new is None:
            documents[("doc+" if old is None else "doc-", name)] += 1
            continue
        before, after = Counter(_texts(old, name)), Counter(_texts(new, name))
        elements.update({("-", name, t): n for t, n in (before - after).items()})
        elements.update({("+", name, t): n for t, n in (after - before).items()})
    return elements, documents


def answer_units(changes: list) -> tuple[Counter, Counter]:
    """The same units read from an answer's changes (only fields every version of the answer has)."""
    elements: Counter = Counter()
    documents: Counter = Counter()
    for item in changes:
        c = item.change
        name = item.source.removeprefix("upload:")
        if c.category == "Document":
            documents[("doc+" if c.op == "added" else "doc-", name)] += 1
            continue
        before = " ".join((c.before or "").split())
        after = " ".join((c.after or "").split())
        if c.op in ("removed", "modified", "renamed", "moved") and c.before is not None and before != after:
            elements[("-", name, before)] += 1
        if c.op in ("added", "modified", "renamed", "moved") and c.after is not None and before != after:
            elements[("+", name, after)] += 1
    return elements, documents


def _scores(found: Counter, gold: Counter) -> dict[str, float | int]:
    hit = sum((found & gold).values())
    return {"found": sum(found.values()), "gold": sum(gold.values()), "hit": hit,
            "recall": round(hit / sum(gold.values()), 3) if gold else 1.0,
            "precision": round(hit / sum(found.values()), 3) if found else 1.0}


def between_answers(store, history: History, dates: dict[str, str]) -> dict:
    """Each pair asked as "What changed between D1 and D2?" (the dates of two releases), scored against the gold
    of :func:`between_gold`; micro-averaged over all pairs."""
    from core.answering.changes import answer_change_question

    releases = list(dates)
    adjacent = list(zip(releases, releases[1:], strict=False))
    asked = [(r1, r2, None) for r1, r2 in [*adjacent, *SPANS]] + [(r1, r2, s) for s in SUBJECTS for r1, r2 in adjacent]
    rows = []
    totals = {"elements": [Counter(), Counter()], "documents": [Counter(), Counter()]}
    for r1, r2, subject in asked:
        about = f" in the {subject} docs" if subject else ""
        question = f"What changed{about} between {dates[r1]} and {dates[r2]}?"
        t0 = time.perf_counter()
        answer = answer_change_question(store, question)
        seconds = time.perf_counter() - t0
        gold_elements, gold_documents = between_gold(history, _day(dates[r1]), _day(dates[r2]))
        if subject:
            gold_elements = Counter({k: n for k, n in gold_elements.items() if subject in k[1]})
            gold_documents = Counter({k: n for k, n in gold_documents.items() if subject in k[1]})
        found_elements, found_documents = answer_units(answer.changes if answer is not None else [])
        for key, found, gold in (("elements", found_elements, gold_elements),
                                 ("documents", found_documents, gold_documents)):
            # tagged by pair so that one pair's hit never counts for another
            totals[key][0].update({(r1, r2, subject, *k): n for k, n in found.items()})
            totals[key][1].update({(r1, r2, subject, *k): n for k, n in gold.items()})
        rows.append({"from": r1, "to": r2, "subject": subject, "question": question, "seconds": round(seconds, 2),
                     "elements": _scores(found_elements, gold_elements),
                     "documents": _scores(found_documents, gold_documents)})
    return {"pairs": rows, "elements": _scores(*totals["elements"]), "documents": _scores(*totals["documents"])}


def between(url: str) -> dict:
    from core.store import ElementStore
    from tests.helpers_embeddings import HashEmbeddings

    os.environ.pop("OPENAI_API_KEY", None)  # the answer from the stored diffs alone
    store = ElementStore(url, "bench_versions_pip", HashEmbeddings())
    history, dates = pip_history()
    ingested = ingest_history(store, history, explicit_dates=True)
    return {"corpus": "pip docs/html", "releases": dates, "ingest": ingested,
            **between_answers(store, history, dates)}


def run(url: str, args: argparse.Namespace) -> dict:
    from bench_diff import synthetic as diff_synthetic

    from core.embeddings import make_embeddings
    from core.store import ElementStore
    from tests.helpers_embeddings import HashEmbeddings
    from tests.helpers_versions import edit_suite_scores

    out: dict = {"load_before": _load()}
    if args.hardening:
        import _hardening

        synthetic = ElementStore(url, "bench_versions_latency", HashEmbeddings())
        build_versioned(synthetic, args.docs, args.versions, args.edits)
        return {**out, "hardening": _hardening.run(url, synthetic), "load_after": _load()}
    if args.between:
        return {**out, "between": between(url), "load_after": _load()}
    if args.snapshots:
        return {**out, "snapshots": release_snapshots(url), "plain_ingest": release_snapshots(url, snapshot=False),
                "load_after": _load()}
    if args.only_latency:
        synthetic = ElementStore(url, "bench_versions_latency", HashEmbeddings())
        built = build_versioned(synthetic, args.docs, args.versions, args.edits)
        analyze(synthetic)
        return {**out, "latency": latency(synthetic, built["dates"], args.questions), "load_after": _load()}
    use = make_embeddings("use")

    store = ElementStore(url, "bench_versions_fees", use)
    out["one_edit"] = one_edit(store)

    legal = ElementStore(url, "bench_versions_legal", use)
    history = legal_history()
    out["legal_ingest"] = ingest_history(legal, history, explicit_dates=False)
    out["legal_as_of"] = as_of_answers(legal, history, legal_questions())
    out["legal_identical_reingest"] = reingest_latest(legal, history)
    out["legal_orphans"] = legal.read.orphans().total

    if not args.skip_releases:
        pymd = ElementStore(url, "bench_versions_pymd", use)
        releases, dates = releases_history()
        out["releases_ingest"] = ingest_history(pymd, releases, explicit_dates=True)
        out["releases_as_of"] = as_of_answers(pymd, releases, releases_questions(dates))
        out["releases_identical_reingest"] = reingest_latest(pymd, releases)
        out["releases_orphans"] = pymd.read.orphans().total

    accuracy, f1, misses = edit_suite_scores()
    out["diff"] = {"op_accuracy": round(accuracy, 4), "identity_f1": round(f1, 4), "misses": misses,
                   "synthetic_500": diff_synthetic(args.diff_runs)}

    synthetic = ElementStore(url, "bench_versions_latency", HashEmbeddings())
    built = build_versioned(synthetic, args.docs, args.versions, args.edits)
    out["versioned_corpus"] = built
    analyze(synthetic)  # the statistics autovacuum gathers within a minute of the load: the plans of a settled table
    out["latency"] = latency(synthetic, built["dates"], args.questions)
    out["load_after"] = _load()
    return out


def table(out: dict) -> str:
    edit, lat, diff = out["one_edit"], out["latency"], out["diff"]
    storage = out["versioned_corpus"]["storage"]
    rows = [("identical re-ingest (fee schedule)", "0 versions, 0 embedded",
             f"{edit['identical_versions_made']} versions, {edit['identical_texts_embedded']} embedded")]
    for name in ("legal", "releases"):
        if f"{name}_identical_reingest" in out:
            r = out[f"{name}_identical_reingest"]
            rows.append((f"identical re-ingest ({name}, {r['files']} files)", "0 versions, 0 embedded",
                         f"{r['versions_made']} versions, {r['texts_embedded']} embedded"))
    r = out["versioned_corpus"]["identical_reingest"]
    rows.append((f"identical re-ingest (synthetic, {r['files']} files)", "0 versions, 0 embedded",
                 f"{r['versions_made']} versions, {r['texts_embedded']} embedded"))
    rows.append(("one item edited, 100-element document", "1 element version, 1 embedded",
                 f"{edit['edit_element_rows_written']} element rows, {edit['edit_texts_embedded']} embedded, "
                 f"{edit['edit_versions_made']} version"))
    for name in ("legal", "releases"):
        if f"{name}_as_of" in out:
            a = out[f"{name}_as_of"]
            rows.append((f"as-of answers ({name}, {a['questions']} questions)", "100% valid version, 0 superseded",
                         f"{a['from_valid_version']}/{a['questions']} valid version "
                         f"({a['elements_checked']} elements, {a['elements_outside_valid_version']} outside), "
                         f"{a['superseded_text_shown']} superseded, answer {a['answer_found']}"))
    rows.append(("diff op type / identity F1 (edit suite)", "100% / >= .95",
                 f"{diff['op_accuracy']:.0%} / {diff['identity_f1']:.3f}"))
    s500 = diff["synthetic_500"]
    rows.append((f"diff of a {s500['elements']}-element document", "< 200 ms",
                 f"p50 {s500['edited']['p50_ms']} ms, max {s500['edited']['max_ms']} ms; "
                 f"rewrite p50 {s500['rewritten']['p50_ms']} ms"))
    rows.append(("as-of search latency, 10 versions/doc", "<= 1.2x current",
                 f"p50 {lat['current']['p50_ms']} / {lat['as_of_mid']['p50_ms']} / "
                 f"{lat['as_of_after_last']['p50_ms']} ms (x{lat['as_of_mid_ratio_p50']}, "
                 f"x{lat['as_of_after_last_ratio_p50']}); p95 x{lat['as_of_mid_ratio_p95']}, "
                 f"x{lat['as_of_after_last_ratio_p95']}"))
    rows.append(("storage per later version", "proportional to changes",
                 f"{storage['later_versions_bytes_per_version']} B/version for "
                 f"{storage['later_versions_changed_per_version']} changed elements: element rows "
                 f"{storage['later_versions_element_row_bytes_per_changed_element']} B per change (first version "
                 f"{storage['first_version_bytes_per_element']} B/element), layouts "
                 f"{storage['later_versions_version_row_bytes_per_version']} B/version; blocks "
                 f"+{storage['source_blocks_per_later_version']} B/version"))
    width = max(len(r[0]) for r in rows)
    return "\n".join(f"{a:<{width}}  {b:<34}  {c}" for a, b, c in rows)


def between_table(result: dict) -> str:
    lines = ["| from | to | subject | element recall | element precision | changes found / gold | "
             "files +/- found / gold |", "| --- | --- | --- | --- | --- | --- | --- |"]
    for r in result["pairs"]:
        e, d = r["elements"], r["documents"]
        lines.append(f"| {r['from']} | {r['to']} | {r.get('subject') or ''} | {e['recall']} | {e['precision']} | "
                     f"{e['found']} / {e['gold']} | {d['found']} / {d['gold']} |")
    e, d = result["elements"], result["documents"]
    lines.append(f"| all | | | {e['recall']} | {e['precision']} | {e['found']} / {e['gold']} | "
                 f"{d['found']} / {d['gold']} (recall {d['recall']}, precision {d['precision']}) |")
    return "\n".join(lines)


def snapshot_table(snap: dict) -> str:
    releases = ", ".join(f"{r['release']} ({r['date']}: +{r['added']} ~{r['replaced']} -{r['retired']})"
                         for r in snap["releases"])
    return "\n".join([
        f"release snapshots: {releases}; {snap['ingest_seconds']} s",
        f"dropped page read as of a later date   target never   {snap['dropped_served']} of {snap['dropped_reads']} "
        f"reads served ({snap['dropped_pages']} pages x 3 dates)",
        f"moves linked (gold: exact share >= 50%)  target all     {snap['moves_linked_of_gold']}/{snap['moves_gold']}; "
        f"outside the gold: {snap['moves_linked_outside_gold']}; missed: {snap['moves_missed']}",
        f"orphans {snap['orphans']}",
    ])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    ap.add_argument("--docs", type=int, default=40, help="synthetic documents for latency and storage")
    ap.add_argument("--versions", type=int, default=10, help="versions of each synthetic document")
    ap.add_argument("--edits", type=int, default=3, help="items each synthetic version edits")
    ap.add_argument("--questions", type=int, default=60, help="questions per mode for latency")
    ap.add_argument("--diff-runs", type=int, default=10)
    ap.add_argument("--skip-releases", action="store_true", help="leave out the Python-Markdown releases")
    ap.add_argument("--only-latency", action="store_true", help="only the as-of latency on the synthetic corpus")
    ap.add_argument("--hardening", action="store_true",
                    help="only the hardening rows (issue 28: dates outside years 1-9999, bench/_hardening.py)")
    ap.add_argument("--between", action="store_true",
                    help='only "what changed between R1 and R2" over pip\'s releases (recall / precision)')
    ap.add_argument("--snapshots", action="store_true",
                    help="only the release snapshots (pymdown-extensions): dropped pages served, moves linked")
    ap.add_argument("--label", default="")
    args = ap.parse_args()
    started = time.perf_counter()
    url = scratch_database()
    try:
        out = run(url, args)
    finally:
        remove_scratch_database()
    out["seconds"] = round(time.perf_counter() - started, 1)
    out["label"] = args.label
    if "hardening" in out:
        import _hardening

        found = _hardening.rows(out["hardening"])
        width = max(len(r[0]) for r in found)
        print("\n".join(f"{a:<{width}}  {b:<34}  {c}" for a, b, c in found))
    elif "between" in out:
        print(between_table(out["between"]))
    elif "snapshots" in out:
        print(snapshot_table(out["snapshots"]))
        print("the same releases ingested without --snapshot:\n" + snapshot_table(out["plain_ingest"]))
    else:
        print(table(out) if "one_edit" in out else json.dumps(
            {m: out["latency"][m] for m in ("current", "as_of_mid", "as_of_after_last")}, indent=1))
    print(f"load {out['load_before']} -> {out['load_after']}, {out['seconds']} s")
    path = write_result(f"versions{'-' + args.label if args.label else ''}", out)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
