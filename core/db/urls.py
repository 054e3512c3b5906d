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


# How to write a password that libpq cannot read as typed; said with every error about an unreadable URL.
_ESCAPE_HINT = ("In a URL, percent-encode the special characters of the password (@ as %40, : as %3A, / as %2F, "
                "? as %3F, # as %23, % as %25, & as %26, = as %3D, + as %2B, a space as %20), or use the key=value "
                "form with the password in single quotes.")


def check_conninfo(url: str, *, name: str = "DATABASE_URL") -> dict[str, str]:
    """The connection parameters of ``url`` as libpq reads them; a :class:`DatabaseError` that names what cannot be
    read otherwise (before any connection is tried, so that a typo is not a 30 s wait for the pool). ``name`` is
    the setting the URL came from, for the message."""
    from psycopg import ProgrammingError
    from psycopg.conninfo import conninfo_to_dict, timeout_from_conninfo

    try:
        params = conninfo_to_dict(psycopg_conninfo(url))
    except ProgrammingError as exc:
        # ``from None``: libpq's message may quote the password; only the redacted one goes on.
        reason = redact_text(first_line(exc), url)
        raise DatabaseError(f"{name} cannot be read ({reason}). {_ESCAPE_HINT}") from None
    if "@" in (params.get("host") or ""):
        # No host name holds an '@': libpq read the end of a password with an unescaped '@' (after a '?' or '#',
        # which end the userinfo for it) as part of the host.
        shown = redact_text(params["host"], url)
        raise DatabaseError(f"{name} cannot be read (its host would be {shown!r}: the password holds a special "
                            f"character). {_ESCAPE_HINT}")
    try:
        timeout_from_conninfo(params)
    except ProgrammingError:
        shown = redact_text(str(params.get("connect_timeout")), url)
        raise DatabaseError(f"connect_timeout in {name} (or PGCONNECT_TIMEOUT) must be a whole number of "
                            f"seconds, got {shown!r}.") from None
    return params


# -- redaction ---------------------------------------------------------------------------------------------------

_URL_IN_TEXT_RE = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s\"'<>]+")
# ``password=`` in a message or a keyword/value string: a quoted value, or one word (a value already shown as *** is
# left alone, so that a URL's redacted ``password=***&x=1`` keeps its other parameters).
_PASSWORD_KV_RE = re.compile(r"(?i)(\bpassword\s*=\s*)('(?:[^'\\]|\\.)*'|(?!\*\*\*)[^\s'\"]+)")
# ``password=`` in a URL's query: up to the next ``&name=`` (a password may hold a lone ``&``).
_PASSWORD_QUERY_RE = re.compile(r"(?i)([?&]password=)(.*?)(?=&[A-Za-z_][A-Za-z0-9_]*=|\s|$)")
# The password a keyword/value string means: quoted, or everything up to the next `` name=`` (unquoted spaces are
# a mistake libpq refuses, echoing the rest; the whole of it is still the secret).
_PASSWORD_KV_VALUE_RE = re.compile(r"(?i)(?:^|\s)password\s*=\s*('(?:[^'\\]|\\.)*'|.*?)(?=\s+[A-Za-z_]+\s*=|\s*$)")
_SQL_PASSWORD_RE = re.compile(r"(?i)(\bpassword\s+)'(?:[^']|'')*'")
# ``something@host`` in a message: libpq splits an unescaped ``@`` in a password at the first one, and then names
# the rest of the password as part of the host ("failed to resolve host 'PW3@127.0.0.1'").
_USERINFO_AT_RE = re.compile(r"[^\s'\"<>()\[\]{}@/]+@(?=[A-Za-z0-9\[])")
# Pieces of a password this long or longer are hidden wherever they appear. libpq and psycopg echo whatever piece
# of a mistyped URL they choke on ("invalid percent-encoded token: ...", a host, a port, a database name), cut at
# characters that depend on the parser; shorter pieces would hide ordinary words of the message.
MIN_HIDDEN_FRAGMENT = 4


def _split_userinfo(url: str) -> tuple[str, str, str | None, str] | None:
    """``(scheme://, user, password or None, rest after '@')``; None if the URL has no userinfo.

    The userinfo ends at the LAST ``@`` of the URL and the password starts after the first ``:`` in it: a password
    typed without percent-encoding may hold any character (``@ : / ? # %`` and spaces included). A query that
    holds an ``@`` too makes more than the password hidden, never less.
    """
    match = _SCHEME_RE.match(url)
    if not match:
        return None
    rest = url[match.end():]
    at = rest.rfind("@")
    if at < 0:
        return None
    user, sep, password = rest[:at].partition(":")
    return url[: match.end()], user, (password if sep else None), rest[at + 1:]


def _unquote_kv(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] == "'":
        return re.sub(r"\\(.)", r"\1", value[1:-1])
    return value


def passwords_in(url: str | None) -> list[str]:
    """Every password ``url`` carries, as typed and percent-decoded: in its userinfo, a ``password=`` query
    parameter, or a keyword/value ``password=`` (quoted or not). Read as the user meant it, parsable or not."""
    if not url:
        return []
    found: list[str] = []
    parts = _split_userinfo(url)
    if parts is not None:
        if parts[2]:
            found.append(parts[2])
        found += [m.group(2) for m in _PASSWORD_QUERY_RE.finditer(parts[3])]
    elif _SCHEME_RE.match(url):
        found += [m.group(2) for m in _PASSWORD_QUERY_RE.finditer(url)]
    else:
        found += [_unquote_kv(m.group(1)) for m in _PASSWORD_KV_VALUE_RE.finditer(url)]
    return [s for p in found if p for s in dict.fromkeys((p, unquote(p)))]


def hide_fragments(text: str, secrets: list[str]) -> str:
    """``text`` with every run of :data:`MIN_HIDDEN_FRAGMENT` or more characters that occurs in one of ``secrets``
    replaced by ``***`` (longest run first, so a password echoed in pieces loses every piece)."""
    secrets = [s for s in secrets if len(s) >= MIN_HIDDEN_FRAGMENT]
    if not secrets:
        return text
    out: list[str] = []
    i = 0
    while i < len(text):
        size = MIN_HIDDEN_FRAGMENT
        if i + size <= len(text) and any(text[i:i + size] in s for s in secrets):
            while i + size < len(text) and any(text[i:i + size + 1] in s for s in secrets):
                size += 1
            if not out or out[-1] != "***":
                out.append("***")
            i += size
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def redact_url(url: str) -> str:
    """The URL (or keyword/value string) with any password replaced by ``***``: ``postgresql://user:***@host/db``.

    Works on whatever was typed: an unescaped ``@ : / ? # % & = +`` or space in the password is still hidden
    (see :func:`_split_userinfo`), and so is ``password=`` in a query or a keyword/value string.
    """
    secrets = passwords_in(url)
    parts = _split_userinfo(url)
    if parts is not None:
        scheme, user, password, rest = parts
        url = f"{scheme}{user}:***@{rest}" if password else f"{scheme}{user}@{rest}"
    url = _PASSWORD_QUERY_RE.sub(lambda m: m.group(1) + "***", url)
    url = _PASSWORD_KV_RE.sub(lambda m: m.group(1) + "***", url)
    return hide_fragments(url, secrets)


def redact_text(text: str, url: str | None = None) -> str:
    """``text`` (an error message, a log line) safe to show: every URL-like string redacted, parsable or not.

    URLs lose their password, ``password=`` settings and SQL ``PASSWORD '...'`` their value, ``userinfo@host`` its
    userinfo, and every piece of the password of ``url`` (:data:`MIN_HIDDEN_FRAGMENT` characters or more), as a
    server or libpq may echo one, is hidden.
    """
    text = _URL_IN_TEXT_RE.sub(lambda m: redact_url(m.group(0)), text)
    text = _PASSWORD_KV_RE.sub(lambda m: m.group(1) + "***", text)
    text = _SQL_PASSWORD_RE.sub(r"\1'***'", text)
    text = _USERINFO_AT_RE.sub(lambda m: m.group(0) if "***" in m.group(0) else "***@", text)
    return hide_fragments(text, passwords_in(url))


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
