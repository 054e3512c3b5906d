"""The row the question names, in place of another row of the same table.

A table row found by the search is often a neighbour of the row asked for: the rows of one table share their
headers, their path and most of their words ("구분: 입금이체 Retry · 요구: 3001 …" beside "구분: 입금이체 취소 ·
요구: 3000 …"; the result code 1000 beside 2000), so the embedder ranks them together and the row that happens to
be closest wins. A row's first cell is its key, what the row defines; when the question names one row's key and
not the hit's, that row is the definition of the thing asked and the hit only its neighbour. The rows of the hit
rows' tables are read in one round trip and each unnamed hit row gives its place to the row named (the longest
key named, when several are: "입금이체 취소" over "입금이체"). Nothing is weighed: a hit is moved only for a row of
its own table whose key the question writes.
"""

from __future__ import annotations

import re

import numpy as np

from core.changelog import asks_which_release
from core.elements import row_cells
from core.retrieval.hits import Hit
from core.retrieval.scope import Scope
from core.retrieval.search import fts_scored
from core.retrieval.stages import ContextConfig, SearchContext
from core.statements import last_parts, terms
from core.store import ElementStore
from core.store.question_reads import Expanded

__all__ = ["code_label", "named_row_hit", "named_rows", "numbered_code", "row_key", "rows_the_question_names",
           "states_other_codes", "writes_key"]

def row_key(text: str) -> str:
    """A table row's key: its first cell ("" for none)."""
    cells = row_cells(text)
    return cells[0][1].strip() if cells else ""


def writes_key(question: str, wanted: frozenset[str], key: str) -> bool:
    """Whether ``question`` names a row's ``key``: a code (one ASCII word: ``-2``, ``Y``, ``TSJ``, ``2000``) as
    a word of its own, a Korean particle allowed after it ("Y의 방식"), a one-letter code only in its own case
    ("-2" is not "2", "TSJ" not "TS"); else every term of the key among the question's terms ``wanted``."""
    code = key.strip("`*'\" ")
    if not code:
        return False
    if code.isascii() and not any(c.isspace() for c in code):
        found = re.compile(rf"(?<![\w.-]){re.escape(code)}(?![A-Za-z0-9_.-])", 0 if len(code) == 1 else re.I)
        return found.search(question) is not None or _spells_initials(question, code)
    parts = last_parts(terms(key))
    return bool(parts) and parts <= last_parts(wanted)


def _is_code(key: str) -> bool:
    code = key.strip("`*'\" ")
    return bool(code) and code.isascii() and not any(c.isspace() for c in code)


def numbered_code(key: str) -> bool:
    """Whether a row key is a code that holds a digit ("005", "TS2", "-2"): one of a series, each row its own."""
    return _is_code(key) and any(c.isdigit() for c in key)


def states_other_codes(row: str, named_codes: frozenset[str]) -> bool:
    """Whether a table row's text is keyed by numbered codes ("은행코드: 020 · 은행명: 우리은행") none of which is
    among ``named_codes``, those the question names: the row states another code's values, however well its other
    cells match the words asked. False when the question names no code."""
    if not named_codes:
        return False
    cells = [value.strip("`*'\" ").casefold() for _key, value in row_cells(row)]
    codes = {c for c in cells if numbered_code(c)}
    return bool(cells) and numbered_code(cells[0]) and not codes & {c.strip("`*'\" ").casefold() for c in named_codes}


def code_label(question: str, key: str) -> str:
    """The word ``question`` writes right before a row's code that it names ("은행코드" in "은행코드 005는 어느
    은행", "code" in "error code E3"), the column the question reads the code in: it says which row is asked, not
    what is asked of it. "" when the key is no code, the question does not write it, or nothing comes before."""
    if not _is_code(key):
        return ""
    code = key.strip("`*'\" ")
    found = re.search(rf"(\S+)\s+{re.escape(code)}(?![A-Za-z0-9_.-])", question, 0 if len(code) == 1 else re.I)
    return found.group(1) if found else ""


# A run of capitalised words ("Apple Silicon"): a name whose initials a table may write for it ("AS").
_CAPITALISED_RUN = re.compile(r"\b[A-Z][a-z]+(?:\s+[A-Z][a-z]+)+\b")


def _spells_initials(question: str, code: str) -> bool:
    """Whether ``question`` writes the name an abbreviation ``code`` stands for: "AS" for "… on Apple Silicon", the
    initials of consecutive capitalised words, as many as the code has letters (two to five capitals)."""
    if not (code.isalpha() and code.isupper() and 2 <= len(code) <= 5):
        return False
    for run in _CAPITALISED_RUN.findall(question):
        words = run.split()
        if any("".join(w[0] for w in words[i:i + len(code)]) == code for i in range(len(words) - len(code) + 1)):
            return True
    return False


def named_rows(store: ElementStore, hits: list[Hit], question: str, wanted: frozenset[str],
               query_vector: np.ndarray, scan: int = ContextConfig.named_row_scan) -> tuple[list[Hit], list[str]]:
    """``hits`` with each table row whose key the question does not name replaced, at its rank, by the row of the
    same table whose key it names (not already a hit); and a note per row moved. ``scan``: the rows of the hit
    tables read at most (``ContextConfig.named_row_scan``)."""
    unnamed = [h for h in hits if h.element.category == "TableRow" and h.element.parent_id
               and not writes_key(question, wanted, row_key(h.element.text))]
    if not unnamed:
        return hits, []
    unnamed_ids = {h.element_id for h in unnamed}
    tables = list(dict.fromkeys(h.element.parent_id for h in unnamed))
    rows = [x for x in store.read.expand([], tables, query_vector, max_depth=1, max_children=scan)
            if x.is_child and x.element.category == "TableRow"]
    taken = {h.element_id for h in hits}
    best: dict[str, tuple[int, Expanded]] = {}
    for row in rows:
        key = row_key(row.element.text)
        if row.element.element_id in taken or not writes_key(question, wanted, key):
            continue
        size = len(terms(key)) or 1
        table = row.element.parent_id or ""
        if table not in best or size > best[table][0]:
            best[table] = (size, row)
    out, notes = [], []
    for hit in hits:
        found = best.pop(hit.element.parent_id or "", None) if hit.element_id in unnamed_ids else None
        if found is None:
            out.append(hit)
            continue
        row = found[1]
        distance = hit.distance if row.distance is None else row.distance
        out.append(Hit(row.element, hit.rank, distance, hit.outside_scope))
        notes.append(f"the question names the row {row_key(row.element.text)!r}: "
                     f"it replaces {row_key(hit.element.text)!r} of the same table")
    return out, notes


def _pins(key: str) -> bool:
    """Whether a row key pins one thing down by itself: a code (one ASCII word) or a name of two words or more
    ("조회 가능 기간"); one plain word ("조회", "Linux") is a row of many tables."""
    return _is_code(key) or len(terms(key)) >= 2


def named_row_hit(store: ElementStore, hits: list[Hit], question: str, wanted: frozenset[str],
                  query_vector: np.ndarray, k: int, spelled: tuple[str, ...] = ()) -> tuple[list[Hit], list[str]]:
    """``hits`` with the row the question names by its key, found by its words anywhere in the collection, in the
    last place, when no hit is a row it names: a row whose key is the thing asked ("조회 가능 기간", "TSJ")
    defines it, where the hits may only mention it (a list of codes) or be about the words around it. The
    full-text search reads the ``k`` best matches of the question's words; of them, the best row whose key pins
    one thing down (:func:`_pins`) and that the question writes (:func:`writes_key`). ``spelled``: the fields the
    question asks in the other script as the collection writes them (``QuestionAnalysis.spelled``), searched with
    its words: a row states its field in its header cells ("설명" for "description"), which full-text search
    matches only as written."""
    if not hits or any(h.element.category == "TableRow" and writes_key(question, wanted, row_key(h.element.text))
                       for h in hits):
        return hits, []
    text = " ".join((question, *spelled))
    for hit, _score in fts_scored(store, text, query_vector, k, Scope.whole()):
        key = row_key(hit.element.text)
        if hit.element.category == "TableRow" and _pins(key) and writes_key(question, wanted, key):
            last = hits[-1]
            note = f"the question names the row {key!r}: it takes the last place"
            return [*hits[:-1], Hit(hit.element, last.rank, hit.distance)], [note]
    return hits, []


def rows_the_question_names(context: SearchContext, hits: list[Hit]) -> tuple[list[Hit], list[str]]:
    """The named-row stage: ``hits`` with the row the question names by its key in place of a neighbour row of its
    table (:func:`named_rows`), or in the last place (:func:`named_row_hit`); and its notes. Asked which release,
    the answer is a changelog entry, not the definition of the thing it names: no row is moved."""
    if not context.stages.context.named_rows or asks_which_release(context.question):
        return hits, []
    terms_asked = context.analysis.terms
    hits, moved = named_rows(context.store, hits, context.question, terms_asked, context.vector,
                             context.stages.context.named_row_scan)
    hits, pinned = named_row_hit(context.store, hits, context.question, terms_asked, context.vector,
                                 context.stages.probe.k, context.analysis.writes_in_script_of_spelled())
    return hits, moved + pinned
