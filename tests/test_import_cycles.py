"""No import circle in the app (``app.py``, ``pages/``, ``views/``) or the library (``core/``): no two modules import
each other, directly or through others. (Streamlit runs each tab's script in its own thread: two tabs importing the
two modules of a circle at once may each get the other half-imported, an ImportError on a cold start.)

Every ``import`` counts, also those inside functions (a lazy import only hides a circle until the function runs)
and those under ``if TYPE_CHECKING:`` (a type-only circle still means two modules each need the other's names).
A package importing its own submodules (``core/ingest/__init__.py`` re-exporting ``core.ingest.pipeline``) is how a
package works, not a circle, so a submodule's implicit import of its parent package is not counted.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import networkx as nx

ROOT = Path(__file__).resolve().parents[1]
CORE = ROOT / "core"


def _modules() -> dict[str, Path]:
    """Every module of the app and the library by its import name (``app``, ``pages.compare``, ``views.ui``,
    ``core.store``); a page is run by Streamlit, not imported, but what it imports counts the same."""
    out = {"app": ROOT / "app.py"}
    for folder in ("core", "views", "pages"):
        for path in (ROOT / folder).rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def _imports(path: Path, modules: dict[str, Path]) -> set[str]:
    """The modules ``path`` imports: ``from core.x import y`` names core.x.y when that is a module."""
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name in modules)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module in modules:
            for alias in node.names:
                found.add(f"{node.module}.{alias.name}" if f"{node.module}.{alias.name}" in modules else node.module)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8")))
    return found


def import_graph() -> nx.DiGraph:
    """A fresh copy (tests add edges to theirs) of the graph, whose parse of every module is done once per run."""
    return _parsed_import_graph().copy()


@functools.cache
def _parsed_import_graph() -> nx.DiGraph:
    modules = _modules()
    graph = nx.DiGraph()
    graph.add_nodes_from(modules)
    for name, path in modules.items():
        graph.add_edges_from((name, target) for target in _imports(path, modules) if target != name)
    return graph


def test_the_graph_sees_core_imports() -> None:
    graph = import_graph()
    assert graph.has_edge("core.unstructured_loader", "core.elements")
    assert graph.has_edge("core.ingest.parsing", "core.markdown_loader"), "imports inside functions count"
    assert graph.has_edge("core.cli", "core.cli.db")
    assert graph.has_edge("core.store.element_store", "core.embeddings")


def test_the_graph_sees_the_apps_imports() -> None:
    graph = import_graph()
    assert graph.has_edge("app", "views.ui") and graph.has_edge("app", "views.page_warmup")
    assert graph.has_edge("pages.reports", "views.report_parts") and graph.has_edge("views.report_parts", "views.ui")
    assert graph.has_edge("views.page_warmup", "views.report_parts"), "imports inside functions count"
    assert graph.has_edge("pages.compare", "core.answering.changes")


def test_type_only_imports_count() -> None:
    source = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from core.store import ElementStore\n"
    path = CORE.parent / "tests" / "fixtures" / "_type_only_import.py"
    path.write_text(source, encoding="utf-8")
    try:
        assert _imports(path, _modules()) == {"core.store"}
    finally:
        path.unlink()


def test_no_import_circle_in_the_app_or_core() -> None:
    circles = sorted(sorted(c) for c in nx.strongly_connected_components(import_graph()) if len(c) > 1)
    assert circles == []


def test_a_circle_between_views_is_seen() -> None:
    graph = import_graph()
    graph.add_edge("views.ui", "views.report_parts")  # the shared page module importing a page's parts back
    assert ["views.report_parts", "views.ui"] in [sorted(c) for c in nx.strongly_connected_components(graph)]


def _package_of(module: str, modules: dict[str, Path]) -> str:
    """The package (a folder) a module lives in; a package's ``__init__`` is its own package (``app`` is its own)."""
    if modules[module].name == "__init__.py" or "." not in module:
        return module
    return module.rsplit(".", 1)[0]


def package_graph() -> nx.DiGraph:
    """Folders (of core/, and views/ and pages/) and the imports between them, as a drawing of the layout shows them.

    A package's ``__init__`` re-exporting its own subpackages is how a package offers its API, so those edges are
    left out; every other import between two folders is an arrow.
    """
    modules = _modules()
    graph = nx.DiGraph()
    for a, b in import_graph().edges():
        if a == "core.__main__":  # ``python -m core``: the entry point sits above every folder
            continue
        pa, pb = _package_of(a, modules), _package_of(b, modules)
        if pa == pb or (modules[a].name == "__init__.py" and pb.startswith(a + ".")):
            continue
        graph.add_edge(pa, pb)
    return graph


def test_no_arrow_back_up_between_folders() -> None:
    """No two folders depend on each other, directly or through others: the layout is layered."""
    circles = sorted(sorted(c) for c in nx.strongly_connected_components(package_graph()) if len(c) > 1)
    assert circles == []


def test_a_folder_circle_is_seen() -> None:
    graph = package_graph()
    graph.add_edge("core.store", "core.retrieval")  # the store reaching up into retrieval
    assert any(len(c) > 1 for c in nx.strongly_connected_components(graph))
