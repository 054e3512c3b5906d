"""The evaluation modes by name, from the strategy registry alone: what ``core eval --modes`` checks while it parses
its arguments, before the retrieval pipeline (numpy, the database driver, the Korean analyser) is loaded.

``plain`` (the baseline strategy's hits as they are), one mode per strategy, ``default`` (what ``ask`` runs);
:mod:`core.evaluation.modes` gives each its search and context.
"""

from __future__ import annotations

from collections.abc import Sequence

from core.retrieval.strategies import REGISTRY

__all__ = ["ALL_MODES", "DEFAULT_MODES", "MODE_BLURBS", "mode_label", "mode_names", "parse_modes"]


def mode_names() -> tuple[str, ...]:
    """Every mode's name, in canonical order."""
    return ("plain", *(s.mode for s in REGISTRY.values()), "default", "routed")


ALL_MODES: tuple[str, ...] = mode_names()
# What `core eval` and the Evaluation page run unless told otherwise (contextual needs a contextual index).
DEFAULT_MODES: tuple[str, ...] = ("plain", "hierarchical", "hybrid", "default")

# What each mode reads, in the words the Compare page uses for its columns and searches.
MODE_BLURBS = {
    "plain": "the vector search's hits as they are (Compare's Plain column with Search: vector)",
    "hierarchical": "the same hits with their heading paths as partial trees (Compare's Hierarchical column with "
                    "Search: vector); no scoping by the headings a question names, no sections",
    "contextual": "vector search over elements embedded with their heading paths, rendered as trees",
    "fulltext": "full-text search over heading path and text, rendered as trees",
    "hybrid": "vector + full-text search over heading path and text (Postgres `simple`), fused by reciprocal "
              "rank, rendered as trees",
    "statements": "statements joined across sections and documents through shared facts and entities (needs the "
                  "tiers: built first)",
    "topics": "heading-section topics widened through shared entities by a beam, their statements grouped (needs "
              "the tiers: built first)",
    "default": "what Compare and `ask` run: the default search scoped by the headings the question names, trees "
               "with a heading hit's section",
    "routed": "the default with the router: a question bridging two things goes to the statements search when "
              "the collection has the tiers",
}


def parse_modes(value: str | Sequence[str] | None) -> tuple[str, ...]:
    """``"plain,hybrid"`` or a list → validated modes in canonical order; raises ``ValueError`` for unknown ones."""
    if value is None:
        return DEFAULT_MODES
    items = [m.strip().lower() for m in (value.split(",") if isinstance(value, str) else value) if m.strip()]
    unknown = [m for m in items if m not in ALL_MODES]
    if unknown:
        raise ValueError(f"unknown mode(s) {', '.join(unknown)}; choose from {', '.join(ALL_MODES)}")
    if not items:
        raise ValueError("no modes given")
    return tuple(m for m in ALL_MODES if m in items)


def mode_label(mode: str) -> str:
    """A mode in the Compare page's words: its context (the Plain or the Hierarchical column) and its search (the
    Search selector), e.g. ``"Hierarchical · vector search"`` for ``hierarchical``; ``default`` is what Compare runs
    by default."""
    if mode == "plain":
        return "Plain · vector search"
    if mode == "default":
        return "Hierarchical · default search (as Compare and ask run it)"
    if mode == "routed":
        return "Hierarchical · default search with the router"
    name = next((name for name, s in REGISTRY.items() if s.mode == mode), mode)
    return f"Hierarchical · {name} search, whole collection"
