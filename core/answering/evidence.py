"""A unit of the context scored as evidence for a question: what the extractive reader ranks and quotes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from core.retrieval import ContextElement


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
    attribute: float = 0.0  # the share of its stated key the question asks for (0: no asked attribute stated)
    section_score: float | None = None  # under an FAQ question heading: its score with the heading's similarity

    @property
    def states_unasked(self) -> bool:
        """The unit states the value of a key the question does not ask ("Type: Bool Default: False …" under "Float
        To Top" for "what does --float-to-top do"): the thing's metadata, not what it does."""
        return bool(self.value) and not self.attribute

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
            "outside_scope": self.element.outside_scope,
        }
