"""Versions on the pages: the "As of" date picker (Compare, Document tree) and the Document tree's History view.

"As of D" means the end of day D in UTC (:func:`end_of_day`): a version that takes effect on D is the one read, as
a user asking about "the rules on D" expects. Document text reaches the page only through the tree's autoescaping
template (in a sandboxed frame), a dataframe, or ``escape_markdown``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from datetime import UTC, date, datetime, time, timedelta
from urllib.parse import quote

import streamlit as st

from core.answering.changes import MAX_DOCUMENTS, ChangeAnswer, document_share
from core.answering.version_history import (
    DocumentChange,
    change_snippet,
    counts_words,
    group_changes,
    op_counts,
    version_diff,
)
from core.elements import Element
from core.store import ElementStore, VersionRecord
from core.text import clip, escape_markdown
from core.versions import Change, DateError, as_json, parse_date
from views import ui
from views.frames import sandboxed_page
from views.tree import render_tree_html

EARLIEST = date(1900, 1, 1)
LATEST = date(2200, 12, 31)
SOURCES = {"explicit": "given at ingest (--valid-from)", "front_matter": "from the front matter",
           "git": "from the file's last git commit", "ingest": "is the ingest time (no date was given)"}
OPS = ("added", "removed", "modified", "moved", "renamed")
PAGE_LISTED = 40  # changes the "what changed" answer lists on the page; the download holds every one
SNIPPET_CHARS = 200
REMOVED = "~removed"  # suffix of a removed element's id in the History tree: it is not an element of the version


def end_of_day(day: date) -> datetime:
    """The last moment of ``day`` in UTC: what "as of ``day``" reads."""
    return datetime.combine(day, time.max, tzinfo=UTC)


def as_of_picker(key: str) -> datetime | None:
    """A toggle and a date; ``None`` (the current collection) while the toggle is off.

    A link's ``?as_of=YYYY-MM-DD`` turns it on with that date once (untrusted: a value that does not parse is shown
    escaped and ignored); the user's own picks win afterwards."""
    on_key, day_key, seen_key = f"{key}_as_of_on", f"{key}_as_of_date", f"_{key}_as_of_from_url"
    linked = st.query_params.get("as_of")
    if linked and st.session_state.get(seen_key) != linked:
        st.session_state[seen_key] = linked
        try:
            value, _ = parse_date(linked, what="as_of")
            st.session_state[on_key], st.session_state[day_key] = True, value.date()
        except DateError:
            st.warning(f"The link's as-of date {escape_markdown(linked[:40])} is not a date (YYYY-MM-DD): showing "
                       "the current collection.", icon=":material/event_busy:")
    st.session_state.setdefault(day_key, datetime.now(UTC).date())
    on = st.toggle("As of a date", key=on_key,
                   help="Read each document's version in force at the end of the chosen day (UTC), "
                        "instead of the current collection.")
    if not on:
        if linked is not None and st.session_state.get(seen_key) == linked:
            del st.query_params["as_of"]  # turned off: a reload shows the current collection too
        return None
    day = st.date_input("As of", key=day_key, min_value=EARLIEST, max_value=LATEST, format="YYYY-MM-DD")
    st.session_state[seen_key] = day.isoformat()  # the URL below says what the user picked: not a new link
    st.query_params["as_of"] = day.isoformat()
    return end_of_day(day)


def version_label(v: VersionRecord, *, plain: bool = False) -> str:
    """"v2 · 2021-07-01", with the release label beside the date when the version has one (escaped as markdown
    unless ``plain``: a widget's own label or a frame's title)."""
    label = "" if not v.label else f" · {v.label if plain else escape_markdown(v.label)}"
    return f"v{v.version} · {v.valid_from.date().isoformat()}{label}"


def versions_read_markdown(versions: Mapping[str, VersionRecord], document_ids: Iterable[str]) -> str:
    """"Read at: `file` v2 · 2021-07-01, …" for the documents an answer's sources come from (escaped)."""
    read = [versions[d] for d in dict.fromkeys(document_ids) if d in versions]
    if not read:
        return ""
    names = distinct_names([v.source for v in read], [v.filename for v in read])
    return "Read at: " + ", ".join(f"{escape_markdown(n)} {version_label(v)}" for n, v in zip(names, read, strict=True))


def distinct_names(sources: list[str], filenames: list[str]) -> list[str]:
    """Each document's file name, or, where two share one (``docs/index.md``, ``api/index.md``), as much of their
    paths as tells them apart, never the server's folders above."""
    from collections import Counter

    from views.ingest import file_names

    shared = {n for n, count in Counter(filenames).items() if count > 1}
    if not shared:
        return list(filenames)
    clashing = [s for s, n in zip(sources, filenames, strict=True) if n in shared]
    told_apart = dict(zip(clashing, file_names(clashing), strict=True))
    return [told_apart.get(s, n) if n in shared else n for s, n in zip(sources, filenames, strict=True)]


# -- "what changed" answers ---------------------------------------------------------------------------------


def _clip(text: str | None, limit: int = 200) -> str:
    return clip(text or "", limit, at_word=False)


def _relative_pair(before: str, after: str) -> tuple[str, str]:
    """Two source paths below the folder they share, so the page shows where a document moved, not the server's
    folders."""
    try:
        shared = os.path.commonpath([before, after]) if before and after else ""
    except ValueError:  # one absolute, one relative
        shared = ""
    cut = len(shared) + 1 if shared else 0
    return before[cut:] or before, after[cut:] or after


def _change_markdown(n: int, item: DocumentChange, collection: str) -> str:
    change = item.change
    day = item.valid_from.date()
    if item.whole_document and change.op == "moved":  # a whole document moved or renamed
        before, after = _relative_pair(change.before or "", change.after or "")
        return f"{n}. `c{n}` **moved** · from {escape_markdown(before)} to {escape_markdown(after)}"
    if item.whole_document:
        what = "retired" if item.retired else "a new document"
        return f"{n}. `c{n}` **{what}** · “{escape_markdown(_clip(change.before or change.after))}”"
    # The element in the tree of the version that holds it: the new one, or for a removal the one before.
    element_id = change.new_id if change.op != "removed" else change.old_id
    link = ui.tree_link(element_id or "", quote(collection, safe=""),
                        as_of=day if change.op != "removed" else day - timedelta(days=1))
    where = " › ".join(change.path) or "(the document's top)"
    return (f"{n}. `c{n}` **{change.op}** · [*{escape_markdown(where)}*]({link})  \n"
            f"{escape_markdown(change_snippet(change, SNIPPET_CHARS))}")


def show_change_answer(answer: ChangeAnswer, collection: str, limit: int | None = None) -> None:
    """A "what changed" question answered from the stored diffs: the window in words, the counts, then the changes
    by document and version, each document cut to its share of ``limit`` with the count of the rest; each change
    cited ``cN`` and linked to the tree of its version; every text escaped."""
    st.subheader("What changed")
    window = answer.query.window.words(answer.query.korean)
    if answer.summary is not None:
        st.caption(f"Summary by {escape_markdown(answer.summary.model)}: every sentence cites the changes it "
                   "describes ([c1] is the first change listed below).")
        with st.container(border=True):
            st.markdown(escape_markdown(answer.summary.text))
    st.caption("Answered from the stored diffs between versions: no search"
               + ("." if answer.summary is not None else " and no model."))
    if answer.summary_error:
        st.warning(f"The model gave no summary: {escape_markdown(answer.summary_error)}")
    if not answer.changes:
        st.info(escape_markdown(answer.text))
        return
    groups = group_changes(answer.changes)
    st.markdown(f"**{escape_markdown(window[0].upper() + window[1:])}**: {len(answer.changes)} change(s) in "
                f"{len(groups)} document(s) ({counts_words(op_counts(answer.changes))})")
    share = document_share(groups, limit or PAGE_LISTED)
    n = 0
    for g in groups[:MAX_DOCUMENTS]:
        lines = [f"**{escape_markdown(g.filename)}** — {len(g.changes)} change(s) ({counts_words(g.counts)})"]
        shown = 0
        for v in g.versions:
            lines.append(f"\nv{v.version} · in force from {v.valid_from.date().isoformat()} · "
                         f"{counts_words(v.counts)}\n")
            for item in v.changes:
                n += 1
                if share is None or shown < share:
                    lines.append(_change_markdown(n, item, collection))
                    shown += 1
        if len(g.changes) > shown:
            lines.append(f"\n… {len(g.changes) - shown} more in this document (all are in the download)")
        with st.container(border=True):
            st.markdown("\n".join(lines))
    rest = [c for g in groups[MAX_DOCUMENTS:] for c in g.changes]
    if rest:
        st.caption(f"… {len(rest)} more change(s) in {len(groups) - MAX_DOCUMENTS} other document(s) "
                   f"({counts_words(op_counts(rest))}); all are in the download.")
    st.download_button("Download the changes (JSON)", data=json.dumps(answer.as_dict(), ensure_ascii=False, indent=2),
                       file_name="changes.json", mime="application/json", key="changes_download")


# -- the History view ---------------------------------------------------------------------------------------


def history_tree(old: Sequence[Element], new: Sequence[Element],
                 changes: Sequence[Change]) -> tuple[list[Element], dict[str, Change]]:
    """The elements the History tree shows, in diff order (``include_unchanged``): the new version's, and each
    removed one at its old place under its old parent (or that parent's successor); the changes by shown id."""
    new_by_id = {e.element_id: e for e in new}
    old_by_id = {e.element_id: e for e in old}
    shown_id = {c.old_id: c.new_id or c.old_id + REMOVED for c in changes if c.old_id is not None}
    out: list[Element] = []
    marks: dict[str, Change] = {}
    for order, change in enumerate(changes):
        if change.new_id is not None:
            element = replace(new_by_id[change.new_id], order=order)
        else:
            was = old_by_id[change.old_id]
            parent = shown_id.get(was.parent_id, was.parent_id) if was.parent_id else None
            element = replace(was, element_id=was.element_id + REMOVED, parent_id=parent, order=order)
        out.append(element)
        if change.op != "unchanged":
            marks[element.element_id] = change
    return out, marks


@st.cache_data(show_spinner="Comparing the two versions…", max_entries=32)
def _changes(collection: str, document_id: str, before: int, after: int,
             hashes: tuple[str, str]) -> tuple[list[Element], list[Element], list[Change]]:
    """The elements of two versions and the changes between them (``hashes`` tie the cache to their content)."""
    return version_diff(ui.store(collection), document_id, before, after, include_unchanged=True)


@st.cache_data(show_spinner="Comparing with the document it moved from…", max_entries=32)
def _moved_changes(collection: str, document_id: str, origin: str, before: int, after: int,
                   hashes: tuple[str, str]) -> tuple[list[Element], list[Element], list[Change]]:
    """The elements of the moved-from document's last version and of this one's first, and the changes between
    them (``hashes`` tie the cache to their content)."""
    return version_diff(ui.store(collection), document_id, before, after, include_unchanged=True,
                        old_document=origin)


def _move_lines(store: ElementStore, v: VersionRecord) -> list[str]:
    """"Moved here from …" / "Moved to …" for a version a snapshot linked to another document (escaped)."""
    sources = {d: source for d, source, _name, _retired in store.read.versioned_documents()}
    lines = []
    if v.moved_from:
        origin = _relative_pair(sources.get(v.moved_from, v.moved_from), v.source)[0]
        lines.append(f"Moved here from **{escape_markdown(origin)}**: a snapshot "
                     "found most of its elements in this document (the changes below are against that one).")
    if v.moved_to:
        target = _relative_pair(v.source, sources.get(v.moved_to, v.moved_to))[1]
        lines.append(f"Moved to **{escape_markdown(target)}** on "
                     f"{v.retired_at.date().isoformat() if v.retired_at else '?'}: its History continues there.")
    return lines


def show_version(v: VersionRecord, previous: VersionRecord | None) -> None:
    """A version's dates, where its date came from, its counts and its state."""
    if v.retired_at is not None:
        st.badge(f"retired {v.retired_at.date().isoformat()}", icon=":material/archive:", color="gray")
    if v.moved_from or v.moved_to:
        st.badge("moved", icon=":material/drive_file_move:", color="blue")
    if v.not_yet_valid:
        st.badge("not yet valid when recorded", icon=":material/schedule:", color="orange")
    a, b, c, d = st.columns(4)
    a.metric("Valid from", v.valid_from.date().isoformat())
    b.metric("Valid to", v.valid_to.date().isoformat() if v.valid_to else "—")
    c.metric("Elements", v.n_elements)
    d.metric("Recorded", v.recorded_at.date().isoformat(), help=f"Ingested at {v.recorded_at.isoformat()}")
    date_from = SOURCES.get(v.valid_from_source, escape_markdown(v.valid_from_source))
    counts = " · ".join(f"{getattr(v, op)} {op}" for op in OPS) if previous is not None else "first version"
    st.caption(f"Valid-from date {date_from}. Since {version_label(previous) if previous else 'nothing'}: "
               f"{counts}.")


def show_history(store: ElementStore, document_id: str, at: datetime | None) -> None:
    """One document's versions: a slider over them, the chosen one's record, and its tree with the changes since
    the version before marked (removed elements struck through at their old place), word diffs in edited text."""
    versions = store.read.versions(document_id)
    if not versions:
        st.info("This document has no recorded versions.")
        return
    for line in _move_lines(store, versions[0]) + (_move_lines(store, versions[-1]) if len(versions) > 1 else []):
        st.info(line, icon=":material/drive_file_move:")
    if len(versions) == 1 and not versions[0].moved_from:
        st.info(f"This document has one version ({version_label(versions[0])}): there is no history to show yet. "
                "Ingest a changed copy with a later date to make a second one.", icon=":material/history:")
        show_version(versions[0], None)
        return
    numbers = [v.version for v in versions]
    by_number = {v.version: v for v in versions}
    in_force = [v.version for v in versions if at is None or v.valid_from <= at]
    picked = numbers[0] if len(numbers) == 1 else st.select_slider(
        "Version", numbers, value=in_force[-1] if in_force else numbers[-1],
        format_func=lambda n: version_label(by_number[n], plain=True), key=f"history_{document_id}")
    v = by_number[picked]
    previous = by_number.get(picked - 1)
    origin = store.read.last_version(v.moved_from) if previous is None and v.moved_from else None
    show_version(v, previous or origin)
    if previous is None and origin is None:
        st.info("The first version: nothing to compare it with. Its tree:")
        elements = store.read.version_elements(document_id, v.version)
        sandboxed_page(render_tree_html(elements), height=650, title=f"Element tree of {v.filename} "
                       f"{version_label(v, plain=True)}", key="history_frame")
        return
    if origin is not None:
        old, new, changes = _moved_changes(store.collection, document_id, origin.document_id, origin.version,
                                           v.version, (origin.content_hash, v.content_hash))
        previous = origin
    else:
        old, new, changes = _changes(store.collection, document_id, previous.version, v.version,
                                     (previous.content_hash, v.content_hash))
    shown, marks = history_tree(old, new, changes)
    only = st.toggle("Only the changes (and the headings above them)", key="history_only_changes")
    if not marks:
        st.info("No element changed between these versions (only whitespace or line breaks differ).")
    sandboxed_page(render_tree_html(shown, changes=marks, only_changes=only), height=650,
                   title=f"Changes in {v.filename} {version_label(v, plain=True)}", key="history_frame")
    st.caption("Marks: added · removed (struck through, where it stood) · modified (deleted words red, inserted "
               "green) · moved (with where it stood) · renamed (a heading whose section stayed).")
    st.download_button("Download the changes (JSON)", key="history_download",
                       data=json.dumps({"document_id": document_id, "from": previous.as_dict(), "to": v.as_dict(),
                                        **as_json([c for c in changes if c.op != "unchanged"])},
                                       ensure_ascii=False, indent=2),
                       file_name=f"changes-v{previous.version}-v{v.version}.json", mime="application/json")
