""""What changed?" questions answered from the stored diffs, without a model.

* :func:`change_question` recognises an English or Korean question about changes ("what changed in X since D",
  "changes to X between D1 and D2", "X 2021-07-01 이후 무엇이 바뀌었나요", "X의 변경 사항") and returns a
  :class:`ChangeQuery` (the subject's words and the dates), or None for any other question. Pure: no store.
* :func:`answer_changes` reads the versions that took effect in that window (:mod:`core.answering.version_history`)
  and returns a :class:`ChangeAnswer`: every change cited with document, version, date and heading path, and an
  extractive text listing them.

The subject picks documents whose title, file name or source holds every subject word; when no document is named
that way, it keeps the changes whose heading path or text holds every subject word.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from langchain_core.language_models import BaseChatModel

from core.answering import prompts
from core.answering.version_history import RETIRED_CATEGORY, DocumentChange, changes_since
from core.config import Settings, load_settings
from core.llm import LLMError, RetryPolicy, chat_model, invoke_with_retries, model_label
from core.store import ElementStore
from core.text import clip


def _clip(text: str | None, limit: int = 160) -> str:
    return clip(text or "", limit, at_word=False)


MAX_LISTED = 40  # changes written out in the answer's text; the JSON carries every one

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
_EN_STOP = frozenset("the a an this that these those document documents file".split())
_KO_PARTICLES = ("에서는", "에서", "으로", "에는", "은", "는", "이", "가", "을", "를", "의", "에", "로", "와", "과")
_KO_DROP = re.compile(
    r"(?:무엇이|뭐가|무엇|어떤\s*것이|어떻게|어디가)\s*(?:바뀌|변경|달라|개정)\S*.*$"
    r"|(?:의\s*)?(?:변경\s*사항|변경\s*내용|개정\s*내용|바뀐\s*(?:점|것|내용)|달라진\s*(?:점|것))\S*.*$"
    r"|이후|부터|까지|사이|동안|사이에|에서|와|및|그리고"
)


@dataclass(frozen=True)
class ChangeQuery:
    """A "what changed" question: the subject's words (empty: every document) and the window, ``since`` (on or
    after, None: from the first version) to ``until`` (before, None: up to now)."""

    text: str
    subject: tuple[str, ...] = ()
    since: datetime | None = None
    until: datetime | None = None
    korean: bool = False


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


def _window(text: str, dates: list[datetime], korean: bool) -> tuple[datetime | None, datetime | None]:
    if len(dates) >= 2:
        first, second = sorted(dates[:2])
        return first, second
    if not dates:
        return None, None
    before = re.search(r"\b(?:before|until|till)\b", text, re.IGNORECASE) or (korean and re.search(r"이전|전까지|까지",
                                                                                               text))
    return (None, dates[0]) if before else (dates[0], None)


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


def change_question(text: str) -> ChangeQuery | None:
    """``text`` read as a "what changed" question, or None when it is not one (module docstring)."""
    korean = bool(re.search(r"[\uac00-\ud7a3]", text))
    if not (_KO_TRIGGER.search(text) if korean else _EN_TRIGGER.search(text)):
        return None
    matches = list(_DATE.finditer(text))
    dates = [d for d in (_date(m) for m in matches) if d is not None]
    since, until = _window(text, dates, korean)
    rest = _DATE.sub(" ", text)
    subject = _korean_subject(rest) if korean else _english_subject(rest)
    return ChangeQuery(text=text, subject=subject, since=since, until=until, korean=korean)


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


def _window_words(query: ChangeQuery) -> str:
    since = query.since.date().isoformat() if query.since else None
    until = query.until.date().isoformat() if query.until else None
    if query.korean:
        return (f"{since}부터 {until} 전까지" if since and until else f"{since} 이후" if since
                else f"{until} 이전" if until else "첫 판 이후")
    return (f"between {since} and {until}" if since and until else f"since {since}" if since
            else f"before {until}" if until else "since each document's first version")


def answer_changes(store: ElementStore, query: ChangeQuery) -> ChangeAnswer:
    """The changes ``query`` asks about, read from the stored diffs, with the extractive answer citing each."""
    documents = store.read.versioned_documents()
    titles = {d.document_id: d.title or "" for d in store.documents()}
    named = [d for d, source, filename, _retired in documents
             if query.subject and _holds_all(f"{titles.get(d, '')} {filename} {source}", query.subject)]
    if named:
        found = changes_since(store, query.since, until=query.until, document_ids=named)
        matched_by = "document"
    else:
        found = changes_since(store, query.since, until=query.until)
        matched_by = "all"
        if query.subject:
            matched_by = "text"
            found = [c for c in found if _holds_all(" ".join((*c.change.path, *(c.change.old_path or ()),
                                                              c.change.before or "", c.change.after or "")),
                                                     query.subject)]
    window = _window_words(query)
    subject = " ".join(query.subject)
    if not found:
        about = subject + "에 대한 " if subject else ""
        text = (f"저장된 판 사이의 차이에서 {about}변경 사항을 찾지 못했습니다 ({window})." if query.korean else
                f"No stored change{' about ' + repr(subject) if subject else ''} {window}.")
    else:
        of = subject + "의 " if subject else ""
        lead = (f"{window} {of}변경 사항 {len(found)}건 (저장된 판 사이의 차이에서, 모델 없이):" if query.korean else
                f"{len(found)} change(s){' to ' + repr(subject) if subject else ''} {window}, from the stored "
                f"diffs (no model):")
        lines = [_line(n, c, query.korean) for n, c in enumerate(found[:MAX_LISTED], start=1)]
        if len(found) > MAX_LISTED:
            lines.append(f"… {len(found) - MAX_LISTED} more" if not query.korean
                         else f"… 외 {len(found) - MAX_LISTED}건")
        text = "\n".join([lead, *lines])
    return ChangeAnswer(query, found, text, matched_by, sorted({c.document_id for c in found}))


def answer_change_question(store: ElementStore, question: str, *, settings: Settings | None = None,
                           model: BaseChatModel | None = None) -> ChangeAnswer | None:
    """The answer from the stored diffs when ``question`` asks what changed and some document of the collection has
    a second version; ``None`` when it is an ordinary question (or no document ever changed), to be searched.

    With an LLM (``model``, or the one ``OPENAI_API_KEY`` configures) the answer also carries its summary, every
    sentence of which cites a listed change; an LLM failure leaves the listed changes as the answer and says why.
    """
    query = change_question(question)
    if query is None or not store.read.has_history():
        return None
    answer = answer_changes(store, query)
    settings = settings or load_settings()
    if model is None and not settings.has_llm:
        return answer
    policy = RetryPolicy.from_settings(settings)
    label = "LLM" if model is not None else model_label(settings)
    try:
        model = model or chat_model(settings, timeout=policy.timeout)
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
                                policy or RetryPolicy.from_settings(), secret=secret)
    kept, dropped = cited_sentences(reply, {f"c{n}" for n in range(1, len(listed) + 1)})
    if not kept:
        return None
    cited = tuple(dict.fromkeys(i for sentence in kept for i in _CITATION.findall(sentence)))
    return ChangeSummary(" ".join(kept), label, cited, dropped)
