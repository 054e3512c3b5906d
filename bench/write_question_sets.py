#!/usr/bin/env python3
# ruff: noqa: E501  (question text, Korean characters count double)
"""Write the comparative, question-shape and entity-grid question sets (data/comparative, data/shapes,
data/entity_grid), each question with a ``split`` field: ``tune`` or ``held_out``.

The split is fixed by a hash of the question id, so rewriting a set never moves a question between halves.
Mechanisms are tuned on the ``tune`` half only; the ``held_out`` half is reported, never looked at per question.

* comparative: "which is heavier, A or B", "compare X of A and B", superlatives and "list X of every Y", in
  English and Korean. ``table`` maps each entity (a short alias found in its heading) to its value, ``null``
  where the entity does not state it; ``pick`` names the entity a comparison or superlative picks.
* shapes: one-value questions in shapes that push a heading scope astray: a preamble naming the platform or
  the collection ("In the Orbit HTTP client, …"), a call signature (```Pool(options)```), a product's whole
  title, attribute words that are also headings ("stand", "options"). ``gold_path`` and ``gold_element`` give
  strict attribution.
* entity_grid: every Nova monitor asked for every attribute of the spec sheets, including attributes its sheet
  does not state (``answers`` empty, ``not_stated`` true): a wrong-entity answer quotes another product's value.

Run: python bench/write_question_sets.py   (the python-markdown sets need bench/fetch_corpora.py's corpus)
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from core.markdown_loader import MarkdownElementLoader  # noqa: E402

SAMPLES = ROOT / "data" / "samples"
NEAR_TWIN = ROOT / "data" / "near_twin"
PYMD = ROOT / "bench" / "corpora" / "python-markdown"


def split_of(qid: str) -> str:
    return "tune" if hashlib.sha1(qid.encode()).digest()[0] % 2 == 0 else "held_out"


def write(path: Path, name: str, description: str, questions: list[dict]) -> None:
    for q in questions:
        q["split"] = split_of(q["id"])
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"name": name, "description": description, "questions": questions},
                               ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    halves = {s: sum(q["split"] == s for q in questions) for s in ("tune", "held_out")}
    print(f"wrote {path.relative_to(ROOT)}: {len(questions)} questions {halves}")


# -- comparative ---------------------------------------------------------------------------------------------

# (question, {alias: value or None}, pick aliases or None, language)
COMPARATIVE_SAMPLES = [
    ("Nova 24FL과 Nova 27QX 중 스탠드 포함 무게가 더 무거운 것은?", {"24FL": "2.9 kg", "27QX": "5.4 kg"}, ["27QX"], "ko"),
    ("Nova 24FL, Nova 27QX, Nova 34WC 중 스탠드 포함 무게가 가장 가벼운 모니터는?",
     {"24FL": "2.9 kg", "27QX": "5.4 kg", "34WC": "7.6 kg"}, ["24FL"], "ko"),
    ("Nova 27QX와 Nova 34WC의 보증기간 비교", {"27QX": "3년", "34WC": "2년"}, None, "ko"),
    ("Nova 24FL, Nova 27QX, Nova 34WC의 보증기간을 모두 알려 주세요",
     {"24FL": "1년", "27QX": "3년", "34WC": "2년"}, None, "ko"),
    ("Nova 24FL, Nova 27QX, Nova 34WC 중 가장 밝은 모니터는?",
     {"24FL": "250 cd/m²", "27QX": "350 cd/m²", "34WC": "300 cd/m²"}, ["27QX"], "ko"),
    ("Nova 24FL과 Nova 34WC의 최대 소비전력 비교", {"24FL": "22 W", "34WC": "140 W"}, None, "ko"),
    ("Nova 27QX와 Nova 34WC 중 높낮이 조절 범위가 더 큰 모델은?", {"27QX": "130 mm", "34WC": "100 mm"}, ["27QX"], "ko"),
    ("Nova 24FL, Nova 27QX, Nova 34WC의 명암비를 모두 알려 주세요",
     {"24FL": "3,000:1", "27QX": "1,000:1", "34WC": "4,000:1"}, None, "ko"),
    ("Nova 24FL과 Nova 27QX 중 스탠드 제외 무게가 더 가벼운 모델은?", {"24FL": "2.5 kg", "27QX": "3.9 kg"}, ["24FL"], "ko"),
    ("Nova 27QX와 Nova 34WC의 스피커 비교", {"27QX": "2W x 2", "34WC": "3W x 2"}, None, "ko"),
    ("Nova 24FL과 Nova 34WC의 PBP/PIP 지원 비교", {"24FL": None, "34WC": "O"}, None, "ko"),
    ("Nova 27QX와 Nova 34WC 중 화면 크기가 더 큰 모델은?", {"27QX": "68.5 cm", "34WC": "86.4 cm"}, ["34WC"], "ko"),
    ("Which is heavier without the stand, the Nova 24FL or the Nova 32UX?", {"24FL": "2.5 kg", "32UX": "5.6 kg"},
     ["32UX"], "en"),
    ("Which has the longer warranty, the Nova 32UX or the Nova 34WC?", {"32UX": "3 years", "34WC": "2년"}, ["32UX"], "en"),
    ("Compare the typical power consumption of the Nova 32UX and the Nova 27QX.", {"32UX": "38 W", "27QX": "28 W"},
     None, "en"),
    ("Which is brighter, the Nova 32UX or the Nova 27QX?", {"32UX": "400 cd/m²", "27QX": "350 cd/m²"}, ["32UX"], "en"),
    ("Compare the height adjustment of the Nova 32UX and the Nova 27QX.", {"32UX": "150 mm", "27QX": "130 mm"}, None,
     "en"),
    ("Which is lighter with the stand, the Nova 32UX or the Nova 34WC?", {"32UX": "8.2 kg", "34WC": "7.6 kg"}, ["34WC"],
     "en"),
    ("Compare the speakers of the Nova 27QX and the Nova 32UX.", {"27QX": "2W x 2", "32UX": "5 W x 2"}, None, "en"),
    ("Which has the larger screen, the Nova 32UX or the Nova 24FL?", {"32UX": "80 cm", "24FL": "60.5 cm"}, ["32UX"],
     "en"),
    ("Compare the maximum power consumption of the Nova 24FL and the Nova 32UX.", {"24FL": "22 W", "32UX": "180 W"},
     None, "en"),
    ("Compare the LAN port of the Nova 32UX and the Nova 27QX.", {"32UX": "RJ-45, 1 Gbps", "27QX": None}, None, "en"),
]

COMPARATIVE_NEAR_TWIN = [
    ("Which is heavier, the Aster H1 or the Aster H2?", {"H1": "0.8 kg", "H2": "1.1 kg"}, ["H2"], "en"),
    ("Which Aster hub has the longest battery life?",
     {"H1": "12 hours", "H2": "18 hours", "H3": "26 hours", "H4": "40 hours"}, ["H4"], "en"),
    ("Which Aster hub has the shortest wireless range?", {"H1": "30 m", "H2": "55 m", "H3": "80 m", "H4": "120 m"},
     ["H1"], "en"),
    ("Compare the warranty of the Aster H2 and the Aster H3.", {"H2": "2 years", "H3": "3 years"}, None, "en"),
    ("List the maximum sensors of every Aster hub.", {"H1": "16", "H2": "32", "H3": "64", "H4": "128"}, None, "en"),
    ("Which is lighter, the Aster H3 or the Aster H4?", {"H3": "1.6 kg", "H4": "2.3 kg"}, ["H3"], "en"),
    ("Which Aster hub supports the most sensors?", {"H1": "16", "H2": "32", "H3": "64", "H4": "128"}, ["H4"], "en"),
    ("Compare the battery life of the Aster H1 and the Aster H4.", {"H1": "12 hours", "H4": "40 hours"}, None, "en"),
    ("List the weight of every Aster hub.", {"H1": "0.8 kg", "H2": "1.1 kg", "H3": "1.6 kg", "H4": "2.3 kg"}, None, "en"),
    ("Which Aster hub has the longest warranty?", {"H1": "1 year", "H2": "2 years", "H3": "3 years", "H4": "5 years"},
     ["H4"], "en"),
    ("Which has the longer wireless range, the Aster H2 or the Aster H3?", {"H2": "55 m", "H3": "80 m"}, ["H3"], "en"),
    ("해온 미니 K1과 해온 프로 K3 중 더 무거운 것은?", {"K1": "0.9 kg", "K3": "1.6 kg"}, ["K3"], "ko"),
    ("가장 가벼운 해온 전기포트는?", {"K1": "0.9 kg", "K2": "1.2 kg", "K3": "1.6 kg"}, ["K1"], "ko"),
    ("용량이 가장 큰 해온 전기포트는?", {"K1": "0.8 L", "K2": "1.5 L", "K3": "1.8 L"}, ["K3"], "ko"),
    ("해온 스탠다드 K2와 해온 프로 K3의 소비전력 비교", {"K2": "1,500 W", "K3": "2,200 W"}, None, "ko"),
    ("모든 해온 전기포트의 보증기간을 알려 주세요", {"K1": "1년", "K2": "2년", "K3": "3년"}, None, "ko"),
    ("소비전력이 가장 낮은 해온 전기포트는?", {"K1": "1,000 W", "K2": "1,500 W", "K3": "2,200 W"}, ["K1"], "ko"),
    ("해온 미니 K1과 해온 스탠다드 K2의 용량 비교", {"K1": "0.8 L", "K2": "1.5 L"}, None, "ko"),
    ("해온 스탠다드 K2와 해온 프로 K3 중 보증기간이 더 긴 것은?", {"K2": "2년", "K3": "3년"}, ["K3"], "ko"),
    ("Which has the longer default timeout, Class: Pool or Class: Router?", {"Pool": "30s", "Router": "45s"}, ["Router"],
     "en"),
    ("Compare the default `retries` of Connection and Mirror.", {"Connection": "0", "Mirror": "1"}, None, "en"),
    ("Which Orbit class has the largest default `maxBodySize`?",
     {"Connection": "1 MiB", "Pool": "8 MiB", "Router": "16 MiB", "Mirror": "512 KiB"}, ["Router"], "en"),
    ("List the default `encoding` of every Orbit class.",
     {"Connection": "utf8", "Pool": "latin1", "Router": "ascii", "Mirror": "utf16le"}, None, "en"),
    ("Which Orbit class has the shortest default `timeout`?",
     {"Connection": "10s", "Pool": "30s", "Router": "45s", "Mirror": "5s"}, ["Mirror"], "en"),
    ("Compare the default `maxBodySize` of Pool and Mirror.", {"Pool": "8 MiB", "Mirror": "512 KiB"}, None, "en"),
    ("Orbit의 Connection과 Pool 중 기본 `timeout`이 더 긴 클래스는?", {"Connection": "10s", "Pool": "30s"}, ["Pool"], "ko"),
    ("Orbit 클래스 중 기본 `retries`가 가장 많은 것은?",
     {"Connection": "0", "Pool": "2", "Router": "3", "Mirror": "1"}, ["Router"], "ko"),
]

COMPARATIVE_PYMD = [
    ("Compare the default `lang_prefix` of CodeHilite and Fenced Code Blocks.",
     {"CodeHilite": "language-", "Fenced Code Blocks": "language-"}, None, "en"),
    ("Compare the entry points of the Abbreviations and Tables extensions.", {"Abbreviations": "abbr", "Tables": "tables"},
     None, "en"),
    ("What are the dot notation names of the Footnotes and WikiLinks extensions?",
     {"Footnotes": "markdown.extensions.footnotes", "WikiLinks": "markdown.extensions.wikilinks"}, None, "en"),
    ("Compare the entry points of SmartyPants and Table of Contents.", {"SmartyPants": "smarty", "Table of Contents": "toc"},
     None, "en"),
    ("List the entry point of the Admonition, CodeHilite and Meta-Data extensions.",
     {"Admonition": "admonition", "CodeHilite": "codehilite", "Meta-Data": "meta"}, None, "en"),
    ("Compare the entry points of Sane Lists and New Line to Break.", {"Sane Lists": "sane_lists",
                                                                       "New Line to Break": "nl2br"}, None, "en"),
    ("Compare the dot notation of Attribute Lists and Definition Lists.",
     {"Attribute Lists": "markdown.extensions.attr_list", "Definition Lists": "markdown.extensions.def_list"}, None, "en"),
    ("Compare the entry points of Legacy Attributes and Legacy Emphasis.",
     {"Legacy Attributes": "legacy_attrs", "Legacy Emphasis": "legacy_em"}, None, "en"),
    ("CodeHilite와 Fenced Code Blocks의 `lang_prefix` 기본값 비교",
     {"CodeHilite": "language-", "Fenced Code Blocks": "language-"}, None, "ko"),
    ("Abbreviations와 Tables 확장의 Entry Point 비교", {"Abbreviations": "abbr", "Tables": "tables"}, None, "ko"),
    ("Footnotes와 WikiLinks의 Dot Notation을 비교해 주세요",
     {"Footnotes": "markdown.extensions.footnotes", "WikiLinks": "markdown.extensions.wikilinks"}, None, "ko"),
    ("Markdown in HTML과 Fenced Code Blocks의 Entry Point 비교", {"Markdown in HTML": "md_in_html",
                                                              "Fenced Code Blocks": "fenced_code"}, None, "ko"),
]


def comparative(prefix: str, items: list) -> list[dict]:
    out = []
    for i, (question, table, pick, lang) in enumerate(items, 1):
        kind = "list" if pick is None else ("superlative" if len(table) > 2 or "가장" in question
                                            or re.search(r"\b(most|least|longest|shortest|largest|lightest|heaviest)\b",
                                                         question) else "compare")
        out.append({"id": f"{prefix}{i:02d}", "question": question,
                    "answers": sorted({v for v in table.values() if v}), "table": table, "pick": pick or [],
                    "tags": ["comparative", kind, {"en": "english", "ko": "korean"}[lang]]})
    return out


# -- question shapes -----------------------------------------------------------------------------------------

# (question, answers, document, text the gold element starts with, tags)
SHAPES_SAMPLES = [
    ("In the Nova monitor lineup, how much does the Nova 24FL weigh without the stand?", ["2.5 kg"],
     "nova-24fl-monitor-ko.md", "무게(스탠드 제외)", ["preamble", "attribute-heading"]),
    ("Nova 24FL weight without stand", ["2.5 kg"], "nova-24fl-monitor-ko.md", "무게(스탠드 제외)", ["attribute-heading"]),
    ("For Nova Display monitors, what is the maximum refresh rate of the Nova 34WC over HDMI?", ["HDMI 100Hz"],
     "nova-34wc-monitor-ko.md", "최대 주사율", ["preamble"]),
    ("34WC maximum refresh rate over HDMI", ["HDMI 100Hz"], "nova-34wc-monitor-ko.md", "최대 주사율", ["terse"]),
    ("Nova 27QX 스탠드의 높낮이 조절 범위는?", ["130 mm"], "nova-27qx-monitor-ko.md", "높낮이 조절", ["attribute-heading"]),
    ("Regarding the stand, what is the tilt range of the Nova 34WC?", ["-5° ~ 15°"], "nova-34wc-monitor-ko.md", "틸트",
     ["preamble", "attribute-heading"]),
    ("What is the swivel of the Nova 27QX 68.5cm IPS QHD 165Hz 1ms HDR10 gaming monitor?", ["좌우 각 30°"],
     "nova-27qx-monitor-ko.md", "스위블", ["long-title"]),
    ("노바디스플레이 모니터 중에서, Nova 34WC 스탠드의 피벗은?", ["X"], "nova-34wc-monitor-ko.md", "피벗",
     ["preamble", "attribute-heading"]),
    ("In the specifications, what is the wall mount (VESA) of the Nova 24FL?", ["75 x 75 mm"], "nova-24fl-monitor-ko.md",
     "벽걸이(VESA)", ["preamble"]),
    ("Nova 24FL 60.5cm VA FHD 100Hz 슬림 베젤 사무용 모니터의 보증기간은?", ["1년"], "nova-24fl-monitor-ko.md", "보증기간",
     ["long-title"]),
    ("Stand: what is the height adjustment of the Nova 34WC?", ["100 mm"], "nova-34wc-monitor-ko.md", "높낮이 조절",
     ["preamble", "attribute-heading"]),
    ("In the power section, what is the maximum power consumption of the Nova 27QX?", ["45 W"], "nova-27qx-monitor-ko.md",
     "소비전력(최대)", ["preamble", "attribute-heading"]),
    ("Nova 32UX 31.5-inch 4K UHD IPS USB-C Monitor for Creators: what is its weight without stand?", ["5.6 kg"],
     "nova-32ux-monitor-en.md", "Weight without stand", ["long-title", "attribute-heading"]),
    ("Nova 34WC 스탠드 제외 무게", ["5.8 kg"], "nova-34wc-monitor-ko.md", "무게(스탠드 제외)", ["terse", "attribute-heading"]),
    ("노바 모니터 사양 기준으로, Nova 27QX의 응답속도는?", ["1 ms (GtG)"], "nova-27qx-monitor-ko.md", "응답속도", ["preamble"]),
    ("In the Nova 32UX's stand section, how far does it swivel?", ["45° left and right"], "nova-32ux-monitor-en.md",
     "Swivel", ["attribute-heading"]),
]

SHAPES_NEAR_TWIN = [
    ("In the Orbit HTTP client, what is the default value of the `timeout` option of `Pool(options)`?", ["30s"],
     "orbit-client-api.md", "timeout", ["preamble", "signature"]),
    ("For the Orbit API, what does `new Router(options)` use as the default `encoding`?", ["'ascii'"],
     "orbit-client-api.md", "encoding", ["preamble", "signature"]),
    ("In the Orbit client library, what is the default `maxBodySize` option of `Mirror`?", ["512 KiB"],
     "orbit-client-api.md", "maxBodySize", ["preamble", "attribute-heading"]),
    ("Using Orbit, what is the default `retries` of `Connection(options)`?", ["0"], "orbit-client-api.md", "retries",
     ["preamble", "signature"]),
    ("In the Orbit API reference, what is the default `encoding` in the options of Class: Connection?", ["'utf8'"],
     "orbit-client-api.md", "encoding", ["preamble", "attribute-heading"]),
    ("`Mirror(options)` options: what is the default `timeout`?", ["5s"], "orbit-client-api.md", "timeout",
     ["signature", "attribute-heading"]),
    ("In the Aster product sheets, how heavy is the Aster H3?", ["1.6 kg"], "aster-sensor-hubs.md", "Weight",
     ["preamble"]),
    ("For building automation, what is the wireless range in the Aster H4 specifications?", ["120 m"],
     "aster-sensor-hubs.md", "Wireless range", ["preamble", "attribute-heading"]),
    ("Aster H2 specifications: what is the operating temperature?", ["-10 to 45 °C"], "aster-sensor-hubs.md",
     "Operating temperature", ["attribute-heading"]),
    ("Among Aster sensor hubs, how many sensors does the Aster H1 support at most?", ["16"], "aster-sensor-hubs.md",
     "Maximum sensors", ["preamble"]),
    ("해온 전기포트 제품 안내에서, 해온 프로 K3의 용량은?", ["1.8 L"], "haeon-kettles-ko.md", "용량", ["preamble"]),
    ("해온 스탠다드 K2 제품사양의 소비전력은?", ["1,500 W"], "haeon-kettles-ko.md", "소비전력", ["attribute-heading"]),
    ("해온 전기포트 중에서, 해온 미니 K1의 무게는?", ["0.9 kg"], "haeon-kettles-ko.md", "무게", ["preamble"]),
    ("In the Orbit docs, `Pool` options: what is the default `maxBodySize`?", ["8 MiB"], "orbit-client-api.md",
     "maxBodySize", ["preamble", "attribute-heading"]),
]

SHAPES_PYMD = [
    ("In Python-Markdown, what is the default value of the `linenums` option of the CodeHilite extension?", ["None"],
     "extensions/code_hilite.md", "linenums", ["preamble"]),
    ("For the `markdown.extensions.toc` extension, what is the default `marker`?", ["[TOC]"], "extensions/toc.md",
     "marker", ["preamble", "signature"]),
    ("In Python-Markdown's Table of Contents extension, what is the default `baselevel`?", ["1"], "extensions/toc.md",
     "baselevel", ["preamble"]),
    ("Using the WikiLinks extension in Python-Markdown, what is the default `html_class`?", ["wikilink"],
     "extensions/wikilinks.md", "html_class", ["preamble"]),
    ("In the Footnotes extension, what is the default `SEPARATOR` option?", [":"], "extensions/footnotes.md",
     "SEPARATOR", ["preamble"]),
    ("With Python-Markdown's `markdown.markdown(text, extensions=['codehilite'])`, what is the default `css_class`?",
     ["codehilite"], "extensions/code_hilite.md", "css_class", ["signature"]),
    ("In Python-Markdown, what is the default of `use_align_attribute` for the Tables extension?", ["False"],
     "extensions/tables.md", "use_align_attribute", ["preamble"]),
    ("For Python-Markdown's Fenced Code Blocks, what is the default `lang_prefix` option?", ["language-"],
     "extensions/fenced_code_blocks.md", "lang_prefix", ["preamble", "attribute-heading"]),
    ("In Python-Markdown, what is the default `permalink_title` of the toc extension?", ["Permanent link"],
     "extensions/toc.md", "permalink_title", ["preamble"]),
    ("In Python-Markdown, what is the default `anchorlink_class` of `markdown.extensions.toc.TocExtension`?",
     ["toclink"], "extensions/toc.md", "anchorlink_class", ["preamble", "signature"]),
    ("For Python-Markdown's CodeHilite, what is the default `pygments_style`?", ["default"], "extensions/code_hilite.md",
     "pygments_style", ["preamble"]),
    ("In Python-Markdown, what does `guess_lang` default to in CodeHilite?", ["True"], "extensions/code_hilite.md",
     "guess_lang", ["preamble"]),
    ("In the Python-Markdown Footnotes extension, what is the default `UNIQUE_IDS` option?", ["False"],
     "extensions/footnotes.md", "UNIQUE_IDS", ["preamble"]),
    ("Using `markdown.extensions.wikilinks.WikiLinkExtension(**kwargs)`, what is the default `end_url`?", ["/"],
     "extensions/wikilinks.md", "end_url", ["signature"]),
    ("In the Table of Contents extension, what is the default `title_class` option?", ["toctitle"], "extensions/toc.md",
     "title_class", ["preamble", "attribute-heading"]),
    ("For the Footnotes extension of Python-Markdown, what is the default `BACKLINK_TEXT`?", ["&#8617;"],
     "extensions/footnotes.md", "BACKLINK_TEXT", ["preamble"]),
]


def gold_location(corpus: Path, document: str, starts: str, question: str) -> tuple[list[str], str]:
    """The element starting with ``starts`` whose heading path shares most words with the question (the class
    or product it names)."""
    docs = MarkdownElementLoader(str(corpus / document)).load()
    found = [d for d in docs if d.metadata.get("category") != "Title" and d.page_content.lstrip("`*").startswith(starts)]
    if not found:
        raise SystemExit(f"{document}: no element starts with {starts!r}")
    asked = set(re.findall(r"\w+", question.casefold()))
    best = max(found, key=lambda d: len(asked & set(re.findall(r"\w+", " ".join(d.metadata.get("heading_path") or [])
                                                              .casefold()))))
    return list(best.metadata.get("heading_path") or []), best.page_content


def shapes(prefix: str, corpus: Path, items: list) -> list[dict]:
    out = []
    for i, (question, answers, document, starts, tags) in enumerate(items, 1):
        path, element = gold_location(corpus, document, starts, question)
        lang = "korean" if re.search(r"[\uac00-\ud7a3]", question) else "english"
        out.append({"id": f"{prefix}{i:02d}", "question": question, "answers": answers, "gold_path": path,
                    "document": document, "gold_element": element, "tags": ["shape", *tags, lang]})
    return out


# -- every product × every attribute ---------------------------------------------------------------------

PRODUCTS_KO = {"24FL": "nova-24fl-monitor-ko.md", "27QX": "nova-27qx-monitor-ko.md", "34WC": "nova-34wc-monitor-ko.md"}
PRODUCT_EN = ("32UX", "nova-32ux-monitor-en.md")
# English attribute names asked of every product, with the Korean sheets' key for the same field.
ENGLISH_KEYS = {
    "Weight with stand": "무게(스탠드 포함)", "Weight without stand": "무게(스탠드 제외)", "Warranty period": "보증기간",
    "Brightness": "밝기", "Contrast ratio": "명암비", "Response time": "응답속도", "Panel": "패널",
    "Resolution": "해상도", "Tilt": "틸트", "Height adjustment": "높낮이 조절", "Swivel": "스위블", "Pivot": "피벗",
    "Power consumption (Max)": "소비전력(최대)", "Speakers": "스피커", "Color depth": "지원 색 깊이",
    "LAN": None, "USB hub": "USB 허브", "KVM": "KVM", "Manufacturer": "제조사", "Country of origin": "제조국",
}


def spec_items(path: Path) -> dict[str, tuple[str, list[str], str]]:
    """key -> (value, heading path, element text) of a sheet's ``key : value`` items under its spec heading;
    keys stated twice are dropped (the question could not say which)."""
    items: dict[str, tuple[str, list[str], str]] = {}
    seen: dict[str, int] = {}
    for d in MarkdownElementLoader(str(path)).load():
        heading_path = list(d.metadata.get("heading_path") or [])
        if len(heading_path) < 2 or heading_path[1] not in ("제품사양", "Specifications"):
            continue
        m = re.match(r"^([^:\n]{1,40}?)\s*:\s+(\S[^\n]*)$", d.page_content.strip())
        if not m or d.metadata.get("category") == "Title":
            continue
        key, value = m.group(1).strip(), m.group(2).strip()
        seen[key] = seen.get(key, 0) + 1
        items[key] = (value, heading_path, d.page_content)
    return {k: v for k, v in items.items() if seen[k] == 1}


def entity_grid() -> list[dict]:
    sheets = {p: spec_items(SAMPLES / f) for p, f in PRODUCTS_KO.items()}
    english = spec_items(SAMPLES / PRODUCT_EN[1])
    out = []
    korean_keys = sorted({k for items in sheets.values() for k in items} - {"모델명", "품명 및 모델명"})
    for product, filename in PRODUCTS_KO.items():
        for key in korean_keys:
            out.append(_grid_question(f"gk-{product}-{key}", f"Nova {product}의 {key}은(는) 무엇인가요?", product,
                                      filename, sheets[product].get(key), "korean"))
    for name, korean in ENGLISH_KEYS.items():
        for product, filename in [*PRODUCTS_KO.items(), PRODUCT_EN]:
            stated = english.get(name) if product == PRODUCT_EN[0] else sheets[product].get(korean or "")
            out.append(_grid_question(f"ge-{product}-{name}", f"What is the {name.lower()} of the Nova {product}?",
                                      product, filename, stated, "english"))
    return out


def _grid_question(qid: str, question: str, product: str, filename: str,
                   stated: tuple[str, list[str], str] | None, lang: str) -> dict:
    qid = re.sub(r"[^\w-]+", "_", qid)
    if stated is None:
        return {"id": qid, "question": question, "answers": [], "document": filename, "entity": product,
                "not_stated": True, "tags": ["entity-grid", "not-stated", lang]}
    value, path, element = stated
    return {"id": qid, "question": question, "answers": [value], "gold_path": path, "document": filename,
            "gold_element": element, "entity": product, "not_stated": False, "tags": ["entity-grid", lang]}


def main() -> None:
    description = ("Comparative, superlative and list questions; 'table' maps each entity alias to its value "
                   "(null: not stated), 'pick' the entity a comparison or superlative picks. 'split' is tune or "
                   "held_out (fixed by a hash of the id).")
    write(ROOT / "data" / "comparative" / "samples.json", "comparative-samples", description,
          comparative("cs", COMPARATIVE_SAMPLES))
    write(ROOT / "data" / "comparative" / "near_twin.json", "comparative-near-twin", description,
          comparative("cn", COMPARATIVE_NEAR_TWIN))
    shape_description = ("One-value questions in shapes that push a heading scope astray: preambles naming the "
                         "platform, call signatures, whole product titles, attribute words that are also headings. "
                         "'split' is tune or held_out.")
    write(ROOT / "data" / "shapes" / "samples.json", "shapes-samples", shape_description,
          shapes("ss", SAMPLES, SHAPES_SAMPLES))
    write(ROOT / "data" / "shapes" / "near_twin.json", "shapes-near-twin", shape_description,
          shapes("sn", NEAR_TWIN, SHAPES_NEAR_TWIN))
    write(ROOT / "data" / "entity_grid" / "samples.json", "entity-grid",
          "Every Nova monitor asked for every spec-sheet attribute, stated or not ('not_stated': the named "
          "product's sheet lacks it, so any value in the answer is another product's).", entity_grid())
    if PYMD.exists():
        write(ROOT / "data" / "comparative" / "python_markdown.json", "comparative-python-markdown", description,
              comparative("cp", COMPARATIVE_PYMD))
        write(ROOT / "data" / "shapes" / "python_markdown.json", "shapes-python-markdown", shape_description,
              shapes("sp", PYMD, SHAPES_PYMD))
    else:
        print(f"skipped the python-markdown sets: {PYMD} is missing (bench/fetch_corpora.py)")


if __name__ == "__main__":
    main()
