"""Shared fixtures: one real Postgres with pgvector for the whole run.

With ``DATABASE_URL`` set, tests use that server (and never stop it); otherwise they start the embedded server in a
throw-away data directory. Tests isolate themselves by collection name (a fresh ``t_<uuid>`` per test, ``samples`` for
the shared read-only corpus), never by mocking the database: point ``DATABASE_URL`` at a scratch database.
"""

from __future__ import annotations

import functools
import os
import shutil
import sys
import tempfile
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "data" / "samples"
REFERENCE = ROOT.parent / "shared" / "reference" / "lg-monitor.md"

# Tests never talk to OpenAI, whatever the developer's shell has.
for _name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "HKE_EMBEDDINGS", "HKE_CHAT_MODEL"):
    os.environ.pop(_name, None)


# The database tests of these modules run a second time in CI, against tests/tcp_postgres.py's server (TCP, a
# password, a role that is not superuser, no Unix socket): `pytest -m remote`. A test runs there when what it asserts
# could come out otherwise against such a server, and only then:
# - the server's address: URL forms and the password kept out of sight (cli, database; app: the sidebar);
# - the connection: the pool over TCP, its settings, a failed statement giving its connection back (pool);
# - what the role that is not superuser runs to create, change or fill the schema: each door's DDL and writes
#   (store_layout, ingest, embedding_cache, migrate, evaluation_runs; graph_index: the index's build, rebuild and
#   rollback; app: the job runner's ingest from a page);
# - the retrieval SQL: each search strategy, the heading scope and the held heading index (retrieval_pipeline).
# A test that only reads back what such a test wrote and reasons over it in Python (rankings, answers, estimates,
# reports, a page's drawing) runs the same statements through the same doors: it runs in the main pass only.
# Modules all of whose database tests are of that kind mark none; a module with both kinds marks its remote tests
# `@pytest.mark.remote` (app, graph_index, retrieval_pipeline), and only those run again.
REMOTE_MODULES = frozenset({
    "test_app.py", "test_cli.py", "test_database.py", "test_embedding_cache.py", "test_evaluation_runs.py",
    "test_graph_index.py", "test_ingest.py", "test_migrate.py", "test_pool.py", "test_retrieval_pipeline.py",
    "test_store_layout.py",
})
# The browser tests are not among them: test_app.py's AppTest runs draw the same pages over the same connection, and
# what Chromium adds (the drawing) does not depend on the server; in the remote pass they cost a Streamlit server,
# a Chromium and their page opens beside the main pass, on the same cores.


def pytest_configure(config: pytest.Config) -> None:
    """Every import of the run keeps its bytecode, and the product's modules are compiled once, before any test (the
    controller only, not each xdist worker).

    The install compiles nothing (``pip install --no-compile``, README): the suite imports about a fifth of the
    installed modules, and each is compiled by the first process that imports it. Machines that set
    ``PYTHONDONTWRITEBYTECODE`` would keep none of it, so each of the suite's Python processes (xdist workers, CLI
    runs, app servers) would compile its imports again: 5.6 CPU-s of imports became 15. The variable is dropped here,
    before the workers and subprocesses that inherit it start."""
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    sys.dont_write_bytecode = False
    if hasattr(config, "workerinput"):
        return
    import compileall

    for package in ("core", "views"):
        compileall.compile_dir(ROOT / package, quiet=1)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test that talks to the session's database (it uses ``db_url``, directly or through ``store`` or
    ``samples_store``) ``database``, and those of REMOTE_MODULES also ``remote``, all of a module's unless it marks
    its remote tests itself. A test marked ``remote`` that CI's remote pass would not collect (outside
    REMOTE_MODULES) or that has no database is an error, not a test that silently never runs there."""
    marks_its_own = {item.path for item in items if item.get_closest_marker("remote")}
    for item in items:
        uses_db = "db_url" in getattr(item, "fixturenames", ())
        if item.get_closest_marker("remote") and (item.path.name not in REMOTE_MODULES or not uses_db):
            raise pytest.UsageError(f"{item.nodeid} is marked remote but is not a database test of REMOTE_MODULES "
                                    "(tests/conftest.py)")
        if uses_db:
            item.add_marker(pytest.mark.database)
            if item.path.name in REMOTE_MODULES and item.path not in marks_its_own:
                item.add_marker(pytest.mark.remote)


@functools.cache
def _uses_the_app(module: str) -> bool:
    path = ROOT / module
    return path.is_file() and "app_url" in path.read_text(encoding="utf-8")


def one_app_scope(nodeid: str, by_module: Callable[[str], str]) -> str:
    """The unit of work a pytest-xdist worker takes (``--dist loadscope``): every browser test of a module that uses
    the session's app (``app_url``) in one unit, so that one worker starts one Streamlit server and one Chromium for
    them (each worker has its own session fixtures: its own data directory, Postgres and samples); any other test
    with its module (``by_module``: xdist's own rule), so that a module's fixtures are set up once."""
    module = nodeid.split("::", 1)[0]
    if module.startswith("tests/e2e/") and _uses_the_app(module):
        return "tests/e2e: the session's app"
    return by_module(nodeid)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log):
    """``-n N --dist loadscope``: xdist's scheduling by module, the app's browser tests as one unit
    (:func:`one_app_scope`). (``xdist_group`` marks cannot do this: xdist 3.8 groups by rewriting a test's id, which
    pytest 9 no longer lets it do.)"""
    if config.getoption("dist") != "loadscope":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class OneAppScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return one_app_scope(nodeid, super()._split_scope)

    return OneAppScheduling(config, log)


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """HKE_DATA_DIR for the run: short, because Unix socket paths must stay under ~100 characters."""
    path = Path(tempfile.mkdtemp(prefix="hke-test-", dir="/tmp"))
    os.environ["HKE_DATA_DIR"] = str(path)
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(scope="session")
def db_url(data_dir: Path) -> str:
    from core.db import database_url, stop_embedded
    from core.db.pool import close_pools

    url = database_url()
    yield url
    close_pools()
    if not os.environ.get("DATABASE_URL"):
        stop_embedded()


@pytest.fixture(scope="session")
def use_embeddings():
    from core.embeddings import make_embeddings

    return make_embeddings("use")


@pytest.fixture
def collection_name() -> str:
    return f"t_{uuid.uuid4().hex[:10]}"


@pytest.fixture
def store(db_url, use_embeddings, collection_name):
    from core.embeddings import make_embeddings
    from core.store import ElementStore

    s = ElementStore(db_url, collection_name, make_embeddings("use"))
    yield s
    s.drop()


@pytest.fixture
def hash_store(db_url, collection_name):
    """A collection under the instant hash embedder, for tests about what is stored rather than what is similar."""
    from core.store import ElementStore

    from .helpers_embeddings import HashEmbeddings

    s = ElementStore(db_url, collection_name, HashEmbeddings())
    yield s
    s.drop()


@pytest.fixture(scope="session")
def samples_store(db_url):
    """The sample corpus ingested once into collection ``samples`` for read-only tests."""
    from core.embeddings import make_embeddings
    from core.ingest import ingest_paths
    from core.store import ElementStore

    s = ElementStore(db_url, "samples", make_embeddings("use"))
    report = ingest_paths(s, [SAMPLES])
    assert not report.errors, report.errors
    return s
