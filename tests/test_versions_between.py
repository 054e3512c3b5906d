""""Between A and B" without a database: the window (after A, up to and including B, a plain date standing for its
whole day), how questions name it in English and Korean, by dates or release labels, and the one-line snippets,
counts and filters the grouped listing uses. The store-backed behaviour is in tests/test_versions_cli.py
(``changes``, ``ask``) and tests/test_history_page.py (the Compare page)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from core.answering.changes import change_question
from core.answering.version_history import (
    RETIRED_CATEGORY,
    DocumentChange,
    Window,
    change_snippet,
    counts_words,
    filter_changes,
    group_changes,
    op_counts,
    parse_bound,
)
from core.versions import Change, DateError, word_diff

A, B = datetime(2024, 4, 20, tzinfo=UTC), datetime(2024, 8, 30, tzinfo=UTC)
LABELS = {"23.1": datetime(2023, 4, 15, tzinfo=UTC), "23.2": datetime(2023, 7, 15, tzinfo=UTC),
          "v1.6.1": datetime(2024, 8, 30, tzinfo=UTC)}


@pytest.mark.parametrize(("when", "held"), [
    (A, False),  # took effect on A: in force at A, so not a change after it
    (A + timedelta(hours=23, minutes=59), False),
    (A + timedelta(days=1), True),
    (B, True),  # took effect on B: up to and including B
    (B + timedelta(hours=23, minutes=59, seconds=59), True),
    (B + timedelta(days=1), False),
])
def test_a_window_of_dates_is_after_the_first_day_up_to_and_including_the_second(when, held):
    assert Window(A, B).holds(when) is held


def test_a_window_of_instants_is_exact_and_an_empty_one_is_said():
    noon = A + timedelta(hours=12)
    window = Window(noon, B + timedelta(hours=12), start_is_day=False, end_is_day=False)
    assert not window.holds(noon) and window.holds(noon + timedelta(microseconds=1))
    assert window.holds(B + timedelta(hours=12)) and not window.holds(B + timedelta(hours=13))
    assert Window(A, A).empty and not Window(A, A + timedelta(days=1)).empty
    assert Window(None, None).holds(datetime(1, 1, 1, tzinfo=UTC))


def test_each_window_says_itself_in_words():
    assert Window(A, B).words() == "changes after 2024-04-20 up to and including 2024-08-30"
    assert Window(A).words() == "changes after 2024-04-20"
    assert Window(None, B).words() == "changes since each document's first version up to and including 2024-08-30"
    assert Window(A, B).words(korean=True) == "2024-04-20 이후부터 2024-08-30까지(당일 포함)의 변경"
    labelled = Window(LABELS["23.1"], LABELS["23.2"], False, False, "23.1", "23.2")
    assert labelled.words() == "changes after release 23.1 (2023-04-15) up to and including release 23.2 (2023-07-15)"
    assert labelled.words(korean=True) == "23.1판(2023-04-15) 이후부터 23.2판(2023-07-15)까지(당일 포함)의 변경"
    noon = Window(A + timedelta(hours=12), None, start_is_day=False)
    assert noon.words() == "changes after 2024-04-20T12:00+00:00"


@pytest.mark.parametrize(("text", "since", "until"), [
    ("What changed between 2024-04-20 and 2024-08-30?", "2024-04-20", "2024-08-30"),
    ("what changed between 2024-08-30 and 2024-04-20?", "2024-04-20", "2024-08-30"),  # either order
    ("What changed in the configuration from April 20, 2024 to 30 August 2024?", "2024-04-20", "2024-08-30"),
    ("2024-04-20부터 2024-08-30까지 무엇이 바뀌었나요?", "2024-04-20", "2024-08-30"),
    ("2024-04-20와 2024-08-30 사이의 변경 사항", "2024-04-20", "2024-08-30"),
    ("2024년 4월 20일부터 2024년 8월 30일까지 설정의 변경 내용", "2024-04-20", "2024-08-30"),
    ("What changed until 2024-08-30?", None, "2024-08-30"),  # until: that day included
    ("What changed before 2024-08-30?", None, "2024-08-29"),  # before: up to the day before
    ("2024-08-30까지 무엇이 바뀌었나요?", None, "2024-08-30"),
    ("2024-08-30 이전에 무엇이 바뀌었나요?", None, "2024-08-29"),
])
def test_between_questions_in_english_and_korean_read_one_window(text, since, until):
    query = change_question(text)
    assert query is not None
    assert (query.since and query.since.date().isoformat()) == since
    assert (query.until and query.until.date().isoformat()) == until
    assert query.since_is_day and query.until_is_day and query.since_label is None


@pytest.mark.parametrize(("text", "since", "until", "subject"), [
    ("What changed from release 23.1 to 23.2?", "23.1", "23.2", ()),
    ("what changed between v23.2 and version 23.1 in the caching docs?", "23.1", "23.2", ("caching",)),
    ("What changed in the installation page between 23.2 and 1.6.1?", "23.2", "v1.6.1", ("installation",)),
    ("23.1판부터 23.2판까지 무엇이 바뀌었나요?", "23.1", "23.2", ()),
    ("What changed since release 23.2?", "23.2", None, ()),
])
def test_release_labels_name_the_bounds_of_a_window(text, since, until, subject):
    query = change_question(text, LABELS)
    assert query is not None and query.subject == subject
    assert (query.since_label, query.until_label) == (since, until)
    assert query.since == (LABELS[since] if since else None) and query.until == (LABELS[until] if until else None)
    assert not query.since_is_day  # a release is its own moment, not a whole day


def test_an_unknown_version_number_is_neither_a_label_nor_a_date():
    query = change_question("What changed from release 23.1 to 23.9?", {"23.1": LABELS["23.1"]})
    assert query is not None and query.since_label == "23.1" and query.until is None
    assert change_question("What changed between 23.1 and 23.2?") == change_question(
        "What changed between 23.1 and 23.2?", {})


def test_a_bound_on_the_command_line_is_a_date_an_instant_or_a_label():
    assert parse_bound("2024-04-20", what="--since") == (A, True, None)
    assert parse_bound("2024-04-20T12:00Z", what="--since") == (A + timedelta(hours=12), False, None)
    assert parse_bound("1.6.1", what="--until", labels=LABELS) == (LABELS["v1.6.1"], False, "v1.6.1")
    with pytest.raises(DateError, match=r"or a release label \(23\.1, 23\.2, v1\.6\.1\)"):
        parse_bound("2.0", what="--until", labels=LABELS)
    with pytest.raises(DateError, match="accepted forms"):
        parse_bound("23.1", what="--since")  # no labels known: only dates


def _edit(before: str, after: str, op: str = "modified") -> Change:
    return Change(op, "k", ("Guide", "Caching"), before, after, "NarrativeText", words=word_diff(before, after))


def test_a_snippet_is_one_line_with_the_changed_words_and_a_little_context():
    long_before = "pip caches the wheels it builds " + "and reuses them on later installs " * 6 + "by default."
    long_after = long_before.replace("by default.", "unless --no-cache-dir is given.")
    snippet = change_snippet(_edit(long_before, long_after))
    assert snippet.startswith("… them on later installs [-by default.-] {+unless --no-cache-dir")
    assert "\n" not in snippet and len(snippet) <= 140
    assert change_snippet(_edit("Loan 14 days", "Loan 21 days")) == "Loan [-14-] {+21+} days"
    moved = Change("moved", "k", ("B", "x"), "t", "t", "NarrativeText", old_path=("A", "x"))
    assert change_snippet(moved) == "A › x → B › x"
    reordered = Change("moved", "k", ("A",), "same words", "same words", "NarrativeText", old_path=("A",))
    assert change_snippet(reordered) == "same words"  # moved within its section: its text says which
    added = Change("added", "k", ("A",), None, "new\ntext   here", "NarrativeText")
    assert change_snippet(added) == "new text here"


def _item(filename: str, version: int, change: Change) -> DocumentChange:
    return DocumentChange(filename, f"docs/{filename}", filename, version, A, change, version - 1)


def test_changes_group_by_document_then_version_and_filter_by_name_glob_and_operation():
    notes = [_item("release-notes.md", 2, _edit("a", "b")), _item("release-notes.md", 3, _edit("b", "c"))]
    guide = [_item("guide.md", 2, Change("added", "g", ("G",), None, "x", "NarrativeText")),
             _item("guide.md", 2, Change("removed", "h", ("G",), "y", None, "NarrativeText"))]
    retired = [_item("old.md", 4, Change("removed", "old", (), "Old", None, RETIRED_CATEGORY))]
    everything = [*notes, *guide, *retired]
    groups = group_changes(everything)
    assert [(g.filename, [v.version for v in g.versions]) for g in groups] == [
        ("release-notes.md", [2, 3]), ("guide.md", [2]), ("old.md", [4])]
    assert groups[1].counts == {"added": 1, "removed": 1} and counts_words(op_counts(everything)) == \
        "added 1, removed 2, modified 2"
    assert retired[0].retired and not retired[0].new_document and retired[0].whole_document
    assert filter_changes(everything, exclude=["*release*"]) == [*guide, *retired]
    assert filter_changes(everything, exclude=["docs/guide.md", "old.md"]) == notes
    assert filter_changes(everything, ops=["removed"]) == [guide[1], retired[0]]
    assert filter_changes(everything, ops=["moved", "renamed"]) == []


def test_pip_releases_are_dated_by_their_news_and_their_docs_html_kept(tmp_path):
    """The release corpus of bench_versions --between: a release's date from its NEWS.rst (checked against the
    sdist's build day), and the markdown under the sdist's docs/html only, paths relative to it."""
    import importlib.util
    import io
    import tarfile

    from .conftest import ROOT

    spec = importlib.util.spec_from_file_location("fetch_corpora", ROOT / "bench" / "fetch_corpora.py")
    fetch = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fetch)
    news = "24.1 (2024-06-20)\n=================\n\n24.0 (2024-02-03)\n=================\n\n23.3.2 (2023-12-17)\n"
    assert fetch.news_date(news, "24.0") == "2024-02-03" and fetch.news_date(news, "23.3") is None
    sdist = tmp_path / "pip-24.0.tar.gz"
    members = {"pip-24.0/NEWS.rst": news, "pip-24.0/PKG-INFO": "Name: pip\n",
               "pip-24.0/docs/html/topics/caching.md": "# Caching\n", "pip-24.0/docs/html/index.md": "# pip\n",
               "pip-24.0/docs/other.md": "# not under docs/html\n", "pip-24.0/docs/html/../../evil.md": "# no\n"}
    with tarfile.open(sdist, "w:gz") as tf:
        for name, text in members.items():
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size, info.mtime = len(data), datetime(2024, 2, 3, 9, 48, tzinfo=UTC).timestamp()
            tf.addfile(info, io.BytesIO(data))
    text, built = fetch.sdist_facts(sdist, "NEWS.rst")
    assert text == news and built == "2024-02-03"
    written = fetch.extract_docs(sdist, tmp_path / "out", "docs/html")
    assert sorted(p.relative_to(tmp_path / "out").as_posix() for p in written) == ["index.md", "topics/caching.md"]
