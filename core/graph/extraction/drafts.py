"""What entity extraction (offline or LLM) produces before the graph is built: sentences, entity drafts with
how each was found, relationship drafts, and where each entity is mentioned."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from core.elements import row_cells
from core.graph.extraction.text_units import ElementInfo
from core.store.graph_records import TextUnit
from core.text import split_sentences, table_sentences

# How a candidate was found. A *field* is a table header cell, the key of a ``key : value`` item or a bold lead-in
# ("**NEW**: …"): an attribute of its row or section. A *label* is a heading. A *name* is evidence that the words
# name something (CamelCase, a model code, a capitalised multi-word name, a spaCy entity, a Korean proper noun or
# institution, a person); an *acronym* is weaker evidence, since labels are often set in capitals (NEW, FIX).
ROLE_FIELD = "field"
ROLE_LABEL = "label"
ROLE_NAME = "name"
ROLE_ACRONYM = "acronym"
ROLE_CODE = "code"
ROLE_MARKUP = "markup"  # emphasis, link text, first-column cell
ROLE_WEAK = "weak"  # a single capitalised word, a Korean common-noun run

# Most specific first: when one name is seen with several types, the first in this order wins.
TYPE_PRIORITY: tuple[str, ...] = (
    "PERSON", "ORGANIZATION", "LOCATION", "PRODUCT", "EVENT", "CODE", "TERM", "NAME", "CONCEPT", "HEADING",
)  # fmt: skip
_TYPE_RANK = {t: i for i, t in enumerate(TYPE_PRIORITY)}

SKIPPED_CATEGORIES = frozenset({"CodeSnippet", "UncategorizedText"})


# -- records ----------------------------------------------------------------------------------------


@dataclass
class Sentence:
    """A sentence (or a heading, list item, table row) of an element: the unit of co-occurrence."""

    index: int
    text: str
    element_id: str
    unit_id: str
    category: str


@dataclass
class EntityDraft:
    """A merged entity before ids: all surface forms and type votes seen for one normalised key."""

    key: str
    names: Counter = field(default_factory=Counter)
    first_seen: dict[str, int] = field(default_factory=dict)
    types: Counter = field(default_factory=Counter)
    descriptions: list[str] = field(default_factory=list)
    strong: bool = False
    units: set[str] = field(default_factory=set)
    roles: Counter = field(default_factory=Counter)  # how it was found: see ROLE_* above
    label_sections: set[tuple[str, ...]] = field(default_factory=set)  # sections where it is a field label
    code_units: set[str] = field(default_factory=set)  # text units where it is an inline code span

    def add(
        self, name: str, type_: str, unit_id: str, *, strong: bool, order: int, description: str = "",
        role: str = "", section: tuple[str, ...] = (),
    ) -> None:  # fmt: skip
        self.names[name] += 1
        self.first_seen.setdefault(name, order)
        self.types[type_] += 1
        self.strong = self.strong or strong
        if unit_id:
            self.units.add(unit_id)
        if role:
            self.roles[role] += 1
            if role == ROLE_LABEL:
                self.label_sections.add(section)
            elif role == ROLE_CODE and unit_id:
                self.code_units.add(unit_id)
        if description and description not in self.descriptions:
            self.descriptions.append(description)

    @property
    def title(self) -> str:
        return min(self.names, key=lambda n: (-self.names[n], self.first_seen[n]))

    @property
    def type(self) -> str:
        return min(self.types, key=lambda t: (_TYPE_RANK.get(t, len(TYPE_PRIORITY)), -self.types[t], t))


@dataclass
class RelationshipDraft:
    """A relationship stated by an LLM (offline relationships come from co-occurrence instead)."""

    source: str  # entity key
    target: str
    descriptions: list[str] = field(default_factory=list)
    weight: float = 0.0
    units: set[str] = field(default_factory=set)


@dataclass
class Extraction:
    """What extraction found, before the graph is built: drafts and where each entity is mentioned."""

    mode: str  # "offline" | "llm"
    sentences: list[Sentence]
    entities: dict[str, EntityDraft]
    mentions: dict[str, list[int]]  # entity key -> sentence indices, ascending
    relationships: dict[tuple[str, str], RelationshipDraft] = field(default_factory=dict)
    skipped_records: int = 0
    llm_calls: int = 0
    cached_calls: int = 0
    fallback_units: frozenset[str] = frozenset()  # "llm": units whose entities are the offline extractor's


# -- sentences --------------------------------------------------------------------------------------


def build_sentences(units: Sequence[TextUnit], infos: dict[str, ElementInfo]) -> list[Sentence]:
    """The sentences of every element, in unit and document order; code and raw HTML are skipped."""
    out: list[Sentence] = []
    for unit in units:
        for element_id in unit.element_ids:
            el = infos[element_id]
            for text in element_sentences(el):
                out.append(Sentence(len(out), text, element_id, unit.id, el.category))
    return out


def element_sentences(el: ElementInfo) -> list[str]:
    if el.category in SKIPPED_CATEGORIES:
        return []
    text = el.text.strip()
    if not text:
        return []
    if el.category == "Title" or el.category == "Image":
        return [" ".join(text.split())]
    if el.category == "Table":
        return table_sentences(text)[2]  # a table stored whole; a Table holding only its header has none
    if el.category == "TableRow":  # one row of a table, read as a table's row sentence ("Header: cell; …")
        return ["; ".join(f"{h}: {c}" if h else c for h, c in row_cells(text) if c)]
    if el.category == "ListItem" and " : " in text and "\n" not in text:
        return [text]
    return split_sentences(text)
