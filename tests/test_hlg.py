"""The hierarchical lexical graph (issue 31): statements, facts and entities next to the element tables, built
incrementally and versioned with the elements, and the ``statements`` strategy that joins them across documents.

Everything runs on the real embedded Postgres with the bundled offline embedder.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from core.elements import Element
from core.hlg.extract import Limits, Vocabulary, document_statements, entity_key
from core.ingest import SourceFile, ingest
from core.ingest.tiers import sync_tiers, tiers_built
from core.retrieval import RetrievalRequest, retrieve
from core.retrieval.statement_search import StatementsMissingError, question_entity_keys
from core.retrieval.strategies import REGISTRY, compare_choices, search_choices
from core.store.hlg_tables import HLGTables

PAYLOAD = ("# Orbiter Mission\n## Payloads\n### Lumen Camera\n"
           "* Built by : Aurora Optics Lab\n* Resolution : 2 m per pixel\n\n"
           "The Lumen Camera maps the polar ice every week.\n")
LAB = ("# Research Labs\n## Aurora Optics Lab\n* Head : Dr. Mira Santos\n* Founded : 2011\n\n"
       "The lab designs space telescopes and imaging payloads.\n")
OTHER = ("# Ground Segment\n## Antenna Farm\n* Head : Tomas Reyes\n* Dishes : 4\n\n"
         "The farm receives telemetry from every spacecraft.\n")



def _elements(markdown: str, document_id: str = "d") -> list[Element]:
    from core.markdown_loader import parse_markdown

    return [Element.from_document(d) for d in parse_markdown(markdown, source="x.md", document_id=document_id)]


def _ingest(store, files: dict[str, str], **kwargs) -> None:
    report = ingest(store, [SourceFile(name, text.encode()) for name, text in files.items()], **kwargs)
    assert not report.errors, report.errors


# -- the offline tier, pure text -------------------------------------------------------------------------------


def test_statements_are_sentences_items_and_rows_made_self_contained_with_facts_under_the_nearest_heading():
    markdown = PAYLOAD + "\n| Band | Wavelength |\n| --- | --- |\n| Blue | 450 nm |\n"
    found = document_statements(_elements(markdown), Vocabulary(["Aurora Optics Lab", "Lumen Camera"]))
    by_text = {s.text: s for s in found.statements}
    item = by_text["Built by : Aurora Optics Lab"]
    assert item.kind == "item" and item.self_contained.startswith("Orbiter Mission > Payloads > Lumen Camera > ")
    assert ("Lumen Camera", "Built by", "Aurora Optics Lab", "attribute") in {
        (f.subject, f.predicate, f.object, f.kind) for f in item.facts}
    assert {"lumencamera", "auroraopticslab"} <= {key for key, _name, _role in item.entities}
    rows = [s for s in found.statements if s.kind == "row"]
    assert rows and ("Blue", "Wavelength", "450 nm", "row") in {(f.subject, f.predicate, f.object, f.kind)
                                                                 for f in rows[0].facts}
    sentence = by_text["The Lumen Camera maps the polar ice every week."]
    assert sentence.kind == "sentence" and "lumencamera" in {key for key, _n, _r in sentence.entities}
    assert not any(s.text.startswith("Orbiter") for s in found.statements)  # headings are topics, not statements


def test_korean_prose_is_split_by_the_shipped_analyser():
    text = "# 연구실\n빛살을 개발했습니다. 빛살은 전송에 성공했습니다 그리고 계속 시험합니다.\n"
    texts = [s.text for s in document_statements(_elements(text)).statements]
    assert texts[0] == "빛살을 개발했습니다." and len(texts) >= 2


@pytest.mark.parametrize("word", ["the", "The", "of", "이", "은", "7", "x", ""])
def test_stop_words_and_function_words_are_never_entities(word):
    assert entity_key(word) == ""
    assert entity_key("Aurora Optics Lab") == "auroraopticslab"


def test_a_huge_element_is_bounded_by_the_limits_and_the_cut_is_said():
    many = _elements("# Log\n" + " ".join(f"Event {i} happened." for i in range(100_000)) + "\n")
    found = document_statements(many, limits=Limits(per_element=50))
    assert len(found.statements) == 50
    assert any("100000 statements; the first 50 were kept" in cut for cut in found.cuts)
    huge = "# Log\n" + "word " * 200_000 + "\n"  # one sentence of 1 MB
    found = document_statements(_elements(huge), limits=Limits(max_chars=1_000))
    assert [len(s.text) for s in found.statements] == [1_000]
    assert any("its first 1000 were kept" in cut for cut in found.cuts)
    many_docs = document_statements(many, limits=Limits(per_element=100_000, per_document=300))
    assert len(many_docs.statements) == 300 and any("more than 300 statements" in c for c in many_docs.cuts)


# -- the tables, with the real database --------------------------------------------------------------------------


def test_tiers_are_built_once_and_a_question_bridges_two_documents(store):
    _ingest(store, {"payload.md": PAYLOAD, "lab.md": LAB, "ground.md": OTHER})
    request = RetrievalRequest("Who heads the lab that built the Lumen Camera?", k=3, search="statements")
    with pytest.raises(StatementsMissingError, match="python -m core index"):
        retrieve(store, request)
    first = sync_tiers(store)
    assert first.statements_written > 0 and first.counts["facts"] > 0 and tiers_built(store)
    assert sync_tiers(store).elements_read == 0  # nothing new: nothing read again
    retrieval = retrieve(store, request)
    texts = [h.element.text for h in retrieval.hits]
    assert "Built by : Aurora Optics Lab" in texts and "Head : Dr. Mira Santos" in texts
    assert "Head : Tomas Reyes" not in texts[:2]
    assert any(n.startswith("joined: Lumen Camera: Built by") and "Aurora Optics Lab: Head" in n
               for n in retrieval.notes), retrieval.notes
    again = retrieve(store, request)
    assert [h.element_id for h in again.hits] == [h.element_id for h in retrieval.hits]  # deterministic
    facts = HLGTables(store).entity_facts("Aurora Optics Lab")
    assert {(f["predicate"], f["object"]) for f in facts} >= {("Head", "Dr. Mira Santos"), ("Founded", "2011")}


def test_an_edited_element_rewrites_only_its_statements_and_reads_as_of_see_the_old_ones(hash_store):
    store = hash_store
    _ingest(store, {"lab.md": LAB, "payload.md": PAYLOAD}, valid_from="2024-01-01")
    sync_tiers(store)
    tables = HLGTables(store)
    before = {r.text: r.statement_id for r in tables.entry_vector(store.embeddings.embed_query("lab head"), [], 50)}
    _ingest(store, {"lab.md": LAB.replace("Dr. Mira Santos", "Dr. Ines Okafor")}, valid_from="2024-06-01")
    # the ingest kept the tiers up to date: one element changed, so one statement was written and one closed
    after = {r.text: r.statement_id for r in tables.entry_vector(store.embeddings.embed_query("lab head"), [], 50)}
    assert "Head : Dr. Ines Okafor" in after and "Head : Dr. Mira Santos" not in after
    unchanged = set(before) & set(after)
    assert unchanged and all(before[t] == after[t] for t in unchanged)  # not rewritten
    assert set(after) - set(before) == {"Head : Dr. Ines Okafor"}
    old = HLGTables(store.as_of(datetime(2024, 3, 1, tzinfo=UTC)))
    then = {r.text for r in old.entry_vector(store.embeddings.embed_query("lab head"), [], 50)}
    assert "Head : Dr. Mira Santos" in then and "Head : Dr. Ines Okafor" not in then
    assert tables.counts().statement_rows == tables.counts().statements + 1
    store.write.remove_document(next(d.document_id for d in store.documents() if d.filename == "lab.md"), purge=True)
    sync_tiers(store)
    assert not any("Okafor" in r.text or "Santos" in r.text
                   for r in tables.entry_vector(store.embeddings.embed_query("lab head"), [], 50))
    assert old.entity_facts("Aurora Optics Lab") == []  # purged: no version keeps its facts


def test_fact_cycles_are_bounded_by_the_hop_budget_and_stop_words_never_bridge(hash_store):
    store = hash_store
    cycle = {f"n{i}.md": f"# Node {i}\n* Next : Node {(i + 1) % 4}\n* Tag : 'the'\n" for i in range(4)}
    _ingest(store, cycle)
    sync_tiers(store)
    tables = HLGTables(store)
    vector = store.embeddings.embed_query("Node 0")
    entry = [r.statement_id for r in tables.entry_entities(["node0"], vector, [], 5)]
    assert entry
    for hops in (1, 2, 8):
        reached = tables.expand(entry, vector, [], hops=hops, fanout=30, k=100)
        assert all(1 <= r.hop <= hops for r in reached)
        assert len({r.statement_id for r in reached}) == len(reached)  # each statement once, however it cycles
    walked = tables.expand(entry, vector, [], hops=8, fanout=30, k=100)
    assert {r.text for r in walked} >= {"Next : Node 2", "Next : Node 3"}  # the cycle is walked round
    assert not any(r.via.casefold() == "the" for r in walked)  # 'the', quoted in every document, joins nothing
    assert tables.entry_entities(["the"], vector, [], 5) == []  # it was never stored as an entity
    # past the fan-out no entity is a bridge: nothing is reached
    assert tables.expand(entry, vector, [], hops=8, fanout=1, k=100) == []


def test_storage_is_proportionate_to_the_element_index(hash_store):
    store = hash_store
    _ingest(store, {"payload.md": PAYLOAD, "lab.md": LAB, "ground.md": OTHER})
    sync_tiers(store)
    storage = HLGTables(store).storage()
    assert 0 < storage.tiers and storage.ratio <= 1.5, storage.as_dict()


def test_the_strategy_is_offered_everywhere_the_registry_reaches():
    assert "statements" in REGISTRY and REGISTRY["statements"].config.statements
    assert "topics" in REGISTRY and REGISTRY["topics"].config.topics
    from core.evaluation.mode_names import mode_names

    for name in ("statements", "topics"):
        assert name in search_choices() and name in compare_choices() and name in mode_names()


def test_question_entity_keys_strip_particles_and_skip_stop_words():
    keys = question_entity_keys("광통신연구실의 실장은 누구예요? Who heads the lab")
    assert "광통신연구실" in keys and "the" not in keys and "thelab" in keys


def test_core_index_builds_the_tiers_offline_and_ask_searches_them(store):
    import json

    from tests.test_cli import run_cli

    _ingest(store, {"payload.md": PAYLOAD, "lab.md": LAB})
    built = json.loads(run_cli("index", "--collection", store.collection, "--tiers-only", "--json").stdout)
    assert built["statements_written"] > 0 and built["counts"]["facts"] > 0 and built["cuts"] == []
    asked = run_cli("ask", "Who heads the lab that built the Lumen Camera?", "--collection", store.collection,
                    "--search", "statements", "--json")
    payload = json.loads(asked.stdout)
    assert "Dr. Mira Santos" in json.dumps(payload, ensure_ascii=False)
    assert payload["search"]["search"]["statements"] is True


# -- topics: heading sections, linked through shared entities ---------------------------------------------------


def test_topics_are_heading_sections_rewritten_only_where_a_section_changed_and_read_as_of(hash_store):
    store = hash_store
    _ingest(store, {"lab.md": LAB, "payload.md": PAYLOAD}, valid_from="2024-01-01")
    first = sync_tiers(store)
    tables = HLGTables(store)
    vector = store.embeddings.embed_query("lab head")
    before = {" > ".join(t.heading_path): t.topic_id for t in tables.topic_entry(vector, [], 50)}
    assert "Research Labs > Aurora Optics Lab" in before and "Orbiter Mission > Payloads > Lumen Camera" in before
    assert first.topics_written == len(before) == first.counts["topics"]
    _ingest(store, {"lab.md": LAB.replace("Dr. Mira Santos", "Dr. Ines Okafor")}, valid_from="2024-06-01")
    after = {" > ".join(t.heading_path): t.topic_id for t in tables.topic_entry(vector, [], 50)}
    changed = {path for path in after if after[path] != before.get(path)}
    assert changed == {"Research Labs > Aurora Optics Lab"}  # only the edited section got a new topic
    texts = {t.topic_id: t for t in tables.topic_entry(vector, [], 50)}
    lab = tables.topic_statements([after["Research Labs > Aurora Optics Lab"]], vector, [])
    assert "Head : Dr. Ines Okafor" in {r.text for r in next(iter(lab.values()))} and texts
    old = HLGTables(store.as_of(datetime(2024, 3, 1, tzinfo=UTC)))
    then = {" > ".join(t.heading_path): t.topic_id for t in old.topic_entry(vector, [], 50)}
    assert then == before  # as of an earlier date, the topics as they were
    assert sync_tiers(store).topics_written == 0  # nothing changed: nothing rewritten
    store.write.remove_document(next(d.document_id for d in store.documents() if d.filename == "lab.md"), purge=True)
    sync_tiers(store)
    assert not any("Research Labs" in t.heading_path for t in tables.topic_entry(vector, [], 50))
    assert old.topic_entry(vector, [], 50) and not any("Research Labs" in t.heading_path
                                                       for t in old.topic_entry(vector, [], 50))


def test_the_topic_beam_links_sections_through_shared_entities_and_the_strategy_is_deterministic(store):
    from core.retrieval.topic_search import TopicSearchConfig, beam

    _ingest(store, {"payload.md": PAYLOAD, "lab.md": LAB, "ground.md": OTHER})
    sync_tiers(store)
    tables = HLGTables(store)
    vector = store.embeddings.embed_query("Lumen Camera")
    entry_only = beam(tables, vector, [], {}, TopicSearchConfig(width=1, depth=0))
    assert [t.heading_path[-1] for t, _ in entry_only] == ["Lumen Camera"]
    linked = beam(tables, vector, [], {}, TopicSearchConfig(width=1, depth=1))
    assert [(t.heading_path[-1], t.depth, t.via) for t, _ in linked][1] == ("Aurora Optics Lab", 1,
                                                                           "Aurora Optics Lab")
    request = RetrievalRequest("Who heads the lab that built the Lumen Camera?", k=4, search="topics")
    retrieval = retrieve(store, request)
    texts = [h.element.text for h in retrieval.hits]
    assert "Built by : Aurora Optics Lab" in texts and "Head : Dr. Mira Santos" in texts
    assert retrieval.notes[0].startswith("topics: ") and retrieval.search.topics
    assert [h.element_id for h in retrieve(store, request).hits] == [h.element_id for h in retrieval.hits]
    with pytest.raises(ValueError, match="at least 1"):
        TopicSearchConfig(width=0)


# -- the router of the default pipeline ----------------------------------------------------------------------------


@pytest.mark.parametrize(("question", "cue"), [
    ("Who heads the lab that built the Lumen Camera?", "relative clause"),
    ("미리내 3호의 탑재체를 만든 연구실의 실장은 누구인가요?", "relative clause"),
    ("입자 검출기 자료를 분석하는 연구실 실장은?", "relative clause"),
    ("where does it cache its tools on macOS, and what's the default audit command?", "two questions"),
    ("What is the warranty period of the Nova 32UX?", ""),
    ("Nova 34WC 모니터의 스탠드를 제외한 무게는 얼마인가요?", ""),
    ("해온 미니 K1의 무게는 얼마인가요?", ""),  # a name that reads as a verb form is no clause
    ("npm noproxy default?", ""),
])
def test_the_analysis_says_when_a_question_bridges_two_things(question, cue):
    from core.retrieval.analysis import analyse
    from core.retrieval.router import route

    analysis = analyse(question)
    assert analysis.bridge == cue
    # two questions read as two parts are searched part by part; a relative clause goes to the statements search
    expected = {"relative clause": "statements", "two questions": "parts"}.get(cue, "")
    assert route(analysis).search == expected


def test_a_comparative_question_keeps_the_default_path_even_with_a_relative_clause():
    from core.retrieval.analysis import analyse
    from core.retrieval.router import RouterConfig, route

    analysis = analyse("Is the lab that built the Lumen Camera older than the Antenna Farm or the Aurora Optics Lab?")
    assert analysis.bridge == "relative clause" and analysis.shape is not None
    assert route(analysis).search == "" and route(analysis, RouterConfig(keep_shapes=False)).search == "statements"


def test_the_router_sends_a_bridge_question_to_statements_only_once_the_tiers_exist(store):
    from core.retrieval.strategies import DEFAULT_SEARCH

    _ingest(store, {"payload.md": PAYLOAD, "lab.md": LAB, "ground.md": OTHER})
    routing = DEFAULT_SEARCH.but(route=True)
    bridge = RetrievalRequest("Who heads the lab that built the Lumen Camera?", k=3, search=routing)
    single = RetrievalRequest("What is the resolution of the Lumen Camera?", k=3, search=routing)
    assert not any(n.startswith("routed") for n in retrieve(store, bridge).notes)  # no tiers: today's path
    sync_tiers(store)
    routed = retrieve(store, bridge)
    assert routed.notes[0].startswith("routed to the statements search: the question names a thing by a relative")
    assert {"Built by : Aurora Optics Lab", "Head : Dr. Mira Santos"} <= {h.element.text for h in routed.hits}
    assert not any(n.startswith("routed") for n in retrieve(store, single).notes)
    default = retrieve(store, RetrievalRequest(bridge.question, k=3))  # the default does not route
    assert not any(n.startswith("routed") for n in default.notes)


def test_with_a_chat_model_new_topics_are_named_by_the_topic_prompt_and_the_replies_are_cached(hash_store):
    from langchain_core.language_models.fake_chat_models import FakeListChatModel

    from core.hlg.llm import LLMTiers
    from core.hlg.prompts import topic_messages, topic_name

    store = hash_store
    _ingest(store, {"lab.md": LAB})
    topics_only = LLMTiers(statements=False, facts=False)  # the statement and fact prompts: tests/test_hlg_llm.py
    named = sync_tiers(store, chat_model=FakeListChatModel(responses=['"Aurora Optics Lab leadership"']),
                       llm=topics_only)
    topics = HLGTables(store).topics()
    assert named.topic_calls == len(topics) >= 1 and named.topic_fallbacks == 0
    assert all(t["text"].startswith("Aurora Optics Lab leadership\n") for t in topics)
    asked = topic_messages(("Research Labs", "Aurora Optics Lab"), "Head : Dr. Mira Santos")
    assert "Heading path: Research Labs > Aurora Optics Lab" in asked[-1][1]
    # edited (an ingest brings the tiers up to date offline; the next build with a model names the section), then
    # edited back: the section's text is as before, so its name comes from the cache, not from the model
    _ingest(store, {"lab.md": LAB.replace("Dr. Mira Santos", "Dr. Ines Okafor")})
    assert not HLGTables(store).topics()[0]["text"].startswith("Aurora")
    edited = sync_tiers(store, chat_model=FakeListChatModel(responses=["Aurora Optics Lab under Dr. Okafor"]),
                        llm=topics_only)
    assert edited.topic_calls == 1 and edited.topic_cached == 0
    assert HLGTables(store).topics()[0]["text"].startswith("Aurora Optics Lab under Dr. Okafor\n")
    _ingest(store, {"lab.md": LAB})
    model = FakeListChatModel(responses=["never asked"])  # the same model type: the same cache key
    again = sync_tiers(store, chat_model=model, llm=topics_only)
    assert again.topic_cached == again.topic_calls == 1 and model.i == 0  # the model was never called
    assert [t["text"] for t in HLGTables(store).topics()] == [t["text"] for t in topics]
    # a reply naming nothing leaves the section's offline topic, and is said
    _ingest(store, {"ground.md": OTHER})
    blank = sync_tiers(store, chat_model=FakeListChatModel(responses=["  \n"]), llm=topics_only)
    assert blank.topic_fallbacks == blank.topic_calls >= 1
    assert topic_name("Topic: Antenna Farm telemetry\nmore") == "Antenna Farm telemetry" and topic_name("") == ""


def test_a_huge_section_makes_one_topic_of_bounded_text():
    from core.ingest.tiers import topic_text
    from core.store.hlg_tables import SectionDraft

    section = SectionDraft("d", "h", ("Log", "Events"), [f"Event {i} happened." for i in range(100_000)],
                           datetime(2024, 1, 1, tzinfo=UTC))
    text = topic_text(section)
    assert text.startswith("Log > Events\nEvent 0 happened.") and len(text) == 2_000
