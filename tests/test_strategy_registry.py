"""One registry of search strategies (``core.retrieval.strategies.REGISTRY``): ``ask --search``, the evaluation
modes and :func:`search_config` read it, so a strategy added there is offered everywhere (the Compare page's
selector is checked in tests/test_compare_page.py)."""

from __future__ import annotations

import argparse

import pytest

from core.cli import build_parser
from core.evaluation.modes import ALL_MODES, MODE_SPECS, mode_specs
from core.retrieval import strategies
from core.retrieval.strategies import (
    DEFAULT_SEARCH,
    REGISTRY,
    SearchConfig,
    Strategy,
    compare_choices,
    search_choices,
    search_config,
)

PROBE = Strategy(SearchConfig("probe", vector=False, fulltext=True, candidates=7), "a strategy added for the test")


def _ask_search_choices() -> list[str]:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    ask = sub.choices["ask"]
    return list(next(a for a in ask._actions if a.dest == "search").choices)


@pytest.fixture
def probe_registered(monkeypatch):
    monkeypatch.setitem(REGISTRY, PROBE.name, PROBE)
    return PROBE


def test_every_entry_is_named_by_its_config():
    assert all(name == s.config.name for name, s in REGISTRY.items())
    assert strategies.STRATEGIES[strategies.DEFAULT_STRATEGY] == DEFAULT_SEARCH and not DEFAULT_SEARCH.route


def test_ask_offers_default_and_every_registered_strategy():
    assert _ask_search_choices() == ["default", *REGISTRY] == list(search_choices())


def test_the_compare_choices_are_the_entries_shown_there():
    assert compare_choices() == ("default", *(n for n, s in REGISTRY.items() if s.in_compare))
    # An index most collections lack is not offered on the page (a question there would only fail).
    assert all(not REGISTRY[n].needs_contextual_index for n in compare_choices()[1:])


def test_the_evaluation_modes_are_the_plain_baseline_one_per_strategy_and_default():
    assert ALL_MODES == ("plain", *(s.mode for s in REGISTRY.values()), "default", "routed") == tuple(MODE_SPECS)
    for strategy in REGISTRY.values():
        spec = MODE_SPECS[strategy.mode]
        assert spec.search == strategy.config.but(headings=False) and spec.children_budget == 0
        assert spec.context == "hierarchical"
    assert MODE_SPECS["default"].search == DEFAULT_SEARCH and MODE_SPECS["plain"].context == "plain"
    assert MODE_SPECS["routed"].search == DEFAULT_SEARCH.but(route=True)


def test_a_strategy_added_to_the_registry_is_offered_everywhere(probe_registered):
    assert "probe" in _ask_search_choices()
    assert "probe" in compare_choices() and "probe" in search_choices()
    assert search_config("probe") == PROBE.config
    assert strategies.STRATEGIES["probe"] is PROBE.config
    assert mode_specs()["probe"].search == PROBE.config.but(headings=False)
    args = build_parser().parse_args(["ask", "a question", "--search", "probe"])
    assert args.search == "probe"


def test_an_unknown_strategy_names_the_choices():
    with pytest.raises(ValueError, match="choose from default, vector"):
        search_config("bm42")
    with pytest.raises(SystemExit):
        build_parser().parse_args(["ask", "a question", "--search", "bm42"])
