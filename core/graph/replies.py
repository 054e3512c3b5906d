"""Reading a model's reply: the JSON object in it, and the ``[Data: Entities (…); Reports (…)]`` ids it cites."""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["cited_ids", "parse_json_object", "report_refs"]

_DATA_REF = re.compile(r"\[Data:([^\]]*)\]", re.IGNORECASE)
_REPORT_REF = re.compile(r"Reports\s*\(([^)]*)\)", re.IGNORECASE)
_TABLE_REF = re.compile(r"(Entities|Relationships|Sources|Reports)\s*\(([^)]*)\)", re.IGNORECASE)


def parse_json_object(text: str) -> dict[str, Any] | None:
    """The first JSON object in a reply (code fences and chatter around it are ignored), else None."""
    if not text:
        return None
    start = text.find("{")
    while start != -1:
        depth = 0
        in_string = False
        escape = False
        for i in range(start, len(text)):
            ch = text[i]
            if in_string:
                if escape:
                    escape = False
                elif ch == "\\":
                    escape = True
                elif ch == '"':
                    in_string = False
                continue
            if ch == '"':
                in_string = True
            elif ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
                if depth == 0:
                    try:
                        value = json.loads(text[start : i + 1])
                    except json.JSONDecodeError:
                        break
                    return value if isinstance(value, dict) else None
        start = text.find("{", start + 1)
    return None


def cited_ids(text: str) -> dict[str, list[str]]:
    """``{"entities": [...], "relationships": [...], "sources": [...], "reports": [...]}`` from [Data: …] refs."""
    out: dict[str, list[str]] = {"entities": [], "relationships": [], "sources": [], "reports": []}
    for block in _DATA_REF.findall(text or ""):
        for table, ids in _TABLE_REF.findall(block):
            out[table.lower()] += _ids(ids)
    return out


def report_refs(text: str) -> list[str]:
    """The report ids ``text`` cites as ``Reports (id, id)``, inside a ``[Data: …]`` block or not, once each."""
    return list(dict.fromkeys(i for group in _REPORT_REF.findall(text or "") for i in _ids(group)))


def _ids(group: str) -> list[str]:
    """``"1, 'a', +more"`` → ``["1", "a"]`` (GraphRAG's ``+more`` marks ids left out)."""
    ids = (raw.strip().strip("'\"") for raw in group.split(","))
    return [i for i in ids if i and not i.startswith("+")]
