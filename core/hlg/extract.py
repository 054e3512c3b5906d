"""The offline summarisation tier of the hierarchical lexical graph: statements, facts and entity mentions read
from a document's elements, with no model.

* A **statement** is one sentence, list item or table row, made self-contained by its heading path (the HLG's
  "atomic proposition"; offline, the path is what resolves "it" and "this lab"). Korean prose is split into
  sentences by Kiwi, the analyser :mod:`core.textnorm` already loads; other prose by :func:`core.text.split_sentences`.
* A **fact** is a subject–predicate–object triple: a ``key : value`` item whose subject is the nearest heading, a
  table row's cells whose subject is the row's first cell, and each pair of names one statement mentions together.
* An **entity** is a name by its merge key (:func:`core.text.normalize_name`, the GraphRAG index's key too): the
  statement's nearest heading (its subject), the headings above it, the names the heading vocabulary finds in its
  text, and quoted names. A stop word or a function word is never an entity, so it can never join two statements.

Bounded by :class:`Limits`: an element yields at most ``per_element`` statements of at most ``max_chars`` characters
each, and a document at most ``per_document``; every cut is said (:attr:`DocumentStatements.cuts`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from core.elements import Element, row_cells
from core.graph.extraction.lexicon import english_stop_words
from core.text import normalize_name, split_sentences, table_sentences, words
from core.textnorm import has_hangul, is_function_word, kiwi_split_sentences

__all__ = [
    "DocumentStatements",
    "DraftFact",
    "DraftStatement",
    "Limits",
    "Vocabulary",
    "document_statements",
    "entity_key",
    "key_value",
    "make_statement",
]

SKIPPED = frozenset({"Title", "CodeSnippet", "UncategorizedText", "Image"})
MAX_EMBED_CHARS = 2000  # core.ingest.embedding's cut: a statement embeds the same head of its text
MAX_NAME_WORDS = 6
MAX_VALUE_ENTITY_CHARS = 40
MAX_PAIRS_PER_STATEMENT = 10

_KEY_VALUE = re.compile(r"^\s*(?:[*_`]+)?(?P<key>[^:\n]{1,60}?)(?:[*_`]+)?\s*:\s+(?P<value>\S.*)$")
_QUOTED = re.compile(r"['‘’\"“”「」『』]([^'‘’\"“”「」『』\n]{2,40})['‘’\"“”「」『』]")


@dataclass(frozen=True)
class Limits:
    """How much one element and one document may yield; past them the rest is cut and the cut is said."""

    per_element: int = 200
    per_document: int = 20_000
    max_chars: int = 1_000

    def __post_init__(self) -> None:
        if min(self.per_element, self.per_document, self.max_chars) < 1:
            raise ValueError("statement limits must be at least 1")


@dataclass(frozen=True)
class DraftFact:
    subject: str
    predicate: str
    object: str
    kind: str  # "attribute" (key : value), "row" (a table row's cell), "co-mention" (two names in one statement)

    @property
    def key(self) -> str:
        """One row per distinct fact across the corpus: the triple by its names' merge keys."""
        return "\x1f".join((entity_key(self.subject), normalize_name(self.predicate) or self.predicate.strip(),
                            entity_key(self.object) or self.object.strip().casefold(), self.kind))


@dataclass(frozen=True)
class DraftStatement:
    element_id: str
    element_since: int
    document_id: str
    ordinal: int
    kind: str  # "sentence", "item", "row"
    text: str
    heading_path: tuple[str, ...]
    topic: str  # the element id of the heading section it belongs to ("" at a document's top)
    entities: tuple[tuple[str, str, str], ...] = ()  # (key, name, role): role "subject", "path" or "name"
    facts: tuple[DraftFact, ...] = ()

    @property
    def self_contained(self) -> str:
        """The statement as it reads alone: its heading path, then its text."""
        return " > ".join([*(p for p in self.heading_path if p), self.text])

    @property
    def embedding_text(self) -> str:
        return self.self_contained[:MAX_EMBED_CHARS]


@dataclass
class DocumentStatements:
    statements: list[DraftStatement] = field(default_factory=list)
    cuts: list[str] = field(default_factory=list)


def entity_key(name: str) -> str:
    """The merge key of a name, or "" when it may not be an entity (empty, one character, a number, a stop word
    or function word): such a word would join every statement that uses it."""
    key = normalize_name(name)
    if len(key) < 2 or key.isdigit():
        return ""
    toks = words(name)
    stop = english_stop_words()
    if toks and all((is_function_word(t) if has_hangul(t) else (t.casefold() in stop or len(t) < 2)) for t in toks):
        return ""
    return key


class Vocabulary:
    """The names a statement's text is looked up for (the collection's heading titles): word n-grams of merge
    keys, longest match first, Korean particles stripped (``core.graph.extraction.mentions``)."""

    def __init__(self, names: Iterable[str]) -> None:
        from core.graph.extraction.mentions import MentionMatcher

        drafts: dict[str, _Names] = {}
        for name in names:
            key = entity_key(name)
            if key and len(words(name)) <= MAX_NAME_WORDS:
                drafts.setdefault(key, _Names()).names.append(name)
        self.names = {key: d.names[0] for key, d in drafts.items()}
        self._matcher = MentionMatcher(drafts)  # type: ignore[arg-type]

    def find(self, text: str) -> list[str]:
        return self._matcher.find(text)


@dataclass
class _Names:
    names: list[str] = field(default_factory=list)


def _sentences(text: str) -> list[str]:
    if has_hangul(text):
        return [s for line in text.splitlines() if line.strip() for s in kiwi_split_sentences(line.strip())]
    return split_sentences(text)


def _pieces(el: Element) -> list[tuple[str, str]]:
    """(kind, text) of each statement an element holds, before limits."""
    text = el.text.strip()
    if el.category in SKIPPED or not text:
        return []
    if el.category == "TableRow":
        return [("row", text)]
    if el.category == "Table":
        return [("row", row) for row in table_sentences(text)[2]]
    if el.category == "ListItem":
        if "\n" not in text and _KEY_VALUE.match(text):
            return [("item", text)]
        return [("item", s) for s in _sentences(text)]
    return [("sentence", s) for s in _sentences(text)]


def key_value(text: str) -> tuple[str, str] | None:
    """``(key, value)`` of a ``key : value`` statement ("실장 : 백승우"), else None."""
    kv = _KEY_VALUE.match(text)
    return (kv.group("key").strip(), kv.group("value").strip()) if kv else None


def _facts(kind: str, text: str, subject: str, names: Sequence[tuple[str, str]]) -> tuple[list[DraftFact],
                                                                                        list[tuple[str, str]]]:
    """The facts of one statement and the extra names they make entities (a row's first cell, a short value)."""
    facts: list[DraftFact] = []
    extra: list[tuple[str, str]] = []
    if kind == "row":
        cells = [(h, c) for h, c in row_cells(text.replace("; ", " · ")) if c]
        if cells:
            row_subject = cells[0][1]
            if entity_key(row_subject):
                extra.append((row_subject, "name"))
                facts += [DraftFact(row_subject, h or "cell", c, "row") for h, c in cells[1:]]
    elif kind == "item" and subject:
        kv = key_value(text)
        if kv:
            key, value = kv
            facts.append(DraftFact(subject, key, value, "attribute"))
            if len(value) <= MAX_VALUE_ENTITY_CHARS and entity_key(value):
                extra.append((value, "name"))
    named = sorted({entity_key(n): n for n, _role in names if entity_key(n)}.items())
    pairs = [(a, b) for i, a in enumerate(named) for b in named[i + 1:]][:MAX_PAIRS_PER_STATEMENT]
    facts += [DraftFact(a[1], "co-mentioned with", b[1], "co-mention") for a, b in pairs]
    return facts, extra


def document_statements(elements: Sequence[Element], vocabulary: Vocabulary | None = None,
                        limits: Limits | None = None) -> DocumentStatements:
    """The statements of one document's elements (in document order), with their entities and facts."""
    limits = limits or Limits()
    out = DocumentStatements()
    by_id = {e.element_id: e for e in elements}
    for el in sorted(elements, key=lambda e: e.order):
        pieces = _pieces(el)
        if pieces and len(out.statements) >= limits.per_document:
            out.cuts.append(f"{el.document_id}: the document holds more than {limits.per_document} statements; "
                            "the rest were not made into statements")
            break
        if len(pieces) > limits.per_element:
            out.cuts.append(f"{el.document_id}: element {el.element_id} holds {len(pieces)} statements; "
                            f"the first {limits.per_element} were kept")
            pieces = pieces[: limits.per_element]
        topic = _topic(el, by_id)
        path = tuple(p for p in el.heading_path if p)
        room = limits.per_document - len(out.statements)
        if len(pieces) > room:
            out.cuts.append(f"{el.document_id}: the document holds more than {limits.per_document} statements; "
                            "the rest were not made into statements")
            pieces = pieces[:room]
        for ordinal, (kind, text) in enumerate(pieces):
            if len(text) > limits.max_chars:
                out.cuts.append(f"{el.document_id}: a statement of element {el.element_id} is {len(text)} "
                                f"characters; its first {limits.max_chars} were kept")
                text = text[: limits.max_chars]
            out.statements.append(make_statement(el.element_id, el.since_version, el.document_id, ordinal, kind,
                                                 text, path, topic, vocabulary))
    return out


def make_statement(element_id: str, element_since: int, document_id: str, ordinal: int, kind: str, text: str,
                   path: tuple[str, ...], topic: str, vocabulary: Vocabulary | None) -> DraftStatement:
    """One statement with its entities (its subject heading, the headings above, the names it holds) and facts;
    an LLM proposition (:mod:`core.hlg.llm`) is made into a statement the same way."""
    subject = path[-1] if path else ""
    names = [(subject, "subject")] if subject else []
    names += [(p, "path") for p in path[:-1]]
    found = vocabulary.find(text) if vocabulary is not None else []
    names += [(vocabulary.names[k], "name") for k in found if vocabulary is not None]
    names += [(m.group(1).strip(), "name") for m in _QUOTED.finditer(text)]
    facts, extra = _facts(kind, text, subject, [(n, r) for n, r in names if r == "name"] + (
        [(subject, "subject")] if subject else []))
    entities: dict[str, tuple[str, str, str]] = {}
    for name, role in [*names, *extra]:
        key = entity_key(name)
        if key and key not in entities:
            entities[key] = (key, name, role)
    return DraftStatement(element_id, element_since, document_id, ordinal, kind, text, path, topic,
                          tuple(entities.values()), tuple(dict.fromkeys(facts)))


def _topic(el: Element, by_id: dict[str, Element]) -> str:
    """The heading section an element belongs to: its nearest heading ancestor's id ("" at the top)."""
    parent = by_id.get(el.parent_id or "")
    seen = 0
    while parent is not None and not parent.is_heading and seen < 64:
        parent = by_id.get(parent.parent_id or "")
        seen += 1
    return parent.element_id if parent is not None and parent.is_heading else ""
