"""A small model on a local server (issue 30), over real HTTP: the stub of test_llm_stub plays llama.cpp-like
servers (one slot, interrupted parallel streams, a model that never stops, prose instead of records or JSON,
answers that drop their citations, replies that are not completions) for the real ``openai``/``langchain-openai``
clients. Timeouts are scaled 1:100 where a test is about them (60 s is 0.6 s here)."""

from __future__ import annotations

import dataclasses
import threading
import time
import uuid

import pytest
from langchain_core.messages import HumanMessage

from core.answering import AnswerStream, LLMAnswerer, answer_concurrently
from core.answering.citations import UNCITED, repair_citations
from core.config import load_settings
from core.llm import CALL_TOKENS, LLMError, RetryPolicy, chat_model, invoke_with_retries
from core.retrieval import Context, ContextElement, Retrieval

from .test_llm_stub import CONTEXT, KEY, Stub, answerer, settings_for

FAST = {"attempts": 1, "base_delay": 0.01, "max_delay": 0.05, "timeout": 5.0, "total": 10.0}


def _retrieval(context: Context = CONTEXT) -> Retrieval:
    return Retrieval(question="How heavy is the Nova 27QX?", k=1, scope=None, hits=[], plain=context,
                     hierarchical=context, timings={"embed_query": 0, "vector_search": 0, "expand": 0},
                     query_vector=None)


def _sent_bound(body: dict) -> int | None:
    return body.get("max_tokens") or body.get("max_completion_tokens")


# -- bounded calls ---------------------------------------------------------------------------------------------


def test_every_kind_of_call_sends_its_token_bound_scaled_by_HKE_LLM_MAX_TOKENS():
    from core.evaluation.judge import Judge
    from core.graph.llm_cache import CachedChat

    with Stub([{"reply": '{"faithfulness": "A", "relevance": "A", "completeness": "A", "conciseness": "A"}'}]) \
            as stub:
        llm = answerer(stub)
        llm.complete("q", CONTEXT)
        list(llm.stream("q", CONTEXT))
        chat = CachedChat(chat_model(settings_for(stub.base_url), streaming=True), policy=RetryPolicy(**FAST))
        for kind in ("extraction", "check", "report", "map", "reduce"):
            chat([("user", f"a {kind} prompt")], kind=kind)
        Judge.from_settings(settings_for(stub.base_url), RetryPolicy(**FAST)).verdict("q", "plain", "a", "b")
        half = CachedChat(chat_model(settings_for(stub.base_url)), policy=RetryPolicy(**FAST, token_scale=0.5))
        half([("user", "halved")], kind="extraction")
    bodies = [r["body"] for r in stub.requests]
    assert [_sent_bound(b) for b in bodies] == [
        CALL_TOKENS["answer"], CALL_TOKENS["answer"], CALL_TOKENS["extraction"], CALL_TOKENS["check"],
        CALL_TOKENS["report"], CALL_TOKENS["map"], CALL_TOKENS["reduce"], CALL_TOKENS["judge"],
        CALL_TOKENS["extraction"] // 2]
    assert all("max_tokens" in b for b in bodies), "a server at OPENAI_BASE_URL gets max_tokens, which all read"
    json_mode = [b.get("response_format") for b in bodies]
    assert json_mode[4:6] == json_mode[7:8] * 2 == [{"type": "json_object"}] * 2  # report, map; the judge
    assert json_mode[:4] == [None] * 4 and json_mode[6] is None  # answers, records, Y/N and reduce are text


def test_HKE_LLM_MAX_TOKENS_is_a_factor(monkeypatch):
    monkeypatch.setenv("HKE_LLM_MAX_TOKENS", "2")
    assert RetryPolicy.from_settings(load_settings()).max_tokens("answer") == 2 * CALL_TOKENS["answer"]
    monkeypatch.setenv("HKE_LLM_MAX_TOKENS", "lots")
    with pytest.raises(ValueError, match="HKE_LLM_MAX_TOKENS must be a factor"):
        load_settings()


def test_a_model_that_never_stops_is_stopped_by_its_token_bound():
    """Without max_tokens this reply ran until the deadline (and on the server after it)."""
    with Stub([{"endless": True}]) as stub:
        llm = answerer(stub, **FAST, token_scale=50 / CALL_TOKENS["answer"])  # a 50-token bound
        started = time.monotonic()
        with pytest.raises(LLMError) as info:
            llm.complete("q", CONTEXT)
        elapsed = time.monotonic() - started
    assert info.value.kind == "cut_off" and "output token limit" in info.value.message
    assert info.value.partial.startswith("word0 word1") and len(info.value.partial.split()) == 50
    assert elapsed < 5, elapsed


def test_giving_up_at_the_deadline_closes_the_connection():
    """A reply still streaming at the deadline: the client hangs up, and the server sees it (its write fails)
    instead of generating for 10 s more."""
    with Stub([{"endless": True}]) as stub:
        llm = answerer(stub, attempts=1, total=1.0)
        stream = AnswerStream(_retrieval(), "hierarchical", llm)
        for _ in stream:
            pass
        assert stream.result().answer.error_kind == "deadline"
        request = stub.requests[0]  # its max_tokens (1024 words at 0.01 s) outlasts the 1 s deadline
        waited = time.monotonic()
        while "ended" not in request and time.monotonic() - waited < 5:
            time.sleep(0.05)
    assert "ended" in request, "the server kept generating after the client gave up"
    assert request["ended"] - request["started"] < 3.5


def _until_the_server_stops(requests: list[dict], wait: float = 5.0) -> list[dict]:
    """``requests`` once each one's generation has ended (the stub's "ended"), waiting at most ``wait`` s for
    that: a server still generating for a client that gave up has no "ended" then."""
    waited = time.monotonic()
    while any("ended" not in r for r in requests) and time.monotonic() - waited < wait:
        time.sleep(0.05)
    return requests


GIVE_UP = 1.0  # HKE_LLM_TIMEOUT in the next tests; the stub generates a 400-1500 token bound for 8-30 s


def _stopped_at_the_deadline(request: dict) -> bool:
    return bool(request["body"].get("stream")) and request.get("hung_up", False) and \
        request.get("ended", float("inf")) - request["started"] < GIVE_UP + 2.5


def test_the_index_and_global_search_stream_so_a_server_stops_when_they_give_up(monitor_store):
    """The models the index and global search build for themselves stream: a call given up at HKE_LLM_TIMEOUT
    hangs up and the server, which sees that only when a write fails, stops. Unstreamed, the server would
    generate the whole bound (30 s here) for nobody, holding its one slot."""
    from core.graph import GlobalSearchOptions, GraphIndexError, IndexConfig, build_index, global_search

    build_index(monitor_store, config=IndexConfig(extraction="offline", reports="extractive"))
    with Stub([{"generate": 0.02}]) as stub:
        settings = dataclasses.replace(settings_for(stub.base_url), chat_model=f"m-{uuid.uuid4().hex[:8]}",
                                       llm_timeout=GIVE_UP)
        with pytest.raises(Exception, match=f"within {GIVE_UP:g} s"):
            global_search(monitor_store, "What is this collection about?",
                          GlobalSearchOptions(level=0, use_llm="llm"), settings=settings)
        searched = len(stub.requests)
        with pytest.raises(GraphIndexError, match="failed every call"):
            build_index(monitor_store, settings=settings, config=IndexConfig(gleanings=0))
        requests = _until_the_server_stops(stub.requests)
    assert searched >= 1 and len(requests) > searched
    assert [_stopped_at_the_deadline(r) for r in requests] == [True] * len(requests), requests


def test_the_judge_streams_so_a_server_stops_when_it_gives_up():
    from core.evaluation.judge import Judge

    with Stub([{"generate": 0.02}]) as stub:
        judge = Judge.from_settings(settings_for(stub.base_url), RetryPolicy(**{**FAST, "total": GIVE_UP}))
        verdict = judge.verdict("q", "plain", "a", "b")
        requests = _until_the_server_stops(stub.requests)
    assert verdict.error is not None and f"did not answer within {GIVE_UP:g} s" in verdict.error
    assert len(requests) == 1 and _stopped_at_the_deadline(requests[0]), requests


def test_a_first_byte_later_than_the_old_fixed_read_timeout_is_answered_when_HKE_LLM_TIMEOUT_allows(monkeypatch):
    """Scaled 1:100: the old fixed 60 s read timeout is 0.6 s, HKE_LLM_TIMEOUT=150 is 1.5 s and the 65 s first
    byte is 0.65 s. Before, reads stopped at min(60 s, HKE_LLM_TIMEOUT) whatever HKE_LLM_TIMEOUT said."""
    import core.llm.policy

    monkeypatch.setattr(core.llm.policy, "DEFAULT_TIMEOUT_S", 0.6)
    with Stub([{"sleep": 0.65, "reply": "It weighs 5.4 kg [e:aaaaaaaa]."}]) as stub:
        settings = dataclasses.replace(settings_for(stub.base_url), llm_timeout=1.5)
        assert LLMAnswerer.from_settings(settings).complete("q", CONTEXT) == "It weighs 5.4 kg [e:aaaaaaaa]."
        model = core.llm.configured_chat_model(settings)  # what the index and global search use
        policy = RetryPolicy.from_settings(settings, attempts=1)
        assert invoke_with_retries(model, [HumanMessage("q")], policy, kind="extraction").startswith("It weighs")
        assert len(stub.requests) == 2


# -- the columns on a serial or interrupting server ------------------------------------------------------------


def test_a_server_on_this_machine_gets_one_call_at_a_time_by_default(monkeypatch):
    monkeypatch.delenv("HKE_LLM_CONCURRENCY", raising=False)
    for url, expected in (("http://127.0.0.1:8080/v1", 1), ("http://localhost:11434/v1", 1),
                          ("http://[::1]:8000/v1", 1), ("https://api.example.com/v1", 4), ("", 4)):
        monkeypatch.setenv("OPENAI_BASE_URL", url)
        assert load_settings().llm_concurrency == expected, url
    monkeypatch.setenv("HKE_LLM_CONCURRENCY", "3")
    assert load_settings().llm_concurrency == 3


def test_the_columns_ask_one_after_the_other_on_a_one_slot_server():
    with Stub([{"reply": "It weighs 5.4 kg [e:aaaaaaaa].", "every": 0.05}], serial=True) as stub:
        llm = answerer(stub)
        assert llm.concurrency == 1  # the stub is on 127.0.0.1
        results = [e.result for e in answer_concurrently(_retrieval(), llm) if e.result is not None]
    assert [r.answer.ok for r in results] == [True, True]
    first, second = stub.requests
    assert second["arrived"] >= first["ended"] - 0.01, "the second column did not wait for the first"


@pytest.mark.parametrize("chunks_before", [0, 2], ids=["before its first chunk", "mid-stream"])
def test_two_columns_on_a_server_that_interrupts_parallel_streams_both_finish(monkeypatch, chunks_before):
    """llama_cpp.server's default interrupt_requests ends the first stream when the second request arrives, before
    any text (LangChain's "No generation chunks") or in the middle; the interrupted column is asked again after the
    other, and later asks go one after the other."""
    from core.answering import comparison

    # what this process learnt of servers so far is forgotten: an earlier test's stub may have had this port
    monkeypatch.setattr(comparison, "_INTERRUPTING", set())
    reply = "It weighs 5.4 kg and ships with a stand [e:aaaaaaaa]."
    with Stub([{"reply": reply, "every": 0.05}], interrupt=chunks_before) as stub:
        llm = answerer(stub)
        llm.concurrency = 2  # as for a remote server, or HKE_LLM_CONCURRENCY=2
        events = list(answer_concurrently(_retrieval(), llm))
        results = {e.mode: e.result for e in events if e.result is not None}
        assert sum(1 for e in events if e.restart) == 1
        assert all(r.answer.ok and r.answer.text == reply for r in results.values()), \
            [(r.answer.text, r.answer.error) for r in results.values()]
        asked = len(stub.requests)
        again = [e.result for e in answer_concurrently(_retrieval(), llm) if e.result is not None]
    assert asked == 3 and len(stub.requests) == 5
    assert all(r.answer.ok for r in again) and not any(e.restart for e in events[:1])


# -- citations -------------------------------------------------------------------------------------------------

TWO = Context(
    "hierarchical",
    "# Nova 27QX\n\n- Weight : 5.4 kg ◀ [e:aaaaaaaa]\n- Warranty : 3 years ◀ [e:bbbbbbbb]",
    "",
    [ContextElement("a" * 32, "aaaaaaaa", "hit", "ListItem", "Weight : 5.4 kg", "d", ("Nova 27QX",), 0.3, 0),
     ContextElement("b" * 32, "bbbbbbbb", "hit", "ListItem", "Warranty : 3 years for the Nova 27QX", "d",
                    ("Nova 27QX",), 0.4, 1)],
    30,
)


@pytest.mark.parametrize("reply, shown", [
    # no citation: each sentence gets its element, or is marked uncited
    ("The Nova 27QX weighs 5.4 kg. Its warranty lasts 3 years. Ask your dealer about colours.",
     f"The Nova 27QX weighs 5.4 kg [e:aaaaaaaa]. Its warranty lasts 3 years [e:bbbbbbbb]. Ask your dealer "
     f"about colours {UNCITED}."),
    # a citation of an element that is not in the context is dropped and replaced
    ("It weighs 5.4 kg [e:ffffffff].", "It weighs 5.4 kg [e:aaaaaaaa]."),
    # one valid citation and nothing outside the context: left as the model wrote it
    ("It weighs 5.4 kg [e:aaaaaaaa]. Nice.", "It weighs 5.4 kg [e:aaaaaaaa]. Nice."),
])
def test_an_answer_that_drops_its_citations_gets_them_back(reply, shown):
    with Stub([{"reply": reply}]) as stub:
        stream = AnswerStream(_retrieval(TWO), "hierarchical", answerer(stub))
        list(stream)
        result = stream.result()
    assert result.answer.text == shown
    assert result.answer.ok


def test_a_bare_citation_is_never_shown_as_the_answer():
    with Stub([{"reply": "[e:aaaaaaaa]"}]) as stub:
        stream = AnswerStream(_retrieval(TWO), "hierarchical", answerer(stub))
        list(stream)
        result = stream.result()
    text = result.answer.text
    assert text.strip() != "[e:aaaaaaaa]" and "5.4 kg" in text and "answered with a citation and nothing else" in text
    assert result.answer.cited == ["a" * 32]


def test_citation_repair_leaves_a_cited_answer_alone_and_marks_what_it_cannot_place():
    assert repair_citations("Weighs 5.4 kg [e:aaaaaaaa].", TWO) is None
    repair = repair_citations("Completely unrelated words here.", TWO)
    assert repair is not None and repair.text == f"Completely unrelated words here {UNCITED}." and repair.uncited == 1


# -- bad replies -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("action, what", [
    ({"raw": b"<!doctype html><html><body>Welcome to nginx</body></html>", "content_type": "text/html"},
     "an HTML page"),
    ({"raw": b"", "content_type": "application/json"}, "an empty body"),
    ({"raw": b'{"error": {"message": "model not loaded"}}'}, "an error with status 200: model not loaded"),
    ({"raw": b"Internal thing went wrong", "content_type": "text/plain"}, "a body that is not JSON"),
])
def test_a_reply_that_is_not_a_completion_names_the_endpoint_and_the_call_and_is_not_cached(
        action, what, samples_store):
    from core.graph.llm_cache import CachedChat, LLMCallError, cache_size
    from core.store import graph_tables

    graph_tables.GraphTables(samples_store).ensure_schema()
    with Stub([action]) as stub:
        with pytest.raises(LLMError) as info:
            answerer(stub).complete("q", CONTEXT)
        chat = CachedChat(chat_model(settings_for(stub.base_url)), pool=samples_store.pool,
                          collection_id=samples_store.collection_id, policy=RetryPolicy(**FAST))
        before = cache_size(samples_store.pool, samples_store.collection_id)
        with pytest.raises(LLMCallError) as graph_info:
            chat([("user", f"extract {uuid.uuid4()}")], kind="extraction")
        after = cache_size(samples_store.pool, samples_store.collection_id)
    assert info.value.kind == "bad_reply" and not info.value.retryable
    assert info.value.message.startswith(f"The model server at {stub.base_url.rsplit('/', 1)[0]} returned {what}")
    assert "to the answer call" in info.value.message and KEY not in info.value.message
    assert "to the extraction call" in str(graph_info.value)
    assert after == before


def test_a_refused_max_tokens_is_dropped_once_and_not_sent_again(caplog):
    refused = {"status": 400, "error": {"message": "Unsupported parameter: 'max_tokens'", "type": "invalid_request"}}

    def choose(body: dict) -> dict:
        return refused if "max_tokens" in body else {"reply": "It weighs 5.4 kg [e:aaaaaaaa]."}

    with Stub([], choose=choose) as stub:
        settings = dataclasses.replace(settings_for(stub.base_url), chat_model=f"refuses-{uuid.uuid4().hex[:6]}")
        llm = LLMAnswerer.from_settings(settings, RetryPolicy(**FAST))
        assert llm.complete("q", CONTEXT) == "It weighs 5.4 kg [e:aaaaaaaa]."
        assert "".join(llm.stream("q", CONTEXT)) == "It weighs 5.4 kg [e:aaaaaaaa]."
    assert ["max_tokens" in r["body"] for r in stub.requests] == [True, False, False]
    assert "refused max_tokens" in caplog.text


def test_a_streamed_answer_that_gets_an_html_page_names_the_endpoint_and_the_call():
    html = {"raw": b"<!doctype html><html><body>Welcome to nginx</body></html>", "content_type": "text/html"}
    with Stub([html]) as stub:
        stream = AnswerStream(_retrieval(), "hierarchical", answerer(stub, **FAST))
        assert list(stream) == []
        answer = stream.result().answer
    assert answer.error_kind == "bad_reply" and len(stub.requests) == 1, "a bad reply is not retried"
    assert answer.error.startswith(f"The model server at {stub.base_url.rsplit('/', 1)[0]} returned an HTML page")
    assert "to the answer call" in answer.error


def test_the_index_drops_a_refused_max_tokens_once_and_says_so(caplog, samples_store):
    """The GraphRAG calls (through the reply cache) take the same path as answers: asked once more without the
    refused option, never sent it again, and the log says replies are no longer bounded."""
    from core.graph.llm_cache import CachedChat
    from core.store import graph_tables

    def choose(body: dict) -> dict:
        if "max_tokens" in body:
            return {"status": 400, "error": {"message": "'max_tokens' is not supported with this model"}}
        return {"reply": '("entity"<|>NOVA 32UX<|>PRODUCT<|>A monitor)'}

    graph_tables.GraphTables(samples_store).ensure_schema()
    with Stub([], choose=choose) as stub:
        settings = dataclasses.replace(settings_for(stub.base_url), chat_model=f"refuses-{uuid.uuid4().hex[:6]}")
        chat = CachedChat(chat_model(settings, streaming=True), pool=samples_store.pool,
                          collection_id=samples_store.collection_id, policy=RetryPolicy(**FAST))
        first = chat([("user", f"extract {uuid.uuid4()}")], kind="extraction")
        second = chat([("user", f"report {uuid.uuid4()}")], kind="report")
    assert first == second == '("entity"<|>NOVA 32UX<|>PRODUCT<|>A monitor)'
    assert ["max_tokens" in r["body"] for r in stub.requests] == [True, False, False]
    assert "refused max_tokens" in caplog.text and "replies are not bounded" in caplog.text


def test_when_the_retry_without_max_tokens_fails_too_the_message_says_so():
    refused = {"status": 400, "error": {"message": "max_tokens is too large for this model"}}
    with Stub([refused, {"status": 400, "error": {"message": "context length exceeded"}}]) as stub:
        settings = dataclasses.replace(settings_for(stub.base_url), chat_model=f"refuses-{uuid.uuid4().hex[:6]}")
        with pytest.raises(LLMError) as info:
            LLMAnswerer.from_settings(settings, RetryPolicy(**FAST)).complete("q", CONTEXT)
    assert len(stub.requests) == 2
    assert "context length exceeded" in info.value.message
    assert "the server had refused max_tokens; asked again without it" in info.value.message


def test_a_server_without_json_mode_is_asked_again_without_it():
    def choose(body: dict) -> dict:
        if "response_format" in body:
            return {"status": 400, "error": {"message": "response_format is not supported"}}
        return {"reply": '{"comprehensiveness": "A", "diversity": "B", "empowerment": "A", "directness": "tie"}'}

    from core.evaluation.judge import Judge

    with Stub([], choose=choose) as stub:
        settings = dataclasses.replace(settings_for(stub.base_url), chat_model=f"nojson-{uuid.uuid4().hex[:6]}")
        verdict = Judge.from_settings(settings, RetryPolicy(**FAST)).verdict("q", "plain", "a", "b")
    assert verdict.error is None and verdict.winners["diversity"] == "B"
    assert ["response_format" in r["body"] for r in stub.requests] == [True, False]


# -- the index finishes ----------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def monitor_store(db_url, use_embeddings):
    from core.ingest import ingest_paths
    from core.store import ElementStore
    from tests.conftest import SAMPLES

    store = ElementStore(db_url, f"t_local_{uuid.uuid4().hex[:8]}", use_embeddings)
    assert not ingest_paths(store, [SAMPLES / "nova-32ux-monitor-en.md"]).errors
    yield store
    store.drop()


def _index(store, stub: Stub, **env):
    from core.graph import IndexConfig, build_index

    settings = dataclasses.replace(settings_for(stub.base_url), chat_model=f"m-{uuid.uuid4().hex[:8]}", **env)
    return build_index(store, chat_model=chat_model(settings, streaming=True), settings=settings,
                       config=IndexConfig(gleanings=0))


def test_an_index_against_a_model_that_answers_prose_has_the_offline_entities_and_counts_the_fallbacks(
        monitor_store):
    with Stub([{"reply": "Sure! This text is about a monitor. It is a very nice monitor with many ports."}]) as stub:
        report = _index(monitor_store, stub)
    assert report.extraction == "llm" and report.entities > 0
    assert report.llm_units == 0 and report.fallback_units == report.text_units
    # the fallen-back units' entities are related as offline ones are, so they form communities (a real run had
    # 59 entities, 0 relationships and no entity community)
    assert report.relationships > 0 and sum(report.communities.values()) > 0
    assert report.llm_reports == 0 and report.fallback_reports == report.reports
    from core.graph import GraphIndex

    names = {e.title for e in GraphIndex.open(monitor_store).entities()}
    assert "Nova 32UX" in names


def test_an_index_with_one_report_call_timing_out_completes_with_one_fallback_report(monitor_store):
    from tests.helpers_graph import FakeGraphModel

    fake = FakeGraphModel()
    reports_asked = []
    lock = threading.Lock()

    def choose(body: dict) -> dict:
        prompt = body["messages"][-1]["content"]
        if prompt.startswith("Write a report about one community"):
            with lock:
                reports_asked.append(prompt)
                if len(reports_asked) == 1:
                    return {"sleep": 4, "reply": "too late"}
        return {"reply": fake._reply(prompt, [])}

    with Stub([], choose=choose) as stub:
        report = _index(monitor_store, stub, llm_timeout=2.0)
        reports_asked.append("the next run answers every report")
        baseline = _index(monitor_store, stub, llm_timeout=2.0)  # another model name: nothing cached
    # (the fake's reports of some structural communities cite nothing: those fall back in both runs)
    assert report.reports == baseline.reports >= 2
    assert report.fallback_reports == baseline.fallback_reports + 1
    assert report.llm_reports == baseline.llm_reports - 1
    assert report.fallback_units == 0 and report.llm_units == report.text_units


def test_only_a_model_that_fails_every_call_stops_the_index(monitor_store):
    from core.graph import GraphIndex, GraphIndexError, IndexConfig, build_index

    build_index(monitor_store, config=IndexConfig(extraction="offline", reports="extractive"))
    before = GraphIndex.open(monitor_store).info.extraction
    with Stub([{"status": 401, "error": {"message": "bad key"}}]) as stub:
        with pytest.raises(GraphIndexError) as info:
            _index(monitor_store, stub)
    assert "failed every call" in str(info.value) and "previous index is unchanged" in str(info.value)
    assert len(stub.requests) <= 3 + 3  # stopped once it was clear, not after one call per unit
    assert GraphIndex.open(monitor_store).info.extraction == before == "offline"
