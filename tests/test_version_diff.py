"""Versions: element matching and stable keys on a synthetic edit suite and a bilingual legal corpus, the diff's
order and JSON, and where ``valid_from`` comes from (explicit, front matter, a real git repository, ingest time)."""

from __future__ import annotations

import json
import shutil
import subprocess
from datetime import UTC, datetime
from pathlib import Path

import pytest

from core.elements import Element
from core.markdown_loader import parse_markdown
from core.versions import DateError, as_json, diff_elements, match_versions, parse_date, resolve_valid_from
from core.versions.dates import DateSource, version_as_of

from .conftest import ROOT
from .helpers_versions import EDITS, base_manual, edit_suite_scores, parse

LEGAL = ROOT / "data" / "versions" / "legal"
GOLD = json.loads((LEGAL / "gold.json").read_text(encoding="utf-8"))


def _elements(text: str, document_id: str = "doc") -> list[Element]:
    return [Element.from_document(d) for d in parse_markdown(text, source="doc.md", document_id=document_id)]


def test_edit_suite_op_accuracy_and_identity_f1():
    assert len(parse(base_manual())) == 100
    accuracy, f1, misses = edit_suite_scores()
    assert misses == []
    assert accuracy == 1.0
    assert f1 >= 0.95


def test_keys_carry_over_three_versions_and_fresh_keys_are_new():
    base = base_manual()
    v1 = parse(base)
    nodes2, _ = EDITS["rename_heading"](base)
    v2 = parse(nodes2)
    keys2 = match_versions(v1, v2).keys
    renamed = next(e for e, n in zip(v2, nodes2, strict=True) if n.gid == "s2u1")
    assert renamed.element_id not in {e.element_id for e in v1}  # a new id ...
    old_heading = next(e for e, n in zip(v1, base, strict=True) if n.gid == "s2u1")
    assert keys2[renamed.element_id] == old_heading.element_id  # ... the first version's key
    nodes3, _ = EDITS["add_and_remove"](nodes2)
    v3 = parse(nodes3)
    result = match_versions(v2, v3, old_keys=keys2)
    by_gid = {n.gid: result.keys[e.element_id] for e, n in zip(v3, nodes3, strict=True)}
    assert by_gid["s2u1"] == old_heading.element_id
    assert by_gid["s2new"] not in set(keys2.values())
    assert len(set(result.keys.values())) == len(v3)


def test_whitespace_only_is_unchanged_and_no_changes_are_listed():
    base = base_manual()
    assert diff_elements(parse(base), parse(base, reflow=True)) == []
    assert all(c.op == "unchanged" for c in diff_elements(parse(base), parse(base, reflow=True),
                                                          include_unchanged=True))


def test_moved_section_carries_its_subtree_and_its_old_path():
    base = base_manual()
    nodes, _ = EDITS["move_subsection"](base)
    changes = diff_elements(parse(base), parse(nodes))
    assert [(c.op, c.after) for c in changes] == [("moved", "Records")]
    assert changes[0].old_path == ("Field manual for the harbour survey", "Depth soundings")
    assert changes[0].path == ("Field manual for the harbour survey", "Radio procedure")


def test_diff_order_puts_removed_where_they_stood_and_json_has_word_diff():
    old = _elements("# A\n\nfirst para here\n\nsecond para goes away\n\n# B\n\nthe loan period is 14 days\n")
    new = _elements("# A\n\nfirst para here\n\n# B\n\nnew intro\n\nthe loan period is 21 days\n")
    changes = diff_elements(old, new)
    assert [(c.op, c.path) for c in changes] == [("removed", ("A",)), ("added", ("B",)), ("modified", ("B",))]
    data = json.loads(json.dumps(as_json(changes)))
    modified = data["changes"][2]
    assert modified["words"] == [["equal", "the loan period is"], ["delete", "14"], ["insert", "21"],
                                 ["equal", "days"]]
    assert set(data["changes"][0]) == {"op", "path", "key", "before", "after"}
    assert data["changes"][0]["before"] == "second para goes away" and data["changes"][0]["after"] is None


def test_repeated_texts_match_by_parent_not_by_order():
    old = _elements("# X\n\nNote\n\n# Y\n\nNote\n")
    new = _elements("# W\n\nNote\n\n# X\n\nNote\n\n# Y\n\nNote\n")
    result = match_versions(old, new)
    assert [m.op for m in result.matches] == ["added", "added", "unchanged", "unchanged", "unchanged", "unchanged"]


def test_a_version_with_a_duplicate_element_id_is_refused():
    old = _elements("# A\n\ntext\n")
    with pytest.raises(ValueError, match="same element_id twice"):
        match_versions(old + old[:1], old)


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_legal_corpus_changes_match_the_gold(lang):
    files = GOLD["files"][lang]
    versions = {v: _elements((LEGAL / files.format(version=v)).read_text(encoding="utf-8"), f"ordinance-{lang}")
                for v in GOLD["versions"]}
    for pair, gold in GOLD["changes"][lang].items():
        a, b = pair.split("->")
        got = [{"op": c.op, "under": c.path[-1], "before": c.before, "after": c.after}
               for c in diff_elements(versions[a], versions[b])]
        assert got == gold, pair


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_legal_corpus_as_of_picks_the_version_in_force(lang):
    files = GOLD["files"][lang]
    texts = {v: (LEGAL / files.format(version=v)).read_text(encoding="utf-8") for v in GOLD["versions"]}
    dated = []
    for version, text in texts.items():
        valid = resolve_valid_from(text=text, now=datetime(2025, 1, 1, tzinfo=UTC))
        assert (valid.source, valid.detail, valid.date_only) == (DateSource.FRONT_MATTER, "effective", True)
        assert valid.value.date().isoformat() == GOLD["versions"][version]
        dated.append((valid.value, version))
    for q in GOLD["as_of"][lang]:
        at, _ = parse_date(q["date"])
        version = version_as_of(dated, at)
        assert version == q["version"], q
        if version is None:
            continue
        body = " ".join(e.text for e in _elements(texts[version]))
        if q["answer"] is not None:
            assert q["answer"] in body, q
        if q.get("absent"):
            assert q["absent"] not in body, q


# --------------------------------------------------------------------------------------------------- dates


def test_parse_date_accepts_the_documented_forms_only():
    assert parse_date("2024-03-01") == (datetime(2024, 3, 1, tzinfo=UTC), True)
    value, date_only = parse_date("2024-03-01T09:30:00+09:00")
    assert (value.isoformat(), date_only) == ("2024-03-01T09:30:00+09:00", False)
    assert parse_date("2024-03-01T00:30Z")[0] == datetime(2024, 3, 1, 0, 30, tzinfo=UTC)
    for bad in ("2024-3-1", "01/03/2024", "20240301", "2024-03-01T09:30", "next tuesday", "", "2024-02-30"):
        with pytest.raises(DateError, match="YYYY-MM-DD"):
            parse_date(bad)


def test_valid_from_order_explicit_then_front_matter():
    text = "---\ndate: 2020-05-05\neffective: 2021-01-01\n---\n# T\n"
    now = datetime(2022, 1, 1, tzinfo=UTC)
    explicit = resolve_valid_from(explicit="2019-01-01", text=text, now=now)
    assert (explicit.source, explicit.value.year) == (DateSource.EXPLICIT, 2019)
    front = resolve_valid_from(text=text, now=now)
    assert (front.source, front.detail, front.value.year) == (DateSource.FRONT_MATTER, "effective", 2021)
    with pytest.raises(DateError, match="--valid-from 'soon'.*YYYY-MM-DD"):
        resolve_valid_from(explicit="soon", text=text, now=now)
    with pytest.raises(DateError, match="front matter valid_from:"):  # a bad value is an error, not a fall-through
        resolve_valid_from(text="---\nvalid_from: 1 March\ndate: 2020-01-01\n---\n", now=now)


def test_future_front_matter_date_is_kept_and_flagged():
    now = datetime(2024, 1, 1, tzinfo=UTC)
    valid = resolve_valid_from(text="---\neffective: 2030-01-01\n---\n# T\n", now=now)
    assert valid.value.year == 2030 and valid.not_yet_valid
    assert not resolve_valid_from(text="---\neffective: 2020-01-01\n---\n", now=now).not_yet_valid


@pytest.mark.skipif(shutil.which("git") is None, reason="git not installed")
def test_valid_from_uses_the_git_commit_date_of_a_clean_tracked_file(tmp_path: Path):
    def git(*args: str, date: str = "") -> None:
        env = {"GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date, "HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}
        subprocess.run(["git", "-C", str(tmp_path), *args], check=True, capture_output=True, env=env)

    git("init", "-q")
    git("config", "user.email", "t@example.org")
    git("config", "user.name", "t")
    doc = tmp_path / "act.md"
    doc.write_text("# Act\n\ntext\n", encoding="utf-8")
    now = datetime(2025, 6, 1, tzinfo=UTC)
    assert resolve_valid_from(path=doc, now=now).source == DateSource.INGEST  # untracked
    git("add", "act.md")
    git("commit", "-q", "-m", "v1", date="2023-04-05T06:07:08+02:00")
    valid = resolve_valid_from(text=doc.read_text(encoding="utf-8"), path=doc, now=now)
    assert valid.source == DateSource.GIT
    assert valid.value == datetime.fromisoformat("2023-04-05T06:07:08+02:00")
    front = resolve_valid_from(text="---\neffective: 2024-01-01\n---\n", path=doc, now=now)
    assert front.source == DateSource.FRONT_MATTER  # front matter comes before git
    doc.write_text("# Act\n\nedited\n", encoding="utf-8")  # uncommitted: the commit date is not this text's
    assert resolve_valid_from(path=doc, now=now).source == DateSource.INGEST
    outside = tmp_path.parent / f"{tmp_path.name}-outside.md"
    outside.write_text("# x\n", encoding="utf-8")
    try:
        assert resolve_valid_from(path=outside, now=now).value == now
    finally:
        outside.unlink()


def test_as_of_needs_an_offset():
    with pytest.raises(DateError, match="offset"):
        version_as_of([(datetime(2020, 1, 1, tzinfo=UTC), "v1")], datetime(2021, 1, 1))


def test_release_dates_are_read_from_either_changelog_layout(tmp_path: Path):
    import importlib.util

    spec = importlib.util.spec_from_file_location("fetch_corpora", ROOT / "bench" / "fetch_corpora.py")
    fetch = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fetch)
    new, old = tmp_path / "new", tmp_path / "old"
    (old / "change_log").mkdir(parents=True)
    new.mkdir()
    (new / "changelog.md").write_text("## [3.8.0] - 2025-04-09\n\n## [3.5] -- 2023-10-06\n", encoding="utf-8")
    (old / "change_log" / "index.md").write_text("July 15, 2022: version 3.4 ([Notes](r.md)).\n", encoding="utf-8")
    assert fetch.release_date(new, "3.8") == "2025-04-09"
    assert fetch.release_date(new, "3.5") == "2023-10-06"
    assert fetch.release_date(old, "3.4") == "2022-07-15"
    assert fetch.release_date(new, "3.7") is None
