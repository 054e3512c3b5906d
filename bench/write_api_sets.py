#!/usr/bin/env python3
"""API-reference tune sets in the two shapes of the held-out Node.js sets, read mechanically off other references.

The corpora (``bench/fetch_corpora.py``, npm packages at pinned versions) document options in two layouts:

* an option per heading: ``### `bodyLimit` `` then ``+ Default: `1048576` `` (Fastify), ``#### `level` (String)``
  then ``Default: `'info'` `` (pino), ``### bodyParser.json([options])`` › ``#### Options`` › ``##### limit`` then
  "Defaults to `'100kb'`" (the Express middleware READMEs: the same option names under several APIs);
* an option per list item under a call signature heading: ``- `parseAs` (string): … Default: `'buffer'` ``.

A fact is an option, its default as written (a code span, or a bare ``true``/``false``/number/``null``) and the
heading path of the section stating it; its API is the nearest call-signature heading above (``bodyParser.json``
from ``bodyParser.json([options])``), or none when the option sits under a plain section ("Factory" in Fastify's
Server reference: the question then names the platform). An (API, option) pair that more than one section states
is dropped, so each question has one right answer.

Each fact is asked in two shapes, the same facts in both, in several wordings picked by a hash of the fact:

* ``api-plain``: as people type: the API name without its parameters, the option as a bare word, "default" often
  unsaid ("What does `bodyParser.json` use for limit if I don't pass one?", "fastify bodyLimit default?");
* ``api-template``: the platform, the document and the full signature ("In the body-parser package, what is the
  default value of the `limit` option of `bodyParser.json([options])`?").

Every question has a ``split`` (``tune`` or ``held_out``, by a hash of the fact, the same in both shapes):
mechanisms are tuned on the tune half only. Nothing here reads retrieval results.

Run: .venv/bin/python bench/write_api_sets.py   # → data/api_shapes/{plain,template}.json
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

OUT_DIR = ROOT / "data" / "api_shapes"
# corpus folder -> the platform's name as people write it (None: each document names its own package)
PLATFORMS: dict[str, str | None] = {"fastify": "Fastify", "pino": "pino", "piscina": "Piscina", "ws": "ws",
                                    "express-middleware": None, "node-tar": None}

# a call: the name touches its parenthesis ("options (Object)" is an option and its type)
_LABEL = r"[A-Z][a-z]+(?: [a-z]+)?:\s*"  # "Constructor: ", "Static method: "
_SIGNATURE = re.compile(rf"^(?:{_LABEL})?(?:new\s+)?(?P<name>[A-Za-z_$][\w$.]*)\((?P<args>.*)\)"
                        r"\s*(?:=>.*|\[alias:[^\]]*\])?$")
_CLASS = re.compile(r"^class\s+(?P<name>[A-Za-z_$][\w$.]*)")
_OPTION_HEADING = re.compile(r"^(?P<tick>`?)(?P<name>[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)(?P=tick)"
                             r"\s*(?:\([^)]*\)|\{[^}]*\})?\s*:?$")
_OPTION_ITEM = re.compile(r"^(?:`(?P<code>[A-Za-z_$][\w$.]*)`|\*\*`?(?P<bold>[A-Za-z_$][\w$.]*)`?\*\*)")
_OPTIONS_HEADING = re.compile(r"^(?:[\w ]+ )?options$", re.I)
# a code span, or a bare literal not followed by a word ("Defaults to 100 MiB" states no plain 100)
_VALUE = r"(?:`(?P<code>[^`\n]+)`|(?P<bare>true|false|null|undefined|-?\d+(?:\.\d+)?)(?!\w|\.\d|\s+[A-Za-z(]))"
_DEFAULT = re.compile(
    r"(?:\*\*Default:?\*\*:?|\bDefault:|\bDefault(?=\s+(?:true|false|null|undefined|-?\d))|\bdefaults?\s+to|"
    r"\bthe\s+default\s+value\s+is|\bdefault\s+is|"
    r"\bby\s+default,?\s+(?:this|it)\s+is(?:\s+set\s+to)?)\s+" + _VALUE, re.I)


@dataclass(frozen=True)
class OptionFact:
    corpus: str
    document: str  # path relative to the corpus
    platform: str  # Fastify, pino, body-parser
    api: str | None  # the name typed: bodyParser.json (None: the option sits under a plain section)
    signature: str | None  # the heading's code: bodyParser.json([options])
    section: str  # the heading the option sits under: the signature, or "Factory"
    option: str
    value: str
    path: tuple[str, ...]


def _plain(heading: str) -> str:
    """A heading's text without backticks and escapes."""
    return heading.replace("`", "").replace("\\", "").strip()


_CODE_NAME = re.compile(r"`([A-Za-z_$][\w$.]*)`")


def _default(text: str, option: str) -> str | None:
    """The default the text states for ``option``; None when its sentence names another option in code ("If
    `level` is omitted, it defaults to `info`" states the default of ``level``, not of the item's option)."""
    found = _DEFAULT.search(text)
    if not found:
        return None
    start = max(text.rfind(mark, 0, found.start()) + len(mark) for mark in (". ", ": ", "; ", "<br>"))
    sentence = text[max(start, 0) : found.start()]
    if any(name != option for name in _CODE_NAME.findall(sentence)):
        return None
    return (found.group("code") or found.group("bare")).strip()


def _signature(path: tuple[str, ...]) -> tuple[int, re.Match[str]] | None:
    """The deepest call-signature heading of ``path``: its depth and match."""
    for depth in range(len(path) - 1, -1, -1):
        found = _SIGNATURE.match(_plain(path[depth]))
        if found:
            return depth, found
    return None


def facts_of(corpus: str, root: Path, path: Path) -> list[OptionFact]:
    """The (option, default) facts one document states, in either layout."""
    document = path.relative_to(root).as_posix()
    platform = PLATFORMS.get(corpus) or path.stem
    out: list[OptionFact] = []

    def add(heading_path: tuple[str, ...], section_depth: int, option: str, value: str) -> None:
        signature = _signature(heading_path[: section_depth + 1])
        if signature is not None:
            depth, found = signature
            call = re.sub(r"\s*\[alias:[^\]]*\]$", "", re.sub(f"^{_LABEL}", "", _plain(heading_path[depth])))
            api = found.group("name")
            owner = _CLASS.match(_plain(heading_path[depth - 1])) if depth else None
            if api == "constructor" and owner:  # "### class Pack" › "#### constructor(options)"
                api = owner.group("name")
                call = f"new {api}({found.group('args')})"
            out.append(OptionFact(corpus, document, platform, api, call, call, option, value, heading_path))
        elif section_depth >= 0:
            out.append(OptionFact(corpus, document, platform, None, None, _plain(heading_path[section_depth]),
                                  option, value, heading_path))

    for heading_path, lines in markdown_sections(path.read_text(encoding="utf-8")):
        prose, items = prose_and_items(lines)
        own = _plain(heading_path[-1])
        option = _OPTION_HEADING.match(heading_path[-1].strip())
        in_code = bool(option and option.group("tick"))
        under_signature = _signature(heading_path[:-1]) is not None
        # a capitalised bare word heads a section ("Errors", "Options"), not an option
        section = not in_code and own[:1].isupper() and not own.isupper()
        if option and (in_code or under_signature) and not section and not _OPTIONS_HEADING.match(own):
            name = option.group("name")
            # in the prose, or a list item of its own ("+ Default: `1048576` (1MiB)"); other items are sub-options
            value = _default(prose, name) or next(
                (v for item in items if item.lstrip("*").casefold().startswith("default")
                 and (v := _default(item, name)) is not None), None)
            if value is not None:
                # the API: the signature above; else the plain section the option heading sits in
                add(heading_path, len(heading_path) - 2, name.removeprefix("options."), value)
            continue
        if _signature(heading_path) is None:
            continue  # list items document options only under a call signature (or its "Options" heading)
        for item in items:
            named = _OPTION_ITEM.match(item)
            name = (named.group("code") or named.group("bold")) if named else ""
            value = _default(item[named.end():], name) if named else None
            if value is not None:
                add(heading_path, len(heading_path) - 1, name, value)
    return out


def unique_facts(corpora: dict[str, Path]) -> list[OptionFact]:
    """Facts whose (corpus, API or section, option) one section alone states, once each."""
    by_key: dict[tuple[str, str, str], list[OptionFact]] = defaultdict(list)
    for corpus, root in corpora.items():
        for path in sorted(root.rglob("*.md")):
            for fact in facts_of(corpus, root, path):
                place = fact.api if fact.api is not None else f"{fact.document}\x1f"
                by_key[(corpus, place, fact.option)].append(fact)
    return [facts[0] for facts in by_key.values() if len(facts) == 1]


def _hash(fact: OptionFact) -> bytes:
    return hashlib.sha1(f"{fact.corpus}\x1f{fact.document}\x1f{fact.section}\x1f{fact.option}".encode()).digest()


def _id(fact: OptionFact) -> str:
    return "api-" + _hash(fact).hex()[:10]


def split_of(fact: OptionFact) -> str:
    return "tune" if _hash(fact)[0] % 2 == 0 else "held_out"


def _document_label(fact: OptionFact) -> str:
    """"the body-parser package", "the Fastify Server reference", "the pino API reference"."""
    if PLATFORMS.get(fact.corpus) is None:
        return f"the {fact.platform} package"
    stem = Path(fact.document).stem.replace("-", " ")
    if stem.casefold() in ("api", fact.platform.casefold()):
        return f"the {fact.platform} API reference"
    return f"the {fact.platform} {stem} reference"


def plain_question(fact: OptionFact) -> str:
    """As typed: the API without parameters (or the platform), the option bare, "default" often unsaid."""
    api = f"`{fact.api}`" if fact.api else fact.platform
    typed = fact.api or fact.platform.casefold()
    wordings = (
        f"What does {api} use for {fact.option} if I don't pass one?",
        f"what's the default {fact.option} for {typed}",
        f"If I leave out {fact.option}, what does {api} fall back to?",
        f"{typed} {fact.option} default?",
        f"What {fact.option} does {api} use when I don't set it?",
    )
    return wordings[_hash(fact)[1] % len(wordings)]


def template_question(fact: OptionFact) -> str:
    """The platform, the document and the full signature (or the section the option sits in)."""
    where = f"`{fact.signature}`" if fact.signature else f"the {fact.section} section"
    label = _document_label(fact)
    wordings = (
        f"In {label}, what is the default value of the `{fact.option}` option of {where}?",
        f"For {where} in {label}, what is the default `{fact.option}`?",
        f"In {label}, what does the `{fact.option}` option of {where} default to?",
    )
    return wordings[_hash(fact)[2] % len(wordings)]


def question_sets(facts: list[OptionFact]) -> dict[str, dict]:
    chosen = sorted(facts, key=lambda f: (f.corpus, f.document, f.path, f.option))
    shapes = {"plain": plain_question, "template": template_question}
    out = {}
    for shape, ask in shapes.items():
        out[shape] = {
            "name": f"api-{shape}",
            "description": f"API references (Fastify, pino, Express middleware; npm): default of option X of API Y, "
                           f"{shape} shape; written by bench/write_api_sets.py",
            "questions": [{"id": _id(f), "question": ask(f), "answers": answer_forms(f.value),
                           "gold_path": list(f.path),
                           "document": f.document, "tags": ["api", "default", shape, f.corpus],
                           "split": split_of(f)} for f in chosen],
        }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpora", type=Path, default=CORPORA)
    parser.add_argument("--out", type=Path, default=OUT_DIR)
    args = parser.parse_args()
    folders = {name: args.corpora / name for name in PLATFORMS}
    missing = [name for name, folder in folders.items() if not any(folder.rglob("*.md"))]
    if missing:
        parser.error(f"no markdown for {', '.join(missing)}; run bench/fetch_corpora.py --corpus NAME first")
    facts = unique_facts(folders)
    args.out.mkdir(parents=True, exist_ok=True)
    for shape, data in question_sets(facts).items():
        path = args.out / f"{shape}.json"
        path.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        halves = {s: sum(q["split"] == s for q in data["questions"]) for s in ("tune", "held_out")}
        print(f"wrote {path} ({len(data['questions'])} questions, {halves})")


if __name__ == "__main__":
    main()
