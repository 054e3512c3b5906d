"""The router of the default pipeline (issue 31): which search a question takes, read from its analysis.

A question that names one thing and asks one attribute of it stays on the config's own path (scoped by the headings
it names, entity hits, trees). A question whose evidence must bridge two things (``QuestionAnalysis.bridge``: a
thing named by a relative clause, "the lab that built X", or two questions asked at once) goes to the ``statements``
search, which joins statements across sections and documents, when the collection has the statement tiers; a
question asking several facts at once ("default X and default Y?", ``QuestionAnalysis.parts``) is searched part by
part (the ``parts`` search), each part on the config's own path. A comparative, superlative or list question keeps
the default's own handling of those shapes.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.retrieval.analysis import QuestionAnalysis

__all__ = ["RouterConfig", "Routing", "route"]


@dataclass(frozen=True)
class RouterConfig:
    """Which bridge cues send a question to the statements search."""

    cues: frozenset[str] = frozenset({"relative clause", "two questions"})
    parts: bool = True  # a question of several asks is searched part by part
    keep_shapes: bool = True  # comparative, superlative and list questions stay on the default's path


DEFAULT_ROUTER = RouterConfig()


@dataclass(frozen=True)
class Routing:
    search: str  # "statements", "parts", or "" for the config's own path
    reason: str

    @property
    def note(self) -> str:
        return f"routed to the {self.search} search: the question {self.reason}" if self.search else ""


def route(analysis: QuestionAnalysis, config: RouterConfig = DEFAULT_ROUTER) -> Routing:
    """Where ``analysis``'s question goes (before the collection is asked whether it has the tiers)."""
    if config.keep_shapes and analysis.shape is not None:
        return Routing("", f"is a {analysis.shape.kind} question")
    if config.parts and len(analysis.parts) > 1 and analysis.bridge != "relative clause":
        return Routing("parts", f"asks {len(analysis.parts)} things at once")
    if not analysis.bridge or analysis.bridge not in config.cues:
        return Routing("", "names one thing and one attribute")
    reason = ("names a thing by a relative clause" if analysis.bridge == "relative clause"
              else "asks two questions at once")
    return Routing("statements", reason)
