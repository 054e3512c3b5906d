"""One progress type for every long job (ingest, graph index, global search, evaluation).

A job calls ``progress(Progress(stage, done, total, message))`` as it advances; a page turns that into a
progress bar, the CLI into a line on stderr. One shape means one adapter per surface instead of one per job.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Progress:
    """``done`` of ``total`` steps of ``stage`` finished; ``message`` says what is being worked on."""

    stage: str
    done: int
    total: int
    message: str = ""

    @property
    def fraction(self) -> float:
        """Share of the stage done, in [0, 1] (a stage with no steps counts as done)."""
        if self.total <= 0:
            return 1.0
        return min(1.0, max(0.0, self.done / self.total))

    def describe(self) -> str:
        """``"stage done/total: message"``, for logs and progress-bar captions."""
        text = f"{self.stage} {self.done}/{self.total}"
        return f"{text}: {self.message}" if self.message else text


ProgressCallback = Callable[[Progress], None]


def no_progress(_: Progress) -> None:
    """The callback of a job nobody watches."""
