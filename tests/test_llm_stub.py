"""The LLM path over real HTTP: a local OpenAI-compatible stub server on 127.0.0.1 drives the real ``openai`` and
``langchain-openai`` clients through 429-then-success, 5xx, timeouts, 401, quota errors and a dead server."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import logging
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from core.answering import AnswerStream, ExtractiveAnswerer, LLMAnswerer, compare, default_answerer
from core.config import load_settings
from core.llm import LLMError, LLMNotConfiguredError, RetryPolicy, chat_model
from core.retrieval import Context, ContextElement, RetrievalRequest

KEY = "sk-test-TopSecretKey0123456789"
CONTEXT = Context(
    "hierarchical",
    "# Nova 27QX\n\n## Specs\n\n- Weight : 5.4 kg ◀ [e:aaaaaaaa]",
    "",
    [ContextElement("a" * 32, "aaaaaaaa", "hit", "ListItem", "Weight : 5.4 kg", "d", ("Nova 27QX", "Specs"), 0.3, 0)],
    20,
)


class Stub:
    """An OpenAI-compatible ``/v1/chat/completions`` that plays a script, one action per request.

    Actions: ``{"reply": text}``, ``{"status": code, "error": {...}, "headers": {...}}``, and
    ``{"sleep": seconds, ...}`` before either. The last action repeats once the script runs out. Streaming
    misbehaviour: ``"every": s`` sends one word every ``s`` seconds; ``"keepalive": s`` sends only SSE comments,
    one every ``s`` seconds, for at most ``"for"`` seconds; ``"cut": True`` closes the stream without a
    ``finish_reason`` or ``[DONE]``. ``"finish"`` is the reply's ``finish_reason`` (default ``stop``; ``None`` sends
    none). ``choose(body)``, if given, picks the action for a request instead.

    Like a small local model: ``"endless": True`` generates words until the request's ``max_tokens`` (then
    ``finish_reason`` ``length``) or, without one, until the client goes away (at most 30 s); ``"raw": bytes``
    answers 200 with that body as ``"content_type"``; ``"generate": s`` takes ``s`` seconds per token up to the
    request's ``max_tokens`` (at most 30 s), streamed token by token or, unstreamed, sent whole at the end: it sees
    a client that hung up only when a write fails, like a server that honours disconnects (``"hung_up"``).
    ``serial=True`` serves one request at a time (llama.cpp's one slot); ``interrupt=n`` ends a stream with
    ``[DONE]`` and no ``finish_reason`` as soon as another request arrives (``llama_cpp.server`` with its default
    ``interrupt_requests``), and holds the first stream after its ``n`` first chunks until the second request comes.
    """

    def __init__(self, script: list[dict], choose=None, *, serial: bool = False,
                 interrupt: int | None = None) -> None:
        self.script = list(script)
        self.choose = choose
        self.requests: list[dict] = []
        self.slot = threading.Lock() if serial else None
        self.interrupt = interrupt
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:  # keep test output clean
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                request = {"path": self.path, "body": body, "authorization": self.headers.get("Authorization"),
                           "arrived": time.monotonic()}
                stub.requests.append(request)
                self.number = len(stub.requests)
                with stub.slot if stub.slot is not None else contextlib.nullcontext():
                    request["started"] = time.monotonic()
                    self._serve(request, body)

            def _serve(self, request: dict, body: dict) -> None:
                if stub.choose is not None:
                    action = stub.choose(body)
                else:
                    action = stub.script.pop(0) if len(stub.script) > 1 else stub.script[0]
                if action.get("sleep"):
                    time.sleep(action["sleep"])
                try:
                    if "raw" in action:
                        self._raw(action["raw"], action.get("content_type", "application/json"))
                    elif action.get("endless"):
                        self._endless(body)
                    elif action.get("generate"):
                        self._generate(body, action["generate"])
                    elif "status" in action:
                        self._json(action["status"], {"error": action.get("error", {"message": "stub error"})},
                                   action.get("headers", {}))
                    elif "keepalive" in action:
                        self._keepalive(action["keepalive"], action.get("for", 30))
                    elif body.get("stream"):
                        self._stream(action["reply"], action.get("every", 0), action.get("cut", False),
                                     action.get("finish", "stop"))
                    else:
                        self._json(200, _completion(action["reply"], action.get("finish", "stop")))
                except (BrokenPipeError, ConnectionResetError):
                    request["hung_up"] = True  # the client gave up (timeout test)
                request["ended"] = time.monotonic()

            def _json(self, status: int, payload: dict, headers: dict | None = None) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)

            def _raw(self, data: bytes, content_type: str) -> None:
                self.send_response(200)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _endless(self, body: dict) -> None:
                bound = body.get("max_tokens") or body.get("max_completion_tokens")
                words = [f"word{i}" for i in range(bound or 100_000)]
                if not body.get("stream"):
                    if bound is None:
                        time.sleep(30)  # generating on and on
                    self._json(200, _completion(" ".join(words), "length"))
                    return
                # generated quickly up to a bound, slowly (and until the client hangs up) without one
                self._stream(" ".join(words), every=0.01 if bound is None or bound > 100 else 0, finish="length",
                             until=time.monotonic() + 30)

            def _generate(self, body: dict, every: float) -> None:
                bound = min(body.get("max_tokens") or body.get("max_completion_tokens") or 100_000, int(30 / every))
                words = " ".join(f"word{i}" for i in range(bound))
                if body.get("stream"):
                    self._stream(words, every=every, finish="length")
                    return
                time.sleep(every * bound)
                self._json(200, _completion(words, "length"))

            def _stream(self, text: str, every: float = 0, cut: bool = False, finish: str | None = "stop",
                        until: float | None = None) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                pieces = [w + " " for w in text.split(" ")]
                pieces[-1] = pieces[-1].rstrip()
                interrupting = stub.interrupt is not None
                for i, piece in enumerate(pieces):
                    if interrupting and self.number == 1 and i == stub.interrupt:
                        # the first stream is still going when the second request comes, however slowly the
                        # client (a loaded machine) sends it: the interruption under test always happens
                        deadline = time.monotonic() + 10
                        while len(stub.requests) == 1 and time.monotonic() < deadline:
                            time.sleep(0.01)
                    if interrupting and len(stub.requests) > self.number:
                        self.wfile.write(b"data: [DONE]\n\n")  # a newer request took the model
                        self.wfile.flush()
                        return
                    if until is not None and time.monotonic() > until:
                        return
                    if every and i:
                        time.sleep(every)
                    delta = {"content": piece, **({"role": "assistant"} if i == 0 else {})}
                    self._event(_chunk(delta, None))
                if cut:
                    self.close_connection = True
                    return
                self._event(_chunk({}, finish))
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()

            def _keepalive(self, every: float, for_s: float) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                until = time.monotonic() + for_s
                while time.monotonic() < until:
                    self.wfile.write(b": keepalive\n\n")
                    self.wfile.flush()
                    time.sleep(every)

            def _event(self, payload: dict) -> None:
                self.wfile.write(f"data: {json.dumps(payload)}\n\n".encode())
                self.wfile.flush()

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __enter__(self) -> Stub:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()


def _completion(text: str, finish: str | None = "stop") -> dict:
    return {"id": "chatcmpl-stub", "object": "chat.completion", "created": 0, "model": "stub-model",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": finish}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}}


def _chunk(delta: dict, finish: str | None) -> dict:
    return {"id": "chatcmpl-stub", "object": "chat.completion.chunk", "created": 0, "model": "stub-model",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


RATE_LIMITED = {"status": 429, "headers": {"retry-after": "0"},
                "error": {"message": "Rate limit reached for requests", "type": "requests",
                          "code": "rate_limit_exceeded"}}


def settings_for(base_url: str):
    return dataclasses.replace(load_settings(), openai_api_key=KEY, openai_base_url=base_url, chat_model="stub-model")


def answerer(stub: Stub, **policy) -> LLMAnswerer:
    options = {"attempts": 3, "base_delay": 0.01, "max_delay": 0.05, "timeout": 5.0, "total": 20.0, **policy}
    return LLMAnswerer.from_settings(settings_for(stub.base_url), RetryPolicy(**options))


def test_429_then_success_is_retried_and_answers():
    with Stub([RATE_LIMITED, {"reply": "It weighs 5.4 kg [e:aaaaaaaa]."}]) as stub:
        text = answerer(stub).complete("How heavy is the Nova 27QX?", CONTEXT)
    assert text == "It weighs 5.4 kg [e:aaaaaaaa]."
    assert len(stub.requests) == 2
    request = stub.requests[-1]
    assert request["path"] == "/v1/chat/completions"
    assert request["body"]["model"] == "stub-model"
    assert request["authorization"] == f"Bearer {KEY}"
    system, user = request["body"]["messages"]
    assert "not instructions" in system["content"]
    assert user["content"].startswith("<context>\n# Nova 27QX") and user["content"].endswith("Nova 27QX?")


def test_429_then_success_while_streaming():
    with Stub([RATE_LIMITED, {"reply": "It weighs 5.4 kg [e:aaaaaaaa]."}]) as stub:
        chunks = list(answerer(stub).stream("How heavy?", CONTEXT))
    assert len(chunks) > 2 and "".join(chunks) == "It weighs 5.4 kg [e:aaaaaaaa]."
    assert len(stub.requests) == 2 and stub.requests[-1]["body"]["stream"] is True


def test_5xx_is_retried():
    with Stub([{"status": 503, "error": {"message": "overloaded"}}, {"reply": "ok"}]) as stub:
        assert answerer(stub).complete("q", CONTEXT) == "ok"
    assert len(stub.requests) == 2


def test_timeout_gives_a_clear_error_after_bounded_retries():
    with Stub([{"sleep": 3, "reply": "too late"}]) as stub:
        started = time.perf_counter()
        with pytest.raises(LLMError) as info:
            answerer(stub, attempts=2, timeout=0.4).complete("q", CONTEXT)
        elapsed = time.perf_counter() - started
    error = info.value
    assert error.kind == "timeout" and error.retryable and error.attempts == 2
    assert error.message == ("The model server did not answer within 0.4 s. It may be overloaded; try again, or "
                             "raise the timeout. (gave up after 2 attempts)")
    assert len(stub.requests) == 2
    assert elapsed < 2.5, "each attempt stopped at the timeout instead of waiting for the server"


def test_401_is_not_retried_and_never_shows_the_key(caplog):
    error_body = {"message": f"Incorrect API key provided: {KEY}.", "type": "invalid_request_error",
                  "code": "invalid_api_key"}
    caplog.set_level(logging.DEBUG)
    with Stub([{"status": 401, "error": error_body}]) as stub:
        with pytest.raises(LLMError) as info:
            answerer(stub).complete("q", CONTEXT)
    assert len(stub.requests) == 1
    assert info.value.kind == "auth" and not info.value.retryable
    assert "OPENAI_API_KEY" in info.value.message
    assert KEY not in info.value.message and KEY not in repr(info.value) and KEY not in caplog.text


def test_quota_exhaustion_is_not_retried():
    quota = {"status": 429, "error": {"message": "You exceeded your current quota", "type": "insufficient_quota",
                                      "code": "insufficient_quota"}}
    with Stub([quota]) as stub:
        with pytest.raises(LLMError) as info:
            answerer(stub).complete("q", CONTEXT)
    assert info.value.kind == "quota" and len(stub.requests) == 1


def test_a_dead_server_is_reported_as_unreachable():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again before the client connects: nothing listens there
    llm = LLMAnswerer.from_settings(settings_for(f"http://127.0.0.1:{port}/v1"),
                                    RetryPolicy(attempts=2, base_delay=0.01, timeout=2))
    with pytest.raises(LLMError) as info:
        llm.complete("q", CONTEXT)
    assert info.value.kind == "unavailable" and info.value.attempts == 2
    assert "Cannot reach the model server" in info.value.message


def test_compare_through_the_stub_answers_both_modes_and_keeps_the_key_out(samples_store):
    with Stub([{"reply": "Answer from the context [e:00000000]."}]) as stub:
        result = compare(samples_store, RetrievalRequest("Nova 27QX 모니터의 보증기간은 얼마인가요?", k=3),
                         answerer=answerer(stub), streaming=True)
    # [e:00000000] is in neither context: it is dropped, and the sentence, matching no element, marked uncited
    assert result.plain.answer.text == result.hierarchical.answer.text == "Answer from the context [uncited]."
    assert result.answerer.startswith("LLM: stub-model at http://127.0.0.1:")
    contexts = [r["body"]["messages"][1]["content"] for r in stub.requests]  # the columns ask concurrently
    assert len(contexts) == 2
    for mode_result in (result.plain, result.hierarchical):
        assert any(c.startswith("<context>\n" + mode_result.context.text + "\n") for c in contexts)
    assert KEY not in json.dumps(result.to_dict(), ensure_ascii=False)


def test_one_failing_column_leaves_the_other_answered(samples_store):
    too_long = {"status": 400, "error": {"message": "context_length_exceeded", "code": "context_length_exceeded"}}
    # The columns ask at the same time: whichever asks first is refused.
    with Stub([too_long, {"reply": "The other answer."}]) as stub:
        llm = answerer(stub)
        result = compare(samples_store, RetrievalRequest("Nova 27QX 모니터의 보증기간은 얼마인가요?", k=3),
                         answerer=llm, streaming=True)
    refused_prompt = stub.requests[0]["body"]["messages"][1]["content"]
    refused = next(r for r in (result.plain, result.hierarchical)
                   if refused_prompt.startswith("<context>\n" + r.context.text + "\n"))
    answered = result.hierarchical if refused is result.plain else result.plain
    assert refused.answer.error_kind == "bad_request"
    assert "refused the request (400)" in refused.answer.error
    assert answered.answer.text == "The other answer [uncited]." and answered.answer.ok  # it cited nothing


def test_a_stream_cut_off_midway_keeps_what_arrived():
    class CutOff:
        label = "LLM: cut"

        def stream(self, question, context):
            yield "partial "
            raise LLMError("server", "The model server failed (502).", retryable=True, status=502)

    from core.retrieval import Retrieval

    retrieval = Retrieval(question="q", k=1, scope=None, hits=[], plain=CONTEXT, hierarchical=CONTEXT,
                          timings={"embed_query": 0, "vector_search": 0, "expand": 0}, query_vector=None)
    stream = AnswerStream(retrieval, "hierarchical", CutOff())
    assert list(stream) == ["partial "]
    result = stream.result()
    assert result.answer.text == "partial " and result.answer.error == "The model server failed (502)."


def test_without_a_key_answers_are_extractive():
    settings = dataclasses.replace(load_settings(), openai_api_key=None)
    assert isinstance(default_answerer(settings), ExtractiveAnswerer)
    with pytest.raises(LLMNotConfiguredError):
        chat_model(settings)


# -- a reply the server did not finish -------------------------------------------------------------------------


def test_cli_ask_says_a_cut_off_answer_was_cut_off(samples_store, monkeypatch, capsys):
    """The stream ends without a finish_reason: the CLI shows what arrived, says it was cut off, and exits 1."""
    from core.cli import main

    with Stub([{"reply": "The answer is ", "cut": True}]) as stub:
        monkeypatch.setenv("OPENAI_API_KEY", KEY)
        monkeypatch.setenv("OPENAI_BASE_URL", stub.base_url)
        monkeypatch.setenv("HKE_CHAT_MODEL", "stub-model")
        code = main(["ask", "How heavy is the Nova 27QX?", "--collection", "samples", "--mode", "hierarchical"])
    out = capsys.readouterr().out
    assert code == 1, out
    answer = out.split("== hierarchical", 1)[1]
    assert "The answer is" in answer and "error: The answer was cut off: the model server ended the stream" in answer


@pytest.mark.parametrize("finish, words", [
    (None, "no finish_reason"),
    ("length", "output token limit"),
])
def test_a_whole_reply_that_was_not_finished_is_an_error_with_what_arrived(finish, words):
    from langchain_core.messages import HumanMessage

    from core.llm import invoke_with_retries

    policy = RetryPolicy(attempts=2, base_delay=0.01, timeout=5.0, total=20.0)
    with Stub([{"reply": "The answer is", "finish": finish}]) as stub:
        for streaming in (False, True):  # a plain JSON reply, and one ChatOpenAI gathers from a stream
            model = chat_model(settings_for(stub.base_url), streaming=streaming)
            with pytest.raises(LLMError) as info:
                invoke_with_retries(model, [HumanMessage("q")], policy)
            assert info.value.kind == "cut_off" and words in info.value.message
            assert info.value.partial == "The answer is"
    assert len(stub.requests) == 2, "a cut-off reply is not asked again"


def test_the_judge_does_not_take_a_cut_off_verdict():
    from core.evaluation.judge import Judge

    policy = RetryPolicy(attempts=1, timeout=5.0, total=20.0)
    with Stub([{"reply": '{"faithfulness": "A", "relev', "finish": "length"}]) as stub:
        verdict = Judge.from_settings(settings_for(stub.base_url), policy).verdict("q", "plain", "a", "b")
    assert verdict.error == "The answer was cut off at the model's output token limit."


def test_graph_calls_never_cache_a_cut_off_reply_and_global_search_says_so(db_url, use_embeddings):
    """Extraction, reports and map replies that were cut off are parsed as far as they go and never cached; the
    reduce reply is the answer, so global search fails with "cut off" instead of showing it as complete."""
    import uuid

    from core.graph import GlobalSearchOptions, LLMCallError, build_index, global_search
    from core.graph.llm_cache import CachedChat, cache_size
    from core.ingest import ingest_paths
    from core.store import ElementStore
    from tests.conftest import SAMPLES
    from tests.helpers_graph import map_reply

    store = ElementStore(db_url, f"t_cut_{uuid.uuid4().hex[:8]}", use_embeddings)
    try:
        assert not ingest_paths(store, [SAMPLES / "nova-32ux-monitor-en.md"]).errors
        build_index(store)  # offline: reports to search
        with Stub([{"reply": "partial", "finish": "length"}]) as stub:
            chat = CachedChat(chat_model(settings_for(stub.base_url)), pool=store.pool,
                              collection_id=store.collection_id)
            assert chat([("user", "extract")]) == "partial"
            assert chat([("user", "extract")]) == "partial" and len(stub.requests) == 2  # asked again
            assert cache_size(store.pool, store.collection_id) == 0

        def choose(body: dict) -> dict:
            prompt = body["messages"][-1]["content"]
            if prompt.startswith("Below are community reports"):
                return {"reply": map_reply(prompt, zero=False)}
            return {"reply": "The collection is about", "cut": True}

        with Stub([], choose=choose) as stub:
            with pytest.raises(LLMCallError, match="The answer was cut off"):
                global_search(store, "What is this collection about?", GlobalSearchOptions(level=0),
                              chat_model=chat_model(settings_for(stub.base_url), streaming=True))
            assert any(r["body"]["messages"][-1]["content"].startswith("Several analysts") for r in stub.requests)
    finally:
        store.drop()


def test_global_search_answers_offline_when_no_map_reply_parses(db_url, use_embeddings):
    """A small model that answers prose to every map call: the reduce step is never asked, and the answer is the
    offline one, with a notice that says so (before, it was "nothing relevant" from an answer that read nothing)."""
    import uuid

    from core.graph import GlobalSearchOptions, build_index, global_search
    from core.ingest import ingest_paths
    from core.store import ElementStore
    from tests.conftest import SAMPLES

    store = ElementStore(db_url, f"t_prose_{uuid.uuid4().hex[:8]}", use_embeddings)
    try:
        assert not ingest_paths(store, [SAMPLES / "nova-32ux-monitor-en.md"]).errors
        build_index(store)  # offline: reports to search
        question = "How heavy is the Nova 32UX?"
        offline = global_search(store, question, GlobalSearchOptions(level=0, use_llm="extractive"))
        with Stub([{"reply": "Sure! The monitor is a great product. {points: maybe"}]) as stub:
            answer = global_search(store, question, GlobalSearchOptions(level=0),
                                   chat_model=chat_model(settings_for(stub.base_url), streaming=True))
        prompts = [r["body"]["messages"][-1]["content"] for r in stub.requests]
        assert prompts and all(p.startswith("Below are community reports") for p in prompts)  # no reduce call
        assert all(r["body"]["stream"] and r["body"]["max_tokens"] for r in stub.requests)
        assert (answer.generated_by, answer.answer, answer.report_ids) == ("extractive", offline.answer,
                                                                           offline.report_ids)
        assert "extractive (offline) answer" in answer.notice and answer.llm_calls == len(stub.requests)
    finally:
        store.drop()
