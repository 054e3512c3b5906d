#!/usr/bin/env python3
"""Nine TUNE question sets (data/tune/) of the shapes issue 29's report corpora are weakest on: an FAQ, a CLI's
documentation, Korean prose and a configuration reference. Retrieval and answering may be tuned on them (their
questions and answers may be read); the report-only sets (data/unseen/, korean-nlp, copier, copier-faq,
pdm-changelog) stay the check.

================  ============  ===============================================================================
corpus            shape         facts read off
================  ============  ===============================================================================
semantic-release  faq-policy    the configuration reference (``### tagFormat`` › ``Type: … <br> Default: … <br>
                                CLI arguments: …``), the API tables; hand-written: the FAQ and troubleshooting
                                (questions as headings, prose answers)
concurrently-cli  cli           a section whose heading names a behaviour and whose first prose names one flag
                                (``## Terminating on error only`` → ``--kill-others-on-fail``), the tables
                                (prefix styles, shortcuts); hand-written: flags and defaults told in prose
markdownlint-     tool-docs     a linter's rule pages (``# `MD013` - Line length`` › ``Aliases: `line-length` `` and
rules                           ``Parameters:`` items ``line_length: … (integer, default 80)``): a rule's alias, a
                                parameter's default, the rule that checks a thing; hand-written: custom rules,
                                Prettier, how people ask about a rule (issue 29, faq2)
korean-pykrx      korean-prose  a section whose heading names a task (``#### 2.1.1.2 일자별 OHLCV 조회``) and
                                whose first prose names one function; the tables; hand-written: Korean prose
korean-moment     korean-prose  three Korean READMEs (kakao-moment-mcp, python-kis, hwpx-kit-cli): the tables,
                                those inside ``<details>`` included; hand-written: notes and steps inside
                                ``<details>``, HTML lists, prose, a few asked in English (20 generated)
isort-config      config-       a configuration reference whose options are not in tables: ``## Skip Glob`` over
                  reference     prose and bold field lines (``**Default:** `…` ``, ``**Config default:**``,
                                ``**Python & Config File Name:**``, ``**CLI Flags:**`` over a list of flags): an
                                option's default, config-file name, CLI flag; hand-written: config files, action
                                comments, output modes, a profile's items under a label that is not a heading
molecule-faq      faq-guides    an FAQ whose questions are headings over prose answers (the answer's first
                                sentence, where it is not a lead-in or a pointer elsewhere), the tables and a
                                section's one flag; hand-written: questions that do not reuse the heading's words,
                                yes/no questions, answers in the configuration, installation and guide pages
mkdocstrings-     config-       a handler's options reference: ``## `show_source` `` over ONE bullet holding the
options           reference     type and the default (``:octicons-package-24: Type [`str`][] :material-equal:
                                `"google"`{ title="default value" }``), prose, YAML examples: an option's default
                                (a boolean's too) and its type where written plain; hand-written: allowed values,
                                global-only options, the recommended settings, paraphrases
griffe-guide      user-guide    none generated: a user guide's answers sit in prose paragraphs, no structure
                                states them as values; 43 hand-written questions asked the way users type them
                                ("how do I …", "can I …", "why does …", "what happens if …"), mostly not in the
                                heading's words, and 3 multi-fact
plugin-options    plugin-       six plugins' READMEs (rollup commonjs and replace, postcss-import,
                  readme        markdown-it-anchor, rollup-plugin-visualizer, @vitejs/plugin-react): option
                                headings over ``Type: … <br> Default: …``, ``| Name | Description | Default |``
                                tables, `` `open` (boolean, default `false`) - … `` paragraphs, defaults in prose;
                                all hand-written (a question names its plugin): defaults, types, what an option
                                does, an option asked by its description's words, the same name in two plugins
================  ============  ===============================================================================

Facts come from the elements the product's parser makes (``core.ingest.parse``), kept only with one right answer
(``write_heldout_sets.unambiguous``), asked the way people type (``write_unseen_sets.ask``'s phrasings). Each
corpus also has hand-written questions and two multi-fact questions.

Run: .venv/bin/python bench/write_tune_sets.py [--limit 30]   # → data/tune/<corpus>.json
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

from _common import CORPORA, ROOT
from write_heldout_sets import (
    HeldFact,
    _path,
    _pick,
    _subject_last,
    _topic,
    corpus_elements,
    gold_forms,
    plain,
    table_facts,
)
from write_unseen_sets import Hand, Multi, SetKind, Unseen, heading_flag_facts, write_sets

OUT_DIR = ROOT / "data" / "tune"
DEFAULT_LIMIT = 30
# a corpus of many table rows: fewer generated questions, so the hand-written ones weigh as much; six plugins
# in one corpus (plugin-options): none, since a generated question could not name its plugin as people do
CORPUS_LIMITS = {"korean-moment": 20, "molecule-faq": 20, "plugin-options": 0}
SPLIT = "tune"

SPECS: dict[str, Unseen] = {s.name: s for s in (
    Unseen("semantic-release", "faq-policy", "semantic-release",
           "semantic-release 24.2.9 docs (npm): FAQ, troubleshooting, configuration reference"),
    Unseen("concurrently-cli", "cli", "concurrently",
           "concurrently 9.2.5 docs (npm): CLI documentation, flags told in prose and tables"),
    Unseen("markdownlint-rules", "tool-docs", "markdownlint",
           "markdownlint 0.36.1 doc/ (npm): a linter's rule reference, aliases, parameter defaults, custom rules"),
    Unseen("korean-pykrx", "korean-prose", "pykrx",
           "pykrx 1.2.9 README and CONTRIBUTING (PyPI sdist): Korean prose, an API guide"),
    # three products in one corpus: a question names the product of its document (the folder's name)
    Unseen("korean-moment", "korean-prose", "",
           "kakao-moment-mcp 0.2.3, python-kis 2.1.6 and hwpx-kit-cli 0.13.1 READMEs (PyPI sdists): Korean prose, "
           "tables and notes inside <details>"),
    Unseen("isort-config", "config-reference", "isort",
           "isort 6.0.1 docs (PyPI sdist): a configuration reference of option headings over bold field lines "
           "(Default, Config default, config-file name, CLI flags), profiles, output modes, guides"),
    Unseen("molecule-faq", "faq-guides", "molecule",
           "molecule 26.10.0 docs (PyPI sdist): an FAQ of question headings over prose answers, a configuration "
           "page, usage, installation, CI and how-to guides"),
    Unseen("mkdocstrings-options", "config-reference", "mkdocstrings",
           "mkdocstrings-python 2.0.11 docs (PyPI sdist): a handler's options reference, each option a code-name "
           "heading over one bullet holding its type and default, prose, YAML examples and previews"),
    Unseen("griffe-guide", "user-guide", "griffe",
           "griffe 2.4.1 user guide (PyPI sdist, docs/guide/users): prose pages with headings (loading, navigating, "
           "checking, extending, serializing), how-to pages and recommendations"),
    # six plugins in one corpus: each hand-written question names its plugin as people type it
    Unseen("plugin-options", "plugin-readme", "",
           "@rollup/plugin-commonjs 29.0.0, @rollup/plugin-replace 6.0.3, postcss-import 16.2.0, markdown-it-anchor "
           "10.0.0, rollup-plugin-visualizer 6.0.11 and @vitejs/plugin-react 6.3.0 READMEs (npm): plugins' option "
           "references (Type/Default lines under option headings, Name/Description/Default tables, "
           "`name` (type, default x) paragraphs, defaults told in prose), the same option names in several plugins"),
)}


# --------------------------------------------------------------------------------------------- fact readers

_BR_FIELD = re.compile(r"^(?P<key>Type|Default|CLI arguments):\s*(?P<value>.+)$")
_BR_KEYS = {"Type": "type", "Default": "default", "CLI arguments": "cli flag"}


def br_field_facts(elements: Sequence, document: str) -> list[HeldFact]:
    """``### tagFormat`` › ``Type: String<br> Default: v${version}<br> CLI arguments: -t, --tag-format``: each field
    an attribute of the option its heading names (a CLI flag asked as its long form)."""
    out = []
    for element in elements:
        path = _path(element)
        if not path or element.category != "NarrativeText" or "<br>" not in element.text:
            continue
        for part in element.text.split("<br>"):
            match = _BR_FIELD.match(part.strip())
            if match is None:
                continue
            key, value = _BR_KEYS[match.group("key")], match.group("value").strip()
            if key == "cli flag":
                value = next((f for f in value.split(", ") if f.startswith("--")), value)
            if value and len(value) <= 40:
                out.append(HeldFact("field", key, value, path, document, plain(path[-1])))
    return out


_IDENTIFIER = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)+")
_CALLED = re.compile(r"(?<![\w.])([a-z][a-z0-9]*(?:_[a-z0-9]+)+)\(\)")
_NUMBERING = re.compile(r"^\d+(?:\.\d+)*\.?\s+")


def heading_function_facts(elements: Sequence, document: str) -> list[HeldFact]:
    """A section whose heading names a task (``#### 2.1.1.2 일자별 OHLCV 조회``) and whose first prose names one
    function (``get_market_ohlcv``): the function is what someone asks for."""
    out = []
    seen: set[tuple[str, ...]] = set()
    for element in elements:
        path = _path(element)
        if not path or path in seen or element.category not in ("NarrativeText", "ListItem"):
            continue
        seen.add(path)
        spans = [str(c).removesuffix("()") for c in (element.get("code_spans") or [])]
        names = list(dict.fromkeys([*(c for c in spans if _IDENTIFIER.fullmatch(c)), *_CALLED.findall(element.text)]))
        task = _NUMBERING.sub("", plain(path[-1]))
        if len(names) == 1 and task and len(task.split()) <= 6:
            out.append(HeldFact("function", "function", names[0], path, document, task))
    return out


_RULE_TITLE = re.compile(r"^(?P<rule>MD\d{3}) - (?P<title>.+)$")
_ALIASES = re.compile(r"^Aliases:\s*(?P<value>[\w-]+)$")
_PARAMETER = re.compile(r"^(?P<name>\w+): .*\((?P<type>[\w\[\]]+), default (?P<value>[^,()]+)[,)]")


def rule_page_facts(elements: Sequence, document: str) -> list[HeldFact]:
    """A rule's own page (``md013.md``: ``MD013 - Line length``): its alias, each parameter's default, and the rule
    asked for by what it checks (its title). ``Rules.md`` repeats every page, so facts come from the pages only."""
    if not re.fullmatch(r"md\d{3}\.md", document):
        return []
    out = []
    for element in elements:
        path = _path(element)
        rule = _RULE_TITLE.match(plain(path[0])) if path else None
        if rule is None:
            continue
        if element.category == "NarrativeText" and (alias := _ALIASES.match(element.text.strip())):
            out.append(HeldFact("field", "alias", alias.group("value"), path, document, rule.group("rule")))
            out.append(HeldFact("rule", "rule", rule.group("rule"), path, document, rule.group("title").lower()))
        elif element.category == "ListItem" and (parameter := _PARAMETER.match(element.text.strip())):
            value = parameter.group("value").strip()
            if value not in ("true", "false"):  # a boolean's default says little on its own
                out.append(HeldFact("default", "default", value, path, document,
                                    f"{rule.group('rule')} {parameter.group('name')}"))
    return out


_BLOCK_FIELD = re.compile(r"^(?P<key>Default|Config default|Python & Config File Name|CLI Flags):\s*(?P<value>.*)$")
_BLOCK_KEYS = {"Python & Config File Name": "config name"}


def option_block_facts(elements: Sequence, document: str) -> list[HeldFact]:
    """``## Skip Glob`` › prose › ``**Type:** … **Default:** `frozenset()` **Config default:** `[]` **Python & Config
    File Name:** skip_glob **CLI Flags:**`` › ``- --sg`` ``- --skip-glob``: the option's default (the config default
    answers too, unless it is as short as ``3`` or ``[]``, which any text holds), its config-file name and its CLI
    flag (any long flag of the list after ``CLI Flags:`` answers), asked by the heading's words. A boolean's
    default, stated by most options, says nothing alone; argparse's ``==SUPPRESS==`` is no value; a config name
    the heading spells is given away."""
    out = []
    flags: list[str] = []
    flags_of: tuple[str, ...] = ()  # the option whose "CLI Flags:" list is being read

    def flag_fact() -> None:
        if flags:
            out.append(HeldFact("field", "cli flag", flags[0], flags_of, document, plain(flags_of[-1]).lower(),
                                answers=tuple(flags)))
            flags.clear()

    for element in elements:
        path = _path(element)
        if element.category == "ListItem" and flags_of and flags_of == path:
            if element.text.strip().startswith("--"):
                flags.append(element.text.strip())
            continue
        flag_fact()
        flags_of = ()
        if element.category != "NarrativeText" or not path:
            continue
        fields = {m.group("key"): m.group("value").strip() for line in element.text.splitlines()
                  if (m := _BLOCK_FIELD.match(line.strip()))}
        if "Default" not in fields:
            continue
        subject = plain(path[-1]).lower()
        default, config = fields["Default"], fields.get("Config default", "")
        if default and len(default) <= 40 and default not in ("True", "False", "None", "==SUPPRESS=="):
            answers = tuple(dict.fromkeys(v for v in (default, config) if 3 <= len(v) <= 40 or v == default))
            out.append(HeldFact("default", "default", default, path, document, subject, answers=answers))
        name = fields.get("Python & Config File Name", "")
        if re.fullmatch(r"\w+", name) and name.replace("_", " ") != subject:
            out.append(HeldFact("field", _BLOCK_KEYS["Python & Config File Name"], name, path, document, subject))
        if "CLI Flags" in fields:
            flags_of = path
    flag_fact()
    return out


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z(`\[])")
# a first sentence that only leads into what follows (a recipe, a list) or points elsewhere answers nothing itself
_LEAD_IN = re.compile(r"(:|as follows\.?)$|^(please )?see\b", re.IGNORECASE)
FAQ_GOLD_WORDS = 8


def faq_answer_facts(elements: Sequence, document: str) -> list[HeldFact]:
    """An FAQ entry: a heading that is a question (``## Why are playbooks used to provision instances?``) over a
    prose answer; the gold is the start of the answer's first sentence (at most ``FAQ_GOLD_WORDS`` words), so a
    reply that quotes the lead-in of a recipe or another entry's answer misses it."""
    out = []
    seen: set[tuple[str, ...]] = set()
    for element in elements:
        path = _path(element)
        if not path or path in seen or not plain(path[-1]).endswith("?"):
            continue
        seen.add(path)  # the section's first element only
        if element.category != "NarrativeText":
            continue
        text = plain(element.text)
        sentence, *rest = _SENTENCE_END.split(text, maxsplit=1)
        # a paragraph that leads into a block (ends with ':'), or whose next sentence departs from the first
        # ("By default … However …"): the first sentence is not the answer
        if _LEAD_IN.search(sentence.strip()) or text.endswith(":") or (rest and rest[0].startswith("However")):
            continue
        gold = " ".join(sentence.split()[:FAQ_GOLD_WORDS]).rstrip(".,;")
        out.append(HeldFact("faq", "answer", gold, path, document, plain(path[-1]).rstrip("?")))
    return out


_TYPE_DEFAULT = re.compile(r"Type (?P<type>.+?)\s+:material-equal:\s+(?P<value>.+?)\{ title=\"default value\" \}$",
                           re.S)


def option_bullet_facts(elements: Sequence, document: str) -> list[HeldFact]:
    """``## `heading_level` `` › ``- :octicons-package-24: Type [`int`][] :material-equal: `2`{ title="default
    value" }``: the option's default (quotes around a string dropped; a boolean's asked as a switch) and
    its type where it is written plain (``[str][]``, ``str | list[str]``; not a ``bool``, nor one of ``<autoref>``
    tags), asked by the option's code name."""
    out = []
    for element in elements:
        path = _path(element)
        if element.category != "ListItem" or not path or not (m := _TYPE_DEFAULT.search(element.text.strip())):
            continue
        subject = plain(path[-1])
        value = m.group("value").strip().strip('"')
        if value:  # a boolean's default is asked as people ask a switch ("is X on by default?")
            out.append(HeldFact("switch" if value in ("True", "False") else "default", "default", value, path,
                                document, subject, answers=(value,)))
        kind = re.sub(r"\[(\w+)\]\[\]", r"\1", m.group("type")).strip()
        if "<" not in kind and kind != "bool":
            out.append(HeldFact("field", "type", kind, path, document, subject, answers=(kind,)))
    return out


def corpus_facts(corpus: str) -> tuple[list[HeldFact], list[str]]:
    facts: list[HeldFact] = []
    texts: list[str] = []
    for document, elements in corpus_elements(CORPORA / corpus):
        texts.extend(e.text for e in elements)
        if corpus == "semantic-release":
            facts.extend(br_field_facts(elements, document))
            facts.extend(table_facts(elements, document, _subject_last))
        elif corpus == "concurrently-cli":
            facts.extend(heading_flag_facts(elements, document))
            facts.extend(table_facts(elements, document, _subject_last))
        elif corpus == "markdownlint-rules":
            facts.extend(rule_page_facts(elements, document))
        elif corpus == "korean-pykrx":
            facts.extend(heading_function_facts(elements, document))
            facts.extend(table_facts(elements, document, _subject_last))
        elif corpus == "korean-moment":
            facts.extend(table_facts(elements, document, _subject_last))
        elif corpus == "isort-config":
            facts.extend(option_block_facts(elements, document))
        elif corpus == "molecule-faq":
            facts.extend(faq_answer_facts(elements, document))
            facts.extend(heading_flag_facts(elements, document))
            facts.extend(table_facts(elements, document, _subject_last))
        elif corpus == "mkdocstrings-options":
            facts.extend(option_bullet_facts(elements, document))
    # a table fact whose row has no key, a value the parser cut inside parentheses, a "default" that is a
    # sentence (a table's prose cell): each asks nothing
    facts = [f for f in facts if (f.kind != "table" or f.entity) and f.value.count("(") == f.value.count(")")
             and not (f.kind == "default" and f.value.endswith("."))]
    if corpus == "mkdocstrings-options":
        # its values are the options' own vocabulary (True, str, "table"), which the prose repeats on every page:
        # no value is rare, so rarity is not asked; the attribution (the gold path is the option's section) is
        texts = []
    return list(dict.fromkeys(facts)), texts


# --------------------------------------------------------------------------------------------- questions


def ask(spec: Unseen, fact: HeldFact, qid: str) -> str:
    """The question as a person types it (one of a few phrasings, fixed per fact)."""
    s, k, e, tool = fact.subject, fact.key, fact.entity, spec.tool or fact.document.split("/")[0]
    if fact.kind == "field":
        return _pick([f"{tool} {s} {k}?", f"what's the {k} for {s} in {tool}", f"{k} of the {s} option ({tool})"],
                     qid)
    if fact.kind == "default":
        return _pick([f"{tool} {s} default?", f"what's the default for {s} in {tool}",
                      f"if I don't pass {s}, what does {tool} use?"], qid)
    if fact.kind == "switch":
        return _pick([f"is {s} on by default in {tool}?", f"{tool} {s} enabled by default?",
                      f"does {tool} turn {s} on by default"], qid)
    if fact.kind == "flag":
        topic = s.lower()
        return _pick([f"{tool} {topic} flag?", f"which {tool} option for {topic}",
                      f"how do I turn on {topic} in {tool}"], qid)
    if fact.kind == "faq":  # the heading as typed: lower case, the product's name once, no question mark
        q = s[0].lower() + s[1:]
        return _pick([q, f"{q} ({tool} faq)", f"{tool}: {q}"] if tool.lower() not in q.lower() else [q, f"{q}?"],
                     qid)
    if fact.kind == "rule":
        return _pick([f"which {tool} rule checks {s}", f"{tool} rule for {s}?", f"{s} - what's the {tool} rule id"],
                     qid)
    if fact.kind == "function":
        return _pick([f"{tool}에서 {s} 하는 함수는?", f"{tool} {s} 어떤 함수 써요?",
                      f"{_topic(s)} {tool} 무슨 함수로 하나요?"], qid)
    s = _NUMBERING.sub("", s)
    if fact.kind == "key_value":
        return _pick([f"{tool} {s}에서 {_topic(k)} 어떻게 되나요?", f"{tool} {s} {_topic(k)} 뭔가요?"], qid)
    if re.search(r"[\uac00-\ud7a3]", f"{s}{k}{e}"):
        return _pick([f"{tool} {s}에서 {e}의 {k} 알려줘", f"{e} {k} 뭐예요? ({tool} {s})",
                      f"{tool} {s} 표에서 {e}의 {_topic(k)} 어떻게 되나요?"], qid)
    return _pick([f"{tool} {s} {k} of {e}?", f"what's the {k} for {e} in the {s} table ({tool})",
                  f"{e} - {k}? ({tool} {s})"], qid)


def _id(corpus: str, fact: HeldFact) -> str:
    digest = hashlib.sha1("\x1f".join([corpus, fact.document, *fact.path, fact.kind, fact.entity, fact.key,
                                       fact.value, fact.subject]).encode()).hexdigest()[:10]
    return f"tu-{corpus[:4]}-{digest}"


def generated(corpus: str, facts: Sequence[HeldFact], limit: int) -> list[dict]:
    """Round-robin over the kinds, and within a kind over the documents."""
    from core.evaluation.metrics import normalise

    spec = SPECS[corpus]
    limit = min(limit, CORPUS_LIMITS.get(corpus, limit))
    by_kind: dict[str, list[HeldFact]] = {}
    for fact in sorted(facts, key=lambda f: _id(corpus, f)):
        by_kind.setdefault(fact.kind, []).append(fact)
    queues = [by_kind[k] for k in sorted(by_kind)]
    questions: list[dict] = []
    while len(questions) < limit and any(queues):
        for queue in queues:
            if not queue or len(questions) >= limit:
                continue
            fact = queue.pop(0)
            qid = _id(corpus, fact)
            question = ask(spec, fact, qid)
            answers = list(fact.answers) or gold_forms(fact.value)
            if any(normalise(a) in normalise(question) for a in answers):
                continue  # the question gives the answer away
            questions.append({
                "id": qid, "question": question, "answers": answers, "gold_path": list(fact.path),
                "document": fact.document, "tags": ["tune", spec.shape, fact.kind.replace("_", "-")],
                "corpus": corpus, "shape": spec.shape, "split": SPLIT})
            if fact.kind == "table" and fact.entity:
                questions[-1]["row_key"] = fact.entity
    return questions


HAND: dict[str, tuple[Hand, ...]] = {
    "semantic-release": (
        ("why doesn't semantic-release update the version in package.json in my repo?",
         ("only the published package will contain the version",), "support/FAQ.md",
         "only the published package will contain the version"),
        ("what version should I put in package.json if semantic-release doesn't commit it",
         ("0.0.0-development",), "support/FAQ.md", "0.0.0-development"),
        ("how can I see which version semantic-release would publish without releasing",
         ("dry-run",), "support/FAQ.md", "Yes with the dry-run options"),
        ("run semantic-release locally instead of on CI", ("--no-ci",), "support/FAQ.md",
         "explicitly setting the"),
        ("semantic-release with gitlab?", ("@semantic-release/gitlab-config",), "support/FAQ.md",
         "shareable configuration"),
        ("how do I skip publishing to npm with semantic-release", ("npmPublish",), "support/FAQ.md",
         "the publishing to the npm registry can be disabled"),
        ("I shipped a broken release, how do I revert it (semantic-release)",
         ("revert the commit",), "support/FAQ.md", "revert the commit"),
        ("can I delete the git tag of a buggy release? semantic-release",
         ("do not remove the Git tag",), "support/FAQ.md", "do not remove the Git tag"),
        ("set npm package access to public with semantic-release", ("access=public",), "support/FAQ.md",
         "access=public"),
        ("how do I exclude a commit from semantic-release analysis", ("[skip release]",), "support/FAQ.md",
         "will be excluded from the commit analysis"),
        ("which commit type triggers a patch release in semantic-release",
         ("fix",), "support/FAQ.md", "Commit with type `fix`"),
        ("can semantic-release start at version 0.0.1?", ("not supported",), "support/FAQ.md",
         "This is not supported by semantic-release"),
        ("npx comes with which npm version", ("5.2",), "support/FAQ.md", "The tool is bundled with"),
        ("semantic-release E403 you do not have permission to publish - why?",
         ("npm registry authentication",), "support/troubleshooting.md", "most likely related to a misconfiguration"),
        ("squashed commits are ignored by semantic-release, what should I do",
         ("rewrite the resulting commit message",), "support/troubleshooting.md",
         "rewrite the resulting commit message"),
        ("where can semantic-release config live? file names", (".releaserc",), "usage/configuration.md",
         "A .releaserc file"),
        ("do cli arguments override the semantic-release config file", ("take precedence",),
         "usage/configuration.md", "CLI arguments take precedence over options configured"),
    ),
    "concurrently-cli": (
        ("concurrently: how long to wait before restarting a failed command", ("--restart-after",),
         "cli/restarting.md", "the number of milliseconds"),
        ("concurrently exponential backoff restart delay", ("2^N",), "cli/restarting.md", "exponential back-off"),
        ("what signal does concurrently send by default when killing", ("SIGTERM",), "cli/terminating.md",
         "The default is"),
        ("concurrently --kill-timeout unit?", ("milliseconds",), "cli/terminating.md",
         "misbehaving process that ignores the kill signal"),
        ("how do I send keyboard input to a command in concurrently", ("--handle-input",), "cli/input-handling.md",
         "To turn on input handling"),
        ("concurrently: send input to the second command", ("1:rs",), "cli/input-handling.md",
         "the below sends"),
        ("change which command gets stdin by default in concurrently", ("--default-input-target",),
         "cli/input-handling.md", "change the default command that receives input"),
        ("what does npm:<script> expand to in concurrently", ("npm run <script>",), "cli/shortcuts.md",
         "npm run <script>"),
        ("concurrently prefix color flag", ("--prefix-colors",), "cli/prefixing.md", "This can be changed by using"),
        ("default prefix of concurrently output", ("zero-based index",), "cli/prefixing.md",
         "prefix each command's outputs with a zero-based index"),
        ("concurrently env var prefix for setting flags", ("CONCURRENTLY_",), "cli/configuration.md",
         "prefixed with"),
        ("how do I hide a command's output in concurrently", ("--hide",), "cli/output-control.md",
         "--hide"),
        ("concurrently: other than the default, which kill signal can I send?", ("SIGKILL",), "cli/terminating.md",
         "also possible to send"),
    ),
    "markdownlint-rules": (
        ("markdownlint max line length default", ("80",), "md013.md", "line_length: Number of characters"),
        ("how do I allow <br> tags in markdownlint", ("allowed_elements",), "md033.md",
         "To allow specific HTML elements"),
        ("markdownlint complains about duplicate headings in my changelog, can it only check siblings?",
         ("siblings_only",), "md024.md", "If the parameter"),
        ("ordered list numbering style default markdownlint", ("one_or_ordered",), "md029.md",
         "style: List style"),
        ("markdownlint setting for how many spaces a hard tab counts as", ("spaces_per_tab",), "md010.md",
         "spaces_per_tab: Number of spaces"),
        ("using markdownlint together with prettier, which config to extend", ("prettier.json",), "Prettier.md",
         "You can extend the"),
        ("does markdownlint line length flag long URLs?", ("no whitespace beyond",), "md013.md",
         "This rule has an exception"),
        ("markdownlint: make it fail on any long line, even URLs", ("strict",), "md013.md",
         "To disable this exception"),
        ("markdownlint: which parameter lists the proper nouns to capitalize", ("names",), "md044.md",
         "names: List of proper"),
        ("why does markdownlint treat my text above a --- line as a heading", ("setext-style heading",),
         "md003.md", "The placement of a horizontal rule"),
        ("can a markdownlint custom rule be async", ("asynchronous",), "CustomRules.md",
         "If a rule needs to perform asynchronous operations"),
        ("which parser should custom markdownlint rules use", ("micromark",), "CustomRules.md",
         "Custom rules can (should) operate"),
    ),
    "korean-pykrx": (
        ("pykrx 설치 어떻게 해요?", ("pip install pykrx",), "README.md", "pip을 사용해서 쉽게 설치"),
        ("pykrx 로그인에 필요한 환경변수는?", ("KRX_ID",), "README.md", "KRX 로그인이 필요한 API를 사용하려면"),
        ("pykrx 최소 파이썬 버전", (">=3.10",), "README.md", "런타임 최소 요구"),
        ("pykrx 권장 파이썬 버전은 뭐예요?", ("3.11",), "README.md", "권장 개발/사용 버전"),
        ("pykrx 티커로 종목 이름 알아내는 함수", ("get_market_ticker_name",), "README.md",
         "함수에 티커를 입력하면 종목이름을 반환"),
        ("get_market_ohlcv frequency 파라미터 m은 뭘 의미해요?", ("월",), "README.md", "frequency 파라미터"),
        ("pykrx 수정주가 반영 안 하려면 어떤 파라미터?", ("adjusted",), "README.md", "adjusted 파라미터"),
        ("get_market_ohlcv에 시장을 안 넣으면 어느 시장을 조회하나요?", ("코스피",), "README.md",
         "값을 입력하지 않는다면"),
        ("pykrx 데이터 저작권은 누구에게 있나요", ("각 제공처",), "README.md", "데이터의 저작권은"),
        ("pykrx 통합 테스트는 HTTP 요청을 어떻게 녹화하나요?", ("vcrpy",), "CONTRIBUTING.md",
         "를 사용하여 HTTP 요청을 녹화"),
        ("pykrx cassette 파일 git에 커밋해야 돼요?", ("커밋되어야",), "CONTRIBUTING.md", "Cassette 파일은 Git에"),
        ("pykrx live 테스트는 CI에서 돌아가나요?", ("CI에서 제외",), "CONTRIBUTING.md", "실제 서버 interface 점검"),
    ),
    "korean-moment": (
        ("카카오모먼트 mcp 비즈머니 잔액 보는 도구 이름?", ("get_bizmoney",), "kakao-moment-mcp/README.md",
         "비즈머니 잔액 + 최근 7일 추이"),
        ("kakao moment mcp 로그 레벨 기본값 뭐야", ("INFO",), "kakao-moment-mcp/README.md",
         "DEBUG / INFO / WARNING / ERROR"),
        ("KAKAO_REDIRECT_URI 기본값은?", ("http://localhost:8765/callback",), "kakao-moment-mcp/README.md",
         "OAuth 콜백"),
        ("카카오모먼트 mcp 로그 파일 경로 기본값", ("~/.kakao-moment-mcp/logs",), "kakao-moment-mcp/README.md",
         "파일 로그 경로"),
        ("카카오 디벨로퍼스에서 Redirect URI 뭐로 등록해요?", ("http://localhost:8765/callback",),
         "kakao-moment-mcp/README.md", "Redirect URI 등록"),
        ("윈도우에서 kakao-moment 인스톨러 파일 이름은?", ("install-windows.bat",), "kakao-moment-mcp/README.md",
         "SmartScreen 경고"),
        ("kakao moment mcp 설치 문제 진단하는 명령어", ("kakao-moment-mcp-doctor",), "kakao-moment-mcp/README.md",
         "kakao-moment-mcp-doctor"),
        ("Claude Code에 kakao-moment 등록하는 명령?", ("claude mcp add kakao-moment",), "kakao-moment-mcp/README.md",
         "claude mcp add kakao-moment -- uvx"),
        ("카카오모먼트 mcp 로그 며칠 보관해?", ("7일",), "kakao-moment-mcp/README.md", "자정 회전, 7일 보관"),
        ("kakao-moment-mcp: which env var holds the ad account id?", ("KAKAO_AD_ACCOUNT_ID",),
         "kakao-moment-mcp/README.md", "광고계정 ID (숫자)"),
        ("광고그룹 입찰가 바꾸는 kakao-moment 도구는?", ("update_adgroup_bid",), "kakao-moment-mcp/README.md",
         "광고그룹 입찰가 변경"),
        ("Client Secret 활성화는 카카오 콘솔 어디서 해요?", ("앱 → 보안 → Client Secret",),
         "kakao-moment-mcp/README.md", "앱 → 보안 → Client Secret"),
        ("MS 스토어 버전 Claude Desktop에서 kakao-moment 안 되면 권장 해결책?", ("표준 인스톨러",),
         "kakao-moment-mcp/README.md", "표준 인스톨러 버전 사용"),
        ("python-kis는 파이썬 몇 버전 기준이에요?", ("3.11",), "python-kis/README.md", "파이썬 3.11을 기준으로"),
        ("python-kis 설치 명령어", ("pip install python-kis",), "python-kis/README.md", "pip install python-kis"),
        ("python-kis 시세 조회는 무슨 함수로 해요?", ("quote",), "python-kis/README.md",
         "함수를 이용하여 국내주식 및 해외주식의 시세"),
        ("python-kis 잔고 조회 함수", ("balance",), "python-kis/README.md", "함수를 이용하여 예수금 및 보유 종목"),
        ("python-kis 웹소켓 연결 끊기면 어떻게 돼요?", ("복구",), "python-kis/README.md", "완벽히 복구할 수 있도록"),
        ("python-kis가 쓰는 websocket-client 버전?", ("1.8.0",), "python-kis/README.md", "websocket-client>=1.8.0"),
        ("which python version is python-kis written for?", ("3.11",), "python-kis/README.md",
         "파이썬 3.11을 기준으로"),
        ("한국투자증권 앱 키는 어디서 신청해요? python-kis", ("KIS Developers",), "python-kis/README.md",
         "KIS Developers 서비스를 통해 신청"),
        ("hwpx-kit 수동 설치 pip 명령", ("pip install hwpx-kit-cli",), "hwpx-kit-cli/README.md",
         "pip install hwpx-kit-cli"),
        ("hwpx-kit 종료 코드 2는 무슨 뜻?", ("부분 성공",), "hwpx-kit-cli/README.md", "종료 코드"),
        ("hwpx-kit 누름틀 필드 채우는 키 형식?", ("clickhere:<이름>",), "hwpx-kit-cli/README.md", "누름틀 필드"),
        (".hwp 변환하려면 hwpx-kit에 뭐가 필요해요?", ("한컴오피스",), "hwpx-kit-cli/README.md",
         "Windows + 한글(한컴오피스)"),
        ("hwpx-kit 자동 테스트 몇 개야", ("212개",), "hwpx-kit-cli/README.md", "자동 테스트 212개"),
        ("금액 한글로 바꿔주는 hwpx-kit 스킬 이름", ("format-convert",), "hwpx-kit-cli/README.md",
         "금액 병기·날짜 요일"),
        ("hwpx-kit license?", ("Apache-2.0",), "hwpx-kit-cli/README.md", "Apache-2.0"),
    ),
    "isort-config": (
        ("how many parent folders does isort search for a config file", ("25",), "configuration/config_files.md",
         "traverse up to 25 parent directories"),
        ("does isort merge settings from several config files?", ("never merges",),
         "configuration/config_files.md", "never merges config files together"),
        ("how do I check which config file isort picked up", ("--show-config", "--verbose"),
         "configuration/config_files.md", "You can always introspect the configuration settings"),
        ("how do I make isort ignore a whole file", ("skip_file",), "configuration/action_comments.md",
         "Tells isort to skip the entire file"),
        ("comment to keep isort from sorting one import line", ("isort: skip",), "configuration/action_comments.md",
         "If placed on the same line as"),
        ("can I still use multi line output mode 6 in isort?", ("Deprecated",),
         "configuration/multi_line_output_modes.md", "Same as Mode 5"),
        ("how many multi line output modes does isort have", ("12",), "configuration/multi_line_output_modes.md",
         "has 12 possible settings"),
        ("what line length does the black profile of isort set", ("88",), "configuration/profiles.md",
         "line_length: 88"),
        ("isort 5 no longer moves imports to the top, how do I get that back", ("--float-to-top", "float_to_top=true"),
         "upgrade_guides/5.0.0.md", "If you want to move all imports to the top"),
        ("isort 5 says --recursive is deprecated, what should I do", ("should simply be removed",),
         "upgrade_guides/5.0.0.md", "The --recursive option was necessary"),
        ("isort warning W0501 meaning", ("will be ignored",), "warning_and_error_codes/W0500.md",
         "This warning will be shown if a CLI flag is passed into the isort command that is no longer supported "
         "but can safely be ignored"),
        ("does isort have any dependencies?", ("never have dependencies",), "major_releases/release_policy.md",
         "isort will never have dependencies"),
        ("since which isort version is black compatibility built in", ("version 5",),
         "configuration/black_compatibility.md", "comes baked in starting with version 5"),
        # an option asked by the name it is typed as, its definition under a heading spelling it in words, its
        # mentions elsewhere (a profile's items, another option's prose)
        ("isort force_sort_within_sections default?", ("False",), "configuration/options.md",
         "Python & Config File Name: force_sort_within_sections"),
        ("what does --show-config do in isort", ("sources of config options",), "configuration/options.md",
         "See isort's determined config"),
        ("what does --float-to-top do in isort", ("float to the top of the file",), "configuration/options.md",
         "Causes all non-indented imports to float to the top"),
    ),
    # asked the way people type FAQ-ish questions: "can I…", "why…", "does it…", "how do I skip…", in words that
    # are not the heading's; the answer in an FAQ entry, a configuration section, the installation page, a guide
    "molecule-faq": (
        ("does molecule check idempotence itself or just look at ansible's output?", ("converge action twice",),
         "faq.md", "Molecule will simply run the converge action"),
        ("idempotence keeps failing in molecule, is that a molecule bug?", ("underlying Ansible report",),
         "faq.md", "it is typically related to the underlying Ansible report"),
        ("why does molecule call the ansible command line instead of importing ansible",
         ("not intended for direct consumption",), "faq.md", "Ansible provides a Python API"),
        ("how do I give each CI job its own instance name in molecule", ("INSTANCE_UUID",), "faq.md",
         "Molecule will resolve the INSTANCE_UUID"),
        ("molecule 6: where did the roles path setting go?", ("ansible.cfg",), "faq.md", "As of molecule v6"),
        ("can molecule test a role that lives in one big repository with other roles?",
         ("automatically picked up",), "faq.md", "with other roles are"),
        ("how to pull in a role only while testing with molecule, not as a real dependency", ("MOLECULE_FILE",),
         "faq.md", "when: lookup"),
        ("can I run molecule playbooks with ansible-navigator?", ("executor",), "faq.md",
         "using ansible-navigator as executor backend"),
        ("is there anything else like molecule for testing ansible roles", ("RoleSpec",), "faq.md", "RoleSpec"),
        ("how do I skip the prerun step in molecule", ("prerun: false",), "configuration.md",
         "you can still disable it"),
        ("molecule fails because my role name is not valid, how do I turn that check off",
         ("role_name_check:1",), "configuration.md", "you can ignore it by adding"),
        ("what does molecule put in molecule.yml when an environment variable is missing", ("empty string",),
         "configuration.md", "If an environment variable is not set"),
        ("how do I write a literal dollar sign in molecule.yml", ("double dollar sign",), "configuration.md",
         "If a literal dollar sign is needed"),
        ("which dependency manager does molecule use out of the box", ("Galaxy",), "configuration.md",
         "Galaxy is the default dependency manager"),
        ("can I install molecule with conda or apt?", ("only supported installation method",), "installation.md",
         "is the only supported installation method"),
        ("does installing molecule give me ansible-lint too?",
         ("does not include ansible-lint", "ansible-lint is not included"), "installation.md",
         "Molecule does not include ansible-lint"),
        ("which driver does molecule use if I don't choose one", ("delegated",), "installation.md",
         "driver by default"),
        ("how do I run several molecule scenarios at the same time", ("--workers",), "guides/parallel.md",
         "Molecule can run"),
        ("can I use --workers together with --destroy=never in molecule?", ("cannot be combined",),
         "guides/parallel.md", "cannot be combined"),
        ("molecule container says it was not booted with systemd as init, how do I fix it", ("/sbin/init",),
         "guides/systemd-container.md", "The container is running the default sleep 1d command"),
        ("how can several molecule scenarios reuse the instances of the default one", ("shared_state: true",),
         "configuration.md", "To enable shared state"),
        # faq13: the guides' prose (a container, sharing, a monolith, a rootless user, podman, the command line,
        # how it runs, CI), written before the product was run on them, in words that are not their headings'
        ("who do I report bugs to when I run molecule from its container image", ("Ansible Dev Tools",),
         "guides/inside-a-container.md", "should be addressed by the Ansible Dev Tools"),
        ("can two molecule scenarios reuse one set of test files", ("shared across scenarios",), "guides/sharing.md",
         "Tests and playbooks can be shared across scenarios."),
        ("how can I see which ANSIBLE_ variables molecule exports during a run", ("--debug",), "guides/monolith.md",
         "environment variables set during a Molecule operation"),
        ("as which user does the molecule docker driver run my playbooks", ("root user",),
         "guides/docker-rootless.md", "executes Ansible playbooks as the"),
        ("a task fails for the unprivileged ansible user in my molecule container, how do I let it use sudo",
         ("become: yes",), "guides/docker-rootless.md", "uncomment `become: yes`"),
        ("my CI only offers docker, can molecule still test podman there?", ("privileged Docker host",),
         "guides/podman-inside-docker.md", "inside a privileged Docker host"),
        ("how do I run just one nested scenario of a molecule collection", ("separator",), "usage.md",
         "be targeted using a"),
        ("which molecule command prints the steps a subcommand will run, in order", ("Matrix will display",),
         "usage.md", "Matrix will display"),
        ("with an ansible-native setup, how do I get an interactive session on a test system", ("ansible-console",),
         "usage.md", "ansible-console"),
        ("does molecule run the cleanup step unless I ask for it?", ("not enabled by default",), "usage.md",
         "This action has cleanup and is not enabled by default."),
        ("what library parses molecule's command-line options", ("Click",), "execution.md",
         "Molecule uses Click for CLI options"),
        ("in which file are molecule's shared CLI options declared", ("click_cfg.py",), "execution.md",
         "click_cfg.py"),
        ("how do I list the environments tox generates for my molecule role tests", ("tox -l",), "ci.md", "tox -l"),
        ("after changing the Dockerfile for a non-root user, what must I run if the image already exists (molecule)",
         ("molecule destroy",), "guides/docker-rootless.md", "Don't forget to run"),
        ("which settings decide the docker image a molecule platform uses", ("pre_build_image",),
         "guides/custom-image.md", "governed by the following configuration"),
    ),
    "mkdocstrings-options": (
        ("which docstring styles can mkdocstrings parse besides google?", ("numpy", "sphinx"),
         "usage/configuration/docstrings.md", "see Numpy style"),
        ("what values does members_order accept in mkdocstrings", ("source",), "usage/configuration/members.md",
         "Order members as they appear in the source file"),
        ("how do I get mkdocstrings to list members in the order they are written in the file",
         ("source",), "usage/configuration/members.md", "Order members as they appear in the source file"),
        ("what does the public filter keep in mkdocstrings", ("__all__",), "usage/configuration/members.md",
         "The public filtering method will include only public objects"),
        ("how do I hide the source code of my functions in the mkdocstrings output", ("show_source",),
         "usage/configuration/general.md", "Show the source code of this object"),
        ("which mkdocstrings option tells it where my packages are", ("paths",), "usage/index.md",
         "provide filesystem paths in which to search for Python modules"),
        ("can backlinks be set per page in mkdocstrings?", ("Global-only option",), "usage/configuration/general.md",
         "For now, the option only works when set globally"),
        ("what docstring section style does mkdocstrings recommend", ("docstring_section_style: list",),
         "usage/index.md", "Tables are generally too large"),
        ("how do I install the python handler of mkdocstrings", ("mkdocstrings[python]",), "usage/index.md",
         "mkdocstrings[python]>=0.18"),
        ("what's the default mkdocstrings handler", ("Python handler",), "usage/index.md",
         "The Python handler is the default"),
        ("is setting PYTHONPATH a good way for mkdocstrings to find my modules?", ("limitations",), "usage/index.md",
         "This method has limitations"),
        ("what does load_external_modules do in mkdocstrings", ("resolving aliases",), "usage/index.md",
         "This option allows resolving aliases"),
        ("mkdocstrings python locale option?", ("Deprecated",), "usage/index.md", "Use mkdocstrings' own"),
        ("what does annotations_path full render in mkdocstrings", ("full path",), "usage/configuration/signatures.md",
         "render annotations with their full path"),
        ("can members be a list in mkdocstrings?", ("explicit list",), "usage/configuration/members.md",
         "An explicit list of members to render"),
        ("max width of signatures before mkdocstrings wraps them, by default?", ("60",),
         "usage/configuration/signatures.md", "60{ title"),
        ("does mkdocstrings show objects that have no docstring by default?", ("False",),
         "usage/configuration/docstrings.md", "Show the object heading even if it has no docstring"),
    ),
    # a user guide's prose, asked the way users type: how do I, can I, why, what happens if; in words that are
    # mostly not the heading's (written before the product was run on the corpus)
    "griffe-guide": (
        ("can griffe read a package that isn't installed, straight from a folder?",
         ("absolute or relative file paths",), "loading.md", "absolute or relative file paths"),
        ("griffe keeps picking my local ./my_package folder, how do I make it use the installed copy instead",
         ("try_relative_path",), "loading.md", "If you want Griffe to use the version installed"),
        ("is calling griffe.load many times wasteful? how do I avoid rescanning the same directories",
         ("instantiate the loader yourself",), "loading.md", "instantiate the loader yourself"),
        ("where does griffe look for packages when I don't give it any paths?", ("sys.path",), "loading.md",
         "By default it will search in the paths found in"),
        ("my .pyi stubs are better documented than the .py files, how do I get griffe to use the stub docstrings",
         ("prefer_stubs_docs=True",), "loading.md", "If your stubs are the authoritative source"),
        ("which docstring wins when the .py file and the .pyi stub both have one?",
         ("docstring from the source file takes precedence",), "loading.md",
         "docstring from the source file takes precedence"),
        ("should I make griffe import my code rather than parse it?", ("we don't recommend forcing inspection",),
         "loading.md", "we don't recommend forcing inspection"),
        ("what happens if griffe can't find the sources and importing is turned off?", ("ModuleNotFoundError",),
         "loading.md", "will instead fail with a"),
        ("my lazily imported module attributes don't show up when griffe introspects the module, why?",
         ("alone does not make these names discoverable",), "loading.md", "alone does not make these names"),
        ("I loaded both packages with griffe.load but the imported name still doesn't resolve, why?",
         ("two distinct collections of modules",), "loading.md", "two distinct collections of modules"),
        ("can griffe load other packages by itself when it follows imports into them?", ("resolve_external=True",),
         "loading.md", "griffe.load(\"package2\", resolve_aliases=True, resolve_external=True)"),
        ("my source links should use the upstream remote, not origin: how do I tell griffe?",
         ("GRIFFE_GIT_REMOTE=upstream",), "loading.md", "GRIFFE_GIT_REMOTE=upstream"),
        ("inside an extension, is obj[\"name\"] safe for looking up members?", ("get_member",), "navigating.md",
         "Griffe extensions should always use"),
        ("why shouldn't I put objects straight into the members dict?", ("will not be automatically updated",),
         "navigating.md", "the assigned member's"),
        ("my class subclasses a namedtuple and griffe shows none of the tuple's fields, is that a known issue?",
         ("named tuples",), "navigating.md", "some objects are not yet properly recognized as classes"),
        ("a subclass with the same name as its parent loses its inherited members in griffe, what can I do?",
         ("give a different name to your subclass",), "navigating.md", "give a different name to your subclass"),
        ("how do I check if something is an alias without resolving it?", ("is_alias",), "navigating.md",
         "which won't trigger resolution"),
        ("how do I jump to the real object at the end of several re-exports?", ("final_target",),
         "navigating.md", "To access the final target directly"),
        ("can an object count as both private and public in griffe?", ("not mutually exclusive",),
         "navigating.md", "not mutually exclusive"),
        ("I switched the docstring parser after loading but the parsed sections are still the old ones, why?",
         ("is cached",), "navigating.md", "attribute is cached"),
        ("can griffe rewrite typing.Union[A, B] annotations as A | B?", ("modernize()",), "navigating.md",
         "To modernize an expression"),
        ("do base classes from packages I never loaded contribute inherited members?",
         ("only classes from already loaded packages",), "navigating.md",
         "only classes from already loaded packages"),
        ("what does griffe check compare against if I give it no reference?", ("latest tag",), "checking.md",
         "By default, Griffe will compare the current code to the latest tag"),
        ("griffe check says it can't find my package that lives under src/, what option do I need?",
         ("--search",), "checking.md", "pass the parent subfolder"),
        ("in griffe check, is -b the old version or the new one?", ("base is the most recent reference",),
         "checking.md", "base is the most recent reference"),
        ("can I compare two versions published on PyPI without a git checkout?", ("griffe[pypi]",),
         "checking.md", "This feature requires that you install Griffe with the"),
        ("does swapping the order of two positional parameters count as a breaking change?",
         ("silently break",), "checking.md", "Moving the order of positional parameters"),
        ("how do I phase out a function parameter without breaking callers right away?",
         ("swallowing it in a variadic",), "checking.md", "swallowing it in a variadic"),
        ("will griffe tell me if a function's return type became incompatible?", ("Not yet supported",),
         "checking.md", "Not yet supported"),
        ("why doesn't griffe report changed constant values anymore?", ("almost always emits false-positives",),
         "checking.md", "almost always emits false-positives"),
        ("I want the list of API breakages in a form I can paste into my changelog",
         ("-f markdown",), "checking.md", "-f markdown"),
        ("can I give options to an extension on the command line?", ("the JSON list does",), "extending.md",
         "the JSON list does"),
        ("which hooks should I use if I need the whole package's data to be complete?",
         ("It is safer to use load events",), "extending.md", "It is safer to use load events"),
        ("can a griffe hook be a plain function instead of a method?", ("never as standalone functions",),
         "extending.md", "never as standalone functions"),
        ("does the on_object hook run for aliases?", ("except for aliases and packages",), "extending.md",
         "except for aliases and packages"),
        ("where can my extension keep its own data on an object?", ("extra attribute",), "extending.md",
         "can store additional (meta)data in their"),
        ("griffe dump is installed with pipx and finds none of my packages, what do I do?", ("--search",),
         "serializing.md", "To explicitly specify search paths"),
        ("why is members an array and not an object in griffe's json output?", ("preserve order",),
         "serializing.md", "to preserve order"),
        ("can I just parse a docstring with griffe without loading any package?",
         ("You don't have to load anything",), "how-to/parse-docstrings.md", "You don't have to load anything"),
        ("my code base mixes google and numpy docstrings, what's the quickest way to handle that?",
         ("auto docstring style",), "how-to/set-docstring-styles.md", "Griffe will use regular expressions to infer"),
        ("does griffe understand decorators I wrote myself?", ("won't be supported by default",),
         "how-to/support-decorators.md", "won't be supported by default"),
        ("are names I import into a module public if they have no leading underscore?",
         ("imported objects are not considered public",), "recommendations/public-apis.md",
         "imported objects are not considered public"),
        ("what's wrong with using __name__ for my loggers?", ("impossible to deprecate a logger name",),
         "recommendations/public-apis.md", "impossible to deprecate a logger name"),
        ("my __init__ defines thing and there is also a thing.py submodule, which one does griffe keep?",
         ("submodule will take precedence",), "recommendations/python-code.md", "submodule will take precedence"),
    ),
    # six plugins' READMEs in one corpus: each question names its plugin the way people type it; defaults,
    # types, what an option does, and an option asked by its description's words (not its name); the same
    # option names (include, exclude, sourceMap, placement) in several plugins or tables
    "plugin-options": (
        ("what's the default of strictRequires in @rollup/plugin-commonjs?", ("true",),
         "rollup-plugin-commonjs.md", "Historically, this plugin tried to hoist"),
        ("rollup commonjs plugin dynamicRequireRoot default", ("process.cwd()",), "rollup-plugin-commonjs.md",
         "To avoid long paths when using the"),
        ("rollup commonjs extensions option default?", ("['.js']",), "rollup-plugin-commonjs.md",
         "For extensionless imports"),
        ("is ignoreDynamicRequires on by default in @rollup/plugin-commonjs?", ("false",),
         "rollup-plugin-commonjs.md", "Some `require` calls cannot be resolved statically"),
        ("does the rollup commonjs plugin generate source maps by default?", ("true",), "rollup-plugin-commonjs.md",
         "skips source map generation for CommonJS modules"),
        ("what type is esmExternals in rollup commonjs", ("boolean | string[]",), "rollup-plugin-commonjs.md",
         "Controls how to render imports from external dependencies"),
        ("strictRequires: which value is recommended for most code bases (rollup commonjs)?", ("auto",),
         "rollup-plugin-commonjs.md", "This is the recommended setting for most code bases"),
        ("what does requireNodeBuiltins do in @rollup/plugin-commonjs", ("createRequire",),
         "rollup-plugin-commonjs.md", "When enabled, external Node built-ins"),
        ("rollup commonjs: how do I keep some require statements as they are instead of converting them",
         ("ignore",), "rollup-plugin-commonjs.md", "Sometimes you have to leave require statements"),
        ("which rollup commonjs option handles files that mix import statements and require calls",
         ("transformMixedEsModules",), "rollup-plugin-commonjs.md", "Instructs the plugin whether to enable mixed"),
        ("rollup commonjs: which setting decides what the default export is when an ES module imports a CommonJS "
         "file?", ("defaultIsModuleExports",), "rollup-plugin-commonjs.md", "Controls what is the default export"),
        ("how do I tell the rollup commonjs plugin that my external dependencies are ES modules",
         ("esmExternals",), "rollup-plugin-commonjs.md", "If you set `esmExternals` to `true`"),
        ("what does rollup commonjs do by default with a require of an external package inside try/catch",
         ("left unconverted",), "rollup-plugin-commonjs.md", "All external `require` calls inside a `try` will be"),
        ("@rollup/plugin-replace preventAssignment default?", ("false",), "rollup-plugin-replace.md",
         "Prevents replacing strings where they are followed by a single equals sign"),
        ("rollup replace turns `process.env.DEBUG = false` into `false = false`, how do I stop that?",
         ("preventAssignment",), "rollup-plugin-replace.md",
         "Prevents replacing strings where they are followed by a single equals sign"),
        ("does @rollup/plugin-replace generate sourcemaps by default?", ("false",), "rollup-plugin-replace.md",
         "Enables generating sourcemaps for the bundled code"),
        ("rollup replace: how do I replace a string everywhere, even inside longer words?", ("['', '']",),
         "rollup-plugin-replace.md", "To ignore word boundaries and replace every instance"),
        ("which @rollup/plugin-replace option also rewrites the typeof checks on the object", ("objectGuards",),
         "rollup-plugin-replace.md", "When replacing dot-separated object properties"),
        ("where should I put @rollup/plugin-replace in the plugins array?", ("before",), "rollup-plugin-replace.md",
         "Typically, `@rollup/plugin-replace` should be placed"),
        ("postcss-import skipDuplicates default?", ("true",), "postcss-import.md",
         "By default, similar files (based on the same content) are being skipped"),
        ("how do I stop postcss-import from warning when an imported file is empty", ("warnOnEmpty",),
         "postcss-import.md", "warns when an empty file is imported"),
        ("postcss-import: what's the default root?", ("process.cwd()",), "postcss-import.md",
         "Define the root where to resolve path"),
        ("load option default in postcss-import", ("null",), "postcss-import.md",
         "You can overwrite the default loading way"),
        ("postcss-import: only inline some of the @imports and leave the others as they are, which option?",
         ("filter",), "postcss-import.md", "Only transform imports for which the test function returns"),
        ("if I pass my own resolver to postcss-import, does addModulesDirectories still apply?", ("ignored",),
         "postcss-import.md", "This option is only for adding additional directories"),
        ("what's the type of the path option in postcss-import", ("String|Array",), "postcss-import.md",
         "A string or an array of paths in where to look for files"),
        ("markdown-it-anchor tabIndex default", ("-1",), "markdown-it-anchor.md", "The `opts` object can contain:"),
        ("how do I get rid of the tabindex attribute markdown-it-anchor puts on headings", ("false",),
         "markdown-it-anchor.md", "can override this behavior with the `tabIndex` option"),
        ("default css class of the permalink link in markdown-it-anchor", ("header-anchor",),
         "markdown-it-anchor.md", "All renderers share a common set of options"),
        ("markdown-it-anchor throws on a duplicate explicit heading id, how do I make it add a suffix instead?",
         ("failOnNonUnique: false",), "markdown-it-anchor.md", "If two headings use the same explicit"),
        ("is safariReaderFix enabled by default in markdown-it-anchor's header link?", ("false",),
         "markdown-it-anchor.md", "This style wraps the header itself in an anchor link"),
        ("which permalink style does the markdown-it-anchor author like best?", ("header link",),
         "markdown-it-anchor.md", "My favorite one is the"),
        ("where does markdown-it-anchor keep the slugs it already used", ("env.markdownItAnchor.slugs",),
         "markdown-it-anchor.md", "Used slugs are stored on"),
        ("rollup-plugin-visualizer default template?", ("treemap",), "rollup-plugin-visualizer.md",
         "Which diagram type to use"),
        ("does rollup visualizer open the chart in the browser by default", ("false",),
         "rollup-plugin-visualizer.md", "Open generated file in default user agent"),
        ("how do I show gzip sizes in rollup-plugin-visualizer", ("gzipSize",), "rollup-plugin-visualizer.md",
         "Collect gzip size from source code"),
        ("rollup visualizer: which option strips my absolute paths out of the file names?", ("projectRoot",),
         "rollup-plugin-visualizer.md", "This is some common root(s) path to your files"),
        ("what does the sourcemap option of rollup-plugin-visualizer do", ("calculate sizes",),
         "rollup-plugin-visualizer.md", "Use sourcemaps to calculate sizes"),
        ("@vitejs/plugin-react exclude default?", ("/node_modules/",), "vitejs-plugin-react.md",
         "You may use it to exclude JSX/TSX files"),
        ("which files does the vite react plugin transform by default", (".tsx",), "vitejs-plugin-react.md",
         "This option can be used to add fast refresh"),
        ("vite react plugin: the automatic JSX transform gives me trouble, how do I opt out of it?", ("jsxRuntime",),
         "vitejs-plugin-react.md", "you may opt out using the"),
        ("vite react plugin logDiagnostics default?", ("false",), "vitejs-plugin-react.md",
         "to log recoverable React Compiler diagnostics"),
        ("@vitejs/plugin-react: which option makes JSX come from @emotion/react?", ("jsxImportSource",),
         "vitejs-plugin-react.md", "Control where the JSX factory is imported from"),
    ),
}
MULTI: dict[str, tuple[Multi, ...]] = {
    "semantic-release": (
        ("semantic-release tagFormat default and its cli flag?",
         ((("v${version}",), "usage/configuration.md", "Default: v${version}"),
          (("--tag-format",), "usage/configuration.md", "--tag-format"))),
        ("semantic-release: run locally without CI, and preview the next version?",
         ((("--no-ci",), "support/FAQ.md", "explicitly setting the"),
          (("dry-run",), "support/FAQ.md", "Yes with the dry-run options"))),
    ),
    "concurrently-cli": (
        ("concurrently flags to kill others on any exit and only on failure?",
         ((("--kill-others",), "cli/terminating.md", "concurrently will terminate other commands once"),
          (("--kill-others-on-fail",), "cli/terminating.md", "concurrently will terminate other commands any"))),
        ("concurrently: what do yarn:<script> and bun:<script> expand to",
         ((("yarn run <script>",), "cli/shortcuts.md", "yarn run <script>"),
          (("bun run <script>",), "cli/shortcuts.md", "bun run <script>"))),
    ),
    "markdownlint-rules": (
        ("markdownlint MD013 default line length and its alias?",
         ((("80",), "md013.md", "line_length: Number of characters"),
          (("line-length",), "md013.md", "Aliases: line-length"))),
        ("markdownlint rules for trailing spaces and for hard tabs?",
         ((("MD009",), "md009.md", "Aliases: no-trailing-spaces"), (("MD010",), "md010.md", "Aliases: no-hard-tabs"))),
    ),
    "korean-pykrx": (
        ("pykrx 필수 환경변수 두 개 뭐예요?",
         ((("KRX_ID",), "README.md", "KRX(한국거래소) 회원 로그인 ID"),
          (("KRX_PW",), "README.md", "KRX(한국거래소) 회원 로그인 비밀번호"))),
        ("pykrx 최소 파이썬 버전이랑 권장 버전은?",
         ((("3.10",), "README.md", "런타임 최소 요구"), (("3.11",), "README.md", "권장 개발/사용 버전"))),
    ),
    "korean-moment": (
        ("kakao-moment-mcp REST API 키랑 광고계정 ID 환경변수 이름은?",
         ((("KAKAO_REST_API_KEY",), "kakao-moment-mcp/README.md", "카카오 디벨로퍼스 앱 REST API 키"),
          (("KAKAO_AD_ACCOUNT_ID",), "kakao-moment-mcp/README.md", "광고계정 ID (숫자)"))),
        ("python-kis 시세 조회랑 잔고 조회 함수는?",
         ((("quote",), "python-kis/README.md", "함수를 이용하여 국내주식 및 해외주식의 시세"),
          (("balance",), "python-kis/README.md", "함수를 이용하여 예수금 및 보유 종목"))),
    ),
    "isort-config": (
        ("isort line length default and its cli flag?",
         ((("79",), "configuration/options.md", "Python & Config File Name: line_length"),
          (("--line-length", "--line-width"), "configuration/options.md", "--line-width"))),
        ("isort comments to turn sorting off and back on?",
         ((("isort: off",), "configuration/action_comments.md", "Turns isort parsing off"),
          (("isort: on",), "configuration/action_comments.md", "Turns isort parsing back on"))),
    ),
    "molecule-faq": (
        ("molecule galaxy role-file and requirements-file default names?",
         ((("requirements.yml",), "configuration.md", "The default value for role-file"),
          (("collections.yml",), "configuration.md", "The default value for role-file"))),
        ("molecule: run scenarios concurrently and keep going after one fails, which flags?",
         ((("--workers",), "guides/parallel.md", "Molecule can run"),
          (("--continue-on-failure",), "guides/parallel.md", "Use --continue-on-failure"))),
    ),
    "mkdocstrings-options": (
        ("mkdocstrings default docstring style and default section style?",
         ((("google",), "usage/configuration/docstrings.md", '"google"{ title'),
          (("table",), "usage/configuration/docstrings.md", '"table"{ title'))),
        ("mkdocstrings members_order and annotations_path defaults?",
         ((("alphabetical",), "usage/configuration/members.md", '"alphabetical"{ title'),
          (("brief",), "usage/configuration/signatures.md", '"brief"{ title'))),
    ),
    "griffe-guide": (
        ("griffe check: which extra do I need to compare PyPI releases, and which option finds a package under src?",
         ((("griffe[pypi]",), "checking.md", "This feature requires that you install Griffe with the"),
          (("--search",), "checking.md", "pass the parent subfolder"))),
        ("griffe.load: how do I stop it importing my code, and how do I let it load other packages to resolve "
         "imports?",
         ((("allow_inspection=False",), "loading.md", "you can choose to disallow dynamic analysis"),
          (("resolve_external=True",), "loading.md",
           "griffe.load(\"package2\", resolve_aliases=True, resolve_external=True)"))),
        ("griffe dump: how do I write the json to a file and one file per package?",
         ((("--output",), "serializing.md", "To output in a file instead of standard output"),
          (("{package}.json",), "serializing.md", "{package}.json"))),
    ),
    "plugin-options": (
        ("rollup commonjs and rollup replace: sourceMap defaults?",
         ((("true",), "rollup-plugin-commonjs.md", "skips source map generation for CommonJS modules"),
          (("false",), "rollup-plugin-replace.md", "Enables generating sourcemaps for the bundled code"))),
        ("markdown-it-anchor default level and default tabIndex?",
         ((("1",), "markdown-it-anchor.md", "The `opts` object can contain:"),
          (("-1",), "markdown-it-anchor.md", "The `opts` object can contain:"))),
        ("rollup-plugin-visualizer: which template does it use and does it open the file, by default?",
         ((("treemap",), "rollup-plugin-visualizer.md", "Which diagram type to use"),
          (("false",), "rollup-plugin-visualizer.md", "Open generated file in default user agent"))),
    ),
}


KIND = SetKind(SPLIT, "tune", "tu", OUT_DIR, DEFAULT_LIMIT, "bench/write_tune_sets.py")


def main() -> None:
    write_sets(__doc__.splitlines()[0], SPECS, KIND, corpus_facts, generated, HAND, MULTI, "tune")


if __name__ == "__main__":
    main()
