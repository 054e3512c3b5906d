"""Text units and offline/LLM extraction, without a database (parsed sample files in, drafts out)."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.graph.communities.entity_graph import build_graph
from core.graph.extraction.llm import LLMExtractor, parse_records
from core.graph.extraction.mentions import MentionMatcher
from core.graph.extraction.names_english import capitalised, codes_acronyms_camel
from core.graph.extraction.offline import OfflineExtractor
from core.graph.extraction.text_units import build_text_units
from core.graph.llm_cache import CachedChat
from core.graph.replies import cited_ids, parse_json_object
from core.markdown_loader import parse_markdown
from core.text import normalize_name, split_sentences, strip_josa

SAMPLES = Path(__file__).resolve().parents[1] / "data" / "samples"


def _docs(*names: str, text: str | None = None):
    if text is not None:
        return [("doc", parse_markdown(text, source="doc.md", document_id="doc"))]
    return [(n, parse_markdown((SAMPLES / n).read_text(encoding="utf-8"), source=n, document_id=n)) for n in names]


def _extract(*names: str):
    units, infos = build_text_units(_docs(*names))
    extraction = OfflineExtractor(english_ner="heuristic").extract(units, infos)
    by_title = {d.title: d for d in extraction.entities.values()}
    return units, infos, extraction, by_title


# -- text units --------------------------------------------------------------------------------------


def test_text_units_cover_every_element_once_within_budget():
    docs = _docs("hanbit-space-institute-overview-ko.md", "nova-32ux-monitor-en.md")
    units, infos = build_text_units(docs, max_tokens=200)
    seen = [e for u in units for e in u.element_ids]
    assert sorted(seen) == sorted(infos) and len(seen) == len(set(seen))
    for u in units:
        assert u.n_tokens <= 200 or len(u.element_ids) <= 2  # only an oversized block (+ its heading) may exceed
        assert all(infos[e].unit_id == u.id for e in u.element_ids)
        assert u.heading_path, "every unit of these documents sits under a heading"
        first = infos[u.element_ids[0]]
        assert not (first.category == "Title" and len(u.element_ids) == 1), "no unit is a bare heading"
    # document order is kept inside and across units of one document
    orders = [infos[e].order for u in units if u.document_id == docs[0][0] for e in u.element_ids]
    assert orders == sorted(orders)


def test_text_units_keep_a_small_section_whole():
    text = "# Guide\n\nIntro text.\n\n## Setup\n\n* Step one\n* Step two\n\n## Usage\n\nRun it.\n"
    units, _ = build_text_units(_docs(text=text), max_tokens=600)
    assert len(units) == 1 and units[0].heading_path == ["Guide"]
    units, _ = build_text_units(_docs(text=text), max_tokens=8)
    assert [u.heading_path for u in units][-1] == ["Guide", "Usage"]


def test_text_units_are_deterministic():
    a, _ = build_text_units(_docs("nova-support-faq-ko.md"))
    b, _ = build_text_units(_docs("nova-support-faq-ko.md"))
    assert [u.to_dict() for u in a] == [u.to_dict() for u in b]


# -- names, sentences ---------------------------------------------------------------------------------


def test_normalised_names_merge_variants_but_keep_symbols():
    assert normalize_name("USB-C") == normalize_name("usb c") == normalize_name("USB C")
    assert normalize_name("미리내 3호") == normalize_name("미리내3호")
    assert len({normalize_name("C"), normalize_name("C++"), normalize_name("C#")}) == 3
    assert normalize_name("  --  ") == ""
    assert strip_josa("한빛우주과학연구원은") == "한빛우주과학연구원"
    assert strip_josa("HSSI의") == "HSSI" and strip_josa("연구") == "연구"


def test_sentence_split_keeps_abbreviations():
    assert split_sentences("Made by Nova Display Co. Ltd. in Korea. It ships in 2025.") == [
        "Made by Nova Display Co. Ltd. in Korea.",
        "It ships in 2025.",
    ]


def test_english_heuristic():
    names = {n: t for n, t, _strong in capitalised("Yesterday the Python Software Foundation met in Berlin.")}
    assert names.get("Python Software Foundation") == "ORGANIZATION"
    assert "Yesterday" not in names and "Berlin" in names  # single words: weak names, never the sentence start
    names = {n: t for n, t, _strong in capitalised("The Return Center ships replacements.")}
    assert "Return Center" in names and "The Return Center" not in names
    codes = dict(codes_acronyms_camel("The Nova 27QX를 uses DisplayPort, USB-C and NV-32UX panels at 60Hz in 4K."))
    assert codes.get("Nova 27QX") == "PRODUCT" and codes.get("NV-32UX") == "PRODUCT"
    assert "DisplayPort" in codes and "USB-C" in codes
    assert "60Hz" not in codes and "4K" not in codes


def test_mention_matcher_prefers_longest_names_and_respects_case():
    from core.graph.extraction.drafts import EntityDraft

    drafts = {}
    for name in ("Nova", "Nova 32UX", "32UX", "Markdown", "한빛우주과학연구원"):
        d = EntityDraft(normalize_name(name))
        d.add(name, "NAME", "u", strong=True, order=0)
        drafts[d.key] = d
    matcher = MentionMatcher(drafts)
    assert matcher.find("The Nova 32UX is new.") == [normalize_name("Nova 32UX")]
    assert matcher.find("write markdown files") == []  # the common noun is not the name
    assert matcher.find("Markdown is a format") == [normalize_name("Markdown")]
    assert matcher.find("한빛우주과학연구원은 기관입니다") == [normalize_name("한빛우주과학연구원")]


# -- offline extraction on the samples ------------------------------------------------------------------


def test_offline_extraction_korean_sample():
    _units, _infos, extraction, by_title = _extract("hanbit-space-institute-overview-ko.md")
    assert extraction.mode == "offline"
    expect = {
        "한빛우주과학연구원": "ORGANIZATION",
        "서도윤": "PERSON",  # 원장 : 서도윤 and 원장 서도윤 취임
        "한지석": "PERSON",  # 초대 원장 한지석 취임 (Kiwi splits the name; the role rule recovers it)
        "오세린": "PERSON",
        "노르딕 궤도연구소": "ORGANIZATION",
        "은하대학교 천문우주학과": "ORGANIZATION",
        "Hanbit Space Science Institute": "ORGANIZATION",
        "대전광역시 유성구 별빛로": "LOCATION",
    }
    for name, type_ in expect.items():
        assert name in by_title, f"{name} not extracted"
        assert by_title[name].type == type_, (name, by_title[name].type)
    for name in ("고흥 심우주 관제소", "미리내 2호", "미리내 3호", "HSSI"):  # headings, acronyms
        assert name in by_title, f"{name} not extracted"
    # Keys of "key : value" items are fields of their section, not entities (발사일 : 2015년 6월, 원장 : 서도윤).
    for name in ("발사일", "원장", "설립일", "궤도"):
        assert name not in by_title, f"the field label {name} became an entity"
    assert "초대" not in by_title or by_title["초대"].type != "PERSON"


def test_offline_extraction_english_sample():
    _units, _infos, _extraction, by_title = _extract("nova-32ux-monitor-en.md")
    for name in ("Nova 32UX", "NV-32UX"):
        assert by_title[name].type == "PRODUCT"
    for name in ("DisplayPort", "USB-C", "HDMI", "KVM", "Nova Display", "Specifications", "sRGB", "DCI-P3"):
        assert name in by_title, f"{name} not extracted"
    for name in ("Gamut", "White point", "Adjustable", "Panel"):  # table headers and keys: attributes of a row
        assert name not in by_title, f"the table header {name} became an entity"
    assert all(len(t) >= 2 for t in by_title)


def test_offline_graph_relationships_come_with_evidence():
    units, infos, extraction, _ = _extract("nova-32ux-monitor-en.md")
    graph = build_graph(extraction, units, infos)
    assert graph.entities and graph.relationships
    ids = {e.id for e in graph.entities}
    for r in graph.relationships:
        assert r.source_id in ids and r.target_id in ids and r.source_id != r.target_id
        assert r.weight >= 1 and r.description and r.text_unit_ids and r.element_ids
        assert set(r.element_ids) <= set(infos)
    # the pair quoted most often co-occurs in a sentence, and its description quotes it
    top = max(graph.relationships, key=lambda r: r.weight)
    assert graph.relationship_sentences[top.id]
    assert graph.sentences[graph.relationship_sentences[top.id][0]].text[:40] in top.description
    degree = {e.id: 0 for e in graph.entities}
    for r in graph.relationships:
        degree[r.source_id] += 1
        degree[r.target_id] += 1
    assert all(e.degree == degree[e.id] for e in graph.entities)


def test_hostile_names_are_kept_verbatim():
    text = "# <img src=x onerror=alert(1)>\n\nThe **<script>alert(1)</script>** tag and `rm -rf /` are data.\n"
    units, infos = build_text_units(_docs(text=text))
    titles = {d.title for d in OfflineExtractor(english_ner="heuristic").extract(units, infos).entities.values()}
    assert "<img src=x onerror=alert(1)>" in titles
    assert "<script>alert(1)</script>" in titles
    assert "rm -rf /" not in titles  # a code span that holds an expression, not an identifier


# -- LLM extraction parsing (no DB: cache disabled) ----------------------------------------------------


def test_parse_records_skips_malformed_records():
    d = "<|>"
    reply = (
        f'("entity"{d}Orbis Labs{d}organization{d}A lab.)##("relationship"{d}Orbis Labs{d}Lisbon{d}Based there.{d}7)'
        f'##("entity"{d}only two)##garbage##("relationship"{d}A{d}B{d}desc{d}strong)##("unknown"{d}x{d}y{d}z)<|DONE|>'
    )
    parsed = parse_records(reply)
    assert parsed.entities == [("Orbis Labs", "ORGANIZATION", "A lab.")]
    assert parsed.relationships == [("Orbis Labs", "Lisbon", "Based there.", 7.0)]
    assert parsed.skipped == 4
    assert parse_records("").entities == [] and parse_records("no records at all").skipped == 1


def test_llm_extraction_with_gleaning_through_fake_list_model():
    from langchain_core.language_models.fake_chat_models import FakeListChatModel

    d = "<|>"
    text = "# Lab\n\nOrbis Labs is in Lisbon.\n"
    units, infos = build_text_units(_docs(text=text))
    responses = [
        f'("entity"{d}Orbis Labs{d}organization{d}A lab in Lisbon.)<|DONE|>',  # extraction
        f'("entity"{d}Lisbon{d}location{d}A city.)##("relationship"{d}Orbis Labs{d}Lisbon{d}In.{d}6)<|DONE|>',
        "Y",  # more? yes
        "nothing parsable here",  # second gleaning: malformed, skipped
    ]
    model = FakeListChatModel(responses=responses)
    chat = CachedChat(model)  # no pool: no cache
    extraction = LLMExtractor(chat, gleanings=2, concurrency=1).extract(units, infos)
    assert chat.calls == 4
    assert {d.title for d in extraction.entities.values()} == {"Orbis Labs", "Lisbon"}
    (rel,) = extraction.relationships.values()
    assert rel.weight == 6 and rel.descriptions == ["In."]
    assert extraction.skipped_records >= 1
    graph = build_graph(extraction, units, infos)
    (r,) = graph.relationships
    assert r.description == "In." and r.element_ids  # the sentence naming both is the evidence


def test_llm_extraction_stops_gleaning_on_no():
    from langchain_core.language_models.fake_chat_models import FakeListChatModel

    units, infos = build_text_units(_docs(text="# T\n\nSome text about Orbis Labs.\n"))
    model = FakeListChatModel(responses=["<|DONE|>", "<|DONE|>", "N", "should not be asked"])
    chat = CachedChat(model)
    LLMExtractor(chat, gleanings=3, concurrency=1).extract(units, infos)
    assert chat.calls == 3


def test_json_and_citation_parsing():
    assert parse_json_object('Sure!\n```json\n{"a": {"b": "}"}}\n```') == {"a": {"b": "}"}}
    assert parse_json_object("{not json} then {\"ok\": 1}") == {"ok": 1}
    assert parse_json_object("nothing") is None and parse_json_object("[1, 2]") is None
    refs = cited_ids("x [Data: Entities (1, 2, +more); Relationships (7)] y [Data: Reports (e3)]")
    assert refs == {"entities": ["1", "2"], "relationships": ["7"], "sources": [], "reports": ["e3"]}


@pytest.mark.parametrize("bad", ["", "   ", "\n\n"])
def test_empty_documents_make_no_units(bad):
    units, infos = build_text_units(_docs(text=bad))
    assert units == [] and infos == {}


def test_cached_chat_retries_transient_errors_and_classifies_fatal_ones():
    from langchain_core.language_models.fake_chat_models import FakeListChatModel

    from core.graph.llm_cache import LLMCallError
    from core.llm import RetryPolicy

    class Flaky(FakeListChatModel):
        failures: int = 1

        def _call(self, *args, **kwargs):
            if self.failures:
                self.failures -= 1
                raise TimeoutError("slow server")
            return super()._call(*args, **kwargs)

    policy = RetryPolicy(attempts=2, base_delay=0.0, max_delay=0.0)
    chat = CachedChat(Flaky(responses=["ok"]), policy=policy)
    assert chat([("human", "hi")]) == "ok" and chat.calls == 2

    class Broken(FakeListChatModel):
        def _call(self, *args, **kwargs):
            raise ValueError("bad request shape")

    broken = CachedChat(Broken(responses=["never"]), policy=policy)
    with pytest.raises(LLMCallError, match="model call failed"):
        broken([("human", "hi")])
    assert broken.calls == 1  # not retryable: one attempt


def test_spacy_english_ner_when_a_model_is_installed():
    from core.graph.extraction.names_english import english_ner_method

    if english_ner_method() != "spacy":
        pytest.skip("no spaCy English model installed (optional, see DESIGN.md): the heuristic is used instead")
    text = "# People\n\nYesterday the Python Software Foundation met Guido van Rossum in Berlin.\n"
    units, infos = build_text_units(_docs(text=text))
    drafts = OfflineExtractor(english_ner="spacy").extract(units, infos).entities.values()
    types = {d.title: d.type for d in drafts}
    assert types.get("Python Software Foundation") == "ORGANIZATION"
    assert types.get("Guido van Rossum") == "PERSON"
    assert types.get("Berlin") == "LOCATION"


def test_english_ner_spacy_mode_requires_a_model():
    from core.graph.extraction.names_english import english_ner_method

    if english_ner_method() == "spacy":
        pytest.skip("a spaCy model is installed")
    with pytest.raises(ValueError, match="no spaCy English model"):
        OfflineExtractor(english_ner="spacy")


def test_graph_prompt_templates_send_the_same_messages_as_the_wording():
    """The ChatPromptTemplates fill the wording exactly: the cache key hashes these pairs, so it stays the same."""
    from core.graph import prompts as p

    first = p.extraction_messages(["person", "place"], "Ana {not a placeholder} met Bo.")
    assert first == [("system", p.EXTRACTION_SYSTEM), ("human", p.EXTRACTION_PROMPT.format(
        entity_types="person, place", tuple_delimiter=p.TUPLE_DELIMITER, record_delimiter=p.RECORD_DELIMITER,
        completion_delimiter=p.COMPLETION_DELIMITER, input_text="Ana {not a placeholder} met Bo."))]  # fmt: skip
    glean = p.gleaning_messages(first, "reply {1}")
    assert glean == [*first, ("ai", "reply {1}"),
                     ("human", p.GLEANING_PROMPT.format(completion_delimiter=p.COMPLETION_DELIMITER))]
    assert p.gleaning_check_messages(glean, "r2")[-2:] == [("ai", "r2"), ("human", p.GLEANING_CHECK_PROMPT)]
    report = p.report_messages("ctx", 2, 5)
    assert report[0] == ("system", p.REPORT_SYSTEM) and '"title": "a short' in report[1][1]
    assert "between 2 and 5 findings" in report[1][1] and report[1][1].rstrip().endswith("ctx")
    assert p.map_messages("q?", "reports")[1][1].startswith("Below are community reports")
    assert "- Format: markdown." in p.reduce_messages("q?", "points", "markdown")[1][1]
