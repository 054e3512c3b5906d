"""Work measured as an operation count, not in seconds: the same on a loaded CI machine as on a quiet one."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any


def python_lines_run(call: Callable[[], Any]) -> int:
    """How many Python lines ``call()`` executes (its own and every function's it calls); exceptions propagate."""
    executed = 0

    def trace(frame: object, event: str, arg: object) -> Callable[..., object]:
        nonlocal executed
        executed += event == "line"
        return trace

    previous = sys.gettrace()
    sys.settrace(trace)
    try:
        call()
    finally:
        sys.settrace(previous)
    return executed
