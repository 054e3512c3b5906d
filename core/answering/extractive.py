"""The extractive answerer: no model, the best element of the context quoted with its citation.

It scores every element of the context against the question (the vector search's cosine similarity plus lexical
overlap, with Korean character bigrams) and quotes the best one. With a hierarchical context the heading path is
part of the evidence, both for scoring (a model name in the question matches the product heading) and in the
answer (it says which product or section the value belongs to); a plain context has no path, so it can only quote
the element.

A comparative, superlative or list question is answered from a comparison table instead
(:mod:`core.answering.table`). When the question names a heading (its scope), a hit kept from outside it is never
quoted as the answer: if nothing inside states the attribute, the answer says "not stated for X" and may add what
the outside hit states, as a labelled aside.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from dataclasses import replace

from core.answering import parts as answer_parts
from core.answering import prompts
from core.answering.asked_words import asks_what_it_does, asks_whether, placed_by_translation, words_of
from core.answering.evidence import Evidence
from core.answering.instructions import instruction_first
from core.answering.named_sections import (
    definitions_first,
    heading_name_terms,
    named_sections_of,
    section_key,
    spelled_sections_of,
)
from core.answering.neighbours import code_with_its_prose, items_after, lead_in_items, steps_of
from core.answering.parts import clause_description, counted_units, units_for_parts, value_of_section
from core.answering.releases import asks_which_release, dated_release, mentions_last, release_of
from core.answering.sentences import asked_sentence, opening_sentence
from core.answering.subjects import documented_names, key_match, named_options_of, named_subjects_of, worded_options_of
from core.answering.table import ComparisonTable, build_table
from core.quantities import is_unit
from core.retrieval import Context
from core.retrieval.definitions import command_flags
from core.retrieval.named_rows import code_label, numbered_code, states_other_codes
from core.retrieval.shape import asks_how, bridge_cue, name_runs, question_shape
from core.retrieval.word_forms import clipped, matches, prose_words
from core.site_markup import as_shown, is_markup_only
from core.statements import (
    documented_statement,
    is_lead_in,
    kebab_words,
    option_heading,
    option_share,
    question_terms,
    statement,
    states_default,
    table_cell,
    terms,
    terms_with_parts,
)
from core.text import clip

__all__ = ["Evidence", "ExtractiveAnswerer", "is_lead_in", "score_evidence"]

SEMANTIC_WEIGHT = 0.75
TEXT_WEIGHT = 0.5  # share of the question's terms in the element's own text
PATH_WEIGHT = 0.6  # share found only in its heading path: the product, API or section the question names
ATTRIBUTE_WEIGHT = 0.5  # the element states the attribute asked about ("Weight : …", "`timeout` … Default: …")
VALUE_WEIGHT = 0.3  # the element states a value at all (key : value, Default:, table cell)
DEFAULT_WEIGHT = 0.2  # asked for a default, the element stating the asked attribute's default value
WEAK_SCORE = 0.35
EXCERPT_CHARS = 300
# Without a stated attribute, an element answers when this share of the question's terms (other than those
# naming a heading) is in its text, or when the vector search found it this close.
ANSWER_MIN_TEXT_OVERLAP = 0.1
ANSWER_MIN_SIMILARITY = 0.5
# A remark that the value includes something ("180 W (including USB-C charging)", "140 W (USB-C 충전 포함)")
# names a part of a total: asked for that part, the element states the whole, not the part's value.
INCLUDED_PART_PENALTY = 0.2
# The thing the element documents is named by the question: the option heading above it ("### trDt" › "설명: …"
# for "trDt 설명 알려줘"), or a table row's first cell ("은행: 국민은행 · …" for "국민은행 정기점검 시간?"). A sibling
# option's item or another row states the same key of another thing, and a page that only mentions the name
# documents nothing under it.
NAMED_SUBJECT_WEIGHT = 0.3
# Within a section the question names (an FAQ question heading, a heading named whole), a paragraph scoring within
# this of the section's best and coming before it is the answer's lead (what follows qualifies it).
SECTION_FIRST_MARGIN = 0.1
_INCLUSION_REMARK = re.compile(r"\((?:including|incl\.|includes)\s[^()]*\)|\([^()]*\s포함\)", re.I)

_AMOUNT = re.compile(r"\d+(?:[.,]\d+)?\s*([A-Za-z%°µ]+)")


def _amounts(text: str) -> int:
    """How many amounts with a unit ``text`` states ("90W", "65 W", "2.9 kg")."""
    return sum(1 for unit in _AMOUNT.findall(text) if unit == "%" or is_unit(unit))


def score_evidence(question: str, context: Context) -> list[Evidence]:
    """Context elements that can hold an answer, best first.

    Ancestors are headings that frame the evidence, not evidence themselves. An element scores by its vector
    similarity, the question's terms in its text, the terms found only in its heading path (where the context
    has one: the product or API the question names), and whether it states the attribute asked about.
    """
    written = terms(question)
    wanted = question_terms(question, context.lexicon) | answer_parts.run_together(question, context)
    # A heading the question names whole ("Dispatcher", "Class: Pool", "Aster H2") is where to look, wherever it
    # sits in the context: its terms never count as the attribute asked about.
    # Only the headings above the evidence inside the scope: an FAQ question heading above a hit kept from
    # outside ("Q. 모니터에 스피커가 있나요?") names no place the question asked about.
    inside = {p for e in context.elements if not e.outside_scope and e.role != "ancestor" for p in e.path}
    outside = {p for e in context.elements if e.outside_scope for p in e.path} - inside
    headings = {e.text for e in context.elements if e.category == "Title" and not e.outside_scope
                and e.text not in outside} | inside
    # An option's own heading ("##### inflate", "### `bodyLimit`") names what is asked, not where.
    # A code and its title ("MD004 - Unordered list style") are named by the title: the code is what is asked.
    named = frozenset(t for h in headings if option_heading(h) is None and (ts := heading_name_terms(h))
                      and ts <= wanted for t in ts)
    by_id = {e.element_id: e for e in context.elements}
    own_subjects = {e.element_id: documented_names(e) for e in context.elements}
    # the word that reads a row's code the question writes ("은행코드 005는 어느 은행?") names the row, as a heading
    # does: the row's other cells are asked ("은행명"), not another row's "은행코드" cell
    named |= frozenset(t for e in context.elements if e.category == "TableRow" and not e.outside_scope
                       for s in own_subjects[e.element_id] if (label := code_label(question, s)) for t in terms(label))
    named_options = named_options_of(question, wanted, context)
    named_subjects = named_subjects_of(question, wanted, context, own_subjects, named_options)
    # the numbered codes the question names by a row ("005", "TS2"): a row of other codes only states theirs
    named_codes = frozenset(s for s in named_subjects if numbered_code(s))
    naming_sections = {(e.document_id, e.path) for e in context.elements
                       if not e.outside_scope and not named_subjects.isdisjoint(own_subjects[e.element_id])}
    names = terms(" ".join(name_runs(question)))
    named_sections = named_sections_of(wanted, context, names) | spelled_sections_of(question, context)
    asks_default, describes, how = bool(wanted & _default_terms()), asks_what_it_does(question), asks_how(question)
    # a heading in words is named by a name the question writes in code as well ("force_sort_within_sections")
    spelled = wanted | terms(" ".join(words_of(wanted)))
    worded_options = worded_options_of(question, wanted, context) if asks_default else frozenset()
    # asked which of several things is most or more, a line stating their amounts side by side states the values
    # compared ("Nova 32UX는 최대 90W, Nova 34WC는 최대 65W로 충전합니다."), as a key : value item states one
    shape = question_shape(question)
    compares = shape is not None and shape.kind in ("superlative", "compare")
    # a clipped word ("async", "config") is held by a text writing its whole ("asynchronous"), as the heading scope
    # reads it (core.retrieval.word_forms), above those repeating the tool's name
    clipped_words = frozenset(w for w in written & wanted if clipped(w))
    # a lead-in sentence and the items after it are one unit to the reader: it holds the words of those stating a
    # value, and states one through them ("Integration 테스트는 vcrpy를 사용하여 …:" › "첫 실행: …")
    units = lead_in_items(context)
    typed_flags = frozenset(command_flags(question))
    read = []
    for element in (e for e in context.elements if e.role != "ancestor"):
        text_terms = terms_with_parts(element.text)
        if clipped_words - text_terms:
            text_terms |= _clipped_held(clipped_words - text_terms, element.text)
        # a kebab-case heading the question names by its words ("the fetch timeout", "which container engine")
        # places them; one it writes whole does not place its parts again ("type for npm auth-type" asks `Type:`)
        own_path_terms = terms(" ".join(element.path)).union(
            *(kebab_words(h) for h in element.path if not terms(h) <= wanted))
        path_terms = own_path_terms - text_terms
        # Terms naming a heading above this element (the product, the API) say where, not what: the element
        # answers by the rest ("weight", "default", "bodyTimeout"). A path that restates the whole question (an
        # FAQ heading) leaves nothing to ask: any content under it answers. A word whose other script's name the
        # path holds ("license" under "## 라이선스") is placed too.
        unplaced = wanted - own_path_terms - placed_by_translation(own_path_terms, context.lexicon)
        asked = unplaced - named
        stated = statement(unplaced, element.text, element.category)
        # only the items stating a value of their own continue the sentence ("…: 첫 실행: … 녹화"); one stating
        # nothing is a choice among several, which the question picks by its own words ("Commit with type fix")
        items = [i for i in units.get(element.element_id, []) if statement(unplaced, i.text, i.category)]
        for item in items:
            text_terms = text_terms | terms_with_parts(item.text)
        path_terms = own_path_terms - text_terms
        unit_states = bool(items)
        text_lex = len(wanted & text_terms) / len(wanted) if wanted else 0.0
        path_lex = len(wanted & path_terms) / len(wanted) if wanted else 0.0
        parent = by_id.get(element.parent_id or "")
        if stated and not stated[0] and parent is not None:
            # a bare "Default: x" paragraph documents the item it belongs to ("`end_url`: String to append …")
            owner = statement(unplaced, parent.text, parent.category)
            stated = (owner[0], stated[1]) if owner else stated
        by_heading = False
        if stated and not stated[0] and element.path:
            # else the option heading it sits under ("### `bodyLimit`" › "+ Default: `1048576`")
            # a kebab-case option heading keys it when the question names that option ("sbom-type", "the script
            # shell"): another option's bare line is keyed by nothing the question asks
            # so does a heading in words the question names ("## Wrap Length" › "Default: 0" for "wrap length
            # default?"): else a line under another option mentioning both words and a default outranks it
            dashed = asks_default and element.path[-1] in named_options
            stated, by_heading = documented_statement(unplaced, element.text, element.category, element.path[-1],
                                                      dashed=dashed, worded=element.path[-1] in worded_options)
            # asked what the option does, how to do a thing with it, or whether it does one: its bare default
            # line says nothing of it (asked its default, it answers)
            if by_heading and (describes or (not asks_default and (how or asks_whether(question)))):
                stated, by_heading = None, False
        read.append((element, text_terms, unplaced, asked, text_lex, path_lex, stated, by_heading, unit_states))
    # The words the context's statements state, in a key or a value. A key is measured against the asked words
    # among these only: the rest (the words asking for a default, a word's translations, a name the context
    # never states) no statement holds, so they tell no key from another.
    key_words = frozenset(t for r in read if r[6] for w in [terms(f"{r[6][0]} {r[6][1]}")] for t in w | words_of(w))
    scored = []
    for element, text_terms, unplaced, asked, text_lex, path_lex, stated, by_heading, unit_states in read:
        key_terms = terms(stated[0]) if stated else frozenset()
        if not key_terms & asked:  # an identifier key asked by its words ("log level" for KAKAO_MCP_LOG_LEVEL)
            key_terms = words_of(key_terms)
        # the share of the stated key the question asks for ("Weight (with stand)" fully, "Dimensions without
        # stand" a quarter); names of headings do not count, they say where, not what, except the option heading
        # whose value the element states: named by the question, it is the attribute asked
        attribute = (option_share(spelled if stated[0] in worded_options else wanted, stated[0])
                     if by_heading and stated else key_match(asked, key_terms, names, key_words))
        if not attribute and key_terms:
            # the key repeats a section heading above it ("Dimensions & Weight › Weight with stand"): still the
            # attribute asked about, counted at half weight
            attribute = 0.5 * len((wanted - named) & key_terms) / len(key_terms)
        if asks_default and attribute > 0 and not states_default(element.text):
            attribute *= 0.5  # asked for a default, an item describing the option without one half answers
        semantic = element.similarity or 0.0
        in_named_section = section_key(element) in named_sections
        own_subject = own_subjects[element.element_id]
        names_own = not named_subjects.isdisjoint(own_subject)
        # in a section the question names, a row or option item of another thing than the one whose key the
        # question spells ("KAKAO_MCP_LOG_DIR" beside "KAKAO_MCP_LOG_LEVEL") is its neighbour, not what it documents
        neighbour = bool(own_subject) and not names_own and (element.document_id, element.path) in naming_sections
        documents_named = (in_named_section and not neighbour) or names_own
        is_title = element.category == "Title"
        score = (SEMANTIC_WEIGHT * semantic + TEXT_WEIGHT * text_lex + PATH_WEIGHT * path_lex
                 + ATTRIBUTE_WEIGHT * attribute
                 # a bare default line keyed by an option heading the question does not name is another option's
                 + VALUE_WEIGHT * ((bool(stated) and not (by_heading and not attribute)) or unit_states
                                   or (compares and _amounts(element.text) >= 2))
                 + DEFAULT_WEIGHT * (asks_default and attribute > 0 and states_default(element.text))
                 - INCLUDED_PART_PENALTY * _asks_an_included_part(asked, element.text, stated)
                 + NAMED_SUBJECT_WEIGHT * documents_named)
        # every word the question writes placed by the path ("what does --fast do?" under "--fast / --safe"): a
        # word only the lexicon added ("speed" for "fast") asks nothing the element must repeat
        asked_overlap = len(asked & text_terms) / len(asked) if asked & written else 1.0
        # a statement about the thing the question names answers it, though its key is in another language
        # ("설명: …" under "### trDt" for "trDt description?")
        other_codes = element.category == "TableRow" and states_other_codes(element.text, named_codes)
        # a unit that is only a flag the question types (the item "--float-to-top" of its option's flag list) tells
        # nothing about it; a longer text the question quotes (a changelog entry asked which release) still answers
        echoes = element.text.strip() in typed_flags or is_markup_only(element.text)  # a block's fence: markup
        answers = not is_title and not other_codes and not echoes and (
            attribute > 0 or asked_overlap >= ANSWER_MIN_TEXT_OVERLAP or semantic >= ANSWER_MIN_SIMILARITY
            or (documents_named and (bool(stated) or element.category == "TableRow")) or in_named_section
        )
        key, value = stated if stated else (None, None)
        cell = table_cell(unplaced, element.text) if stated and element.text.lstrip().startswith("|") else None
        # a table row is one unit: quoted whole, its row name and every header with it; a long text under an option
        # heading by its sentence holding the question's other words; prose as the site shows it (core.site_markup)
        own_name = terms(option_heading(element.path[-1]) or "") if element.path else frozenset()
        code = element.category == "CodeSnippet"
        excerpt = (" ".join(element.text.split()) if element.category == "TableRow" else cell[2] if cell else _excerpt(
            as_shown(element.text, element.category), wanted - own_name or wanted, value,
            written - own_name, code=code, how=how))
        scored.append(Evidence(element, score, semantic, text_lex + path_lex, excerpt, key, value, answers,
                               attribute))
    scored = _description_when_asked_what(question, scored)
    scored = instruction_first(question, _by_asked_question(scored, context, named_sections, describes), context)
    return code_with_its_prose(_after_what_follows(scored, context), context)


_QUESTION_MARK = re.compile(r"[?？]")

# Asking what a thing is ("what is svcAmt?", "what does --fast do", "svcAmt 파라미터가 뭐야?", "무슨 뜻이에요"):
# the question words of both languages, not any corpus's words.
_ASKS_WHAT = re.compile(
    r"\bwhat(?:'s|\s+is|\s+are|\s+does\b.*\b(?:mean|do|stand\s+for))\b|\b(?:describe|explain)\b"
    r"|(?:뭐|무엇|뭔)(?:야|예요|에요|이야|이에요|인가요|입니까|인지|지|죠|니|냐|가요|데|임)?\s*[?？]?\s*(?:\([^()]*\))?\s*$"
    r"|무슨\s*뜻|뜻이|의미(?:가|는|예요|야)|설명해", re.I)
@functools.cache
def _description_terms() -> frozenset[str]:
    """The keys that say what a thing is, in both languages: asked what it is, this item is the answer, not its type,
    example or default. Read on first use, not at import: the Korean analyser takes seconds to load, which every
    process importing the answerers paid (a CLI run, an app server, a test's child process), Korean or not."""
    return terms("description summary overview definition purpose explanation 설명 개요 요약 정의 의미 용도")


def _description_when_asked_what(question: str, scored: list[Evidence]) -> list[Evidence]:
    """Asked what a thing is, and no statement of the context states an attribute the question names, a statement
    whose key describes ("설명: 봉사료" beside "타입: N(10)" under "### svcAmt") states the attribute asked: it
    scores as a key fully asked for (``ATTRIBUTE_WEIGHT``). A question that names a key ("svcAmt 타입이 뭐야")
    keeps its key."""
    if not _ASKS_WHAT.search(question) or any(e.attribute > 0 for e in scored):
        return scored
    out = []
    for evidence in scored:
        key = evidence.key.rsplit(" — ", 1)[-1] if evidence.key else ""
        if key and terms(key) & _description_terms() and evidence.element.category != "Title":
            evidence = replace(evidence, score=evidence.score + ATTRIBUTE_WEIGHT, attribute=1.0, answers=True)
        out.append(evidence)
    return out


def _by_asked_question(scored: list[Evidence], context: Context,
                       named_sections: frozenset[tuple[str, tuple[str, ...]]] = frozenset(),
                       describes: bool = False) -> list[Evidence]:
    """Evidence ranked with an FAQ's question headings read as part of the evidence under them.

    An FAQ answers a question in the paragraphs below its heading ("Which Python versions does Black support?",
    "Q. 모니터에 스피커가 있나요?"). The embedder measures the question asked against that heading far better than
    against any one paragraph of the answer, which rarely repeats the question's words. So the section is the
    unit first: it ranks by its best paragraph scored with the heading's similarity where that is the closer
    (and the paragraph answers when that similarity would), against the rest of the evidence as it scores; within
    the section, its paragraphs keep their order of score, but for its lead
    (:func:`_section_leads_with_its_first`). A section whose own heading the question names whole
    (``named_sections``) is such a unit too: its first paragraph says what the section documents, before the
    examples and printed output after it. A hit that only mentions the words (a changelog line, a "see also"
    elsewhere) no longer outranks the section the question was asked closest to."""
    asked = {(e.document_id, (*e.path, e.text)): e.similarity for e in context.elements
             if e.category == "Title" and e.similarity is not None and _QUESTION_MARK.search(e.text)}
    if context.mode != "hierarchical":
        asked = {}
    section_of: dict[str, tuple[str, tuple[str, ...]]] = {}
    out = []
    for evidence in scored:
        element = evidence.element
        section = next(((element.document_id, element.path[:n]) for n in range(len(element.path), 0, -1)
                        if (element.document_id, element.path[:n]) in asked), None)
        if section is None and (element.document_id, element.path) in named_sections:
            section = (element.document_id, element.path)
        if section is None or element.category == "Title":
            out.append(evidence)
            continue
        heading_similarity = asked.get(section) or 0.0
        section_of[element.element_id] = section
        gain = SEMANTIC_WEIGHT * max(0.0, heading_similarity - evidence.semantic)
        answers = evidence.answers or heading_similarity >= ANSWER_MIN_SIMILARITY
        out.append(replace(evidence, answers=answers, section_score=evidence.score + gain))
    best: dict[tuple[str, tuple[str, ...]], float] = {}
    for evidence in out:
        if (section := section_of.get(evidence.element.element_id)) is not None and evidence.answers:
            best[section] = max(best.get(section, float("-inf")), evidence.section_score)

    def unit_score(evidence: Evidence) -> float:
        section = section_of.get(evidence.element.element_id)
        return best.get(section, evidence.score) if section is not None else evidence.score

    ranked = sorted(out, key=lambda e: (-e.answers, -unit_score(e), -e.score,
                                        e.element.rank if e.element.rank is not None else 1_000_000))
    return _section_leads_with_its_first(ranked, section_of, context, frozenset(asked), describes)


def _section_leads_with_its_first(ranked: list[Evidence], section_of: dict[str, tuple[str, tuple[str, ...]]],
                                  context: Context,
                                  asked: frozenset[tuple[str, tuple[str, ...]]] = frozenset(),
                                  describes: bool = False) -> list[Evidence]:
    """A section's answer leads with what it answers ("Not yet", "Black provides no options to configure the
    indentation style"; "get_shorting_balance_by_date 메서드는 …" before the frame it prints): of the section's
    paragraphs that answer and score within ``SECTION_FIRST_MARGIN`` of its best, the first in the document
    leads the section. A table row is measured against the other rows, never put first by its place. A lead-in
    before a table's rows, or before items that state values of their own, is no answer by itself (they are
    quoted instead, :func:`_after_what_follows`). Under an FAQ question heading (``asked``), a lead that is one
    step of a list is quoted with its list (:func:`steps_of`). Asked what the thing does (``describes``), a code
    example leading the section (it only sets the option the heading names), or a line of its metadata (its type,
    default and flags, ``Evidence.states_unasked``), yields to the section's first prose."""
    position = {e.element_id: i for i, e in enumerate(context.elements)}
    stating_paths = {(e.element.document_id, e.element.path) for e in ranked
                     if e.element.category == "TableRow" or (e.value and e.element.category in _FOLLOWER_CATEGORIES)}
    out = list(ranked)
    for section in dict.fromkeys(section_of.values()):
        members = [i for i, e in enumerate(out) if section_of.get(e.element.element_id) == section]
        if not members or not out[members[0]].answers:
            continue
        top = out[members[0]]
        if top.element.category == "TableRow":  # a row is a unit of its own, measured against the others
            continue
        close = [out[i] for i in members
                 if out[i].answers and out[i].score >= top.score - SECTION_FIRST_MARGIN
                 and out[i].element.category != "TableRow" and out[i].element.path == top.element.path
                 and not (is_lead_in(out[i].element.text)
                          and (out[i].element.document_id, out[i].element.path) in stating_paths)]
        if describes and (top.element.category == "CodeSnippet" or top.states_unasked):
            close = [out[i] for i in members if out[i].answers and out[i].element.path == top.element.path
                     and out[i].element.category not in _FOLLOWER_CATEGORIES and not out[i].states_unasked] or [top]
        first = min(close, key=lambda e: position.get(e.element.element_id, 0), default=top)
        if section in asked:
            out[out.index(first)] = first = steps_of(first, ranked, context, EXCERPT_CHARS)
        if first is not out[members[0]]:
            out.remove(first)
            out.insert(members[0], first)
    return out


# What a lead-in introduces: a list's items, a table or its rows, a code block. The next paragraph of a section
# is no part of the sentence before it.
_FOLLOWER_CATEGORIES = frozenset({"ListItem", "Table", "TableRow", "CodeSnippet"})


def _after_what_follows(scored: list[Evidence], context: Context) -> list[Evidence]:
    """A lead-in sentence says its value lives in what follows: when the context holds what follows it (the next
    elements of its section: a list's items, a table's rows), the lead-in ranks right after the best of them."""
    if context.mode != "hierarchical":  # a plain context is in rank order: nothing there "follows" a sentence
        return scored
    position = {e.element_id: i for i, e in enumerate(context.elements)}
    out = list(scored)
    for evidence in [e for e in scored if e.element.category != "TableRow" and is_lead_in(e.element.text)]:
        lead = evidence.element
        start = position.get(lead.element_id, -1)
        followers = {e.element_id for e in context.elements[start + 1:]
                     if e.document_id == lead.document_id and e.path == lead.path
                     and e.category in _FOLLOWER_CATEGORIES}
        # only a follower that states a value (a row, a "key: value" item) takes the lead-in's place: an item
        # stating nothing of its own ("automagics (e.g. …)") answers less than the sentence introducing it
        ranked = [i for i, e in enumerate(out) if e.element.element_id in followers and e.answers and e.value]
        if not ranked:
            # nothing after it answers alone (a list of names): the lead-in and its items are the one unit quoted
            items = items_after(context.elements[start + 1:], lead)
            if items:
                at = out.index(evidence)
                out[at] = replace(evidence, excerpt=clip(" ".join([" ".join(lead.text.split()), *items]),
                                                         EXCERPT_CHARS, at_word=False))
            continue
        if ranked[0] < out.index(evidence):
            continue
        items = items_after(context.elements[start + 1:], lead)
        best = out[ranked[0]]
        if items and evidence.score > best.score and not best.attribute:
            # read with its items, the sentence answers better than its best item alone ("Integration 테스트는
            # vcrpy를 사용하여 …:" over "첫 실행: …"), which states no attribute asked (a row whose key the question
            # asks, "Commit with type fix · Release type: Patch release", is the answer by itself): the unit is
            # quoted where the sentence ranks; when the whole list is too long, with its best item
            unit = " ".join([" ".join(lead.text.split()), *items])
            if len(unit) > EXCERPT_CHARS:
                unit = f"{' '.join(lead.text.split())} · {' '.join(best.element.text.split())} …"
            out[out.index(evidence)] = replace(evidence, excerpt=clip(unit, EXCERPT_CHARS, at_word=False))
            continue
        out.remove(evidence)
        out.insert(ranked[0], evidence)
    return out


def _clipped_held(words: frozenset[str], text: str) -> frozenset[str]:
    """Those of the clipped ``words`` whose whole ``text`` writes as prose ("async" in "… asynchronous operations")."""
    prose = prose_words(text)
    return frozenset(w for w in words if any(matches(w, p, prose) for p in prose if p.startswith(w)))


def _asks_an_included_part(asked: frozenset[str], text: str, stated: tuple[str, str] | None) -> bool:
    """An asked term appears in the text only inside a remark that the stated value includes it. A remark in
    the key ("무게(스탠드 포함)", weight with stand) names which value the key is, so it is no part of a total."""
    remarks = _INCLUSION_REMARK.findall(stated[1]) if stated else []
    return bool(remarks) and bool((asked & terms(" ".join(remarks))) - terms(_INCLUSION_REMARK.sub(" ", text)))


def _excerpt(text: str, wanted: frozenset[str], value: str | None = None,
             written: frozenset[str] = frozenset(), *, code: bool = False, how: bool = False) -> str:
    """The element, or for a long one the sentence stating the value (else overlapping the question most; of
    sentences overlapping it as much, the one holding more of the words the question itself writes: a word the
    lexicon added, "length" for "long line", asks less than "long" and "URLs" themselves).

    A long code block is read by its stanzas (lines between blank lines: an example's comment and the lines it
    explains) instead of sentences, which code rarely punctuates: cut from its top, a block of examples showed
    only the first few."""
    pieces = [" ".join(p.split()) for p in re.split(r"\n[ \t]*\n", text) if p.strip()] if code else []
    text = " ".join(text.split())
    if len(text) <= EXCERPT_CHARS:
        return text
    if len(pieces) < 2:
        pieces = [s for s in re.split(r"(?<=[.!?。])\s+|(?<=다\.)\s*", text) if s.strip()]
    if len(pieces) < 2:
        return clip(text, EXCERPT_CHARS, at_word=False)
    held = [terms(p) for p in pieces]
    # The stanzas of a block of examples share most of their words ("skip", the option's name): a word counts by
    # how few stanzas hold it, so the stanza of the one word that tells the examples apart wins.
    weight = (dict.fromkeys(wanted, 1.0) if not code else
              {w: 1 / max(1, sum(w in h for h in held)) for w in wanted})
    holding = [i for i, s in enumerate(pieces) if value and value in s]
    best = holding[0] if holding else asked_sentence(pieces, lambda i: (
        sum(weight[w] for w in wanted & held[i]), len(written & held[i])), how=how and not code)
    start = best if code else opening_sentence(pieces, best)  # "This is the recommended setting": with its antecedent
    excerpt = " ".join(pieces[start:best + 1])
    if not code and best + 1 < len(pieces) and len(excerpt) + len(pieces[best + 1]) < EXCERPT_CHARS:
        excerpt += " " + pieces[best + 1]
    excerpt = clip(excerpt, EXCERPT_CHARS, at_word=False)
    return ("… " if start else "") + excerpt + (" …" if best + 1 < len(pieces) else "")


class ExtractiveAnswerer:
    """Answers without a model: the value the best element states, with its heading path and citation.

    The best element is the one that states the attribute asked about (``key : value`` items, ``Default:``
    lines, table cells) under the heading path that names the question's product or API. Its value leads the
    answer; the element is quoted below it. When no element of the context answers, it says so instead of
    quoting the nearest heading. A comparative, superlative or list question gets its comparison table.
    """

    label = prompts.EXTRACTIVE_LABEL

    def evidence(self, question: str, context: Context) -> list[Evidence]:
        scored = definitions_first(question, mentions_last(question, score_evidence(question, context)))
        dated = dated_release(question, context)  # asked when a version came out: the line dating it answers
        if dated is None:
            return _release_stated(question, scored)
        element, version, date = dated
        top = Evidence(element, max((e.score for e in scored), default=WEAK_SCORE), element.similarity or 0.0, 0.0,
                       " ".join(element.text.split()), version, date, True, 1.0)
        return [top, *(e for e in scored if e.element.element_id != element.element_id)]

    def table(self, question: str, context: Context) -> ComparisonTable | None:
        return build_table(question, context)

    def complete(self, question: str, context: Context) -> str:
        table = self.table(question, context)
        parts = answer_parts.parts_in_context(question, context)
        units = units_for_parts(parts, lambda part: self.evidence(part, context),
                                lambda: self.evidence(question, context))
        # a table that states fewer than two of the things compared ranks nothing; each part answered by a value of
        # its own states them all, each with its citation ("27QX 높낮이 조절 범위랑 32UX height adjustment 비교")
        by_parts = len(units) > 1 and all(u is not None and u.value for u in units)
        if table is not None and table.stated and not (len(table.stated) < 2 and by_parts):
            return table.render()
        if len(units) > 1:  # each part quoted (a unit two parts share, once), or said to be unanswered
            firsts = {u.element.element_id: i for i, u in reversed(list(enumerate(units))) if u is not None}
            return "\n".join(line for i, (part, unit) in enumerate(zip(parts, units, strict=True)) for line in (
                (_quoted(unit, context) if firsts[unit.element.element_id] == i else []) if unit
                else [prompts.EXTRACTIVE_PART_NOT_STATED.format(part=part)]))
        evidence = self.evidence(question, context)
        if not evidence:
            return prompts.EXTRACTIVE_EMPTY
        inside = [e for e in evidence if not e.element.outside_scope]
        outside = [e for e in evidence if e.element.outside_scope and e.attribute > 0]
        if outside and not any(e.attribute > 0 for e in inside):
            return _not_stated(context, outside[0])
        best = inside[0] if inside else evidence[0]
        if not best.answers and context.named:
            # the question named where to look, and nothing there (nor elsewhere) states it: say so for that place
            return prompts.EXTRACTIVE_NOT_STATED.format(entity=" / ".join(context.named))
        if not best.answers:
            return prompts.EXTRACTIVE_NOT_FOUND
        counted = counted_units(question, best, inside)  # asked for "두 개", each of them quoted and cited
        if counted:
            return "\n".join(line for unit in counted for line in _quoted(unit, context))
        bridged = inside and bridge_cue(question) == "relative clause"
        stated = value_of_section([e for e in inside if e.answers]) if bridged else best
        # asked of what holds the clause's thing ("the division of the lab that …"): what the section above states
        stated = (answer_parts.container_unit(question, inside) or stated) if bridged else stated
        if bridged:  # each hop stated with its own citation: what is asked, then the clause's description
            hop = clause_description(question, inside, (stated, best))
            # and the clause's own thing, where the question names its section ("미리내 2호 … 연구실 실장은?")
            start = answer_parts.named_section_unit(question, inside, context.named, (stated, hop, best))
            # or, a value the clause names ("auto32: armv7l¹"), what is asked of that value, then the value
            through = answer_parts.through_clause_value(question, inside, lambda q: self.evidence(q, context))
            chosen = {e.element.element_id: e for e in (through or (stated, hop, best, start)) if e is not None}
            if len(chosen) > 1:
                return "\n".join(line for unit in chosen.values() for line in _quoted(unit, context))
        lines = _quoted(best, context)
        if context.mode != "hierarchical":
            lines.append(prompts.EXTRACTIVE_PLAIN_NOTE)
        if max(e.score for e in evidence) < WEAK_SCORE:  # of the context: a unit placed first by a rule scores less
            lines.append(prompts.EXTRACTIVE_WEAK_NOTE)
        return "\n".join(lines)

    def units_per_part(self, question: str, context: Context) -> list[Evidence | None]:
        """For a question asking several facts at once (``core.retrieval.parts``), the best unit answering each
        part, one element each, in the order asked, None for a part the context does not answer; none when it asks
        one thing, or when the context answers none of its parts (then the question is answered as a whole). A
        unit that answers several parts goes to the part that scores it highest: the row "musllinux-aarch64-image ·
        Default: musllinux_1_2" answers "which container engine by default?" by its `Default` only."""
        return units_for_parts(answer_parts.parts_in_context(question, context), lambda p: self.evidence(p, context))

    def stream(self, question: str, context: Context) -> Iterator[str]:
        yield self.complete(question, context)


def _quoted(unit: Evidence, context: Context) -> list[str]:
    """One unit's lines: the value it states, where it sits (a hierarchical context), the quote with its citation."""
    quote = f"“{unit.excerpt}” [e:{unit.element.short_id}]"
    lines = [_stated(unit)] if unit.value else []
    if context.mode == "hierarchical" and unit.element.path:
        lines.append(f"{prompts.EXTRACTIVE_PATH_PREFIX} {' › '.join(unit.element.path)}:")
    return [*lines, quote]
def _release_stated(question: str, scored: list[Evidence]) -> list[Evidence]:
    """Asked which release something came in, the best changelog entry states its release (the heading it sits
    under), so the answer names the release, not only the entry."""
    if not scored or scored[0].value or not scored[0].answers or not asks_which_release(question):
        return scored
    release = release_of(scored[0].element)
    if release is None:
        return scored
    return [replace(scored[0], key=prompts.EXTRACTIVE_RELEASE_KEY, value=release), *scored[1:]]


def _stated(evidence: Evidence) -> str:
    """The value an element states, after its key when it names one ("The default value is 4." names none)."""
    return f"{evidence.key}: {evidence.value}" if evidence.key else evidence.value


def _not_stated(context: Context, aside: Evidence) -> str:
    """The named entity does not state the attribute; what a hit from outside it states is only an aside."""
    entity = " / ".join(context.named) or prompts.EXTRACTIVE_NAMED_FALLBACK
    where = " › ".join(aside.element.path) if aside.element.path else prompts.EXTRACTIVE_ASIDE_PLAIN_WHERE
    told = _stated(aside) if aside.value else f"“{aside.excerpt}”"
    return "\n".join([prompts.EXTRACTIVE_NOT_STATED.format(entity=entity),
                      prompts.EXTRACTIVE_ASIDE.format(entity=entity, where=where, statement=told,
                                                      citation=f"[e:{aside.element.short_id}]")])


@functools.cache
def _default_terms() -> frozenset[str]:
    """The words that ask for a default, as the analyser reads them: on first use, not at import (the Korean
    analyser takes seconds to load, and a CLI usage error must not wait for it)."""
    return frozenset(terms("default defaults 기본값"))
