"""Comparative, superlative and list questions; quantities with units; a scope that names the right thing; and
"not stated for X" instead of another product's value. Unit tests on built contexts, then end-to-end through
the real pipeline on the samples (real Postgres, real USE embeddings)."""

from __future__ import annotations

import pytest

from core.answering import ExtractiveAnswerer, build_table, compare, prompts
from core.answering.answerers import _messages
from core.quantities import is_unit, measure
from core.retrieval import Context, ContextElement, EntityRef, RetrievalRequest
from core.retrieval.headings import HeadingRef, best_headings
from core.retrieval.shape import code_names, question_shape, split_preamble
from core.statements import Lexicon, statement

# -- quantities (pint) --------------------------------------------------------------------------------------


def test_quantities_compare_across_units_and_languages():
    assert measure("1.9 kg").key("max") < measure("2400 g").key("max")
    assert measure("2년").key("max") < measure("3 years (panel, parts and labor)").key("max")
    assert measure("512 KiB").key("max") < measure("1 MiB").key("max")
    assert measure("1,500 W").key("max") == 1500.0
    heat = measure("-10 to 45 °C")
    assert heat.key("min") < heat.key("max")  # a range ranks by its low end for a minimum, high end for a maximum
    assert measure("DisplayPort 144Hz, USB-C 100Hz, HDMI 100Hz", frozenset({"hdmi"})).key("max") == 100.0
    assert measure("X") is None and measure("utf8") is None
    assert is_unit("MiB") and is_unit("년") and not is_unit("for") and not is_unit("in")


def test_exponents_and_korean_metric_words_are_read_as_quantities():
    assert measure("1e3 kg").key("max") == 1000.0 and measure("2.5E-3 s").key("max") == 0.0025
    assert measure("1e3 kg").key("max") > measure("900 kg").key("max")
    assert measure("3 킬로그램").key("max") == 3.0 and str(measure("3 킬로그램").low.dimensionality) == "[mass]"
    assert measure("2 킬로그램").key("max") < measure("2400 g").key("max") < measure("3 킬로그램").key("max")
    assert measure("500 메가바이트").key("max") < measure("1 기가바이트").key("max")
    assert is_unit("킬로미터") and is_unit("리터")


def test_a_long_unit_word_is_no_unit_and_is_read_in_linear_time():
    import time

    started = time.perf_counter()
    long_word = measure("5 " + "a" * 16_000)
    # Before the bound, pint's prefix search took 8.7 s on this word; the guard leaves a 100x margin for a busy host.
    assert time.perf_counter() - started < 1.0
    assert long_word is not None and long_word.key("max") == 5.0 and str(long_word.low.units) == "dimensionless"
    assert not is_unit("kg" * 8_000)


def test_a_default_keeps_its_unit():
    assert statement(frozenset(), "maxBodySize : Default: 8 MiB") == ("maxBodySize", "8 MiB")
    assert statement(frozenset(), "x: Defaults to 1 for all") == ("x", "1")


# -- question shapes ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(("question", "kind", "direction"), [
    ("Which is heavier, the L1 or the L2?", "compare", "max"),
    ("Which lamp has the longest warranty?", "superlative", "max"),
    ("Compare the warranty periods of the L2 and the L3 Pro", "list", None),
    ("List the power of every lamp", "list", None),
    ("가장 가벼운 해온 전기포트는?", "superlative", "min"),
    ("해온 미니 K1과 해온 프로 K3 중 더 무거운 것은?", "compare", "max"),
    ("K1과 K2의 무게 비교", "list", None),
    ("모든 전기포트의 보증기간을 알려 주세요", "list", None),
])
def test_question_shapes(question, kind, direction):
    shape = question_shape(question)
    assert shape is not None and (shape.kind, shape.direction) == (kind, direction)


def test_one_thing_asked_is_no_comparison():
    assert question_shape("What is the maximum refresh rate of the Nova 34WC?") is None
    assert question_shape("Nova 24FL weight without stand") is None
    assert question_shape("Compare the warranty periods of the L2 and the L3 Pro").parts == ("L2", "L3 Pro")


NODE_QUESTION = ("In the Node.js fs module, what is the default value of the `encoding` option of "
                 "`filehandle.readFile(options)`?")


def test_preambles_and_signatures():
    q = NODE_QUESTION
    preamble, rest = split_preamble(q)
    assert preamble.startswith("In the Node.js fs module") and rest.startswith("what is")
    # the signature names the API without its arguments; a bare option name is an attribute, not a thing
    assert code_names(q) == ["filehandle.readFile"]
    assert code_names("the default `timeout` of `Pool(options)`") == ["Pool"]


# -- the scope names the right thing ------------------------------------------------------------------------


def _heading(i: int, text: str, path: tuple[str, ...] = (), doc: str = "d") -> HeadingRef:
    return HeadingRef(f"{i:032x}", text, path, doc, f"{doc}.md")


def test_a_model_number_outranks_a_rarer_attribute_heading():
    """"stand" heads one section only, "24FL" three: by rarity alone the Stand section of another product won."""
    sheet = _heading(1, "Nova 24FL office monitor", doc="a")
    headings = [sheet, _heading(2, "Nova 24FL at a glance", (sheet.text,), "a"),
                _heading(3, "Nova 24FL", ("Release notes",), "b"), _heading(4, "Release notes", (), "b"),
                _heading(5, "Nova 32UX monitor", (), "c"), _heading(6, "Specifications", ("Nova 32UX monitor",), "c"),
                _heading(7, "Stand", ("Nova 32UX monitor", "Specifications"), "c")]
    match = best_headings("Nova 24FL weight without stand", headings)
    assert match is not None and all("24FL" in h.label for h in match.headings), match.label


def test_a_platform_named_in_a_preamble_does_not_outweigh_the_api():
    """Only one heading mentions Node.js, while "filehandle" and "readFile" recur across the API: by rarity alone
    the Stream compatibility note won."""
    fs, handle = "File system", "Class: FileHandle"
    methods = ["filehandle.readFile(options)", "filehandle.read(buffer, offset)", "filehandle.write(buffer)",
               "filehandle.close()", "filehandle.stat([options])"]
    headings = [_heading(1, "Stream", doc="s"), _heading(2, "Additional notes", ("Stream",), "s"),
                _heading(3, "Compatibility with older Node.js versions", ("Stream", "Additional notes"), "s"),
                _heading(4, fs, doc="f"), _heading(5, handle, (fs,), "f"),
                _heading(6, "fs.readFile(path[, options], callback)", (fs,), "f"),
                _heading(7, "fsPromises.readFile(path[, options])", (fs,), "f"),
                _heading(8, "fs.readFileSync(path[, options])", (fs,), "f"),
                *[_heading(10 + i, m, (fs, handle), "f") for i, m in enumerate(methods)]]
    match = best_headings(NODE_QUESTION, headings)
    assert match is not None and match.headings[0].text == "filehandle.readFile(options)", match.label


# -- the comparison table -----------------------------------------------------------------------------------


def _element(n: int, text: str, path: tuple[str, ...], mode: str = "hierarchical", *, outside: bool = False,
             category: str = "ListItem") -> ContextElement:
    eid = f"{n:x}" * 32
    return ContextElement(eid[:32], eid[:8], "hit", category, text, "doc", path if mode == "hierarchical" else (),
                          0.4, n, outside)


LAMPS = "Lumo Desk Lamps"


def lamps_context(mode: str = "hierarchical") -> Context:
    spec = "Specifications"
    items = [
        _element(1, "Weight : 1.9 kg", (LAMPS, "Lumo L1", spec), mode),
        _element(2, "Weight : 2400 g", (LAMPS, "Lumo L2", spec), mode),
        _element(3, "Warranty : 2 years", (LAMPS, "Lumo L2", spec), mode),
        _element(4, "Power : 8 W", (LAMPS, "Lumo L3 Pro", spec), mode),
    ]
    entities = tuple(EntityRef(n, (LAMPS, n), "doc") for n in ("Lumo L1", "Lumo L2", "Lumo L3 Pro"))
    return Context(mode, "(rendered)", "(rendered)", items, 0, entities=entities if mode == "hierarchical" else ())


def test_which_is_heavier_compares_quantities_in_different_units():
    answer = ExtractiveAnswerer().complete("Which is heavier, the L1 or the L2?", lamps_context())
    first, *rows = answer.splitlines()
    assert first.startswith(prompts.TABLE_PICK["max"]) and "Lumo L2" in first and "2400 g" in first
    assert "Lumo L1" not in first
    assert any("Lumo L1" in r and "1.9 kg" in r and "[e:11111111]" in r for r in rows)


def test_an_entity_without_the_attribute_is_not_stated_never_filled_from_another():
    table = build_table("Compare the warranty periods of the L2 and the L3 Pro", lamps_context())
    rows = {r.entity: r for r in table.rows}
    assert rows["Lumo L2"].value == "2 years" and rows["Lumo L2"].short_id == "33333333"
    assert rows["Lumo L3 Pro"].value is None
    answer = table.render()
    assert "- Lumo L3 Pro: not stated" in answer and answer.count("2 years") == 1
    records = table.records()
    assert {r["entity"]: r["value"] for r in records}["Lumo L3 Pro"] == prompts.TABLE_NOT_STATED


def test_superlative_and_list_over_every_entity():
    table = build_table("Which lamp is the lightest?", lamps_context())
    assert [r.entity for r in table.picked] == ["Lumo L1"]
    assert [r.entity for r in table.rows if not r.stated] == ["Lumo L3 Pro"]
    listed = ExtractiveAnswerer().complete("List the power of every lamp", lamps_context())
    assert "- Lumo L3 Pro: Power: 8 W [e:44444444]" in listed and listed.count("not stated") == 2


def test_korean_superlative_reads_korean_units():
    path = ("해온 전기포트", "{}", "제품사양")
    items = [_element(1, "보증기간 : 1년", tuple(p.format("해온 미니 K1") for p in path)),
             _element(2, "보증기간 : 3년", tuple(p.format("해온 프로 K3") for p in path))]
    entities = tuple(EntityRef(n, ("해온 전기포트", n), "doc") for n in ("해온 미니 K1", "해온 프로 K3"))
    context = Context("hierarchical", "", "", items, 0, entities=entities)
    table = build_table("보증기간이 가장 긴 해온 전기포트는?", context)
    assert [r.entity for r in table.picked] == ["해온 프로 K3"]


def test_a_plain_context_lists_values_without_claiming_whose():
    answer = ExtractiveAnswerer().complete("Which is heavier, the L1 or the L2?", lamps_context("plain"))
    assert prompts.TABLE_PLAIN_NOTE in answer and "Lumo" not in answer


def test_the_llm_prompt_carries_the_table_beside_the_context():
    messages = _messages("Compare the warranty periods of the L2 and the L3 Pro", lamps_context())
    human = messages[-1].content
    assert "<table>" in human and "Lumo L3 Pro: not stated" in human and "[e:33333333]" in human
    plain_question = _messages("What is the weight of the L1?", lamps_context())
    assert "<table>" not in plain_question[-1].content


# -- never another product's value --------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["plain", "hierarchical"])
def test_a_hit_from_outside_the_named_heading_is_only_an_aside(mode):
    named = "노바 Nova 24FL 사무용 모니터"
    items = [_element(1, "틸트 : -5° ~ 15°", (named, "제품사양", "스탠드"), mode),
             _element(2, "Weight without stand : 5.6 kg", ("Nova 32UX", "Specifications", "Dimensions & Weight"),
                      mode, outside=True)]
    context = Context(mode, "", "", items, 0, named=(named,))
    answer = ExtractiveAnswerer().complete("Nova 24FL weight without stand", context)
    first = answer.splitlines()[0]
    assert first == prompts.EXTRACTIVE_NOT_STATED.format(entity=named)
    assert "5.6 kg" not in first and "Aside, not the answer" in answer and "[e:22222222]" in answer


# -- end to end on the samples ------------------------------------------------------------------------------


def _answers(store, question: str) -> dict[str, str]:
    result = compare(store, RetrievalRequest(question), answerer=ExtractiveAnswerer())
    return {mode: r.answer.text for mode, r in result.results.items()}


def test_samples_named_product_weight_without_stand_is_its_own(samples_store):
    answers = _answers(samples_store, "Nova 24FL weight without stand")
    hier = answers["hierarchical"]
    assert hier.splitlines()[0].endswith("2.5 kg") and "Nova 24FL" in hier
    assert "5.6 kg" not in answers["plain"].splitlines()[0]


def test_samples_attribute_another_product_states_is_not_stated_for_the_named_one(samples_store):
    answers = _answers(samples_store, "Nova 24FL의 KVM은(는) 무엇인가요?")  # only the 34WC sheet has "KVM : O"
    for mode, text in answers.items():
        answer = text.split("(Aside")[0]  # an aside may say what another product states, labelled as such
        assert "KVM : O" not in answer and "KVM: O" not in answer, (mode, text)
        assert "24FL" in answer, (mode, text)  # "not stated for … 24FL", or a passage saying the 24FL has none


def test_samples_cross_language_comparison_picks_by_value(samples_store):
    answers = _answers(samples_store, "Which is heavier without the stand, the Nova 24FL or the Nova 32UX?")
    first, *rows = answers["hierarchical"].splitlines()
    assert "32UX" in first and "5.6 kg" in first and "24FL" not in first
    assert any("24FL" in r and "2.5 kg" in r and "[e:" in r for r in rows)


def test_samples_a_model_number_in_several_documents_is_still_a_thing_compared(samples_store):
    # "32UX" heads its sheet, a release notes' section and a setup guide's, so it reads as the collection's
    # platform word; listed as one of two things compared it is the thing, and the 24FL and 34WC are not rows
    answers = _answers(samples_store, "Which is brighter, the 27QX or the 32UX?")
    first, *rows = answers["hierarchical"].splitlines()
    assert "32UX" in first and "400 cd/m²" in first
    assert any("27QX" in r and "350 cd/m²" in r for r in rows)
    assert not any("24FL" in r or "34WC" in r for r in rows), rows


def test_samples_the_monitors_having_a_thing_named_in_plain_words(samples_store):
    first = _answers(samples_store, "Which monitors have speakers?")["hierarchical"].splitlines()[0]
    assert first.startswith("With speakers:"), first
    assert all(m in first for m in ("27QX", "34WC", "32UX")) and "24FL" not in first, first  # 24FL: "스피커 : X"


def test_samples_korean_superlative(samples_store):
    answers = _answers(samples_store, "Nova 24FL, Nova 27QX, Nova 34WC 중 스탠드 포함 무게가 가장 가벼운 모니터는?")
    first = answers["hierarchical"].splitlines()[0]
    assert "24FL" in first and "2.9 kg" in first


def test_values_of_one_attribute_with_different_qualifiers_are_listed_not_ranked():
    """"Which is lighter" over one sheet's weight with the stand and another's without (what the samples' contexts
    can hold): ranking them would compare unlike things, so the table lists both and says why it picks none. Keys in
    two languages ("무게(스탠드 제외)" against "Weight (without stand)") are not refused: their bases differ."""
    spec = "제품사양"
    items = [
        _element(1, "무게(스탠드 포함) : 2.9 kg", ("Nova 24FL", spec, "크기 & 무게")),
        _element(2, "무게(스탠드 제외) : 3.9 kg", ("Nova 27QX", spec, "크기 & 무게")),
    ]
    entities = tuple(EntityRef(n, (n,), "doc") for n in ("Nova 24FL", "Nova 27QX"))
    paired = Lexicon(((frozenset({"weight"}), frozenset({"무게"})),))  # the collection's pair (core.retrieval.lexicon)
    context = Context("hierarchical", "(rendered)", "(rendered)", items, 0, entities=entities, lexicon=paired)
    table = build_table("Which is lighter, the Nova 24FL or the Nova 27QX?", context)
    assert table.picked == () and [r.value for r in table.rows] == ["2.9 kg", "3.9 kg"]
    assert "stated for different things (무게(스탠드 제외), 무게(스탠드 포함))" in table.render()
    items[1] = _element(2, "Weight (without stand) : 3.9 kg", ("Nova 27QX", "Specifications", "Size & Weight"))
    cross = Context("hierarchical", "(rendered)", "(rendered)", items, 0, entities=entities, lexicon=paired)
    assert [r.entity for r in build_table("Which is lighter, the Nova 24FL or the Nova 27QX?", cross).picked] == [
        "Nova 24FL"]
