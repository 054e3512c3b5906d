"""The chat model, bounded retries with backoff, and errors a user can act on.

Generic on purpose: answering and the GraphRAG code call :func:`chat_model` and :func:`invoke_with_retries`
/ :func:`stream_with_retries`, and show :class:`LLMError` ``.message`` to the user.

* The model is ``langchain-openai``'s ``ChatOpenAI``: ``HKE_CHAT_MODEL`` at OpenAI, or at any OpenAI-compatible
  server named by ``OPENAI_BASE_URL`` (Ollama, vLLM).
* The client's own retries are off (``max_retries=0``): retries happen here, through ``tenacity``, so that a 401
  is never retried, 429/5xx/timeouts/connection failures are retried a bounded number of times with exponential
  backoff plus jitter (honouring ``Retry-After`` up to a cap), and every failure ends in one clear message.
* A stream is retried only before its first chunk; after that a retry would repeat text already shown.
* Every call has a total deadline (``HKE_LLM_TIMEOUT``, :attr:`RetryPolicy.total`), retries and backoff included.
  The client's timeout is per read, so a server that sends an SSE keepalive every few seconds, or one token
  every few seconds, would otherwise hold a call forever. The HTTP work runs in a worker thread that the caller
  waits on only until the deadline; the worker's transport bounds every timeout by the time left and checks the
  deadline on each piece of the body, so it ends too, at the latest with the next bytes or read timeout.
* A reply that ends without a ``finish_reason`` (the server closed the stream early) or with ``length`` (the
  output token limit) is reported as cut off, not shown as a complete answer: streamed (:func:`stream_with_retries`)
  or whole (:func:`reply_text`, used by :func:`invoke_with_retries` and the GraphRAG calls).
* Every call is bounded: it names its kind (:data:`CALL_TOKENS`: answer, extraction, report, map, reduce, judge,
  check, rewrite, changes) and sends that kind's ``max_tokens`` scaled by ``HKE_LLM_MAX_TOKENS``, so a small
  model that never stops is stopped by the server, not only abandoned by us. The calls that want JSON ask for JSON mode
  (``response_format``). A server that refuses either option (400 naming it) is asked once more without it, and is
  not sent it again.
* Reads wait as long as ``HKE_LLM_TIMEOUT`` allows (a local server may take minutes before its first byte); connects
  are bounded by :data:`CONNECT_TIMEOUT_S`. A call given up at its deadline closes its connection, so a server that
  honours disconnects stops generating.
* A reply that is not a chat completion (an HTML page, an empty body, a 200 carrying an error object) is an
  :class:`LLMError` of kind ``bad_reply`` naming the endpoint and the kind of call; it is never cached.
* The API key never appears in a message, a log line or a repr.
"""

from core.llm.calls import call_with_retries, invoke_with_retries, stream_with_retries
from core.llm.client import chat_model, configured_chat_model, model_label
from core.llm.errors import (
    BadReplyError,
    DeadlineExceeded,
    LLMError,
    LLMNotConfiguredError,
    classify_error,
    scrub,
)
from core.llm.policy import (
    CALL_TOKENS,
    CONNECT_TIMEOUT_S,
    DEFAULT_TIMEOUT_S,
    RetryPolicy,
    call_options,
    with_call_options,
)
from core.llm.replies import cut_off_error, message_text, reply_text

__all__ = [
    "LLMError",
    "LLMNotConfiguredError",
    "DeadlineExceeded",
    "RetryPolicy",
    "BadReplyError",
    "call_with_retries",
    "chat_model",
    "configured_chat_model",
    "classify_error",
    "CALL_TOKENS",
    "CONNECT_TIMEOUT_S",
    "DEFAULT_TIMEOUT_S",
    "call_options",
    "cut_off_error",
    "invoke_with_retries",
    "message_text",
    "model_label",
    "reply_text",
    "scrub",
    "stream_with_retries",
    "with_call_options",
]
