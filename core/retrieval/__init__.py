"""One retrieval pipeline for the Compare page, the CLI ``ask``, the LangChain retrievers and evaluation.

* :mod:`core.retrieval.question`: the rules every question passes (:func:`validate_question`).
* :mod:`core.retrieval.strategies`: the registry of search strategies (vector, contextual, full-text, hybrid;
  :data:`DEFAULT_SEARCH`) every selector, evaluation mode and benchmark derives from.
* :mod:`core.retrieval.request`: :class:`RetrievalRequest`, what one retrieval is asked to do.
* :mod:`core.retrieval.search`: scoped vector and full-text search, fusion.
* :mod:`core.retrieval.shape`: what a question names, its preamble, and whether it compares, ranks or lists.
* :mod:`core.retrieval.analysis`: :class:`QuestionAnalysis`, the question read once for every stage.
* :mod:`core.retrieval.stages`: the named stages' frozen configs and the context one question's searches share.
* :mod:`core.retrieval.headings`: the headings a question names become the scope of its search.
* :mod:`core.retrieval.entities`: the things a comparative question is about, and each one's best evidence.
* :mod:`core.retrieval.context`: hits expanded to partial trees with their sections, within a token budget.
* :mod:`core.retrieval.pipeline`: :func:`retrieve`, which ties them together, and the LangChain retrievers.
* :mod:`core.retrieval.contextual`: the contextual sibling collection the contextual strategy searches.

The names below are imported on first use (PEP 562), so reading the strategy registry (``python -m core ask
--help``) does not load the search, numpy and the database driver.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.lazy_exports import lazy_exports

if TYPE_CHECKING:
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
    from core.retrieval.heading_cache import (
        match_headings,
    )
    from core.retrieval.headings import (
        HeadingMatch,
        HeadingRef,
    )
    from core.retrieval.hits import (
        Hit,
    )
    from core.retrieval.pipeline import (
        MODES,
        Retrieval,
        RetrievalRequest,
        find_hits,
        retrieve,
        warm_up,
    )
    from core.retrieval.question import (
        MAX_QUESTION_CHARS,
        QuestionError,
        validate_question,
    )
    from core.retrieval.retrievers import (
        HierarchicalRetriever,
        PlainRetriever,
    )
    from core.retrieval.scope import (
        Scope,
        resolve_scope,
    )
    from core.retrieval.search import (
        embed_query,
        fts_scored,
        fts_search,
        fts_terms,
        fuse,
        rrf_fuse,
        tsquery_lexeme,
        vector_search,
    )
    from core.retrieval.strategies import (
        DEFAULT_SEARCH,
        DEFAULT_STRATEGY,
        MAX_K,
        REGISTRY,
        STRATEGIES,
        SearchConfig,
        Strategy,
        compare_choices,
        describe_choices,
        search_choices,
        search_config,
    )

_WHERE: dict[str, str] = {
    "CUT_MARK": "core.retrieval.context",
    "DEFAULT_CHILDREN_BUDGET": "core.retrieval.context",
    "DEFAULT_CONTEXT_TOKENS": "core.retrieval.context",
    "DISPLAY_HEADING_OFFSET": "core.retrieval.context",
    "Context": "core.retrieval.context",
    "ContextElement": "core.retrieval.context",
    "EntityRef": "core.retrieval.context",
    "Mode": "core.retrieval.context",
    "build_hierarchical_context": "core.retrieval.context",
    "build_plain_context": "core.retrieval.context",
    "context_token_budget": "core.retrieval.context",
    "expand": "core.retrieval.context",
    "fit_elements": "core.retrieval.context",
    "HeadingMatch": "core.retrieval.headings",
    "HeadingRef": "core.retrieval.headings",
    "match_headings": "core.retrieval.heading_cache",
    "Hit": "core.retrieval.hits",
    "MODES": "core.retrieval.pipeline",
    "HierarchicalRetriever": "core.retrieval.retrievers",
    "PlainRetriever": "core.retrieval.retrievers",
    "Retrieval": "core.retrieval.pipeline",
    "RetrievalRequest": "core.retrieval.pipeline",
    "find_hits": "core.retrieval.pipeline",
    "retrieve": "core.retrieval.pipeline",
    "warm_up": "core.retrieval.pipeline",
    "MAX_QUESTION_CHARS": "core.retrieval.question",
    "QuestionError": "core.retrieval.question",
    "validate_question": "core.retrieval.question",
    "Scope": "core.retrieval.scope",
    "resolve_scope": "core.retrieval.scope",
    "embed_query": "core.retrieval.search",
    "fts_scored": "core.retrieval.search",
    "fts_search": "core.retrieval.search",
    "fts_terms": "core.retrieval.search",
    "fuse": "core.retrieval.search",
    "rrf_fuse": "core.retrieval.search",
    "tsquery_lexeme": "core.retrieval.search",
    "vector_search": "core.retrieval.search",
    "DEFAULT_SEARCH": "core.retrieval.strategies",
    "DEFAULT_STRATEGY": "core.retrieval.strategies",
    "MAX_K": "core.retrieval.strategies",
    "REGISTRY": "core.retrieval.strategies",
    "STRATEGIES": "core.retrieval.strategies",
    "SearchConfig": "core.retrieval.strategies",
    "Strategy": "core.retrieval.strategies",
    "compare_choices": "core.retrieval.strategies",
    "describe_choices": "core.retrieval.strategies",
    "search_choices": "core.retrieval.strategies",
    "search_config": "core.retrieval.strategies",
}

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
    "REGISTRY",
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
    "RetrievalRequest",
    "Scope",
    "SearchConfig",
    "Strategy",
    "build_hierarchical_context",
    "build_plain_context",
    "compare_choices",
    "describe_choices",
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
    "search_choices",
    "search_config",
    "tsquery_lexeme",
    "validate_question",
    "vector_search",
    "warm_up",
]


__getattr__, __dir__ = lazy_exports(__name__, _WHERE, globals())
