#!/usr/bin/env python3
"""The second batch of unseen question sets (data/unseen2/): four more public corpora of four shapes, built the
way the first batch (bench/write_unseen_sets.py) was, after the first batch's totals had been looked at many
times. They are REPORT-only: run them before and after a change and report the totals; never read their answers
to choose a weight or a rule.

================  ===============  =========================================================================
corpus            shape            facts read off
================  ===============  =========================================================================
webpack-options   options-tables   five webpack plugin/loader READMEs: option tables (``| Name | Type |
                                   Default |``) and ``#### `name` `` › ``Default: `x` `` lines, the same
                                   option names in several packages (the question names the package)
dotenv-faq        faq-policy       dotenv's README (an FAQ of question headings, the options) and its dated
                                   changelog (``## [16.4.6](…) (2024-12-02)`` › ``### Changed``); the FAQ
                                   is asked by hand
korean-admdong    korean-prose     Korean tables (environment variables, ``find()`` examples, schemas, file
                                   roles, terms) and pyupbit's API guide (``#### 암호화폐 목록`` › the one
                                   function its first prose names); hand-written Korean and English questions
structlog-guide   guide-changelog  a multi-page guide (asked by hand) and a Keep-a-Changelog history
                                   (``## [25.4.0](…) - 2025-06-02`` › ``### Added`` › ``- … #724``)
================  ===============  =========================================================================

The machinery is the first batch's (``write_unseen_sets.write_sets``, ``hand_questions``; the fact readers of
``write_heldout_sets``, ``write_unseen_sets`` and ``write_tune_sets``); only the per-corpus choice of readers, the
phrasings and the hand-written questions are new. The hand-written questions were written from the documents
before the product was run on any of them.

Run: .venv/bin/python bench/write_unseen2_sets.py [--limit 26]   # → data/unseen2/<corpus>.json
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from _common import CORPORA, ROOT
from write_heldout_sets import (
    _KEEP_RELEASE,
    HeldFact,
    _pick,
    _topic,
    corpus_elements,
    default_facts,
    plain,
    table_facts,
)
from write_tune_sets import heading_function_facts
from write_unseen_sets import Hand, Multi, SetKind, Unseen, dated_changelog_facts, round_robin, write_sets

OUT_DIR = ROOT / "data" / "unseen2"
DEFAULT_LIMIT = 26
SPLIT = "held_out"  # every unseen corpus is report-only

SPECS: dict[str, Unseen] = {s.name: s for s in (
    # five packages in one corpus: a question names the package of its document (the file's stem)
    Unseen("webpack-options", "options-tables", "",
           "html-webpack-plugin 5.6.8, postcss-loader 8.2.1, copy-webpack-plugin 14.0.0, css-loader 7.1.5 and "
           "mini-css-extract-plugin 2.10.2 READMEs (npm): option tables and Type/Default sections"),
    Unseen("dotenv-faq", "faq-policy", "dotenv",
           "dotenv 16.4.7 README.md and CHANGELOG.md (npm): an FAQ section, the options, a dated changelog"),
    # two products: a question names the product of its document (the folder's name)
    Unseen("korean-admdong", "korean-prose", "",
           "admdongkor 0.7.1 README and INDEX_ARCHITECTURE, pyupbit 0.2.33 README (PyPI sdists): Korean prose, "
           "tables, an API guide"),
    Unseen("structlog-guide", "guide-changelog", "structlog",
           "structlog 25.4.0 docs/ and CHANGELOG.md (PyPI sdist): a multi-page guide and a Keep-a-Changelog history"),
)}


# --------------------------------------------------------------------------------------------- fact readers


def _package(document: str) -> str:
    """``css-loader.md`` → ``css-loader``; ``pyupbit/README.md`` → ``pyupbit``."""
    return document.split("/", 1)[0].removesuffix(".md")


def option_facts(elements: Sequence, document: str) -> list[HeldFact]:
    """A webpack README's options: table rows and ``Default: `x` `` lines, each under the package's name (one
    option name, ``publicPath``, ``sourceMap``, ``filter``, is an option of several packages)."""
    package = _package(document)

    def subject(path: tuple[str, ...]) -> str:
        return f"{package} {plain(path[-1])}" if path else package

    found = [*default_facts(elements, document, subject), *table_facts(elements, document, subject)]
    # a row or a line with no heading above it has no gold path to check attribution against
    return [f for f in found if f.path and (f.kind != "table" or f.key.casefold() in ("type", "default"))]


_PR_TAIL = re.compile(r"(?:[\s,]*#\d+)+\.?$")


def keep_a_changelog_pr_facts(elements: Sequence, document: str, product: str) -> list[HeldFact]:
    """``25.4.0 - 2025-06-02`` headings: the release's date; an entry's PR numbers (``#724`` → 25.4.0) and its
    words without them (``Support for Python 3.14 and Python 3.13.4`` → 25.4.0)."""
    return dated_changelog_facts(elements, document, product, _KEEP_RELEASE, _PR_NUMBER, _PR_TAIL, v_prefix=False)


_PR_NUMBER = re.compile(r"#(\d{3,4})\b")


def corpus_facts(corpus: str) -> tuple[list[HeldFact], list[str]]:
    facts: list[HeldFact] = []
    texts: list[str] = []
    for document, elements in corpus_elements(CORPORA / corpus):
        texts.extend(e.text for e in elements)
        if corpus == "webpack-options":
            facts.extend(option_facts(elements, document))
        elif corpus == "dotenv-faq" and document == "CHANGELOG.md":
            facts.extend(dated_changelog_facts(elements, document, "dotenv"))
        elif corpus == "dotenv-faq":
            facts.extend(default_facts(elements, document, lambda path: plain(path[-1]) if path else ""))
        elif corpus == "korean-admdong":
            facts.extend(table_facts(elements, document, lambda path: plain(path[-1]) if path else ""))
            facts.extend(heading_function_facts(elements, document))
        elif corpus == "structlog-guide" and document == "CHANGELOG.md":
            facts.extend(keep_a_changelog_pr_facts(elements, document, "structlog"))
    # a row with no key, a value cut inside parentheses, a "default" that is a sentence: each asks nothing
    facts = [f for f in facts if (f.kind != "table" or f.entity) and f.value.count("(") == f.value.count(")")
             and not (f.kind == "default" and f.value.endswith("."))]
    return list(dict.fromkeys(facts)), texts


# --------------------------------------------------------------------------------------------- questions

_CALL = re.compile(r"^(\w+)\(.*$")  # "find(name, level=None, …) -> FindResult" is asked as "find"


def ask(spec: Unseen, fact: HeldFact, qid: str) -> str:
    """The question as a person types it (one of a few phrasings, fixed per fact)."""
    s, k, e = fact.subject, fact.key, fact.entity
    tool = spec.tool or _package(fact.document)
    if fact.kind == "release_date":
        return _pick([f"when was {e} {s} released?", f"{e} {s} release date", f"what day did {e} {s} come out"], qid)
    if fact.kind == "fixed_in":
        return _pick([f"which {e} release has #{k}?", f"{e} #{k} - in what version?",
                      f"what version of {e} included #{k}"], qid)
    if fact.kind == "changed_in":
        change = s[0].lower() + s[1:]
        return _pick([f"which {e} version: {change}?", f"in what {e} release did this land: {change}",
                      f"{e} changelog - when was \"{change}\""], qid)
    if fact.kind == "function":
        return _pick([f"{tool}에서 {s} 하는 함수는?", f"{tool} {s} 어떤 함수 써요?",
                      f"{_topic(s)} {tool} 무슨 함수로 하나요?"], qid)
    if fact.kind == "default":
        option = s.removeprefix(f"{tool} ")
        return _pick([f"{tool} {option} default?", f"what's the default for {option} in {tool}",
                      f"if I don't set {option}, what does {tool} use?"], qid)
    if re.search(r"[\uac00-\ud7a3]", f"{s}{k}{e}"):
        s = _CALL.sub(r"\1", s)
        where = tool if s in ("", tool) else f"{tool} {s}"  # the README's top table sits under the product name
        return _pick([f"{where}에서 {e}의 {k} 알려줘", f"{e} {k} 뭐예요? ({where})",
                      f"{where} 표에서 {e}의 {_topic(k)} 어떻게 되나요?"], qid)
    option = s.removeprefix(f"{tool} ")
    return _pick([f"{tool} {option} {k.lower()} of {e}?", f"what's the {k.lower()} for {e} in {tool} ({option})",
                  f"{e} - {k.lower()}? ({tool} {option})"], qid)


def generated(corpus: str, facts: Sequence[HeldFact], limit: int) -> list[dict]:
    """Round-robin over the kinds, and within a kind over the documents (as the first batch)."""
    return round_robin(SPECS[corpus], facts, limit, ask, "u2", "unseen2")


# Hand-written per corpus, from the documents, before the product was run on them: (question, answers, document,
# a text the gold element holds). Multi-fact: (question, ((answers, document, anchor), ...)); the first is its gold.
HAND: dict[str, tuple[Hand, ...]] = {
    "webpack-options": (
        ("html-webpack-plugin: how do I generate more than one html file?", ("declare the plugin more than once",),
         "html-webpack-plugin.md", "To generate more than one HTML file"),
        ("what does html-webpack-plugin minify the html with", ("html-minifier-terser",), "html-webpack-plugin.md",
         "the generated HTML will be minified using"),
        ("html-webpack-plugin long term caching - what do I put in the filename?", ("contenthash",),
         "html-webpack-plugin.md", "For long term caching add"),
        ("postcss-loader recommended config file name", ("postcss.config.js",), "postcss-loader.md",
         "CommonJS module exporting an object"),
        ("which devtool values turn off source maps in postcss-loader?", ("eval",), "postcss-loader.md",
         "All values enable source map generation except"),
        ("copy-webpack-plugin: don't fail the build when a file to copy is missing", ("noErrorOnMissing",),
         "copy-webpack-plugin.md", "Doesn't generate an error if file(s) are missing"),
        ("css-loader: how do I make loaders before it apply to @import-ed files?", ("importLoaders",),
         "css-loader.md", "The option importLoaders allows you to configure"),
        ("can I use style-loader together with mini-css-extract-plugin?",
         ("Do not use style-loader and mini-css-extract-plugin together",), "mini-css-extract-plugin.md",
         "Important: Do not use"),
        ("mini-css-extract-plugin in development mode - what should inject the css instead, it's faster?",
         ("style-loader",), "mini-css-extract-plugin.md", "For development mode"),
        ("mini-css-extract-plugin output css file name by default", ("[name].css",), "mini-css-extract-plugin.md",
         "Default: [name].css"),
        ("mini-css-extract-plugin: how do I get rid of the conflicting order warnings?", ("ignoreOrder",),
         "mini-css-extract-plugin.md", "Remove Order Warnings"),
        ("mini-css-extract-plugin link type default", ("text/css",), "mini-css-extract-plugin.md",
         "Default: text/css"),
        ("copy-webpack-plugin: overwrite files other plugins already emitted", ("force",), "copy-webpack-plugin.md",
         "Overwrites files that already exist"),
        ("copy-webpack-plugin, two patterns copy to the same name - which one wins?",
         ("higher priority will be copied later",), "copy-webpack-plugin.md",
         "Files for patterns with higher priority"),
        ("postcss-loader option for CSS-in-JS styles", ("execute",), "postcss-loader.md",
         "Enable PostCSS parser support for"),
        ("css-loader: export the styles as a constructable CSSStyleSheet, which option?", ("exportType",),
         "css-loader.md", "Allows exporting styles as array"),
        ("make css-loader output CommonJS instead of ES modules", ("esModule",), "css-loader.md",
         "You can enable CommonJS module syntax using"),
        ("postcss-loader: use a different PostCSS version than the installed one", ("implementation",),
         "postcss-loader.md", "The special implementation option"),
    ),
    "dotenv-faq": (
        ("my .env file isn't loading, how do I find out why (dotenv)?", ("debug mode",), "README.md",
         "Turn on debug mode"),
        ("should I commit .env to git? dotenv", ("recommend against committing",), "README.md",
         "recommend against committing"),
        ("dotenv: what file do I use for production env vars?", (".env.production",), "README.md",
         "one .env file per environment"),
        ("env vars don't show up in my create-react-app app with dotenv", ("REACT_APP_",), "README.md",
         "Preface your environment variables"),
        ("how do I use dotenv with ES modules import syntax", ("import 'dotenv/config'",), "README.md",
         "index.mjs (ESM)"),
        ("dotenv Module not found: Error: Can't resolve 'crypto' in webpack 5 - fix?",
         ("node-polyfill-webpack-plugin",), "README.md", "npm install node-polyfill-webpack-plugin"),
        ("can dotenv expand variables like ${OTHER_VAR}?", ("dotenv-expand",), "README.md",
         "need to add the value of another variable"),
        ("I accidentally committed my .env file, what now?", ("remove git history",), "README.md", "Remove it"),
        ("what does dotenv do if an env var is already set on my machine", ("never modify",), "README.md",
         "By default, we will never modify"),
        ("load dotenv without requiring it in my code", ("node -r dotenv/config",), "README.md",
         "node -r dotenv/config your_script.js"),
        ("dotenv: my value has a # in it and gets cut off", ("wrap it in quotes",), "README.md",
         "please wrap it in quotes"),
        ("since which dotenv version are multiline values supported?", ("v15.0.0",), "README.md",
         "If you need multiline variables"),
    ),
    "korean-admdong": (
        ("admdongkor get()이 돌려주는 지도 좌표계는?", ("EPSG:5179",), "admdongkor/README.md",
         "반환 CRS 는 항상 EPSG:5179"),
        ("admdongkor 인덱스 다운로드 용량 얼마나 돼요?", ("5.8MB",), "admdongkor/README.md", "약 5.8MB"),
        ("admdongkor 1975~2015 버전 키 형식", ("YYYY1231",), "admdongkor/README.md", "(1975–2015)"),
        ("admdongkor 캐시 폴더 리눅스에서는 어디예요?", ("~/.cache/admdongkor/",), "admdongkor/README.md",
         "macOS/Linux"),
        ("admdongkor compare diff에서 첫 번째 버전에만 있는 읍면동 status 값은?", ("only_in_a",),
         "admdongkor/README.md", "첫 번째 버전에만 존재"),
        ("admdongkor 1975년 지도는 왜 emdcd가 NA예요?", ("행안부 10자리 체계가 도입되기 전",), "admdongkor/README.md",
         "이 세 시점은 행안부 10자리 체계가 도입되기 전"),
        ("pyupbit 주문 요청 제한 몇 번까지 돼요?", ("초당 8회, 분당 200회",), "pyupbit/README.md", "주문은 초당 8회"),
        ("pyupbit 웹소켓 쓸 때 주의할 점", ("__name__",), "pyupbit/README.md", "주의: 웹소켓의 multiprocessing"),
        ("pyupbit 로그인 어떻게 해요?", ("pyupbit.Upbit(access, secret)",), "pyupbit/README.md",
         "upbit = pyupbit.Upbit(access, secret)"),
        ("pyupbit 보유 수량 조회 메서드 이름", ("get_balance",), "pyupbit/README.md",
         "메서드는 입력받은 티커의 보유 수량"),
        ("admdongkor: which env var overrides the cache location?", ("ADMDONGKOR_CACHE_DIR",),
         "admdongkor/README.md", "환경변수로 override"),
        ("pyupbit websocket - what can I subscribe to besides ticker and orderbook?", ("transaction",),
         "pyupbit/README.md", "첫 번째 파라미터에는 수신정보를 입력하며"),
        ("admdongkor compare default threshold?", ("0.99",), "admdongkor/README.md", "threshold=0.99"),
    ),
    "structlog-guide": (
        ("structlog how do I capture logs in my tests", ("capture_logs",), "testing.md", "assertLogs"),
        ("turn off colors in structlog output with an env var", ("NO_COLOR",), "console-output.md",
         "disables colors"),
        ("structlog force colored output even when not a tty", ("FORCE_COLOR",), "console-output.md",
         "activates colors"),
        ("structlog colors on windows - what do I need to install?", ("Colorama",), "getting-started.md",
         "On Windows"),
        ("structlog pretty exceptions in development, what to install", ("Rich", "better-exceptions"),
         "getting-started.md", "If you want pretty exceptions in development"),
        ("downside of cache_logger_on_first_use in structlog?", ("not pickleable",), "performance.md",
         "not pickleable"),
        ("faster json serializer for structlog's JSONRenderer?", ("orjson", "msgspec"), "performance.md",
         "to use a faster JSON serializer"),
        ("structlog contextvars - which processor must come first?", ("merge_contextvars",), "contextvars.md",
         "as your first processor"),
        ("structlog: reset the context-local context at the start of each request", ("clear_contextvars",),
         "contextvars.md", "at the beginning of your request handler"),
        ("keep Rich installed but disable structlog's exception pretty-printing", ("structlog.dev.plain_traceback",),
         "console-output.md", "you can disable the pretty-printing"),
        ("structlog install command", ("python -m pip install structlog",), "getting-started.md",
         "python -m pip install structlog"),
    ),
}
MULTI: dict[str, tuple[Multi, ...]] = {
    "webpack-options": (
        ("html-webpack-plugin: which minifier does it use, and what do I add to the filename for long term caching?",
         ((("html-minifier-terser",), "html-webpack-plugin.md", "the generated HTML will be minified using"),
          (("contenthash",), "html-webpack-plugin.md", "For long term caching add"))),
        ("copy-webpack-plugin concurrency default and css-loader localIdentHashDigestLength default?",
         ((("100",), "copy-webpack-plugin.md", "Default: 100"),
          (("20",), "css-loader.md", "Default: 20"))),
    ),
    "dotenv-faq": (
        ("dotenv config defaults for encoding and path?",
         ((("utf8",), "README.md", "Default: utf8"),
          (("path.resolve(process.cwd(), '.env')",), "README.md", "Default: path.resolve"))),
        ("when were dotenv 16.4.6 and 16.4.5 released?",
         ((("2024-12-02",), "CHANGELOG.md", "16.4.6 (2024-12-02)"),
          (("2024-02-19",), "CHANGELOG.md", "16.4.5 (2024-02-19)"))),
    ),
    "korean-admdong": (
        ("admdongkor 버전 키 형식: 1975–2015 랑 2012–2026 각각 어떻게 돼요?",
         ((("YYYY1231",), "admdongkor/README.md", "(1975–2015)"),
          (("YYYYMMDD",), "admdongkor/README.md", "(2012–2026)"))),
        ("pyupbit 시세 조회 API랑 주문 API 요청 제한 각각?",
         ((("분당 600회, 초당 10회",), "pyupbit/README.md", "호가 API는 분당 600회"),
          (("초당 8회, 분당 200회",), "pyupbit/README.md", "주문은 초당 8회"))),
    ),
    "structlog-guide": (
        ("structlog env vars to force colors and to disable them",
         ((("FORCE_COLOR",), "console-output.md", "activates colors"),
          (("NO_COLOR",), "console-output.md", "disables colors"))),
        ("when were structlog 25.4.0 and 25.3.0 released?",
         ((("2025-06-02",), "CHANGELOG.md", "25.4.0 - 2025-06-02"),
          (("2025-04-25",), "CHANGELOG.md", "25.3.0 - 2025-04-25"))),
    ),
}


KIND = SetKind(SPLIT, "unseen2", "u2", OUT_DIR, DEFAULT_LIMIT, "bench/write_unseen2_sets.py")


def main() -> None:
    write_sets(__doc__.splitlines()[0], SPECS, KIND, corpus_facts, generated, HAND, MULTI, "report-only")


if __name__ == "__main__":
    main()
