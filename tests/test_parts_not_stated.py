"""A question asking several things whose context answers only some of them (issue 31, eleventh round): every part
the context answers is quoted with its citation, and each part it does not answer is named on a line of its own
("Not stated in the documents: …"), never dropped for an answer to the question as a whole.

Real embedded Postgres, the bundled offline embedder, a small synthetic corpus.
"""

from __future__ import annotations

from core.answering import ExtractiveAnswerer, prompts
from core.answering.evidence import Evidence
from core.answering.parts import units_for_parts
from core.retrieval import RetrievalRequest, retrieve
from core.retrieval.context import ContextElement
from core.retrieval.parts import question_parts
from core.text import escape_markdown
from tests.helpers_context import cited
from views.comparison import answer_markdown

from .test_hlg_multihop3 import _ingest

CAMERA = ("# Lumen Camera\n\nThe Lumen Camera is a compact survey camera.\n\n## Specifications\n\n"
          "* Weight : 2.9 kg\n* Sensor : 24 MP\n* Battery : 1800 mAh\n\n## Care\n\n"
          "Keep the lens cap on when the camera is stored.\n")


def _unit(element_id: str, score: float, *, answers: bool = True) -> Evidence:
    element = ContextElement(element_id, element_id, "hit", "ListItem", element_id, "d")
    return Evidence(element, score, 0.0, 0.0, element_id, "k", "v", answers)


def test_a_part_nothing_answers_is_none_and_the_others_keep_their_units():
    scored = {"weight?": [_unit("weight", 0.9)], "warranty?": [_unit("weight", 0.3, answers=False)],
              "sensor?": [_unit("sensor", 0.8)]}
    units = units_for_parts(list(scored), lambda part: scored[part])
    assert [u.element.element_id if u else None for u in units] == ["weight", None, "sensor"]
    # no part answered: the question is answered as a whole, as before
    nothing = {"a?": [_unit("x", 0.2, answers=False)], "b?": []}
    assert units_for_parts(list(nothing), lambda part: nothing[part]) == []


def test_the_answered_part_is_quoted_and_the_other_is_said_to_be_unanswered(store):
    _ingest(store, {"camera.md": CAMERA})
    question = "What is the weight of the Lumen Camera and who manufactures its tripod mount?"
    parts = question_parts(question)
    assert len(parts) == 2, parts
    found = retrieve(store, RetrievalRequest(question, k=4))
    answer = ExtractiveAnswerer().complete(question, found.hierarchical)
    assert "2.9 kg" in answer, answer
    assert len(cited(answer)) == 1, answer
    assert prompts.EXTRACTIVE_PART_NOT_STATED.format(part=parts[1]) in answer.splitlines(), answer
    assert answer.index("2.9 kg") < answer.index("Not stated in the documents"), "in the order asked"
    # Compare shows the answer as literal text, one line each: the unanswered part stays a line of its own
    shown = answer_markdown(answer).split("  \n")
    assert escape_markdown(prompts.EXTRACTIVE_PART_NOT_STATED.format(part=parts[1])) in shown, shown


def test_a_later_side_opening_with_its_asks_of_what_the_first_side_names():
    assert question_parts("markdownlint MD013 default line length and its alias?") == (
        "markdownlint MD013 default line length?", "markdownlint MD013 alias?")
    assert question_parts("semantic-release tagFormat default and its cli flag?") == (
        "semantic-release tagFormat default?", "semantic-release tagFormat cli flag?")
    # the first side names nothing "its" could point at: the side is judged as written (too thin: one ask)
    assert question_parts("the default line length and its alias?") == ("the default line length and its alias?",)
    # a side asking by its own question word keeps its "its" for the answer's reader (the thing the first part found)
    assert question_parts("Which option sets the build frontend, and what is its default?") == (
        "Which option sets the build frontend?", "what is its default?")


def _placed(text: str, path: tuple[str, ...], score: float, *, answers: bool, category: str = "NarrativeText"
            ) -> Evidence:
    element = ContextElement(text, text[:8], "hit", category, text, "d", path=path)
    return Evidence(element, score, score, 0.0, text, answers=answers)


def test_a_part_whose_words_name_a_section_is_answered_there_not_by_a_light_word_elsewhere():
    parts = ["how do i report a security issue in black?", "which versions get security fixes?"]
    contact = _placed("To report a security vulnerability, please use the Tidelift security contact.",
                      ("Security Policy", "Security contact information"), 0.6, answers=True)
    supported = _placed("Only the latest non-prerelease version is supported.",
                        ("Security Policy", "Supported Versions"), 0.55, answers=False)
    heading = _placed("Supported Versions", ("Security Policy",), 0.54, answers=False, category="Title")
    light = _placed("You can get easily started by reading over this document.", ("Issue triage",), 0.2, answers=True)
    evidence = {parts[0]: [contact, light], parts[1]: [light, supported, heading]}
    units = units_for_parts(parts, evidence.__getitem__)
    assert [u.element.text if u else None for u in units] == [contact.element.text, supported.element.text]
    # a section naming one word of the part ("Security contact information") places nothing: the part is unanswered
    evidence[parts[1]] = [_placed(contact.element.text, contact.element.path, 0.5, answers=False)]
    assert units_for_parts(parts, evidence.__getitem__)[1] is None


def test_a_unit_two_parts_share_answers_both_and_the_whole_questions_unit_answers_a_part_nothing_else_does():
    row = _placed("tagFormat · Default: v${version} · CLI arguments: -t, --tag-format", ("Options", "tagFormat"),
                  0.9, answers=True)
    parts = ["tagFormat default?", "tagFormat cli flag?"]
    evidence = {parts[0]: [row], parts[1]: [row]}
    assert units_for_parts(parts, evidence.__getitem__) == [row, row], "one row states both: neither is unanswered"
    # nothing answers the second part as it reads, but the unit the whole question is answered by holds its word
    parts = ["what is the weight?", "which battery does it take?"]
    weight = _placed("Weight : 2.9 kg", ("Specifications",), 0.9, answers=True)
    battery = _placed("Battery : 1800 mAh", ("Specifications",), 0.8, answers=True)
    evidence = {parts[0]: [weight], parts[1]: []}
    assert units_for_parts(parts, evidence.__getitem__, lambda: [battery, weight]) == [weight, battery]
    # the whole question's unit is the other part's, or holds no word of this part alone: still unanswered
    assert units_for_parts(parts, evidence.__getitem__, lambda: [weight]) == [weight, None]
    care = _placed("Keep the lens cap on.", ("Care",), 0.7, answers=True)
    assert units_for_parts(parts, evidence.__getitem__, lambda: [care]) == [weight, None]

