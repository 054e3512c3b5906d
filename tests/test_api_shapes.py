"""Questions about an API reference as people type them (issue 21, held-out shapes): the API named without its
parameters, the option as a bare word, "default" left unsaid ("What does `zlib.createDeflate` use for level if I
don't pass one?"). Unit tests on the statements, shapes and heading matching, then the real pipeline (real
Postgres, the real offline embeddings) on a small reference in three layouts: a Node.js-style parameter list, an
option per heading with "Defaults to …" prose, and an option heading over a bare "+ Default: …" item."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from core.retrieval.headings import HeadingIndex, HeadingRef, best_headings, called_names, word_factors
from core.retrieval.shape import attribute_identifiers, name_runs, split_preamble
from core.statements import (
    asks_default,
    documented_statement,
    expanded_query,
    name_share,
    option_heading,
    question_terms,
    statement,
    without_default_phrases,
)

# -- asking for a default in other words ------------------------------------------------------------------------


@pytest.mark.parametrize("question", [
    "What does `fs.readFile` use for encoding if I don't pass one?",
    "If I leave out inflate, what does `bodyParser.json` fall back to?",
    "What hidden does `serveIndex` use when I don't set it?",
    "What timeout applies when it is not set?",
    "What is the limit without passing one?",
    "timeout 지정하지 않으면 얼마?",
])
def test_other_words_for_a_default_ask_for_the_default(question):
    assert asks_default(question)
    assert "default" in question_terms(question)
    assert "default" in expanded_query(question).split()  # full-text search looks for "Default: …" lines


def test_the_words_of_the_phrase_name_nothing():
    plain = without_default_phrases("What does `fs.readFile` use for encoding if I don't pass one?")
    assert "pass" not in plain and "one" not in plain and "encoding" in plain and "`fs.readFile`" in plain
    assert not {"pass", "don", "leav", "fall", "back"} & question_terms("If I leave out x, what does it fall back "
                                                                       "to if I don't pass one?")


@pytest.mark.parametrize("question", ["How heavy is the Nova 24FL?", "What happens if the callback throws?"])
def test_questions_not_about_a_default_stay_as_they_are(question):
    assert not asks_default(question)
    assert without_default_phrases(question) == question


# -- what an element states ---------------------------------------------------------------------------------------


def test_a_capitalised_word_of_prose_is_no_option_name():
    """"When set to true, … Defaults to true." under "##### inflate": the key was "When"."""
    assert statement(frozenset(), "When set to true, deflated bodies are inflated. Defaults to true.") == ("", "true")
    assert statement(frozenset(), "encoding {string|null} Default: null") == ("encoding", "null")
    assert statement(frozenset(), "SEPARATOR: The separator. Defaults to ':'.")[0] == "SEPARATOR"


def test_a_default_under_an_option_heading_is_that_options():
    assert documented_statement(frozenset(), "Default: 0 (no timeout)", "ListItem", "`connectionTimeout`") == (
        ("connectionTimeout", "0"), True)
    assert documented_statement(frozenset(), "Output stream, defaults to process.stdout.", "NarrativeText",
                                "stream") == (("stream", "process.stdout"), True)
    # a section heading is no option: the default stays keyless
    assert documented_statement(frozenset(), "Default: 10", "ListItem", "Options") == (("", "10"), False)


@pytest.mark.parametrize(("heading", "option"), [
    ("`level` (String)", "level"), ("inflate", "inflate"), ("options.msgPrefix (String)", "options.msgPrefix"),
    ("SEPARATOR", "SEPARATOR"), ("Options", None), ("Factory", None), ("Usage", None),
])
def test_option_headings(heading, option):
    assert option_heading(heading) == option


@pytest.mark.parametrize(("text", "value"), [
    ("strict Treat warnings as crash-worthy errors. Default false.", "false"),
    ("concurrencyLimit {Number} Calls above this limit are queued. Default 10.", "10"),
    ("highWaterMark {integer} Default: 64 * 1024", "64 * 1024"),
    ("options.methods - The allowed methods. (default: ['POST'])", "['POST']"),
])
def test_default_values_as_written(text, value):
    assert statement(frozenset(), text)[1] == value


def test_code_sets_values_it_does_not_state_defaults():
    assert statement(frozenset(), "const fastify = Fastify({ trustProxy: true })", "CodeSnippet") is None


def test_dotted_option_names_compare_by_their_last_part():
    assert name_share(question_terms("logger.child msgPrefix default?"), "options.msgPrefix") == 1.0
    assert name_share(question_terms("What is the default `cookie.sameSite`?"), "sameSite") == 1.0
    assert name_share(question_terms("What is the default `cookie.sameSite`?"), "maxAge") == 0.0


# -- what a question names ------------------------------------------------------------------------------------------


def test_words_written_like_code_are_options_and_called_names_are_things():
    question = "What does `send` use for cacheControl if I don't pass one?"
    assert attribute_identifiers(question) == ["send", "cacheControl"]
    assert attribute_identifiers(question, frozenset({"send"})) == ["cacheControl"]
    assert name_runs("what's the default keepAliveTimeout for Fastify") == ("Fastify",)


def test_a_comma_inside_code_does_not_end_the_preamble():
    preamble, rest = split_preamble("For `logger.child(bindings, [options])` in the pino API, what is the default "
                                    "`msgPrefix`?")
    assert rest == "what is the default `msgPrefix`?" and "bindings" in preamble


def _ref(i: int, text: str, path: tuple[str, ...], doc: str) -> HeadingRef:
    return HeadingRef(f"{i:032x}", text, path, doc, f"{doc}.md")


def _reference_headings() -> HeadingIndex:
    """Two packages whose APIs share option names, and a store whose "set(data)" heading is a call too."""
    out = [_ref(1, "send", (), "send"), _ref(2, "API", ("send",), "send"),
           _ref(3, "send(req, path, [options])", ("send", "API"), "send"),
           _ref(4, "Options", ("send", "API", "send(req, path, [options])"), "send"),
           _ref(5, "cacheControl", ("send", "API", "send(req, path, [options])", "Options"), "send"),
           _ref(6, "body-parser", (), "bp"), _ref(7, "API", ("body-parser",), "bp")]
    n = 8
    for api in ("bodyParser.json([options])", "bodyParser.raw([options])", "bodyParser.text([options])"):
        out.append(_ref(n, api, ("body-parser", "API"), "bp"))
        out.append(_ref(n + 1, "Options", ("body-parser", "API", api), "bp"))
        out += [_ref(n + 2, "inflate", ("body-parser", "API", api, "Options"), "bp"),
                _ref(n + 3, "limit", ("body-parser", "API", api, "Options"), "bp")]
        n += 4
    out += [_ref(n, "Store", (), "store"), _ref(n + 1, "set(data)", ("Store",), "store")]
    for i in range(40):  # other pages, so that names are rare among the headings
        out.append(_ref(100 + i, f"Guide {i}", (), f"guide{i}"))
    return HeadingIndex(out)


def test_an_identifier_a_heading_calls_names_the_thing():
    index = _reference_headings()
    assert called_names("What does `send` use for cacheControl?", index) == {"send"}
    assert word_factors("What does `send` use for cacheControl?", index)["send"] == 3.0
    # a plain word of a question that writes its names in code is a word; the phrase's "set" names nothing
    assert called_names("What X does `send` use when I don't set it?", index) == {"send"}
    assert "set" not in word_factors("What cacheControl does `send` use when I don't set it?", index)


def test_the_call_a_question_names_is_the_scope_not_the_package_title_above_it():
    match = best_headings("In the body-parser package, what is the default value of the `inflate` option of "
                          "`bodyParser.text([options])`?", _reference_headings())
    assert match is not None and [h.text for h in match.headings] == ["bodyParser.text([options])"], match


# -- the pipeline on a small API reference ------------------------------------------------------------------------

_DOCS = {
    "zlib.md": "# Zlib\n\nCompression.\n\n## `zlib.createGzip([options])`\n\nCreates a Gzip object.\n\n"
               "* `options` {Object}\n  * `level` {integer} The compression level. **Default:** `-1`\n"
               "  * `chunkSize` {integer} **Default:** `16 * 1024`\n\n"
               "## `zlib.createDeflate([options])`\n\nCreates a Deflate object.\n\n"
               "* `options` {Object}\n  * `level` {integer} The compression level. **Default:** `6`\n"
               "  * `memLevel` {integer} How much memory to use. **Default:** `8`\n\n"
               "## `zlib.inflateSync(buffer[, options])`\n\nDecompresses a buffer.\n\n"
               "* `buffer` {Buffer}\n* `options` {Object}\n\n"
               "## Memory usage tuning\n\n### memLevel and windowBits\n\nDeflate needs "
               "`(1 << (windowBits + 2)) + (1 << (memLevel + 9))` bytes: a memLevel of 9 uses more memory.\n",
    "body-parser.md": "# body-parser\n\nBody parsing middleware.\n\n## API\n\n"
                      "### bodyParser.json([options])\n\nParses JSON bodies.\n\n#### Options\n\n"
                      "##### limit\n\nControls the maximum request body size. Defaults to `'100kb'`.\n\n"
                      "##### inflate\n\nWhen set to `true`, deflated bodies are inflated. Defaults to `true`.\n\n"
                      "### bodyParser.text([options])\n\nParses text bodies.\n\n#### Options\n\n"
                      "##### limit\n\nControls the maximum request body size. Defaults to `'200kb'`.\n\n"
                      "##### inflate\n\nWhen set to `true`, deflated bodies are inflated. Defaults to `false`.\n",
    "server.md": "# Server\n\n## Factory\n\nThe factory creates a server instance.\n\n"
                 "### `bodyLimit`\n\n+ Default: `1048576` (1MiB)\n\nDefines the maximum payload the server "
                 "accepts.\n\n### `keepAliveTimeout`\n\n+ Default: `72000` (72 seconds)\n\nDefines the server "
                 "keep-alive timeout in milliseconds.\n",
}


@pytest.fixture(scope="module")
def reference_store(db_url, use_embeddings, tmp_path_factory):
    from core.ingest import ingest_paths
    from core.store import ElementStore

    folder: Path = tmp_path_factory.mktemp("api-reference")
    for name, text in _DOCS.items():
        (folder / name).write_text(text, encoding="utf-8")
    store = ElementStore(db_url, f"t_api_{uuid.uuid4().hex[:8]}", use_embeddings)
    report = ingest_paths(store, [folder])
    assert not report.errors, report.errors
    yield store
    store.drop()


def _answer(store, question: str):
    from core.answering import ExtractiveAnswerer
    from core.retrieval import RetrievalRequest, retrieve

    context = retrieve(store, RetrievalRequest(question, k=4)).hierarchical
    answerer = ExtractiveAnswerer()
    return answerer.complete(question, context), answerer.evidence(question, context)[0]


@pytest.mark.parametrize(("question", "value", "under"), [
    # a parameter list: the same option under two calls, the call named without its parameters
    ("What does `zlib.createDeflate` use for level if I don't pass one?", "level: 6", "zlib.createDeflate([options])"),
    ("If I leave out level, what does `zlib.createGzip` fall back to?", "level: -1", "zlib.createGzip([options])"),
    ("What memLevel does `zlib.createDeflate` use when I don't set it?", "memLevel: 8",
     "zlib.createDeflate([options])"),
    # an option per heading, stated in prose
    ("If I leave out limit, what does `bodyParser.text` fall back to?", "limit: '200kb'",
     "bodyParser.text([options])"),
    ("What does `bodyParser.text` use for inflate if I don't pass one?", "inflate: false",
     "bodyParser.text([options])"),
    # an option heading over a bare "+ Default:" item; the template shape of the same facts
    ("What keepAliveTimeout does the server factory use when I don't set it?", "keepAliveTimeout: 72000",
     "keepAliveTimeout"),
    ("In the zlib module, what is the default value of the `level` option of `zlib.createGzip([options])`?",
     "level: -1", "zlib.createGzip([options])"),
])
def test_plain_and_template_questions_answer_the_named_apis_default(reference_store, question, value, under):
    answer, best = _answer(reference_store, question)
    assert answer.splitlines()[0] == value, answer
    assert under in best.element.path, best.element.path
