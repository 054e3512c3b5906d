"""Loading a bench/ script as a module, for tests of the question-set writers."""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType

from .conftest import ROOT


def bench_module(name: str) -> ModuleType:
    """``bench/<name>.py`` imported (bench/ on the path for its own ``_common`` import)."""
    if str(ROOT / "bench") not in sys.path:
        sys.path.insert(0, str(ROOT / "bench"))
    spec = importlib.util.spec_from_file_location(name, ROOT / "bench" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module
