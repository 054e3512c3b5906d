"""What an LLM index run will cost, before it runs: calls, tokens and money at a price per 1M tokens.

**Extraction**: per text unit with text, one extraction call, then per gleaning round one gleaning call and (but for
the last round) one "anything left?" check; counted as if the model always says yes (an upper bound). A call's input
is its whole conversation so far (system prompt, prompt with the unit's text, earlier replies), counted with the
same tokenizer the index uses; its output is assumed to be :data:`EXTRACTION_OUTPUT_RATIO` of the unit's tokens (the
records restate names and descriptions), :data:`GLEANING_OUTPUT_RATIO` for a gleaning, 1 token for a check.

**Reports**: one call per community. The entity communities an LLM will find are not known before extraction;
the offline extraction's Leiden communities stand in for them (the same algorithm and size limit, on a graph of
the same text). Structural communities come from the heading tree and are counted exactly. A report call's input
is the report prompt plus its context, at most ``report_context_tokens``, estimated as the community's text up to
that budget; its output :data:`REPORT_OUTPUT_TOKENS`.

**Topics** (issue 31's tiers, built by the same run): one call per heading section with statements (the HLG topic
prompt, :mod:`core.hlg.prompts`), its input the prompt plus the section's text as the topic tier cuts it, its output
:data:`core.hlg.prompts.TOPIC_OUTPUT_TOKENS`. **Statements**: one proposition call per element with prose
(:func:`core.hlg.llm.needs_propositions`), its input the prompt plus the element's text, its output
:data:`core.hlg.prompts.PROPOSITION_OUTPUT_RATIO` of that text. **Facts**: one triple call per
:attr:`core.hlg.llm.LLMTiers.batch` statements with no structured fact, per document, counted on the offline
statements (the propositions are not known before the calls), its output
:data:`core.hlg.prompts.TRIPLE_OUTPUT_TOKENS` per statement.

Responses already in the collection's LLM cache cost nothing; the estimate ignores the cache, so a re-run costs
less than it says. Prices default to :data:`DEFAULT_PRICE_IN` / :data:`DEFAULT_PRICE_OUT` US$ per 1M tokens
(``HKE_PRICE_IN_PER_M`` / ``HKE_PRICE_OUT_PER_M``, or the ``--price-in``/``--price-out`` flags).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from core.graph import prompts

if TYPE_CHECKING:
    from core.graph.indexing.pipeline import IndexConfig
    from core.store import ElementStore

EXTRACTION_OUTPUT_RATIO = 0.6
GLEANING_OUTPUT_RATIO = 0.3
REPORT_OUTPUT_TOKENS = 700
DEFAULT_PRICE_IN = 0.15  # US$ per 1M input tokens (gpt-4o-mini list price when written)
DEFAULT_PRICE_OUT = 0.60


@dataclass
class CostEstimate:
    text_units: int
    extraction_calls: int
    report_calls: int
    input_tokens: int
    output_tokens: int
    price_in_per_m: float
    price_out_per_m: float
    topic_calls: int = 0
    statement_calls: int = 0
    triple_calls: int = 0

    @property
    def calls(self) -> int:
        return self.extraction_calls + self.report_calls + self.topic_calls + self.statement_calls + self.triple_calls

    @property
    def cost(self) -> float:
        return self.input_tokens / 1e6 * self.price_in_per_m + self.output_tokens / 1e6 * self.price_out_per_m

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "calls": self.calls, "cost_usd": round(self.cost, 4)}

    def describe(self) -> str:
        return (
            f"{self.calls:,} LLM calls ({self.extraction_calls:,} extraction over {self.text_units:,} text units, "
            f"{self.report_calls:,} reports, {self.topic_calls:,} topic names, {self.statement_calls:,} proposition "
            f"and {self.triple_calls:,} triple calls for the statement tiers), "
            f"about {self.input_tokens:,} input and {self.output_tokens:,} output "
            f"tokens: ≈ US${self.cost:,.2f} at ${self.price_in_per_m:g} / ${self.price_out_per_m:g} per 1M "
            "input/output tokens (an upper bound: cached replies cost nothing)."
        )


def check_price(value: float | str, name: str) -> float:
    """``value`` as US$ per 1M tokens; a ValueError naming ``name`` unless it is a finite number of 0 or more."""
    try:
        price = float(value)
    except ValueError:
        price = math.nan
    if not math.isfinite(price) or price < 0:
        raise ValueError(f"{name} must be a finite number of US$ per 1M tokens, 0 or more; got {value}")
    return price


def default_prices() -> tuple[float, float]:
    """(input, output) US$ per 1M tokens: ``HKE_PRICE_IN_PER_M`` / ``HKE_PRICE_OUT_PER_M`` or the defaults."""
    from core.config import load_settings

    settings = load_settings()
    return (
        check_price(settings.price_in_per_m or DEFAULT_PRICE_IN, "HKE_PRICE_IN_PER_M"),
        check_price(settings.price_out_per_m or DEFAULT_PRICE_OUT, "HKE_PRICE_OUT_PER_M"),
    )


def estimate_index_cost(
    store: ElementStore,
    config: IndexConfig | None = None,
    *,
    price_in_per_m: float | None = None,
    price_out_per_m: float | None = None,
) -> CostEstimate:
    """The estimate for indexing ``store``'s collection with ``config`` (an :class:`IndexConfig`) and an LLM."""
    from core.graph.indexing.pipeline import IndexConfig, run_index
    from core.tokens import count_tokens

    config = config or IndexConfig()
    default_in, default_out = default_prices()
    price_in = default_in if price_in_per_m is None else check_price(price_in_per_m, "the input price")
    price_out = default_out if price_out_per_m is None else check_price(price_out_per_m, "the output price")
    offline = run_index(store, config=_offline(config), write=False)
    graph = offline.graph
    with_text = {s.unit_id for s in graph.sentences}
    units = [u for u in graph.units if u.id in with_text]
    # The fixed part of each exchange: the conversation's new turns, without the unit's text or the replies.
    (_, system), (_, template) = prompts.extraction_messages(config.entity_types, "")
    system, template = count_tokens(system), count_tokens(template)
    gleaning_prompt = count_tokens(prompts.gleaning_messages([], "")[-1][1])
    check_prompt = count_tokens(prompts.gleaning_check_messages([], "")[-1][1])
    calls = tokens_in = tokens_out = 0
    for unit in units:
        conversation = system + template + unit.n_tokens
        reply = int(EXTRACTION_OUTPUT_RATIO * unit.n_tokens) + 20
        calls += 1
        tokens_in += conversation
        tokens_out += reply
        for round_ in range(config.gleanings):
            conversation += reply + gleaning_prompt
            reply = int(GLEANING_OUTPUT_RATIO * unit.n_tokens) + 10
            calls += 1
            tokens_in += conversation
            tokens_out += reply
            if round_ < config.gleanings - 1:
                conversation += reply + check_prompt
                calls += 1
                tokens_in += conversation
                tokens_out += 1
    extraction_calls = calls
    report_template = sum(count_tokens(text) for _, text in prompts.report_messages(
        "", config.min_findings, config.max_findings))  # fmt: skip
    unit_tokens = {u.id: u.n_tokens for u in graph.units}
    for community in offline.communities:
        context = min(config.report_context_tokens, sum(unit_tokens.get(u, 0) for u in community.text_unit_ids))
        tokens_in += report_template + context
        tokens_out += REPORT_OUTPUT_TOKENS
    tiers = _tier_calls(store)
    return CostEstimate(len(units), extraction_calls, len(offline.communities), tokens_in + tiers.tokens_in,
                        tokens_out + tiers.tokens_out, price_in, price_out, tiers.topics, tiers.statements,
                        tiers.triples)  # fmt: skip


@dataclass
class _TierCalls:
    topics: int = 0
    statements: int = 0
    triples: int = 0
    tokens_in: int = 0
    tokens_out: int = 0


def _tier_calls(store: ElementStore) -> _TierCalls:
    """The calls of the LLM tiers (topic names, propositions, triples) and their tokens, on the statements as the
    offline tier would read them now."""
    from core.hlg.extract import Vocabulary, document_statements
    from core.hlg.llm import LLMTiers, needs_propositions, needs_triples
    from core.hlg.prompts import (
        PROPOSITION_OUTPUT_RATIO,
        TOPIC_OUTPUT_TOKENS,
        TRIPLE_OUTPUT_TOKENS,
        proposition_messages,
        topic_messages,
        triple_messages,
    )
    from core.ingest.tiers import topic_text
    from core.store.hlg_tables import SectionDraft
    from core.tokens import count_tokens

    def template(messages: list[tuple[str, str]]) -> int:
        return sum(count_tokens(text) for _, text in messages)

    topic_template, proposition_template = template(topic_messages((), "")), template(proposition_messages((), ""))
    triple_template, batch = template(triple_messages([])), LLMTiers().batch
    vocabulary = Vocabulary(h.text for h in store.read.headings())
    out = _TierCalls()
    for document in store.documents():
        statements = document_statements(store.read.elements(document.document_id), vocabulary).statements
        sections: dict[str, SectionDraft] = {}
        elements: dict[str, list] = {}
        for s in statements:
            sections.setdefault(s.topic, SectionDraft(s.document_id, s.topic, s.heading_path, [], None)  # type: ignore[arg-type]
                                ).texts.append(s.text)
            elements.setdefault(s.element_id, []).append(s)
        for section in sections.values():
            out.topics += 1
            out.tokens_in += topic_template + count_tokens(topic_text(section))
            out.tokens_out += TOPIC_OUTPUT_TOKENS
        for of_element in elements.values():
            if needs_propositions(of_element):
                text = count_tokens(" ".join(s.text for s in of_element))
                out.statements += 1
                out.tokens_in += proposition_template + count_tokens(" > ".join(of_element[0].heading_path)) + text
                out.tokens_out += int(PROPOSITION_OUTPUT_RATIO * text) + 10
        asked = [s for s in statements if needs_triples(s)]
        for start in range(0, len(asked), batch):
            group = asked[start:start + batch]
            out.triples += 1
            out.tokens_in += triple_template + sum(count_tokens(s.self_contained) + 2 for s in group)
            out.tokens_out += TRIPLE_OUTPUT_TOKENS * len(group)
    return out


def _offline(config: IndexConfig) -> IndexConfig:
    from dataclasses import replace

    return replace(config, extraction="offline", reports="extractive")
