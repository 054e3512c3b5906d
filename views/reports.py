"""The report list and its exports: text search, entity filter, sort, and one level as Markdown, JSON or CSV.

**Untrusted text.** Markdown exports escape markdown specials (no remote images, links or HTML in a previewer);
CSV cells a spreadsheet would run as formulas are prefixed with ``'``; JSON keeps the data exactly.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from core.store.graph_records import Report
from core.text import escape_markdown, spreadsheet_safe

SORT_KEYS = ("rating", "size", "title")


def report_text(report: Report) -> str:
    """What the text search reads: title, summary, rating explanation and every finding."""
    parts = [report.title, report.summary, report.rating_explanation]
    for f in report.findings:
        parts += [f.summary, f.explanation]
    return "\n".join(parts)


def filter_reports(
    reports: Iterable[Report],
    *,
    query: str = "",
    entity_id: str | None = None,
    members: Mapping[str, Iterable[str]] | None = None,
) -> list[Report]:
    """Reports whose text contains every word of ``query`` (case-insensitive) and, with ``entity_id``, whose
    community contains that entity (``members``: community id → entity ids) or whose findings cite it."""
    words = [w.casefold() for w in query.split()]
    member_sets = {k: set(v) for k, v in (members or {}).items()}
    out = []
    for r in reports:
        if words:
            text = report_text(r).casefold()
            if not all(w in text for w in words):
                continue
        if entity_id and entity_id not in member_sets.get(r.community_id, set()) and entity_id not in r.entity_ids:
            continue
        out.append(r)
    return out


def sort_reports(reports: Iterable[Report], by: str = "rating") -> list[Report]:
    """Best rated (or largest, or by title) first; ties by community id order so the list is stable."""
    if by not in SORT_KEYS:
        raise ValueError(f"sort by one of {', '.join(SORT_KEYS)}")
    items = list(reports)
    if by == "rating":
        return sorted(items, key=lambda r: (-r.rating, -r.size, _id_key(r.community_id)))
    if by == "size":
        return sorted(items, key=lambda r: (-r.size, -r.rating, _id_key(r.community_id)))
    return sorted(items, key=lambda r: (r.title.casefold(), _id_key(r.community_id)))


def _id_key(community_id: str) -> tuple[str, int]:
    """``e12`` after ``e9``: the prefix, then the number."""
    m = re.fullmatch(r"(\D*)(\d+)", community_id)
    return (m.group(1), int(m.group(2))) if m else (community_id, 0)



# -- exports ----------------------------------------------------------------------------------------------------

GENERATED_LABELS = {"extractive": "extractive (no LLM configured)", "llm": "written by an LLM"}


def generated_label(generated_by: str) -> str:
    return GENERATED_LABELS.get(generated_by, generated_by)


def reports_markdown(reports: Sequence[Report], *, heading: str) -> str:
    """One level's reports as a Markdown document; report text is escaped so that it renders literally."""
    lines = [f"# {escape_markdown(heading)}", ""]
    for r in reports:
        lines += [
            f"## {escape_markdown(r.community_id)} · {escape_markdown(r.title)}",
            "",
            f"*{r.kind} community, level {r.level}, {r.size} entities, rating {r.rating:g}/10, "
            f"{generated_label(r.generated_by)}*",
            "",
            escape_markdown(r.summary),
            "",
            f"**Rating:** {r.rating:g}/10. {escape_markdown(r.rating_explanation)}",
            "",
        ]
        if r.parent:
            lines += [f"Parent: {escape_markdown(r.parent)}", ""]
        if r.children:
            lines += [f"Sub-communities: {escape_markdown(', '.join(r.children))}", ""]
        if r.findings:
            lines += ["### Findings", ""]
            for i, f in enumerate(r.findings, start=1):
                lines += [f"{i}. **{escape_markdown(f.summary)}** {escape_markdown(f.explanation)}"]
            lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def reports_json(reports: Sequence[Report], *, meta: Mapping[str, Any] | None = None) -> str:
    """``{"meta": …, "reports": [Report.to_dict(), …]}`` as UTF-8 JSON (GraphRAG's report fields)."""
    return json.dumps({"meta": dict(meta or {}), "reports": [r.to_dict() for r in reports]}, ensure_ascii=False,
                      indent=2)  # fmt: skip


CSV_COLUMNS = ("community_id", "kind", "level", "title", "summary", "rating", "rating_explanation", "size", "parent",
               "children", "generated_by", "n_findings", "findings")  # fmt: skip


def reports_csv(reports: Sequence[Report]) -> str:
    """One row per report; children joined by ``;``, findings as JSON text."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for r in reports:
        row = [r.community_id, r.kind, r.level, r.title, r.summary, r.rating, r.rating_explanation, r.size,
               r.parent or "", ";".join(r.children), r.generated_by, len(r.findings),
               json.dumps([f.to_dict() for f in r.findings], ensure_ascii=False)]  # fmt: skip
        writer.writerow([spreadsheet_safe(v) for v in row])
    return buf.getvalue()


def export_filename(collection: str, kind: str, level: int, ext: str) -> str:
    """A safe download name such as ``samples-entity-level1-reports.md``."""
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "_", collection).strip("._") or "collection"
    return f"{slug}-{kind}-level{int(level)}-reports.{ext}"
