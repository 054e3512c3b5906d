"""The house rules the layout promises: pages are short stories listed in the navigation, and the library draws
nothing (no Streamlit, plotly, pyvis or templates in ``core/``; those live in ``views/``)."""

from __future__ import annotations

import ast
import re

from .conftest import ROOT

MAX_PAGE_LINES = 250
VIEW_LIBRARIES = {"streamlit", "plotly", "pyvis", "jinja2"}


def imported_roots(path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    roots = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            roots.add(node.module.split(".")[0])
    return roots


def test_every_page_is_in_the_navigation_and_short():
    navigation = set(re.findall(r'st\.Page\("(pages/[\w.]+)"', (ROOT / "app.py").read_text(encoding="utf-8")))
    pages = {f"pages/{p.name}" for p in (ROOT / "pages").glob("*.py")}
    assert pages == navigation, "pages/ holds the pages of app.py's navigation and nothing else"
    long = {p: n for p in pages if (n := len((ROOT / p).read_text(encoding="utf-8").splitlines())) > MAX_PAGE_LINES}
    assert long == {}, f"pages over {MAX_PAGE_LINES} lines: {long}"


def test_the_library_draws_nothing():
    offenders = {str(p.relative_to(ROOT)): sorted(imported_roots(p) & VIEW_LIBRARIES)
                 for p in (ROOT / "core").rglob("*.py") if imported_roots(p) & VIEW_LIBRARIES}  # fmt: skip
    assert offenders == {}, offenders
    assert not any(imported_roots(p) & {"views", "pages"} for p in (ROOT / "core").rglob("*.py")), "core imports a view"
