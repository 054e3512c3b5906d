"""One door per table: only the store reaches the database, and only core/config.py reads the environment.

Three checks over the app's code (core/, views/, pages/, app.py), each parsed with ``ast`` so that imports inside
functions and under ``if TYPE_CHECKING:`` count too:

* no module outside :data:`DOOR` imports ``core.db`` or ``core.sql``;
* no module outside :data:`DOOR` builds SQL: a statement in a string literal (docstrings aside), ``psycopg.sql``,
  or a call of ``.statement(`` (binding a statement template to a collection's table);
* no module but core/config.py reads ``os.environ`` / ``os.getenv``, except the writes in
  :data:`ENVIRONMENT_WRITES` that set third-party libraries' options before they load.

Each checker is also run on a small source that breaks its rule, so none of them can pass by seeing nothing.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# Where the database may be reached: the store (with the one-off migration of the old layout), the connection
# layer, the SQL text, and the `db` CLI command (which starts, stops and reports on the server itself).
DOOR_PACKAGES = ("core/store/", "core/db/", "core/sql/")
DOOR_FILES = {"core/cli/db.py"}

# Environment writes that are library settings, not app settings: each file may set (or fill in when unset or
# empty) only these variables, before the library that reads them is imported.
ENVIRONMENT_WRITES = {
    "core/__init__.py": {"SCARF_NO_ANALYTICS", "DO_NOT_TRACK", "ANONYMIZED_TELEMETRY"},
    "core/unstructured_loader.py": {"SCARF_NO_ANALYTICS", "DO_NOT_TRACK", "UNSTRUCTURED_DISABLE_NOTICE"},
}

# Statements against tables, written the way this project writes SQL (upper-case keywords).
SQL_RE = re.compile(
    r"\bSELECT\b[\s\S]*?\bFROM\b|\bINSERT\s+INTO\b|\bUPDATE\s+\S+\s+SET\b|\bDELETE\s+FROM\b"
    r"|\bCREATE\s+(?:UNIQUE\s+)?(?:TABLE|INDEX|EXTENSION)\b|\bALTER\s+TABLE\b|\bDROP\s+(?:TABLE|INDEX)\b"
    r"|\bTRUNCATE\s+\w|\bCOPY\s+\w+\s*\(|\bSELECT\s+(?:1|pg_\w+|to_regclass)\b|\bSET\s+CONSTRAINTS\b"
)


def app_modules() -> Iterator[tuple[str, str]]:
    """(path relative to the repository, source) of every module of the app."""
    for path in sorted([*ROOT.joinpath("core").rglob("*.py"), *ROOT.joinpath("views").rglob("*.py"),
                        *ROOT.joinpath("pages").rglob("*.py"), ROOT / "app.py"]):  # fmt: skip
        yield path.relative_to(ROOT).as_posix(), path.read_text(encoding="utf-8")


def inside_door(rel: str) -> bool:
    return rel.startswith(DOOR_PACKAGES) or rel in DOOR_FILES


def _module_name(rel: str) -> str:
    parts = Path(rel).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imported_modules(tree: ast.AST, rel: str) -> Iterator[tuple[int, str]]:
    """(line, module) of every import, ``from a import b`` giving both ``a`` and ``a.b``; relative ones resolved."""
    package = _module_name(rel).split(".")
    if not rel.endswith("__init__.py"):
        package = package[:-1]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package[: len(package) - node.level + 1]
                base = ".".join([*anchor, *([node.module] if node.module else [])])
            yield node.lineno, base
            for alias in node.names:
                yield node.lineno, f"{base}.{alias.name}"


def database_imports(source: str, rel: str = "x.py") -> list[str]:
    """Where ``source`` imports ``core.db`` or ``core.sql`` (or anything under them)."""
    found = []
    for line, module in _imported_modules(ast.parse(source), rel):
        if re.fullmatch(r"core\.(db|sql)(\..+)?", module):
            found.append(f"line {line}: imports {module}")
    return sorted(set(found))


def _docstrings(tree: ast.AST) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                ids.add(id(first.value))
    return ids


def sql_built(source: str) -> list[str]:
    """Where ``source`` writes a SQL statement, uses ``psycopg.sql`` or binds a statement template."""
    tree = ast.parse(source)
    docstrings = _docstrings(tree)
    found = []
    for node in ast.walk(tree):
        text = None
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            text = node.value
        elif isinstance(node, ast.JoinedStr):
            text = "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)
        if text is not None and SQL_RE.search(text):
            found.append(f"line {node.lineno}: SQL {SQL_RE.search(text).group(0)[:40]!r}")
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "statement":
            found.append(f"line {node.lineno}: calls .statement(")
        if isinstance(node, ast.Attribute) and node.attr == "sql" and isinstance(node.value, ast.Name) \
                and node.value.id == "psycopg":
            found.append(f"line {node.lineno}: uses psycopg.sql")
    for line, module in _imported_modules(tree, "x.py"):
        if module == "psycopg.sql" or module.startswith("psycopg.sql."):
            found.append(f"line {line}: imports {module}")
    return sorted(set(found))


def _is_environ(node: ast.AST) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == "environ" and isinstance(node.value, ast.Name) \
        and node.value.id == "os"


def _names(node: ast.AST, constants: dict[str, set[str]]) -> set[str] | None:
    """The variable names an environment key expression can be: a literal, a module constant, or a loop over one."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return {node.value}
    if isinstance(node, ast.Name):
        return constants.get(node.id)
    return None


def environment_reads(source: str, allowed: set[str] = frozenset()) -> list[str]:
    """Where ``source`` reads the process environment, bar writes (and the unset-or-empty test of a write) of the
    ``allowed`` variables."""
    tree = ast.parse(source)
    # Names bound to string tuples at module level, and loop variables over them: `for name in _OPT_OUT`.
    constants: dict[str, set[str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Tuple | ast.List | ast.Set) and all(
                isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.value.elts):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    constants[target.id] = {e.value for e in node.value.elts}
    for node in ast.walk(tree):
        if isinstance(node, ast.For) and isinstance(node.target, ast.Name) and isinstance(node.iter, ast.Name) \
                and node.iter.id in constants:
            constants[node.target.id] = constants[node.iter.id]
    permitted: set[int] = set()

    def fits(key: ast.AST) -> bool:
        names = _names(key, constants)
        return names is not None and names <= allowed

    for node in ast.walk(tree):
        # os.environ.setdefault(NAME, value) and os.environ[NAME] = value
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and _is_environ(node.func.value) \
                and node.func.attr == "setdefault" and node.args and fits(node.args[0]):
            permitted.add(id(node.func.value))
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store) and _is_environ(node.value) \
                and fits(node.slice):
            permitted.add(id(node.value))
        # if not os.environ.get(NAME, "").strip(): os.environ[NAME] = ...  (an empty value counts as unset)
        if isinstance(node, ast.If):
            written = [s for s in ast.walk(ast.Module(body=node.body, type_ignores=[]))
                       if isinstance(s, ast.Subscript) and isinstance(s.ctx, ast.Store) and _is_environ(s.value)]
            for get in ast.walk(node.test):
                if isinstance(get, ast.Call) and isinstance(get.func, ast.Attribute) and get.func.attr == "get" \
                        and _is_environ(get.func.value) and get.args and fits(get.args[0]) and any(
                            ast.dump(w.slice) == ast.dump(get.args[0]) for w in written):
                    permitted.add(id(get.func.value))
    found = []
    for node in ast.walk(tree):
        if _is_environ(node) and id(node) not in permitted:
            found.append(f"line {node.lineno}: os.environ")
        elif isinstance(node, ast.Attribute) and node.attr in ("getenv", "getenvb") and isinstance(
                node.value, ast.Name) and node.value.id == "os":
            found.append(f"line {node.lineno}: os.{node.attr}")
        elif isinstance(node, ast.ImportFrom) and node.module == "os" and any(
                a.name in ("environ", "environb", "getenv", "getenvb") for a in node.names):
            found.append(f"line {node.lineno}: imports from os")
    return sorted(set(found))


# -- the app keeps the rules ------------------------------------------------------------------------------------


def test_the_checks_see_the_app() -> None:
    modules = dict(app_modules())
    assert {"app.py", "views/ui.py", "core/config.py", "core/store/element_store.py"} <= set(modules)
    # Inside the door the same checkers find the database work, so they would outside it too.
    assert database_imports(modules["core/store/element_store.py"], "core/store/element_store.py")
    assert sql_built(modules["core/sql/graph.py"])
    assert environment_reads(modules["core/config.py"])


def test_only_the_door_imports_the_database_layer() -> None:
    offenders = {rel: hits for rel, source in app_modules()
                 if not inside_door(rel) and (hits := database_imports(source, rel))}
    assert offenders == {}, "go through core.store (core.store.database for URLs and errors) instead"


def test_only_the_door_builds_sql() -> None:
    offenders = {rel: hits for rel, source in app_modules()
                 if not inside_door(rel) and (hits := sql_built(source))}
    assert offenders == {}, "SQL lives in core.sql and runs in core.store"


def test_only_config_reads_the_environment() -> None:
    offenders = {rel: hits for rel, source in app_modules()
                 if rel != "core/config.py" and (hits := environment_reads(source, ENVIRONMENT_WRITES.get(rel, set())))}
    assert offenders == {}, "add a field to core.config.Settings and read it from there"


# -- each check can fail ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("source", [
    "from core.db.pool import read_connection\n",
    "import core.sql.graph\n",
    "from core import db\n",
    "from core.sql import graph as sql\n",
    "def f():\n    from core.db import database_url\n",
    "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from core.db.pool import ConnectionSource\n",
])
def test_a_database_import_is_found(source: str) -> None:
    assert database_imports(source, "core/graph/read.py")


def test_a_relative_database_import_is_found() -> None:
    assert database_imports("from ..sql import graph\n", "core/graph/read.py") == ["line 1: imports core.sql",
                                                                                   "line 1: imports core.sql.graph"]
    assert database_imports("from .db import pool\n", "core/__init__.py")


def test_imports_of_other_modules_are_not_database_imports() -> None:
    assert database_imports("from core.store import database\nimport core.dbx\nfrom core.sqlite import x\n") == []


@pytest.mark.parametrize("source", [
    'Q = "SELECT element_id FROM {elements}"\n',
    'Q = """\nINSERT INTO hke_llm_cache (a) VALUES (%s)\n"""\n',
    'def f(c):\n    c.execute("DELETE FROM hke_eval_runs")\n',
    'def f(c):\n    c.execute("UPDATE hke_eval_runs SET status = %s")\n',
    'def f(c, t):\n    c.execute(f"CREATE INDEX ON {t} (x)")\n',
    'def f(c):\n    c.execute("SELECT 1")\n',
    'def f(store):\n    return store.statement(TEMPLATE)\n',
    "from psycopg import sql\n",
    "import psycopg\nX = psycopg.sql.Identifier('t')\n",
])
def test_sql_is_found(source: str) -> None:
    assert sql_built(source)


def test_prose_and_docstrings_are_not_sql() -> None:
    source = ('"""Reads SELECT … FROM the element table."""\n'
              'def f():\n    """INSERT INTO is the store\'s."""\n    return "select a report from the list"\n')
    assert sql_built(source) == []


@pytest.mark.parametrize("source", [
    "import os\nX = os.environ.get('HKE_X')\n",
    "import os\nX = os.getenv('HKE_X')\n",
    "import os\nX = os.environ['HKE_X']\n",
    "from os import environ\n",
    "import os\ndef f():\n    return dict(os.environ)\n",
    "import os\nos.environ.setdefault('HKE_X', '1')\n",  # a write of a variable not allowed here
])
def test_an_environment_read_is_found(source: str) -> None:
    assert environment_reads(source, {"DO_NOT_TRACK"})


def test_allowed_library_writes_pass_and_only_those() -> None:
    source = ("import os\n_OPT = ('DO_NOT_TRACK',)\n"
              "def f():\n    for name in _OPT:\n        if not os.environ.get(name, '').strip():\n"
              "            os.environ[name] = 'true'\n    os.environ.setdefault('NOTICE', '1')\n")
    assert environment_reads(source, {"DO_NOT_TRACK", "NOTICE"}) == []
    assert environment_reads(source, {"DO_NOT_TRACK"}) == ["line 7: os.environ"]
    reading = "import os\nif os.environ.get('DO_NOT_TRACK'):\n    print('tracked')\n"
    assert environment_reads(reading, {"DO_NOT_TRACK"}) == ["line 2: os.environ"]
