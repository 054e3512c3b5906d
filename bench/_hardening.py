"""The hardening rows of bench_versions.py (``--hardening``, issue 28): dates outside years 1 to 9999 (UTC) never
reach the database and a collection keeps answering; one that already holds such dates is repaired when opened.

* hostile dates: front matter (``valid_from``, ``effective``, ``date``) and ``--valid-from`` values whose UTC value
  falls just outside the range, ingested in one batch beside good files; counted: the files refused (each named with
  its reason), the good files stored, and the stored dates outside the range (read in SQL, so psycopg never has to
  hold them);
* reads afterwards: current and as-of retrieval, history, ``changes`` since 0001-01-01, every version's source and a
  purge, each counted as answered or failed;
* a poisoned collection: the same reads after raw SQL wrote dates outside the range (what an ingest before the
  check left), opened once (the repair) and read again;
* the check's cost when a collection is opened, on the synthetic versioned corpus;
* ``measure()`` on a 16,000-letter unit word (8.7 s before its bound, per the issue).
"""

from __future__ import annotations

import statistics
import time
from datetime import UTC, datetime

import psycopg
from psycopg import sql as pgsql

HOSTILE = ("0001-01-01T00:00+01:00", "9999-12-31T23:59-01:00", "0001-01-01T00:59+01:00",
           "9999-12-31T23:30-00:45", "0000-06-01", "9999-12-31T23:59:59.999999-00:01")
KEYS = ("valid_from", "effective", "date")
RULES = "# Library rules\n\n## Loans\n\nA loan lasts {days} days.\n\n## Fines\n\nA late book costs 100 won a day.\n"


def _outside_in_db(url: str, store) -> int:
    """Dates of the collection outside the range, counted by the server (psycopg never reads them)."""
    from core.versions.dates import EARLIEST, LATEST

    def outside(column: str) -> pgsql.Composable:
        name = pgsql.Identifier(column)
        return pgsql.SQL("({} < %(earliest)s OR {} > %(latest)s)").format(name, name)

    counts = [
        pgsql.SQL("SELECT count(*) FROM hke_document_versions WHERE collection_id = %(id)s AND ({})").format(
            pgsql.SQL(" OR ").join(outside(c) for c in ("valid_from", "valid_to", "retired_at"))),
        pgsql.SQL("SELECT count(*) FROM {} WHERE {}").format(pgsql.Identifier(store.table), outside("valid_from")),
        pgsql.SQL("SELECT count(*) FROM {} WHERE {} OR {}").format(
            pgsql.Identifier(f"{store.table}_history"), outside("valid_from"), outside("valid_to")),
    ]
    params = {"earliest": EARLIEST, "latest": LATEST, "id": store.collection_id}
    with psycopg.connect(url, autocommit=True) as conn:
        return sum(int(conn.execute(q, params).fetchone()[0]) for q in counts)


def _reads(store) -> dict[str, str]:
    """Each read a user makes of a versioned collection: "ok" when it answered, else the error it raised."""
    from core.answering.version_history import Window, changes_between, source_of
    from core.retrieval import RetrievalRequest, retrieve
    from core.versions.dates import EARLIEST

    checks = {
        "ask": lambda: retrieve(store, RetrievalRequest("How long does a loan last?")),
        "ask as of 2020-06-01": lambda: retrieve(store, RetrievalRequest(
            "How long does a loan last?", as_of=datetime(2020, 6, 1, tzinfo=UTC))),
        "history": lambda: [store.read.versions(d) for d, *_ in store.read.versioned_documents()],
        "changes since 0001-01-01": lambda: changes_between(store, Window(EARLIEST)),
        "show every version": lambda: [source_of(store, d, v, d) for d, *_ in store.read.versioned_documents()
                                       for v in store.read.versions(d)],
    }
    out = {}
    for name, read in checks.items():
        try:
            read()
            out[name] = "ok"
        except Exception as exc:
            out[name] = f"{type(exc).__name__}: {str(exc)[:120]}"
    return out


def _answered(reads: dict[str, str]) -> int:
    return sum(r == "ok" for r in reads.values())


def _purge_one(store) -> bool:
    try:
        document_id = store.read.versioned_documents()[0][0]
        return store.write.remove_document(document_id, purge=True)
    except Exception:
        return False


def hostile_dates(url: str) -> dict:
    """Hostile dates in one batch beside good files; what reached the database, and the reads afterwards."""
    from core.ingest import ingest
    from core.ingest.sources import SourceFile
    from core.store import ElementStore
    from core.versions import DateError
    from tests.helpers_embeddings import HashEmbeddings

    store = ElementStore(url, "bench_hardening_dates", HashEmbeddings())
    good = [SourceFile("rules.md", ("---\neffective: 2020-01-01\n---\n" + RULES.format(days=14)).encode())]
    hostile = [SourceFile(f"bad-{i}-{key}.md", f"---\n{key}: {value}\n---\n# Bad {i}\n\nText {i}.\n".encode())
               for i, value in enumerate(HOSTILE) for key in KEYS]
    report = ingest(store, [*good, *hostile], valid_from=None)
    named = {e["path"] for e in report.errors if "accepted" in e["reason"] or "not a real date" in e["reason"]}
    flags_refused = 0
    for value in HOSTILE:
        try:
            ingest(store, good, valid_from=value)
        except DateError:
            flags_refused += 1
    ingest(store, [SourceFile("rules.md", RULES.format(days=21).encode())], valid_from="2021-01-01")
    reads = _reads(store)
    out = {"hostile_dates": len(hostile) + len(HOSTILE), "files_refused_named": len(named),
           "flags_refused": flags_refused, "good_files_stored": report.added,
           "outside_range_in_db": _outside_in_db(url, store), "reads": reads,
           "purge": _purge_one(store)}
    store.drop()
    return out


def poisoned_collection(url: str) -> dict:
    """Reads of a collection holding dates outside the range, before and after it is opened (the repair)."""
    from core.ingest import ingest
    from core.ingest.sources import SourceFile
    from core.store import ElementStore
    from tests.helpers_embeddings import HashEmbeddings

    store = ElementStore(url, "bench_hardening_poisoned", HashEmbeddings())
    ingest(store, [SourceFile("rules.md", RULES.format(days=14).encode())], valid_from="2020-01-01")
    ingest(store, [SourceFile("rules.md", RULES.format(days=21).encode())], valid_from="2021-01-01")
    before = datetime(2020, 1, 1, tzinfo=UTC)
    with psycopg.connect(url, autocommit=True) as conn:
        for table in ("hke_document_versions", store.table, f"{store.table}_history"):
            for column in ("valid_from", "valid_to"):
                if table == store.table and column == "valid_to":
                    continue
                conn.execute(pgsql.SQL("UPDATE {} SET {} = '0001-01-01 00:00+01' WHERE {} = %s").format(
                    pgsql.Identifier(table), pgsql.Identifier(column), pgsql.Identifier(column)), (before,))
    outside = _outside_in_db(url, store)
    unrepaired = _reads(store)  # the store object opened before the rows were written: no repair yet
    opened = ElementStore(url, "bench_hardening_poisoned", HashEmbeddings())
    repair = opened.date_repair
    out = {"outside_range_written": outside, "reads_before_repair": unrepaired,
           "repaired": {"versions": repair.versions, "elements": repair.elements} if repair else None,
           "outside_range_after": _outside_in_db(url, opened), "reads_after_repair": _reads(opened),
           "purge_after_repair": _purge_one(opened)}
    opened.drop()
    return out


def open_check_cost(url: str, store, runs: int = 30) -> dict:
    """What the repair check adds to opening a collection: one indexed read of its versions' dates."""
    from core.store.date_repair import repair_dates

    times = []
    for _ in range(runs):
        started = time.perf_counter()
        with store.pool.connection() as conn, conn.transaction():
            repair_dates(conn, store.collection_id, store.collection)
        times.append((time.perf_counter() - started) * 1000)
    with store.pool.connection() as conn:
        versions = conn.execute("SELECT count(*) FROM hke_document_versions WHERE collection_id = %s",
                                (store.collection_id,)).fetchone()[0]
    return {"versions": int(versions), "p50_ms": round(statistics.median(times), 2), "max_ms": round(max(times), 2)}


def long_unit_word() -> dict:
    from core.quantities import measure, registry

    registry()  # built once per process (pint's definitions), not part of what is measured
    measure("5 kg")
    started = time.perf_counter()
    measure("5 " + "a" * 16_000)
    return {"letters": 16_000, "seconds": round(time.perf_counter() - started, 4), "before_seconds": 8.7}


def run(url: str, versioned_store) -> dict:
    return {"hostile": hostile_dates(url), "poisoned": poisoned_collection(url),
            "open_check": open_check_cost(url, versioned_store), "measure_long_unit_word": long_unit_word()}


def rows(out: dict) -> list[tuple[str, str, str]]:
    h, p, c, m = out["hostile"], out["poisoned"], out["open_check"], out["measure_long_unit_word"]
    answered = _answered(h["reads"]) + h["purge"]
    after = _answered(p["reads_after_repair"]) + p["purge_after_repair"]
    repaired = p["repaired"] or {"versions": 0, "elements": 0}
    return [
        ("dates outside years 1-9999 (UTC) that reach the database", "0; the collection keeps answering",
         f"{h['outside_range_in_db']} of {h['hostile_dates']} hostile dates ({h['files_refused_named']} files refused "
         f"and named, {h['flags_refused']} --valid-from refused, {h['good_files_stored']} good file stored); "
         f"{answered}/{len(h['reads']) + 1} reads answered"),
        ("a collection already holding such dates", "repaired, reported, answering",
         f"{p['outside_range_written']} dates written by raw SQL; before opening "
         f"{_answered(p['reads_before_repair'])}/{len(p['reads_before_repair'])} reads answered; opening repaired "
         f"{repaired['versions']} version(s) and {repaired['elements']} element row(s), {p['outside_range_after']} "
         f"left; after {after}/{len(p['reads_after_repair']) + 1} reads answered"),
        ("the repair check when a collection opens", "small",
         f"p50 {c['p50_ms']} ms, max {c['max_ms']} ms over {c['versions']} versions"),
        ("measure() on a 16,000-letter unit word", "bounded", f"{m['seconds']} s (was {m['before_seconds']} s)"),
    ]
