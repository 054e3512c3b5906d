"""Validate the sample corpus (data/samples/) and its gold questions (data/questions.json).

Checks that every gold answer occurs verbatim (case- and whitespace-insensitive) in the named document, and inside the
section named by its gold_path, and that gold_path is a real root-to-leaf heading chain of that document.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "data" / "samples"
QUESTIONS = ROOT / "data" / "questions.json"

ALLOWED_TAGS = {"spec", "disambiguation", "policy", "faq", "procedure", "entity", "multi-hop", "english", "korean"}
HEADING_RE = re.compile(r"^(#{1,6})\s+(.+?)\s*$")
FENCE_RE = re.compile(r"^\s*(```|~~~)")


def norm(text: str) -> str:
    return re.sub(r"\s+", "", text).casefold()


def strip_front_matter(lines: list[str]) -> list[str]:
    if lines and lines[0].strip() == "---":
        for i in range(1, len(lines)):
            if lines[i].strip() == "---":
                return lines[i + 1 :]
    return lines


def parse_sections(text: str) -> list[dict]:
    """Return the headings of a markdown text, each with its root-to-leaf path and its section text
    (the heading line and everything up to the next heading of the same or a higher level)."""
    lines = strip_front_matter(text.splitlines())
    heads: list[tuple[int, int, str]] = []  # (line index, level, text)
    in_fence = False
    for i, line in enumerate(lines):
        if FENCE_RE.match(line):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        m = HEADING_RE.match(line)
        if m:
            heads.append((i, len(m.group(1)), m.group(2)))
    sections = []
    stack: list[tuple[int, str]] = []
    for n, (i, level, title) in enumerate(heads):
        while stack and stack[-1][0] >= level:
            stack.pop()
        stack.append((level, title))
        end = len(lines)
        for j, lvl, _ in heads[n + 1 :]:
            if lvl <= level:
                end = j
                break
        path = [t for _, t in stack]
        sections.append({"level": level, "title": title, "path": path, "text": "\n".join(lines[i:end])})
    return sections


@pytest.fixture(scope="module")
def docs() -> dict[str, str]:
    return {p.name: p.read_text(encoding="utf-8") for p in sorted(SAMPLES.glob("*.md"))}


@pytest.fixture(scope="module")
def questions() -> list[dict]:
    data = json.loads(QUESTIONS.read_text(encoding="utf-8"))
    assert data["name"] == "samples"
    assert data.get("description")
    return data["questions"]


def test_corpus_size(docs):
    assert len(docs) >= 8
    total = sum(len(t.encode("utf-8")) for t in docs.values())
    assert 35_000 <= total <= 60_000, total
    for name, text in docs.items():
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*\.md", name), name
        assert 3_000 <= len(text.encode("utf-8")) <= 8_000, name
        sections = parse_sections(text)
        assert sections and sections[0]["level"] == 1, name
        assert sum(1 for s in sections if s["level"] == 1) == 1, f"{name}: exactly one top heading"


def test_question_counts(questions):
    assert len(questions) >= 30
    assert sum("disambiguation" in q["tags"] for q in questions) >= 12
    ids = [q["id"] for q in questions]
    assert len(ids) == len(set(ids))


@pytest.mark.parametrize("field", ["id", "question", "answers", "gold_path", "document", "tags"])
def test_question_fields(questions, field):
    for q in questions:
        assert q.get(field), (q.get("id"), field)


def test_tags_allowed(questions):
    for q in questions:
        assert set(q["tags"]) <= ALLOWED_TAGS, q["id"]


def test_answers_present(docs, questions):
    for q in questions:
        assert q["document"] in docs, q["id"]
        body = norm(docs[q["document"]])
        assert any(norm(a) in body for a in q["answers"]), (q["id"], q["answers"])


def test_gold_path_headings_in_order(docs, questions):
    for q in questions:
        titles = [s["title"] for s in parse_sections(docs[q["document"]])]
        pos = -1
        for h in q["gold_path"]:
            assert h in titles[pos + 1 :], (q["id"], h)
            pos = titles.index(h, pos + 1)


def test_gold_path_is_heading_chain_containing_answer(docs, questions):
    for q in questions:
        sections = parse_sections(docs[q["document"]])
        matches = [s for s in sections if s["path"] == q["gold_path"]]
        assert matches, (q["id"], q["gold_path"])
        text = norm("\n".join(s["text"] for s in matches))
        assert any(norm(a) in text for a in q["answers"]), (q["id"], "answer not inside gold section")
