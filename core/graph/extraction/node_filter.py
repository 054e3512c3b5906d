"""Which entity candidates are worth a node: not only function words, not a field or a section label, not a
one-off code span, not a word the corpus mostly writes in lower case."""

from __future__ import annotations

import re
from collections.abc import Sequence

from core.graph.extraction.drafts import ROLE_ACRONYM, ROLE_CODE, ROLE_FIELD, ROLE_NAME, EntityDraft, Sentence
from core.graph.extraction.lexicon import english_stop_words
from core.text import words
from core.textnorm import has_hangul, is_function_word

# A heading seen in this many sections is a label of those sections (Options, Known Issues, 화면), not a topic.
LABEL_MIN_SECTIONS = 3
# An inline code span is an entity when it names an identifier (``toc``, ``markdown.extensions.toc``,
# ``extendMarkdown()``, ``--strict``) and recurs in this many text units; markup and expressions never are.
CODE_MIN_UNITS = 2


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
    stop = english_stop_words()
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
        if s.category in ("Title", "Table", "TableRow"):
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
