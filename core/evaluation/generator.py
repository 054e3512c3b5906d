"""Question sets generated from a corpus's own structure, for corpora that come without gold questions.

Reference documentation and spec sheets state facts in a few regular shapes, each under a heading that says
what the fact is about:

* **defaults**: a list item naming an option and saying "Defaults to `X`" / "Default: X" / "Default is X", or an
  options table with a "Default" column
  (Python-Markdown's extension docs: ``* **`marker`**: … Defaults to `[TOC]`.``);
* **key : value items**: ``* 무게(스탠드 포함) : 2.9 kg`` (spec sheets, directories);
* **table rows**: the first cell names a row, the header names a column.

Each fact becomes a question with its value as the gold answer, the element's heading path as the gold path,
and the element text as ``gold_element``. The question names the fact's *subject*: the fewest headings from the
path that tell this fact apart from every other fact with the same key in the corpus (a spec sheet's title for
"무게", a service center's heading for "운영시간", a document title for an option). Facts no heading
combination can tell apart are dropped, because their question would have two right answers.

Answers that occur in many elements ("True", "1개") are dropped too (``max_answer_elements``): "the gold answer
is in the context" should mean the right evidence was retrieved, not that a common word turned up.

Templates: Korean facts get Korean questions (``"<subject>의 <key>는 무엇인가요?"``), others English
(``"What is the default of option `<option>` of <subject>?"``). Nothing here touches the database.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from core.elements import Element
from core.evaluation.metrics import normalise
from core.evaluation.questions import Question, QuestionSet

if TYPE_CHECKING:
    from core.store import ElementStore

__all__ = [
    "Fact",
    "extract_facts",
    "facts_to_questions",
    "generate_questions",
    "generate_questions_from_store",
    "KINDS",
    "korean_topic_particle",
]

MAX_KEY_CHARS = 40
MAX_KEY_WORDS = 5
MAX_VALUE_CHARS = 80
MAX_VALUE_WORDS = 10
DEFAULT_MAX_ANSWER_ELEMENTS = 3

_HANGUL = re.compile(r"[\uac00-\ud7a3]")
_KEY_VALUE = re.compile(r"^(?P<key>[^:：\n]{1,60}?)\s*[:：]\s+(?P<value>\S.*)$")
_DEFAULT = re.compile(
    r"(?:\bdefaults?\s+(?:to|is)|\bdefault\s+value\s+is|\bdefault\s*:|\(default\s*:?)\s*(?P<value>.+)$", re.I | re.S
)
# A table column that holds each row's default ("Option | Type | Default | Description").
_DEFAULT_COLUMNS = frozenset({"default", "defaults", "default value"})
KINDS = ("default", "key_value", "table")
_QUOTES = "\"'`“”‘’"
_SHEBANG = re.compile(r"^#!\w+\s+")
MAX_DEFAULT_WORDS = 4  # a longer "default" cell is prose ("See below", "Combine the parent header slug…")
_SENTENCE_END = re.compile(r"[.!?]\s")
_LINK = re.compile(r"!?\[([^\]]*)\](?:\([^)]*\)|\[[^\]]*\])")
_ATTR_LIST = re.compile(r"\{\s*[.#:][^}]*\}")
# Keys that name a person: the question asks "who" (누구), not "what" (무엇).
_KO_PERSON_KEYS = ("원장", "실장", "소장", "센터장", "팀장", "대표", "책임자", "담당자", "연구원장", "단장")


@dataclass(frozen=True)
class Fact:
    """One stated value: ``kind`` is default | key_value | table."""

    kind: str
    key: str
    value: str
    path: tuple[str, ...]
    document: str
    element_text: str
    entity: str | None = None  # table rows: the row's first cell
    korean: bool = False
    code_key: bool = False  # the key is a code span (a parameter name)
    row_key: str | None = None  # a fact read from a table row: that row's first cell, which an answer should name

    @property
    def match_key(self) -> str:
        return normalise(f"{self.kind}\x1f{self.entity or ''}\x1f{self.key}")


# -- extraction ---------------------------------------------------------------------------------------------


def _clean_value(value: str) -> str:
    value = value.strip()
    value = re.split(r"\s+\(|,\s|;\s|\s+i\.e\.|\s+e\.g\.", value, maxsplit=1)[0]
    value = _SENTENCE_END.split(value + " ", maxsplit=1)[0].strip()
    return value.rstrip(".:").strip().strip(_QUOTES).strip()


def _option_name(element: Element, parent: Element | None) -> str | None:
    """The option a "Defaults to" element is about: its leading code span / bold text, or its key."""
    for source in (element, parent):
        if source is None:
            continue
        text = source.text.strip()
        for name in [*_marks(source, "code_spans")[:1], *_marks(source, "emphasized")[:1]]:
            if name and text.startswith(str(name)):
                return str(name)
        kv = _KEY_VALUE.match(text)
        if kv and len(kv.group("key").split()) <= 3 and not re.match(r"^default\b", kv.group("key"), re.I):
            return kv.group("key").strip()
    return None


def _default_fact(element: Element, parent: Element | None, document: str) -> Fact | None:
    text = " ".join(element.text.split())
    match = _DEFAULT.search(text)
    if not match:
        return None
    own_option = _option_name(element, None)
    # "Default: X" on its own line belongs to the option named by the list item it sits in.
    option = own_option or (_option_name(parent, None) if parent is not None else None)
    if not option:
        return None
    raw = match.group("value").strip()
    # A default written as a code span is exactly that span ("Defaults to `[TOC]`.").
    spans = [str(s) for s in _marks(element, "code_spans") if s]
    value = next((s for s in spans if raw.startswith(s) or raw.strip(_QUOTES).startswith(s)), None)
    value = (value or _clean_value(raw)).strip()
    if not value or normalise(value) == normalise(option):
        return None
    return Fact("default", option, value, _path(element), document, element.text,
                korean=bool(_HANGUL.search(text)))


def _key_value_fact(element: Element, document: str) -> Fact | None:
    text = " ".join(element.text.split())
    match = _KEY_VALUE.match(text)
    if not match:
        return None
    key, value = match.group("key").strip(), match.group("value").strip()
    code_key = key in [str(c) for c in _marks(element, "code_spans")]
    if len(key) > MAX_KEY_CHARS or len(key.split()) > MAX_KEY_WORDS or key.endswith((".", "?", "!")):
        return None
    if len(value) > MAX_VALUE_CHARS or len(value.split()) > MAX_VALUE_WORDS or _SENTENCE_END.search(value + " "):
        # A long value is a description, not a value someone asks for.
        if not (len(value) <= MAX_VALUE_CHARS and not _SENTENCE_END.search(value.rstrip(".") + " ")):
            return None
    value = value.rstrip(".").strip()
    return Fact("key_value", key, value, _path(element), document, element.text,
                korean=bool(_HANGUL.search(key)), code_key=code_key)


def _split_row(line: str) -> list[str]:
    body = line.strip().strip("|")
    return [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", body)]


def _cell_text(cell: str) -> str:
    """A table cell without link targets, attribute lists or wrapping backticks: what a reader sees."""
    text = _ATTR_LIST.sub("", _LINK.sub(r"\1", cell)).strip()
    text = text[1:-1].strip() if len(text) > 1 and text.startswith("`") and text.endswith("`") else text
    return _SHEBANG.sub("", text)  # "#!py3 20" is pymdown's inline highlighting of the code 20


def _table_facts(element: Element, document: str, rows: Sequence[Element] = ()) -> list[Fact]:
    """The facts of a table: of its TableRow elements (each fact's element is its row), or, for a table stored
    whole (an older collection, another loader), of the rows in its text."""
    lines = [line for line in element.text.strip().splitlines() if line.strip()]
    if len(lines) < 2:
        return []
    header = _split_row(lines[0])
    bodies = ([(row.text, [_cell_text(str(c)) for c in cells]) for row in rows
               if isinstance(cells := row.get("cells"), list)]
              if rows else [(element.text, [_cell_text(c) for c in _split_row(line)]) for line in lines[2:]])
    out = []
    for gold, cells in bodies:
        if len(cells) != len(header) or not any(ch.isalnum() for ch in cells[0]):
            continue
        for column, value in zip([_cell_text(h) for h in header[1:]], cells[1:], strict=True):
            if not (column and value and len(value) <= MAX_VALUE_CHARS):
                continue
            korean = bool(_HANGUL.search(column + cells[0]))
            if column.casefold() in _DEFAULT_COLUMNS and len(cells[0]) <= MAX_KEY_CHARS:
                if len(value.split()) > MAX_DEFAULT_WORDS or value.casefold().startswith("see "):
                    continue
                # an options table: the row names an option, the column its default
                out.append(Fact("default", cells[0], value, _path(element), document, gold,
                                korean=korean, code_key=True, row_key=cells[0]))
            else:
                out.append(Fact("table", column, value, _path(element), document, gold,
                                entity=cells[0], korean=korean, row_key=cells[0]))
    return out


def _path(element: Element) -> tuple[str, ...]:
    return tuple(p for p in element.heading_path if p.strip())


def _marks(element: Element, key: str) -> list[object]:
    """The inline marks the markdown loader records on an element (``code_spans``, ``emphasized``)."""
    marks = element.get(key)
    return list(marks) if isinstance(marks, list | tuple) else []


def extract_facts(elements: Sequence[Element], document: str) -> list[Fact]:
    """The facts one parsed document states, in document order."""
    by_id = {e.element_id: e for e in elements}
    rows_of: dict[str, list[Element]] = {}
    for e in elements:
        if e.category == "TableRow" and e.parent_id:
            rows_of.setdefault(e.parent_id, []).append(e)
    facts: list[Fact] = []
    for element in elements:
        category = element.category
        if category == "Table":
            facts.extend(_table_facts(element, document, rows_of.get(element.element_id, ())))
            continue
        if category not in ("ListItem", "NarrativeText"):
            continue
        parent = by_id.get(str(element.parent_id))
        parent = parent if parent is not None and parent.category == "ListItem" else None
        fact = _default_fact(element, parent, document)
        if fact is None and category == "ListItem":
            fact = _key_value_fact(element, document)
        if fact is not None and fact.path:
            facts.append(fact)
    return facts


# -- questions -----------------------------------------------------------------------------------------------


def korean_topic_particle(word: str) -> str:
    """은 after a final consonant (받침), else 는; judged on the last Hangul syllable or alphanumeric."""
    for char in reversed(word):
        if "\uac00" <= char <= "\ud7a3":
            return "은" if (ord(char) - 0xAC00) % 28 else "는"
        if char.isalnum():
            # Read aloud in Korean: 영 일 삼 육 칠 팔 end in a consonant; most Latin letters end in a vowel.
            return "은" if char in "0136789" else "는"
    return "는"


def _question_text(fact: Fact, subject: Sequence[str], code_key: bool = False) -> str:
    where = " › ".join(subject)
    if fact.korean:
        what = "누구인가요?" if fact.key.endswith(_KO_PERSON_KEYS) else "무엇인가요?"
        if fact.kind == "default":
            return f"{where}에서 `{fact.key}`의 기본값은 무엇인가요?"
        if fact.kind == "table":
            return f"{where}에서 {fact.entity}의 {fact.key}{korean_topic_particle(fact.key)} {what}"
        return f"{where}의 {fact.key}{korean_topic_particle(fact.key)} {what}"
    if fact.kind == "default":
        return f"What is the default of option `{fact.key}` of {where}?"
    if fact.kind == "table":
        return f"In {where}, what is the {fact.key} of {fact.entity}?"
    if code_key:  # a parameter list ("`separator`: The word separator"): ask what the name stands for
        return f"What is `{fact.key}` in {where}?"
    return f"What is the {fact.key} of {where}?"


def _subject(fact: Fact, others: Sequence[Fact], unique_headings: set[str]) -> tuple[str, ...] | None:
    """The fewest headings of ``fact.path`` that no other fact with the same key has all of; None if none do.

    A single heading must be unique in the corpus to serve alone ("Usage" names nothing); shallow headings are
    tried first because a document title reads better than a sub-sub-section.
    """
    keys = [normalise(h) for h in fact.path]
    other_paths = [{normalise(h) for h in o.path} for o in others]

    def resolves(indexes: Sequence[int]) -> bool:
        return not any(all(keys[i] in path for i in indexes) for path in other_paths)

    for i in range(len(keys)):
        if keys[i] in unique_headings and resolves([i]):
            return (fact.path[i],)
    for i in range(len(keys)):
        for j in range(i + 1, len(keys)):
            if resolves([i, j]):
                return fact.path[i], fact.path[j]
    return None


def facts_to_questions(
    facts: Sequence[Fact],
    corpus_texts: Sequence[str],
    headings: Iterable[str],
    *,
    max_answer_elements: int = DEFAULT_MAX_ANSWER_ELEMENTS,
    phrase: Callable[[Fact, Sequence[str]], str | None] | None = None,
) -> list[Question]:
    """Questions for the facts that are unambiguous and specific, in fact order. ``phrase`` words a fact's
    question from its subject headings (None: the fact is not asked); by default the evaluation templates."""
    heading_counts = Counter(normalise(h) for h in headings)
    unique_headings = {h for h, n in heading_counts.items() if n == 1}
    by_key: dict[str, list[Fact]] = defaultdict(list)
    for fact in facts:
        by_key[fact.match_key].append(fact)
    normalised_texts = [normalise(t) for t in corpus_texts]
    frequency_cache: dict[str, int] = {}

    def frequency(value: str) -> int:
        if value not in frequency_cache:
            frequency_cache[value] = sum(1 for t in normalised_texts if value in t)
        return frequency_cache[value]

    questions: list[Question] = []
    texts: Counter[str] = Counter()
    for fact in facts:
        value = normalise(fact.value)
        if len(value) < 2 or not any(c.isalnum() for c in value):
            continue  # "O", "X", "-", "{}": a contains-match on these means nothing
        if value not in normalise(fact.element_text):
            continue  # cleaning changed it: recall could never find it verbatim
        if frequency(value) > max_answer_elements:
            continue
        others = [o for o in by_key[fact.match_key] if o is not fact]
        subject = _subject(fact, others, unique_headings)
        if subject is None:
            continue
        text = phrase(fact, subject) if phrase is not None else _question_text(fact, subject, fact.code_key)
        if text is None or value in normalise(text):
            continue  # the question would give the answer away
        digest = hashlib.sha1(  # noqa: S324 - a stable id, not security
            "\x1f".join([fact.document, *fact.path, fact.kind, fact.entity or "", fact.key, fact.value]).encode()
        ).hexdigest()[:10]
        tags = ["generated", fact.kind.replace("_", "-"), "korean" if fact.korean else "english"]
        if others:
            tags.append("disambiguation")
        questions.append(Question(
            id=f"g-{digest}", question=text, answers=(fact.value,), gold_path=fact.path, document=fact.document,
            gold_element=fact.element_text, tags=tuple(tags),
            extra={"row_key": fact.row_key} if fact.row_key else {},
        ))
        texts[normalise(text)] += 1
    # Two facts asked the same way (same key under the same subject) would make one question with two answers.
    return [q for q in questions if texts[normalise(q.question)] == 1]


def _spread(questions: Sequence[Question], limit: int | None) -> list[Question]:
    """Round-robin over documents so that a limit samples the whole corpus, not its first file."""
    if limit is None or limit >= len(questions):
        return list(questions)
    by_document: dict[str, list[Question]] = defaultdict(list)
    for q in questions:
        by_document[q.document or ""].append(q)
    queues = [list(v) for _, v in sorted(by_document.items())]
    picked: list[Question] = []
    while len(picked) < limit and any(queues):
        for queue in queues:
            if queue and len(picked) < limit:
                picked.append(queue.pop(0))
    return picked


def generate_questions(
    paths: Iterable[str | Path],
    *,
    limit: int | None = None,
    name: str | None = None,
    max_answer_elements: int = DEFAULT_MAX_ANSWER_ELEMENTS,
    max_bytes: int = 5 * 1024 * 1024,
    kinds: Sequence[str] = KINDS,
) -> QuestionSet:
    """A question set from the markdown files under ``paths`` (files or folders).

    ``document`` is each file's path relative to the folder it was found in (its name for a file argument),
    which is what ingesting the same folder records as the file name or source. ``kinds`` keeps only facts of
    those kinds (``("default",)`` asks only "What is the default of option X of Y?").
    """
    unknown = set(kinds) - set(KINDS)
    if unknown or not kinds:
        raise ValueError(f"kinds must be a non-empty subset of {', '.join(KINDS)}, got {', '.join(kinds) or 'none'}")
    from core.ingest import IngestError, decode_text, discover, parse, read_source

    paths = [Path(p) for p in paths]
    sources, _problems = discover(paths)
    facts: list[Fact] = []
    corpus_texts: list[str] = []
    headings: list[str] = []
    roots = [p.resolve() for p in paths if p.is_dir()]
    for source in sources:
        assert source.path is not None
        resolved = source.path.resolve()
        root = next((r for r in roots if resolved.is_relative_to(r)), None)
        document = str(resolved.relative_to(root)) if root else source.name
        try:
            text, _encoding = decode_text(read_source(source, max_bytes))
        except IngestError:
            continue  # the same files fail ingest with a reason; a question set just skips them
        parsed = parse(text, source=str(source.path), document_id=hashlib.sha256(document.encode()).hexdigest()[:16])
        elements = [Element.from_document(d) for d in parsed]
        corpus_texts.extend(e.text for e in elements)
        headings.extend(e.text for e in elements if e.is_heading)
        facts.extend(extract_facts(elements, document))
    facts = [f for f in facts if f.kind in kinds]
    questions = facts_to_questions(facts, corpus_texts, headings, max_answer_elements=max_answer_elements)
    label = name or "+".join(p.name for p in paths) or "generated"
    description = (f"Generated from the structure of {', '.join(str(p) for p in paths)}: {len(facts)} facts found "
                   f"(defaults, key : value items, table rows), {len(questions)} unambiguous and specific.")
    return QuestionSet(f"generated:{label}", tuple(_spread(questions, limit)), description)


def generate_questions_from_store(
    store: ElementStore,
    *,
    limit: int | None = None,
    max_answer_elements: int = DEFAULT_MAX_ANSWER_ELEMENTS,
    phrase: Callable[[Fact, Sequence[str]], str | None] | None = None,
) -> QuestionSet:
    """A question set from the elements already stored in a collection (uploads included: no files needed).

    ``document`` is each document's file name.
    """
    facts: list[Fact] = []
    corpus_texts: list[str] = []
    headings: list[str] = []
    for record in store.documents():
        elements = store.elements(record.document_id)
        corpus_texts.extend(e.text for e in elements)
        headings.extend(e.text for e in elements if e.is_heading)
        facts.extend(extract_facts(elements, record.filename))
    questions = facts_to_questions(facts, corpus_texts, headings, max_answer_elements=max_answer_elements,
                                   phrase=phrase)
    description = (f"Generated from the stored elements of collection {store.collection!r}: {len(facts)} facts found, "
                   f"{len(questions)} unambiguous and specific.")
    return QuestionSet(f"generated:{store.collection}", tuple(_spread(questions, limit)), description)
