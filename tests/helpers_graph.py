"""A scriptable fake chat model for the GraphRAG tests: answers each of the index's prompts in kind.

It is a real LangChain ``BaseChatModel`` (so it goes through the same code as ChatOpenAI) that recognises which
prompt it got and replies like a cooperative model would, citing ids it finds in the prompt. Knobs make it
misbehave: ``malformed`` replies garbage to every n-th call, ``fail_on_call`` raises on the n-th call.
"""

from __future__ import annotations

import json
import re
import threading
from typing import Any

from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import ConfigDict, Field, PrivateAttr

from core.graph import prompts

KNOWN_NAMES = {
    "한빛우주과학연구원": "organization",
    "서도윤": "person",
    "미리내 2호": "product",
    "미리내 3호": "product",
    "고흥 심우주 관제소": "location",
    "Nova 32UX": "product",
    "DisplayPort": "technology",
    "USB-C": "technology",
    "HDMI": "technology",
    "Nova Display": "organization",
}


class FakeGraphModel(BaseChatModel):
    model_config = ConfigDict(arbitrary_types_allowed=True)

    model_name: str = "fake-graph-1"
    malformed: int = 0  # every n-th call replies garbage (0: never)
    fail_on_call: int | None = None  # raise on this call number (1-based)
    zero_points: bool = True  # map replies include a 0-scored point (must be dropped)
    prompts_seen: list[str] = Field(default_factory=list)
    _calls: int = PrivateAttr(default=0)
    _lock: Any = PrivateAttr(default_factory=threading.Lock)

    @property
    def _llm_type(self) -> str:
        return "hke-fake-graph"

    @property
    def calls(self) -> int:
        return self._calls

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any):
        with self._lock:
            self._calls += 1
            n = self._calls
        prompt = str(messages[-1].content)
        self.prompts_seen.append(prompt)
        if self.fail_on_call is not None and n >= self.fail_on_call:
            raise RuntimeError(f"fake model failure on call {n}")
        if self.malformed and n % self.malformed == 0:
            text = "I'm sorry, I cannot help with that {not json"
        else:
            text = self._reply(prompt, messages)
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=text))])

    def _reply(self, prompt: str, messages: list[BaseMessage]) -> str:
        if prompt.startswith("Read the text below and list what it is about as a graph."):
            return extraction_reply(prompt.split("\nText:\n", 2)[-1])
        if prompt == prompts.GLEANING_PROMPT.format(completion_delimiter=prompts.COMPLETION_DELIMITER):
            return prompts.COMPLETION_DELIMITER  # nothing more
        if prompt == prompts.GLEANING_CHECK_PROMPT:
            return "N"
        if prompt.startswith("Write a report about one community"):
            return report_reply(prompt)
        if prompt.startswith("Below are community reports"):
            return map_reply(prompt, zero=self.zero_points)
        if prompt.startswith("Several analysts read reports"):
            ids = re.findall(r"Reports \(([^)]*)\)", prompt)
            first = ids[0] if ids else ""
            return (f"The collection covers satellites and monitors [Data: Reports ({first})]. "
                    "Unknown [Data: Reports (zz9)].")
        return "?"


def extraction_reply(text: str) -> str:
    d, r, done = prompts.TUPLE_DELIMITER, prompts.RECORD_DELIMITER, prompts.COMPLETION_DELIMITER
    found = [n for n in KNOWN_NAMES if n in text]
    records = [f'("entity"{d}{n}{d}{KNOWN_NAMES[n]}{d}{n} is mentioned in the text.)' for n in found]
    for a, b in zip(found, found[1:], strict=False):
        records.append(f'("relationship"{d}{a}{d}{b}{d}{a} relates to {b}.{d}5)')
    records.append(f'("entity"{d}broken record without enough fields)')  # malformed: must be skipped
    return r.join(records) + done


def report_reply(prompt: str) -> str:
    entity_ids = re.findall(r"^(\d+)\|", prompt.split("-----Entities-----")[-1].split("-----Relationships")[0], re.M)
    rel_ids = re.findall(r"^(\d+)\|", prompt.split("-----Relationships-----")[-1].split("-----Sources")[0], re.M) \
        if "-----Relationships-----" in prompt else []
    e = ", ".join(entity_ids[:2]) or "999"
    findings = [
        {"summary": "Key entities", "explanation": f"The central entities. [Data: Entities ({e})]"},
        {"summary": "Links", "explanation": f"How they connect. [Data: Relationships ({', '.join(rel_ids[:2]) or 9})]"},
        {"summary": "Uncited", "explanation": "A claim with an id that does not exist. [Data: Entities (987654)]"},
    ]
    return "```json\n" + json.dumps({
        "title": "Fake community report",
        "summary": "A community written by the fake model.",
        "rating": 7.5,
        "rating_explanation": "Because the fake says so.",
        "findings": findings,
    }) + "\n```"


def map_reply(prompt: str, *, zero: bool) -> str:
    ids = re.findall(r"^Report id: (\S+)$", prompt, re.M)
    points = [{"description": f"Point about {rid} [Data: Reports ({rid})]", "score": 80 - i} for i, rid in
              enumerate(ids[:2])]
    if zero and ids:
        points.append({"description": f"Irrelevant [Data: Reports ({ids[-1]})]", "score": 0})
    return json.dumps({"points": points})
