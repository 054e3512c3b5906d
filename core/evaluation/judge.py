"""Pairwise LLM judging of answers on the GraphRAG criteria, robust to position bias and malformed replies.

For one question and two modes *a* and *b*, the judge model is asked twice: once with *a*'s answer as "A", once
with *b*'s answer as "A". For each criterion the two verdicts are combined (:func:`combine`):

* a win counts 1 for its mode, a tie ½ each; the two orders are averaged;
* more than ½ → that mode wins, exactly ½ → tie. So a judge that always prefers position "A" gives one win to
  each mode, i.e. a **tie**: position bias cancels instead of deciding the result;
* a verdict that is missing or unreadable for a criterion (or a failed call) makes that criterion
  **invalid** for the pair. Invalid pairs are counted and reported, never guessed, and never crash a run.

:func:`win_rates` turns the combined outcomes into the win rate of *b* over *a* per criterion, with ties as half
a win and a Wilson 95% interval (a seeded bootstrap interval is available too). The prompts are in
``core.evaluation.prompts``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from langchain_core.language_models import BaseChatModel

from core.evaluation import prompts
from core.evaluation.metrics import bootstrap_ci, wilson_interval
from core.llm import LLMError, RetryPolicy, invoke_with_retries

if TYPE_CHECKING:
    from core.config import Settings

__all__ = [
    "CRITERIA",
    "Judge",
    "PairJudgement",
    "Verdict",
    "WinRate",
    "combine",
    "judge_pairs_for",
    "parse_verdict",
    "win_rates",
]

CRITERIA: tuple[str, ...] = tuple(prompts.JUDGE_CRITERIA)
Winner = Literal["A", "B", "tie"]
Outcome = Literal["a", "b", "tie", "invalid"]

_A = {"a", "answer a", "answer_a", "answera", "1", "answer 1", "first", "a is better"}
_B = {"b", "answer b", "answer_b", "answerb", "2", "answer 2", "second", "b is better"}
_TIE = {"tie", "draw", "equal", "both", "same", "neither", "none", "tied"}
_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.S | re.I)


def _winner(value: Any) -> Winner | None:
    if isinstance(value, dict):
        value = value.get("winner", value.get("verdict", value.get("better")))
    if not isinstance(value, str | int):
        return None
    key = re.sub(r"[\s\"'.*]+", " ", str(value)).strip().lower()
    if key in _A:
        return "A"
    if key in _B:
        return "B"
    if key in _TIE:
        return "tie"
    return None


def _json_object(text: str) -> dict[str, Any] | None:
    """The first JSON object in a reply, also inside a ```json fence or surrounded by prose."""
    candidates = [m.group(1) for m in _FENCE.finditer(text)] + [text]
    for candidate in candidates:
        start = candidate.find("{")
        while start != -1:
            depth = 0
            for end in range(start, len(candidate)):
                if candidate[end] == "{":
                    depth += 1
                elif candidate[end] == "}":
                    depth -= 1
                    if depth == 0:
                        try:
                            value = json.loads(candidate[start : end + 1])
                        except ValueError:
                            break
                        if isinstance(value, dict):
                            return value
                        break
            start = candidate.find("{", start + 1)
    return None


def parse_verdict(text: str) -> dict[str, Winner | None]:
    """Winner per criterion from a judge reply; ``None`` for each criterion the reply does not state readably.

    Accepts the JSON shape the prompt asks for, the same inside a code fence or prose, a flat
    ``{"comprehensiveness": "A"}``, and as a last resort lines such as ``Directness: B``.
    """
    out: dict[str, Winner | None] = dict.fromkeys(CRITERIA)
    data = _json_object(text or "")
    if data is not None:
        lowered = {str(k).strip().lower(): v for k, v in data.items()}
        for criterion in CRITERIA:
            out[criterion] = _winner(lowered.get(criterion))
        return out
    for criterion in CRITERIA:
        match = re.search(rf"{criterion}\W{{0,5}}(?:winner\W{{0,5}})?(answer\s*[ab12]|[ab12]\b|tie|draw|equal)",
                          text or "", re.I)
        out[criterion] = _winner(match.group(1)) if match else None
    return out


@dataclass(frozen=True)
class Verdict:
    """One judge call: who is shown as A, the reply, what it says per criterion, or the error."""

    shown_as_a: str
    winners: dict[str, Winner | None]
    raw: str = ""
    error: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def combine(first: Winner | None, second: Winner | None) -> Outcome:
    """Outcome for mode *a* vs *b* from the two orders: ``first`` with *a* shown as A, ``second`` with *b* as A."""
    if first is None or second is None:
        return "invalid"
    points = {"A": 1.0, "tie": 0.5, "B": 0.0}
    score_a = (points[first] + (1.0 - points[second])) / 2.0
    if score_a > 0.5:
        return "a"
    if score_a < 0.5:
        return "b"
    return "tie"


@dataclass
class PairJudgement:
    """The combined outcome of one question for the pair (a, b), per criterion, with both verdicts."""

    question_id: str
    mode_a: str
    mode_b: str
    outcomes: dict[str, Outcome]
    verdicts: list[Verdict] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {"question_id": self.question_id, "mode_a": self.mode_a, "mode_b": self.mode_b,
                "outcomes": dict(self.outcomes), "verdicts": [v.as_dict() for v in self.verdicts]}


class Judge:
    """A chat model judging answer pairs. ``model`` is any LangChain chat model (tests pass a fake one)."""

    def __init__(self, model: BaseChatModel, *, label: str = "LLM judge", policy: RetryPolicy | None = None,
                 secret: str | None = None) -> None:
        self.model = model
        self.label = label
        self.policy = policy or RetryPolicy.from_settings()
        self._secret = secret

    @classmethod
    def from_settings(cls, settings: Settings | None = None, policy: RetryPolicy | None = None) -> Judge:
        """The configured chat model as judge; raises ``core.llm.LLMNotConfiguredError`` without a key."""
        from core.config import load_settings
        from core.llm import chat_model, model_label

        settings = settings or load_settings()
        policy = policy or RetryPolicy.from_settings()
        # streamed: a verdict given up at the deadline hangs up, and a server that honours that stops generating
        model = chat_model(settings, streaming=True, timeout=policy.timeout)
        return cls(model, label=f"judge: {model_label(settings)}", policy=policy, secret=settings.openai_api_key)

    def verdict(self, question: str, shown_a: str, answer_a: str, answer_b: str) -> Verdict:
        try:
            raw = invoke_with_retries(self.model, prompts.judge_messages(question, answer_a, answer_b), self.policy,
                                      secret=self._secret, kind="judge")
        except LLMError as exc:
            return Verdict(shown_a, dict.fromkeys(CRITERIA), "", exc.message)
        except Exception as exc:  # a broken model object must not end the run either
            return Verdict(shown_a, dict.fromkeys(CRITERIA), "", f"{type(exc).__name__}: {exc}")
        winners = parse_verdict(raw)
        error = None if any(w is not None for w in winners.values()) else "unreadable verdict"
        return Verdict(shown_a, winners, raw, error)

    def judge(self, question_id: str, question: str, mode_a: str, answer_a: str, mode_b: str,
              answer_b: str) -> PairJudgement:
        """Both orders, combined per criterion."""
        first = self.verdict(question, mode_a, answer_a, answer_b)
        second = self.verdict(question, mode_b, answer_b, answer_a)
        outcomes = {c: combine(first.winners.get(c), second.winners.get(c)) for c in CRITERIA}
        return PairJudgement(question_id, mode_a, mode_b, outcomes, [first, second])


def judge_pairs_for(modes: Sequence[str], pairs: str = "baseline") -> list[tuple[str, str]]:
    """Which mode pairs to judge: every mode against the baseline (``plain`` if present, else the first mode),
    or with ``"all"`` every pair. Each pair is (a, b), and win rates are of b over a."""
    modes = list(modes)
    if pairs == "all":
        return [(a, b) for i, a in enumerate(modes) for b in modes[i + 1 :]]
    if pairs != "baseline":
        raise ValueError("pairs must be 'baseline' or 'all'")
    baseline = "plain" if "plain" in modes else modes[0]
    return [(baseline, m) for m in modes if m != baseline]


@dataclass(frozen=True)
class WinRate:
    """Win rate of ``mode_b`` over ``mode_a`` on one criterion; ties count half. ``n`` = valid pairs."""

    mode_a: str
    mode_b: str
    criterion: str
    wins: int
    ties: int
    losses: int
    invalid: int
    win_rate: float | None
    ci_low: float
    ci_high: float
    method: str = "wilson"

    @property
    def n(self) -> int:
        return self.wins + self.ties + self.losses

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "n": self.n}


def win_rates(judgements: Iterable[PairJudgement], *, method: str = "wilson") -> list[WinRate]:
    """Per (pair, criterion): wins, ties, losses and invalid of b vs a, win rate and its 95% interval."""
    grouped: dict[tuple[str, str, str], list[Outcome]] = {}
    for judgement in judgements:
        for criterion in CRITERIA:
            grouped.setdefault((judgement.mode_a, judgement.mode_b, criterion), []).append(
                judgement.outcomes.get(criterion, "invalid"))
    out = []
    for (mode_a, mode_b, criterion), outcomes in grouped.items():
        wins, ties, losses = outcomes.count("b"), outcomes.count("tie"), outcomes.count("a")
        invalid = outcomes.count("invalid")
        n = wins + ties + losses
        rate = round((wins + 0.5 * ties) / n, 4) if n else None
        if method == "bootstrap":
            scores = [1.0] * wins + [0.5] * ties + [0.0] * losses
            low, high = bootstrap_ci(scores)
        else:
            low, high = wilson_interval(wins + 0.5 * ties, n)
        out.append(WinRate(mode_a, mode_b, criterion, wins, ties, losses, invalid, rate, low, high, method))
    return out
