"""The LLM statement and fact tiers (issue 31): propositions per prose element and S-P-O triples per statement
batch, through the real OpenAI client against a local OpenAI-compatible stub on 127.0.0.1 (tests/test_llm_stub.py),
stored in the real Postgres next to the offline tiers, cached, bounded, and falling back to the offline tiers."""

from __future__ import annotations

import json
import uuid

import pytest

from core.hlg.llm import LLMTiers, grounded, says_more
from core.hlg.prompts import propositions, topic_name, triples
from core.ingest import SourceFile, ingest
from core.ingest.tiers import sync_tiers
from core.llm import CALL_TOKENS, chat_model
from core.store import ElementStore
from core.store.hlg_tables import HLGTables
from tests.helpers_embeddings import HashEmbeddings

from .test_llm_stub import Stub, settings_for

PAYLOAD = ("# Orbiter Mission\n## Payloads\n### Lumen Camera\n"
           "* Built by : Aurora Optics Lab\n* Resolution : 2 m per pixel\n\n"
           "It maps the polar ice every week and it was built in 2019.\n")
LAB = ("# Research Labs\n## Aurora Optics Lab\n* Head : Dr. Mira Santos\n\n"
       "The lab designs space telescopes and imaging payloads.\n")

PROPOSITIONS = {
    "It maps the polar ice": ("- The Lumen Camera maps the polar ice every week.\n"
                              "- The Lumen Camera was built in 2019.\n"
                              "- The Lumen Camera is a luxury sports car."),  # the last one is invented
    "The lab designs": "1. Aurora Optics Lab designs space telescopes.\n2. Aurora Optics Lab designs imaging payloads.",
}


@pytest.fixture
def store(db_url, collection_name):
    s = ElementStore(db_url, collection_name, HashEmbeddings())
    ingest(s, [SourceFile("payload.md", PAYLOAD.encode()), SourceFile("lab.md", LAB.encode())])
    sync_tiers(s)  # offline, as `core index` with no key builds them; every later ingest keeps them up to date
    yield s
    s.drop()


def _prompt(body: dict) -> str:
    return body["messages"][-1]["content"]


def good_replies(body: dict) -> dict:
    """A model that follows the prompts: propositions, numbered triples, topic names."""
    prompt = _prompt(body)
    if prompt.startswith("Split the content below into propositions"):
        content = prompt.rsplit("Content: ", 1)[1]
        return {"reply": next(reply for start, reply in PROPOSITIONS.items() if content.startswith(start))}
    if prompt.startswith("For each numbered statement"):
        listed = prompt.split("Statements:\n", 1)[1]
        lines = []
        for line in listed.splitlines():
            number, _, text = line.partition(". ")
            if "maps the polar ice" in text:
                lines.append(f"{number} | Lumen Camera | maps | polar ice")
            elif "designs space telescopes" in text:
                lines.append(f"{number} | Aurora Optics Lab | designs | space telescopes")
                lines.append(f"{number} | Aurora Optics Lab | is owned by | Acme Yachts")  # invented
        return {"reply": "\n".join(lines) or "Nothing to say."}
    return {"reply": "Aurora Optics Lab and its payloads"}


def _statements(store: ElementStore) -> list[tuple[str, str]]:
    with store.pool.connection() as conn:
        return [(r[0], r[1]) for r in conn.execute(
            "SELECT kind, text FROM hke_hlg_statements WHERE collection_id = %s AND valid_to IS NULL "
            "ORDER BY document_id, element_id, ordinal", (store.collection_id,)).fetchall()]


def _kind_of(body: dict) -> str:
    prompt = _prompt(body)
    return ("statement" if prompt.startswith("Split the content") else
            "triple" if prompt.startswith("For each numbered") else "topic")


# -- the readers, pure text --------------------------------------------------------------------------------------


def test_propositions_are_read_from_bullets_numbers_or_a_json_list_and_prose_reads_as_none():
    assert propositions("- A is B.\n* C is D.\n3) E is F.\n") == ["A is B.", "C is D.", "E is F."]
    assert propositions('["A is B.", "C is D."]') == ["A is B.", "C is D."]
    assert propositions("Sure! The camera maps ice. It was built in 2019.") == []
    assert propositions("") == propositions("[1, 2]") == []


def test_a_topic_name_framed_as_a_sentence_is_read_without_its_frame():
    assert topic_name("The topic of the statements is Nova 32UX firmware fixes.") == "Nova 32UX firmware fixes"
    assert topic_name("The topic is KVM switching") == "KVM switching"
    assert topic_name("Topics in optics") == "Topics in optics"  # a name that starts with the word is kept


def test_triples_need_a_number_that_names_a_statement_and_three_short_parts():
    reply = "1 | Lumen Camera | maps | polar ice\n2. | Lab | heads | Dr. Santos\n9 | X | y | z\nA | b | c\n1 | | x | y"
    assert triples(reply, 2) == [(0, "Lumen Camera", "maps", "polar ice"), (1, "Lab", "heads", "Dr. Santos")]
    assert triples("The Lumen Camera maps polar ice.", 1) == []
    assert triples("1 | " + "x" * 200 + " | is | y", 1) == []


def test_a_proposition_is_kept_only_when_its_words_come_from_its_source():
    source = "Orbiter Mission Lumen Camera It maps the polar ice every week"
    assert grounded("The Lumen Camera maps the polar ice every week.", source, 0.5)
    assert not grounded("The Lumen Camera is a luxury sports car.", source, 0.5)
    assert grounded("빛살은 전송에 성공했습니다", "빛살을 전송에 성공했습니다", 0.5)  # the particle differs
    # what SmolLM2-135M listed (bench/llm_replay): the heading path itself, and the prompt's own example
    assert not says_more("Nova Display Firmware Release Notes", ("Nova Display Firmware Release Notes",))
    assert says_more("Nova Display Firmware Release Notes list version 1.08", ("Nova Display Firmware Release Notes",))
    assert not grounded("Aurora Optics Lab was founded in 2011.", "Nova Monitor Setup Guide MacOS does not support "
                        "DisplayPort MST", 0.5)
    with pytest.raises(ValueError, match="batch"):
        LLMTiers(batch=0)
    assert not LLMTiers(statements=False, facts=False).reads_elements


# -- through the stub --------------------------------------------------------------------------------------------


def test_with_a_model_propositions_and_triples_are_stored_bounded_and_cached(store):
    offline = _statements(store)
    assert ("sentence", "It maps the polar ice every week and it was built in 2019.") in offline
    with Stub([], choose=good_replies) as stub:  # one server throughout: the cache is per model and endpoint
        model = chat_model(settings_for(stub.base_url))
        sync = sync_tiers(store, chat_model=model)
        asked = [(_kind_of(r["body"]), r["body"].get("max_tokens")) for r in stub.requests]
        counts = sync.llm
        assert counts is not None and counts.statement_calls == 2 and counts.statement_fallbacks == 0
        assert ("statement", CALL_TOKENS["statement"]) in asked and ("triple", CALL_TOKENS["triple"]) in asked
        assert all(bound == CALL_TOKENS[kind] for kind, bound in asked)  # every call is bounded by its kind
        stored = _statements(store)
        assert ("proposition", "The Lumen Camera maps the polar ice every week.") in stored
        assert ("proposition", "Aurora Optics Lab designs imaging payloads.") in stored
        assert not any(kind == "sentence" for kind, _ in stored)  # the prose was replaced by its propositions
        assert ("item", "Built by : Aurora Optics Lab") in stored  # items are atomic already: kept as they are
        assert not any("sports car" in text for _, text in stored) and counts.ungrounded == 2  # the invented ones
        tables = HLGTables(store)
        camera = {(f["predicate"], f["object"], f["kind"]) for f in tables.entity_facts("Lumen Camera")}
        assert ("maps", "polar ice", "triple") in camera and ("Built by", "Aurora Optics Lab", "attribute") in camera
        lab = {(f["predicate"], f["object"], f["kind"], f["support"]) for f in tables.entity_facts("Aurora Optics Lab")}
        assert ("designs", "space telescopes", "triple", 1) in lab and not any(p == "is owned by" for p, *_ in lab)
        assert counts.triples == 2 and counts.triple_fallbacks == 0  # "was built in 2019" got none: its batch did
        # the same element text read again (edited, then edited back: an ingest reads it offline): from the cache
        ingest(store, [SourceFile("lab.md", LAB.replace("imaging", "radio").encode())])
        ingest(store, [SourceFile("lab.md", LAB.encode())])
        before = len(stub.requests)
        again = sync_tiers(store, chat_model=model)
        kinds = [_kind_of(r["body"]) for r in stub.requests[before:]]
        assert again.llm is not None and again.llm.statement_calls == again.llm.triple_calls == 1
        assert again.llm.cached == 2 and kinds == []  # and the section reads as before: its topic name is cached
        assert ("proposition", "Aurora Optics Lab designs imaging payloads.") in _statements(store)
        before = len(stub.requests)  # nothing new: no element is read again, nothing is asked
        idle = sync_tiers(store, chat_model=model)
        assert len(stub.requests) == before and idle.llm is not None and idle.llm.statement_calls == 0


def test_prose_replies_keep_the_offline_statements_and_facts_with_the_fallbacks_counted(store):
    from core.graph.llm_cache import cache_size

    offline = _statements(store)
    offline_facts = HLGTables(store).counts().facts
    prose = {"reply": "Sure! The Lumen Camera is a wonderful camera that maps ice. I hope this helps."}
    with Stub([prose]) as stub:
        sync = sync_tiers(store, chat_model=chat_model(settings_for(stub.base_url)))
    counts = sync.llm
    assert counts is not None and counts.statement_calls == counts.statement_fallbacks == 2
    assert counts.triple_calls == counts.triple_fallbacks >= 2 and counts.propositions == counts.triples == 0
    assert "2 element(s) kept offline" in sync.describe()
    assert _statements(store) == offline and HLGTables(store).counts().facts == offline_facts
    # a prose reply is never cached (a topic name parses from any first line, so only the topic replies are)
    assert cache_size(store.pool, store.collection_id) == sync.topic_calls - sync.topic_cached


def test_a_failed_call_keeps_the_offline_tier_and_the_element_is_asked_again_next_build(store):
    offline = _statements(store)
    with Stub([{"status": 400, "error": {"message": "bad request"}}]) as stub:
        sync = sync_tiers(store, chat_model=chat_model(settings_for(stub.base_url)))
    assert sync.llm is not None and sync.llm.failed_elements and _statements(store) == offline
    with Stub([], choose=good_replies) as stub:
        later = sync_tiers(store, chat_model=chat_model(settings_for(stub.base_url)))
    assert later.llm is not None and later.llm.propositions == 4  # read again once the model answers


def test_the_estimate_counts_proposition_triple_and_topic_calls(store):
    from core.graph.indexing.estimate import estimate_index_cost

    estimate = estimate_index_cost(store)  # what `core index --estimate` prints (its CLI: tests/test_graph_index.py)
    est = json.loads(json.dumps(estimate.to_dict()))
    assert "2 proposition and 2 triple calls" in estimate.describe()
    assert est["statement_calls"] == 2  # one per element with prose; items are atomic already
    assert est["triple_calls"] == 2  # per document, the statements with no key : value or row fact, 8 a call
    assert est["topic_calls"] >= 2  # a heading section with statements each
    assert est["calls"] == (est["extraction_calls"] + est["report_calls"] + est["topic_calls"]
                            + est["statement_calls"] + est["triple_calls"])


def test_core_index_with_a_model_builds_the_llm_tiers_and_says_what_the_model_gave(db_url, use_embeddings,
                                                                                   monkeypatch, capsys):
    from core.cli import main

    store = ElementStore(db_url, f"t_llm_{uuid.uuid4().hex[:8]}", use_embeddings)  # the CLI's own embedder
    try:
        ingest(store, [SourceFile("payload.md", PAYLOAD.encode()), SourceFile("lab.md", LAB.encode())])
        with Stub([], choose=good_replies) as stub:
            monkeypatch.setenv("OPENAI_API_KEY", "sk-test-NeverShowThis0000")
            monkeypatch.setenv("OPENAI_BASE_URL", stub.base_url)
            assert main(["index", "--collection", store.collection, "--yes", "--gleanings", "0"]) == 0
            kinds = {_kind_of(r["body"]) for r in stub.requests}
        err = capsys.readouterr().err
        assert "2 proposition call(s) (4 propositions, 0 element(s) kept offline)" in err
        assert "2 triple call(s) (2 triples" in err and "NeverShowThis" not in err
        assert {"statement", "triple", "topic"} <= kinds
        assert ("proposition", "The Lumen Camera was built in 2019.") in _statements(store)
    finally:
        store.drop()
