"""Settings read from the environment by core/config.py and checked by the work that uses them.

``HKE_PARSE_TIMEOUT``, ``HKE_CONTEXT_TOKENS`` and ``HKE_PRICE_IN_PER_M`` / ``HKE_PRICE_OUT_PER_M`` reach their
users through :class:`core.config.Settings`; a bad value does not stop ``load_settings`` (and so every other
command), only the parse, the context or the estimate, with the message that names the variable.
"""

from __future__ import annotations

import pytest

from core.config import load_settings
from core.graph.indexing.estimate import DEFAULT_PRICE_IN, DEFAULT_PRICE_OUT, default_prices
from core.parse_limit import parse_time_limit
from core.retrieval.context import DEFAULT_CONTEXT_TOKENS, context_token_budget

BAD = {"HKE_PARSE_TIMEOUT": "soon", "HKE_CONTEXT_TOKENS": "ten", "HKE_PRICE_IN_PER_M": "-1",
       "HKE_PRICE_OUT_PER_M": "inf"}


def test_settings_carry_the_values_and_their_users_read_them(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HKE_PARSE_TIMEOUT", " 2.5 ")
    monkeypatch.setenv("HKE_CONTEXT_TOKENS", "1500")
    monkeypatch.setenv("HKE_PRICE_IN_PER_M", "1.25")
    monkeypatch.setenv("HKE_PRICE_OUT_PER_M", "5")
    settings = load_settings()
    assert (settings.parse_timeout, settings.context_tokens) == ("2.5", "1500")
    assert (settings.price_in_per_m, settings.price_out_per_m) == ("1.25", "5")
    assert parse_time_limit(60.0) == 2.5
    assert context_token_budget() == 1500
    assert default_prices() == (1.25, 5.0)


def test_unset_means_the_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in BAD:
        monkeypatch.delenv(name, raising=False)
    assert parse_time_limit(60.0) == 60.0
    assert context_token_budget() == DEFAULT_CONTEXT_TOKENS
    assert default_prices() == (DEFAULT_PRICE_IN, DEFAULT_PRICE_OUT)


def test_a_bad_value_stops_only_the_work_that_reads_it(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in BAD.items():
        monkeypatch.setenv(name, value)
    load_settings()  # every other command still starts
    with pytest.raises(ValueError, match="^HKE_PARSE_TIMEOUT must be a number of seconds, got 'soon'$"):
        parse_time_limit(60.0)
    with pytest.raises(ValueError, match="^HKE_CONTEXT_TOKENS must be a whole number of tokens, got 'ten'$"):
        context_token_budget()
    with pytest.raises(ValueError, match="^HKE_PRICE_IN_PER_M must be a finite number of US\\$ per 1M tokens"):
        default_prices()
    monkeypatch.delenv("HKE_PRICE_IN_PER_M")
    with pytest.raises(ValueError, match="^HKE_PRICE_OUT_PER_M must be a finite number"):
        default_prices()
