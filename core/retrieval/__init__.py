"""One retrieval pipeline for the Compare page, the CLI ``ask``, the LangChain retrievers and evaluation.

* :mod:`core.retrieval.question`: the rules every question passes (:func:`validate_question`).
* :mod:`core.retrieval.search`: search strategies as small configs (vector, full-text, hybrid, contextual;
  :data:`DEFAULT_SEARCH`), scoped vector and full-text search, fusion.
* :mod:`core.retrieval.shape`: what a question names, its preamble, and whether it compares, ranks or lists.
* :mod:`core.retrieval.headings`: the headings a question names become the scope of its search.
* :mod:`core.retrieval.entities`: the things a comparative question is about, and each one's best evidence.
* :mod:`core.retrieval.context`: hits expanded to partial trees with their sections, within a token budget.
* :mod:`core.retrieval.pipeline`: :func:`retrieve`, which ties them together, and the LangChain retrievers.
* :mod:`core.retrieval.contextual`: the contextual sibling collection the contextual strategy searches.
"""

from core.retrieval.context import (
    CUT_MARK,
    DEFAULT_CHILDREN_BUDGET,
    DEFAULT_CONTEXT_TOKENS,
    DISPLAY_HEADING_OFFSET,
    Context,
    ContextElement,
    EntityRef,
    Mode,
    build_hierarchical_context,
    build_plain_context,
    context_token_budget,
    expand,
    fit_elements,
)
from core.retrieval.headings import HeadingMatch, HeadingRef, match_headings
from core.retrieval.hits import Hit
from core.retrieval.pipeline import (
    MODES,
    HierarchicalRetriever,
    PlainRetriever,
    Retrieval,
    find_hits,
    retrieve,
    warm_up,
)
from core.retrieval.question import MAX_QUESTION_CHARS, QuestionError, validate_question
from core.retrieval.scope import Scope, resolve_scope
from core.retrieval.search import (
    DEFAULT_SEARCH,
    DEFAULT_STRATEGY,
    MAX_K,
    STRATEGIES,
    SearchConfig,
    embed_query,
    fts_scored,
    fts_search,
    fts_terms,
    fuse,
    rrf_fuse,
    search_config,
    tsquery_lexeme,
    vector_search,
)

__all__ = [
    "CUT_MARK",
    "DEFAULT_CHILDREN_BUDGET",
    "DEFAULT_CONTEXT_TOKENS",
    "DEFAULT_SEARCH",
    "DEFAULT_STRATEGY",
    "DISPLAY_HEADING_OFFSET",
    "MAX_K",
    "MAX_QUESTION_CHARS",
    "MODES",
    "STRATEGIES",
    "Context",
    "ContextElement",
    "EntityRef",
    "HeadingMatch",
    "HeadingRef",
    "HierarchicalRetriever",
    "Hit",
    "Mode",
    "PlainRetriever",
    "QuestionError",
    "Retrieval",
    "Scope",
    "SearchConfig",
    "build_hierarchical_context",
    "build_plain_context",
    "context_token_budget",
    "embed_query",
    "expand",
    "find_hits",
    "fit_elements",
    "fts_scored",
    "fts_search",
    "fts_terms",
    "fuse",
    "match_headings",
    "resolve_scope",
    "retrieve",
    "rrf_fuse",
    "search_config",
    "tsquery_lexeme",
    "validate_question",
    "vector_search",
    "warm_up",
]
