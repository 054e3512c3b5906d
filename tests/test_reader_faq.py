"""The reader on an FAQ (issue 29): a question heading and the paragraphs below it are one section, ranked by its
best paragraph with the heading's similarity; a command-line option's flag heading and a row's one-letter code
name what the element under them documents."""

from __future__ import annotations

import uuid

import pytest

from core.answering import ExtractiveAnswerer
from core.retrieval import Context, ContextElement

FAQ = ("Frequently Asked Questions",)


def element(n: int, role: str, category: str, text: str, path: tuple[str, ...], similarity: float | None = None,
            rank: int | None = None, document: str = "doc-1") -> ContextElement:
    return ContextElement(f"e{n}", f"s{n}", role, category, text, document, path,
                          None if similarity is None else 1.0 - similarity, rank)


def context(*elements: ContextElement) -> Context:
    return Context("hierarchical", "", "", list(elements), 0)


def test_the_faq_section_asked_beats_a_reference_paragraph_sharing_more_words() -> None:
    # the option's paragraph holds every word of the question and is closer than any paragraph of the FAQ answer;
    # the embedder found the FAQ's question heading far closer than either
    asked = (*FAQ, "Which Python versions does Tool support?")
    option = ("Usage", "Command line options", "-t, --target-version")
    ctx = context(
        element(0, "ancestor", "Title", FAQ[0], ()),
        element(1, "hit", "Title", asked[-1], FAQ, 0.77, 0),
        element(2, "hit", "NarrativeText", "Currently the runtime requires Python 3.8-3.11.", asked, 0.54, 1),
        element(3, "child", "NarrativeText", "Support for Python 2 code was removed in version 22.0.", asked, 0.42),
        element(4, "ancestor", "Title", "Usage", (), document="doc-2"),
        element(5, "hit", "NarrativeText", "Python versions that should be supported by Tool's output; you can run "
                "tool --help to see which versions can run.", option, 0.59, 2, document="doc-2"),
    )
    answer = ExtractiveAnswerer().complete("which python versions can tool run on", ctx)
    assert "Python 3.8-3.11" in answer
    assert "[e:s2]" in answer
    assert "Which Python versions does Tool support?" in answer  # its path, never the heading quoted as the answer
    assert "“Which Python" not in answer


def test_of_two_faq_sections_the_one_whose_paragraph_answers_wins_over_the_closer_heading() -> None:
    versions, pypy = (*FAQ, "Which Python versions does Tool support?"), (*FAQ, "Can I run Tool with PyPy?")
    ctx = context(
        element(0, "ancestor", "Title", FAQ[0], ()),
        element(1, "hit", "Title", versions[-1], FAQ, 0.72, 0),
        element(2, "child", "NarrativeText", "Currently the runtime requires Python 3.8-3.11.", versions, 0.50),
        element(3, "hit", "Title", pypy[-1], FAQ, 0.63, 1),
        element(4, "hit", "NarrativeText", "Yes, there is support for PyPy 3.8 and higher.", pypy, 0.56, 2),
    )
    answer = ExtractiveAnswerer().complete("tool pypy support?", ctx)
    assert "PyPy 3.8 and higher" in answer


def test_a_paragraph_under_the_asked_heading_answers_though_it_repeats_no_word_of_the_question() -> None:
    # "mypyc" is no word of the question; without its heading the paragraph would not answer at all, and the code
    # block that shows the words would be quoted
    asked = (*FAQ, "What is compiled: yes/no all about in the version output?")
    ctx = context(
        element(0, "ancestor", "Title", FAQ[0], ()),
        element(1, "hit", "Title", asked[-1], FAQ, 0.51, 0),
        element(2, "hit", "NarrativeText", "While Tool is a pure Python project, we use mypyc to compile Tool into a C "
                "extension, usually doubling performance.", asked, 0.30, 1),
        element(3, "hit", "CodeSnippet", "$ tool --version\ntool, 24.10.0 (compiled: yes)", ("Usage", "Options"),
                0.47, 2, document="doc-2"),
    )
    answer = ExtractiveAnswerer().complete("what does compiled: yes mean in tool --version", ctx)
    assert "mypyc" in answer


def test_a_question_heading_the_embedder_found_far_from_the_question_decides_nothing() -> None:
    # the closest FAQ heading is not close: the policy section that states the answer stays first
    asked = (*FAQ, "Is Tool safe to use?")
    policy = ("Security Policy", "Security contact information")
    ctx = context(
        element(0, "ancestor", "Title", FAQ[0], ()),
        element(1, "hit", "Title", asked[-1], FAQ, 0.40, 0),
        element(2, "child", "NarrativeText", "Yes. Tool is strictly about formatting, nothing else.", asked, 0.23),
        element(3, "ancestor", "Title", policy[0], (), document="doc-2"),
        element(4, "ancestor", "Title", policy[1], policy[:1], document="doc-2"),
        element(5, "hit", "NarrativeText", "To report a security vulnerability, please use the Tidelift security "
                "contact.", policy, 0.37, 1, document="doc-2"),
    )
    answer = ExtractiveAnswerer().complete("how do I report a security vulnerability in tool", ctx)
    assert "Tidelift" in answer


def test_the_paragraph_under_the_flag_heading_the_question_names_beats_a_closer_mention() -> None:
    # "--fast / --safe" documents --fast; the server's page only mentions it, and the search found it closer
    ctx = context(
        element(0, "ancestor", "Title", "Usage", ()),
        element(1, "ancestor", "Title", "Command line options", ("Usage",)),
        element(2, "hit", "Title", "--fast / --safe", ("Usage", "Command line options"), 0.25, 2),
        element(3, "hit", "NarrativeText", "By default, Tool performs an AST safety check after formatting. The "
                "--fast flag turns off this check.", ("Usage", "Command line options", "--fast / --safe"), 0.38, 1),
        element(4, "ancestor", "Title", "Tool as a server", (), document="doc-2"),
        element(5, "hit", "ListItem", "Sent with fast, the server acts as Tool does when passed the --fast "
                "command line flag.", ("Tool as a server",), 0.46, 0, document="doc-2"),
    )
    answer = ExtractiveAnswerer().complete("what does tool --fast do", ctx)
    assert "turns off this check" in answer


def test_a_row_whose_one_letter_code_the_question_writes_beats_a_closer_row() -> None:
    path = ("전문 공통부", "코드 값", "전문전송방식구분")
    ctx = context(
        element(0, "ancestor", "Title", path[0], ()),
        element(1, "ancestor", "Title", path[1], path[:1]),
        element(2, "ancestor", "Title", path[2], path[:2]),
        element(3, "hit", "TableRow", "값: N · 방식: 거래통보(SAF) 방식", path, 0.34, 0),
        element(4, "hit", "TableRow", "값: Y · 방식: IR(수취조회) 방식", path, 0.30, 1),
    )
    answer = ExtractiveAnswerer().complete("가상계좌 전문 공통부에서 Y의 방식 알려줘", ctx)
    assert "IR(수취조회)" in answer
    assert "SAF" not in answer


def test_a_row_code_is_named_as_written_so_minus_two_is_not_two() -> None:
    path = ("Options", "Debugging", "build-verbosity")
    ctx = context(
        element(0, "ancestor", "Title", path[0], ()),
        element(1, "ancestor", "Title", path[1], path[:1]),
        element(2, "ancestor", "Title", path[2], path[:2]),
        element(3, "hit", "TableRow", "2 · build: -v · pip: -vv · desc: print log messages", path, 0.45, 0),
        element(4, "hit", "TableRow", "-2 · build: -qq · pip: -qq · desc: even more quiet", path, 0.40, 1),
    )
    answer = ExtractiveAnswerer().complete("tool build-verbosity pip on -2?", ctx)
    assert answer.splitlines()[0] == "-2 — pip: -qq"


FAQ_DOC = """\
# Frequently Asked Questions

## Does Gizmo have an API?

Not yet. Gizmo is fundamentally a command line tool.

## Which Python versions does Gizmo support?

Currently the runtime requires Python 3.8-3.11.

Support for formatting Python 2 code was removed in version 22.0.

## Can I run Gizmo with PyPy?

Yes, there is support for PyPy 3.8 and higher.
"""

OPTIONS_DOC = """\
# Command line options

## -t, --target-version

Python versions that should be supported by Gizmo's output. You can run gizmo --help and look for the
--target-version option to see the full list of supported versions.

## -l, --line-length

How many characters per line to allow. The default is 88.
"""


@pytest.fixture(scope="module")
def faq_store(db_url, use_embeddings, tmp_path_factory):
    from core.ingest import ingest_paths
    from core.store import ElementStore

    folder = tmp_path_factory.mktemp("faq")
    (folder / "faq.md").write_text(FAQ_DOC, encoding="utf-8")
    (folder / "options.md").write_text(OPTIONS_DOC, encoding="utf-8")
    store = ElementStore(db_url, f"t_faq_{uuid.uuid4().hex[:8]}", use_embeddings)
    report = ingest_paths(store, [folder])
    assert not report.errors, report.errors
    yield store
    store.drop()


@pytest.mark.parametrize(("question", "gold"), [
    ("which python versions can gizmo run on", "3.8-3.11"),
    ("gizmo pypy support?", "PyPy 3.8"),
    ("does gizmo have an api?", "Not yet"),
])
def test_an_faq_is_answered_from_the_section_its_question_heading_opens(faq_store, question: str, gold: str) -> None:
    from core.retrieval import RetrievalRequest, retrieve

    context = retrieve(faq_store, RetrievalRequest(question, k=4)).hierarchical
    answer = ExtractiveAnswerer().complete(question, context)
    assert gold in answer
