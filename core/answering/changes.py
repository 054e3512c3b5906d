""""What changed?" questions answered from the stored diffs, without a model.

* :func:`change_question` recognises an English or Korean question about changes ("what changed in X since D",
  "changes to X between D1 and D2", "X 2021-07-01 이후 무엇이 바뀌었나요", "X의 변경 사항") and returns a
  :class:`ChangeQuery` (the subject's words and the dates), or None for any other question. Pure: no store.
* :func:`answer_changes` reads what changed in that window (:func:`core.answering.version_history.changes_between`:
  "between A and B" is the version in force at A → the version in force at B, the changes that took effect after A,
  up to and including B) and returns a :class:`ChangeAnswer`: every change cited with document, version, date and
  heading path, and an extractive text stating the window and listing them by document, then version.

A bound is a date, or a release label the collection's versions carry ("from release 23.1 to 23.2").

The subject picks documents whose title, file name or source holds every subject word; when no document is named
that way, it keeps the changes whose heading path or text holds every subject word.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from langchain_core.language_models import BaseChatModel

from core.answering import prompts
from core.answering.version_history import (
    RETIRED_CATEGORY,
    DocumentChange,
    DocumentGroup,
    Window,
    change_snippet,
    changes_between,
    counts_words,
    group_changes,
    label_key,
    op_counts,
    release_labels,
)
from core.config import Settings, load_settings
from core.llm import LLMError, RetryPolicy, chat_model, invoke_with_retries, model_label
from core.store import ElementStore
from core.text import clip


def _clip(text: str | None, limit: int = 160) -> str:
    return clip(text or "", limit, at_word=False)


MAX_LISTED = 40  # changes written out in the answer's text; the JSON carries every one
MIN_PER_DOCUMENT = 3  # changes each document listed shows at least, however many documents changed
MAX_DOCUMENTS = 25  # documents listed with their counts; the rest are summed in one line

_ISO = r"\d{4}-\d{2}-\d{2}"
_MONTHS = {m: i for i, m in enumerate(("january", "february", "march", "april", "may", "june", "july", "august",
                                       "september", "october", "november", "december"), start=1)}
_MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
_DATE = re.compile(
    rf"(?P<iso>{_ISO})"
    r"|(?P<ky>\d{4})\s*년(?:\s*(?P<km>\d{1,2})\s*월)?(?:\s*(?P<kd>\d{1,2})\s*일)?"
    rf"|(?P<m1>{_MONTH})\s+(?P<d1>\d{{1,2}}),?\s+(?P<y1>\d{{4}})"
    rf"|(?P<d2>\d{{1,2}})\s+(?P<m2>{_MONTH})\s+(?P<y2>\d{{4}})"
    r"|(?<![\d-])(?P<year>(?:19|20)\d{2})(?![\d-])",
    re.IGNORECASE,
)
_EN_TRIGGER = re.compile(
    r"\bwhat(?:'s| is| has| have)?\s+(?:\w+\s+)?(?:changed|new|different|amended)\b"
    r"|^\s*(?:list\s+(?:the\s+)?)?(?:changes|amendments|differences)\b"
    r"|\bhow\s+(?:has|have|did)\b.*\bchange[d]?\b"
    r"|\bwhat\s+(?:changes|amendments)\b",
    re.IGNORECASE,
)
_KO_TRIGGER = re.compile(r"(?:무엇이|뭐가|무엇|어떤\s*것이|어떻게|어디가)\s*(?:바뀌|변경|달라|개정)"
                         r"|변경\s*사항|변경\s*내용|개정\s*내용|바뀐\s*(?:점|것|내용)|달라진\s*(?:점|것)")
_EN_SUBJECT = re.compile(
    r"\b(?:in|to|of|for|about)\s+(?P<s>.+?)\s*(?:\b(?:since|between|from|after|before|until|till)\b|[?.!]|$)",
    re.IGNORECASE,
)
_EN_HOW = re.compile(r"\bhow\s+(?:has|have|did)\s+(?P<s>.+?)\s+change", re.IGNORECASE)
_EN_STOP = frozenset("the a an this that these those document documents file files doc docs page pages".split())
_KO_PARTICLES = ("에서는", "에서", "으로", "에는", "은", "는", "이", "가", "을", "를", "의", "에", "로", "와", "과")
_KO_DROP = re.compile(
    r"(?:무엇이|뭐가|무엇|어떤\s*것이|어떻게|어디가)\s*(?:바뀌|변경|달라|개정)\S*.*$"
    r"|(?:의\s*)?(?:변경\s*사항|변경\s*내용|개정\s*내용|바뀐\s*(?:점|것|내용)|달라진\s*(?:점|것))\S*.*$"
    r"|이후|부터|까지|사이|동안|사이에|에서|와|및|그리고"
)


@dataclass(frozen=True)
class ChangeQuery:
    """A "what changed" question: the subject's words (empty: every document) and the window: after ``since``
    (None: from each document's first version) up to and including ``until`` (None: no end). A bound named by a
    release label is that release's date, kept exact (``*_is_day`` False), with the label."""

    text: str
    subject: tuple[str, ...] = ()
    since: datetime | None = None
    until: datetime | None = None
    korean: bool = False
    since_is_day: bool = True
    until_is_day: bool = True
    since_label: str | None = None
    until_label: str | None = None

    @property
    def window(self) -> Window:
        return Window(self.since, self.until, self.since_is_day, self.until_is_day, self.since_label,
                      self.until_label)


@dataclass
class ChangeAnswer:
    """The changes a :class:`ChangeQuery` asked about, each citable, and the extractive answer listing them.
    ``matched_by`` says how the subject was read: ``document`` (named documents), ``text`` (changes mentioning
    it) or ``all`` (no subject)."""

    query: ChangeQuery
    changes: list[DocumentChange]
    text: str
    matched_by: str = "all"
    documents: list[str] = field(default_factory=list)
    summary: ChangeSummary | None = None  # an LLM's summary, when one is configured
    summary_error: str | None = None  # why the configured LLM gave none (the listed changes still answer)

    def as_dict(self) -> dict[str, Any]:
        return {
            "question": self.query.text,
            "answered_from": "stored diffs",
            "subject": " ".join(self.query.subject),
            "since": self.query.since.date().isoformat() if self.query.since else None,
            "until": self.query.until.date().isoformat() if self.query.until else None,
            "since_label": self.query.since_label,
            "until_label": self.query.until_label,
            "window": self.query.window.words(self.query.korean),
            "counts": op_counts(self.changes),
            "matched_by": self.matched_by,
            "documents": self.documents,
            "answer": self.text,
            "changes": [dict(c.as_dict(), id=f"c{i}") for i, c in enumerate(self.changes, start=1)],
            "summary": self.summary.as_dict() if self.summary is not None else None,
            "summary_error": self.summary_error,
        }


@dataclass(frozen=True)
class ChangeSummary:
    """An LLM's summary of a :class:`ChangeAnswer`: only its sentences that cite a listed change (``[cN]``) are kept,
    so every sentence shown is traceable to a diff operation; ``dropped`` counts the others."""

    text: str
    model: str
    cited: tuple[str, ...]
    dropped: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {"text": self.text, "model": self.model, "cited": list(self.cited), "dropped": self.dropped}


def _date(found: re.Match[str]) -> datetime | None:
    g = found.groupdict()
    try:
        if g["iso"]:
            return datetime.fromisoformat(g["iso"]).replace(tzinfo=UTC)
        if g["ky"]:
            return datetime(int(g["ky"]), int(g["km"] or 1), int(g["kd"] or 1), tzinfo=UTC)
        if g["m1"] or g["m2"]:
            month = (g["m1"] or g["m2"]).rstrip(".").lower()
            number = next(n for name, n in _MONTHS.items() if name.startswith(month[:3]))
            return datetime(int(g["y1"] or g["y2"]), number, int(g["d1"] or g["d2"]), tzinfo=UTC)
        if g["year"]:
            return datetime(int(g["year"]), 1, 1, tzinfo=UTC)
    except ValueError:  # 2024-02-30: not a date, so not a window
        return None
    return None


Bound = tuple[datetime, bool, str | None]  # (moment, a plain date, the release label it was named by)


def _window(text: str, bounds: list[Bound], korean: bool) -> tuple[Bound | None, Bound | None]:
    if len(bounds) >= 2:
        first, second = sorted(bounds[:2], key=lambda b: b[0])
        return first, second
    if not bounds:
        return None, None
    only = bounds[0]
    if re.search(r"\bbefore\b", text, re.IGNORECASE) or (korean and re.search(r"이전|전까지", text)):
        # "before D": up to and including the day before (a label's exact moment: up to just before it)
        moment, is_day, label = only
        return None, (moment - (timedelta(days=1) if is_day else timedelta(microseconds=1)), is_day, label)
    if re.search(r"\b(?:until|till|up\s+to)\b", text, re.IGNORECASE) or (korean and re.search(r"까지", text)):
        return None, only
    return only, None


def _label_pattern(label: str) -> str:
    key = re.escape(label_key(label))
    return (rf"(?:\b(?:releases?|versions?)\s+)?(?<![0-9A-Za-z_.])[vV]?{key}"
            r"(?![0-9A-Za-z_]|\.[0-9A-Za-z])(?:\s*판)?")


def _labels_in(text: str, labels: dict[str, datetime]) -> list[tuple[int, int, str, datetime]]:
    """The release labels named in ``text`` (longest first where two overlap), with their places."""
    found: list[tuple[int, int, str, datetime]] = []
    for label in sorted(labels, key=len, reverse=True):
        for m in re.finditer(_label_pattern(label), text, re.IGNORECASE):
            if not any(m.start() < end and start < m.end() for start, end, _, _ in found):
                found.append((m.start(), m.end(), label, labels[label]))
    return sorted(found)


def _korean_subject(text: str) -> tuple[str, ...]:
    words = []
    for raw in _KO_DROP.sub(" ", text).split():
        word = raw.strip("?.!,'\"“”「」")
        for particle in _KO_PARTICLES:
            if word.endswith(particle) and len(word) > len(particle) + 1:
                word = word[: -len(particle)]
                break
        if word and word not in ("문서", "에서", "이후"):
            words.append(word)
    return tuple(words)


def _english_subject(text: str) -> tuple[str, ...]:
    found = _EN_HOW.search(text) or _EN_SUBJECT.search(text)
    if not found:
        return ()
    words = [w.strip("?.!,'\"") for w in found.group("s").split()]
    return tuple(w for w in words if w and w.lower() not in _EN_STOP)


def change_question(text: str, labels: dict[str, datetime] | None = None) -> ChangeQuery | None:
    """``text`` read as a "what changed" question, or None when it is not one (module docstring). ``labels``: the
    release labels the collection knows, with their dates (:func:`release_labels`)."""
    korean = bool(re.search(r"[\uac00-\ud7a3]", text))
    if not (_KO_TRIGGER.search(text) if korean else _EN_TRIGGER.search(text)):
        return None
    named = _labels_in(text, labels or {})
    bounds: list[tuple[int, Bound]] = [(start, (when, False, label)) for start, _, label, when in named]
    rest = text
    for start, end, _, _ in reversed(named):
        rest = rest[:start] + " " + rest[end:]
    bounds += [(m.start(), (d, True, None)) for m in _DATE.finditer(rest) if (d := _date(m)) is not None]
    since, until = _window(rest, [b for _, b in sorted(bounds, key=lambda x: x[0])], korean)
    rest = _DATE.sub(" ", rest)
    subject = _korean_subject(rest) if korean else _english_subject(rest)
    return ChangeQuery(text=text, subject=subject, since=since[0] if since else None,
                       until=until[0] if until else None, korean=korean,
                       since_is_day=since[1] if since else True, until_is_day=until[1] if until else True,
                       since_label=since[2] if since else None, until_label=until[2] if until else None)


def _holds_all(haystack: str, words: tuple[str, ...]) -> bool:
    folded = haystack.casefold()
    return all(w.casefold() in folded for w in words)


_OPS_KO = {"added": "추가", "removed": "삭제", "modified": "수정", "moved": "이동", "renamed": "제목 변경"}


def _line(n: int, item: DocumentChange, korean: bool) -> str:
    change = item.change
    where = " › ".join(change.path) or "-"
    date = item.valid_from.date().isoformat()
    op = _OPS_KO.get(change.op, change.op) if korean else change.op
    if change.category == RETIRED_CATEGORY and change.op == "moved":  # a whole document moved or renamed
        if korean:
            return f"[c{n}] {item.filename} {date} 이동: {change.before} → {change.after}"
        return f"[c{n}] {item.filename} moved on {date}: {change.before} → {change.after}"
    if item.new_document:
        return (f"[c{n}] {item.filename} 새 문서 (제{item.version}판, {date} 시행): “{_clip(change.after)}”" if korean
                else f"[c{n}] {item.filename} new document (version {item.version}, in force from {date}): "
                     f"“{_clip(change.after)}”")
    if change.category == RETIRED_CATEGORY:
        if korean:
            return f"[c{n}] {item.filename} {date} 폐지 (마지막 판: 제{item.version}판): “{_clip(change.before)}”"
        return (f"[c{n}] {item.filename} retired on {date} (version {item.version} was its last): "
                f"“{_clip(change.before)}”")
    if korean:
        head = f"[c{n}] {item.filename} 제{item.version}판({date} 시행), {where}: {op}"
    else:
        head = f"[c{n}] {item.filename} version {item.version} (in force from {date}), {where}: {op}"
    if change.op in ("modified", "renamed"):
        return f"{head}: “{_clip(change.before)}” → “{_clip(change.after)}”"
    if change.op == "moved" and change.old_path is not None:
        return f"{head} ({' › '.join(change.old_path)} →): “{_clip(change.after)}”"
    return f"{head}: “{_clip(change.after if change.op != 'removed' else change.before)}”"


def _entry(n: int, item: DocumentChange, korean: bool) -> str:
    """One change in the grouped listing (its document and version are the headings above it)."""
    change = item.change
    if item.whole_document and change.op == "moved":  # a whole document moved or renamed
        date = item.valid_from.date().isoformat()
        return (f"[c{n}] {date} 이동: {change.before} → {change.after}" if korean
                else f"[c{n}] moved on {date}: {change.before} → {change.after}")
    if item.retired:
        return (f"[c{n}] {item.filename} 폐지: “{_clip(change.before)}”" if korean
                else f"[c{n}] the whole document retired: “{_clip(change.before)}”")
    if item.new_document:
        return (f"[c{n}] 새 문서: “{_clip(change.after)}”" if korean
                else f"[c{n}] a new document: “{_clip(change.after)}”")
    op = _OPS_KO.get(change.op, change.op) if korean else change.op
    where = " › ".join(change.path) or "-"
    return f"[c{n}] {op} · {where}: {change_snippet(change)}"


def _version_heading(version: int, valid_from: datetime, base: int | None, korean: bool) -> str:
    date = valid_from.date().isoformat()
    skipped = base is not None and base != version - 1  # several versions in the window: measured from ``base``
    if korean:
        return f"제{version}판({date} 시행)" + (f", 제{base}판과 비교" if skipped else "")
    return f"version {version} (in force from {date})" + (f", compared with version {base}" if skipped else "")


def document_share(groups: list[DocumentGroup], limit: int | None = MAX_LISTED) -> int | None:
    """How many changes each listed document shows when ``limit`` changes fit (None: all): an equal share, at least
    :data:`MIN_PER_DOCUMENT`, so one busy document never hides the others."""
    return max(MIN_PER_DOCUMENT, limit // max(len(groups), 1)) if limit is not None else None


def listing(groups: list[DocumentGroup], korean: bool = False, limit: int | None = MAX_LISTED,
            max_documents: int | None = MAX_DOCUMENTS) -> list[str]:
    """The grouped changes as lines: each document with its counts, each version of it, and its changes cut to a
    share of ``limit`` (at least :data:`MIN_PER_DOCUMENT`; None: all), each cut counted; past ``max_documents``
    documents (None: none), the rest summed in one line. ``[cN]`` numbers every change in this order, listed or
    not."""
    share = document_share(groups, limit)
    cut = max_documents if max_documents is not None else len(groups)
    lines: list[str] = []
    n = 0
    for g in groups[:cut]:
        total = len(g.changes)
        lines.append(f"{g.filename} — {total}건 ({counts_words(g.counts)})" if korean
                     else f"{g.filename} — {total} change(s) ({counts_words(g.counts)})")
        shown = 0
        for v in g.versions:
            lines.append(f"  {_version_heading(v.version, v.valid_from, v.base, korean)}: "
                         + (f"{len(v.changes)}건" if korean else f"{len(v.changes)}"))
            for item in v.changes:
                n += 1
                if share is None or shown < share:
                    lines.append("    " + _entry(n, item, korean))
                    shown += 1
        if total > shown:
            lines.append(f"    … 이 문서의 나머지 {total - shown}건" if korean
                         else f"    … {total - shown} more in this document")
    rest = [c for g in groups[cut:] for c in g.changes]
    if rest:
        others = len(groups) - cut
        lines.append(f"… 그 밖의 문서 {others}개에서 {len(rest)}건 ({counts_words(op_counts(rest))})" if korean
                     else f"… {len(rest)} more change(s) in {others} other document(s) "
                          f"({counts_words(op_counts(rest))})")
    return lines


def answer_changes(store: ElementStore, query: ChangeQuery) -> ChangeAnswer:
    """The changes ``query`` asks about, read from the stored diffs, with the extractive answer citing each."""
    documents = store.read.versioned_documents()
    titles = {d.document_id: d.title or "" for d in store.documents()}
    named = [d for d, source, filename, _retired in documents
             if query.subject and _holds_all(f"{titles.get(d, '')} {filename} {source}", query.subject)]
    window = query.window
    if named:
        found = changes_between(store, window, document_ids=named)
        matched_by = "document"
    else:
        found = changes_between(store, window)
        matched_by = "all"
        if query.subject:
            matched_by = "text"
            found = [c for c in found if _holds_all(" ".join((*c.change.path, *(c.change.old_path or ()),
                                                              c.change.before or "", c.change.after or "")),
                                                     query.subject)]
    words = window.words(query.korean)
    subject = " ".join(query.subject)
    if not found:
        about = subject + "에 대한 " if subject else ""
        text = (f"저장된 판 사이의 차이에서 {about}변경 사항을 찾지 못했습니다 ({words})." if query.korean else
                f"No stored change{' about ' + repr(subject) if subject else ''}: {words}.")
    else:
        groups = group_changes(found)
        counts = counts_words(op_counts(found))
        of = subject + "의 " if subject else ""
        lead = (f"{words}: {of}문서 {len(groups)}개에서 {len(found)}건 ({counts}), "
                "저장된 판 사이의 차이에서(모델 없이):" if query.korean else
                f"{words[0].upper()}{words[1:]}{' to ' + repr(subject) if subject else ''}: {len(found)} in "
                f"{len(groups)} document(s) ({counts}), from the stored diffs (no model):")
        text = "\n".join([lead, *listing(groups, query.korean)])
    return ChangeAnswer(query, found, text, matched_by, sorted({c.document_id for c in found}))


def answer_change_question(store: ElementStore, question: str, *, settings: Settings | None = None,
                           model: BaseChatModel | None = None) -> ChangeAnswer | None:
    """The answer from the stored diffs when ``question`` asks what changed and some document of the collection has
    a second version; ``None`` when it is an ordinary question (or no document ever changed), to be searched.

    With an LLM (``model``, or the one ``OPENAI_API_KEY`` configures) the answer also carries its summary, every
    sentence of which cites a listed change; an LLM failure leaves the listed changes as the answer and says why.
    """
    query = change_question(question, release_labels(store))
    if query is None or not store.read.has_history():
        return None
    answer = answer_changes(store, query)
    settings = settings or load_settings()
    if model is None and not settings.has_llm:
        return answer
    policy = RetryPolicy.from_settings(settings)
    label = "LLM" if model is not None else model_label(settings)
    try:
        # Streamed, as the other long calls: the deadline is checked on every chunk, and a call given up closes
        # its connection, so a server that honours disconnects stops generating.
        model = model or chat_model(settings, streaming=True, timeout=policy.timeout)
        answer.summary = summarize_changes(answer, model, label=label, policy=policy,
                                           secret=settings.openai_api_key)
    except LLMError as exc:
        answer.summary_error = str(exc)
    return answer


_CITATION = re.compile(r"\[(c\d+)\]")
_SENTENCE_END = re.compile(r"(?<=[.!?。])\s+|\n+")


def cited_sentences(reply: str, ids: set[str]) -> tuple[list[str], int]:
    """The sentences of ``reply`` that cite at least one of ``ids`` (and only listed ones), and how many did not."""
    kept, dropped = [], 0
    for sentence in (s.strip() for s in _SENTENCE_END.split(reply)):
        if not sentence:
            continue
        found = _CITATION.findall(sentence)
        if found and set(found) <= ids:
            kept.append(sentence)
        else:
            dropped += 1
    return kept, dropped


def summarize_changes(answer: ChangeAnswer, model: BaseChatModel, *, label: str = "LLM",
                      policy: RetryPolicy | None = None, secret: str | None = None) -> ChangeSummary | None:
    """``model``'s summary of the listed changes, every kept sentence citing one (None when nothing is listed, or
    no sentence of the reply cites a listed change)."""
    if not answer.changes:
        return None
    listed = [_line(n, c, answer.query.korean) for n, c in enumerate(answer.changes[:MAX_LISTED], start=1)]
    reply = invoke_with_retries(model, prompts.changes_messages(answer.query.text, "\n".join(listed)),
                                policy or RetryPolicy.from_settings(), secret=secret, kind="changes")
    kept, dropped = cited_sentences(reply, {f"c{n}" for n in range(1, len(listed) + 1)})
    if not kept:
        return None
    cited = tuple(dict.fromkeys(i for sentence in kept for i in _CITATION.findall(sentence)))
    return ChangeSummary(" ".join(kept), label, cited, dropped)
