#!/usr/bin/env python3
"""The held-out Node.js API reference sets: "default of option X of API Y", read mechanically off the docs.

The corpus is Debian's ``nodejs-doc`` (``bench/fetch_corpora.py --corpus nodejs``): one markdown file per module,
each API under a heading that is its call signature (``#### `filehandle.readFile(options)` ``), its parameters a
bullet list whose items end in ``**Default:** `value` ``. Every such item whose option is a code span and whose
default is a code span becomes one fact; an (API name, option) pair that more than one heading documents
(overloads such as the three ``filehandle.read(…)``) is dropped, so each question has one right answer.

Each fact is asked in two shapes, the same facts in both:

* ``nodejs-plain``: the way people type it: "What does `fs.readFile` use for encoding if I don't pass one?"
  (the API name without its parameters, the option as a bare word, no platform);
* ``nodejs-template``: the platform and the full signature: "In the Node.js fs module, what is the default value
  of the `encoding` option of `filehandle.readFile(options)`?"

Gold: the default as written (and without its quotes) and the heading path from the module's title down to the
API's heading. Nothing here was tuned on: the sets are written before any retrieval runs on them.

Run: .venv/bin/python bench/write_nodejs_sets.py [--limit 150]   # → data/nodejs/{plain,template}.json
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from _common import CORPORA, ROOT, answer_forms, markdown_sections, prose_and_items

CORPUS = CORPORA / "nodejs"
OUT_DIR = ROOT / "data" / "nodejs"
DEFAULT_LIMIT = 150

_OPTION = re.compile(r"^`([A-Za-z_$][\w$]*)`")
_DEFAULT = re.compile(r"\*\*Default:\*\*:?\s*\[?`([^`]+)`")
_API = re.compile(r"^`(?:new\s+)?([A-Za-z_$][\w$.]*)\((.*)\)`$")


@dataclass(frozen=True)
class DefaultFact:
    module: str  # the file's stem: fs, http, child_process
    api: str  # the name typed: fs.readFile
    signature: str  # the heading's code: filehandle.readFile(options)
    option: str
    value: str
    path: tuple[str, ...]


def facts_of(path: Path) -> list[DefaultFact]:
    """The (option, default) facts under API-signature headings of one module's markdown."""
    sections = markdown_sections(path.read_text(encoding="utf-8"))
    out = []
    for heading_path, lines in sections:
        api = _API.match(heading_path[-1])
        if not api:
            continue
        for item in prose_and_items(lines)[1]:
            option, default = _OPTION.match(item), _DEFAULT.search(item)
            if option and default:
                out.append(DefaultFact(path.stem, api.group(1), heading_path[-1].strip("`"), option.group(1),
                                       default.group(1).strip(), heading_path))
    return out


def unique_facts(corpus: Path) -> list[DefaultFact]:
    """Facts whose (API name, option) one heading alone documents, once each."""
    by_key: dict[tuple[str, str], list[DefaultFact]] = defaultdict(list)
    for path in sorted(corpus.glob("*.md")):
        for fact in facts_of(path):
            by_key[(fact.api, fact.option)].append(fact)
    return [facts[0] for facts in by_key.values() if len({f.path for f in facts}) == 1 and len(facts) == 1]


def _id(fact: DefaultFact) -> str:
    return "nj-" + hashlib.sha1(f"{fact.module}\x1f{fact.signature}\x1f{fact.option}".encode()).hexdigest()[:10]


def question_sets(facts: list[DefaultFact], limit: int) -> dict[str, dict]:
    """The two shapes over the same ``limit`` facts (chosen by a hash of their id, so spread over modules)."""
    chosen = sorted(facts, key=_id)[:limit]
    chosen.sort(key=lambda f: (f.module, f.path, f.option))
    shapes = {
        "plain": lambda f: f"What does `{f.api}` use for {f.option} if I don't pass one?",
        "template": lambda f: (f"In the Node.js {f.module} module, what is the default value of the `{f.option}` "
                               f"option of `{f.signature}`?"),
    }
    out = {}
    for shape, ask in shapes.items():
        out[shape] = {
            "name": f"nodejs-{shape}",
            "description": f"Node.js API reference (Debian nodejs-doc), held out: default of option X of API Y, "
                           f"{shape} shape; written by bench/write_nodejs_sets.py",
            "questions": [{"id": _id(f), "question": ask(f), "answers": answer_forms(f.value),
                           "gold_path": list(f.path),
                           "document": f"{f.module}.md", "tags": ["nodejs", "default", shape]} for f in chosen],
        }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--limit", type=int, default=DEFAULT_LIMIT, help="facts per set (the same in both)")
    parser.add_argument("--out", type=Path, default=OUT_DIR)
    args = parser.parse_args()
    if not any(args.corpus.glob("*.md")):
        parser.error(f"no markdown in {args.corpus}; run bench/fetch_corpora.py --corpus nodejs first")
    facts = unique_facts(args.corpus)
    args.out.mkdir(parents=True, exist_ok=True)
    for shape, data in question_sets(facts, args.limit).items():
        path = args.out / f"{shape}.json"
        path.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {path} ({len(data['questions'])} of {len(facts)} facts)")


if __name__ == "__main__":
    main()
