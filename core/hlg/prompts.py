"""The prompts of the LLM tiers (issue 31), and how their replies are read: the HLG's topic prompt (once per heading
section), its proposition extraction (once per prose element) and S-P-O triples (once per batch of statements).

The HLG (arXiv 2506.08074; AWS graphrag-toolkit's lexical graph) asks a model to name the topic a chunk's
statements are about, so statements from different places that share a theme can be found by it. Here the grouping
is the heading section (offline); the model gives the section a topic name that says what it is about in words
the headings may not use, and the topic's vector embeds that name with the section's text. Replies are cached
per collection like every other LLM reply of the index (``core.graph.llm_cache.CachedChat``).

Propositions follow the HLG's extraction (after "Dense X Retrieval"): atomic, self-contained statements, each one
fact, with pronouns replaced by the names they stand for; the heading path is given so that "it" and "the lab" can
be resolved. Triples are asked per numbered statement, one ``number | subject | predicate | object`` line each, so
every fact is linked to the statement that supports it. The readers accept only that form (a bulleted or numbered
line, a JSON list of strings for propositions): prose reads as nothing, and the caller keeps its offline tier.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from langchain_core.prompts import ChatPromptTemplate

__all__ = [
    "MAX_TOPIC_CHARS",
    "PROPOSITION_PROMPT",
    "PROPOSITION_SYSTEM",
    "TOPIC_OUTPUT_TOKENS",
    "TOPIC_PROMPT",
    "TOPIC_SYSTEM",
    "TRIPLE_PROMPT",
    "TRIPLE_SYSTEM",
    "proposition_messages",
    "propositions",
    "topic_messages",
    "topic_name",
    "triple_messages",
    "triples",
]

TOPIC_OUTPUT_TOKENS = 40  # the estimate's reply size: one short line
MAX_TOPIC_CHARS = 120

TOPIC_SYSTEM = ("You name the topic of a group of statements taken from one section of a document. You answer with "
                "the topic name only.")

TOPIC_PROMPT = """The statements below come from one section of a document; its heading path is given first.

Name the topic they share in at most eight words: the subject they are about and what they say about it (for
example "Aurora Optics Lab leadership and founding"). Use the names the statements use. Do not answer with a
sentence, a list or quotation marks; reply with the topic name alone on one line.

Heading path: {path}

Statements:
{statements}
"""

_TEMPLATE = ChatPromptTemplate.from_messages([("system", TOPIC_SYSTEM), ("human", TOPIC_PROMPT)])
# A small model frames the name as a sentence ("The topic of the statements is X."): the frame is not the name.
_FRAMING = re.compile(r"^(?:the\s+)?(?:main\s+)?topic(?:\s+name)?(?:\s+of\s+[^:]{0,60}?)?\s*(?::|\bis\b)\s*",
                      re.IGNORECASE)


def topic_messages(heading_path: Sequence[str], statements: str) -> list[tuple[str, str]]:
    """The one exchange asking a section's topic name."""
    path = " > ".join(p for p in heading_path if p) or "(the top of the document)"
    return [(m.type, m.text) for m in _TEMPLATE.format_messages(path=path, statements=statements)]


def topic_name(reply: str) -> str:
    """The topic name a reply gives: its first non-empty line, unquoted and without a "the topic is" frame, at most
    :data:`MAX_TOPIC_CHARS` characters; "" when it gives none (the section keeps its offline topic)."""
    for line in reply.splitlines():
        name = _FRAMING.sub("", line.strip().strip("\"'“”‘’`*#").strip()).strip().strip("\"'“”‘’`*").strip()
        name = name[:-1] if name.endswith(".") else name
        if name:
            return name[:MAX_TOPIC_CHARS]
    return ""


# -- propositions: the statements of one element ----------------------------------------------------------------

PROPOSITION_OUTPUT_RATIO = 1.3  # the estimate's reply size: the element's text restated, names repeated
TRIPLE_OUTPUT_TOKENS = 30  # the estimate's reply size per statement: one or two short lines
MAX_TRIPLE_PART_CHARS = 80

PROPOSITION_SYSTEM = ("You split text into propositions: short statements that each say one fact and can be "
                      "understood without the text around them. You answer with the list only.")

PROPOSITION_PROMPT = """Split the content below into propositions.

1. Split compound sentences into simple sentences, one fact each.
2. When a name comes with a description, make the description its own proposition.
3. Make each proposition understandable on its own: replace pronouns and phrases such as "it", "they", "this lab"
   or "the device" with the full name they refer to (the heading path says what the content is about).
4. Use the words of the content; add nothing it does not say.

Reply with one proposition per line, each line starting with "- ", and nothing else.

Example
Heading path: Research Labs > Aurora Optics Lab
Content: It was founded in 2011 and designs space telescopes, which it tests in Chile.
- Aurora Optics Lab was founded in 2011.
- Aurora Optics Lab designs space telescopes.
- Aurora Optics Lab tests its space telescopes in Chile.

Heading path: {path}
Content: {content}
"""

_PROPOSITIONS = ChatPromptTemplate.from_messages([("system", PROPOSITION_SYSTEM), ("human", PROPOSITION_PROMPT)])
_BULLET = re.compile(r"^\s*(?:[-*•·]|\d{1,3}[.)])\s+(?P<text>\S.*)$")


def _path_text(heading_path: Sequence[str]) -> str:
    return " > ".join(p for p in heading_path if p) or "(the top of the document)"


def proposition_messages(heading_path: Sequence[str], content: str) -> list[tuple[str, str]]:
    """The one exchange asking an element's propositions."""
    return [(m.type, m.text) for m in _PROPOSITIONS.format_messages(path=_path_text(heading_path), content=content)]


def propositions(reply: str) -> list[str]:
    """The propositions a reply lists: its bulleted or numbered lines, or the strings of a JSON list; [] for prose
    (a reply that lists nothing), so the element keeps its offline statements."""
    text = reply.strip()
    if text.startswith("["):
        try:
            items = json.loads(text)
        except ValueError:
            items = None
        if isinstance(items, list) and all(isinstance(i, str) for i in items):
            return [i.strip() for i in items if i.strip()]
    found = []
    for line in text.splitlines():
        match = _BULLET.match(line)
        if match:
            found.append(match.group("text").strip().strip('"“”'))
    return [f for f in found if f]


# -- triples: the facts of numbered statements -------------------------------------------------------------------

TRIPLE_SYSTEM = ("You read facts out of statements as subject, predicate and object. You answer with the fact "
                 "lines only.")

TRIPLE_PROMPT = """For each numbered statement below, write the facts it states as subject-predicate-object triples.

The subject and the object are names or values taken from the statement (a product, a person, an organisation,
a place, a date, a quantity with its unit); the predicate is a short verb phrase. Write one fact per line, in the
form
number | subject | predicate | object
where number is the statement's number. Skip a statement that states no fact. Write nothing else.

Example
1. Aurora Optics Lab > Aurora Optics Lab was founded in 2011 by Dr. Mira Santos.
1 | Aurora Optics Lab | was founded in | 2011
1 | Aurora Optics Lab | was founded by | Dr. Mira Santos

Statements:
{statements}
"""

_TRIPLES = ChatPromptTemplate.from_messages([("system", TRIPLE_SYSTEM), ("human", TRIPLE_PROMPT)])


def triple_messages(statements: Sequence[str]) -> list[tuple[str, str]]:
    """The one exchange asking the triples of ``statements`` (each self-contained), numbered from 1."""
    listed = "\n".join(f"{i}. {text}" for i, text in enumerate(statements, 1))
    return [(m.type, m.text) for m in _TRIPLES.format_messages(statements=listed)]


def triples(reply: str, count: int) -> list[tuple[int, str, str, str]]:
    """(statement index from 0, subject, predicate, object) of each well-formed line of a reply about ``count``
    statements: four ``|``-separated parts, a number that names one of them, no part empty or over
    :data:`MAX_TRIPLE_PART_CHARS` characters. Prose reads as []."""
    found = []
    for line in reply.splitlines():
        parts = [p.strip().strip("`*").strip() for p in line.strip().strip("|").split("|")]
        if len(parts) != 4 or not parts[0].rstrip(".").isdigit():
            continue
        number = int(parts[0].rstrip("."))
        if 1 <= number <= count and all(0 < len(p) <= MAX_TRIPLE_PART_CHARS for p in parts[1:]):
            found.append((number - 1, parts[1], parts[2], parts[3]))
    return list(dict.fromkeys(found))
