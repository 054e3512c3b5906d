"""bench/fetch_corpora.py's Debian path on a .deb built here: markdown (gzipped or not) under one folder only; its
npm path on a tarball built here: a package's docs folder, or its README alone."""

from __future__ import annotations

import gzip
import importlib.util
import io
import shutil
import subprocess
import tarfile

import pytest

from .conftest import ROOT

needs_dpkg = pytest.mark.skipif(shutil.which("dpkg-deb") is None, reason="dpkg-deb not installed")


def _fetch_corpora():
    spec = importlib.util.spec_from_file_location("fetch_corpora", ROOT / "bench" / "fetch_corpora.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _deb(tmp_path):
    root = tmp_path / "pkg"
    docs = root / "usr" / "share" / "doc" / "node-demo"
    (docs / "api").mkdir(parents=True)
    (docs / "api" / "Client.md").write_text("# Client\n\n* **timeout** - Default: `10e3`\n", encoding="utf-8")
    (docs / "api" / "Pool.md.gz").write_bytes(gzip.compress(b"# Pool\n\n* **timeout** - Default: `30e3`\n"))
    (docs / "changelog.Debian.gz").write_bytes(gzip.compress(b"not markdown"))
    (root / "usr" / "lib").mkdir(parents=True)
    (root / "usr" / "lib" / "other.md").write_text("# outside the doc folder\n", encoding="utf-8")
    (root / "DEBIAN").mkdir()
    (root / "DEBIAN" / "control").write_text(
        "Package: node-demo\nVersion: 1.0\nArchitecture: all\nMaintainer: t <t@example.org>\nDescription: demo\n",
        encoding="utf-8",
    )
    deb = tmp_path / "node-demo_1.0_all.deb"
    subprocess.run(["dpkg-deb", "--build", "--root-owner-group", str(root), str(deb)], check=True,
                   capture_output=True)
    return deb


@needs_dpkg
def test_extract_deb_docs_keeps_markdown_under_the_folder(tmp_path):
    fetch = _fetch_corpora()
    out = tmp_path / "out"
    out.mkdir()
    written = fetch.extract_deb_docs(_deb(tmp_path), "usr/share/doc/node-demo", out)
    assert sorted(p.relative_to(out).as_posix() for p in written) == ["api/Client.md", "api/Pool.md"]
    assert "`30e3`" in (out / "api" / "Pool.md").read_text(encoding="utf-8")  # decompressed


@needs_dpkg
def test_extract_deb_docs_refuses_a_package_without_markdown(tmp_path):
    fetch = _fetch_corpora()
    with pytest.raises(fetch.FetchError, match="no markdown"):
        fetch.extract_deb_docs(_deb(tmp_path), "usr/share/doc/absent", tmp_path)
    broken = tmp_path / "broken.deb"
    broken.write_bytes(b"not a deb")
    with pytest.raises(fetch.FetchError, match="cannot unpack"):
        fetch.extract_deb_docs(broken, "usr/share/doc/node-demo", tmp_path)


def _npm_tarball(tmp_path, name: str, files: dict[str, bytes]):
    path = tmp_path / name
    with tarfile.open(path, "w:gz") as tf:
        for member, data in files.items():
            info = tarfile.TarInfo(member)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    return path


def test_extract_npm_docs_keeps_the_docs_folder_or_the_readme(tmp_path):
    fetch = _fetch_corpora()
    tarball = _npm_tarball(tmp_path, "body-parser-2.4.0.tgz", {
        "package/README.md": b"# body-parser\n", "package/docs/api/json.md": b"# json\n",
        "package/docs/../../escape.md": b"# out\n", "package/lib/notes.md": b"# lib\n",
        "package/docs/logo.png": b"png",
    })
    docs = tmp_path / "docs"
    docs.mkdir()
    written = fetch.extract_npm_docs(tarball, "docs", docs)
    assert [p.relative_to(docs).as_posix() for p in written] == ["api/json.md"]
    readme = tmp_path / "readme"
    readme.mkdir()
    written = fetch.extract_npm_docs(tarball, None, readme)
    assert [p.name for p in written] == ["body-parser.md"]  # the package's name, its version dropped
    assert (readme / "body-parser.md").read_text(encoding="utf-8") == "# body-parser\n"


def test_extract_npm_docs_takes_the_root_files_it_names_and_no_other(tmp_path):
    fetch = _fetch_corpora()
    tarball = _npm_tarball(tmp_path, "dotenv-16.4.7.tgz", {
        "package/README.md": b"# dotenv\n", "package/CHANGELOG.md": b"# Changelog\n",
        "package/README-es.md": b"# dotenv (es)\n", "package/docs/CHANGELOG.md": b"# nested\n",
    })
    written = fetch.extract_npm_docs(tarball, ("README.md", "CHANGELOG.md"), tmp_path / "out")
    assert sorted(p.relative_to(tmp_path / "out").as_posix() for p in written) == ["CHANGELOG.md", "README.md"]
    assert (tmp_path / "out" / "CHANGELOG.md").read_text(encoding="utf-8") == "# Changelog\n"  # the root one
    with pytest.raises(fetch.FetchError, match="no NOTES.md"):
        fetch.extract_npm_docs(tarball, ("NOTES.md",), tmp_path / "none")


def test_extract_npm_docs_refuses_a_package_without_them(tmp_path):
    fetch = _fetch_corpora()
    tarball = _npm_tarball(tmp_path, "empty-1.0.0.tgz", {"package/index.js": b"x"})
    with pytest.raises(fetch.FetchError, match="no docs"):
        fetch.extract_npm_docs(tarball, "docs", tmp_path)
    with pytest.raises(fetch.FetchError, match="no README"):
        fetch.extract_npm_docs(tarball, None, tmp_path)
    broken = tmp_path / "broken-1.0.0.tgz"
    broken.write_bytes(b"not a tarball")
    with pytest.raises(fetch.FetchError, match="cannot unpack"):
        fetch.extract_npm_docs(broken, None, tmp_path)


def _sdist(tmp_path, version: str, changelog_top: str, mtime: int):
    """A pymdown-extensions-like sdist: PKG-INFO stamped ``mtime``, the changelog under docs/src/markdown/about."""
    path = tmp_path / f"pymdown_extensions-{version}.tar.gz"
    top = f"pymdown_extensions-{version}"
    with tarfile.open(path, "w:gz") as tf:
        for name, data in ((f"{top}/PKG-INFO", b"Name: pymdown-extensions\n"),
                           (f"{top}/docs/src/markdown/about/changelog.md",
                            f"# Changelog\n\n## {changelog_top}\n\n- NEW: something.\n".encode())):
            info = tarfile.TarInfo(name)
            info.size, info.mtime = len(data), mtime
            tf.addfile(info, io.BytesIO(data))
    return path


def test_a_snapshot_release_is_dated_by_its_sdist_and_checked_against_its_changelog(tmp_path, monkeypatch):
    fc = _fetch_corpora()
    sdists = {"7.0": _sdist(tmp_path, "7.0", "7.0", 1586217600), "8.0": _sdist(tmp_path, "8.0", "7.0", 1597104000)}
    monkeypatch.setattr(fc, "pip_download", lambda reqs, _dir: {"pymdown-extensions": sdists[reqs[0].split("==")[1]]})
    assert fc.fetch_pymdown_releases(tmp_path / "out", ("7.0",)) == {"7.0": "2020-04-07"}
    with pytest.raises(fc.FetchError, match="newest entry is 7.0"):  # 8.0's changelog does not list 8.0
        fc.fetch_pymdown_releases(tmp_path / "out", ("7.0", "8.0"))
    sdists["8.0"] = _sdist(tmp_path, "8.0", "8.0.0", 1500000000)
    with pytest.raises(fc.FetchError, match="not after the release before"):
        fc.fetch_pymdown_releases(tmp_path / "out", ("7.0", "8.0"))
