#!/usr/bin/env python3
"""The third batch of unseen question sets (data/unseen3/): four more public corpora of four shapes, built the way
the first two batches were (bench/write_unseen_sets.py, bench/write_unseen2_sets.py), after the second batch's
totals had been read. They are REPORT-only: run them before and after a change and report the totals; never read
their answers to choose a weight or a rule.

=================  ===============  =========================================================================
corpus             shape            facts read off
=================  ===============  =========================================================================
jupyterbook-guide  guide-prose      a user guide of MyST pages (tutorials, how-to, a FAQ page); asked by hand,
                                    plus the flag a section's heading names (``--execute``)
aider-faq          faq-policy       an FAQ page (``## Can I …?`` over prose) and troubleshooting pages; asked
                                    by hand, plus the rows of the FAQ's one table and a section's flag
terser-options     options-readme   a README whose options are list items ``drop_console (default: false) --
                                    …`` under ``## Compress options`` and the like (the question names the
                                    list: ``ecma`` is an option of four of them)
korean-manseryeok  korean-prose     two Korean READMEs: method, error, example and range tables asked in
                                    Korean (``row_key`` set), dated releases ``### v1.0.8 (2026-03-28)``;
                                    hand-written Korean and English questions over the prose
=================  ===============  =========================================================================

The machinery is the first batch's (``write_unseen_sets.write_sets``, ``round_robin``, ``hand_questions``,
``dated_changelog_facts``, ``heading_flag_facts``; ``write_heldout_sets.table_facts`` and ``unambiguous``); only
the per-corpus choice of readers, one reader for options written inline in a list item, the phrasings and the
hand-written questions are new. Every question was written from the documents before the product was run on any
of them, and none was changed after.

Run: .venv/bin/python bench/write_unseen3_sets.py [--limit 18]   # → data/unseen3/<corpus>.json
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from _common import CORPORA, ROOT
from write_heldout_sets import HeldFact, _path, _pick, _topic, corpus_elements, plain, table_facts
from write_unseen_sets import (
    Hand,
    Multi,
    SetKind,
    Unseen,
    dated_changelog_facts,
    heading_flag_facts,
    round_robin,
    write_sets,
)

OUT_DIR = ROOT / "data" / "unseen3"
DEFAULT_LIMIT = 18
SPLIT = "held_out"  # every unseen corpus is report-only

SPECS: dict[str, Unseen] = {s.name: s for s in (
    Unseen("jupyterbook-guide", "guide-prose", "jupyter book",
           "jupyter-book 2.1.7 docs/ (PyPI sdist): a user guide in prose (tutorials, authoring, publishing, "
           "execution, plugins, a FAQ page)"),
    Unseen("aider-faq", "faq-policy", "aider",
           "aider-chat 0.86.2 aider/website/docs faq.md and troubleshooting pages (PyPI sdist): an FAQ page and "
           "troubleshooting pages"),
    Unseen("terser-options", "options-readme", "terser",
           "terser 5.51.4 README.md (npm): an options reference written as a README, options as list items with "
           "their default inline"),
    # two products: a question names the product of its document (the file's stem)
    Unseen("korean-manseryeok", "korean-prose", "",
           "@fullstackfamily/manseryeok 1.0.8 and budongsan-api 1.0.474 READMEs (npm): Korean prose, API and "
           "error tables, a dated change history"),
)}


# --------------------------------------------------------------------------------------------- fact readers

_INLINE_DEFAULT = re.compile(r"^(?P<name>[A-Za-z_$][\w.$]*)\s*\(default:?\s*(?P<value>[^()]+?)\)\s*(?:--|—|-|$)")


def inline_default_facts(elements: Sequence, document: str, tool: str) -> list[HeldFact]:
    """``drop_console (default: false) -- Pass true to …``: a list item naming an option and its default inline,
    asked of the list its heading names (``Compress options`` → ``terser compress drop_console``)."""
    out = []
    for element in elements:
        path = _path(element)
        match = _INLINE_DEFAULT.match(" ".join(element.text.split()))
        if not match or not path or element.category != "ListItem":
            continue
        area = re.sub(r"\s*options$", "", plain(path[-1]), flags=re.I).lower()
        value = match.group("value").strip()
        # most defaults are true/false: the gold is the item's own statement ("drop_console (default: false)"),
        # not a word every other item holds
        stated = " ".join(element.text.split())[: match.end("value") + 1]
        if value and len(value) <= 40:
            out.append(HeldFact("inline_default", match.group("name"), stated, path, document,
                                f"{tool} {area} {match.group('name')}", answers=(stated,)))
    return out


_PRODUCTS = {"fullstackfamily-manseryeok.md": "manseryeok", "budongsan-api.md": "budongsan-api"}
_EMOJI = re.compile(r"^[^\w(]+")


def _product(document: str) -> str:
    return _PRODUCTS.get(document, document.removesuffix(".md"))


def corpus_facts(corpus: str) -> tuple[list[HeldFact], list[str]]:
    facts: list[HeldFact] = []
    texts: list[str] = []
    for document, elements in corpus_elements(CORPORA / corpus):
        texts.extend(e.text for e in elements)
        if corpus in ("jupyterbook-guide", "aider-faq"):
            facts.extend(heading_flag_facts(elements, document))
        if corpus == "aider-faq":
            facts.extend(table_facts(elements, document, lambda path: plain(path[-1]) if path else ""))
        elif corpus == "terser-options":
            facts.extend(inline_default_facts(elements, document, "terser"))
        elif corpus == "korean-manseryeok":
            # a table's heading as people type it: without its emoji ("🏢 BudongsanAPIClass" → "BudongsanAPIClass")
            found = table_facts(elements, document, lambda path: _EMOJI.sub("", plain(path[-1])) if path else "")
            facts.extend(f for f in found if f.kind == "table")
            facts.extend(f for f in dated_changelog_facts(elements, document, _product(document))
                         if f.kind == "release_date")
    # a row with no key, a value cut inside parentheses: each asks nothing; a row named by the tail of another
    # row's name ("gpt-5.2" beside "openai/gpt-5.2") or "None" has no one right answer
    rows = {f.entity for f in facts if f.kind == "table"}
    facts = [f for f in facts if (f.kind != "table" or f.entity) and f.value.count("(") == f.value.count(")")
             and (f.kind != "table" or (f.entity != "None" and not any(r.endswith(f"/{f.entity}") for r in rows)))]
    return list(dict.fromkeys(facts)), texts


# --------------------------------------------------------------------------------------------- questions

_CALL = re.compile(r"^(\w+)\(.*$")  # "getSigunguMap(keyType)" is asked as "getSigunguMap"


def ask(spec: Unseen, fact: HeldFact, qid: str) -> str:
    """The question as a person types it (one of a few phrasings, fixed per fact)."""
    s, k, e = fact.subject, fact.key, fact.entity
    tool = spec.tool or _product(fact.document)
    if fact.kind == "release_date":
        return _pick([f"{e} {s} 언제 나왔어요?", f"{e} v{s} 릴리스 날짜", f"{e} {s} 버전 출시일은?"], qid)
    if fact.kind == "flag":
        topic = s.lower()  # "GitHub Pages" typed as "github pages"
        return _pick([f"{tool} {topic} flag?", f"which {tool} option for {topic}",
                      f"what do I pass to {tool} for {topic}"], qid)
    if fact.kind == "inline_default":
        option = s.removeprefix(f"{tool} ")
        return _pick([f"{tool} {option} default?", f"what's the default of {option} in {tool}",
                      f"if I don't set {option}, what does {tool} use?"], qid)
    if re.search(r"[\uac00-\ud7a3]", f"{s}{k}{e}"):
        entity = _CALL.sub(r"\1", e)
        return _pick([f"{tool} {s}에서 {entity}의 {k} 알려줘", f"{entity} {k} 뭐예요? ({tool} {s})",
                      f"{tool} {s} 표에서 {entity}의 {_topic(k)} 어떻게 되나요?"], qid)
    if k == "Percent":  # aider's FAQ table of the models its author used, asked in words
        return _pick([f"what percent of the tokens used building {tool} went to {e}?",
                      f"{tool} faq models table: {e} share?", f"{e} - percent of the tokens used to build {tool}?"],
                     qid)
    return _pick([f"how many tokens of {e} were used building {tool}?", f"{tool} faq models table: {e} total tokens",
                  f"total tokens for {e} in {tool}'s own usage log?"], qid)


# generated questions per corpus at most: a guide and an FAQ state few values, and the hand-written questions are
# at least half of each set
LIMITS = {"jupyterbook-guide": 14, "aider-faq": 9, "terser-options": 14, "korean-manseryeok": 18}


def generated(corpus: str, facts: Sequence[HeldFact], limit: int) -> list[dict]:
    """Round-robin over the kinds, and within a kind over the documents (as the first two batches)."""
    return round_robin(SPECS[corpus], facts, min(limit, LIMITS[corpus]), ask, "u3", "unseen3")


# Hand-written per corpus, from the documents, before the product was run on them: (question, answers, document,
# a text the gold element holds), mostly in words that are not the heading's. Multi-fact: (question, ((answers,
# document, anchor), ...)); the first is its gold.
HAND: dict[str, tuple[Hand, ...]] = {
    "jupyterbook-guide": (
        ("jupyter book: where does the downloaded theme get cached?", ("_build/templates",),
         "build-and-publish/website.md", "then will be cached in the"),
        ("how long does the first jupyter book start take?", ("up to a minute",), "build-and-publish/website.md",
         "This can take"),
        ("make my jupyter book build fail when a cross-reference is broken", ("--strict",),
         "build-and-publish/website.md", "Use the --strict flag"),
        ("jupyter book myst.yml: what goes under site as opposed to project?", ("template information",),
         "build-and-publish/website.md", "The site holds template information"),
        ("my notebooks show no outputs on the jupyter book site, why?", ("will not execute any notebooks",),
         "execution/execution.md", "By default, Jupyter Book will not execute"),
        ("how do I name a notebook cell's output so I can reference it later (jupyter book)?",
         ("#| label: mylabel",), "execution/execution.md", "#| label: mylabel"),
        ("can I run python code from a plain .md page in jupyter book?", ("code-cell",), "execution/execution.md",
         "To add executable content, use the"),
        ("jupyter book 2 - where does the table of contents live now that _toc.yml is gone?", ("myst.yml",),
         "authoring/table-of-contents.md", "The new Jupyter Book uses"),
        ("does a page called 1_chapter1.md keep the number in its url?", ("without the prefix",),
         "authoring/table-of-contents.md", "File names with numeric prefixes"),
        ("can I keep the jupyter book toc in a file of its own?", ("extends",), "authoring/table-of-contents.md",
         "you can define your table of contents in a separate file"),
        ("what did sections in the old _toc.yml become?", ("children",), "authoring/table-of-contents.md",
         "sections → children"),
        ("do toc entries need the .md extension in jupyter book 2?", ("now required",),
         "authoring/table-of-contents.md", "are now required"),
        ("how do I move an old jupyter book 1 project to version 2?", ("inside your existing book directory",),
         "resources/upgrade.md", "inside your existing book directory"),
        ("what happens to my _config.yml when jupyter book upgrades the project?", ("._config.yml.myst.bak",),
         "resources/upgrade.md", "Back up your original files"),
        ("my page my_page.html has a different address after moving to jupyter book 2", ("replaced with hyphens",),
         "resources/upgrade.md", "Underscores in filenames are replaced"),
        ("what do I use instead of my sphinx extensions in jupyter book 2?", ("MyST plugins",), "resources/faq.md",
         "uses MyST plugins instead of Sphinx extensions"),
        ("pip command to go back to jupyter book 1", ("jupyter-book<2.0",), "resources/downgrade.md",
         'pip install "jupyter-book<2.0"'),
        ("after downgrading, how do I build the book with version 1?", ("jupyter-book build path/to/book",),
         "resources/downgrade.md", "jupyter-book build path/to/book"),
        ("is jupyter book 1 still being developed?", ("maintenance mode",), "resources/faq.md",
         "The Jupyter Book 1 stack is mostly in"),
        ("is there any difference between myst start and jupyter book start?", ("do the same thing",),
         "resources/faq.md", "do the same thing"),
        ("where do I report a jupyter book 2 bug?", ("mystmd",), "resources/faq.md",
         "Most issues should be reported to the"),
        ("publishing to github pages: what do I pick as the source in the repo settings?", ("GitHub Actions",),
         "get-started/publish.md", "set the source to GitHub Actions"),
        ("can one jupyter book page have two # titles?", ("only one title",), "authoring/file-types.md",
         "Each page must have only one title"),
        ("can jupyter book run R notebooks?", ("IRkernel",), "authoring/file-types.md", "IRkernel"),
        ("what does jupyter book use to typeset a pdf?", ("Typst",), "get-started/export-pdfs.md",
         "to typeset books into a high-quality PDFs"),
        ("how do I see which pdf templates jupyter book offers?", ("jupyter book templates list --pdf",),
         "get-started/export-pdfs.md", "jupyter book templates list --pdf"),
        ("which part must I write for the lapreprint-typst template?", ("abstract",), "get-started/export-pdfs.md",
         "we can see that the only"),
    ),
    "aider-faq": (
        ("is it a good idea to put my whole repo in the aider chat?", ("not a good idea",), "faq.md",
         "This is probably not a good idea"),
        ("monorepo: how do I make aider only look at the folder I started it in?", ("--subtree-only",), "faq.md",
         "--subtree-only switch"),
        ("what syntax does the aider ignore file use?", (".gitignore syntax",), "faq.md",
         "This file conforms to"),
        ("can aider work on two git repos at the same time?", ("only work with one repo at a time",), "faq.md",
         "Currently aider can only work"),
        ("aider says Repo-map: disabled - how do I force it on?", ("--map-tokens 1024",), "faq.md",
         "If you would like to force it on"),
        ("why is the repo map turned off for some models?", ("weaker models get easily overwhelmed",), "faq.md",
         "This is because weaker models"),
        ("show aider what changed in my last three commits", ("/run git diff HEAD~3",), "faq.md",
         "/run git diff HEAD~3"),
        ("can I use /git to put a diff into the aider chat?", ("will not work for this purpose",), "faq.md",
         "command will not work for this purpose"),
        ("aider: which flag picks the unified diff coder?", ("--edit-format udiff",), "faq.md",
         "The universal diff coder is currently used"),
        ("where do aider's system prompts live in the source?", ("aider/coders",), "faq.md", "If you look in the"),
        ("see the raw messages aider sends to the model", ("--verbose --no-pretty",), "faq.md",
         "--verbose --no-pretty"),
        ("how much of each release's new code does aider write itself?", ("70%",), "faq.md", "usually about 70%"),
        ("how does aider count the lines it wrote in a release?", ("git blame",), "faq.md",
         "by doing something like"),
        ("aider asked to add a file and then redid my whole request, why?", ("re-submit the original request",),
         "faq.md", "it will re-submit the original request"),
        ("code in aider's replies isn't syntax highlighted anymore", ("different set of fences",), "faq.md",
         "aider needs to tell the LLM to use a different set of fences"),
        ("the model keeps answering me in French in aider", ("--chat-language",), "faq.md",
         "You can explicitly set the language"),
        ("which file holds my aider chat log so I can share it?", (".aider.chat.history.md",), "faq.md",
         "Copy the markdown logs"),
        ("is it safe to change my files while aider is busy?", ("might conflict",), "faq.md", "might conflict"),
        ("what license is aider released under?", ("Apache 2.0",), "faq.md", "Apache 2.0 license"),
        ("windows says 'aider' is not recognized as a cmdlet", ("python -m aider",),
         "troubleshooting/aider-not-found.md", "python -m aider"),
        ("aider keeps failing to apply edits - which edit format should I try?", ("--edit-format whole",),
         "troubleshooting/edit-errors.md", "if were using a different edit format"),
        ("at how much context do models start ignoring aider's system prompt?", ("25k tokens",),
         "troubleshooting/edit-errors.md", "Above about 25k tokens"),
        ("ollama model seems to forget part of my code in aider", ("silently discards data",),
         "troubleshooting/edit-errors.md", "It defaults to be very small"),
        ("aider throws ImportError after pip installing it into my project's env", ("uv or pipx",),
         "troubleshooting/imports.md", "If you are having dependency problems"),
        ("which of aider's dependencies should I be careful upgrading?", ("litellm",), "troubleshooting/imports.md",
         "Also be wary of upgrading"),
        ("I gave aider no API key at all - what happens?", ("OpenRouter",), "troubleshooting/models-and-keys.md",
         "If you have not provided any keys"),
        ("are the token counts aider shows exact?", ("estimates",), "troubleshooting/token-limits.md",
         "The token counts that aider reports are"),
        ("how do I ask aider itself about its settings?", ("/help",), "troubleshooting/support.md",
         "aider will respond with helpful information"),
    ),
    "terser-options": (
        ("terser: remove console.log calls from the bundle", ("drop_console",), "terser.md",
         "Pass true to discard calls to"),
        ("how do I keep license comments with the terser cli?", ("--comments",), "terser.md",
         "You can pass --comments to retain"),
        ("terser: run compress more than once", ("passes",), "terser.md",
         "The maximum number of times to run compress"),
        ("how much faster is terser with compress turned off?", ("3 to 4 times",), "terser.md",
         "One can simply disable compress"),
        ("terser cli for the fast minify mode", ("terser file.js -m",), "terser.md", "terser file.js -m"),
        ("stop terser renaming foo and bar", ("reserved",), "terser.md",
         "Pass an array of identifiers that should be"),
        ("make terser print strings with single quotes", ("quote_style",), "terser.md",
         "preferred quote style for strings"),
        ("terser: add a license header at the top of the output", ("preamble",), "terser.md",
         "it will be prepended to the output literally"),
        ("terser source maps are hard to debug, what should I turn off?", ("disable the compress option",),
         "terser.md", "For highest fidelity in source map debugging"),
        ("all variables show as undefined when I debug terser output", ("map scopes",), "terser.md",
         "make sure you enable the"),
        ("terser: I want the options before the input files on the command line", ("double dash",), "terser.md",
         "separate the two with"),
        ("where does terser read from if I give it no file?", ("STDIN",), "terser.md",
         "If no input file is specified"),
        ("can terser break code that overrides NaN or undefined?", ("have not been externally redefined",),
         "terser.md", "Infinity have not been externally redefined"),
        ("minify several files in one call with the terser api", ("using an object",), "terser.md",
         "more than one JavaScript file at a time"),
        ("is there a synchronous terser minify?", ("minify_sync",), "terser.md", "There is also a"),
        ("terser: longest comma sequence when sequences is true?", ("200",), "terser.md",
         "then the default sequences limit is"),
        ("terser unsafe_arrows needs which ecma?", ("2015",), "terser.md",
         "This transform requires that the ecma compress option"),
        ("what does inline: 3 mean in terser?", ("inline functions with arguments and variables",), "terser.md",
         "inline functions with arguments and variables"),
        ("terser turns 1000000 into 1e6, how do I keep it as written?", ("keep_numbers",), "terser.md",
         "keep number literals as it was in original code"),
    ),
    "korean-manseryeok": (
        ("manseryeok은 어떤 기관 데이터를 기반으로 만들었어요?", ("KASI",), "fullstackfamily-manseryeok.md",
         "음양력변환계산"),
        ("중국 음력 라이브러리 쓰면 안 되나요? 한국 음력이랑 뭐가 달라요?", ("위치가 서로 다른",),
         "fullstackfamily-manseryeok.md", "윤달이 들어가는 위치가 서로 다른"),
        ("manseryeok 설치 명령어", ("npm install @fullstackfamily/manseryeok",), "fullstackfamily-manseryeok.md",
         "npm install @fullstackfamily/manseryeok"),
        ("사주 시주 계산할 때 왜 시간 보정을 해요?", ("진태양시",), "fullstackfamily-manseryeok.md", "진태양시"),
        ("부산 사람 사주 시간 보정 몇 분이에요?", ("-24분 보정",), "fullstackfamily-manseryeok.md", "부산 (129°)"),
        ("시간 보정 안 하면 어떻게 돼요?", ("1시간 차이로 바뀔 수",), "fullstackfamily-manseryeok.md",
         "시간 보정을 하지 않으면"),
        ("calculateSaju 경도 안 넣으면 얼마로 계산해요?", ("기본값: 127",), "fullstackfamily-manseryeok.md",
         "경도 (기본값: 127 - 서울)"),
        ("lunarToSolar에서 윤달 날짜는 어떻게 넘겨요?", ("isLeapMonth",), "fullstackfamily-manseryeok.md",
         "윤달 여부 (기본값: false)"),
        ("getSolarTermByIndex에 24 넣으면 무슨 에러 나요?", ("RangeError",), "fullstackfamily-manseryeok.md",
         "RangeError: 유효하지 않은 인덱스"),
        ("solarToLunar에 2051년 넣으면 무슨 에러?", ("OutOfRangeError",), "fullstackfamily-manseryeok.md",
         "OutOfRangeError: 지원 범위 밖 연도"),
        ("manseryeok 원본 데이터 얼마나 줄였어요?", ("98% 감소",), "fullstackfamily-manseryeok.md",
         "데이터 압축 최적화로"),
        ("사주 월은 음력 초하루 기준이에요?", ("절기(節氣)를 기준으로",), "fullstackfamily-manseryeok.md",
         "사주에서 월주는 절기(節氣)를 기준으로 계산합니다"),
        ("budongsan-api 노드 버전 몇 이상이어야 돼요?", ("14.0.0",), "budongsan-api.md", "Node.js 14.0.0 이상"),
        ("budongsan-api 서비스 키는 어디서 받아요?", ("공공데이터포털",), "budongsan-api.md", "회원가입"),
        ("budongsan-api 서비스 키 환경변수 이름", ("BUDONGSAN_API_KEY",), "budongsan-api.md",
         "BUDONGSAN_API_KEY=your_service_key_here"),
        ("what does manseryeok's getSajuMonth return?", ("number (1~12)",), "fullstackfamily-manseryeok.md",
         "number (1~12)"),
        ("budongsan-api: how do I add it with yarn?", ("yarn add budongsan-api",), "budongsan-api.md",
         "yarn add budongsan-api"),
        ("does manseryeok need a database installed?", ("데이터베이스 설치 불필요",), "fullstackfamily-manseryeok.md",
         "별도의 데이터베이스 설치 불필요"),
    ),
}
MULTI: dict[str, tuple[Multi, ...]] = {
    "jupyterbook-guide": (
        ("jupyter book: flag to run notebooks while building, and flag to fail the build on warnings?",
         ((("--execute",), "execution/execution.md", "use the --execute flag"),
          (("--strict",), "build-and-publish/website.md", "Use the --strict flag"))),
        ("going back to jupyter book 1: the pip command, then the build command?",
         ((("jupyter-book<2.0",), "resources/downgrade.md", 'pip install "jupyter-book<2.0"'),
          (("jupyter-book build path/to/book",), "resources/downgrade.md", "jupyter-book build path/to/book"))),
    ),
    "aider-faq": (
        ("aider: how do I force the repo map on, and how do I set the language it answers in?",
         ((("--map-tokens 1024",), "faq.md", "If you would like to force it on"),
          (("--chat-language",), "faq.md", "You can explicitly set the language"))),
        ("aider edits won't apply: which edit format to try, and which mode proposes first and edits second?",
         ((("--edit-format whole",), "troubleshooting/edit-errors.md", "if were using a different edit format"),
          (("--architect",), "troubleshooting/edit-errors.md", "This mode first proposes changes"))),
    ),
    "terser-options": (
        ("terser defaults: comments in the output format, and pure_getters in compress?",
         ((('comments (default "some")',), "terser.md", "by default it keeps JSDoc-style comments"),
          (('pure_getters (default: "strict")',), "terser.md", "If you pass true for"))),
        ("terser: which option drops console calls, and which stops Infinity becoming 1/0?",
         ((("drop_console",), "terser.md", "Pass true to discard calls to"),
          (("keep_infinity",), "terser.md", "being compressed into 1/0"))),
    ),
    "korean-manseryeok": (
        ("manseryeok 서울이랑 강릉 시간 보정 각각 몇 분이에요?",
         ((("-32분 보정",), "fullstackfamily-manseryeok.md", "서울 (127°)"),
          (("-28분 보정",), "fullstackfamily-manseryeok.md", "강릉 (128°)"))),
        ("budongsan-api 쓰려면 필요한 거: 노드 버전이랑 키?",
         ((("14.0.0",), "budongsan-api.md", "Node.js 14.0.0 이상"),
          (("공공데이터포털 API 키",), "budongsan-api.md", "공공데이터포털 API 키"))),
    ),
}


KIND = SetKind(SPLIT, "unseen3", "u3", OUT_DIR, DEFAULT_LIMIT, "bench/write_unseen3_sets.py")


def main() -> None:
    write_sets(__doc__.splitlines()[0], SPECS, KIND, corpus_facts, generated, HAND, MULTI, "report-only")


if __name__ == "__main__":
    main()
