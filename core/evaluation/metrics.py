"""Retrieval and answer metrics, per question and aggregated per mode, plus win-rate confidence intervals.

Everything here is pure (no database, no model), so the numbers can be checked on tiny fixed inputs.

Per question and mode:

* ``recall`` (recall@k): a gold answer occurs in the context as whole tokens (:func:`contains_answer`): NFKC,
  casefolded, quotes and backticks ignored, whitespace optional, so "2.9kg" matches "2.9 kg" and `'utf8'` matches
  ```utf8```, but "0" does not match "v16.7.0" and "2" does not match "2.9". It is checked against the *element
  texts* of the context, not its rendering, so the hit markers and ids ("◀ [e:3f2a…]") never produce a match.
* ``hit_recall``: a gold answer occurs in one of the k hits themselves (ancestors not counted): a property of
  the search alone, identical for every way of rendering the same hits.
* ``attribution`` (strict): the element that holds the answer is in the context *under its gold heading path*:
  the question's ``gold_element`` when it has one (else any element holding a gold answer), whose heading path
  in this context contains the gold path in order. A plain context shows no heading path, so it never attributes.
* ``headings_present``: the older, looser check: every ``gold_path`` heading is somewhere in the context, in
  order (each matched to a whole element). It overstates attribution: the headings can frame another element.
* ``grounded``: an element holds a gold answer *and* its heading path in this context contains the gold path in
  order (strict attribution without the gold-element requirement).
* ``first_hit_rank`` / ``reciprocal_rank``: the rank (1-based) of the first hit holding a gold answer; MRR is
  the mean of ``1/rank`` with 0 when no hit holds one.
* ``context_tokens`` and ``latency_ms`` as measured by the caller.
* ``exact`` / ``contains``: the answer (for the extractive answerer, its best evidence) equals / contains a
  gold answer. "Equals" also accepts the value part of a ``key : value`` item or a ``Default:`` line, and ignores
  quotes and backticks on both sides (gold `'utf8'` equals the answer ``Default: 'utf8'``).
"""

from __future__ import annotations

import math
import random
import re
import statistics
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from functools import lru_cache

__all__ = [
    "ContextItem",
    "ModeAggregate",
    "QuestionScore",
    "aggregate",
    "answer_match",
    "attribution",
    "bootstrap_ci",
    "contains_answer",
    "extract_value",
    "first_hit_rank",
    "grounded",
    "headings_present",
    "normalise",
    "percentile",
    "strict_attribution",
    "score_question",
    "wilson_interval",
]

_WS = re.compile(r"\s+")
# Inline markup that a gold path written from the markdown source may carry but parsed heading text does not.
_HEADING_MARKUP = re.compile(r"[`*]")


_QUOTE_CHARS = "\"'`“”‘’"
_QUOTE_TABLE = str.maketrans("", "", _QUOTE_CHARS)


def normalise(text: str) -> str:
    """Casefolded, NFKC, without any whitespace, quotes or backticks: the form answers are compared in."""
    return _WS.sub("", unicodedata.normalize("NFKC", text or "")).casefold().translate(_QUOTE_TABLE)


def _heading_key(text: str) -> str:
    return normalise(_HEADING_MARKUP.sub("", text or ""))


def _is_hangul(ch: str) -> bool:
    return "\uac00" <= ch <= "\ud7a3"


def _is_word_char(ch: str) -> bool:
    """Letters and digits that continue a token; Hangul is apart: a particle may follow a Korean value."""
    return (ch.isalnum() or ch == "_") and not _is_hangul(ch)


_WORD_CHAR = r"[^\W\uac00-\ud7a3]"  # \w minus Hangul syllables


@lru_cache(maxsize=4096)
def _answer_pattern(answer: str) -> re.Pattern[str] | None:
    """A gold answer as a whole-token pattern over :func:`_comparable` text (None for an empty answer).

    Whitespace is optional between any two characters (``2.9kg`` ~ ``2.9 kg``). A value that starts (ends) with
    a letter or digit may not continue a token on that side: ``0`` does not match ``v16.7.0`` nor ``10``, ``1.2``
    does not match ``1.2.4``. A Korean value may be followed by a particle (``3년이며``).
    """
    chars = [c for c in _comparable(answer) if not c.isspace()]
    if not chars:
        return None
    body = r"\s*".join(re.escape(c) for c in chars)
    left = rf"(?<!{_WORD_CHAR})(?<!{_WORD_CHAR}[.\-])" if _is_word_char(chars[0]) else ""
    if _is_hangul(chars[0]):
        left = r"(?<![\uac00-\ud7a3])"
    right = rf"(?!{_WORD_CHAR})(?![.\-]{_WORD_CHAR})" if _is_word_char(chars[-1]) else ""
    return re.compile(left + body + right)


def _comparable(text: str) -> str:
    """NFKC, casefolded, quotes and backticks removed; whitespace kept (it separates tokens)."""
    return unicodedata.normalize("NFKC", text or "").casefold().translate(_QUOTE_TABLE)


def contains_answer(text: str, answers: Iterable[str]) -> bool:
    """A gold answer occurs in ``text`` as whole tokens (see :func:`_answer_pattern`)."""
    haystack = _comparable(text)
    for answer in answers:
        pattern = _answer_pattern(answer)
        if pattern is not None and pattern.search(haystack):
            return True
    return False


@dataclass(frozen=True)
class ContextItem:
    """One element of a context as the metrics see it: its text, its heading path in this context, its role."""

    text: str
    path: tuple[str, ...] = ()
    role: str = "hit"  # hit | ancestor | child
    category: str = ""


def first_hit_rank(hit_texts: Sequence[str], answers: Sequence[str]) -> int | None:
    """1-based rank of the first hit holding a gold answer, or None."""
    if not answers:
        return None
    for rank, text in enumerate(hit_texts, start=1):
        if contains_answer(text, answers):
            return rank
    return None


def _in_order(sequence: Sequence[str], wanted: Sequence[str]) -> bool:
    """``wanted`` is a subsequence of ``sequence`` (both already normalised)."""
    position = 0
    for item in sequence:
        if position < len(wanted) and item == wanted[position]:
            position += 1
    return position == len(wanted)


def headings_present(items: Sequence[ContextItem], gold_path: Sequence[str]) -> bool | None:
    """All gold headings present somewhere in the context in order (None when the question has no gold path)."""
    if not gold_path:
        return None
    return _in_order([_heading_key(i.text) for i in items], [_heading_key(h) for h in gold_path])


def _under_gold_path(item: ContextItem, wanted: Sequence[str]) -> bool:
    path = [_heading_key(p) for p in item.path]
    if item.category == "Title":
        path.append(_heading_key(item.text))
    return _in_order(path, wanted)


def grounded(items: Sequence[ContextItem], answers: Sequence[str], gold_path: Sequence[str]) -> bool | None:
    """An element holds a gold answer and its in-context heading path contains the gold path in order."""
    if not answers or not gold_path:
        return None
    wanted = [_heading_key(h) for h in gold_path]
    return any(contains_answer(i.text, answers) and _under_gold_path(i, wanted) for i in items)


def strict_attribution(
    items: Sequence[ContextItem],
    answers: Sequence[str],
    gold_path: Sequence[str],
    gold_element: str | None = None,
) -> bool | None:
    """The element that holds the answer is in the context under its gold heading path.

    With ``gold_element`` that element itself must be there (compared whitespace-, case- and quote-free);
    without it, any element holding a gold answer counts. None when the question has no gold path, or neither
    answers nor a gold element.
    """
    if not gold_path or not (answers or gold_element):
        return None
    if not gold_element:
        return grounded(items, answers, gold_path)
    wanted = [_heading_key(h) for h in gold_path]
    element = normalise(gold_element)
    return any(normalise(i.text) == element and _under_gold_path(i, wanted) for i in items)


def attribution(items: Sequence[ContextItem], gold_path: Sequence[str]) -> bool | None:
    """Deprecated name of :func:`headings_present` (the loose check), kept for callers outside evaluation."""
    return headings_present(items, gold_path)


_KEY_VALUE = re.compile(r"^[^:：\n]{1,60}?\s[:：]\s+(.+)$", re.S)
_DEFAULT = re.compile(r"\bdefaults?\s+(?:to|is)\s+(.+?)(?:\.\s|\.?\s*$)|\bdefault\s*:\s*(.+?)\s*$", re.I | re.S)
_QUOTES = _QUOTE_CHARS


def extract_value(text: str) -> str:
    """The value an element states: after ``key : `` in a key-value item, after "Defaults to", else the text."""
    text = (text or "").strip()
    match = _DEFAULT.search(text)
    if match:
        value = (match.group(1) or match.group(2) or "").strip()
    else:
        kv = _KEY_VALUE.match(text)
        value = kv.group(1).strip() if kv else text
    return value.rstrip(".").strip().strip(_QUOTES).strip()


def answer_match(
    answer: str, answers: Sequence[str], *, evidence: str | None = None
) -> tuple[bool | None, bool | None]:
    """``(exact, contains)`` of an answer against the gold answers (None, None without gold answers).

    ``evidence`` is the element text the answer quotes (extractive answers): its stated value counts as exact.
    """
    if not answers:
        return None, None
    gold = {normalise(a) for a in answers if normalise(a)}
    candidates = {normalise(answer), normalise(extract_value(answer))}
    if evidence is not None:
        candidates |= {normalise(evidence), normalise(extract_value(evidence))}
    exact = bool(gold & candidates)
    contains = contains_answer(answer, answers) or (evidence is not None and contains_answer(evidence, answers))
    return exact, contains


@dataclass(frozen=True)
class QuestionScore:
    """The metrics of one question in one mode (None where the question has no gold data for it)."""

    recall: bool | None
    hit_recall: bool | None
    attribution: bool | None
    grounded: bool | None
    first_hit_rank: int | None
    reciprocal_rank: float | None
    context_tokens: int
    latency_ms: float
    exact: bool | None = None
    contains: bool | None = None
    headings_present: bool | None = None

    def as_dict(self) -> dict:
        return asdict(self)


def score_question(
    *,
    answers: Sequence[str],
    gold_path: Sequence[str],
    items: Sequence[ContextItem],
    hit_texts: Sequence[str],
    context_tokens: int,
    latency_ms: float,
    answer: str | None = None,
    evidence: str | None = None,
    gold_element: str | None = None,
) -> QuestionScore:
    """All metrics of one question in one mode."""
    rank = first_hit_rank(hit_texts, answers)
    has_answers = bool(answers)
    exact, contains = answer_match(answer, answers, evidence=evidence) if answer is not None else (None, None)
    return QuestionScore(
        recall=contains_answer("\n".join(i.text for i in items), answers) if has_answers else None,
        hit_recall=(rank is not None) if has_answers else None,
        attribution=strict_attribution(items, answers, gold_path, gold_element),
        grounded=grounded(items, answers, gold_path),
        first_hit_rank=rank,
        reciprocal_rank=(1.0 / rank if rank else 0.0) if has_answers else None,
        context_tokens=int(context_tokens),
        latency_ms=float(latency_ms),
        exact=exact,
        contains=contains,
        headings_present=headings_present(items, gold_path),
    )


# -- aggregation ----------------------------------------------------------------------------------------


def percentile(values: Sequence[float], q: float) -> float | None:
    """Linear-interpolated percentile (``q`` in 0..100) of ``values``; None when empty."""
    if not values:
        return None
    ordered = sorted(values)
    if len(ordered) == 1:
        return float(ordered[0])
    position = (len(ordered) - 1) * q / 100.0
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return float(ordered[low] + (ordered[high] - ordered[low]) * (position - low))


def _mean(values: Iterable[float | bool | None]) -> float | None:
    present = [float(v) for v in values if v is not None]
    return round(statistics.fmean(present), 4) if present else None


@dataclass(frozen=True)
class ModeAggregate:
    """Means over the questions that have the gold data a metric needs; ``n`` = questions scored."""

    n: int
    recall: float | None
    hit_recall: float | None
    attribution: float | None
    grounded: float | None
    mrr: float | None
    context_tokens_mean: float | None
    context_tokens_p50: float | None
    latency_ms_p50: float | None
    latency_ms_p95: float | None
    exact: float | None
    contains: float | None
    headings_present: float | None = None

    def as_dict(self) -> dict:
        return asdict(self)


def aggregate(scores: Sequence[QuestionScore]) -> ModeAggregate:
    tokens = [s.context_tokens for s in scores]
    latency = [s.latency_ms for s in scores]

    def rounded(value: float | None, digits: int = 2) -> float | None:
        return None if value is None else round(value, digits)

    return ModeAggregate(
        n=len(scores),
        recall=_mean(s.recall for s in scores),
        hit_recall=_mean(s.hit_recall for s in scores),
        attribution=_mean(s.attribution for s in scores),
        grounded=_mean(s.grounded for s in scores),
        mrr=_mean(s.reciprocal_rank for s in scores),
        context_tokens_mean=rounded(statistics.fmean(tokens)) if tokens else None,
        context_tokens_p50=rounded(percentile(tokens, 50)),
        latency_ms_p50=rounded(percentile(latency, 50)),
        latency_ms_p95=rounded(percentile(latency, 95)),
        exact=_mean(s.exact for s in scores),
        contains=_mean(s.contains for s in scores),
        headings_present=_mean(s.headings_present for s in scores),
    )


# -- confidence intervals -----------------------------------------------------------------------------------


def wilson_interval(successes: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval of a proportion; ties may count as half a success. (0, 1) when n is 0."""
    if n <= 0:
        return 0.0, 1.0
    p = min(max(successes / n, 0.0), 1.0)
    denominator = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return round(max(0.0, centre - half), 4), round(min(1.0, centre + half), 4)


def bootstrap_ci(values: Sequence[float], *, iterations: int = 2000, level: float = 0.95,
                 seed: int = 0) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean of ``values`` (seeded: the same input gives the same interval)."""
    if not values:
        return 0.0, 1.0
    rng = random.Random(seed)
    n = len(values)
    means = sorted(statistics.fmean(rng.choices(values, k=n)) for _ in range(iterations))
    tail = (1.0 - level) / 2.0
    return round(percentile(means, 100 * tail) or 0.0, 4), round(percentile(means, 100 * (1 - tail)) or 0.0, 4)
