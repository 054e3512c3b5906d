"""What one retrieval is asked to do: :class:`RetrievalRequest`, the one argument of ``retrieve`` and ``compare``."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime

import numpy as np

from core.retrieval.context import DEFAULT_CHILDREN_BUDGET
from core.retrieval.scope import Scope
from core.retrieval.strategies import SearchConfig, search_config

__all__ = ["RetrievalRequest"]


@dataclass(frozen=True)
class RetrievalRequest:
    """One question and how to retrieve for it; build it with keywords: ``RetrievalRequest(question, k=3)``.

    * ``scope``: a place the user chose (then no heading scoping); ``None`` is the whole collection.
    * ``search``: a strategy name or config (``core.retrieval.strategies``; ``None`` is the default strategy);
      ``everywhere`` turns off its scoping by the headings the question names.
    * ``children_budget``: the tokens a heading hit may bring from its section (``None``:
      :data:`~core.retrieval.context.DEFAULT_CHILDREN_BUDGET`, 0 = none); ``max_tokens``: the context ceiling
      (``None``: ``HKE_CONTEXT_TOKENS``).
    * ``query_vector``: the question's embedding when the caller has it (benchmarks, evaluation), so it is not
      embedded again; not part of equality.
    * ``as_of``: an aware datetime: search, scoping and expansion read each document's version valid then
      (``None``: the current collection).
    """

    question: str
    k: int = 4
    scope: Scope | None = None
    search: SearchConfig | str | None = None
    children_budget: int | None = None
    max_tokens: int | None = None
    everywhere: bool = False
    query_vector: np.ndarray | None = field(default=None, repr=False, compare=False)
    as_of: datetime | None = None

    def asking(self, question: str) -> RetrievalRequest:
        """The same request for another question (the LangChain retrievers hold one request for every query)."""
        return replace(self, question=question, query_vector=None)

    @property
    def config(self) -> SearchConfig:
        """The search config this request runs (raises ``ValueError`` for an unknown strategy name)."""
        return search_config(self.search, headings=False if self.everywhere else None)

    @property
    def budget(self) -> int:
        """The children budget in tokens (raises ``ValueError`` below 0)."""
        budget = DEFAULT_CHILDREN_BUDGET if self.children_budget is None else int(self.children_budget)
        if budget < 0:
            raise ValueError(f"the children budget must be 0 or more tokens, got {budget}")
        return budget
