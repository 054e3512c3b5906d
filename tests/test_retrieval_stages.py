"""The question analysed once, the named stages and their configs, definitions above mentions, and the cost of a
comparative question (issue 29, items 3, 4 and 7). Real Postgres and real USE embeddings where a search runs."""

from __future__ import annotations

import pytest

from core.elements import Element
from core.retrieval import RetrievalRequest, retrieve
from core.retrieval import pipeline as pipeline_module
from core.retrieval.analysis import analyse
from core.retrieval.definitions import command_flags, defines, defines_flag, definitions_first
from core.retrieval.hits import Hit
from core.retrieval.stages import ContextConfig, EntityHitsConfig, Stages, current_stages, using
from core.retrieval.strategies import REGISTRY, STAGE_LISTS


def test_the_analysis_holds_what_every_stage_reads() -> None:
    a = analyse("In the Nova docs, which is lighter, the Nova 24FL or the Nova 27QX?")
    assert a.preamble.startswith("In the Nova docs") and a.rest.startswith("which is lighter")
    assert a.names == ("Nova 24FL", "Nova 27QX") and a.models == ("24FL", "27QX")
    assert a.shape is not None and a.shape.kind == "compare" and a.shape.direction == "min"
    assert a.language == "en" and not a.asks_default
    assert "weight" in a.terms, "the attribute noun the comparative asks for"
    ko = analyse("`timeout` 옵션의 기본값은 무엇인가요?")
    assert ko.language == "ko" and ko.asks_default and ko.identifiers() == ["timeout"]
    assert analyse("What does `send(req, path)` do if I don't pass one?").asks_default


def _element(text: str, path: tuple[str, ...] = ()) -> Element:
    return Element(element_id=text[:20], text=text, heading_path=path)


@pytest.mark.parametrize("text, path, expected", [
    ("Sets the installer used for environments.", ("Reference", "Options", "installer"), True),
    ("| Option | Default |\n| --- | --- |\n| installer | pip |", ("Reference", "Options"), True),
    ("* installer : pip", ("Reference", "Options"), True),
    ("- Add the installer option for uv targets.", ("Changelog", "1.4.0"), False),
    ("Plugins can replace the installer entirely; see the plugin guide.", ("Blog",), False),
    ("Sets the interpreter.", ("Reference", "python"), None),
])
def test_an_element_defines_or_only_mentions_the_thing_asked(text, path, expected) -> None:
    assert defines(_element(text, path), frozenset({"installer"})) is expected


def test_mentions_rank_below_definitions_and_nothing_moves_without_one() -> None:
    mention = Hit(_element("- Add the installer option for uv targets.", ("Changelog",)), 0, 0.1)
    other = Hit(_element("Environments are created on first use.", ("Guide",)), 1, 0.2)
    definition = Hit(_element("* installer : pip", ("Options",)), 2, 0.3)
    thing = frozenset({"installer"})
    ordered = definitions_first([mention, other, definition], thing, ContextConfig())
    assert [h.element.text for h in ordered] == [other.element.text, definition.element.text, mention.element.text]
    assert [h.rank for h in ordered] == [0, 1, 2]
    assert definitions_first([mention, other], thing, ContextConfig()) == [mention, other]
    assert definitions_first([mention, definition], thing, ContextConfig(definitions_first=False)) == [
        mention, definition]


@pytest.mark.parametrize("text, path, expected", [
    ("The number of parallel workers to run.", ("Usage", "Command line options", "-W, --workers"), True),
    ("-W, --workers INTEGER: how many workers to run", ("Usage",), True),
    ("* `--workers` / `-W`: how many workers to run", ("Usage",), True),
    ("The command line option -W / --workers takes precedence over this variable.", ("BLACK_NUM_WORKERS",), False),
    ("Workers run in parallel.", ("Usage", "Parallel workers"), None),  # the word, not the flag
    ("--workers-max caps them.", ("Usage",), None),  # another flag that begins the same
])
def test_an_element_defines_or_only_mentions_a_typed_flag(text, path, expected) -> None:
    assert defines_flag(path, text, ["--workers"]) is expected


def test_a_typed_command_line_flag_puts_its_definition_above_a_mention() -> None:
    assert command_flags("black -W 4 --workers? not pre-commit, --no-ci") == ["-W", "--workers", "--no-ci"]
    flags = command_flags("black --workers default?")
    definition = Hit(_element("Black uses as many workers as the number of CPUs.", ("Usage", "-W, --workers")), 1, .3)
    mention = Hit(_element("The command line option -W / --workers takes precedence over this variable.",
                           ("Usage", "Environment variable options", "BLACK_NUM_WORKERS")), 0, 0.2)
    assert [h.element for h in definitions_first([mention, definition], frozenset(), ContextConfig(), flags)] == [
        definition.element, mention.element]
    # a question typing no flag, or naming a thing by a code span, is judged as before
    assert definitions_first([mention, definition], frozenset(), ContextConfig()) == [mention, definition]


def test_the_registry_names_each_strategys_stage_list() -> None:
    assert REGISTRY["hybrid"].stages == STAGE_LISTS["scoped"]
    assert STAGE_LISTS["scoped"] == ("heading scope", "evidence probe", "entity hits", "context", "reader")
    assert current_stages() == Stages()
    changed = Stages().but(entities=EntityHitsConfig(per_entity=3))
    with using(changed):
        assert current_stages().entities.per_entity == 3
    assert current_stages().entities.per_entity == 8


@pytest.mark.parametrize("question", ["Which monitor is lighter, the Nova 24FL or the Nova 27QX?",
                                      "Nova 24FL와 Nova 27QX 중 어느 쪽이 더 가벼운가요?"])
def test_a_comparative_question_runs_one_search_per_entity_plus_one(samples_store, question, monkeypatch) -> None:
    calls = []
    monkeypatch.setattr(pipeline_module, "analyse", lambda q, lexicon: calls.append(q) or analyse(q, lexicon))
    result = retrieve(samples_store, RetrievalRequest(question, k=4))
    assert len(calls) == 1, "the question is analysed once"
    entities = [n for n in result.notes if n.startswith("compared ")]
    assert entities and entities[0].startswith("compared 2 entities")
    assert result.searches <= 2 + 1, result.notes
    assert result.describe()["stages"] == list(STAGE_LISTS["scoped"])
    with using(Stages().but(entities=EntityHitsConfig(one_search_each=False))):
        probed = retrieve(samples_store, RetrievalRequest(question, k=4))
    assert probed.searches > result.searches, "the heading scope's probes cost searches the entities redo"
