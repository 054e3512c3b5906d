"""The extractive answerer: no model, the best element of the context quoted with its citation.

It scores every element of the context against the question (the vector search's cosine similarity plus lexical
overlap, with Korean character bigrams) and quotes the best one. With a hierarchical context the heading path is
part of the evidence, both for scoring (a model name in the question matches the product heading) and in the
answer (it says which product or section the value belongs to); a plain context has no path, so it can only quote
the element.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from core.answering import prompts
from core.retrieval import Context, ContextElement
from core.text import clip
from core.textnorm import english_stem, match_terms

__all__ = ["Evidence", "ExtractiveAnswerer", "score_evidence"]

SEMANTIC_WEIGHT = 1.0
TEXT_WEIGHT = 0.5  # share of the question's terms in the element's own text
PATH_WEIGHT = 0.6  # share found only in its heading path: the product, API or section the question names
ATTRIBUTE_WEIGHT = 0.35  # the element states the attribute asked about ("Weight : …", "`timeout` … Default: …")
VALUE_WEIGHT = 0.1  # the element states a value at all (key : value, Default:, table cell)
TITLE_PENALTY = 0.3  # a heading alone rarely holds the value asked for
WEAK_SCORE = 0.35
EXCERPT_CHARS = 300
# Without a stated attribute, an element answers when this share of the question's terms (other than those
# naming a heading) is in its text, or when the vector search found it this close.
ANSWER_MIN_TEXT_OVERLAP = 0.2
ANSWER_MIN_SIMILARITY = 0.5

# Words a question uses for the attribute a sheet names with a noun ("How heavy…" asks for "Weight"): each row is
# the question words, then the nouns they ask for.
_ASKED_AS = (
    ("heavy weigh weighs", "weight"),
    ("wide", "width"),
    ("tall high", "height"),
    ("long", "length life duration"),
    ("far", "range distance"),
    ("fast", "speed"),
    ("cost costs expensive", "price"),
    ("big large", "size"),
)
_ATTRIBUTE_WORDS: dict[str, frozenset[str]] = {
    word: frozenset(nouns.split()) for words, nouns in _ASKED_AS for word in words.split()
}

_KEY_VALUE = re.compile(r"^\s*(?:[-*+]\s+)?(?P<key>[^:：\n]{1,60}?)\s*[:：]\s+(?P<value>\S[^\n]*)$")
_DEFAULT = re.compile(
    r"\bdefaults?(?:\s+value)?(?:\s+(?:to|is)\s+|\s*:\s*|\s+(?=`))"
    r"(?P<value>`[^`\n]+`|'[^'\n]*'|\"[^\"\n]*\"|[^\s,;]+)",
    re.I,
)
# The option a "Default:" item documents: its leading code span or bold name ("* **`marker`**:", "`timeout` :").
_LEADING_NAME = re.compile(r"^\s*(?:[-*+]\s+)?(?:\*\*`?(?P<bold>[^*`\n]+)`?\*\*|`(?P<code>[^`\n]+)`)")
# Without markup ("idempotent boolean (optional) - Default: true") the option is the item's first word.
_FIRST_WORD = re.compile(r"^\s*(?:[-*+]\s+)?(?P<word>[A-Za-z_$][\w.$-]*)")
_TABLE_SPLIT = re.compile(r"(?<!\\)\|")
_MAX_VALUE_CHARS = 200


def _terms(text: str) -> frozenset[str]:
    """The text's match terms, English ones lightly stemmed (released ~ release)."""
    return frozenset(english_stem(t) for t in match_terms(text))


def _question_terms(question: str) -> frozenset[str]:
    terms = match_terms(question)
    return frozenset(english_stem(t) for t in terms | {w for t in terms for w in _ATTRIBUTE_WORDS.get(t, ())})


def _clean_value(value: str) -> str:
    return value.strip().rstrip(".").strip()


def _table_cell(wanted: frozenset[str], text: str) -> tuple[str, str, str] | None:
    """``(row — column, cell, the row as "header: cell; …")`` of a pipe table: the row and the column the
    question's terms name."""
    rows = []
    for line in text.splitlines():
        line = line.strip()
        if not line.startswith("|"):
            continue
        cells = [c.strip().replace("\\|", "|") for c in _TABLE_SPLIT.split(line.strip("|"))]
        if not all(set(c) <= set("-: ") for c in cells):
            rows.append(cells)
    if len(rows) < 2:
        return None
    header, body = rows[0], rows[1:]
    # The row first (the entity the question names), then the column among the words left: "Description of
    # type" must not pick a "Type" column because of the row's name.
    row_terms = [_terms(" ".join(r[:1])) for r in body]
    row = max(range(len(body)), key=lambda i: len(wanted & row_terms[i]))
    left = wanted - row_terms[row]
    column_scores = [len(left & _terms(h)) for h in header]
    column = max(range(1, len(header)), key=lambda i: column_scores[i], default=None)
    if column is None or not column_scores[column] or not wanted & row_terms[row] or column >= len(body[row]):
        return None
    value = body[row][column]
    line = "; ".join(f"{h}: {c}" if h else c for h, c in zip(header, body[row], strict=False) if c)
    return (f"{body[row][0]} — {header[column]}", value, line) if value else None


def _statement(wanted: frozenset[str], element: ContextElement) -> tuple[str, str] | None:
    """``(key, value)`` the element states: a ``Default:`` line, a ``key : value`` item, or a table cell."""
    text = element.text.strip()
    if element.category == "Table" or text.startswith("|"):
        cell = _table_cell(wanted, text)
        return cell[:2] if cell else None
    default = _DEFAULT.search(text)
    if default:
        name = _LEADING_NAME.match(text)
        first = _FIRST_WORD.match(text)
        key = (name.group("bold") or name.group("code")) if name else (first.group("word") if first else "default")
        return key.strip("`* "), _clean_value(default.group("value"))
    kv = _KEY_VALUE.match(text.splitlines()[0]) if text else None
    if kv and len(kv.group("value")) <= _MAX_VALUE_CHARS:
        return kv.group("key").strip("`*- "), _clean_value(kv.group("value"))
    return None


@dataclass(frozen=True)
class Evidence:
    element: ContextElement
    score: float
    semantic: float
    lexical: float
    excerpt: str
    key: str | None = None  # the attribute the element states, when it states one
    value: str | None = None  # its value
    answers: bool = True  # False: the best the context has, but it does not answer the question

    def as_dict(self) -> dict[str, Any]:
        return {
            "element_id": self.element.element_id,
            "score": round(self.score, 4),
            "semantic": round(self.semantic, 4),
            "lexical": round(self.lexical, 4),
            "heading_path": list(self.element.path),
            "excerpt": self.excerpt,
            "key": self.key,
            "value": self.value,
            "answers": self.answers,
        }


def score_evidence(question: str, context: Context) -> list[Evidence]:
    """Context elements that can hold an answer, best first.

    Ancestors are headings that frame the evidence, not evidence themselves. An element scores by its vector
    similarity, the question's terms in its text, the terms found only in its heading path (where the context
    has one: the product or API the question names), and whether it states the attribute asked about.
    """
    wanted = _question_terms(question)
    # A heading the question names whole ("Dispatcher", "Class: Pool", "Aster H2") is where to look, wherever it
    # sits in the context: its terms never count as the attribute asked about.
    headings = {e.text for e in context.elements if e.category == "Title"}
    headings |= {p for e in context.elements for p in e.path}
    named = frozenset(t for h in headings if (terms := _terms(h)) and terms <= wanted for t in terms)
    scored = []
    for element in (e for e in context.elements if e.role != "ancestor"):
        text_terms = _terms(element.text)
        own_path_terms = _terms(" ".join(element.path))
        path_terms = own_path_terms - text_terms
        # Terms naming a heading above this element (the product, the API) say where, not what: the element
        # answers by the rest ("weight", "default", "bodyTimeout"). A path that restates the whole question (an
        # FAQ heading) leaves nothing to ask: any content under it answers.
        unplaced = wanted - own_path_terms  # names a table row may carry ("Markdown in HTML" is also a heading)
        asked = unplaced - named
        text_lex = len(wanted & text_terms) / len(wanted) if wanted else 0.0
        path_lex = len(wanted & path_terms) / len(wanted) if wanted else 0.0
        statement = _statement(unplaced, element)
        key_terms = _terms(statement[0]) if statement else frozenset()
        # the share of the stated key the question asks for ("Weight (with stand)" fully, "Dimensions without
        # stand" a quarter); names of headings do not count, they say where, not what
        attribute = len(asked & key_terms) / len(key_terms) if key_terms else 0.0
        if not attribute and key_terms:
            # the key repeats a section heading above it ("Dimensions & Weight › Weight with stand"): still the
            # attribute asked about, counted at half weight
            attribute = 0.5 * len((wanted - named) & key_terms) / len(key_terms)
        semantic = element.similarity or 0.0
        is_title = element.category == "Title"
        score = (SEMANTIC_WEIGHT * semantic + TEXT_WEIGHT * text_lex + PATH_WEIGHT * path_lex
                 + ATTRIBUTE_WEIGHT * attribute + VALUE_WEIGHT * bool(statement) - TITLE_PENALTY * is_title)
        asked_overlap = len(asked & text_terms) / len(asked) if asked else 1.0
        answers = not is_title and (
            attribute > 0 or asked_overlap >= ANSWER_MIN_TEXT_OVERLAP or semantic >= ANSWER_MIN_SIMILARITY
        )
        key, value = statement if statement else (None, None)
        cell = _table_cell(unplaced, element.text) if statement and element.text.lstrip().startswith("|") else None
        excerpt = cell[2] if cell else _excerpt(element.text, wanted, value)
        scored.append(Evidence(element, score, semantic, text_lex + path_lex, excerpt, key, value, answers))
    scored.sort(key=lambda e: (-e.answers, -e.score, e.element.rank if e.element.rank is not None else 1_000_000))
    return scored


def _excerpt(text: str, wanted: frozenset[str], value: str | None = None) -> str:
    """The element, or for a long one the sentence stating the value (else overlapping the question most)."""
    text = " ".join(text.split())
    if len(text) <= EXCERPT_CHARS:
        return text
    sentences = [s for s in re.split(r"(?<=[.!?。])\s+|(?<=다\.)\s*", text) if s.strip()]
    if len(sentences) < 2:
        return clip(text, EXCERPT_CHARS, at_word=False)
    holding = [i for i, s in enumerate(sentences) if value and value in s]
    best = holding[0] if holding else max(range(len(sentences)), key=lambda i: len(wanted & _terms(sentences[i])))
    excerpt = sentences[best]
    if best + 1 < len(sentences) and len(excerpt) + len(sentences[best + 1]) < EXCERPT_CHARS:
        excerpt += " " + sentences[best + 1]
    excerpt = clip(excerpt, EXCERPT_CHARS, at_word=False)
    return ("… " if best else "") + excerpt + (" …" if best + 1 < len(sentences) else "")


class ExtractiveAnswerer:
    """Answers without a model: the value the best element states, with its heading path and citation.

    The best element is the one that states the attribute asked about (``key : value`` items, ``Default:``
    lines, table cells) under the heading path that names the question's product or API. Its value leads the
    answer; the element is quoted below it. When no element of the context answers, it says so instead of
    quoting the nearest heading.
    """

    label = prompts.EXTRACTIVE_LABEL

    def evidence(self, question: str, context: Context) -> list[Evidence]:
        return score_evidence(question, context)

    def complete(self, question: str, context: Context) -> str:
        evidence = self.evidence(question, context)
        if not evidence:
            return prompts.EXTRACTIVE_EMPTY
        best = evidence[0]
        if not best.answers:
            return prompts.EXTRACTIVE_NOT_FOUND
        quote = f"“{best.excerpt}” [e:{best.element.short_id}]"
        lines = [f"{best.key}: {best.value}"] if best.value else []
        if context.mode == "hierarchical" and best.element.path:
            lines += [f"{prompts.EXTRACTIVE_PATH_PREFIX} {' › '.join(best.element.path)}:", quote]
        elif context.mode == "hierarchical":
            lines.append(quote)
        else:
            lines += [quote, prompts.EXTRACTIVE_PLAIN_NOTE]
        if best.score < WEAK_SCORE:
            lines.append(prompts.EXTRACTIVE_WEAK_NOTE)
        return "\n".join(lines)

    def stream(self, question: str, context: Context) -> Iterator[str]:
        yield self.complete(question, context)
