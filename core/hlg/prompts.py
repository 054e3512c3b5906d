"""The prompt of the LLM topic tier (issue 31): the HLG's topic prompt, asked once per heading section.

The HLG (arXiv 2506.08074; AWS graphrag-toolkit's lexical graph) asks a model to name the topic a chunk's
statements are about, so statements from different places that share a theme can be found by it. Here the grouping
is the heading section (offline); the model gives the section a topic name that says what it is about in words
the headings may not use, and the topic's vector embeds that name with the section's text. Replies are cached
per collection like every other LLM reply of the index (``core.graph.llm_cache.CachedChat``).
"""

from __future__ import annotations

from collections.abc import Sequence

from langchain_core.prompts import ChatPromptTemplate

__all__ = ["MAX_TOPIC_CHARS", "TOPIC_OUTPUT_TOKENS", "TOPIC_PROMPT", "TOPIC_SYSTEM", "topic_messages", "topic_name"]

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


def topic_messages(heading_path: Sequence[str], statements: str) -> list[tuple[str, str]]:
    """The one exchange asking a section's topic name."""
    path = " > ".join(p for p in heading_path if p) or "(the top of the document)"
    return [(m.type, m.text) for m in _TEMPLATE.format_messages(path=path, statements=statements)]


def topic_name(reply: str) -> str:
    """The topic name a reply gives: its first non-empty line, unquoted, at most :data:`MAX_TOPIC_CHARS` characters;
    "" when it gives none (the section keeps its offline topic)."""
    for line in reply.splitlines():
        name = line.strip().strip("\"'“”‘’`*#").strip()
        if name.casefold().startswith("topic:"):
            name = name[len("topic:"):].strip()
        if name:
            return name[:MAX_TOPIC_CHARS]
    return ""
