"""Versions on the pages: the Document tree's "As of" picker and History view, and the Compare page's "As of"
picker, under Streamlit's AppTest against the real database, with the legal corpus' four dated versions
(data/versions/legal). The History tree's HTML is checked directly (AppTest cannot look inside its frame)."""

from __future__ import annotations

import datetime as dt
import html
import re
import uuid

import pytest
from streamlit.testing.v1 import AppTest

from core.elements import Element
from core.ingest import SourceFile, ingest
from core.markdown_loader import parse_markdown
from core.store import ElementStore
from core.versions import diff_elements
from views.tree import render_tree_html
from views.versions import end_of_day, history_tree

from .conftest import ROOT
from .helpers_pages import unescape, walk

LEGAL = ROOT / "data" / "versions" / "legal" / "en"
NAME = "library-ordinance.md"


def legal_text(n: int) -> str:
    return (LEGAL / f"library-ordinance-v{n}.md").read_text("utf-8")


@pytest.fixture(scope="module")
def legal(db_url, use_embeddings):
    """The English ordinance v1..v4 as one document (dates from their front matter), and a one-version note."""
    store = ElementStore(db_url, f"legal_{uuid.uuid4().hex[:8]}", use_embeddings)
    try:
        for n in range(1, 5):
            assert not ingest(store, [SourceFile(NAME, legal_text(n).encode())]).errors
        assert not ingest(store, [SourceFile("note.md", b"# A note\n\nOnly one version.\n")]).errors
        yield store
    finally:
        store.drop()


def tree_page(collection: str, **params: str) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
    at.session_state["collection"] = collection
    for key, value in params.items():
        at.query_params[key] = value
    return at.switch_page("pages/document_tree.py")


def pick_document(at: AppTest, filename: str) -> AppTest:
    box = at.selectbox[0]
    return box.select(next(o for o in box.options if o.endswith(filename))).run()


def texts(at: AppTest) -> str:
    return unescape(" ".join(str(e.value) for kind in ("markdown", "caption", "info", "warning", "error")
                             for e in getattr(at, kind)))


def metrics(at: AppTest) -> dict[str, str]:
    return {m.label: str(m.value) for m in at.metric}


def parsed(text: str, document_id: str = "doc") -> list[Element]:
    return [Element.from_document(d) for d in parse_markdown(text, source=NAME, document_id=document_id)]


# -- the History tree (HTML) --------------------------------------------------------------------------------


def test_history_tree_marks_changes_with_word_diffs_and_removed_elements_in_place():
    old, new = parsed(legal_text(2)), parsed(legal_text(3))
    shown, marks = history_tree(old, new, diff_elements(old, new, include_unchanged=True))
    page = render_tree_html(shown, changes=marks)
    assert sorted(c.op for c in marks.values()) == ["added", "modified", "removed", "removed"]
    assert 'class="change change-added">added</span>' in page
    assert page.count('class="change change-removed">removed</span>') == 2
    # The removed items stand struck through under the heading they were under, before the next article.
    closed = page.index("The library is closed every Monday.")
    assert page.index("Article 6") < closed < page.index("Article 7")
    assert re.search(r'class="\s*gone">\(1\) The library is closed every Monday\.', page)
    # The repealed article's heading: its changed words, deleted and inserted.
    assert "<del>(Closing days)</del>" in page and "<ins>[Repealed on March 1, 2023]</ins>" in page


def test_history_tree_word_diff_and_moved_from_are_escaped():
    line = "Keep the {} shut at night, and lock the gate of the yard before you leave the building after work."
    old = parsed(f"# Rules\n\n## A <i>x</i>\n\nMoved line here.\n\n## B\n\n{line.format('<b>door</b>')}\n")
    hostile = "<img src=x onerror=alert(1)> [link](javascript:alert(1))"
    new = parsed(f"# Rules\n\n## B\n\n{line.format(hostile)}\n\n## A <i>x</i>\n\nMoved line here.\n")
    shown, marks = history_tree(old, new, diff_elements(old, new, include_unchanged=True))
    assert sorted(c.op for c in marks.values()) == ["modified", "moved"]
    page = render_tree_html(shown, changes=marks)
    assert "<img" not in page and "<b>door" not in page and "<i>x" not in page
    assert f"<ins>{html.escape(hostile)}</ins>" in page and f"<del>{html.escape('<b>door</b>')}</del>" in page
    assert '<span class="from">moved from Rules</span>' in page


def test_only_the_changes_shows_changed_elements_and_the_headings_above_them():
    old, new = parsed(legal_text(1)), parsed(legal_text(2))
    shown, marks = history_tree(old, new, diff_elements(old, new, include_unchanged=True))
    page = render_tree_html(shown, changes=marks, only_changes=True)
    assert "e-books: three per person" in page and "Article 4 (Loans)" in page
    assert "Article 1 (Purpose)" not in page and "Article 5" not in page


def test_end_of_day_reads_the_version_that_takes_effect_that_day():
    assert end_of_day(dt.date(2021, 7, 1)) > dt.datetime(2021, 7, 1, 23, 59, 59, tzinfo=dt.UTC)
    assert end_of_day(dt.date(2021, 7, 1)) < dt.datetime(2021, 7, 2, tzinfo=dt.UTC)


# -- the Document tree page ---------------------------------------------------------------------------------


def test_history_view_walks_the_versions_with_their_records(legal):
    at = pick_document(tree_page(legal.collection).run(), NAME)
    at = at.radio(key="tree_view").set_value("History").run()
    assert not at.exception, at.exception
    slider = at.select_slider[0]
    assert list(slider.options) == [
        "v1 · 2020-01-01", "v2 · 2021-07-01", "v3 · 2023-03-01", "v4 · 2024-09-01"]
    assert metrics(at)["Valid from"] == "2024-09-01" and metrics(at)["Valid to"] == "—"
    assert "Valid-from date from the front matter" in texts(at)
    assert at.get("download_button"), "the changes can be downloaded as JSON"
    at = slider.set_value(2).run()
    assert not at.exception, at.exception
    assert metrics(at)["Valid from"] == "2021-07-01" and metrics(at)["Valid to"] == "2023-03-01"
    assert "Since v1 · 2020-01-01: 1 added · 0 removed · 2 modified · 0 moved · 0 renamed." in texts(at)
    at = slider.set_value(1).run()
    assert "The first version: nothing to compare it with" in texts(at)


def test_a_document_with_one_version_says_so(legal):
    at = pick_document(tree_page(legal.collection).run(), "note.md")
    at = at.radio(key="tree_view").set_value("History").run()
    assert not at.exception, at.exception
    assert "This document has one version (v1 · " in texts(at)
    assert not at.select_slider


def test_as_of_a_date_shows_the_version_in_force_then(legal):
    at = pick_document(tree_page(legal.collection).run(), NAME)
    assert metrics(at)["Source"] == NAME and "in force at the end of" not in texts(at)
    at.toggle(key="tree_as_of_on").set_value(True).run()
    at = at.date_input(key="tree_as_of_date").set_value(dt.date(2021, 6, 30)).run()
    assert not at.exception, at.exception
    assert "Version v1 · 2020-01-01, in force at the end of 2021-06-30 (UTC)." in texts(at)
    at = at.date_input(key="tree_as_of_date").set_value(dt.date(2021, 7, 1)).run()
    assert "Version v2 · 2021-07-01, in force at the end of 2021-07-01" in texts(at)  # it takes effect that day
    at = at.date_input(key="tree_as_of_date").set_value(dt.date(2019, 12, 31)).run()
    assert not at.exception, at.exception
    assert "was in force on 2019-12-31. Its first version takes effect on 2020-01-01." in texts(at)


def test_an_as_of_link_opens_the_tree_at_that_date_and_a_bad_one_is_said(legal):
    at = tree_page(legal.collection, as_of="2023-03-01").run()
    assert not at.exception, at.exception
    assert at.toggle(key="tree_as_of_on").value and at.date_input(key="tree_as_of_date").value == dt.date(2023, 3, 1)
    hostile = "x](javascript:alert(1)) ![p](http://127.0.0.1:9/p.png)"
    at = tree_page(legal.collection, as_of=hostile).run()
    assert not at.exception, at.exception
    warning = " ".join(w.value for w in at.warning)
    assert "is not a date" in warning and "\\]\\(javascript" in warning, warning
    assert not at.toggle(key="tree_as_of_on").value


# -- the Compare page -----------------------------------------------------------------------------------------


def compare_as_of(collection: str, day: dt.date, question: str) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=300)
    at.session_state["collection"] = collection
    at.switch_page("pages/compare.py").run()
    at.toggle(key="compare_as_of_on").set_value(True).run()
    at.date_input(key="compare_as_of_date").set_value(day).run()
    at.text_area(key="compare_question").input(question)
    next(b for b in at.button if getattr(b, "label", None) == "Ask").click()
    return at.run()


def source_lines(at: AppTest) -> str:
    return unescape("\n".join(e.proto.body for e in walk(at._tree) if hasattr(getattr(e, "proto", None), "body")
                              and "/document_tree?" in e.proto.body))


@pytest.mark.parametrize(("day", "version", "said", "unsaid"), [
    (dt.date(2021, 6, 30), "v1 · 2020-01-01", "14 days", "21 days"),
    (dt.date(2021, 7, 1), "v2 · 2021-07-01", "21 days", "14 days"),
])
def test_compare_as_of_reads_the_version_in_force_and_says_which(legal, day, version, said, unsaid):
    at = compare_as_of(legal.collection, day, "How long is the loan period?")
    assert not at.exception, at.exception
    sources = source_lines(at)
    assert said in sources and unsaid not in sources, sources
    assert f"&as_of={day.isoformat()})" in sources, "a source opens the tree at the same date"
    captions = unescape(" ".join(c.value for c in at.caption))
    assert captions.count(f"Read at: {NAME} {version} (as of {day.isoformat()})") == 2, captions


def test_compare_as_of_before_every_version_is_an_error_not_a_traceback(legal):
    at = compare_as_of(legal.collection, dt.date(2019, 12, 31), "How long is the loan period?")
    assert not at.exception, at.exception
    errors = unescape(" ".join(e.value for e in at.error))
    assert "existed on 2019-12-31 (its first version takes effect on 2020-01-01)" in errors, errors
    assert not any(s.value == "Plain" for s in at.subheader)


def test_an_edited_code_block_shows_its_text_before_escaped():
    old = parsed("# Setup\n\n```\nrun <b>old</b>\n```\n\nSome words about it.\n")
    new = parsed("# Setup\n\n```\nrun <b>old</b>\nand more\n```\n\nSome words about it.\n")
    shown, marks = history_tree(old, new, diff_elements(old, new, include_unchanged=True))
    assert [c.op for c in marks.values()] == ["modified"]
    page = render_tree_html(shown, changes=marks)
    assert '<details class="before"><summary>before</summary><pre>run &lt;b&gt;old&lt;/b&gt;</pre></details>' in page


def test_compare_answers_a_what_changed_question_from_the_stored_diffs(legal):
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=300)
    at.session_state["collection"] = legal.collection
    at.switch_page("pages/compare.py").run()
    at.text_area(key="compare_question").input("What changed in the ordinance since 2023?")
    next(b for b in at.button if getattr(b, "label", None) == "Ask").click()
    at.run()
    assert not at.exception, at.exception
    assert [s.value for s in at.subheader] == ["What changed"], "no search columns for a change question"
    page = unescape("\n".join(m.value for m in at.markdown))
    assert "**Changes after 2023-01-01**: " in page, page
    assert "**added** · [*" in page and "](/document_tree?" in page and "v3 · in force from 2023-03-01 · " in page
    assert "Article 7 (E-book service)" in page and "Repealed on March 1, 2023" in page
    assert "2021-07-01" not in page, "a change before the date asked is not listed"
    # Grouped by document, counts first: the ordinance's block starts with its total, then its versions in order.
    block = next(m.value for m in at.markdown if unescape(m.value).startswith(f"**{NAME}**"))
    assert re.match(r"\*\*.+\*\* — \d+ change\(s\) \(", block), block
    assert block.index("v3 · in force") < block.index("v4 · in force")
    assert any(b.label == "Download the changes (JSON)" for b in at.get("download_button"))


def _ask_compare(collection: str, question: str) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=300)
    at.session_state["collection"] = collection
    at.switch_page("pages/compare.py").run()
    at.text_area(key="compare_question").input(question)
    next(b for b in at.button if getattr(b, "label", None) == "Ask").click()
    return at.run()


@pytest.mark.parametrize("question", ["What changed between 2021-07-01 and 2023-03-01?",
                                      "2021-07-01부터 2023-03-01까지 무엇이 바뀌었나요?",
                                      "2023-03-01와 2021-07-01 사이의 변경 사항"])
def test_compare_between_two_dates_reads_the_version_of_each_and_says_the_window(legal, question):
    at = _ask_compare(legal.collection, question)
    assert not at.exception, at.exception
    page = unescape("\n".join(m.value for m in at.markdown))
    # v2 took effect on 2021-07-01 (left out: not after it), v3 on 2023-03-01 (kept: up to and including it)
    assert "v3 · in force from 2023-03-01" in page and "v2 · in force" not in page and "v4 · in force" not in page
    assert ("**Changes after 2021-07-01 up to and including 2023-03-01**" in page
            or "**2021-07-01 이후부터 2023-03-01까지(당일 포함)의 변경**" in page), page


def test_compare_what_changed_is_cut_to_what_fits_with_the_counts_of_the_rest(legal, monkeypatch):
    monkeypatch.setattr("views.versions.PAGE_LISTED", 1)  # every document shows its floor of changes
    monkeypatch.setattr("core.answering.changes.MIN_PER_DOCUMENT", 1)
    at = _ask_compare(legal.collection, "What changed since 2020-01-01?")
    assert not at.exception, at.exception
    page = unescape("\n".join(m.value for m in at.markdown))
    total, documents = map(int, re.search(r"\*\*: (\d+) change\(s\) in (\d+) document", page).groups())
    assert len(re.findall(r"`c\d+`", page)) == documents < total  # one change of each document listed
    ordinance = re.search(rf"\*\*{NAME}\*\* — (\d+) change", page)
    assert ordinance and f"… {int(ordinance.group(1)) - 1} more in this document (all are in the download)" in page
