"""CLI input validation with exact messages (issue 12, item 8): sizes, budgets, symlink loops, empty folders and
look-alike collection names. Usage errors exit 2 before any database or model work."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from core.cli import main
from core.ingest import IngestError, SourceFile, discover, read_source

from .conftest import ROOT


def _usage_error(capsys, argv: list[str]) -> str:
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    return capsys.readouterr().err.strip().splitlines()[-1]


@pytest.mark.parametrize("value", ["0", "-1"])
def test_max_bytes_must_be_positive(capsys, tmp_path, value):
    line = _usage_error(capsys, ["ingest", str(tmp_path), f"--max-bytes={value}"])
    assert line == ("python -m core ingest: error: argument --max-bytes: must be a whole number of bytes above 0, "
                    f"got {value}")


def test_negative_children_budget_is_refused(capsys):
    line = _usage_error(capsys, ["ask", "How heavy?", "--children-budget", "-5"])
    assert line == ("python -m core ask: error: argument --children-budget: must be a whole number of tokens, 0 or "
                    "more, got -5")


def test_k_must_be_positive(capsys):
    line = _usage_error(capsys, ["ask", "How heavy?", "--k", "0"])
    assert line == "python -m core ask: error: argument --k: must be a whole number above 0, got 0"


def test_one_byte_over_the_limit_names_exact_sizes(tmp_path):
    limit = 5 * 1024 * 1024
    path = tmp_path / "big.md"
    path.write_bytes(b"a" * (limit + 1))
    with pytest.raises(IngestError) as info:
        read_source(SourceFile(name="big.md", path=path), limit)
    assert str(info.value) == ("file is 5,242,881 bytes, over the limit of 5,242,880 bytes (5.0 MiB) by 1 byte "
                               "(raise HKE_MAX_FILE_BYTES or --max-bytes to allow it)")
    with pytest.raises(IngestError) as info:
        read_source(SourceFile(name="up.md", data=b"abc"), 2)
    assert str(info.value).startswith("file is 3 bytes, over the limit of 2 bytes by 1 byte")


def test_a_symlink_loop_says_so(tmp_path):
    loop = tmp_path / "loop.md"
    loop.symlink_to(loop)
    found, problems = discover([loop])
    assert found == [] and [(p.path, p.reason) for p in problems] == [
        (str(loop), "symbolic link loop: following the link leads back to it")]
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "ok.md").write_text("# OK\n", encoding="utf-8")
    (folder / "a.md").symlink_to(folder / "b.md")
    (folder / "b.md").symlink_to(folder / "a.md")
    found, problems = discover([folder])
    assert [f.name for f in found] == ["ok.md"]
    assert sorted((os.path.basename(p.path), p.reason) for p in problems) == [
        ("a.md", "symbolic link loop: following the link leads back to it"),
        ("b.md", "symbolic link loop: following the link leads back to it")]


def test_a_broken_symlink_is_not_a_missing_file(tmp_path):
    link = tmp_path / "gone.md"
    link.symlink_to(tmp_path / "nowhere.md")
    _found, problems = discover([link])
    assert problems[0].reason == f"broken symbolic link: its target {tmp_path / 'nowhere.md'} does not exist"


def test_an_empty_folder_says_so(tmp_path):
    (tmp_path / "notes.txt").write_text("not markdown", encoding="utf-8")
    found, problems = discover([tmp_path])
    assert found == [] and [(p.path, p.status, p.reason) for p in problems] == [
        (str(tmp_path), "error", "no .md, .markdown, .html, .htm or .docx files in this folder (hidden files and "
                                 "folders are skipped)")]


def test_full_width_collection_names_are_refused_before_any_work():
    from core.store import StoreError, validate_collection_name

    with pytest.raises(StoreError) as info:
        validate_collection_name("ｄｅｆａｕｌｔ")
    assert str(info.value) == ("collection name 'ｄｅｆａｕｌｔ' uses full-width or other look-alike characters: "
                               "write it as 'default'")
    assert validate_collection_name("제품_문서") == "제품_문서"  # Korean names stay allowed


@pytest.mark.parametrize("name", ["sаmples", "dеfault", "ѕamples", "tv-ѕamsung", "naïveΑlpha"])
def test_names_mixing_scripts_with_look_alike_letters_are_refused(name):
    from core.store import StoreError, validate_collection_name

    with pytest.raises(StoreError, match="mixes scripts with look-alike letters .* write it in one script"):
        validate_collection_name(name)


def test_the_look_alike_refusal_names_the_odd_letter_first():
    from core.store import StoreError, validate_collection_name

    with pytest.raises(StoreError) as info:
        validate_collection_name("sаmples")
    assert str(info.value).startswith("collection name 'sаmples' mixes scripts with look-alike letters "
                                      "(а (CYRILLIC) looks like a (LATIN SMALL LETTER A);")


@pytest.mark.parametrize("name", ["samples", "제품_문서", "삼성tv2", "日本語docs", "пример", "тест_2", "naïve-ünïcode"])
def test_names_in_one_script_or_with_unlike_letters_stay_allowed(name):
    from core.store import validate_collection_name

    assert validate_collection_name(name) == name


def test_names_in_the_reserved_form_of_a_collections_own_index_are_refused():
    from core.store import StoreError, validate_collection_name

    with pytest.raises(StoreError, match="reserved for a collection's own indexes"):
        validate_collection_name("samples:contextual")


def test_the_cli_refuses_a_full_width_collection_name(tmp_path):
    (tmp_path / "a.md").write_text("# A\n", encoding="utf-8")
    env = {**os.environ, "HKE_DATA_DIR": str(tmp_path / "data"), "PYTHONPATH": str(ROOT)}
    argv = [sys.executable, "-m", "core", "ingest", str(tmp_path / "a.md"), "--collection", "ｄｅｆａｕｌｔ"]
    done = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 2
    assert done.stderr.strip() == ("error: collection name 'ｄｅｆａｕｌｔ' uses full-width or other look-alike "
                                   "characters: write it as 'default'")
    assert not (tmp_path / "data").exists(), "refused before the database was started"


@pytest.mark.parametrize("value", ["inf", "-inf", "nan", "-0.5", "abc"])
def test_a_price_must_be_a_finite_amount(capsys, value):
    line = _usage_error(capsys, ["index", "--estimate", f"--price-in={value}"])
    assert line == ("python -m core index: error: argument --price-in: the price must be a finite number of US$ per "
                    f"1M tokens, 0 or more; got {value}")


def test_a_price_from_the_environment_is_checked_too(monkeypatch):
    from core.graph.indexing.estimate import default_prices

    monkeypatch.setenv("HKE_PRICE_OUT_PER_M", "inf")
    with pytest.raises(ValueError, match="^HKE_PRICE_OUT_PER_M must be a finite number of US\\$ per 1M tokens"):
        default_prices()


def test_an_empty_export_folder_is_refused_before_any_work(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("HKE_DATA_DIR", str(tmp_path / "never"))
    monkeypatch.delenv("DATABASE_URL", raising=False)
    assert main(["export", "--out", ""]) == 2
    assert capsys.readouterr().err.startswith("error: --out is empty: name the folder to export to")
    assert not (tmp_path / "never").exists(), "refused before the database is started"


# Modules that take seconds to import (the Korean analyser alone about 5 s on a busy machine): a usage error or
# --help is answered before any of them is loaded.
HEAVY_MODULES = ("kiwipiepy", "numpy", "psycopg", "langchain_core", "pint", "rapidfuzz", "markdown_it", "networkx")
FAST_USAGE_ERRORS = [
    ["eval", "data/questions.json", "--modes", "plain,magic"],
    ["eval", "data/questions.json", "--k", "0"],
    ["eval", "no-such-set.json"],
    ["eval", "data/questions.json", "--judge"],
    ["generate-questions", "no-such-folder"],
    ["ask", "   "],
    ["ask", "How heavy?", "--search", "magic"],
    ["global", ""],
    ["export", "--out", ""],
    ["ingest", "data/samples", "--collection", "ｄｅｆａｕｌｔ"],
    ["ingest", "data/samples", "--max-bytes", "0"],
    ["nope"],
    ["--help"],
    ["eval", "--help"],
]


def test_usage_errors_answer_before_the_heavy_modules_load(tmp_path):
    """One fresh interpreter runs every usage error above through the CLI's entry point, then lists what it
    imported: none of the heavy modules (no database URL or key configured, as on a fresh machine)."""
    script = (
        "import contextlib, io, json, sys\n"
        "from core.cli import main\n"
        "codes = []\n"
        f"for argv in {FAST_USAGE_ERRORS!r}:\n"
        "    with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):\n"
        "        try:\n"
        "            codes.append(main(argv))\n"
        "        except SystemExit as exc:\n"
        "            codes.append(exc.code)\n"
        f"print(json.dumps([codes, [m for m in {HEAVY_MODULES!r} if m in sys.modules]]))\n"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "OPENAI_API_KEY")}
    env["HKE_DATA_DIR"] = str(tmp_path)  # nothing may be started there either
    proc = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    import json

    codes, loaded = json.loads(proc.stdout.strip().splitlines()[-1])
    assert codes == [2] * (len(FAST_USAGE_ERRORS) - 2) + [0, 0]
    assert loaded == [], f"a usage error loaded {loaded}"
    assert not (tmp_path / "pgdata").exists(), "a usage error started the database"
