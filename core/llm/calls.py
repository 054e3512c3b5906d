"""Model calls with retries, all within a total deadline: whole (:func:`invoke_with_retries`, :func:`call_with_retries`)
or streamed (:func:`stream_with_retries`)."""

from __future__ import annotations

import contextlib
import logging
import queue
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, TypeVar

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage
from tenacity import RetryCallState, Retrying, retry_if_exception, stop_after_attempt

from core.llm.client import CALL_DEADLINE
from core.llm.errors import CALL_KIND, DeadlineExceeded, LLMError, classify_error, retry_after
from core.llm.policy import RetryPolicy, call_options, remember_refusal, with_call_options
from core.llm.replies import cut_off_error, finish_reason, message_text, reply_text

logger = logging.getLogger("hke.llm")
T = TypeVar("T")


_NO_CHUNKS = "No generation chunks were returned"


def _items_before(deadline: float, produce: Callable[[], Iterable[T]]) -> Iterator[T]:
    """The items of ``produce()``, computed in a worker thread; :class:`DeadlineExceeded` once ``deadline`` passes.

    The caller never waits past the deadline. The worker sees the deadline too (``CALL_DEADLINE``), so its HTTP
    request ends soon after; an abandoned worker is a daemon thread and closes its stream at its next item.
    """
    items: queue.SimpleQueue[tuple[str, Any]] = queue.SimpleQueue()
    abandoned = threading.Event()

    def work() -> None:
        CALL_DEADLINE.set(deadline)
        try:
            iterable = produce()
            with contextlib.closing(iterable) if hasattr(iterable, "close") else contextlib.nullcontext():
                for item in iterable:
                    if abandoned.is_set():
                        return
                    items.put(("item", item))
        except BaseException as exc:  # handed to the caller's thread, which classifies it
            items.put(("error", exc))
        else:
            items.put(("end", None))

    threading.Thread(target=work, name="hke-llm-call", daemon=True).start()
    try:
        while True:
            left = deadline - time.monotonic()
            try:
                if left <= 0:
                    raise queue.Empty
                kind, value = items.get(timeout=left)
            except queue.Empty:
                raise DeadlineExceeded from None
            if kind == "item":
                yield value
            elif kind == "error" and time.monotonic() >= deadline:
                # the worker's read ended by the deadline's own timeout and raced the wait above: the deadline
                # is what ended the call, and is what the caller is told
                raise DeadlineExceeded from value
            elif kind == "error":
                raise value
            else:
                return
    finally:
        abandoned.set()


def _deadline_error(policy: RetryPolicy, last: LLMError | None = None, *, cut_off: bool = False) -> LLMError:
    why = f" The last attempt failed: {last.message}" if last is not None and last.kind != "timeout" else ""
    if cut_off:
        text = (f"The answer was cut off: the model did not finish within {policy.total:g} s (HKE_LLM_TIMEOUT). "
                "Ask again, or raise HKE_LLM_TIMEOUT for a slow server.")
    else:
        text = (f"The model did not answer within {policy.total:g} s (HKE_LLM_TIMEOUT), retries included. The "
                f"server may be overloaded or stalled; try again, or raise HKE_LLM_TIMEOUT.{why}")
    return LLMError("deadline", text, retryable=False, attempts=last.attempts if last else 1)


# -- calls with retries -----------------------------------------------------------------------------------


def call_with_retries(
    fn: Callable[[], T],
    policy: RetryPolicy | None = None,
    *,
    sleep: Callable[[float], None] = time.sleep,
    secret: str | None = None,
    deadline: float | None = None,
    kind: str | None = None,
) -> T:
    """``fn()``, retried on retryable errors up to ``policy.attempts`` times, all within ``policy.total`` s
    (or until ``deadline``, a ``time.monotonic()`` value); raises :class:`LLMError`.

    Each attempt runs in a worker thread that is waited for only until the deadline. ``tenacity`` decides when to
    try again: only a retryable :class:`LLMError`, never past ``policy.attempts``, and never when the next wait
    would end past the deadline (then the error says the deadline, not the last failure, ended the call).
    """
    policy = policy or RetryPolicy.from_settings()
    deadline = deadline if deadline is not None else time.monotonic() + policy.total
    kind_token = CALL_KIND.set(kind) if kind is not None else None

    def attempt() -> T:
        try:
            return next(_items_before(deadline, lambda: [fn()]))
        except DeadlineExceeded as exc:
            raise _deadline_error(policy) from exc
        except Exception as exc:  # classified; anything unknown is not retried
            raise classify_error(exc, timeout=policy.timeout, secret=secret) from exc

    def give_up(state: RetryCallState) -> T:
        error = _failure(state)
        error.attempts = state.attempt_number
        if state.attempt_number < policy.attempts:  # stopped because the next wait would pass the deadline
            raise _deadline_error(policy, error) from error.__cause__
        raise error

    retrying = Retrying(
        retry=retry_if_exception(lambda exc: isinstance(exc, LLMError) and exc.retryable),
        stop=stop_after_attempt(policy.attempts) | (lambda state: time.monotonic() + state.upcoming_sleep >= deadline),
        wait=lambda state: policy.delay(state.attempt_number, retry_after(_failure(state).__cause__)),
        sleep=sleep,
        before_sleep=lambda state: logger.warning(
            "model call failed (%s), retry %d/%d in %.1fs", _failure(state).kind, state.attempt_number,
            policy.attempts - 1, state.upcoming_sleep),
        retry_error_callback=give_up,
    )
    try:
        return retrying(attempt)
    except LLMError as error:
        if error.kind != "deadline":
            error.attempts = retrying.statistics.get("attempt_number", 1)
            if error.attempts > 1:
                error.message += f" (gave up after {error.attempts} attempts)"
        raise
    finally:
        if kind_token is not None:
            CALL_KIND.reset(kind_token)


def _failure(state: RetryCallState) -> LLMError:
    """The classified error of the attempt that just failed (``attempt`` raises nothing else)."""
    error = state.outcome.exception() if state.outcome is not None else None
    assert isinstance(error, LLMError)
    return error


def invoke_with_retries(
    model: BaseChatModel,
    messages: Sequence[BaseMessage],
    policy: RetryPolicy | None = None,
    *,
    sleep: Callable[[float], None] = time.sleep,
    secret: str | None = None,
    kind: str = "answer",
) -> str:
    """The model's whole answer as text; an :class:`LLMError` of kind ``cut_off`` if it was not finished.
    ``kind`` (:data:`CALL_TOKENS`) bounds its output and says whether it asks for JSON."""
    policy = policy or RetryPolicy.from_settings()
    return with_call_options(model, kind, policy, lambda options: call_with_retries(
        lambda: reply_text(model, model.invoke(list(messages), **options)), policy, sleep=sleep, secret=secret,
        kind=kind))


def stream_with_retries(
    model: BaseChatModel,
    messages: Sequence[BaseMessage],
    policy: RetryPolicy | None = None,
    *,
    sleep: Callable[[float], None] = time.sleep,
    secret: str | None = None,
    kind: str = "answer",
) -> Iterator[str]:
    """Text chunks as they arrive, all within ``policy.total`` s. Retries only until the first chunk; then an
    error, the deadline or a stream that ends without a ``finish_reason`` ends it with "The answer was cut off".
    A refused option (:func:`with_call_options`) is dropped and the stream asked for once more."""
    policy = policy or RetryPolicy.from_settings()
    options = call_options(model, kind, policy)
    started = False
    try:
        for text in _stream(model, messages, policy, sleep, secret, kind, options):
            started = True
            yield text
        return
    except LLMError as error:
        dropped = None if started else remember_refusal(model, error, options)
        if dropped is None:
            raise
    try:
        yield from _stream(model, messages, policy, sleep, secret, kind, call_options(model, kind, policy))
    except LLMError as error:
        error.message += f" (the server had refused {dropped}; asked again without it, it failed as above)"
        raise


def _stream(
    model: BaseChatModel,
    messages: Sequence[BaseMessage],
    policy: RetryPolicy,
    sleep: Callable[[float], None],
    secret: str | None,
    kind: str,
    options: dict[str, Any],
) -> Iterator[str]:
    deadline = time.monotonic() + policy.total
    state: dict[str, Any] = {"finish": None}

    def texts(chunks: Iterator[BaseMessage]) -> Iterator[str]:
        for chunk in chunks:
            state["finish"] = finish_reason(chunk) or state["finish"]
            text = message_text(chunk)
            if text:
                yield text

    def first_chunk() -> str:
        state["texts"] = texts(_items_before(deadline, lambda: model.stream(list(messages), **options)))
        try:
            return next(state["texts"], "")
        except ValueError as exc:
            # LangChain's word for a stream the server closed before its first chunk, as a server that gives
            # its one slot to a newer request does: that is a cut-off reply, not a failed call
            error = cut_off_error(model, None) if str(exc) == _NO_CHUNKS else None
            if error is None:
                raise
            raise error from exc

    # The first chunk is waited for in call_with_retries' own worker; the stream's worker is started inside it.
    first = call_with_retries(first_chunk, policy, sleep=sleep, secret=secret, deadline=deadline, kind=kind)
    if first:
        yield first
    try:
        yield from state["texts"]
    except DeadlineExceeded as exc:
        raise _deadline_error(policy, cut_off=True) from exc
    except Exception as exc:
        if time.monotonic() >= deadline:  # the transport ended the read at the deadline
            raise _deadline_error(policy, cut_off=True) from exc
        error = classify_error(exc, timeout=policy.timeout, secret=secret)
        error.message = "The answer was cut off: " + error.message
        raise error from exc
    error = cut_off_error(model, state["finish"])
    if error is not None:
        raise error
