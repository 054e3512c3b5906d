"""Where every named constant of retrieval and answering comes from: its sweep record.

A record is kept per module in ``data/tuning/<module>.json`` (``core.retrieval.pipeline`` →
``data/tuning/core.retrieval.pipeline.json``), one object per constant, keyed by the constant's name as the module
spells it: a module-level constant (``PROBE_K``) or a field of one of the module's frozen ``*Config`` dataclasses
(``ProbeConfig.k``). One file per module, so two people tuning two modules never edit the same file.

A record says which of three things the value is:

* ``sweep``: a weight or threshold chosen by ``bench/sweep.py``: the values tried, the question sets it was chosen
  on (``chosen_on``), and the scores (answer contains gold, strict attribution, context tokens) on every set, those
  it was *not* chosen on included: a record with no score on a set outside ``chosen_on`` is refused;
* ``limit``: a bound that protects the machine or the reader (a question's length, a cache's size, a row cap), not a
  ranking choice; ``why`` says what it bounds;
* ``unswept``: a value carried over that no sweep has chosen yet; ``why`` says what it does. ``unswept()`` lists
  them, so the count of unchosen weights is a number anyone can read (``python -m core.tuning``).

``missing()`` names every constant with no record or whose record holds another value than the code: a changed
constant needs a new sweep record (tests/test_tuning.py fails otherwise).

Example record::

    "PROBE_K": {"value": 8, "evidence": "sweep", "why": "hits a scope is probed for",
                "tried": [4, 8, 12], "chosen_on": ["gold", "python-markdown"],
                "scores": {"gold": {"answer": 0.9, "attribution": 0.88, "tokens": 410.2}, ...},
                "command": ".venv/bin/python bench/sweep.py --stage probe --field k --values 4,8,12 ..."}
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import pkgutil
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

__all__ = ["TUNED_PACKAGES", "TUNING_DIR", "SetScore", "TuningError", "TuningRecord", "load_records",
           "missing", "named_constants", "record_path", "tuned_modules", "unswept", "write_record"]

TUNING_DIR = Path(__file__).resolve().parent.parent / "data" / "tuning"
# The packages whose named constants must each have a record.
TUNED_PACKAGES = ("core.retrieval", "core.answering", "core.conversation")
Evidence = Literal["sweep", "limit", "unswept"]
EVIDENCE: tuple[str, ...] = ("sweep", "limit", "unswept")


class TuningError(ValueError):
    """A tuning record that cannot be read: the message names the file and the constant."""


@dataclass(frozen=True)
class SetScore:
    """What one value scored on one question set (bench/bench_eval.py's metrics, extractive answers)."""

    answer: float  # the answer contains a gold answer (share of questions)
    attribution: float  # strict attribution (share)
    tokens: float  # mean context tokens

    def as_dict(self) -> dict[str, float]:
        return {"answer": self.answer, "attribution": self.attribution, "tokens": self.tokens}


@dataclass(frozen=True)
class TuningRecord:
    """Where one constant's value comes from (see the module docstring)."""

    name: str
    value: float | int | str
    evidence: Evidence
    why: str
    tried: tuple[Any, ...] = ()
    chosen_on: tuple[str, ...] = ()
    scores: Mapping[str, SetScore] = field(default_factory=dict)  # of the chosen value, per set
    command: str = ""

    def __post_init__(self) -> None:
        if self.evidence not in EVIDENCE:
            raise TuningError(f"{self.name}: evidence must be one of {', '.join(EVIDENCE)}, got {self.evidence!r}")
        if not self.why.strip():
            raise TuningError(f"{self.name}: a record says why the constant exists")
        if self.evidence == "sweep":
            if not self.chosen_on:
                raise TuningError(f"{self.name}: a swept value names the sets it was chosen on")
            if not self.held_out:
                raise TuningError(f"{self.name}: a swept value has a score on a set it was not chosen on")
            if not self.command.strip():
                raise TuningError(f"{self.name}: a swept value names the command that chose it")

    @property
    def held_out(self) -> dict[str, SetScore]:
        """The scores on sets the value was not chosen on."""
        return {s: v for s, v in self.scores.items() if s not in self.chosen_on}

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"value": self.value, "evidence": self.evidence, "why": self.why}
        if self.tried:
            out["tried"] = list(self.tried)
        if self.chosen_on:
            out["chosen_on"] = list(self.chosen_on)
        if self.scores:
            out["scores"] = {s: v.as_dict() for s, v in self.scores.items()}
        if self.command:
            out["command"] = self.command
        return out

    @classmethod
    def from_dict(cls, name: str, raw: Mapping[str, Any]) -> TuningRecord:
        try:
            scores = {s: SetScore(float(v["answer"]), float(v["attribution"]), float(v["tokens"]))
                      for s, v in (raw.get("scores") or {}).items()}
            return cls(name, raw["value"], raw["evidence"], str(raw.get("why", "")), tuple(raw.get("tried", ())),
                       tuple(raw.get("chosen_on", ())), scores, str(raw.get("command", "")))
        except (KeyError, TypeError, ValueError) as exc:
            if isinstance(exc, TuningError):
                raise
            raise TuningError(f"{name}: malformed record ({exc!r})") from exc


def record_path(module: str) -> Path:
    return TUNING_DIR / f"{module}.json"


def load_records(module: str) -> dict[str, TuningRecord]:
    """The records of ``module`` (``{}`` when it has no file); raises :class:`TuningError` for a malformed one."""
    path = record_path(module)
    if not path.exists():
        return {}
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise TuningError(f"{path}: not a JSON object of records ({exc})") from exc
    if not isinstance(raw, dict):
        raise TuningError(f"{path}: not a JSON object of records")
    out = {}
    for name, value in raw.items():
        if not isinstance(value, dict):
            raise TuningError(f"{path}: {name}: a record is an object")
        try:
            out[name] = TuningRecord.from_dict(name, value)
        except TuningError as exc:
            raise TuningError(f"{path}: {exc}") from exc
    return out


def write_record(module: str, record: TuningRecord) -> Path:
    """Add or replace ``record`` in ``module``'s file (bench/sweep.py ``--record``), keys sorted."""
    path = record_path(module)
    raw = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    raw[record.name] = record.as_dict()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(dict(sorted(raw.items())), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def tuned_modules(packages: Iterable[str] = TUNED_PACKAGES) -> list[str]:
    out = []
    for package in packages:
        pkg = importlib.import_module(package)
        out.append(package)
        out += [f"{package}.{m.name}" for m in pkgutil.iter_modules(pkg.__path__) if not m.name.startswith("__")]
    return out


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def named_constants(module: str) -> dict[str, float | int]:
    """The numeric named constants ``module`` defines: module-level ``UPPER_CASE`` names bound to a number here
    (not imported), and the numeric field defaults of the frozen ``*Config`` dataclasses it defines."""
    mod = importlib.import_module(module)
    out: dict[str, float | int] = {}
    defined = set(getattr(mod, "__annotations__", {})) | _assigned_names(mod)
    for name, value in vars(mod).items():
        if name.lstrip("_").isupper() and _is_number(value) and name in defined:
            out[name] = value
        elif (isinstance(value, type) and dataclasses.is_dataclass(value) and value.__module__ == module
              and name.endswith("Config") and value.__dataclass_params__.frozen):  # type: ignore[attr-defined]
            for f in dataclasses.fields(value):
                if _is_number(f.default):
                    out[f"{name}.{f.name}"] = f.default  # type: ignore[assignment]
    return out


def _assigned_names(mod: Any) -> set[str]:
    """Names the module's own source assigns at top level (a constant imported from elsewhere is not its own)."""
    import ast
    import inspect

    try:
        tree = ast.parse(inspect.getsource(mod))
    except (OSError, TypeError):
        return set()
    names: set[str] = set()
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
            node, ast.AnnAssign) else []
        names |= {t.id for t in targets if isinstance(t, ast.Name)}
    return names


def missing(packages: Iterable[str] = TUNED_PACKAGES) -> list[str]:
    """``module.NAME`` of every named constant with no record, or whose record holds another value than the code."""
    out = []
    for module in tuned_modules(packages):
        records = load_records(module)
        for name, value in named_constants(module).items():
            record = records.get(name)
            if record is None:
                out.append(f"{module}.{name}: no record")
            elif record.value != value:
                out.append(f"{module}.{name}: the code holds {value!r}, the record {record.value!r}")
    return out


def unswept(packages: Iterable[str] = TUNED_PACKAGES) -> list[str]:
    """``module.NAME`` of every recorded constant that no sweep has chosen yet."""
    return [f"{module}.{name}" for module in tuned_modules(packages)
            for name, r in load_records(module).items() if r.evidence == "unswept"]


if __name__ == "__main__":
    gaps = missing()
    todo = unswept()
    print(f"{len(gaps)} constants without a matching record" + "".join(f"\n  {g}" for g in gaps))
    print(f"{len(todo)} recorded constants not chosen by a sweep yet" + "".join(f"\n  {t}" for t in todo))
