"""LLM entity and relationship extraction, GraphRAG-style, tolerant of malformed replies.

Each text unit is sent once with the extraction prompt, then ``gleanings`` times with a follow-up asking for what
was missed (between follow-ups the model is asked whether anything is left, and a "N" stops early). Units run
with bounded concurrency; results are merged in unit order, so the outcome does not depend on timing.

A record that does not parse (wrong field count, unknown record kind, empty name, non-numeric strength) is
skipped and counted, and a reply with no parsable record at all is logged; neither stops the run.

**Fallback per unit:** a unit whose extraction call fails, or whose replies parse no entity (a small model that
answers prose), gets the offline extractor's entities for that unit instead (``fallback``), and is counted in
:attr:`LLMExtractor.fallback_units`. Only a model that fails every call stops the run (:class:`ModelFailingError`).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from core.graph import prompts
from core.graph.defaults import DEFAULT_CONCURRENCY, DEFAULT_GLEANINGS
from core.graph.extraction.drafts import EntityDraft, Extraction, RelationshipDraft, Sentence, build_sentences
from core.graph.extraction.mentions import find_mentions
from core.graph.extraction.text_units import ElementInfo
from core.graph.llm_cache import CachedChat, LLMCallError, ModelFailingError
from core.progress import Progress, ProgressCallback, no_progress
from core.store.graph_records import TextUnit
from core.text import clip, normalize_name

log = logging.getLogger(__name__)


@dataclass
class ParsedReply:
    entities: list[tuple[str, str, str]] = field(default_factory=list)  # (name, type, description)
    relationships: list[tuple[str, str, str, float]] = field(default_factory=list)  # (src, tgt, desc, strength)
    skipped: int = 0


_RECORD = re.compile(r"\(\s*(.*?)\s*\)\s*$", re.DOTALL)


def parse_records(
    text: str,
    *,
    tuple_delimiter: str = prompts.TUPLE_DELIMITER,
    record_delimiter: str = prompts.RECORD_DELIMITER,
    completion_delimiter: str = prompts.COMPLETION_DELIMITER,
) -> ParsedReply:
    """Entity and relationship records of one reply; malformed records are counted in ``skipped``."""
    out = ParsedReply()
    body = (text or "").split(completion_delimiter)[0]
    for raw in body.replace("\r", "").split(record_delimiter):
        raw = raw.strip()
        if not raw:
            continue
        m = _RECORD.search(raw)
        inner = m.group(1) if m and raw.lstrip().startswith("(") else raw
        fields = [f.strip().strip('"').strip() for f in inner.split(tuple_delimiter)]
        kind = fields[0].casefold() if fields else ""
        try:
            if kind == "entity" and len(fields) >= 4 and fields[1]:
                out.entities.append((fields[1], (fields[2] or "other").upper(), fields[3]))
            elif kind == "relationship" and len(fields) >= 5 and fields[1] and fields[2]:
                strength = float(re.findall(r"-?\d+(?:\.\d+)?", fields[4])[0]) if fields[4] else 1.0
                out.relationships.append((fields[1], fields[2], fields[3], max(strength, 0.0) or 1.0))
            else:
                out.skipped += 1
        except (IndexError, ValueError):
            out.skipped += 1
    return out


def records_parse(reply: str) -> bool:
    """Whether an extraction reply is usable (worth caching): it has a record, or says it is done with none."""
    parsed = parse_records(reply)
    return bool(parsed.entities or parsed.relationships) or prompts.COMPLETION_DELIMITER in reply


class LLMExtractor:
    """Extracts with a :class:`CachedChat`; ``progress(Progress("extraction", done, total))`` after each unit."""

    def __init__(
        self,
        chat: CachedChat,
        *,
        entity_types: Sequence[str] = prompts.DEFAULT_ENTITY_TYPES,
        gleanings: int = DEFAULT_GLEANINGS,
        concurrency: int = DEFAULT_CONCURRENCY,
        fallback: Callable[[Sequence[TextUnit], dict[str, ElementInfo]], Extraction] | None = None,
    ) -> None:
        if gleanings < 0:
            raise ValueError("gleanings must be 0 or more")
        self.chat = chat
        self.fallback = fallback  # the offline extractor's extract, for units the model gave nothing for
        self.llm_units = 0
        self.fallback_units = 0
        self.entity_types = [t.strip() for t in entity_types if t.strip()]
        self.gleanings = gleanings
        self.concurrency = max(1, concurrency)
        self.skipped = 0
        self.empty_replies = 0

    def extract(
        self,
        units: Sequence[TextUnit],
        infos: dict[str, ElementInfo],
        progress: ProgressCallback = no_progress,
    ) -> Extraction:
        sentences = build_sentences(units, infos)
        with_text = {s.unit_id for s in sentences}
        todo = [u for u in units if u.id in with_text]
        done = 0

        def run(unit: TextUnit) -> list[ParsedReply] | None:
            return self._unit(unit)

        results: list[list[ParsedReply]] = []
        failed: list[TextUnit] = []
        with ThreadPoolExecutor(max_workers=self.concurrency) as pool:
            try:
                for unit, replies in zip(todo, pool.map(run, todo), strict=True):
                    if replies is None or not any(r.entities or r.relationships for r in replies):
                        failed.append(unit)
                        replies = []
                    results.append(replies)
                    done += 1
                    progress(Progress("extraction", done, len(todo)))
            except BaseException:
                # A failure, or a progress callback that stops the run (a cancelled job): the units not yet
                # started are dropped, not sent to the model only to be thrown away.
                pool.shutdown(wait=False, cancel_futures=True)
                raise
        self.fallback_units = len(failed) if self.fallback is not None else 0
        self.llm_units = len(todo) - len(failed)

        drafts: dict[str, EntityDraft] = {}
        relationships: dict[tuple[str, str], RelationshipDraft] = {}
        order = 0
        for unit, replies in zip(todo, results, strict=True):
            for reply in replies:
                self.skipped += reply.skipped
                for name, type_, description in reply.entities:
                    key = normalize_name(name)
                    if not key:
                        self.skipped += 1
                        continue
                    order += 1
                    drafts.setdefault(key, EntityDraft(key)).add(
                        name, type_, unit.id, strong=True, order=order, description=clip(description, 400)
                    )
                for source, target, description, strength in reply.relationships:
                    a, b = normalize_name(source), normalize_name(target)
                    if not a or not b or a == b:
                        self.skipped += 1
                        continue
                    for key, name in ((a, source), (b, target)):
                        if key not in drafts:  # an endpoint the model did not list as an entity
                            order += 1
                            drafts[key] = EntityDraft(key)
                            drafts[key].add(name, "OTHER", unit.id, strong=True, order=order)
                    rel = relationships.setdefault((a, b), RelationshipDraft(a, b))
                    rel.weight += strength
                    rel.units.add(unit.id)
                    if description and description not in rel.descriptions:
                        rel.descriptions.append(clip(description, 300))
        if failed and self.fallback is not None:
            log.warning("%d of %d text unit(s) got no entity from the model; they use the offline extractor's",
                        len(failed), len(todo))
            order = _merge_offline(drafts, self.fallback(failed, infos), order)
        mentions = find_mentions(sentences, drafts)
        _ensure_unit_mentions(drafts, mentions, sentences)
        fallen = frozenset(u.id for u in failed) if self.fallback is not None else frozenset()
        extraction = Extraction("llm", sentences, drafts, mentions, relationships, skipped_records=self.skipped,
                                fallback_units=fallen)
        return extraction

    def _unit(self, unit: TextUnit) -> list[ParsedReply] | None:
        """The unit's parsed replies; None when its first call failed (without a fallback, that fails the run)."""
        if self.chat.failing:
            raise ModelFailingError(self.chat)
        messages = prompts.extraction_messages(self.entity_types, unit.text)
        try:
            reply = self.chat(messages, kind="extraction", valid=records_parse)
        except LLMCallError as exc:
            if self.chat.failing:
                raise ModelFailingError(self.chat) from exc
            if self.fallback is None:
                raise
            log.warning("text unit %s: extraction failed (%s); it uses the offline extractor", unit.id, exc)
            return None
        parsed = [self._parse(reply, unit)]
        if not records_parse(reply):
            return parsed  # a model that answered prose is not asked for more prose
        try:
            for round_ in range(self.gleanings):
                messages = prompts.gleaning_messages(messages, reply)
                reply = self.chat(messages, kind="extraction", valid=records_parse)
                parsed.append(self._parse(reply, unit))
                if round_ >= self.gleanings - 1:
                    break
                messages = prompts.gleaning_check_messages(messages, reply)
                answer = self.chat(messages, kind="check",
                                   valid=lambda text: text.strip()[:1].upper() in ("Y", "N"))
                if not answer.strip().upper().startswith("Y"):
                    break
        except LLMCallError as exc:
            if self.fallback is None:
                raise
            log.warning("text unit %s: a gleaning call failed (%s); the unit keeps what it has", unit.id, exc)
        return parsed

    def _parse(self, reply: str, unit: TextUnit) -> ParsedReply:
        parsed = parse_records(reply)
        if parsed.skipped:
            log.warning("text unit %s: skipped %d malformed extraction record(s)", unit.id, parsed.skipped)
        if not parsed.entities and not parsed.relationships and reply.strip():
            if prompts.COMPLETION_DELIMITER not in reply:
                self.empty_replies += 1
                log.warning("text unit %s: no parsable record in the reply (%r)", unit.id, clip(reply, 80))
        return parsed


def _merge_offline(drafts: dict[str, EntityDraft], offline: Extraction, order: int) -> int:
    """Add the offline extractor's entities (of the units it was given) to the model's ``drafts``."""
    for key, draft in offline.entities.items():
        target = drafts.setdefault(key, EntityDraft(key))
        for name, count in sorted(draft.names.items(), key=lambda item: draft.first_seen[item[0]]):
            order += 1
            for unit_id in sorted(draft.units):
                for _ in range(count):
                    target.add(name, draft.type, unit_id, strong=True, order=order)
        for description in draft.descriptions:
            if description not in target.descriptions:
                target.descriptions.append(description)
    return order


def _ensure_unit_mentions(
    drafts: dict[str, EntityDraft], mentions: dict[str, list[int]], sentences: list[Sentence]
) -> None:
    """An entity the model named in a unit but whose name is not found verbatim there (paraphrase, translation)
    is anchored to that unit's first sentence, so it still has a source element to cite."""
    first_of_unit: dict[str, int] = {}
    unit_of_sentence = [s.unit_id for s in sentences]
    for s in sentences:
        first_of_unit.setdefault(s.unit_id, s.index)
    for key, draft in drafts.items():
        found_units = {unit_of_sentence[i] for i in mentions.get(key, ())}
        extra = [first_of_unit[u] for u in draft.units if u not in found_units and u in first_of_unit]
        if extra:
            mentions[key] = sorted(set(mentions.get(key, [])) | set(extra))
