"""The retry loop of core.llm (tenacity underneath): what is retried, how long it waits, when it gives up."""

from __future__ import annotations

import httpx
import openai
import pytest

from core.llm import LLMError, RetryPolicy, call_with_retries


def _status_error(status: int, headers: dict[str, str] | None = None) -> openai.APIStatusError:
    request = httpx.Request("POST", "http://stub/v1/chat/completions")
    response = httpx.Response(status, headers=headers or {}, request=request, json={"error": {"message": "x"}})
    return openai.APIStatusError("x", response=response, body=None)


def _flaky(failures: list[BaseException], reply: str = "ok"):
    calls = []

    def fn() -> str:
        calls.append(1)
        if failures:
            raise failures.pop(0)
        return reply

    return fn, calls


def test_a_retryable_error_is_retried_after_the_server_s_retry_after():
    fn, calls = _flaky([_status_error(429, {"retry-after": "1.5"}), _status_error(503)])
    waits: list[float] = []
    policy = RetryPolicy(attempts=3, base_delay=0.25, max_delay=8.0, total=30)
    assert call_with_retries(fn, policy, sleep=waits.append) == "ok"
    assert len(calls) == 3
    assert waits[0] == 1.5  # Retry-After honoured
    assert 0.5 <= waits[1] <= 0.75  # then exponential backoff (0.25 * 2) plus jitter below base_delay


def test_a_non_retryable_error_is_not_retried():
    fn, calls = _flaky([_status_error(401)])
    with pytest.raises(LLMError) as info:
        call_with_retries(fn, RetryPolicy(attempts=3, total=30), sleep=lambda _: None)
    assert len(calls) == 1 and info.value.kind == "auth" and info.value.attempts == 1
    assert "gave up" not in info.value.message


def test_attempts_run_out_with_the_count_in_the_message():
    fn, calls = _flaky([_status_error(500) for _ in range(5)])
    with pytest.raises(LLMError) as info:
        call_with_retries(fn, RetryPolicy(attempts=3, base_delay=0.0, max_delay=0.0, total=30), sleep=lambda _: None)
    assert len(calls) == 3 and info.value.kind == "server" and info.value.attempts == 3
    assert info.value.message.endswith("(gave up after 3 attempts)")


def test_a_wait_that_would_pass_the_deadline_ends_the_call_with_the_deadline_message():
    fn, calls = _flaky([_status_error(429, {"retry-after": "5"}), _status_error(429)])
    waits: list[float] = []
    with pytest.raises(LLMError) as info:
        call_with_retries(fn, RetryPolicy(attempts=3, max_delay=8.0, total=2), sleep=waits.append)
    assert len(calls) == 1 and waits == []
    assert info.value.kind == "deadline" and "within 2 s (HKE_LLM_TIMEOUT)" in info.value.message
    assert "rate limiting" in info.value.message  # the last failure is named
