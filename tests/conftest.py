"""Shared fixtures: one real Postgres with pgvector for the whole run.

With ``DATABASE_URL`` set, tests use that server; otherwise they start the embedded server in a
throw-away data directory. Tests isolate themselves by collection name, never by mocking the database.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import uuid
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "data" / "samples"
REFERENCE = ROOT.parent / "shared" / "reference" / "lg-monitor.md"

# Tests never talk to OpenAI, whatever the developer's shell has.
for _name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "HKE_EMBEDDINGS", "HKE_CHAT_MODEL"):
    os.environ.pop(_name, None)


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
