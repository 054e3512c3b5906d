"""bench/write_api_sets.py: option defaults read off other API references in two layouts, asked in two shapes,
each fact in the same half (tune or held out) of both."""

from __future__ import annotations

from .helpers_bench import bench_module

OPTION_HEADINGS = """# body-parser

## API

### bodyParser.json([options])

#### Options

##### inflate

When set to `true`, deflated bodies are inflated. Defaults to `true`.

##### limit

Controls the maximum body size. Defaults
to `'100kb'`.

##### cookie

Whether to use a cookie. Defaults to `false`. The cookie options:

- `key` - the name of the cookie (defaults to `'_csrf'`).

##### verify

Called with the raw body. Defaults to 100 MiB.

### bodyParser.raw([options])

#### Options

##### inflate

Defaults to `false`.

##### Errors

Defaults to `true`.
"""

PARAMETER_LIST = """# tar

### tar.c(options, fileList, callback) [alias: tar.create]

- `strict` Treat warnings as crash-worthy errors. Default false.
- `cwd` The current working directory. Defaults to `process.cwd()`.
- `targets` Transports. If `level` is omitted, it defaults to `info`.

### class Pack

#### constructor(options)

- `jobs` How many jobs. Defaults to 4.

```js
- `strict` Default: `true`
```
"""

FACTORY = """# Server

## Factory

### `bodyLimit`

+ Default: `1048576` (1MiB)

Defines the maximum payload.
"""


def _sets_module():
    return bench_module("write_api_sets")


def _facts(tmp_path, corpus: str, name: str, text: str):
    sets = _sets_module()
    root = tmp_path / corpus
    root.mkdir()
    (root / name).write_text(text, encoding="utf-8")
    return sets, sets.facts_of(corpus, root, root / name)


def test_option_headings_under_a_call_state_its_defaults(tmp_path):
    sets, facts = _facts(tmp_path, "express-middleware", "body-parser.md", OPTION_HEADINGS)
    found = {(f.api, f.option): f.value for f in facts}
    # a capitalised section ("Errors") is no option; "100 MiB" is no plain value; sub-options stay out
    assert found == {("bodyParser.json", "inflate"): "true", ("bodyParser.json", "limit"): "'100kb'",
                     ("bodyParser.json", "cookie"): "false", ("bodyParser.raw", "inflate"): "false"}
    fact = next(f for f in facts if f.option == "limit")
    assert fact.path == ("body-parser", "API", "bodyParser.json([options])", "Options", "limit")
    assert fact.platform == "body-parser" and fact.signature == "bodyParser.json([options])"


def test_parameter_lists_under_a_call_and_constructors_named_by_their_class(tmp_path):
    sets, facts = _facts(tmp_path, "node-tar", "tar.md", PARAMETER_LIST)
    found = {(f.api, f.signature, f.option): f.value for f in facts}
    # "If `level` is omitted, it defaults to `info`" states level's default, not targets'; fenced code is skipped
    assert found == {("tar.c", "tar.c(options, fileList, callback)", "strict"): "false",
                     ("tar.c", "tar.c(options, fileList, callback)", "cwd"): "process.cwd()",
                     ("Pack", "new Pack(options)", "jobs"): "4"}


def test_an_option_heading_under_a_plain_section_names_the_platform(tmp_path):
    sets, facts = _facts(tmp_path, "fastify", "Server.md", FACTORY)
    [fact] = facts
    assert (fact.api, fact.section, fact.option, fact.value) == (None, "Factory", "bodyLimit", "1048576")
    assert "Fastify" in sets.plain_question(fact) or "fastify" in sets.plain_question(fact)
    assert "the Factory section" in sets.template_question(fact)


def test_both_shapes_ask_the_same_facts_in_the_same_halves(tmp_path):
    sets = _sets_module()
    for corpus, name, text in (("express-middleware", "body-parser.md", OPTION_HEADINGS),
                               ("node-tar", "tar.md", PARAMETER_LIST)):
        (tmp_path / corpus).mkdir()
        (tmp_path / corpus / name).write_text(text, encoding="utf-8")
    facts = sets.unique_facts({c: tmp_path / c for c in ("express-middleware", "node-tar")})
    out = sets.question_sets(facts)
    plain, template = out["plain"]["questions"], out["template"]["questions"]
    assert [q["id"] for q in plain] == [q["id"] for q in template] and len(plain) == len(facts) == 7
    assert [q["split"] for q in plain] == [q["split"] for q in template]
    assert {q["split"] for q in plain} <= {"tune", "held_out"}
    for p, t in zip(plain, template, strict=True):
        assert "(" not in p["question"]  # the API without its parameters
        assert "(" in t["question"]  # the full signature
    limit = next(q for q in plain if "limit" in q["question"])
    assert limit["answers"] == ["'100kb'", "100kb"]


def test_an_option_stated_twice_under_one_api_is_dropped(tmp_path):
    sets = _sets_module()
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "a.md").write_text("# a\n\n### f(options)\n\n- `size` Defaults to `1`.\n\n#### Options\n\n"
                                         "##### size\n\nDefaults to `2`.\n", encoding="utf-8")
    assert sets.unique_facts({"x": tmp_path / "x"}) == []
