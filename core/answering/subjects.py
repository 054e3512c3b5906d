"""What the elements of a context document by name (a table row's key, the option or flag heading above an item)
and which of those names the question names: the reader's subject match (``core.answering.extractive``)."""

from __future__ import annotations

import re

from core.answering.asked_words import code_names, heading_in_words, names_by_parts
from core.elements import row_cells
from core.retrieval import Context, ContextElement
from core.retrieval.named_rows import writes_key
from core.statements import kebab_words, last_parts, option_heading, singular, terms

__all__ = ["documented_names", "key_match", "named_options_of", "named_subjects_of", "worded_options_of"]


def documented_names(element: ContextElement) -> tuple[str, ...]:
    """What an element documents by name: a table row's first cell, else the option heading right above it
    (``### trDt`` › ``- **설명**: …``), or each flag of a command-line option's heading (``-l, --line-length``,
    ``--fast / --safe``); empty for none."""
    if element.category == "TableRow":
        cells = row_cells(element.text)
        first = cells[0][1].strip() if cells else ""
        return (first,) if first else ()
    # the heading right above it, below the page's title: a title names the page or product ("# PDM"), which
    # every question about it names too
    if len(element.path) < 2:
        return ()
    option = option_heading(element.path[-1])
    return (option,) if option else _flags(element.path[-1])

_FLAG = re.compile(r"`?(-{1,2}[A-Za-z0-9][\w.-]*)`?(?:[ =]<?[\w.-]+>?)?")


def _flags(heading: str) -> tuple[str, ...]:
    """The flags a command-line option's heading names, when it is only flags (``-W, --workers``)."""
    parts = [p.strip() for p in re.split(r"[,/|]", heading)]
    found = [_FLAG.fullmatch(p) for p in parts]
    return tuple(m.group(1) for m in found if m) if parts and all(found) else ()


def named_options_of(question: str, wanted: frozenset[str], context: Context) -> dict[str, frozenset[str]]:
    """The kebab-case option headings of the context (``sbom-type``, ``script-shell``) the question names, whole
    or by their words, with those words; of two so named, only the one whose words hold the other's."""
    wanted = wanted | kebab_words(question)
    named: dict[str, frozenset[str]] = {}
    for heading in {e.path[-1] for e in context.elements if len(e.path) >= 2 and not e.outside_scope}:
        option = option_heading(heading, dashed=True)
        words = kebab_words(option) if option else frozenset()
        if words and (words <= wanted or last_parts(terms(option or "")) <= last_parts(wanted)):
            named[heading] = words
    return {h: w for h, w in named.items() if not any(w < other for other in named.values())}


def worded_options_of(question: str, wanted: frozenset[str], context: Context) -> frozenset[str]:
    """The headings written in words (``## Wrap Length`` over ``Default: 0``) the question names whole: the option
    whose bare ``Default:`` line sits under it. Named by the name it is typed as (``wrap_length``), or word for
    word: each word among the question's terms, a word of none ("No", "To") written in the question itself ("No
    Wrap Length" is not named by "wrap length"). Not the page's title."""
    typed = code_names(question)
    written = set(re.findall(r"[a-z0-9]+", question.casefold()))
    out = set()
    for heading in {e.path[-1] for e in context.elements if len(e.path) >= 2 and not e.outside_scope}:
        words = heading_in_words(heading)
        if words and (words in typed or all(ts <= wanted if (ts := terms(w)) else w in written for w in words)):
            out.add(heading)
    return frozenset(out)


def named_subjects_of(question: str, wanted: frozenset[str], context: Context,
                    own_subjects: dict[str, tuple[str, ...]],
                    named_options: dict[str, frozenset[str]] | None = None) -> frozenset[str]:
    """The subjects of the context's elements (inside its scope) that the question's terms name whole; a table
    row's code (``-2``, ``Y``, ``TSJ``: one word, ASCII) that the question writes as a word."""
    out = set()
    wanted = wanted | kebab_words(question)
    for element in context.elements:
        for subject in () if element.outside_scope else own_subjects[element.element_id]:
            if element.category == "TableRow":
                # a row's code is named as the question writes it: "-2" is not "2", "TSJ" not "TS"; an identifier
                # also by its words ("log level" for KAKAO_MCP_LOG_LEVEL under "Kakao Moment MCP")
                named = writes_key(question, wanted, subject) or names_by_parts(
                    subject, wanted, terms(" ".join(element.path)))
            else:
                parts = last_parts(terms(subject))
                named = bool(parts) and parts <= last_parts(wanted)
            # a kebab-case name is named by its words as well ("the fetch timeout", "musllinux image for aarch64")
            joined = kebab_words(subject)
            named = named or bool(joined) and joined <= wanted
            if named:
                out.add(subject)
    # the longest name the question's words spell is the one it names: "which shell runs scripts" names
    # `script-shell`, not also `shell`, whose words are a part of it
    spelled = {s: kebab_words(s) or last_parts(terms(s)) for s in out}
    longer = [*spelled.values(), *(named_options or {}).values()]
    return frozenset(s for s in out if not any(spelled[s] < other for other in longer))


def key_match(asked: frozenset[str], key_terms: frozenset[str], names: frozenset[str] = frozenset(),
               key_words: frozenset[str] | None = None) -> float:
    """How well a stated key matches what is asked: the harmonic mean of the share of the key asked for and the
    share of the asked words the key holds, the question's names ("34WC", "HDMI") not counted among the words it
    should hold. "HDMI" for "max refresh rate over HDMI" is all asked for but holds none of the attribute;
    "최대 주사율" (max refresh rate) holds most of it. Given ``key_words`` (the words the context's statements
    state), only the asked words among them count: "default", asking which value, is no word a key lacks."""
    asked, key_terms, names = singular(asked), singular(key_terms), singular(names)
    key_words = None if key_words is None else singular(key_words)
    common = len(asked & key_terms)
    if not common:
        return 0.0
    should_hold = asked - names if key_words is None else (asked & key_words) - names
    precision, recall = common / len(key_terms), min(1.0, common / max(1, len(should_hold)))
    return 2 * precision * recall / (precision + recall)
