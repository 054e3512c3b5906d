"""A database password never reaches the screen, however it was typed: every URL-special character in every
position of the password, in a URL and in key=value form (quoted and not), through ``db url``, ``db status``,
``collections`` (its error path) and the "database unavailable" message. No server listens on port 1, so every
command takes its error path; nothing here needs a database."""

from __future__ import annotations

import functools

import pytest

import core.cli
from core.cli import main
from core.db.urls import redact_text, redact_url, unavailable_message

BASE = "Zq8Wv3Kj"
SPECIAL = "@:/?#%&=+ "


def _passwords() -> list[str]:
    return [BASE[:i] + c + BASE[i:] for c in SPECIAL for i in range(len(BASE) + 1)]


def _quoted(password: str) -> str:
    return "'" + password.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _forms(password: str) -> dict[str, str]:
    return {
        "url": f"postgresql://hke:{password}@127.0.0.1:1/hke",
        "key=value quoted": f"host=127.0.0.1 port=1 user=hke password={_quoted(password)} dbname=hke",
        "key=value as typed": f"host=127.0.0.1 port=1 user=hke password={password} dbname=hke",
    }


def _fragments(password: str) -> set[str]:
    n = len(password)
    return {password[i:j] for i in range(n) for j in range(i + 4, n + 1)}


def _leaks(output: str, password: str) -> list[str]:
    return sorted(f for f in _fragments(password) if f in output)


CASES = [(password, form, url) for password in _passwords() for form, url in _forms(password).items()]


def test_the_password_of_every_form_is_found_as_the_user_meant_it():
    from core.db.urls import passwords_in

    for password, form, url in CASES:
        # Unquoted, libpq skips the spaces around a value: a leading or trailing one is not part of it.
        meant = password.strip() if form == "key=value as typed" else password
        assert meant in passwords_in(url), (form, url)


def test_no_piece_of_the_password_is_ever_shown(monkeypatch, capsys, tmp_path):
    from psycopg_pool import PoolTimeout

    monkeypatch.setenv("HKE_DATA_DIR", str(tmp_path))
    # 1,080 commands: argparse's building of the whole parser (its gettext look-ups) is most of each one's time, and
    # the parser is the same for all of them; what each command does with the URL is what is tested.
    monkeypatch.setattr(core.cli, "build_parser", functools.cache(core.cli.build_parser))
    failures = []
    for password, form, url in CASES:
        monkeypatch.setenv("DATABASE_URL", url)
        outputs = {}
        for argv in (["db", "url"], ["db", "status"], ["db", "status", "--json"], ["collections"]):
            code = main(argv)
            out = capsys.readouterr()
            outputs[" ".join(argv)] = out.out + out.err
            if argv[0] == "collections":
                assert code == 2 and out.err.startswith("error: "), (form, url, out)
        outputs["unavailable"] = unavailable_message(PoolTimeout("couldn't get a connection after 30.00 sec"), url)
        for where, text in outputs.items():
            if leaks := _leaks(text, password):
                failures.append(f"{form} {url!r} -> {where}: {leaks} in {text!r}")
        if form == "url":
            assert outputs["db url"].strip() == "postgresql://hke:***@127.0.0.1:1/hke", (url, outputs["db url"])
        assert "127.0.0.1" in outputs["collections"] + outputs["db status"], outputs
    assert not failures, "\n".join(failures[:20]) + f"\n... {len(failures)} leaks"


@pytest.mark.parametrize("url, fragment", [
    ("postgresql://hke:Secret?x=1@127.0.0.1:5432/hke", "Secret"),
    ("postgresql://hke:Hx@7:k/9%Q#z?ab@127.0.0.1:1/hke", "9%Q#z"),
])
def test_the_urls_of_the_issue(monkeypatch, capsys, tmp_path, url, fragment):
    monkeypatch.setenv("HKE_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("DATABASE_URL", url)
    for argv in (["db", "url"], ["db", "status"], ["collections"]):
        main(argv)
        out = capsys.readouterr()
        assert fragment not in out.out + out.err, (argv, out)


def test_an_unreadable_url_is_a_clear_error_that_says_how_to_write_it(monkeypatch, capsys, tmp_path):
    monkeypatch.setenv("HKE_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("DATABASE_URL", "postgresql://hke:Hx@7:k/9%Q#z?ab@127.0.0.1:1/hke")
    assert main(["collections"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: DATABASE_URL cannot be read (invalid percent-encoded token")
    assert "@ as %40" in err and "9%Q#z" not in err


def test_redaction_keeps_what_is_not_secret():
    assert redact_url("postgresql://u@h/db?password=Zq8Wv3Kj&sslmode=require") == (
        "postgresql://u@h/db?password=***&sslmode=require")
    assert redact_url("postgresql://u:Zq8W&v3Kj@h/db?password=Zq8W&v3Kj&sslmode=require") == (
        "postgresql://u:***@h/db?password=***&sslmode=require")
    message = 'connection to server at "127.0.0.1", port 1 failed: Connection refused'
    assert redact_text(message, "postgresql://hke:Zq8Wv3Kj@127.0.0.1:1/hke") == message
    # A piece of the password echoed on its own, cut wherever the parser cut it, is hidden too.
    echoed = 'invalid integer value "v3Kj" for connection option "port"'
    assert redact_text(echoed, "postgresql://hke:Zq8W:v3Kj@127.0.0.1:1/hke") == (
        'invalid integer value "***" for connection option "port"')
