"""Questions that need two facts, fourth round (issue 31): the words saying how a question asks ("how long", "by
default") never pick the heading a part is searched under.

Real embedded Postgres, the bundled offline embedder, a small synthetic corpus shaped like npm's config reference.
"""

from __future__ import annotations

import pytest

from core.answering import ExtractiveAnswerer
from core.ingest import SourceFile, ingest
from core.retrieval import RetrievalRequest, retrieve
from core.retrieval.headings import HeadingRef, rank_headings
from core.retrieval.shape import asking_words

CONFIG = ("# Config Settings\n"
          "## long\n\n* Default: false\n* Type: Boolean\n\n"
          "Show extended information in ls, search, and help-search.\n\n"
          "## fetch-retry-maxtimeout\n\n* Default: 60000 (1 minute)\n* Type: Number\n\n"
          "The \"maxTimeout\" config for the retry module to use when fetching packages.\n\n"
          "## fetch-retry-mintimeout\n\n* Default: 10000 (10 seconds)\n* Type: Number\n\n"
          "The \"minTimeout\" config for the retry module to use when fetching packages.\n\n"
          "## script-shell\n\n* Default: '/bin/sh' on POSIX systems, 'cmd.exe' on Windows\n* Type: null or String\n\n"
          "The shell to use for scripts run with the npm exec, npm run and npm init commands.\n\n"
          "## shell\n\n* Default: SHELL environment variable, or \"bash\" on Posix, or \"cmd.exe\" on Windows\n"
          "* Type: String\n\nThe shell to run for the npm explore command.\n\n"
          "## sbom-type\n\n* Default: \"library\"\n* Type: \"library\", \"application\", or \"framework\"\n\n"
          "The type of package described by the generated SBOM.\n\n"
          + "".join(f"## setting-{n}\n\n* Default: {n}\n* Type: Number\n\nThe number of widgets {n}.\n\n"
                    for n in range(20)))
PACKAGE = ("# package.json\n## DEFAULT VALUES\n\nnpm will default some values based on package contents.\n\n"
           "If there is a server.js file in the root of your package, then npm will default the start command to "
           "node server.js.\n\n## Default Configs\n\nRun npm config ls -l to see the configuration parameters that "
           "are internal to npm, and are defaulted if nothing else is specified.\n")


@pytest.mark.parametrize(("question", "asking"), [
    ("npm: how long is the max retry timeout?", {"long"}),
    ("how often does the cache refresh?", {"often"}),
    ("how big a buffer does the reader use?", {"big"}),
    ("which shell runs scripts on posix by default?", {"default"}),
    ("타임아웃의 기본값은?", {"기본값"}),
    # a word after "how" that no auxiliary follows is what the question is about
    ("how caching works in npm", set()),
    ("what is the max retry timeout?", set()),
])
def test_the_words_saying_how_a_question_asks(question, asking):
    assert asking_words(question) == asking


def _headings(*paths: tuple[str, ...]) -> list[HeadingRef]:
    return [HeadingRef(f"h{i}", path[-1], path[:-1], document, f"{document}.md", i)
            for i, path in enumerate(paths) for document in ["config" if path[0] == "Config Settings" else "package"]]


HEADINGS = _headings(("Config Settings",), ("Config Settings", "long"), ("Config Settings", "fetch-retry-maxtimeout"),
                     ("Config Settings", "script-shell"), ("Config Settings", "shell"), ("package.json",),
                     ("package.json", "DEFAULT VALUES"), ("package.json", "Default Configs"),
                     *(("Config Settings", f"setting-{n}") for n in range(20)))


@pytest.mark.parametrize(("question", "headings"), [
    ("how long is the max retry timeout?", ["fetch-retry-maxtimeout"]),
    # "scripts" names `script-shell` in the option name's number too (multihop7): it alone, not tied with `shell`
    ("which shell runs scripts by default?", ["script-shell"]),
    # a heading the question spells whole is still its place
    ("what do the Default Configs show?", ["Default Configs"]),
])
def test_a_heading_holding_only_the_words_of_asking_is_not_the_place_named(question, headings):
    ranked = rank_headings(question, HEADINGS)
    assert ranked and [h.text for h in ranked[0].headings] == headings, ranked


def test_each_part_is_searched_under_its_setting_not_under_a_heading_named_by_how_it_asks(store):
    report = ingest(store, [SourceFile("config.md", CONFIG.encode()), SourceFile("package.md", PACKAGE.encode())])
    assert not report.errors, report.errors
    question = "what's npm's default sbom-type, and which shell runs scripts on posix by default?"
    found = retrieve(store, RetrievalRequest(question, k=4))
    assert not any("DEFAULT VALUES" in n or "Default Configs" in n for n in found.notes), found.notes
    text = "\n".join(e.text for e in found.hierarchical.elements)
    assert "'/bin/sh'" in text and '"library"' in text, text
    answer = ExtractiveAnswerer().complete(question, found.hierarchical)
    assert "/bin/sh" in answer, answer


OPTIONS = ("# Options\n## Build customization\n"
           + "".join(f"### `tool-{n}`\n\n> Control tool {n}\n\nDefault: `{n}`\n\nThe tool {n} runs after the build.\n\n"
                     for n in range(8))
           + "### `dependency-versions`\n\n> Control the versions of the tools cibuildwheel uses\n\n"
           "Options: `pinned` `latest` `packages: SPECIFIER...`\n\nDefault: `pinned`\n\n"
           "If `dependency-versions` is `pinned`, cibuildwheel uses versions of tools that were pinned with that "
           "release of cibuildwheel.\n\nIf `dependency-versions` is set to `latest`, cibuildwheel uses the latest "
           "dependency versions available on PyPI.\n\nTo control the dependency-versions yourself, supply a "
           "constraints file.\n\n#### Examples\n\n```toml\n[tool.cibuildwheel]\n# Use tools versions that are "
           "bundled with cibuildwheel (this is the default)\ndependency-versions = \"pinned\"\n```\n\n"
           "```yaml\n# Use tools versions that are bundled with cibuildwheel (this is the default)\n"
           "CIBW_DEPENDENCY_VERSIONS: pinned\n```\n\n## Auditing\n### `audit-requires`\n\nDefault: `abi3audit`\n\n"
           "The packages the audit command needs.\n")


def test_a_default_asked_of_an_option_named_in_kebab_case_is_read_from_its_default_line(store):
    report = ingest(store, [SourceFile("options.md", OPTIONS.encode())])
    assert not report.errors, report.errors
    question = "cibuildwheel default dependency-versions and default audit-requires?"
    found = retrieve(store, RetrievalRequest(question, k=4))
    texts = [h.element.text for h in found.hits]
    assert "Default: pinned" in texts and "Default: abi3audit" in texts, texts
