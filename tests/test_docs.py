"""The README a newcomer reads and the manual in docs/: short, every link resolves, CI runs what README says."""

from __future__ import annotations

import re
import shlex

from .conftest import ROOT

README = ROOT / "README.md"
DOCS = ROOT / "docs"
LINK = re.compile(r"\]\(([^)\s]+)\)")


def _block_after(text: str, heading: str) -> str:
    at = text.index(heading)
    block = re.search(r"```bash\n(.*?)```", text[at:], re.S)
    assert block, f"no command after {heading!r}"
    return block.group(1).strip()


def test_readme_is_short_and_links_the_manual():
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 300
    assert "(docs/README.md)" in text
    for image in re.findall(r"!\[[^\]]*\]\(([^)]+)\)", text):
        path = ROOT / image
        assert path.suffix == ".png" and path.stat().st_size < 200_000, image


def test_every_relative_link_of_readme_and_docs_resolves():
    broken = []
    for page in [README, *sorted(DOCS.glob("*.md"))]:
        for target in LINK.findall(page.read_text(encoding="utf-8")):
            if re.match(r"[a-z]+:", target) or target.startswith("#"):
                continue
            path, _, anchor = target.partition("#")
            resolved = (page.parent / path).resolve()
            if not resolved.exists():
                broken.append(f"{page.relative_to(ROOT)} → {target}")
            elif anchor and resolved.suffix == ".md":
                slugs = {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-")
                         for h in re.findall(r"(?m)^#+ (.+)$", resolved.read_text(encoding="utf-8"))}
                if anchor not in slugs:
                    broken.append(f"{page.relative_to(ROOT)} → {target} (no such heading)")
    assert not broken, broken


def test_every_docs_page_is_in_the_index():
    index = (DOCS / "README.md").read_text(encoding="utf-8")
    missing = [p.name for p in DOCS.glob("*.md") if p.name != "README.md" and f"({p.name})" not in index]
    assert not missing, f"docs pages not listed in docs/README.md: {missing}"


def test_ci_runs_the_readme_test_command():
    """`.ci/run` runs README's test command: the requirements it installs and the pytest it starts."""
    readme = _block_after(README.read_text(encoding="utf-8"), "**Install and run the tests**")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    install = re.search(r"pip install ((?:--\S+ )*-r \S+)", readme).group(1)
    assert f"pip install -q --disable-pip-version-check {install}" in ci
    pytest_args = shlex.split(readme.split("&&")[-1])
    assert pytest_args[:3] == [".venv/bin/python", "-m", "pytest"]
    assert re.search(r"(?m)^\.venv/bin/python -m pytest -q " + re.escape(" ".join(pytest_args[3:])) + "$", ci)


def test_ci_installs_the_browser_and_the_korean_fonts_itself():
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "apt_packages+=(chromium)" in ci and "apt_packages+=(fonts-noto-cjk)" in ci
    assert 'apt-get install -y -qq \\\n      "${apt_packages[@]}"' in ci
