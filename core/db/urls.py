"""Database URLs: one parser, the two forms the drivers want, redaction, and the "unavailable" message.

The app's own form is libpq's (``postgresql://user:password@host:5432/db?sslmode=require``), which psycopg,
psql and every managed Postgres understand. ``DATABASE_URL`` may also be written with a SQLAlchemy driver
scheme (``postgresql+psycopg://``, ``postgres://``...). Nothing here ever prints or raises a password.
"""

from __future__ import annotations

import re
from urllib.parse import unquote, urlencode

from core.text import first_line

LIBPQ_SCHEME = "postgresql"
SQLALCHEMY_SCHEME = "postgresql+psycopg"
ACCEPTED_SCHEMES = frozenset(
    {"postgres", "postgresql", "postgresql+psycopg", "postgresql+psycopg2", "postgres+psycopg"}
)
CONNECT_TIMEOUT_S = 3  # status probes and the one direct attempt of unavailable_message


class DatabaseError(RuntimeError):
    """The database cannot be used; the message says what to do. Never contains a password."""


class DatabaseUnavailableError(DatabaseError):
    """The server went away or cannot be reached; the message is :func:`unavailable_message`'s."""


_SCHEME_RE = re.compile(r"^(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*)://")


def _split_scheme(url: str) -> tuple[str, str] | None:
    """``(scheme, rest after ://)``; None for a keyword/value string (``host=... dbname=...``).

    Any scheme other than a Postgres one is a :class:`DatabaseError` that names the scheme, never the URL.
    """
    url = url.strip()
    match = _SCHEME_RE.match(url)
    if match is None:
        if "=" in url or not url:
            return None
        shown = "none"
    elif match.group("scheme").lower() in ACCEPTED_SCHEMES:
        return match.group("scheme"), url[match.end():]
    else:
        shown = match.group("scheme")
    raise DatabaseError(
        "DATABASE_URL must be a PostgreSQL URL such as postgresql://user:password@host:5432/dbname "
        f"(got scheme {shown!r}). Unset it to use the embedded server."
    )


def psycopg_conninfo(url: str) -> str:
    """``url`` in libpq's form, for ``psycopg.connect()``: ``postgresql://...``; keyword/value strings unchanged."""
    parts = _split_scheme(url)
    return url.strip() if parts is None else f"{LIBPQ_SCHEME}://{parts[1]}"


def sqlalchemy_url(url: str) -> str:
    """``url`` as a SQLAlchemy URL for psycopg 3: ``postgresql+psycopg://...`` (keyword/value strings included)."""
    parts = _split_scheme(url)
    if parts is not None:
        return f"{SQLALCHEMY_SCHEME}://{parts[1]}"
    from psycopg.conninfo import conninfo_to_dict

    return f"{SQLALCHEMY_SCHEME}:///?{urlencode(conninfo_to_dict(url))}"


# -- redaction ---------------------------------------------------------------------------------------------------

_URL_IN_TEXT_RE = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s\"'<>]+")
_PASSWORD_KV_RE = re.compile(r"(?i)(\bpassword\s*=\s*)('(?:[^'\\]|\\.)*'|[^\s&'\"]+)")
_SQL_PASSWORD_RE = re.compile(r"(?i)(\bpassword\s+)'(?:[^']|'')*'")
# ``something@host`` in a message: libpq splits an unescaped ``@`` in a password at the first one, and then names
# the rest of the password as part of the host ("failed to resolve host 'PW3@127.0.0.1'").
_USERINFO_AT_RE = re.compile(r"[^\s'\"<>()\[\]{}@/]+@(?=[A-Za-z0-9\[])")
_PASSWORD_SEPARATORS_RE = re.compile(r"[@:/]")


def _split_userinfo(url: str) -> tuple[str, str, str | None, str] | None:
    """``(scheme://, user, password or None, rest after '@')``; None if the URL has no userinfo.

    Tolerates unescaped ``@``, ``:`` and ``/`` in the password by taking the last ``@`` before the query.
    """
    match = _SCHEME_RE.match(url)
    if not match:
        return None
    rest = url[match.end():]
    query_at = rest.find("?")
    at = (rest if query_at < 0 else rest[:query_at]).rfind("@")
    if at < 0:
        return None
    user, sep, password = rest[:at].partition(":")
    return url[: match.end()], user, (password if sep else None), rest[at + 1:]


def redact_url(url: str) -> str:
    """The URL with any password replaced by ``***``: ``postgresql://user:***@host/db``.

    Also hides ``password=`` query parameters and keyword/value conninfo passwords.
    """
    parts = _split_userinfo(url)
    if parts is not None:
        scheme, user, password, rest = parts
        url = f"{scheme}{user}:***@{rest}" if password else f"{scheme}{user}@{rest}"
    return _PASSWORD_KV_RE.sub(lambda m: m.group(1) + "***", url)


def _password_of(url: str | None) -> str | None:
    if not url:
        return None
    parts = _split_userinfo(url)
    if parts is not None and parts[2]:
        return parts[2]
    match = _PASSWORD_KV_RE.search(url)
    return match.group(2).strip("'") if match else None


def redact_text(text: str, url: str | None = None) -> str:
    """``text`` (an error message, a log line) safe to show: every URL-like string redacted, parsable or not.

    URLs lose their password, ``password=`` settings and SQL ``PASSWORD '...'`` their value, ``userinfo@host`` its
    userinfo, and the password of ``url`` (and each piece of it between ``@``, ``:`` and ``/``, as a server may echo
    one) is removed.
    """
    text = _URL_IN_TEXT_RE.sub(lambda m: redact_url(m.group(0)), text)
    text = _PASSWORD_KV_RE.sub(lambda m: m.group(1) + "***", text)
    text = _SQL_PASSWORD_RE.sub(r"\1'***'", text)
    text = _USERINFO_AT_RE.sub(lambda m: m.group(0) if "***" in m.group(0) else "***@", text)
    password = _password_of(url)
    if password:
        secrets = {password, unquote(password)}
        secrets |= {piece for secret in list(secrets) for piece in _PASSWORD_SEPARATORS_RE.split(secret)}
        for secret in sorted(secrets, key=len, reverse=True):
            # Very short pieces would mangle the message; a short piece next to the host is caught above.
            if len(secret) >= 4:
                text = text.replace(secret, "***")
    return text


# -- the server went away ----------------------------------------------------------------------------------------

# SQLSTATEs that mean the server went away: 57P01 admin_shutdown (also sent when the postmaster died), 57P02
# crash_shutdown, 57P03 cannot_connect_now (starting up or shutting down); class 08 is "connection exception".
_GONE_SQLSTATES = frozenset({"57P01", "57P02", "57P03"})


def connection_lost(exc: BaseException) -> bool:
    """Whether ``exc`` means the server cannot be reached: stopped, crashed, restarting, or no connection.

    An OperationalError about a statement (a deadlock, a cancelled query) is not: it has its own SQLSTATE.
    """
    import psycopg

    if isinstance(exc, DatabaseUnavailableError | psycopg.InterfaceError):
        return True
    if not isinstance(exc, psycopg.OperationalError):  # psycopg_pool.PoolTimeout is one too
        return False
    state = getattr(exc, "sqlstate", None)
    return state is None or state in _GONE_SQLSTATES or state.startswith("08")


def unavailable_message(exc: BaseException, url: str | None = None) -> str:
    """The one message every entry point shows when the database is gone (ingest adds what it did not store)."""
    if isinstance(exc, DatabaseUnavailableError):
        return str(exc)
    reason = first_line(exc)
    if url and type(exc).__name__ == "PoolTimeout":
        # "couldn't get a connection after 30 s" says nothing about why: one direct attempt names the cause.
        import psycopg

        try:
            psycopg.connect(psycopg_conninfo(url), connect_timeout=CONNECT_TIMEOUT_S, autocommit=True).close()
        except Exception as probe:
            reason = first_line(probe)
    return f"the database is unavailable ({redact_text(reason, url)}). Start it (or check DATABASE_URL) and try again."
