"""Questions that need two facts, eighth round (issue 31): a later part naming only the alternative to the first
part's last qualifier, "its" the option the first part found, an FAQ question heading a part opens as, and a part
asking a default hopping to the definition of the option its hits name, or that it names whole.

Real embedded Postgres, the bundled offline embedder, small synthetic corpora.
"""

from __future__ import annotations

import pytest

from core.retrieval.parts import question_parts, referred_thing, with_referred_thing
from core.retrieval.shape import bridge_cue
from tests.helpers_context import ask, cited

from .test_hlg_multihop3 import _ingest
from .test_hlg_multihop7 import TARGETS


@pytest.mark.parametrize(("question", "parts"), [
    # the alternative of several words to the first part's last qualifier is asked in its frame
    ("minimum macOS target for CPython 3.12 on Intel vs Apple Silicon?",
     ("minimum macOS target for CPython 3.12 on Intel?", "minimum macOS target for CPython 3.12 on Apple Silicon?")),
    # a piece opening with a determiner names a thing of its own, not the alternative
    ("how many log files does npm keep by default and the log location?",
     ("how many log files does npm keep by default?", "the log location?")),
])
def test_a_later_part_naming_the_alternative_to_a_qualifier_is_asked_in_the_first_parts_frame(question, parts):
    assert question_parts(question) == parts


def test_the_alternative_to_a_qualifier_finds_its_own_row(store):
    _ingest(store, {"platforms.md": TARGETS})
    _found, answer = ask(store, "minimum macOS target for CPython 3.12 on Intel vs Apple Silicon?")
    assert "10.13" in answer and "Minimum target: 11" in answer, answer


BUILD = ("# Options\n\n## Build customization\n\n### build-frontend\n\n"
         "Choose which build frontend to use.\n\n- Default: `build`\n\n"
         "### container-engine\n\nChoose which container engine to use.\n\n- Default: `docker`\n\n"
         "### manylinux-image\n\nThe image of the manylinux builds.\n\n- Default: `manylinux_2_28`\n")


def test_its_in_a_later_part_is_the_option_the_first_part_found(store):
    assert referred_thing("what is its default?", "Which option sets the build frontend",
                          ["Options", "build-frontend"]) == "build-frontend"
    assert referred_thing("what is its default?", "what is the build frontend", ["build-frontend"]) is None
    assert with_referred_thing("what is its default?", "build-frontend") == "what is build-frontend default?"
    _ingest(store, {"options.md": BUILD})
    _found, answer = ask(store, "Which option sets the build frontend, and what is its default?")
    assert "build" in answer and "manylinux_2_28" not in answer and "docker" not in answer, answer
    assert any(line.startswith("From Options › Build customization › build-frontend") for line in
               answer.splitlines()), answer


FAQ = ("# Frequently Asked Questions\n\n## Why spaces? I prefer tabs\n\n"
       "Black provides no options to configure the indentation style.\n\n"
       "## Why does Black not detect syntax errors in my code?\n\n"
       "Black is a formatter, not a linter; it parses only what it formats.\n\n"
       "## Why does Flake8 report warnings?\n\nSome of Flake8's rules conflict with Black's style.\n\n"
       "# Issue triage\n\n## Common reports\n\n### \"Black formatted code is violating Flake8's E203!\"\n\n"
       "Label it as a duplicate of the E203 issue.\n")


def test_a_part_opening_as_an_faq_question_heading_is_scoped_to_it(store):
    _ingest(store, {"faq.md": FAQ})
    found, answer = ask(store, "can black indent with tabs, and why does flake8 complain about black's code?")
    assert any(n == "searched under: Frequently Asked Questions › Why does Flake8 report warnings?"
               for n in found.notes), found.notes
    assert "conflict with Black's style" in answer and "no options" in answer, answer


LOGGING = ("# Logging\n\n## Setting Log File Location\n\n"
           "By default npm keeps its log files in a directory named _logs inside the cache. "
           "This can be changed with the logs-dir config option.\n\n"
           "To keep the log files of one run apart, run npm install --logs-dir=. and diff the log files.\n\n"
           "Each log file is named by the time npm started the run.\n\n"
           "Old log files are removed when npm starts a new run.\n\n"
           "Run npm install --logs-max=0 to write no log files at all.\n\n"
           "## Logs and Sensitive Information\n\n"
           "Use --loglevel=silent and --logs-max=0 to ensure no log files are written.\n")
CONFIG = ("# Config Settings\n\n#### `logs-dir`\n\n* Default: A directory named _logs inside the cache\n"
          "* Type: Path\n\nThe location of npm's log directory.\n\n"
          "#### `logs-max`\n\n* Default: 10\n* Type: Number\n\nThe maximum number of log files to store.\n\n"
          "#### `registry`\n\n* Default: \"https://registry.npmjs.org/\"\n* Type: URL\n\n"
          "The base URL of the npm registry.\n\n"
          "#### `init-author-url`\n\n* Default: \"\"\n* Type: \"\" or URL\n\n"
          "The value npm init should use by default for the package author's homepage.\n\n"
          "#### `tag`\n\n* Default: \"latest\"\n* Type: String\n\n"
          "If you ask npm to install a package and don't tell it a specific version, then it will install the "
          "specified tag. It is the tag added by the npm dist-tag add command.\n")
DIST_TAG = ("# npm-dist-tag\n\n## Synopsis\n\nnpm dist-tag add <package-spec> [<tag>]\n\n"
            "## Description\n\nAdd, remove, and enumerate distribution tags on a package.\n\n"
            "## See Also\n\n* npm dist-tag\n* npm publish\n")


def test_a_part_asking_a_default_hops_to_the_option_its_prose_names(store):
    _ingest(store, {"logging.md": LOGGING, "config.md": CONFIG})
    found, _answer = ask(store, "how many log files does npm keep by default and where does it write them?")
    assert any(n.startswith("the hits name an option defined elsewhere") and "logs-max" in n
               for n in found.notes), found.notes
    assert any(e.text == "Default: 10" for e in found.hierarchical.elements), "logs-max's default in the context"


def test_a_part_asking_a_default_hops_to_the_option_it_names_whole(store):
    _ingest(store, {"config.md": CONFIG, "dist-tag.md": DIST_TAG})
    found, answer = ask(store, "npm default registry url and default dist tag?")
    texts = {e.text for e in found.hierarchical.elements}
    assert 'Default: "latest"' in texts and 'Default: "https://registry.npmjs.org/"' in texts, texts
    assert "latest" in answer and "registry.npmjs.org" in answer, answer
    assert len(cited(answer)) == 2


@pytest.mark.parametrize(("question", "cue"), [
    # the argument before the comma is the first clause's: the second names no thing by a clause of its own
    ("취소 요청은 은행에 언제 전달되고, 재시도 되는 응답코드는 몇 개야?", ""),
    ("은행에 언제 전달되는 응답코드는 몇 개야?", "relative clause"),
    # a connective ending alone joins two verbs of one clause
    ("USB-C 케이블 하나로 노트북을 연결하고 충전할 수 있는 모델 중 충전 전력이 가장 높은 모델은?", "relative clause"),
])
def test_a_korean_relative_clause_takes_its_argument_from_its_own_clause(question, cue):
    assert bridge_cue(question) == cue
