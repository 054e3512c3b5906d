"""The tune question sets of the weak shapes (data/tune/): well-formed, all tune, registered and pinned;
bench/write_tune_sets.py's fact readers; and, where a corpus is fetched, each gold answer read back from its
document under its gold path. No ingest."""

from __future__ import annotations

import json

import pytest

from core.evaluation import load_questions
from core.evaluation.metrics import contains_answer

from .conftest import ROOT
from .helpers_bench import (
    assert_gold_answers_in_their_documents,
    assert_registered_and_pinned,
    bench_module,
    parsed_elements,
)

TUNE = ROOT / "data" / "tune"
CORPORA = ("semantic-release", "concurrently-cli", "korean-pykrx", "markdownlint-rules", "korean-moment",
           "isort-config", "molecule-faq",
           "mkdocstrings-options", "griffe-guide", "plugin-options")


def _sets() -> dict[str, dict]:
    return {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in sorted(TUNE.glob("*.json"))}


def test_each_corpus_has_one_tune_set_that_loads_with_hand_and_multi_fact_questions():
    sets = _sets()
    assert set(sets) == set(CORPORA)
    ids = []
    for name, data in sets.items():
        questions = load_questions(TUNE / f"{name}.json").questions
        assert len(questions) >= 20, name
        assert {q.extra["split"] for q in questions} == {"tune"}, name
        assert {q.extra["corpus"] for q in questions} == {name}
        for q in questions:
            assert q.answers and q.document, q.id  # a document without headings (CONTRIBUTING.md) has no path
            assert not any(contains_answer(q.question, [a]) for a in q.answers), q.id  # asks, never tells
        assert sum("hand" in q["tags"] for q in data["questions"]) >= 10, name
        multi = [q for q in data["questions"] if "facts" in q]
        assert len(multi) >= 2 and all(len(q["facts"]) >= 2 for q in multi), name
        ids += [q.id for q in questions]
    assert len(ids) == len(set(ids))
    readme = (TUNE / "README.md").read_text(encoding="utf-8")
    assert all(c in readme for c in CORPORA) and "**tune**" in readme


def test_each_set_is_registered_and_its_corpus_pinned():
    assert_registered_and_pinned("tune", TUNE, CORPORA)



def test_br_field_facts_read_each_field_of_the_option_heading():
    sets = bench_module("write_tune_sets")
    text = ("# Configuration\n\n## Options\n\n### tagFormat\n\nType: `String`<br>\nDefault: `v${version}`<br>\n"
            "CLI arguments: `-t`, `--tag-format`\n\nThe Git tag format.\n")
    facts = sets.br_field_facts(parsed_elements(text, "configuration.md"), "configuration.md")
    assert {(f.subject, f.key, f.value) for f in facts} == {
        ("tagFormat", "type", "String"), ("tagFormat", "default", "v${version}"),
        ("tagFormat", "cli flag", "--tag-format")}


def test_heading_function_facts_take_the_one_function_a_task_section_opens_with():
    sets = bench_module("write_tune_sets")
    text = ("# PyKrx\n\n#### 2.1.1.2 일자별 OHLCV 조회\n\n`get_market_ohlcv` 함수는 OHLCV를 반환합니다.\n\n"
            "#### 2.1.1.3 두 함수\n\n`get_a_b` 와 `get_c_d` 함수.\n")
    facts = sets.heading_function_facts(parsed_elements(text, "README.md"), "README.md")
    assert [(f.subject, f.value) for f in facts] == [("일자별 OHLCV 조회", "get_market_ohlcv")]


def test_rule_page_facts_read_a_rules_alias_its_title_and_a_parameters_default():
    sets = bench_module("write_tune_sets")
    text = ("# `MD013` - Line length\n\nTags: `line_length`\n\nAliases: `line-length`\n\nParameters:\n\n"
            "- `line_length`: Number of characters (`integer`, default `80`)\n"
            "- `strict`: Strict length checking (`boolean`, default `false`)\n\nThis rule is triggered …\n")
    facts = sets.rule_page_facts(parsed_elements(text, "md013.md"), "md013.md")
    assert {(f.kind, f.subject, f.value) for f in facts} == {
        ("field", "MD013", "line-length"), ("rule", "line length", "MD013"), ("default", "MD013 line_length", "80")}
    assert sets.rule_page_facts(parsed_elements(text, "Rules.md"), "Rules.md") == []  # the copy of every page


def test_option_block_facts_read_the_default_config_name_and_long_flags_below_an_option_heading():
    sets = bench_module("write_tune_sets")
    text = ("# Configuration options\n\n## Skip Glob\n\nFiles to skip.\n\n**Type:** List of Strings  \n"
            "**Default:** `frozenset()`  \n**Config default:** `[]`  \n**Python & Config File Name:** skip_glob  \n"
            "**CLI Flags:**\n\n- --sg\n- -s\n- --skip-glob\n\n**Examples:**\n\n"
            "## Python Version\n\nThe target.\n\n**Type:** String  \n**Default:** `py3`  \n**Config default:** `3`  \n"
            "**Python & Config File Name:** py_version  \n**CLI Flags:**\n\n- --py\n\n"
            "## Atomic\n\nSafe.\n\n**Type:** Bool  \n**Default:** `False`  \n**Config default:** `false`  \n"
            "**Python & Config File Name:** atomic  \n**CLI Flags:**\n\n- --ac\n- --atomic\n")
    facts = sets.option_block_facts(parsed_elements(text, "options.md"), "options.md")
    assert {(f.subject, f.key, f.value, f.answers) for f in facts} == {
        ("skip glob", "default", "frozenset()", ("frozenset()",)),  # "[]" alone would match any empty list
        ("skip glob", "cli flag", "--sg", ("--sg", "--skip-glob")),  # the long flags, not "-s"
        ("python version", "default", "py3", ("py3",)),  # the config default ("3") would match any number
        ("python version", "config name", "py_version", ()),
        ("python version", "cli flag", "--py", ("--py",)),
        ("atomic", "cli flag", "--ac", ("--ac", "--atomic"))}  # a boolean's default and a spelled name: no fact
    assert all(f.path[-1] in ("Skip Glob", "Python Version", "Atomic") for f in facts)


def test_option_bullet_facts_read_the_default_and_a_plain_type_from_the_bullet_under_an_option_heading():
    sets = bench_module("write_tune_sets")
    text = ("# Members options\n\n## `members_order`\n\n"
            "- **:octicons-package-24: Type `str | list[str]` :material-equal: `\"alphabetical\"`"
            "{ title=\"default value\" }**\n\nThe members ordering.\n\n- `source`: as in the file.\n\n"
            "## `show_labels`\n\n- **:octicons-package-24: Type [`bool`][] :material-equal: `True`"
            "{ title=\"default value\" }**\n\nShow labels.\n\n"
            "## `filters`\n\n- **:octicons-package-24: Type <code><autoref identifier=\"list\" optional>list"
            "</autoref></code> :material-equal: `[\"!^_[^_]\"]`{ title=\"default value\" }**\n")
    facts = sets.option_bullet_facts(parsed_elements(text, "members.md"), "members.md")
    assert {(f.kind, f.subject, f.key, f.value) for f in facts} == {
        ("default", "members_order", "default", "alphabetical"),  # its quotes dropped
        ("field", "members_order", "type", "str | list[str]"),
        ("switch", "show_labels", "default", "True"),  # a boolean: asked as a switch; its type "bool" no fact
        ("default", "filters", "default", '["!^_[^_]"]')}  # a type of <autoref> tags: no fact
    assert {f.path[-1] for f in facts} == {"members_order", "show_labels", "filters"}


@pytest.mark.parametrize("corpus", CORPORA)
def test_gold_answers_are_in_their_documents_under_their_gold_paths(corpus):
    if not (ROOT / "bench" / "corpora" / corpus / ".fetched.json").exists():
        pytest.skip(f"bench/fetch_corpora.py --corpus {corpus} not run")
    assert_gold_answers_in_their_documents(corpus, _sets()[corpus]["questions"])


def test_faq_answer_facts_take_the_first_sentence_of_an_answer_that_is_not_a_lead_in():
    sets = bench_module("write_tune_sets")
    text = ("# FAQ\n\n## Why are playbooks used?\n\nSimplicity. Ansible already supports them.\n\n"
            "## Can I pick IDs?\n\nThis depends on the CI but the basic recipe is as follows.\n\n"
            "## Where is the config?\n\nBy default it is in the home. However, it can move.\n\n"
            "## How do I add one?\n\nThis can be achieved like this:\n\n```yaml\na: 1\n```\n\n"
            "## Plain heading\n\nNot a question.\n")
    facts = sets.faq_answer_facts(parsed_elements(text, "faq.md"), "faq.md")
    assert [(f.subject, f.value) for f in facts] == [("Why are playbooks used", "Simplicity")]
