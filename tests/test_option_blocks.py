"""A configuration reference whose options are not in tables (issue 29, ref11): each option a heading written in
words (``## Wrap Width``) over prose and a block of bold field lines (``**Type:** Int``, ``**Default:** `0` ``,
``**Config default:** `0` ``, ``**CLI Flags:**`` over a list of flags). The reader takes the ``Default:`` line of the
heading the question names (in words, or by the name it is typed as) as that option's value, not prose saying
what the default behaviour "is to" do, nor the next field's name under an empty ``Default:``; asked what a flag
does, the section under the heading spelling its words, not the flag's own list item nor another option's
mention.

Real embedded Postgres, the bundled offline embedder, a made-up corpus of that shape (not the tune corpus)."""

from __future__ import annotations

import pytest

from core.answering import ExtractiveAnswerer
from core.ingest import SourceFile, ingest
from core.retrieval import RetrievalRequest, retrieve
from core.statements import statement, states_default


def _option(title: str, prose: str, kind: str, default: str, name: str, flags: tuple[str, ...]) -> str:
    listed = "".join(f"- {f}\n" for f in flags)
    return (f"## {title}\n\n{prose}\n\n**Type:** {kind}  \n**Default:** `{default}`  \n**Config default:** "
            f"`{default}`  \n**Python & Config File Name:** {name}  \n**CLI Flags:**\n\n{listed}\n")


OPTIONS = ("# Configuration options for pysort\n\nEvery option of the import sorter.\n\n"
           + _option("Target Release", "Sets the release whose standard library is known. Default is to assume any "
                     "release could be the target, and use a union of all of them.", "String", "r3",
                     "target_release", ("--tr", "--target-release"))
           + _option("Grid Columns", "Force the number of from imports (defaults to 2 when passed as a flag without a "
                     "value) to be wrapped in a grid regardless of the wrap width.", "Int", "0", "grid_columns",
                     ("--gc", "--grid-columns"))
           + _option("Wrap Width", "How wide wrapped lines should be; the line limit when not set.", "Int", "7",
                     "wrap_width", ("--ww", "--wrap-width"))
           + _option("No Wrap Width", "Turns --wrap-width off. See --wrap-width for more information.", "Bool",
                     "False", "no_wrap_width", ("--no-wrap-width",))
           + "## Base Style\n\nThe style to start from.\n\n**Type:** String  \n**Default:** ` `  \n"
           "**Config default:** ` `  \n**Python & Config File Name:** base_style  \n**CLI Flags:**\n\n- --style\n\n"
           + "".join(_option(f"Sort Knob {n}", f"Tunes the sorter's knob number {n}.", "Int", str(100 + n),
                             f"sort_knob_{n}", (f"--sk{n}",)) for n in range(12)))


@pytest.mark.parametrize(("text", "value"), [
    ("Default is to assume any release could be the target.", None),  # a behaviour, no value
    ("The default is to", None),
    ("The default is 88.", "88"),
    ("Defaults to `None`.", "None"),
    ("Type: String\nDefault: \nConfig default: \nPython & Config File Name: base_style", None),  # empty, not "Config"
    ("Default:\n`pinned`", "pinned"),  # a value on the next line, which is no field of its own
    ("Default: http://localhost:8080", "http://localhost:8080"),
    ("See: https://example.org/options.html#wrap-width", None),  # a cross-reference, no field "See"
])
def test_a_default_line_states_a_value_only_where_it_writes_one(text, value):
    found = statement(frozenset({"default"}), text)
    stated = found[1].strip("`") if found and states_default(text) else None
    assert stated == value, found


def test_the_default_line_under_the_heading_the_question_names_answers(store):
    report = ingest(store, [SourceFile("options.md", OPTIONS.encode())])
    assert not report.errors, report.errors
    reader = ExtractiveAnswerer()
    for question, value, heading in [
        # the section's prose says what the default behaviour is to do: its field line states the value
        ("if I don't pass target release, what does pysort use?", "r3", "Target Release"),
        ("pysort wrap width default?", "7", "Wrap Width"),
        # the option asked by the name it is typed as: the heading spells it in words
        ("pysort target_release default?", "r3", "Target Release"),
        ("what's the default for grid columns in pysort", "0", "Grid Columns"),
    ]:
        context = retrieve(store, RetrievalRequest(question, k=4)).hierarchical
        evidence = reader.evidence(question, context)
        # the bare line is read as the value of the option its heading names in words, and the answer says so
        assert evidence and (evidence[0].key, evidence[0].value) == (heading, value), (
            question, [(e.element.path[-1], e.key, e.value, round(e.score, 3)) for e in evidence[:3]])
        assert reader.complete(question, context).splitlines()[0] == f"{heading}: {value}", question


def test_a_flag_asked_what_it_does_is_answered_by_its_definition_not_its_list_item_nor_a_mention(store):
    """"--wrap-width" names ``## Wrap Width`` (its words, word for word), which defines it; its flag list's item
    only repeats the flag, and ``## No Wrap Width``'s prose only mentions it."""
    report = ingest(store, [SourceFile("options.md", OPTIONS.encode())])
    assert not report.errors, report.errors
    question = "what does --wrap-width do in pysort"
    context = retrieve(store, RetrievalRequest(question, k=4)).hierarchical
    evidence = ExtractiveAnswerer().evidence(question, context)
    assert evidence[0].element.path[-1] == "Wrap Width" and evidence[0].element.text != "--wrap-width", [
        (e.element.path[-1], e.element.text[:40], round(e.score, 3)) for e in evidence[:4]]
    assert evidence[0].answers and not any(e.answers for e in evidence if e.element.text == "--wrap-width")
