"""Theme titles and ratings below the top level, asserted over the sample corpus indexed by the real offline
pipeline: no fragment titles, no two sibling reports with one title, no child titled as its parent (or any
ancestor), and no 0.0 rating without its reason."""

from __future__ import annotations

from collections import Counter

import pytest

from core.graph import load_reports
from core.graph.indexing.pipeline import IndexConfig, run_index
from core.graph.reports.themes import is_fragment, is_generic_heading


@pytest.fixture(scope="module")
def reports(samples_store):
    run_index(samples_store, config=IndexConfig(extraction="offline", reports="extractive"))
    out = {kind: load_reports(samples_store, level=None, kind=kind) for kind in ("entity", "structural")}
    assert len(out["entity"]) > 20 and {r.level for r in out["entity"]} >= {0, 1, 2}, "a hierarchy to check"
    return out


@pytest.mark.parametrize("kind", ["entity", "structural"])
def test_no_two_siblings_share_a_title(reports, kind):
    titles = Counter((r.parent, r.level, r.title.casefold()) for r in reports[kind])
    assert [key for key, n in titles.items() if n > 1] == []


@pytest.mark.parametrize("kind", ["entity", "structural"])
def test_no_report_is_titled_as_its_parent_or_any_ancestor(reports, kind):
    by_id = {r.community_id: r for r in reports[kind]}
    clashes = []
    for r in reports[kind]:
        parent = by_id.get(r.parent) if r.parent else None
        while parent is not None:
            if parent.title.casefold() == r.title.casefold():
                clashes.append((r.community_id, parent.community_id, r.title))
            parent = by_id.get(parent.parent) if parent.parent else None
    assert clashes == []


def test_entity_titles_are_not_fragments(reports):
    """No title part is a bare number or year range ("2009~2015"), a cut-off word ("Typ"), or a generic heading
    ("개요") standing for a theme; a generic heading may appear only named with the heading it belongs to."""
    bad = []
    for r in reports["entity"]:
        for part in r.title.replace(" & ", ", ").split(", "):
            name = part.split(": ")[-1] if ": " in part else part
            qualified = ": " in part
            if is_fragment(part) or (is_fragment(name) and not qualified) or (is_generic_heading(part)):
                bad.append((r.community_id, r.title))
    assert bad == []
    titles = {r.title for r in reports["entity"]}
    assert "HDMI, 소비전력 & Typ" not in titles and "2009~2015 & 개요" not in titles


def test_the_fragment_rules():
    assert is_fragment("2009~2015") and is_fragment("2016~현재") and is_fragment("Typ") and is_fragment("3.1")
    assert not any(is_fragment(n) for n in ["DVI", "PC", "HDMI 2.1", "Nova 24FL", "미리내 2호", "영남", "Gbps"])
    assert is_generic_heading("Overview") and is_generic_heading("개요") and not is_generic_heading("연혁")


@pytest.mark.parametrize("kind", ["entity", "structural"])
def test_a_zero_rating_says_why(reports, kind):
    for r in reports[kind]:
        if r.rating == 0:
            assert r.rating_explanation.startswith("Rated 0/10 for importance: ") and (
                "no text" in r.rating_explanation or "covers only" in r.rating_explanation), r.rating_explanation


def test_a_community_named_only_in_headings_is_rated_by_its_sections(reports):
    """The policy's "Scope and Definitions" headings form a community whose members occur only in headings: it is
    rated by what those sections hold, not 0.0 ("covers 0.0%, reaches 0 documents")."""
    scope = [r for r in reports["entity"] if r.title == "Scope and Definitions"]
    assert scope, [r.title for r in reports["entity"]]
    assert all(r.rating > 0 and "reaches 1 of" in r.rating_explanation for r in scope), scope[0].rating_explanation
