"""The one door to a collection's hierarchical lexical graph tables (statements, entities, facts; ``core.sql.hlg``).

:class:`HLGTables` (``HLGTables(store)``) creates the tables, brings them up to date with the collection's element
rows (what to read, closing what a version dropped, writing what was read) and serves the reads of the
``statements`` strategy. Writes go to the store's primary pool; reads go where the store reads, as of the store's
date when it has one (``store.as_of``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from core.db.pool import apply_schema
from core.sql import elements as element_sql
from core.sql import hlg as sql

if TYPE_CHECKING:
    from core.store.element_store import ElementStore

_schema_ready: set[int] = set()


class DraftFactRow(Protocol):
    """What the store reads of a fact drafted by the extraction (``core.hlg.extract.DraftFact``)."""

    subject: str
    predicate: str
    object: str
    kind: str

    @property
    def key(self) -> str: ...


class DraftStatement(Protocol):
    """What the store reads of a statement drafted by the extraction (``core.hlg.extract.DraftStatement``): the
    store depends on the shape, not on the extraction's package."""

    element_id: str
    element_since: int
    document_id: str
    ordinal: int
    kind: str
    text: str
    heading_path: tuple[str, ...]
    topic: str
    entities: tuple[tuple[str, str, str], ...]

    @property
    def facts(self) -> Sequence[DraftFactRow]: ...

    @property
    def self_contained(self) -> str: ...


@dataclass(frozen=True)
class PendingElement:
    element_id: str
    since_version: int
    valid_from: datetime
    document_id: str


@dataclass
class SectionDraft:
    """One heading section's current statements, read to make its topic."""

    document_id: str
    topic: str
    heading_path: tuple[str, ...]
    texts: list[str]
    changed: datetime


@dataclass(frozen=True)
class TopicDraft:
    document_id: str
    topic: str
    heading_path: tuple[str, ...]
    text: str
    sha: str  # of the text embedded (the section's, with the model's topic name before it when one named it)
    section_sha: str  # of the section's own text (core.ingest.tiers.topic_text): whether the section changed
    statements: int
    valid_from: datetime


@dataclass(frozen=True)
class TopicRow:
    """One topic as a read returns it: its distance to the question, the question's terms its text holds, and,
    reached from another topic, the entities shared and the most specific one."""

    topic_id: int
    document_id: str
    topic: str
    heading_path: tuple[str, ...]
    distance: float
    matched: frozenset[int] = frozenset()
    depth: int = 0
    shared: int = 0
    via: str = ""
    fewest: int = 0  # statement rows mentioning the most specific shared entity


@dataclass(frozen=True)
class StatementRow:
    """One statement as a read returns it, with its distance to the question and how it was reached."""

    statement_id: int
    document_id: str
    element_id: str
    ordinal: int
    kind: str
    topic: str
    heading_path: tuple[str, ...]
    text: str
    distance: float
    matched: frozenset[int] = frozenset()  # the question's terms (by place) its lexemes match
    hop: int = 0
    via: str = ""
    rank: float = 0.0
    named: str = ""  # the question's entity it names (an exact entity entry): its merge key
    role: str = ""  # and how: "subject" (the heading it sits under) or "name" (in its text)

    @property
    def self_contained(self) -> str:
        return " > ".join([*(p for p in self.heading_path if p), self.text])


@dataclass(frozen=True)
class TierCounts:
    statements: int  # valid now (or as of the store's date)
    statement_rows: int  # every version's
    facts: int
    entities: int
    topics: int

    def as_dict(self) -> dict[str, int]:
        return {"statements": self.statements, "statement_rows": self.statement_rows, "facts": self.facts,
                "entities": self.entities, "topics": self.topics}


@dataclass(frozen=True)
class TierStorage:
    statements: int
    mentions: int
    support: int
    facts: int
    entities: int
    topics: int
    elements: int

    @property
    def tiers(self) -> int:
        return self.statements + self.mentions + self.support + self.facts + self.entities + self.topics

    @property
    def ratio(self) -> float:
        return self.tiers / self.elements if self.elements else 0.0

    def as_dict(self) -> dict[str, Any]:
        return {"statements": self.statements, "mentions": self.mentions, "support": self.support,
                "facts": self.facts, "entities": self.entities, "topics": self.topics, "tiers": self.tiers,
                "elements": self.elements,
                "ratio": round(self.ratio, 3)}


def _vector_text(vector: np.ndarray) -> str:
    return "[" + ",".join(f"{float(x):.7g}" for x in vector) + "]"


def _row(r: tuple, *, hop: int = 0, via: str = "", rank: float = 0.0, named: str = "", role: str = ""
         ) -> StatementRow:
    return StatementRow(int(r[0]), r[1], r[2], int(r[3]), r[4], r[5], tuple(r[6] or ()), r[7], float(r[9]),
                        frozenset(int(x) for x in r[8] or ()), hop, via, rank, named, role)


class HLGTables:
    """The tiers of one collection, seen through ``store`` (its pool, its reader, its element table, its date)."""

    def __init__(self, store: ElementStore) -> None:
        self.store = store
        self.collection_id = store.collection_id

    def ensure_schema(self) -> None:
        if id(self.store.pool) in _schema_ready:
            return
        apply_schema(self.store.pool, sql.CREATE_SCHEMA, sql.SCHEMA_LOCK_KEY)
        _schema_ready.add(id(self.store.pool))

    def _bind(self, template: str) -> str:
        return element_sql.bind(template, self.store.table)

    def _params(self, **extra: Any) -> dict[str, Any]:
        return {"collection_id": self.collection_id, "as_of": self.store.as_of_date, **extra}

    def _read(self, statement: str, params: dict[str, Any]) -> list[tuple]:
        with self.store.reader.connection() as conn:
            return conn.execute(statement, params).fetchall()

    def built(self) -> bool:
        """Whether the collection's tiers were ever built (an ingest then keeps them up to date)."""
        with self.store.reader.connection() as conn:
            if not conn.execute(sql.TABLE_EXISTS).fetchone()[0]:
                return False
            return bool(conn.execute(sql.HAS_TIERS, self._params()).fetchone()[0])

    # -- writes --

    def settle(self, *, llm: bool = False) -> tuple[list[PendingElement], int, set[str]]:
        """Close the statements of element rows a version dropped, delete those of purged documents, and return the
        current element rows not read yet (``llm``: or not read with a model yet), the number of statements closed
        or deleted, and the documents whose statements were."""
        self.ensure_schema()
        params = self._params(llm=llm)
        with self.store.pool.connection() as conn, conn.transaction():
            conn.execute(sql.LOCK_COLLECTION, (str(self.collection_id),))
            changed = [r[0] for r in conn.execute(self._bind(sql.CLOSE_RETIRED), params).fetchall()]
            changed += [r[0] for r in conn.execute(self._bind(sql.DELETE_PURGED), params).fetchall()]
            conn.execute(sql.DELETE_EMPTY_TOPICS, params)
            conn.execute(self._bind(sql.DELETE_OLD_MARKS), params)
            conn.execute(sql.DELETE_UNSUPPORTED_FACTS, params)
            conn.execute(sql.DELETE_UNMENTIONED_ENTITIES, params)
            rows = conn.execute(self._bind(sql.PENDING), params).fetchall()
        return [PendingElement(r[0], int(r[1]), r[2], r[3]) for r in rows], len(changed), set(changed)

    # -- topics: written after the statements they group --

    def topicless_documents(self, *, unnamed: bool = False) -> list[str]:
        """Documents with a current section that has no current topic (a first build of the topics); ``unnamed``:
        and those with a current topic no model named."""
        with self.store.pool.connection() as conn:
            found = [r[0] for r in conn.execute(sql.TOPICLESS_DOCUMENTS, self._params()).fetchall()]
            if unnamed:
                found += [r[0] for r in conn.execute(sql.UNNAMED_DOCUMENTS, self._params()).fetchall()]
        return found

    def sections(self, documents: Sequence[str]) -> list[SectionDraft]:
        """The current sections of ``documents``: their statements' texts in document order and when each section
        last changed."""
        if not documents:
            return []
        with self.store.pool.connection() as conn:
            rows = conn.execute(self._bind(sql.SECTION_STATEMENTS), self._params(documents=list(documents))).fetchall()
        out: dict[tuple[str, str], SectionDraft] = {}
        for document_id, topic, path, text, changed in rows:
            section = out.setdefault((document_id, topic), SectionDraft(document_id, topic, tuple(path or ()),
                                                                        [], changed))
            section.texts.append(text)
        return list(out.values())

    def live_topics(self, documents: Sequence[str]) -> dict[tuple[str, str], tuple[int, str, bool]]:
        """(document, topic) → (topic id, section text hash, whether a model named it) of the current topics of
        ``documents``."""
        if not documents:
            return {}
        with self.store.pool.connection() as conn:
            rows = conn.execute(sql.LIVE_TOPICS, self._params(documents=list(documents))).fetchall()
        return {(r[1], r[2]): (int(r[0]), r[3], bool(r[4])) for r in rows}

    def cached_topic_vectors(self, hashes: Sequence[str]) -> dict[str, np.ndarray]:
        if not hashes:
            return {}
        with self.store.pool.connection() as conn:
            rows = conn.execute(sql.CACHED_TOPIC_VECTORS, self._params(hashes=list(hashes))).fetchall()
        return {sha: np.asarray(vec, dtype=np.float32) for sha, vec in rows}

    def write_topics(self, documents: Sequence[str], close: Sequence[tuple[int, datetime]],
                     topics: Sequence[TopicDraft], vectors: np.ndarray) -> int:
        """In one transaction: stop the current topics of ``documents`` whose sections are gone, stop those of
        ``close`` (topic id, when), and insert ``topics``; returns the topics written."""
        with self.store.pool.connection() as conn, conn.transaction():
            conn.execute(sql.LOCK_COLLECTION, (str(self.collection_id),))
            conn.execute(sql.CLOSE_VANISHED_TOPICS, self._params(documents=list(documents)))
            if close:
                conn.execute(sql.CLOSE_TOPICS, {"ids": [c[0] for c in close], "until": [c[1] for c in close]})
            if topics:
                conn.execute(sql.INSERT_TOPICS, {
                    "collection_id": self.collection_id, "document_ids": [t.document_id for t in topics],
                    "topics": [t.topic for t in topics], "paths": [json.dumps(list(t.heading_path)) for t in topics],
                    "texts": [t.text for t in topics], "shas": [t.sha for t in topics],
                    "section_shas": [t.section_sha for t in topics],
                    "embeddings": [_vector_text(v) for v in vectors], "statements": [t.statements for t in topics],
                    "valid_from": [t.valid_from for t in topics]})
        return len(topics)

    def cached_vectors(self, hashes: Sequence[str]) -> dict[str, np.ndarray]:
        """Statement vectors already stored, by text hash (a statement text is embedded once per collection)."""
        if not hashes:
            return {}
        with self.store.pool.connection() as conn:
            rows = conn.execute(sql.CACHED_VECTORS, self._params(hashes=list(hashes))).fetchall()
        return {sha: np.asarray(vec, dtype=np.float32) for sha, vec in rows}

    def write(self, elements: Sequence[PendingElement], statements: Sequence[DraftStatement],
              vectors: np.ndarray, hashes: Sequence[str], *, llm: Sequence[bool] | None = None) -> int:
        """Store the statements read from ``elements`` (their entities, facts and links; those an earlier read of
        the same element rows stored are replaced) and mark the elements read (``llm``: per element, whether a
        model read it), in one transaction; returns the statements written."""
        valid_from = {(e.element_id, e.since_version): e.valid_from for e in elements}
        c = self.collection_id
        marks = {"collection_id": c, "ids": [e.element_id for e in elements],
                 "since": [e.since_version for e in elements]}
        with self.store.pool.connection() as conn, conn.transaction():
            conn.execute(sql.LOCK_COLLECTION, (str(c),))
            if conn.execute(sql.DELETE_REREAD, marks).rowcount:
                conn.execute(sql.DELETE_UNSUPPORTED_FACTS, {"collection_id": c})
                conn.execute(sql.DELETE_UNMENTIONED_ENTITIES, {"collection_id": c})
            ids: dict[tuple[str, int, int], int] = {}
            if statements:
                rows = conn.execute(sql.INSERT_STATEMENTS, {
                    "collection_id": c, "document_ids": [s.document_id for s in statements],
                    "element_ids": [s.element_id for s in statements],
                    "since": [s.element_since for s in statements], "ordinals": [s.ordinal for s in statements],
                    "kinds": [s.kind for s in statements], "topics": [s.topic for s in statements],
                    "paths": [json.dumps(list(s.heading_path)) for s in statements],
                    "texts": [s.text for s in statements], "shas": list(hashes),
                    "embeddings": [_vector_text(v) for v in vectors],
                    "fts_texts": [s.self_contained[:100_000] for s in statements],
                    "valid_from": [valid_from[(s.element_id, s.element_since)] for s in statements],
                }).fetchall()
                ids = {(r[1], int(r[2]), int(r[3])): int(r[0]) for r in rows}
                self._write_links(conn, statements, ids)
            conn.execute(sql.MARK_BUILT, {**marks, "llm": list(llm) if llm is not None else [False] * len(elements)})
        return len(ids)

    def _write_links(self, conn: Any, statements: Sequence[DraftStatement], ids: dict[tuple[str, int, int], int]
                     ) -> None:
        c = self.collection_id
        names = {key: name for s in statements for key, name, _role in s.entities}
        if names:
            keys = sorted(names)
            conn.execute(sql.UPSERT_ENTITIES, {"collection_id": c, "keys": keys, "names": [names[k] for k in keys]})
            entity_ids = dict(conn.execute(sql.ENTITY_IDS, {"collection_id": c, "keys": keys}).fetchall())
            mentions = [(ids[(s.element_id, s.element_since, s.ordinal)], entity_ids[key], role)
                        for s in statements for key, _name, role in s.entities]
            conn.execute(sql.INSERT_MENTIONS, {"statements": [m[0] for m in mentions],
                                               "entities": [m[1] for m in mentions],
                                               "roles": [m[2] for m in mentions]})
        facts = {f.key: f for s in statements for f in s.facts}
        if facts:
            keys = sorted(facts)
            conn.execute(sql.UPSERT_FACTS, {
                "collection_id": c, "keys": keys, "subjects": [facts[k].subject for k in keys],
                "predicates": [facts[k].predicate for k in keys], "objects": [facts[k].object for k in keys],
                "kinds": [facts[k].kind for k in keys]})
            fact_ids = dict(conn.execute(sql.FACT_IDS, {"collection_id": c, "keys": keys}).fetchall())
            support = sorted({(fact_ids[f.key], ids[(s.element_id, s.element_since, s.ordinal)])
                              for s in statements for f in s.facts})
            conn.execute(sql.INSERT_SUPPORT, {"facts": [p[0] for p in support],
                                              "statements": [p[1] for p in support]})

    # -- reads --

    def entry_vector(self, query_vector: np.ndarray, terms: Sequence[str], k: int) -> list[StatementRow]:
        """The ``k`` statements nearest ``query_vector``; each row says which of the tsquery ``terms`` it holds."""
        rows = self._read(sql.ENTRY_VECTOR, self._params(query_vector=query_vector, terms=list(terms), k=k))
        return [_row(r) for r in rows]

    def entry_fulltext(self, terms: Sequence[str], query_vector: np.ndarray, k: int) -> list[StatementRow]:
        """Statements matching any of the tsquery ``terms`` (built from the question by the caller, passed as
        values), best ranked first."""
        if not terms:
            return []
        rows = self._read(sql.ENTRY_FULLTEXT, self._params(query=" | ".join(terms), terms=list(terms),
                                                           query_vector=query_vector, k=k))
        return [_row(r, rank=float(r[10])) for r in rows]

    def entry_entities(self, keys: Sequence[str], query_vector: np.ndarray, terms: Sequence[str], k: int
                       ) -> list[StatementRow]:
        """Statements naming one of the entity merge ``keys`` (not only under it): the ``k`` nearest the question of
        each entity, nearest first."""
        if not keys:
            return []
        rows = self._read(sql.ENTRY_ENTITIES, self._params(keys=list(keys), query_vector=query_vector,
                                                           terms=list(terms), k=k))
        return [_row(r, named=r[10], role=r[11]) for r in rows]

    def term_counts(self, terms: Sequence[str]) -> tuple[int, list[int]]:
        """(live statements, how many of them hold each tsquery term of ``terms``)."""
        if not terms:
            return 0, []
        total, counts = self._read(sql.TERM_COUNTS, self._params(terms=list(terms)))[0]
        return int(total), [int(n) for n in counts]

    def expand(self, entry: Sequence[int], query_vector: np.ndarray, terms: Sequence[str], *, hops: int, fanout: int,
               k: int) -> list[StatementRow]:
        """Statements reached from ``entry`` through shared bridge entities and facts (``core.sql.hlg.EXPAND``)."""
        if not entry or hops < 1:
            return []
        rows = self._read(sql.EXPAND, self._params(entry=list(entry), query_vector=query_vector, terms=list(terms),
                                                    hops=hops, fanout=fanout, k=k))
        return [_row(r, hop=int(r[10]), via=r[11] or "") for r in rows]

    def bridge_entities(self, ids: Sequence[int], *, fanout: int) -> dict[int, dict[int, int]]:
        """The bridge entities (``fanout`` as in :meth:`expand`) each statement of ``ids`` mentions, with the
        statement rows that mention each."""
        out: dict[int, dict[int, int]] = {int(i): {} for i in ids}
        if ids:
            for sid, eid, n in self._read(sql.BRIDGE_ENTITIES, self._params(ids=list(ids), fanout=fanout)):
                out[int(sid)][int(eid)] = int(n)
        return out

    def entity_names(self, ids: Sequence[int]) -> dict[int, tuple[str, str]]:
        """Entity id → (merge key, name as first written)."""
        rows = self._read(sql.ENTITY_NAMES, {"ids": list(ids)}) if ids else []
        return {int(eid): (key, name) for eid, key, name in rows}

    def topics(self) -> list[dict[str, Any]]:
        """The topics a read sees (current, or as of the store's date), with their texts and statement counts."""
        if not self.built():
            return []
        return [{"topic_id": int(r[0]), "document_id": r[1], "topic": r[2], "heading_path": tuple(r[3] or ()),
                 "text": r[4], "statements": int(r[5])} for r in self._read(sql.TOPIC_TEXTS, self._params())]

    def topic_entry(self, query_vector: np.ndarray, terms: Sequence[str], k: int) -> list[TopicRow]:
        """The ``k`` topics nearest ``query_vector`` and the ``k`` matching most of the tsquery ``terms``."""
        rows = self._read(sql.TOPIC_ENTRY, self._params(query_vector=query_vector, terms=list(terms),
                                                        query=" | ".join(terms), k=k))
        return [TopicRow(int(r[0]), r[1], r[2], tuple(r[3] or ()), float(r[4]), frozenset(int(x) for x in r[5] or ()))
                for r in rows]

    def topic_neighbours(self, ids: Sequence[int], query_vector: np.ndarray, terms: Sequence[str], *, fanout: int,
                         depth: int) -> list[TopicRow]:
        """The topics sharing a bridge entity with one of ``ids`` (``core.sql.hlg.TOPIC_NEIGHBOURS``)."""
        if not ids:
            return []
        rows = self._read(sql.TOPIC_NEIGHBOURS, self._params(ids=list(ids), query_vector=query_vector,
                                                             terms=list(terms), fanout=fanout))
        return [TopicRow(int(r[0]), r[1], r[2], tuple(r[3] or ()), float(r[4]), frozenset(int(x) for x in r[5] or ()),
                         depth, int(r[6]), r[7] or "", int(r[8])) for r in rows]

    def topic_statements(self, ids: Sequence[int], query_vector: np.ndarray, terms: Sequence[str]
                         ) -> dict[int, list[StatementRow]]:
        """The current statements of each topic of ``ids``, nearest the question first."""
        out: dict[int, list[StatementRow]] = {int(i): [] for i in ids}
        if ids:
            for r in self._read(sql.TOPIC_STATEMENTS, self._params(ids=list(ids), query_vector=query_vector,
                                                                   terms=list(terms))):
                out[int(r[10])].append(_row(r))
        return out

    def entity_facts(self, name: str) -> list[dict[str, Any]]:
        """The facts whose subject is the entity named ``name`` (by merge key), with their support."""
        from core.text import normalize_name

        rows = self._read(sql.ENTITY_FACTS, self._params(key=normalize_name(name)))
        return [{"subject": r[0], "predicate": r[1], "object": r[2], "kind": r[3], "support": int(r[4]),
                 "document_id": r[5], "element_id": r[6]} for r in rows]

    def elements_stating(self, key: str, limit: int) -> list[str]:
        """The ids of up to ``limit`` live elements stating ``key`` as a fact's predicate (``key : value``, a row's
        column). Read on the question's held connection where there is one (a pool of one would wait for it)."""
        params = self._params(predicate=key.strip(), limit=limit)

        def read(conn: Any) -> list[str]:
            if not conn.execute(sql.TABLE_EXISTS).fetchone()[0]:
                return []
            return [r[0] for r in conn.execute(sql.PREDICATE_ELEMENTS, params).fetchall()]

        held = self.store.question_reads.connection if self.store.question_reads is not None else None
        if held is not None:
            return read(held)
        with self.store.reader.connection() as conn:
            return read(conn)

    def counts(self) -> TierCounts:
        with self.store.reader.connection() as conn:
            if not conn.execute(sql.TABLE_EXISTS).fetchone()[0]:
                return TierCounts(0, 0, 0, 0, 0)
            row = conn.execute(sql.COUNTS, self._params()).fetchone()
        return TierCounts(*(int(x) for x in row))

    def storage(self) -> TierStorage:
        """Bytes of the tiers' rows and of the element rows (current and history) they were read from."""
        self.ensure_schema()
        with self.store.pool.connection() as conn:
            row = conn.execute(self._bind(sql.STORAGE), self._params()).fetchone()
        return TierStorage(*(int(x) for x in row))
