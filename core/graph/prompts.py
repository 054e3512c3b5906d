# ruff: noqa: E501  (prompt text: its lines are what the model reads, not code)
"""Prompts of the GraphRAG index and global search, kept apart from the code that uses them.

All wording is this project's own; the *shapes* follow Microsoft GraphRAG so that outputs are comparable:
delimited entity/relationship records, a gleaning follow-up, a JSON community report, and map/reduce prompts
where the map step scores points 0–100. Each exchange is a ``ChatPromptTemplate`` (placeholders are f-string names;
literal braces are doubled); the ``*_messages`` builders return the ``(role, content)`` pairs that
:class:`core.graph.llm_cache.CachedChat` sends and hashes for its cache key.
"""

from __future__ import annotations

from collections.abc import Sequence

from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder

Messages = list[tuple[str, str]]

TUPLE_DELIMITER = "<|>"
RECORD_DELIMITER = "##"
COMPLETION_DELIMITER = "<|DONE|>"

DEFAULT_ENTITY_TYPES: tuple[str, ...] = (
    "organization", "person", "location", "product", "technology", "event", "concept",
)  # fmt: skip

# -- extraction -------------------------------------------------------------------------------------

EXTRACTION_SYSTEM = (
    "You build knowledge graphs from documents. You answer only with records in the exact format you are given, "
    "never with prose, and you use only facts stated in the text."
)

EXTRACTION_PROMPT = """Read the text below and list what it is about as a graph.

1. Entities. For every entity of one of these types: [{entity_types}], write one record:
("entity"{tuple_delimiter}<name as written in the text>{tuple_delimiter}<type, one of the types above>{tuple_delimiter}<one or two sentences on what the text says about it>)

2. Relationships. For every pair of entities from step 1 that the text clearly connects, write one record:
("relationship"{tuple_delimiter}<source name>{tuple_delimiter}<target name>{tuple_delimiter}<how they are connected, according to the text>{tuple_delimiter}<strength of the connection, an integer from 1 (weak) to 10 (strong)>)

Separate records with {record_delimiter}. Write names in the language of the text. When you are done, write {completion_delimiter}.

Example
Text: Orbis Labs, based in Lisbon, built the Kestrel-2 probe. Its chief engineer is Ana Duarte.
Output:
("entity"{tuple_delimiter}Orbis Labs{tuple_delimiter}organization{tuple_delimiter}Orbis Labs is based in Lisbon and built the Kestrel-2 probe.){record_delimiter}
("entity"{tuple_delimiter}Lisbon{tuple_delimiter}location{tuple_delimiter}Lisbon is where Orbis Labs is based.){record_delimiter}
("entity"{tuple_delimiter}Kestrel-2{tuple_delimiter}product{tuple_delimiter}Kestrel-2 is a probe built by Orbis Labs.){record_delimiter}
("entity"{tuple_delimiter}Ana Duarte{tuple_delimiter}person{tuple_delimiter}Ana Duarte is the chief engineer of Orbis Labs.){record_delimiter}
("relationship"{tuple_delimiter}Orbis Labs{tuple_delimiter}Lisbon{tuple_delimiter}Orbis Labs is based in Lisbon.{tuple_delimiter}6){record_delimiter}
("relationship"{tuple_delimiter}Orbis Labs{tuple_delimiter}Kestrel-2{tuple_delimiter}Orbis Labs built Kestrel-2.{tuple_delimiter}9){record_delimiter}
("relationship"{tuple_delimiter}Ana Duarte{tuple_delimiter}Orbis Labs{tuple_delimiter}Ana Duarte is chief engineer at Orbis Labs.{tuple_delimiter}8){completion_delimiter}

Text:
{input_text}
Output:
"""

GLEANING_PROMPT = (
    "Some entities and relationships in the text were not listed in your last answer. Add them now, in the same "
    "record format, without repeating records you already wrote. End with {completion_delimiter}."
)

GLEANING_CHECK_PROMPT = (
    "Are there still entities or relationships in the text that you have not listed? Answer with one letter: "
    "Y if there are, N if there are not."
)

# -- community reports ------------------------------------------------------------------------------

REPORT_SYSTEM = (
    "You are an analyst who writes short, factual briefings about a group of related entities. You use only the "
    "data you are given and you cite it."
)

REPORT_PROMPT = """Write a report about one community: a group of entities that are connected in a document collection.
An analyst will read it to decide what the community is about and whether it matters.

Use only the data below. Each table row starts with its id. After each claim, cite the rows that support it in
the form [Data: Entities (ids); Relationships (ids); Sources (ids); Reports (ids)], naming only the tables you use
and at most five ids per table, for example [Data: Entities (3, 7); Relationships (12)].

Answer with one JSON object and nothing else, with these fields:
{{
  "title": "a short, specific name for the community that mentions its key entities",
  "summary": "an executive summary: what the community is, how its entities relate, why it matters",
  "rating": <a number from 0 to 10: how important this community is to someone studying the collection>,
  "rating_explanation": "one sentence that justifies the rating",
  "findings": [
    {{"summary": "one-line insight", "explanation": "a few sentences that explain the insight, with citations"}}
  ]
}}
Give between {min_findings} and {max_findings} findings when the data allows; fewer if the data is thin. Write in the
language of the data.

Data:
{context}
"""

# -- global search ----------------------------------------------------------------------------------

MAP_SYSTEM = "You help answer questions about a document collection from reports about its themes."

MAP_PROMPT = """Below are community reports, each a summary of one theme of a document collection. Using only them,
list the points that help answer the question.

Question: {question}

Each point must answer the question itself, not just share its topic: state the fact, figure or condition the
question asks for, as the report states it. Make each point once; if several reports say the same, make one point
citing them all. For each point give a description that states the point and cites the reports it comes from in
the form [Data: Reports (id, id)], and a score from 0 to 100 for how directly the point answers the question
(0: not at all; a point about the same subject that does not answer it scores low). If the reports contain
nothing that answers it, return a single point with score 0.

Answer with one JSON object and nothing else:
{{"points": [{{"description": "… [Data: Reports (id)]", "score": 80}}]}}

Reports:
{context}
"""

REDUCE_SYSTEM = "You write clear, well-supported answers from analysts' notes."

REDUCE_PROMPT = """Several analysts read reports about a document collection and noted the points below, most
important first. Write one answer to the question from these points only.

Question: {question}

Rules:
- Merge overlapping points; drop what does not help answer the question.
- Keep every citation of the form [Data: Reports (id, id)] that supports a statement you keep; cite at most five ids
  per citation. Do not invent ids.
- If the points do not answer the question, say so plainly.
- Format: {response_type}.

Analysts' points:
{points}
"""

DEFAULT_RESPONSE_TYPE = "a few paragraphs in markdown"

NO_DATA_ANSWER = "The community reports hold nothing that answers this question."


# -- templates and builders -------------------------------------------------------------------------

EXTRACTION = ChatPromptTemplate.from_messages([("system", EXTRACTION_SYSTEM), ("human", EXTRACTION_PROMPT)]).partial(
    tuple_delimiter=TUPLE_DELIMITER, record_delimiter=RECORD_DELIMITER, completion_delimiter=COMPLETION_DELIMITER
)
GLEANING = ChatPromptTemplate.from_messages(
    [MessagesPlaceholder("history"), ("ai", "{reply}"), ("human", GLEANING_PROMPT)]
).partial(completion_delimiter=COMPLETION_DELIMITER)
GLEANING_CHECK = ChatPromptTemplate.from_messages(
    [MessagesPlaceholder("history"), ("ai", "{reply}"), ("human", GLEANING_CHECK_PROMPT)]
)
REPORT = ChatPromptTemplate.from_messages([("system", REPORT_SYSTEM), ("human", REPORT_PROMPT)])
MAP = ChatPromptTemplate.from_messages([("system", MAP_SYSTEM), ("human", MAP_PROMPT)])
REDUCE = ChatPromptTemplate.from_messages([("system", REDUCE_SYSTEM), ("human", REDUCE_PROMPT)])


def _pairs(template: ChatPromptTemplate, **values: object) -> Messages:
    return [(m.type, m.text) for m in template.format_messages(**values)]


def extraction_messages(entity_types: Sequence[str], input_text: str) -> Messages:
    """The first extraction exchange for one text unit."""
    return _pairs(EXTRACTION, entity_types=", ".join(entity_types), input_text=input_text)


def gleaning_messages(history: Messages, reply: str) -> Messages:
    """The conversation so far, the model's last ``reply``, and the request for what it missed."""
    return _pairs(GLEANING, history=history, reply=reply)


def gleaning_check_messages(history: Messages, reply: str) -> Messages:
    """The conversation so far, the model's last ``reply``, and the Y/N question whether anything is left."""
    return _pairs(GLEANING_CHECK, history=history, reply=reply)


def report_messages(context: str, min_findings: int, max_findings: int) -> Messages:
    """The request for one community report from its ``context`` tables."""
    return _pairs(REPORT, context=context, min_findings=min_findings, max_findings=max_findings)


def map_messages(question: str, context: str) -> Messages:
    """The map step of global search over one batch of reports."""
    return _pairs(MAP, question=question, context=context)


def reduce_messages(question: str, points: str, response_type: str) -> Messages:
    """The reduce step of global search over the analysts' points."""
    return _pairs(REDUCE, question=question, points=points, response_type=response_type)
