"""The CLI's progress bar follows core.progress.Progress on a terminal and stays silent on a pipe."""

from __future__ import annotations

import io

import pytest

from core.cli.console import progress_bar
from core.progress import Progress, no_progress


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_on_a_terminal_the_bar_shows_the_stage_the_count_and_the_message(monkeypatch: pytest.MonkeyPatch) -> None:
    terminal = _Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    with progress_bar("index", unit="step") as bar:
        bar(Progress("embedding", 3, 10, "embedding notes/guide.md"))
        bar(Progress("reports", 7, 8))
    drawn = terminal.getvalue()
    assert "embedding" in drawn and "3/10" in drawn and "notes/guide.md" in drawn
    assert "reports" in drawn and "7/8" in drawn


def test_on_a_pipe_nothing_is_drawn(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    pipe = io.StringIO()
    monkeypatch.setattr("sys.stderr", pipe)
    with progress_bar("embedding", unit="el") as bar:
        assert bar is no_progress
        bar(Progress("embedding", 1, 2, "x"))
    assert pipe.getvalue() == "" and capsys.readouterr().out == ""
