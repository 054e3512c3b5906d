"""Bringing a collection's hierarchical lexical graph up to date with its elements, incrementally.

:func:`sync_tiers` reads only the element rows no build has read yet (an ingest's new or edited elements): their
statements, entities and facts are written; the statements of element rows a version dropped stop on the date their
element stopped (so a read as of an earlier date still sees them), and those of purged documents go. An unchanged
element is never read again, so an edit rewrites only the edited element's statements and facts.

Topics (heading sections) follow their statements: the sections of every document whose statements changed are read
again; a section whose text changed gets a new topic row and its old one stops when the section changed, a section
whose statements all stopped stops too, and an unchanged one is left as it was. With a chat model (``chat_model``),
each new section, and each one an ingest read offline, is also named by the HLG topic prompt
(:mod:`core.hlg.prompts`), the reply cached per collection like the index's; the topic then embeds its name with its
text. A failed call leaves that section's topic offline (counted in ``topic_fallbacks``; the next build asks again).
With a chat model the statements and facts of the elements read are the model's too (:mod:`core.hlg.llm`:
propositions per prose element, triples per batch of statements; a unit whose reply parses nothing keeps its offline
tier, counted in ``llm``); an element an offline build read (an ingest's) is read once more by the first build with
a model, and one whose call failed is read again by the next.

Statement and topic vectors come through the embedding cache (:func:`core.ingest.embedding.embed_texts`): the text of a
statement already stored in the collection, or of an element embedded from the same text, is not embedded again.
"""

from __future__ import annotations

import time
from collections import defaultdict
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from core.hlg.extract import MAX_EMBED_CHARS, Limits, Vocabulary, document_statements
from core.hlg.llm import LLMTierCounts, LLMTiers, with_model
from core.ingest.embedding import embed_texts, text_sha256
from core.store.hlg_tables import HLGTables, SectionDraft, TopicDraft

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

    from core.graph.llm_cache import CachedChat
    from core.store import ElementStore

__all__ = ["TierSync", "sync_tiers", "tiers_built", "topic_text"]


@dataclass
class TierSync:
    """What one sync did."""

    elements_read: int = 0
    documents: int = 0
    statements_written: int = 0
    statements_closed: int = 0
    topics_written: int = 0
    topic_calls: int = 0  # LLM topic names asked (cached replies included)
    topic_cached: int = 0
    topic_fallbacks: int = 0  # sections left with their offline topic: the call failed or named nothing
    llm: LLMTierCounts | None = None  # the model's statements and facts, with a chat model
    embedded: int = 0
    reused: int = 0
    cuts: list[str] = field(default_factory=list)
    seconds: float = 0.0
    counts: dict[str, int] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        out = asdict(self)
        if self.llm is not None:
            out["llm"]["failed_elements"] = sorted(self.llm.failed_elements)
        return out

    def describe(self) -> str:
        text = (f"read {self.elements_read} element(s) of {self.documents} document(s): {self.statements_written} "
                f"statement(s) written, {self.statements_closed} closed, {self.topics_written} topic(s) written; "
                f"{self.embedded} embedded, "
                f"{self.reused} reused from the cache")
        if self.topic_calls:
            text += (f"; {self.topic_calls} topic name(s) asked of the model ({self.topic_cached} cached, "
                     f"{self.topic_fallbacks} left offline)")
        if self.llm is not None:
            text += f"; {self.llm.describe()}"
        if self.counts:
            text += (f"; now {self.counts['statements']} statements, {self.counts['facts']} facts, "
                     f"{self.counts['entities']} entities, {self.counts['topics']} topics")
        return text + "".join(f"\ncut: {cut}" for cut in self.cuts)


def tiers_built(store: ElementStore) -> bool:
    return HLGTables(store).built()


def sync_tiers(store: ElementStore, *, limits: Limits | None = None, batch_size: int = 64,
               chat_model: BaseChatModel | None = None, llm: LLMTiers | None = None) -> TierSync:
    """Bring the tiers of ``store``'s collection up to date (see the module docstring); one build at a time.
    ``chat_model``: the LLM tiers ``llm`` names (all three by default) are read by it (offline without one)."""
    started = time.perf_counter()
    tables = HLGTables(store)
    report = TierSync()
    llm = llm or LLMTiers()
    chat = None
    if chat_model is not None:
        from core.graph.llm_cache import CachedChat
        from core.store.graph_tables import GraphTables

        GraphTables(store).ensure_schema()  # the LLM cache's table
        chat = CachedChat(chat_model, pool=store.pool, collection_id=store.collection_id)
    reads = chat is not None and llm.reads_elements
    if reads:
        report.llm = LLMTierCounts()
    with store.job_lock("hlg"):
        pending, report.statements_closed, changed = tables.settle(llm=reads)
        by_document: dict[str, list] = defaultdict(list)
        for p in pending:
            by_document[p.document_id].append(p)
        vocabulary = Vocabulary(h.text for h in store.read.headings()) if pending else None
        for document_id in sorted(by_document):
            wanted = by_document[document_id]
            keys = {(p.element_id, p.since_version) for p in wanted}
            found = document_statements(store.read.elements(document_id), vocabulary, limits)
            report.cuts += found.cuts
            drafts = [s for s in found.statements if (s.element_id, s.element_since) in keys]
            if reads:
                assert chat is not None and report.llm is not None
                drafts = with_model(chat, drafts, vocabulary, llm, report.llm, limits)
            texts = [s.embedding_text for s in drafts]
            hashes = [text_sha256(t) for t in texts]
            cached = tables.cached_vectors(sorted(set(hashes)))
            embedded = embed_texts(store, texts, batch_size=batch_size, pending=cached) if texts else None
            vectors = embedded.vectors if embedded is not None else np.zeros((0, 0), np.float32)
            if embedded is not None:
                report.embedded += embedded.embedded
                report.reused += embedded.reused
            read_by_model = [reads and p.element_id not in report.llm.failed_elements for p in wanted] \
                if report.llm is not None else None
            report.statements_written += tables.write(wanted, drafts, vectors, hashes, llm=read_by_model)
            report.elements_read += len(wanted)
            report.documents += 1
        topics_chat = chat if llm.topics else None
        unnamed = tables.topicless_documents(unnamed=topics_chat is not None)
        documents = sorted(changed | set(by_document) | set(unnamed))
        for start in range(0, len(documents), batch_size):
            _sync_topics(tables, store, documents[start:start + batch_size], report, batch_size, topics_chat)
    report.counts = tables.counts().as_dict()
    report.seconds = round(time.perf_counter() - started, 3)
    return report


def topic_text(section: SectionDraft) -> str:
    """What a topic embeds and stores: its heading path, then its statements in document order (cut as statements
    are, so a long section costs one vector's worth of text)."""
    head = " > ".join(p for p in section.heading_path if p)
    return "\n".join(x for x in (head, " ".join(section.texts)) if x)[:MAX_EMBED_CHARS]


def _named(chat: CachedChat, section: SectionDraft, text: str, report: TierSync) -> str:
    """``text`` with the model's topic name for ``section`` before it, or as it is when the call fails."""
    from core.graph.llm_cache import LLMCallError
    from core.hlg.prompts import topic_messages, topic_name

    body = text.split("\n", 1)[-1] if section.heading_path else text
    cached = chat.cached
    report.topic_calls += 1
    try:
        name = topic_name(chat(topic_messages(section.heading_path, body), kind="topic",
                               valid=lambda reply: bool(topic_name(reply))))
    except LLMCallError:
        name = ""
    report.topic_cached += chat.cached - cached
    if not name:
        report.topic_fallbacks += 1
        return text
    return f"{name}\n{text}"[:MAX_EMBED_CHARS]


def _sync_topics(tables: HLGTables, store: ElementStore, documents: list[str], report: TierSync,
                 batch_size: int, chat: CachedChat | None = None) -> None:
    """Bring the topics of ``documents`` up to date with their current statements."""
    live = tables.live_topics(documents)
    drafts: list[TopicDraft] = []
    close: list[tuple[int, Any]] = []
    for section in tables.sections(documents):
        text = topic_text(section)
        section_sha = text_sha256(text)
        current = live.get((section.document_id, section.topic))
        if current is not None and current[1] == section_sha and (chat is None or current[2]):
            continue  # unchanged (and, with a model, already named: a section an ingest read offline is named now)
        if chat is not None:
            text = _named(chat, section, text, report)
        if current is not None:
            close.append((current[0], section.changed))
        drafts.append(TopicDraft(section.document_id, section.topic, section.heading_path, text, text_sha256(text),
                                 section_sha, len(section.texts), section.changed))
    vectors = np.zeros((0, 0), np.float32)
    if drafts:
        texts = [d.text for d in drafts]
        cached = tables.cached_topic_vectors(sorted({d.sha for d in drafts}))
        embedded = embed_texts(store, texts, batch_size=batch_size, pending=cached)
        vectors = embedded.vectors
        report.embedded += embedded.embedded
        report.reused += embedded.reused
    report.topics_written += tables.write_topics(documents, close, drafts, vectors)
