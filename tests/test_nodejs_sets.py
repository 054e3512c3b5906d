"""bench/write_nodejs_sets.py: facts read off `**Default:**` lines under API-signature headings, asked in two shapes."""

from __future__ import annotations

from .helpers_bench import bench_module

MODULE = """# File system

## Promises API

### Class: `FileHandle`

#### Event: `'close'`

* `flag` {string} **Default:** `'r'`

#### `filehandle.readFile(options)`

* `options` {Object|string}
  * `encoding` {string|null} The expected character
    encoding. **Default:** `'utf8'`
  * `signal` {AbortSignal} allows aborting an in-progress readFile
  * `flush` {boolean} **Default:** an empty object

#### `filehandle.read(buffer, offset)`

* `position` {integer} **Default:** `null`

#### `filehandle.read([options])`

* `position` {integer} **Default:**: `null`

```js
# not a heading
* `encoding` **Default:** `'latin1'`
```

## Callback API

### `new fs.Dir(path[, options])`

* `bufferSize` {number} **Default:** [`32`][]
"""


def _sets_module():
    return bench_module("write_nodejs_sets")


def test_facts_come_from_code_defaults_under_signature_headings(tmp_path):
    sets = _sets_module()
    (tmp_path / "fs.md").write_text(MODULE, encoding="utf-8")
    facts = sets.unique_facts(tmp_path)
    # the Event heading is no API, a prose default and an item without one give nothing, the fenced lines are
    # code, and the two `filehandle.read` overloads document `position` twice: no single right answer
    assert [(f.api, f.signature, f.option, f.value) for f in facts] == [
        ("filehandle.readFile", "filehandle.readFile(options)", "encoding", "'utf8'"),
        ("fs.Dir", "new fs.Dir(path[, options])", "bufferSize", "32"),
    ]
    assert facts[0].path == ("File system", "Promises API", "Class: `FileHandle`", "`filehandle.readFile(options)`")
    assert facts[1].path == ("File system", "Callback API", "`new fs.Dir(path[, options])`")


def test_both_shapes_ask_the_same_facts(tmp_path):
    sets = _sets_module()
    (tmp_path / "fs.md").write_text(MODULE, encoding="utf-8")
    out = sets.question_sets(sets.unique_facts(tmp_path), limit=10)
    plain, template = out["plain"]["questions"], out["template"]["questions"]
    assert [q["id"] for q in plain] == [q["id"] for q in template]
    by_option = {q["question"].split(" use for ")[1].split()[0]: q for q in plain}
    assert by_option["encoding"]["question"] == "What does `filehandle.readFile` use for encoding if I don't pass one?"
    assert by_option["encoding"]["answers"] == ["'utf8'", "utf8"]
    assert by_option["bufferSize"]["answers"] == ["32"]
    assert any(q["question"] == "In the Node.js fs module, what is the default value of the `encoding` option of "
               "`filehandle.readFile(options)`?" for q in template)
    assert all(q["gold_path"][0] == "File system" and q["document"] == "fs.md" for q in plain + template)
