"""The store's reads of a collection's element table and of what is derived from it (term counts, heading index).

:class:`ElementReader` is reached as ``store.read``. Retrieval, pages, evaluation and the graph read elements through
its methods only; none of them runs SQL on an element table. Every method executes its statements through
:meth:`ElementReader._rows`, the one place a condition on every element read (such as the "as of" of a version)
belongs.

Reads for questions, pages and evaluation go to ``store.reader`` (a standby when there is one); the reads an ingest
or an index fill decides on go to the primary (``store.pool``), as they always did. :meth:`ElementReader.session`
holds one connection for several reads (full-text search reads the question's lexemes, the term counts and the
candidates on one).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
import psycopg

from core.bounded_cache import BoundedCache
from core.db.pool import ConnectionSource, read_connection
from core.elements import Element
from core.sql import elements as sql
from core.sql import headings as heading_sql
from core.sql import retrieval as retrieval_sql
from core.sql import terms as term_sql
from core.sql import versions as version_sql
from core.store.question_reads import (
    Expanded,
    QuestionReads,
    Scored,
    TermCounts,
    keep_term_counts,
    kept_term_counts,
)
from core.store.records import (
    CorpusStats,
    HeadingState,
    Orphans,
    StoredHeading,
    VersionLayout,
    VersionRecord,
)
from core.store.rows import element_from_row
from core.textnorm import NAME_WORDS_VERSION, name_words

if TYPE_CHECKING:
    import uuid

    from core.embeddings import NamedEmbeddings

CACHE_READ_ATTEMPTS = 3


class Collection(Protocol):
    """What a reader needs of its store (``core.store.ElementStore`` is one): the collection, its table, the pools
    for questions (``reader``) and for the primary (``pool``), and the embedder whose vectors the table holds."""

    url: str
    collection_id: uuid.UUID
    table: str
    pool: ConnectionSource
    embeddings: NamedEmbeddings
    question_reads: QuestionReads | None

    @property
    def reader(self) -> ConnectionSource: ...


class Place(Protocol):
    """Where a search may look (``core.retrieval.scope.Scope`` is one): the whole collection, one document, or the
    subtrees of one or more headings."""

    @property
    def kind(self) -> str: ...

    @property
    def id(self) -> str | None: ...

    @property
    def ids(self) -> tuple[str, ...]: ...


# Where the columns a read as of a date puts in place are: (document id, element id, order, JSON metadata or None).
_ELEMENT_PLACE = (sql.ELEMENT_COLUMNS.index("document_id"), 0, sql.ELEMENT_COLUMNS.index("order"),
                  sql.ELEMENT_COLUMNS.index(sql.METADATA_JSON_COLUMN))
_HEADING_PLACE = (0, 2, 1, None)  # core.sql.headings.HEADINGS_OF_ELEMENTS

# (collection id, document id, version, content hash) -> each element's (order, start line, end line) in that
# version. A version's layout never changes once written; the content hash tells a purged and re-ingested
# document's version apart from the one that had its number before.
_PLACES: BoundedCache[tuple, dict[str, tuple[int, int, int]]] = BoundedCache(512)


# (database URL, text) -> the text's lexemes under the server's parser (ElementReader.question_lexemes).
_LEXEMES: BoundedCache[tuple[str, str], tuple[str, ...]] = BoundedCache(4096)


def _one_root(statement: str, params: Mapping[str, Any]) -> str:
    """``statement`` for a scope of one root heading when ``params`` name one (``core.sql.retrieval.one_root``)."""
    return retrieval_sql.one_root(statement) if "root_id" in params else statement


class ElementReader:
    """The reads of one collection's elements (see the module docstring)."""

    def __init__(self, store: Collection, conn: psycopg.Connection | None = None, *,
                 as_of: datetime | None = None, versions: Mapping[str, VersionRecord] | None = None) -> None:
        self._store = store
        self._conn = conn
        self.as_of = as_of
        # The version of each document valid at ``as_of``, when the caller read them for this question already.
        self._versions_at = versions if as_of is not None else None

    # -- the one door --

    def _rows(self, conn: psycopg.Connection, template: str, params: Mapping[str, Any] | Sequence[Any] | None = None,
              *, tables: Sequence[str] | None = None) -> list[tuple]:
        """Run one read and return its rows. Every statement of this class runs here.

        ``template`` is a ``core.sql`` statement over ``{elements}``, bound to this collection's table (or to each
        of ``tables``, joined by UNION ALL: the embedding cache reads every table of the same embedder);
        ``tables=()`` runs a statement that reads no element table (term counts, the heading index). A condition
        that every element read must carry, the "as of" of a collection version, is added here and nowhere else.
        """
        if tables is None and self.as_of is not None:
            # As of a date: {elements} is each document's version valid then (core.sql.versions.AS_OF_ELEMENTS).
            named = dict(params or {})
            if not isinstance(params, Mapping) and params:
                raise TypeError("a read as of a date takes named parameters")
            named.update(as_of=self.as_of, as_of_collection=self._store.collection_id)
            return conn.execute(sql.bind_as_of(template, self._store.table), named).fetchall()
        tables = (self._store.table,) if tables is None else tables
        statement = " UNION ALL ".join(sql.bind(template, table) for table in tables) if tables else template
        return conn.execute(statement, params).fetchall()

    @contextlib.contextmanager
    def _connection(self, *, primary: bool = False) -> Iterator[psycopg.Connection]:
        """The connection this reader is held on (:meth:`session`, :meth:`on`), else a pooled one of the primary
        (``primary``) or of ``store.reader``."""
        if self._conn is not None:
            yield self._conn
            return
        held = self._held(primary=primary)
        if held is not None:
            yield held
            return
        with read_connection(self._store.pool if primary else self._store.reader) as conn:
            yield conn

    def _held(self, *, primary: bool = False) -> psycopg.Connection | None:
        """The connection one question's reads are held on (``ElementStore.one_question``), if any serves."""
        shared = self._store.question_reads
        if shared is None or shared.connection is None or (primary and not shared.primary_too):
            return None
        return shared.connection

    def _query(self, template: str, params: Mapping[str, Any] | Sequence[Any] | None = None, *,
               primary: bool = False, tables: Sequence[str] | None = None,
               place: tuple[int, int, int, int | None] | None = None) -> list[tuple]:
        """``_rows`` on this reader's connection; as of a date, rows whose columns ``place`` names (document id,
        element id, order, JSON metadata) are put in their place in the version valid then (:meth:`_placed`)."""
        with self._connection(primary=primary) as conn:
            rows = self._rows(conn, template, params, tables=tables)
            if place is not None and self.as_of is not None and rows:
                rows = self._placed(conn, rows, place)
            return rows

    def _placed(self, conn: psycopg.Connection, rows: list[tuple],
                place: tuple[int, int, int, int | None]) -> list[tuple]:
        """Rows read as of a date with the order and lines of the version valid then. A row stores those of the
        latest version it is in; the places come from each version's layout, read once per process."""
        document, element, order, metadata = place
        versions = self._versions_read(conn, {row[document] for row in rows})
        places = self._layout_places(conn, list(versions.values()))
        out = []
        for row in rows:
            version = versions.get(row[document])
            found = places.get((version.document_id, version.version), {}).get(row[element]) if version else None
            if found is None:
                out.append(row)
                continue
            fixed = list(row)
            fixed[order] = found[0]
            if metadata is not None:
                fixed[metadata] = {**(row[metadata] or {}), "start_line": found[1], "end_line": found[2]}
            out.append(tuple(fixed))
        return out

    def _versions_read(self, conn: psycopg.Connection, document_ids: Iterable[str]) -> dict[str, VersionRecord]:
        """The version each document is read at, from the versions this reader was given where it has them."""
        ids = set(document_ids)
        known = {d: self._versions_at[d] for d in ids if d in self._versions_at} if self._versions_at else {}
        missing = sorted(ids - known.keys())
        if missing:
            rows = self._rows(conn, version_sql.VERSIONS_READ, {"collection_id": self._store.collection_id,
                                                                "document_ids": missing, "as_of": self.as_of},
                              tables=())
            known.update((v.document_id, v) for v in (VersionRecord(*row) for row in rows))
        return known

    def _layout_places(self, conn: psycopg.Connection, versions: Sequence[VersionRecord]
                       ) -> dict[tuple[str, int], dict[str, tuple[int, int, int]]]:
        collection = self._store.collection_id
        keys = {(v.document_id, v.version): (collection, v.document_id, v.version, v.content_hash) for v in versions}
        out: dict[tuple[str, int], dict[str, tuple[int, int, int]]] = {}
        for pair, key in keys.items():
            if (held := _PLACES.get(key)) is not None:
                out[pair] = held
        wanted = [pair for pair in keys if pair not in out]
        if not wanted:
            return out
        rows = self._rows(conn, version_sql.LAYOUTS, {"collection_id": collection,
                                                      "document_ids": [d for d, _ in wanted],
                                                      "versions": [v for _, v in wanted]}, tables=())
        for document_id, version, ids, starts, ends in rows:
            out[document_id, version] = {element: (i, start, end) for i, (element, start, end)
                                         in enumerate(zip(ids, starts, ends, strict=True))}
            _PLACES.put(keys[document_id, version], out[document_id, version])
        return out

    @contextlib.contextmanager
    def session(self) -> Iterator[ElementReader]:
        """This reader on one connection of ``store.reader`` for the reads inside the block."""
        if self._conn is not None:
            yield self
            return
        held = self._held()
        if held is not None:
            yield ElementReader(self._store, held, as_of=self.as_of, versions=self._versions_at)
            return
        with read_connection(self._store.reader) as conn:
            yield ElementReader(self._store, conn, as_of=self.as_of, versions=self._versions_at)

    def on(self, conn: psycopg.Connection) -> ElementReader:
        """This reader on ``conn`` (a write transaction that reads what it is about to write from)."""
        return ElementReader(self._store, conn, as_of=self.as_of, versions=self._versions_at)

    # -- elements --

    def document_ids(self) -> list[str]:
        """The collection's documents, in the order the store lists them."""
        return [row[0] for row in self._query(sql.LIST_DOCUMENTS, (self._store.collection_id,), tables=())]

    def document_sources(self) -> list[tuple[str, str]]:
        """Each document's id and what its elements were parsed from (content hash and loader), in the order
        :meth:`document_ids` lists them."""
        return [(row[0], row[1]) for row in self._query(sql.DOCUMENT_SOURCES, (self._store.collection_id,),
                                                        tables=())]

    def elements(self, document_id: str) -> list[Element]:
        """All elements of one document, in document order."""
        rows = self._query(sql.ELEMENTS_OF_DOCUMENT, {"document_id": document_id}, place=_ELEMENT_PLACE)
        if self.as_of is not None:
            rows.sort(key=lambda row: row[_ELEMENT_PLACE[2]])
        return [element_from_row(row) for row in rows]

    def get(self, ids: Iterable[str]) -> list[Element]:
        """The elements with these ids, in the order given (ids not stored are left out)."""
        ids = list(dict.fromkeys(ids))
        if not ids:
            return []
        by_id = {row[0]: element_from_row(row)
                 for row in self._query(sql.ELEMENTS_BY_ID, {"ids": ids}, place=_ELEMENT_PLACE)}
        return [by_id[i] for i in ids if i in by_id]

    def ancestors(self, ids: Iterable[str]) -> dict[str, Element]:
        """The given elements and all their ancestors, fetched in one round trip, keyed by element id."""
        ids = list(dict.fromkeys(ids))
        if not ids:
            return {}
        return {row[0]: element_from_row(row) for row in self._query(sql.ANCESTORS, {"ids": ids}, place=_ELEMENT_PLACE)}

    def by_prefix(self, prefix: str) -> list[Element]:
        """At most two elements whose id starts with ``prefix`` (hex only: the caller checks), in id order."""
        rows = self._query(retrieval_sql.ELEMENTS_BY_PREFIX,
                           {"collection_id": self._store.collection_id, "prefix": prefix}, place=_ELEMENT_PLACE)
        return [element_from_row(row) for row in rows]

    def stats(self) -> CorpusStats:
        with self._connection() as conn:
            counts = [(c or "?", int(d), int(n)) for c, d, n in self._rows(conn, sql.CATEGORY_DEPTH_COUNTS)]
            documents = len(self._rows(conn, sql.DOCUMENT_HASHES, (self._store.collection_id,), tables=()))
        return CorpusStats(documents=documents, elements=sum(n for *_, n in counts), by_category_depth=counts)

    def table_schema(self) -> str:
        """The schema the collection's table is in (a URL may set its own search_path)."""
        return str(self._query(sql.TABLE_SCHEMA)[0][0])

    # -- search --

    def _place(self, place: Place) -> dict[str, Any]:
        params: dict[str, Any] = {"collection_id": self._store.collection_id}
        if place.kind == "document":
            params["document_id"] = place.id
        elif place.kind == "subtree":
            roots = list(place.ids or (place.id,))
            params.update({"root_id": roots[0]} if len(roots) == 1 else {"root_ids": roots})
        elif place.kind != "collection":
            raise ValueError(f"unknown scope kind {place.kind!r}")
        return params

    def vector_search(self, query_vector: np.ndarray, place: Place, k: int, *,
                      include_metadata: bool = False) -> list[Scored]:
        """The ``k`` nearest elements inside ``place``, nearest first (the scope is a predicate of the statement)."""
        params = {**self._place(place), "query": query_vector, "k": k}
        shared = self._store.question_reads
        key = (place.kind, include_metadata, k, place.id, tuple(place.ids or ()),
               np.asarray(query_vector, dtype=np.float32).tobytes())
        if shared is not None and key in shared.vector_hits:
            return list(shared.vector_hits[key])
        rows = self._query(_one_root(retrieval_sql.vector_statement(place.kind, include_metadata), params), params,
                           place=_ELEMENT_PLACE)
        found = [Scored(element_from_row(r), float(r[sql.ELEMENT_WIDTH])) for r in rows]
        if shared is not None:
            shared.vector_hits[key] = found
        return list(found)

    def question_lexemes(self, question: str) -> list[str]:
        """The question's lexemes under the parser of the stored ones (``core.sql.retrieval.QUESTION_LEXEMES``),
        read once per text and database: the parser is the server's own and holds no data."""
        key = (self._store.url, question)
        held = _LEXEMES.get(key)
        if held is None:
            rows = self._query(retrieval_sql.QUESTION_LEXEMES, {"question": question}, tables=())
            held = tuple(rows[0][0] or ())
            _LEXEMES.put(key, held)
        return list(held)

    def read_lexemes(self, texts: Iterable[str]) -> None:
        """Reads the lexemes of those ``texts`` not read yet in one round trip, for :meth:`question_lexemes` to
        answer from memory. A single text is left to it: read now, it costs the same round trip, and it may never be
        asked."""
        url = self._store.url
        missing = [text for text in dict.fromkeys(texts) if _LEXEMES.get((url, text)) is None]
        if len(missing) < 2:
            return
        rows = self._query(retrieval_sql.TEXTS_LEXEMES, {"texts": missing}, tables=())
        for text, row in zip(missing, rows, strict=True):
            _LEXEMES.put((url, text), tuple(row[0] or ()))

    def term_counts(self, keys: Sequence[str], prefix: Sequence[bool], *, for_search: bool = True) -> TermCounts:
        """The stored element counts of ``keys`` (``prefix[i]``: key ``i`` is a prefix term). ``for_search``: the
        counts weigh the question's full-text search, whose IDF then reads the total they were read with; a look-up
        of whether a word is held at all (False) leaves the search's total as it was."""
        shared = self._store.question_reads
        key = (tuple(keys), tuple(prefix))
        if shared is not None and key in shared.term_counts and for_search:
            held = shared.term_counts[key]
            return TermCounts(held.complete, held.total, list(held.counts))
        version = shared.collection_version if shared is not None else None
        at = (self._store.url, str(self._store.collection_id), version)
        pairs = list(zip(keys, prefix, strict=True))
        found = kept_term_counts(at, pairs)
        if found is None:
            params = {"collection_id": self._store.collection_id, "keys": list(keys), "prefix": list(prefix)}
            complete, total, counts = self._query(term_sql.TERM_COUNTS, params, tables=())[0]
            found = TermCounts(bool(complete), int(total), [int(n) for n in counts])
            keep_term_counts(at, pairs, found)
        if shared is not None and for_search:
            shared.total = found.total
            shared.term_counts[key] = TermCounts(found.complete, found.total, list(found.counts))
        return found

    def known_names(self, names: Sequence[str]) -> frozenset[str] | None:
        """Those of ``names`` whose every word some element holds (one round trip); None when the stored term
        counts do not hold every document yet."""
        params = {"collection_id": self._store.collection_id, "names": list(names)}
        held = self._query(term_sql.KNOWN_NAMES, params, tables=())[0][0]
        return None if held is None else frozenset(held)

    def fulltext_search(self, terms: Sequence[str], scanned: Sequence[bool], counts: Sequence[int],
                        query_vector: np.ndarray, place: Place, k: int, *,
                        include_metadata: bool = False) -> list[Scored]:
        """The ``k`` elements inside ``place`` with the best IDF sum over the tsquery ``terms``, best first; the
        ``scanned`` ones find the candidates, the others only score them with their stored ``counts``.

        Within one question a search repeated with a ``k`` no larger than one already read is answered from it: the
        statement orders by score, then element id, and no score depends on ``k``, so its first ``k`` rows are
        those of the larger read."""
        shared = self._store.question_reads
        total = shared.total if shared is not None else None
        key = (place.kind, include_metadata, place.id, tuple(place.ids or ()), tuple(terms), tuple(scanned),
               tuple(counts), total, np.asarray(query_vector, dtype=np.float32).tobytes())
        held = shared.fulltext_hits.get(key) if shared is not None else None
        if held is not None and (k <= held[0] or len(held[1]) < held[0]):
            return list(held[1][:k])
        params = {**self._place(place), "terms": list(terms), "scanned": list(scanned), "counts": list(counts),
                  "query": " | ".join(t for t, on in zip(terms, scanned, strict=True) if on),
                  "query_vector": query_vector, "k": k, "total": total}
        statement = _one_root(retrieval_sql.fulltext_statement(place.kind, include_metadata, len(terms)), params)
        rows = self._query(statement, params, place=_ELEMENT_PLACE)
        found = [Scored(element_from_row(r), float(r[sql.ELEMENT_WIDTH]), float(r[sql.ELEMENT_WIDTH + 1]))
                 for r in rows]
        if shared is not None:
            shared.fulltext_hits[key] = (k, found)
        return list(found)

    def expand(self, ids: Sequence[str], heading_ids: Sequence[str], query_vector: np.ndarray, *,
               max_depth: int, max_children: int) -> list[Expanded]:
        """``ids`` with all their ancestors, and the descendants of ``heading_ids`` (at most ``max_depth`` levels
        down, ``max_children`` of them in document order) with their distance to ``query_vector``: one round trip."""
        params = {"collection_id": self._store.collection_id, "ids": list(ids), "heading_ids": list(heading_ids),
                  "query": query_vector, "max_depth": max_depth, "max_children": max_children}
        rows = self._query(retrieval_sql.EXPAND_WITH_CHILDREN, params, place=_ELEMENT_PLACE)
        return [Expanded(element_from_row(r), None if r[sql.ELEMENT_WIDTH] is None else float(r[sql.ELEMENT_WIDTH]),
                         bool(r[sql.ELEMENT_WIDTH + 1])) for r in rows]

    # -- the embedding cache and the term counts --

    def cached_vectors(self, text_hashes: Iterable[str], *, primary: bool = True) -> dict[str, np.ndarray]:
        """Stored vectors of this embedder for the given text hashes, from any collection (the embedding cache);
        from the primary (an ingest's own writes) or, not ``primary``, where this reader's other reads go."""
        hashes = list(dict.fromkeys(text_hashes))
        if not hashes:
            return {}
        info = self._store.embeddings.info
        params = {"provider": info.provider, "model": info.model, "dimension": str(info.dimension)}
        rows: list[tuple] = []
        with self._connection(primary=primary) as conn:
            # Another process may drop a collection between the listing and the read: its table is gone and the
            # statement fails. Listing again leaves it out; the cache is only a shortcut, so after a few tries
            # (collections dropped back to back) the texts are embedded instead.
            for _attempt in range(CACHE_READ_ATTEMPTS):
                ids = [row[0] for row in self._rows(conn, sql.SAME_EMBEDDER_COLLECTIONS, params, tables=())]
                if not ids:
                    return {}
                try:
                    rows = self._rows(conn, sql.CACHED_VECTORS_OF_TABLE, {"hashes": hashes},
                                      tables=[sql.table_name(i) for i in ids])
                    break
                except psycopg.errors.UndefinedTable:
                    continue
        out: dict[str, np.ndarray] = {}
        for key, vector in rows:
            out.setdefault(key, np.asarray(vector, dtype=np.float32))
        return out

    def stored_term_counts(self, *, recount: bool = False) -> dict[str, int]:
        """The stored term counts, or (``recount``) the same counted from the elements now."""
        if recount:
            rows = self._query(term_sql.COUNT_COLLECTION, primary=True)
        else:
            rows = self._query(term_sql.STORED_COUNTS, {"collection_id": self._store.collection_id}, primary=True,
                               tables=())
        return {lexeme: int(n) for lexeme, n in rows}

    def terms_complete(self) -> bool:
        """Whether the stored term counts hold every document."""
        rows = self._query(term_sql.TERMS_COMPLETE, {"collection_id": self._store.collection_id}, primary=True,
                           tables=())
        return bool(rows[0][0])

    # -- the heading index --

    def heading_state(self, since: int = -1) -> HeadingState:
        """The stored heading index's version and the documents written after version ``since``."""
        rows = self._query(heading_sql.STATE, {"collection_id": self._store.collection_id, "since": since},
                           primary=True, tables=())
        if not rows:  # a collection made before the stored index, never written since
            return HeadingState(0, False, 0, ())
        version, complete, words_version, filled, changed = rows[0]
        return HeadingState(int(version), bool(complete) and words_version == NAME_WORDS_VERSION, int(filled),
                            tuple(changed))

    def headings(self, document_ids: Sequence[str] | None = None) -> list[StoredHeading]:
        """The stored headings of the collection, or of the given documents only, in document order (as of a date:
        the headings of the versions valid then, read from the elements)."""
        if self.as_of is not None:
            wanted = set(document_ids) if document_ids is not None else None
            return [h for h in self.scan_headings() if wanted is None or h.document_id in wanted]
        params = {"collection_id": self._store.collection_id, "document_ids": list(document_ids or ())}
        statement = heading_sql.HEADINGS if document_ids is None else heading_sql.HEADINGS_OF_DOCUMENTS
        rows = self._query(statement, params, primary=True, tables=())
        out = [StoredHeading(d, int(o), e, text or "", tuple(path or ()), filename, frozenset(words))
               for d, o, e, text, path, filename, words in rows]
        out.sort(key=lambda h: (h.document_id, h.order))
        return out

    def scan_headings(self) -> list[StoredHeading]:
        """Every heading read from the element table and tokenised now (what the stored index is filled with); as
        of a date, those of the versions valid then."""
        rows = self._query(heading_sql.HEADINGS_OF_ELEMENTS, primary=True, place=_HEADING_PLACE)
        out = [StoredHeading(d, int(o), e, text or "", tuple(path or ()), filename, name_words(text or ""))
               for d, o, e, text, path, filename in rows]
        out.sort(key=lambda h: (h.document_id, h.order))
        return out

    # -- versions (core.sql.versions) --

    def _versions(self, template: str, params: Mapping[str, Any]) -> list[VersionRecord]:
        rows = self._query(template, {"collection_id": self._store.collection_id, **params}, primary=True,
                           tables=())
        return [VersionRecord(*row) for row in rows]

    def versions(self, document_id: str) -> list[VersionRecord]:
        """Every version of one document, oldest first (empty for a document never stored)."""
        return self._versions(version_sql.VERSIONS_OF_DOCUMENT, {"document_id": document_id})

    def last_version(self, document_id: str) -> VersionRecord | None:
        found = self._versions(version_sql.LAST_VERSION, {"document_id": document_id})
        return found[0] if found else None

    def needs_version_backfill(self) -> bool:
        """Whether a document was stored before versions were kept (it gets its version 1 when the store opens)."""
        rows = self._query(version_sql.NEEDS_BACKFILL, {"collection_id": self._store.collection_id}, primary=True,
                           tables=())
        return bool(rows[0][0])

    def versions_at(self, when: datetime) -> list[VersionRecord]:
        """The version of each document valid at ``when`` (documents that did not exist then are left out)."""
        return self._versions(version_sql.VERSIONS_AT, {"as_of": when})

    def versions_of(self, document_ids: Iterable[str]) -> dict[str, VersionRecord]:
        """The version each of these documents is read at: the one valid at this reader's date, else its latest."""
        ids = set(document_ids)
        if not ids:
            return {}
        with self._connection(primary=True) as conn:
            return self._versions_read(conn, ids)

    def first_valid_from(self) -> datetime | None:
        """When the collection's earliest version takes effect (None if it has none)."""
        rows = self._query(version_sql.FIRST_VALID_FROM, {"collection_id": self._store.collection_id}, primary=True,
                           tables=())
        return rows[0][0]

    def versions_since(self, since: datetime) -> list[VersionRecord]:
        """The versions (after each document's first) that took effect after ``since``, in date order."""
        return self._versions(version_sql.VERSIONS_SINCE, {"since": since})

    def has_history(self) -> bool:
        """Whether some document of the collection has a second version."""
        rows = self._query(version_sql.HAS_HISTORY, {"collection_id": self._store.collection_id}, primary=True,
                           tables=())
        return bool(rows[0][0])

    def retired_since(self, since: datetime) -> list[VersionRecord]:
        """The last version of each document retired after ``since``, in retirement order."""
        return self._versions(version_sql.RETIRED_SINCE, {"since": since})

    def versioned_documents(self) -> list[tuple[str, str, str, bool]]:
        """(document id, source, file name, retired) of every document that has a history, retired ones included."""
        rows = self._query(version_sql.DOCUMENTS_WITH_VERSIONS, {"collection_id": self._store.collection_id},
                           primary=True, tables=())
        return [(d, s, f, bool(r)) for d, s, f, r in rows]

    def layout(self, document_id: str, version: int) -> VersionLayout | None:
        rows = self._query(version_sql.LAYOUT, {"collection_id": self._store.collection_id,
                                                "document_id": document_id, "version": version},
                           primary=True, tables=())
        if not rows:
            return None
        ids, starts, ends, blocks = rows[0]
        return VersionLayout(tuple(ids), tuple(starts), tuple(ends), tuple(blocks) if blocks is not None else None)

    def blocks(self, hashes: Sequence[str]) -> dict[str, bytes]:
        """Source blocks by their hash."""
        rows = self._query(version_sql.BLOCKS, {"collection_id": self._store.collection_id,
                                                "hashes": list(dict.fromkeys(hashes))}, primary=True, tables=())
        return {h: bytes(data) for h, data in rows}

    def version_elements(self, document_id: str, version: int) -> list[Element]:
        """The elements of one version of a document, in its document order (current rows and history)."""
        rows = self._query(sql.bind(version_sql.ELEMENTS_OF_VERSION, self._store.table),
                           {"collection_id": self._store.collection_id, "document_id": document_id,
                            "version": version}, primary=True, tables=())
        return [element_from_row(row) for row in rows]

    def orphans(self) -> Orphans:
        """The invariant check: rows no version accounts for (all 0 in a sound collection)."""
        rows = self._query(sql.bind(version_sql.ORPHANS, self._store.table),
                           {"collection_id": self._store.collection_id}, primary=True, tables=())
        return Orphans(*(int(n) for n in rows[0]))

    def storage(self, document_id: str) -> dict[str, int]:
        """Bytes one document's versions take: current rows, history rows, version rows, and the collection's
        source blocks."""
        rows = self._query(sql.bind(version_sql.STORAGE, self._store.table),
                           {"collection_id": self._store.collection_id, "document_id": document_id},
                           primary=True, tables=())
        current, history, versions, blocks = (int(n) for n in rows[0])
        return {"current_rows": current, "history_rows": history, "version_rows": versions, "source_blocks": blocks}
