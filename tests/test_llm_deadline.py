"""Every LLM call has a total deadline (issue 12, item 1), over real HTTP: the stub server of test_llm_stub drives
the real ``openai``/``langchain-openai`` clients with SSE keepalives, a slow drip of tokens, a stream that ends
without ``finish_reason``/``[DONE]`` and a silent server. Deadlines are 2 s here (HKE_LLM_TIMEOUT in use)."""

from __future__ import annotations

import threading
import time

import pytest

from core.answering import AnswerStream, answer_concurrently, compare
from core.config import load_settings
from core.llm import LLMError, RetryPolicy
from core.retrieval import Retrieval, RetrievalRequest

from .helpers_pages import unescape
from .test_llm_stub import CONTEXT, Stub, answerer

TOTAL = 2.0
SLACK = 1.5  # thread start-up and a loaded 2-core machine; the bug it guards against ran for 900 s
LONG = " ".join(f"word{i}" for i in range(200))


def _retrieval() -> Retrieval:
    return Retrieval(question="How heavy?", k=1, scope=None, hits=[], plain=CONTEXT, hierarchical=CONTEXT,
                     timings={"embed_query": 0, "vector_search": 0, "expand": 0}, query_vector=None)


def test_keepalive_comments_do_not_hold_a_call_past_its_deadline():
    with Stub([{"keepalive": 0.3, "for": 30}]) as stub:
        llm = answerer(stub, total=TOTAL, timeout=5.0)  # each keepalive resets the 5 s read timeout
        started = time.monotonic()
        with pytest.raises(LLMError) as info:
            list(llm.stream("How heavy?", CONTEXT))
        elapsed = time.monotonic() - started
    assert info.value.kind == "deadline"
    assert info.value.message.startswith(f"The model did not answer within {TOTAL:g} s (HKE_LLM_TIMEOUT)")
    assert TOTAL - 0.1 <= elapsed < TOTAL + SLACK, elapsed


def test_a_slow_drip_of_tokens_is_cut_off_at_the_deadline_and_keeps_what_arrived():
    with Stub([{"reply": LONG, "every": 0.25}]) as stub:
        stream = AnswerStream(_retrieval(), "hierarchical", answerer(stub, total=TOTAL, timeout=5.0))
        started = time.monotonic()
        chunks = list(stream)
        result = stream.result()
        elapsed = time.monotonic() - started
    assert 2 <= len(chunks) < 200 and result.answer.text == "".join(chunks)
    assert result.answer.error_kind == "deadline"
    assert result.answer.error.startswith(f"The answer was cut off: the model did not finish within {TOTAL:g} s")
    assert elapsed < TOTAL + SLACK, elapsed


def test_a_stream_that_ends_without_finish_reason_is_marked_cut_off():
    with Stub([{"reply": "It weighs 5.4", "cut": True}]) as stub:
        stream = AnswerStream(_retrieval(), "hierarchical", answerer(stub))
        text = "".join(stream)
        result = stream.result()
    assert text == "It weighs 5.4" == result.answer.text
    assert result.answer.error_kind == "cut_off" and not result.answer.ok
    assert result.answer.error.startswith("The answer was cut off: the model server ended the stream before")


def test_a_complete_stream_is_not_marked_cut_off():
    with Stub([{"reply": "It weighs 5.4 kg [e:aaaaaaaa]."}]) as stub:
        stream = AnswerStream(_retrieval(), "hierarchical", answerer(stub))
        list(stream)
        result = stream.result()
    assert result.answer.ok and result.answer.text == "It weighs 5.4 kg [e:aaaaaaaa]."


def test_timeouts_before_any_reply_are_retried_within_the_same_total_budget():
    with Stub([{"sleep": 10, "reply": "too late"}]) as stub:
        llm = answerer(stub, attempts=10, timeout=0.6, total=TOTAL)
        started = time.monotonic()
        with pytest.raises(LLMError) as info:
            llm.complete("q", CONTEXT)
        elapsed = time.monotonic() - started
    assert info.value.kind == "deadline"
    assert len(stub.requests) >= 2, "a timeout before any reply is retried"
    assert len(stub.requests) < 10, "the retries stop at the total budget, not after every attempt"
    assert elapsed < TOTAL + SLACK, elapsed


def _parallel(llm):
    llm.concurrency = 2  # a server with parallel slots (HKE_LLM_CONCURRENCY=2); the stub is on 127.0.0.1
    return llm


def test_both_columns_are_answered_concurrently():
    with Stub([{"sleep": 1.0, "reply": "Answer [e:aaaaaaaa]."}]) as stub:
        events = list(answer_concurrently(_retrieval(), _parallel(answerer(stub))))
    first, second = sorted(stub.requests, key=lambda r: r["started"])
    assert second["started"] < first["ended"], "the second column waited for the first"
    results = {e.mode: e.result for e in events if e.result is not None}
    assert set(results) == {"plain", "hierarchical"}
    assert all(r.answer.text == "Answer [e:aaaaaaaa]." and r.answer.ok for r in results.values())
    chunks = [e for e in events if e.result is None]
    assert {e.mode for e in chunks} == {"plain", "hierarchical"}


def test_compare_with_a_stalled_server_ends_both_columns_with_the_deadline_message(samples_store):
    with Stub([{"keepalive": 0.3, "for": 30}]) as stub:
        result = compare(samples_store, RetrievalRequest("Nova 27QX 모니터의 보증기간은 얼마인가요?", k=2),
                         streaming=True, answerer=_parallel(answerer(stub, total=TOTAL, timeout=5.0)))
    for mode_result in (result.plain, result.hierarchical):
        assert mode_result.answer.error_kind == "deadline"
        assert mode_result.timings["generate"] < (TOTAL + SLACK) * 1000
    # Concurrent columns: the second asked before the first one's deadline, not after it.
    first, second = sorted(r["started"] for r in stub.requests)
    assert len(stub.requests) == 2 and second - first < TOTAL


def test_hke_llm_timeout_sets_the_total_deadline(monkeypatch):
    monkeypatch.setenv("HKE_LLM_TIMEOUT", "7.5")
    assert RetryPolicy.from_settings().total == 7.5 and load_settings().llm_timeout == 7.5
    monkeypatch.setenv("HKE_LLM_TIMEOUT", "0")
    with pytest.raises(ValueError, match="HKE_LLM_TIMEOUT must be more than 0"):
        load_settings()
    monkeypatch.setenv("HKE_LLM_TIMEOUT", "soon")
    with pytest.raises(ValueError, match="HKE_LLM_TIMEOUT must be a number of seconds"):
        load_settings()


def test_abandoned_calls_do_not_leave_threads_reading_forever():
    with Stub([{"keepalive": 0.2, "for": 30}]) as stub:
        with pytest.raises(LLMError):
            list(answerer(stub, total=1.0, timeout=5.0).stream("q", CONTEXT))
        time.sleep(1.0)  # the worker ends at the next keepalive after the deadline
        assert not [t for t in threading.enumerate() if t.name == "hke-llm-call" and t.is_alive()]


def test_the_compare_page_shows_the_deadline_in_each_column_when_the_server_stalls(samples_store, monkeypatch):
    from .test_compare_page import QUESTIONS, ask, compare_page

    with Stub([{"keepalive": 0.3, "for": 30}]) as stub:
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test-NeverShowThis0000")
        monkeypatch.setenv("OPENAI_BASE_URL", stub.base_url)
        monkeypatch.setenv("HKE_CHAT_MODEL", "stub-model")
        monkeypatch.setenv("HKE_LLM_TIMEOUT", str(TOTAL))
        at = ask(compare_page("samples").run(), QUESTIONS["q06"]["question"])
    assert not at.exception
    errors = [unescape(e.value) for e in at.error]  # the page escapes error text as markdown
    assert len(errors) == 2, errors
    assert all(e.startswith(f"The model did not answer within {TOTAL:g} s (HKE_LLM_TIMEOUT)") for e in errors)
