"""The records of the GraphRAG index, as typed dataclasses with ``to_dict()``.

They mirror the rows of the ``hke_*`` tables (see ``core/sql/graph.py``) and Microsoft GraphRAG's output
columns. Names are stored exactly as found: a hostile name such as ``<img src=x onerror=alert(1)>`` is data,
and escaping it is the job of whoever renders it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

CommunityKind = Literal["entity", "structural"]
GeneratedBy = Literal["llm", "extractive"]
COMMUNITY_KINDS: tuple[str, ...] = ("entity", "structural")

MIN_FINDINGS = 5
MAX_FINDINGS = 10


@dataclass
class TextUnit:
    """A section of one document: a heading with its content, up to a token budget."""

    id: str
    human_readable_id: int
    document_id: str
    heading_path: list[str]
    text: str
    n_tokens: int
    element_ids: list[str]
    entity_ids: list[str] = field(default_factory=list)
    relationship_ids: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Entity:
    id: str
    human_readable_id: int
    title: str
    type: str
    description: str
    degree: int = 0
    frequency: int = 0
    text_unit_ids: list[str] = field(default_factory=list)
    element_ids: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Relationship:
    id: str
    human_readable_id: int
    source: str
    target: str
    source_id: str
    target_id: str
    description: str
    weight: float
    combined_degree: int = 0
    text_unit_ids: list[str] = field(default_factory=list)
    element_ids: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Community:
    """A community of either kind. ``level`` 0 is the coarsest; ``parent``/``children`` link the levels."""

    id: str
    human_readable_id: int
    kind: str
    level: int
    parent: str | None
    children: list[str]
    title: str
    entity_ids: list[str]
    relationship_ids: list[str]
    text_unit_ids: list[str]
    element_ids: list[str]
    size: int

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Finding:
    """One insight of a report, with what it cites (ids that exist in the index and the element store)."""

    summary: str
    explanation: str
    entity_ids: list[str] = field(default_factory=list)
    relationship_ids: list[str] = field(default_factory=list)
    element_ids: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Finding:
        return cls(
            summary=str(data.get("summary", "")),
            explanation=str(data.get("explanation", "")),
            entity_ids=[str(x) for x in data.get("entity_ids") or []],
            relationship_ids=[str(x) for x in data.get("relationship_ids") or []],
            element_ids=[str(x) for x in data.get("element_ids") or []],
        )


@dataclass
class Report:
    """A community report in GraphRAG's shape; ``generated_by`` says whether an LLM wrote it."""

    community_id: str
    kind: str
    level: int
    title: str
    summary: str
    rating: float
    rating_explanation: str
    findings: list[Finding]
    full_content: str
    generated_by: str
    parent: str | None = None
    children: list[str] = field(default_factory=list)
    size: int = 0

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["findings"] = [f.to_dict() for f in self.findings]
        return out

    @property
    def entity_ids(self) -> list[str]:
        return list(dict.fromkeys(i for f in self.findings for i in f.entity_ids))

    @property
    def relationship_ids(self) -> list[str]:
        return list(dict.fromkeys(i for f in self.findings for i in f.relationship_ids))

    @property
    def element_ids(self) -> list[str]:
        return list(dict.fromkeys(i for f in self.findings for i in f.element_ids))


@dataclass(frozen=True)
class HierarchyRow:
    """One node of a community hierarchy, for a sunburst or a tree view."""

    id: str
    parent: str | None
    level: int
    title: str
    size: int
    rating: float | None
    kind: str
    n_children: int

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class IndexReport:
    """What one ``build_index`` run made. ``communities`` counts entity communities per level."""

    text_units: int
    entities: int
    relationships: int
    communities: dict[int, int]
    structural_communities: dict[int, int]
    reports: int
    llm_reports: int
    extractive_reports: int
    llm_calls: int
    cached_calls: int
    skipped_llm_replies: int
    extraction: str
    seconds: float
    stages: dict[str, float] = field(default_factory=dict)
    llm_units: int = 0  # text units the model extracted
    fallback_units: int = 0  # units whose extraction failed or parsed nothing: the offline extractor's entities
    fallback_reports: int = 0  # communities whose report call failed or did not parse: the extractive report

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["communities"] = {str(k): v for k, v in sorted(self.communities.items())}
        out["structural_communities"] = {str(k): v for k, v in sorted(self.structural_communities.items())}
        return out


@dataclass
class GlobalPoint:
    """A map-stage point: a statement, its 0–100 helpfulness score and the reports it came from."""

    description: str
    score: int
    report_ids: list[str]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class GlobalAnswer:
    """A global-search answer. ``generated_by`` is ``"llm"`` or ``"extractive"`` (offline)."""

    question: str
    answer: str
    generated_by: str
    level: int
    kind: str
    report_ids: list[str]
    points: list[GlobalPoint]
    reports_considered: int
    llm_calls: int
    cached_calls: int
    context_tokens: int
    seconds: float
    notice: str = ""  # what the reader should know about how it was answered (an LLM answer that fell back)

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["points"] = [p.to_dict() for p in self.points]
        return out
