"""The GraphRAG LLM cache keeps only usable replies, per endpoint, and can be cleared (issue 12, item 6); `core global`
ends a failing model call with its message, not a traceback (item 3). Real Postgres, fake or stub models."""

from __future__ import annotations

import dataclasses
import uuid

import pytest
from langchain_core.language_models import FakeListChatModel
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration

from core.cli import main
from core.config import load_settings
from core.graph import GlobalSearchOptions, IndexConfig, build_index, global_search
from core.graph.llm_cache import CachedChat, PostgresLLMCache, cache_size, model_identity, prompt_key
from core.llm import chat_model
from tests.conftest import SAMPLES
from tests.helpers_graph import FakeGraphModel
from tests.test_llm_stub import KEY, Stub

SMALL_CORPUS = ["hanbit-space-institute-overview-ko.md", "nova-32ux-monitor-en.md"]
QUESTION = "What is this collection about?"


@pytest.fixture(scope="module")
def indexed(db_url, use_embeddings):
    """Two sample documents with an offline index (reports to map over), in a collection of this module."""
    from core.ingest import ingest_paths
    from core.store import ElementStore

    store = ElementStore(db_url, f"t_cache_{uuid.uuid4().hex[:8]}", use_embeddings)
    assert not ingest_paths(store, [SAMPLES / name for name in SMALL_CORPUS]).errors
    build_index(store, config=IndexConfig(extraction="offline", reports="extractive"))
    yield store
    store.drop()


def _map_calls(model: FakeGraphModel) -> int:
    return sum(1 for p in model.prompts_seen if p.startswith("Below are community reports"))


def test_replies_that_do_not_parse_are_not_cached_or_replayed(indexed):
    garbage = FakeGraphModel(model_name="fake-cache-garbage", malformed=1)  # every reply is garbage
    first = global_search(indexed, QUESTION, GlobalSearchOptions(level=0), chat_model=garbage)
    assert first.generated_by == "extractive" and "not the JSON points" in first.notice  # answered offline
    assert _map_calls(garbage) >= 1
    assert cache_size(indexed.pool, indexed.collection_id) == 0, "a reply that did not parse was cached"

    healthy = FakeGraphModel(model_name="fake-cache-garbage")  # same identity: would hit garbage in the cache
    second = global_search(indexed, QUESTION, GlobalSearchOptions(level=0), chat_model=healthy)
    assert _map_calls(healthy) == _map_calls(garbage), "the map calls were asked again"
    assert second.points and second.report_ids
    assert cache_size(indexed.pool, indexed.collection_id) == healthy.calls  # now the good replies are kept


def test_a_garbage_reply_cached_by_an_older_version_is_asked_again(indexed):
    model = FakeGraphModel(model_name="fake-cache-old")
    chat = CachedChat(model, pool=indexed.pool, collection_id=indexed.collection_id)
    messages = [("human", "Below are community reports. Question: q")]
    assert chat.cache is not None
    chat.cache.update(prompt_key(messages), chat.model_id, [ChatGeneration(message=AIMessage(content="{not json"))])
    reply = chat(messages, valid=lambda text: text.startswith("{\""))
    assert model.calls == 1 and reply.startswith("{\"")


def test_the_cache_is_a_langchain_cache_a_chat_model_can_use(indexed):
    """PostgresLLMCache speaks LangChain's BaseCache: attached to a model, the second identical call is a hit."""
    from core.store.graph_tables import ensure_graph_schema

    ensure_graph_schema(indexed.pool)
    cache = PostgresLLMCache(indexed.pool, indexed.collection_id)
    model = FakeListChatModel(responses=["first reply", "second reply"], cache=cache)
    before = cache_size(indexed.pool, indexed.collection_id)
    assert model.invoke("same question").content == "first reply"
    assert model.invoke("same question").content == "first reply"  # from Postgres, not the model's next reply
    assert model.invoke("another question").content == "second reply"
    assert cache_size(indexed.pool, indexed.collection_id) == before + 2


def test_the_cache_key_includes_the_endpoint():
    settings = dataclasses.replace(load_settings(), openai_api_key=KEY, chat_model="same-model")
    here = chat_model(dataclasses.replace(settings, openai_base_url="http://127.0.0.1:8000/v1"))
    there = chat_model(dataclasses.replace(settings, openai_base_url="http://127.0.0.1:9000/v1"))
    secret = chat_model(dataclasses.replace(settings, openai_base_url="https://u:pw123456@proxy.example/v1?key=k"))
    ids = {model_identity(m) for m in (here, there, secret)}
    assert len(ids) == 3
    assert model_identity(here).startswith("openai-chat:same-model@http://127.0.0.1:8000/v1#")
    assert "pw123456" not in model_identity(secret) and "key=k" not in model_identity(secret)


def test_cache_clear_for_one_collection_and_for_all(indexed, db_url, capsys):
    from core.store import ElementStore

    other = ElementStore(db_url, f"t_cache_other_{uuid.uuid4().hex[:6]}", indexed.embeddings)
    try:
        for store in (indexed, other):
            from core.store.graph_tables import ensure_graph_schema

            ensure_graph_schema(store.pool)
            PostgresLLMCache(store.pool, store.collection_id).update(
                "k", "fake-clear", [ChatGeneration(message=AIMessage(content="reply"))])
        before = cache_size(indexed.pool, indexed.collection_id)  # earlier tests of this module cached some too
        assert before >= 1
        assert main(["cache", "clear", "--collection", indexed.collection]) == 0
        assert capsys.readouterr().out.strip() == (f"cleared {before} cached LLM replies from collection "
                                                   f"'{indexed.collection}'")
        assert cache_size(indexed.pool, indexed.collection_id) == 0
        assert cache_size(other.pool, other.collection_id) == 1
        assert main(["cache", "clear", "--json"]) == 0
        assert '"cleared": ' in capsys.readouterr().out
        assert cache_size(other.pool, other.collection_id) == 0
    finally:
        other.drop()


@pytest.mark.parametrize(("status", "words"), [(401, "rejected the API key (401)"), (500, "failed (500)")])
def test_core_global_with_a_failing_model_prints_its_message_not_a_traceback(indexed, monkeypatch, capsys,
                                                                             status, words):
    with Stub([{"status": status, "headers": {"retry-after": "0"}, "error": {"message": "nope"}}]) as stub:
        monkeypatch.setenv("OPENAI_API_KEY", KEY)
        monkeypatch.setenv("OPENAI_BASE_URL", stub.base_url)
        monkeypatch.setenv("HKE_CHAT_MODEL", f"stub-{status}")
        code = main(["global", QUESTION, "--level", "0", "--collection", indexed.collection])
    err = capsys.readouterr().err
    assert code == 1
    assert err.startswith("error: chat model call failed: The model server") and words in err, err
    assert KEY not in err
