"""Offline entities worth a node: no stop word, no bare field label and no markup fragment among the hubs.

Checked on a committed fixture that exercises each rule (tests/fixtures/entity_quality) and, when
bench/fetch_corpora.py has fetched them, on the Python-Markdown + pymdown-extensions docs.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from core.graph.communities.entity_graph import build_graph
from core.graph.extraction.lexicon import english_stop_words
from core.graph.extraction.node_filter import only_function_words
from core.graph.extraction.offline import OfflineExtractor
from core.graph.extraction.text_units import build_text_units
from core.markdown_loader import parse_markdown
from core.store.graph_records import Entity
from core.text import table_sentences
from core.textnorm import is_function_word

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "tests" / "fixtures" / "entity_quality"
CORPORA = [ROOT / "bench" / "corpora" / "python-markdown", ROOT / "bench" / "corpora" / "pymdown-extensions"]
MARKUP = re.compile(r"[<>{}\[\]`=]|#!|&\w+;|^octicons-|^material-|^fontawesome-")  # markup, icon shortcodes


def _documents(paths: list[Path]) -> list:
    files = sorted(f for p in paths for f in ([p] if p.is_file() else p.rglob("*.md")))
    return [(str(f), parse_markdown(f.read_text(encoding="utf-8"), source=str(f), document_id=str(f))) for f in files]


def _top_entities(documents: list, n: int = 50) -> list[Entity]:
    units, infos = build_text_units(documents)
    extraction = OfflineExtractor(english_ner="heuristic").extract(units, infos)
    graph = build_graph(extraction, units, infos)
    return sorted(graph.entities, key=lambda e: (-e.degree, e.human_readable_id))[:n]


def _field_labels(documents: list) -> tuple[Counter, str]:
    """How many sections use each table header cell, ``key :`` of a list item and bold lead-in as a label; and
    the corpus's text with those labels cut out (where a label could still be used as a name)."""
    seen: set[tuple[str, tuple[str, ...]]] = set()
    prose: list[str] = []
    for document_id, elements in documents:
        for el in elements:
            text, meta = el.page_content, el.metadata
            section = (document_id, *meta.get("heading_path", ()))
            labels: list[str] = []
            rest = text
            if meta["category"] == "Table":
                header, _first, rows = table_sentences(text)
                labels += header
                rest = " ".join(rows)
                for cell in header:
                    rest = rest.replace(f"{cell}: ", " ")
            elif meta["category"] == "ListItem" and " : " in text:
                labels.append(text.partition(" : ")[0].strip())
                rest = text.partition(" : ")[2]
            for bold in meta.get("emphasized") or ():
                if text.startswith(bold) and text[len(bold) :].lstrip().startswith(":"):
                    labels.append(bold)
                    rest = text[len(bold) :]
            seen.update((label.casefold(), section) for label in labels)
            prose.append(rest)
    return Counter(label for label, _section in seen), "\n".join(prose)


def _bare_label(title: str, labels: Counter, prose: str) -> bool:
    """A label of 2+ sections that the text around the labels names less than half as often as it is a label."""
    sections = labels.get(title.casefold(), 0)
    if sections < 2:
        return False
    uses = len(re.findall(rf"(?<![\w-]){re.escape(title)}(?![\w-])", prose))
    return uses * 2 < sections


def _problems(entities: list[Entity], labels_and_prose: tuple[Counter, str]) -> list[str]:
    labels, prose = labels_and_prose
    stop = english_stop_words()
    out = []
    for e in entities:
        title = e.title
        if only_function_words(title) or title.casefold() in stop or is_function_word(title):
            out.append(f"stop word {title!r} (degree {e.degree})")
        if _bare_label(title, labels, prose):
            out.append(f"field label {title!r} (degree {e.degree}, {labels[title.casefold()]} sections)")
        if MARKUP.search(title):
            out.append(f"markup fragment {title!r} (degree {e.degree})")
    return out


def test_fixture_hubs_are_names_not_words_labels_or_markup() -> None:
    documents = _documents([FIXTURE])
    top = _top_entities(documents)
    titles = {e.title for e in top}
    assert _problems(top, _field_labels(documents)) == []
    # Each rule, by an example it must remove…
    for word in ("and", "all", "should", "not", "only"):  # function words
        assert word not in {t.casefold() for t in titles}
    for label in ("NEW", "FIX", "Option", "Type", "Default", "Description", "발사일", "궤도", "무게", "실장", "비고",
                  "Options"):  # fields, and a heading repeated in 3 sections
        assert label not in titles, label
    for fragment in ("<code>", "&amp;", "#!py target['section'] is not None", "True", "10.0"):  # markup, expressions
        assert fragment not in titles, fragment
    assert not any("{:" in t or "{ :" in t for t in titles)  # heading attribute lists are stripped when parsed
    # …and names it must keep (identifiers that recur, names, Korean proper nouns, unique headings).
    for name in ("Snippets", "toc", "base_path", "url_download", "MkDocs", "Table of Contents Extension",
                 "한빛우주과학연구원", "미리내 2호", "강태호", "오세린", "Widget Toolkit Changelog"):
        assert name in titles, name


@pytest.mark.skipif(not all(p.is_dir() for p in CORPORA), reason="public corpora not fetched (bench/fetch_corpora.py)")
def test_public_docs_top_50_entities_are_names() -> None:
    documents = _documents(CORPORA)
    top = _top_entities(documents)
    assert len(top) == 50
    assert _problems(top, _field_labels(documents)) == []


def test_bundled_samples_top_50_entities_are_names() -> None:
    documents = _documents([ROOT / "data" / "samples"])
    top = _top_entities(documents)
    assert _problems(top, _field_labels(documents)) == []
    assert {"Nova 32UX", "HDMI", "한빛우주과학연구원"} <= {e.title for e in top}
