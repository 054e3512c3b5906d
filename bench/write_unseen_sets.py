#!/usr/bin/env python3
"""The unseen question sets (data/unseen/): five public corpora of issue 29's shapes that no retrieval or answering
rule was written or tuned against, for an independent check. They are REPORT-only: run them before and after a
change and report the totals; never read their answers to choose a weight or a rule.

=================  ==============  ==========================================================================
corpus             shape           facts read off
=================  ==============  ==========================================================================
bumpversion-ref    options-fields  ``## name`` › ``::: field-list`` (default, type, CLI flag, environment
                                   variable; the parser keeps the block as code), the CalVer code table
httpie-cli         cli             the tables of the one-page CLI docs, the flag a section's heading names
                                   (``### Offline mode`` → ``--offline``), the changelog's release dates and
                                   entries
korean-caselaw     korean-prose    Korean tables (courts, case types, tool parameters) and ``key: value`` items
jupytext-faq       faq-policy      hand-written: the FAQ (questions as headings, prose answers), the config and
                                   CLI pages (no structure states their answers as values)
pydantic-history   changelog       ``## v2.11.7 (2025-06-14)`` release dates, the release of a PR number, the
                                   release of an entry's words
=================  ==============  ==========================================================================

Facts come from the elements the product's parser makes (``core.ingest.parse``), so a gold path is the heading path
an element carries; a fact is kept only with one right answer (``write_heldout_sets.unambiguous``). Each corpus
also has hand-written multi-fact questions (``facts``: answers, gold path, document, from different sections or
documents); ``bench/bench_eval.py`` reports ``all_facts`` for them.

Run: .venv/bin/python bench/write_unseen_sets.py [--limit 36]   # → data/unseen/<corpus>.json
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from _common import CORPORA, ROOT
from write_heldout_sets import (
    HeldFact,
    _elements,
    _path,
    _pick,
    _subject_last,
    _topic,
    corpus_elements,
    gold_forms,
    plain,
    release_date_fact,
    table_facts,
    unambiguous,
)

OUT_DIR = ROOT / "data" / "unseen"
DEFAULT_LIMIT = 36
SPLIT = "held_out"  # every unseen corpus is report-only


@dataclass(frozen=True)
class Unseen:
    name: str
    shape: str
    tool: str  # how a person names the product in a question
    description: str


SPECS: dict[str, Unseen] = {s.name: s for s in (
    Unseen("bumpversion-ref", "options-fields", "bump-my-version",
           "bump-my-version 1.2.0 docs (PyPI sdist): configuration reference as field lists, CalVer tables"),
    Unseen("httpie-cli", "cli", "httpie", "httpie 3.2.4 docs/README.md and CHANGELOG.md (PyPI sdist): CLI docs"),
    Unseen("korean-caselaw", "korean-prose", "caselaw",
           "caselaw-mcp 0.11.0 docs, README and CHANGELOG (PyPI sdist): Korean prose, code and parameter tables"),
    Unseen("jupytext-faq", "faq-policy", "jupytext",
           "jupytext 1.17.2 docs (PyPI sdist): FAQ, configuration, CLI; hand-written questions"),
    Unseen("pydantic-history", "changelog", "pydantic",
           "pydantic 2.11.7 HISTORY.md and README.md (PyPI sdist): a 280 KB changelog"),
)}


# --------------------------------------------------------------------------------------------- fact readers

_FIELD = re.compile(r"(?m)^(?P<key>[a-z][a-z ]+?)\s*\n:\s+(?P<value>\S.*)$")
_FIELD_KEYS = {"default": "default", "type": "type", "command line option": "cli flag",
               "environment var": "env var"}


def field_list_facts(elements: Sequence, document: str) -> list[HeldFact]:
    """``## option`` › ``::: field-list`` › ``default`` / ``: `False` ``: each pair an attribute of the option."""
    out = []
    for element in elements:
        path = _path(element)
        if not path:
            continue
        for match in _FIELD.finditer(element.text):
            key = _FIELD_KEYS.get(match.group("key").strip())
            if key is None:
                continue
            raw = match.group("value").strip()
            spans = re.findall(r"`([^`]+)`", raw)
            value = spans[0] if spans else raw
            if key == "cli flag":
                value = value.split("|")[0].strip()
            if value and len(value) <= 40:
                out.append(HeldFact("field", key, value, path, document, plain(path[-1])))
    return out


_FLAG = re.compile(r"(?<![\w-])--[a-z][a-z-]+(?:=[\w.-]+)?")


def heading_flag_facts(elements: Sequence, document: str) -> list[HeldFact]:
    """A section whose heading names a thing (``### Offline mode``) and whose first prose names one flag
    (``--offline``): the flag is what someone asks for."""
    out = []
    seen: set[tuple[str, ...]] = set()
    for element in elements:
        path = _path(element)
        if not path or path in seen or element.category not in ("NarrativeText", "ListItem"):
            continue
        seen.add(path)  # the section's first prose element only
        flags = list(dict.fromkeys(_FLAG.findall(element.text)))
        heading = plain(path[-1])
        if len(flags) == 1 and "--" not in heading and len(heading.split()) <= 6:
            out.append(HeldFact("flag", "flag", flags[0], path, document, heading))
    return out


_KEEP_DATED = re.compile(r"^v?(?P<version>\d+\.\d+(?:\.\d+)?(?:[ab]\d+)?)\s*\((?P<date>\d{4}-\d{2}-\d{2})\)$")
_PR = re.compile(r"#(\d{3,5})\b")
_BY = re.compile(r"\s+by @[\w-]+(?: and @[\w-]+)*(?: in #\d+.*)?$|\s*\(#\d+(?:, #\d+)*\)\.?$")


def dated_changelog_facts(elements: Sequence, document: str, product: str, release: re.Pattern[str] = _KEEP_DATED,
                          pr: re.Pattern[str] = _PR, tail: re.Pattern[str] = _BY, v_prefix: bool = True,
                          ) -> list[HeldFact]:
    """``v2.11.7 (2025-06-14)`` / ``3.2.4 (2024-11-01)`` headings (or another ``release`` heading): the release's
    date; an entry's PR number and its words without the ``tail`` naming its author or PR (``Rebuild dataclass
    fields before schema generation`` → 2.11.6), answered with or without a leading v (``v_prefix``)."""
    out = []
    for element in elements:
        path = _path(element)
        if (dated := release_date_fact(element, path, release, document, product)) is not None:
            out.append(dated)
            continue
        heading = next((p for p in path if release.match(p)), None)
        if heading is None or element.category != "ListItem":
            continue
        version = release.match(heading).group("version")
        release_path = path[: path.index(heading) + 1]
        answers = (f"v{version}", version) if v_prefix else (version,)
        for number in pr.findall(element.text):
            out.append(HeldFact("fixed_in", number, version, release_path, document, product, entity=product,
                                answers=answers))
        words = tail.sub("", plain(element.text)).rstrip(".")
        if 4 <= len(words.split()) <= 14 and "#" not in words:
            out.append(HeldFact("changed_in", product, version, release_path, document, words, entity=product,
                                answers=answers))
    return out


def corpus_facts(corpus: str) -> tuple[list[HeldFact], list[str]]:
    folder = CORPORA / corpus
    facts: list[HeldFact] = []
    texts: list[str] = []
    for document, elements in corpus_elements(folder):
        texts.extend(e.text for e in elements)
        if corpus == "bumpversion-ref":
            facts.extend(field_list_facts(elements, document))
            facts.extend(table_facts(elements, document, _subject_last))
        elif corpus == "httpie-cli" and document == "CHANGELOG.md":
            facts.extend(dated_changelog_facts(elements, document, "httpie"))
        elif corpus == "httpie-cli":
            facts.extend(heading_flag_facts(elements, document))
            facts.extend(table_facts(elements, document, _subject_last))
        elif corpus == "korean-caselaw" and not document.startswith("promo/"):
            # the promo folder (video scripts, slide guides) stays in the corpus as prose that competes
            facts.extend(table_facts(elements, document, _subject_last))
        elif corpus == "pydantic-history" and document == "HISTORY.md":
            facts.extend(dated_changelog_facts(elements, document, "pydantic"))
    facts = list(dict.fromkeys(facts))
    if corpus == "bumpversion-ref":  # an option described on two pages (global and per file) has two gold paths
        pages = defaultdict(set)
        for fact in facts:
            pages[fact.subject].add(fact.document)
        facts = [f for f in facts if f.kind != "field" or len(pages[f.subject]) == 1]
    return facts, texts


# --------------------------------------------------------------------------------------------- questions


_NUMBERING = re.compile(r"^Q?\d+(?:-\d+)*\.\s+")


def ask(spec: Unseen, fact: HeldFact, qid: str) -> str:
    """The question as a person types it (one of a few phrasings, fixed per fact)."""
    s, k, e, tool = fact.subject, fact.key, fact.entity, spec.tool
    if fact.kind == "field":
        return _pick([f"{tool} {s} {k}?", f"what's the {k} for {s} in {tool}", f"{k} of the {s} option ({tool})"],
                     qid)
    if fact.kind == "flag":
        topic = s[0].lower() + s[1:]
        return _pick([f"{tool} {topic} flag?", f"which {tool} option for {topic}",
                      f"how do I turn on {topic} in {tool}"], qid)
    if fact.kind == "release_date":
        return _pick([f"when was {e} {s} released?", f"{e} {s} release date", f"what day did {e} {s} come out"], qid)
    if fact.kind == "fixed_in":
        return _pick([f"which {e} release has #{k}?", f"{e} #{k} - in what version?",
                      f"what version of {e} included #{k}"], qid)
    if fact.kind == "changed_in":
        change = s[0].lower() + s[1:]
        return _pick([f"which {e} version: {change}?", f"in what {e} release did this land: {change}",
                      f"{e} changelog - when was \"{change}\""], qid)
    if re.search(r"[\uac00-\ud7a3]", f"{s}{k}{e}"):
        s = _NUMBERING.sub("", s)  # "4-3. ping 테스트", "Q6. 정말 무료인가요?": people leave the numbering out
        if fact.kind == "table":
            return _pick([f"{tool} {s}에서 {e}의 {k} 알려줘", f"{e} {k} 뭐예요? ({tool} {s})",
                          f"{tool} {s} 표에서 {e}의 {_topic(k)} 어떻게 되나요?"], qid)
        return _pick([f"{tool} {s} {_topic(k)} 뭔가요?", f"{tool} {s}에서 {_topic(k)} 어떻게 되나요?"], qid)
    if fact.kind == "table":
        return _pick([f"{tool} {s} {k} on {e}?", f"what's the {k} for {e} in the {s} table ({tool})",
                      f"{e} - {k}? ({tool} {s})"], qid)
    return _pick([f"{tool} {s} {k.lower()}?", f"what's the {k.lower()} of {s} in {tool}"], qid)


def question_id(corpus: str, fact: HeldFact, prefix: str = "un") -> str:
    digest = hashlib.sha1("\x1f".join([corpus, fact.document, *fact.path, fact.kind, fact.entity, fact.key,
                                       fact.value, fact.subject]).encode()).hexdigest()[:10]
    return f"{prefix}-{corpus[:4]}-{digest}"


def round_robin(spec: Unseen, facts: Sequence[HeldFact], limit: int, ask: Callable[[Unseen, HeldFact, str], str],
                prefix: str = "un", tag: str = "unseen") -> list[dict]:
    """Round-robin over the kinds, and within a kind over the documents: the whole corpus, every kind asked (each
    batch of unseen sets, with its own ``ask``, id ``prefix`` and ``tag``)."""
    from core.evaluation.metrics import normalise

    corpus = spec.name
    by_kind: dict[str, dict[str, list[HeldFact]]] = defaultdict(lambda: defaultdict(list))
    for fact in sorted(facts, key=lambda f: question_id(corpus, f, prefix)):
        by_kind[fact.kind][fact.document].append(fact)
    queues = []
    for kind in sorted(by_kind):
        documents = by_kind[kind]
        queues.append([f for i in range(max(map(len, documents.values()))) for d in sorted(documents)
                       if i < len(documents[d]) for f in [documents[d][i]]])
    questions: list[dict] = []
    while len(questions) < limit and any(queues):
        for queue in queues:
            if not queue or len(questions) >= limit:
                continue
            fact = queue.pop(0)
            qid = question_id(corpus, fact, prefix)
            question = ask(spec, fact, qid)
            answers = list(fact.answers) or gold_forms(fact.value)
            if any(normalise(a) in normalise(question) for a in answers):
                continue  # the question gives the answer away
            questions.append({
                "id": qid, "question": question, "answers": answers, "gold_path": list(fact.path),
                "document": fact.document, "tags": [tag, spec.shape, fact.kind.replace("_", "-")],
                "corpus": corpus, "shape": spec.shape, "split": SPLIT})
            if fact.kind == "table" and fact.entity:  # the value is in a row: the answer should name the row
                questions[-1]["row_key"] = fact.entity
    return questions


def generated(corpus: str, facts: Sequence[HeldFact], limit: int) -> list[dict]:
    return round_robin(SPECS[corpus], facts, limit, ask)


# Hand-written per corpus: (question, answers, document, a text the gold element holds). A multi-fact question
# lists its facts instead: (question, ((answers, document, anchor), ...)); the first fact is its gold.
Hand = tuple[str, tuple[str, ...], str, str]
Multi = tuple[str, tuple[tuple[tuple[str, ...], str, str], ...]]
HAND: dict[str, tuple[Hand, ...]] = {"jupytext-faq": (
    ("what is jupytext", ("two-way",), "faq.md", "conversion between Jupyter notebooks"),
    ("which jupytext format do you recommend for notebooks with more text than code?", ("Markdown documents",),
     "faq.md", "best represented as Markdown documents"),
    ("jupytext: do I need to close my notebook in jupyter while editing the text file?",
     ("Reload Notebook from disk",), "faq.md", "Reload Notebook from disk"),
    ("which files should I version control with jupytext", ("only the text representation",), "faq.md",
     "only the text representation"),
    ("git shows no diff for the paired ipynb after I edited the text file (jupytext)", ("jupytext --sync",),
     "faq.md", "explicitly run"),
    ("how often does jupyter autosave (jupytext faq)", ("every 2 minutes",), "faq.md", "every 2 minutes"),
    ("jupyter says the file has changed on disk, what do I click", ("Reload",), "faq.md", "You should simply click on"),
    ("jupytext says the ipynb is more recent than the text file, what do I do", ("update the file timestamp",),
     "faq.md", "update the file timestamp"),
    ("install jupytext on jupyterhub in user mode", ("pip install jupytext --user",), "faq.md", "user mode"),
    ("jupytext config file name?", ("jupytext.toml",), "config.md", "as its configuration file"),
    ("jupytext config to pair every notebook in the folder with a percent script", ("ipynb,py:percent",),
     "config.md", 'formats = "ipynb,py:percent"'),
    ("is .jupytext.toml read by jupyter?", ("not effective in Jupyter",), "config.md", "not effective in Jupyter"),
    ("jupytext cli: convert a notebook to a double percent script", ("--to py:percent",), "using-cli.md",
     "jupytext --to py:percent notebook.ipynb"),
    ("what does jupytext --sync do", ("updates all the paired representations",), "using-cli.md",
     "mode that updates all the paired"),
    ("reformat a notebook with black through jupytext", ("--pipe black",), "using-cli.md", "--sync --pipe black"),
    ("jupytext pre-commit hook args to keep pairs in sync", ("--sync",), "using-pre-commit.md", "args: [--sync]"),
    ("percent format cell marker", ("# %%",), "formats-scripts.md", "commented double percent sign"),
    ("install jupytext with conda", ("conda install jupytext -c conda-forge",), "install.md",
     "conda install jupytext"),
    ("what is MyST markdown (jupytext formats)", ("Markedly Structured Text",), "formats-markdown.md",
     "Markedly Structured Text"),
    ("python version needed for the jupytext myst format", ("3.6",), "formats-markdown.md",
     "format requires Python"),
)}
MULTI: dict[str, tuple[Multi, ...]] = {
    "bumpversion-ref": (
        ("bump-my-version: env vars for allow_dirty and for commit?",
         ((("BUMPVERSION_ALLOW_DIRTY",), "reference/configuration/global.md", "BUMPVERSION_ALLOW_DIRTY"),
          (("BUMPVERSION_COMMIT",), "reference/configuration/global.md", "`BUMPVERSION_COMMIT`"))),
        ("calver codes YYYY and 0M in bump-my-version - what do they mean",
         ((("Full year",), "reference/calver_reference.md", "Full year"),
          (("Month, zero-padded",), "reference/calver_reference.md", "Month, zero-padded"))),
    ),
    "httpie-cli": (
        ("httpie: flags to print only headers and only the body?",
         ((("--headers",), "README.md", "Only the response headers are printed"),
          (("--body",), "README.md", "Only the response body is printed"))),
        ("when were httpie 3.2.4 and 3.2.3 released?",
         ((("2024-11-01",), "CHANGELOG.md", "Fix default certs loading"),
          (("2024-07-10",), "CHANGELOG.md", "pinning the requests version"))),
    ),
    "korean-caselaw": (
        ("caselaw 민사랑 형사 사건종류 코드 뭐야?",
         ((("400101",), "CODES.md", "400101"), (("400102",), "CODES.md", "400102"))),
        ("caselaw search_precedent에서 date_from이랑 date_to 형식은?",
         ((("선고일자 시작 YYYYMMDD",), "API_REFERENCE.md", "선고일자 시작"),
          (("선고일자 종료 YYYYMMDD",), "API_REFERENCE.md", "선고일자 종료"))),
    ),
    "jupytext-faq": (
        ("jupytext: recommended format for text-heavy notebooks, and the config file name?",
         ((("Markdown documents",), "faq.md", "best represented as Markdown documents"),
          (("jupytext.toml",), "config.md", "as its configuration file"))),
        ("jupytext cli: how to pair a notebook with a py file, then keep the two in sync",
         ((("--set-formats ipynb,py",), "using-cli.md", "Turn notebook.ipynb into a paired"),
          (("--sync",), "using-cli.md", "Update whichever of notebook.ipynb"))),
    ),
    "pydantic-history": (
        ("pydantic 2.11.7 and 2.11.6 release dates",
         ((("2025-06-14",), "HISTORY.md", "v2.11.7 (2025-06-14)"), (("2025-06-13",), "HISTORY.md",
                                                                    "v2.11.6 (2025-06-13)"))),
        ("which pydantic versions have #11898 and #11949?",
         ((("v2.11.7", "2.11.7"), "HISTORY.md", "v2.11.7 (2025-06-14)"),
          (("v2.11.6", "2.11.6"), "HISTORY.md", "v2.11.6 (2025-06-13)"))),
    ),
}


def _anchored(corpus: str, document: str, anchor: str) -> tuple[str, ...]:
    """The heading path of the first element (a Title only where nothing else holds it) whose text holds
    ``anchor``: where the answer is stated."""
    wanted = plain(anchor).strip("| ")
    elements = _elements(CORPORA / corpus / document, document)
    found = [e for e in elements if e.category != "Table" and wanted in plain(e.text)]
    body = [e for e in found if e.category != "Title"]
    if body:
        return _path(body[0])
    if found:  # the answer is a heading (a release's date): its element's path ends with it
        return (*_path(found[0]), plain(found[0].text))
    raise SystemExit(f"{corpus}/{document}: no element holds {anchor!r}")


@dataclass(frozen=True)
class SetKind:
    """What one writer's sets are: their split, the tag and id prefix of their questions, and where they go."""

    split: str
    tag: str
    prefix: str
    out_dir: Path
    default_limit: int
    writer: str


def hand_questions(corpus: str, spec: Unseen, hand: dict[str, tuple[Hand, ...]],
                   multi: dict[str, tuple[Multi, ...]], kind: SetKind) -> list[dict]:
    out = []
    for question, answers, document, anchor in hand.get(corpus, ()):
        out.append({"id": f"{kind.prefix}-hand-" + hashlib.sha1(question.encode()).hexdigest()[:8],
                    "question": question, "answers": list(answers),
                    "gold_path": list(_anchored(corpus, document, anchor)), "document": document,
                    "tags": [kind.tag, spec.shape, "hand"], "corpus": corpus, "shape": spec.shape,
                    "split": kind.split})
    for question, facts in multi.get(corpus, ()):
        listed = [{"answers": list(a), "gold_path": list(_anchored(corpus, d, anchor)), "document": d}
                  for a, d, anchor in facts]
        out.append({"id": f"{kind.prefix}-multi-" + hashlib.sha1(question.encode()).hexdigest()[:8],
                    "question": question, "answers": listed[0]["answers"], "gold_path": listed[0]["gold_path"],
                    "document": listed[0]["document"], "tags": [kind.tag, spec.shape, "multi-fact"],
                    "facts": listed, "corpus": corpus, "shape": spec.shape, "split": kind.split})
    return out


def write_sets(description: str, specs: dict[str, Unseen], kind: SetKind,
               corpus_facts: Callable[[str], tuple[list[HeldFact], list[str]]],
               generated: Callable[[str, Sequence[HeldFact], int], list[dict]],
               hand: dict[str, tuple[Hand, ...]], multi: dict[str, tuple[Multi, ...]], split_words: str) -> None:
    """The command line of a set writer: each corpus's generated and hand-written questions to ``kind.out_dir``."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--corpus", action="append", choices=sorted(specs), help="corpus to write (default: all)")
    parser.add_argument("--limit", type=int, default=kind.default_limit, help="generated questions per corpus")
    args = parser.parse_args()
    kind.out_dir.mkdir(parents=True, exist_ok=True)
    for corpus in args.corpus or list(specs):
        if not any((CORPORA / corpus).rglob("*.md")):
            parser.error(f"no markdown in {CORPORA / corpus}; run bench/fetch_corpora.py --corpus {corpus} first")
        facts, texts = corpus_facts(corpus)
        kept = unambiguous(facts, texts)
        spec = specs[corpus]
        questions = generated(corpus, kept, args.limit) + hand_questions(corpus, spec, hand, multi, kind)
        data = {"name": f"{kind.tag}-{corpus}", "description": f"{spec.description}; shape {spec.shape}, "
                f"{split_words}; written by {kind.writer}", "questions": questions}
        path = kind.out_dir / f"{corpus}.json"
        path.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {path}: {len(questions)} questions of {len(kept)} unambiguous facts ({len(facts)} found; "
              f"{dict(Counter(f.kind for f in kept))})")


KIND = SetKind(SPLIT, "unseen", "un", OUT_DIR, DEFAULT_LIMIT, "bench/write_unseen_sets.py")


def main() -> None:
    write_sets(__doc__.splitlines()[0], SPECS, KIND, corpus_facts, generated, HAND, MULTI, "report-only")


if __name__ == "__main__":
    main()
