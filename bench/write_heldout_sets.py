#!/usr/bin/env python3
"""The held-out question sets of issues 29 and 31: five public corpora of shapes no mechanism was tuned on.

Each corpus comes from ``bench/fetch_corpora.py`` (pinned, checksummed sdists and npm tarballs):

=============  ================  =====================================================================  ==========
corpus         shape             facts read off                                                         role
=============  ================  =====================================================================  ==========
cibuildwheel   options-tables    option tables (``| Option | Default |``, runner × arch), ``Default:``  tune
npm-cli        cli               ``#### `name` `` › ``* Default: X`` of the config reference            tune
korean-nlp     korean-prose      tables and ``key : value`` items of Korean READMEs                     report
copier         faq-policy        settings' ``- Default value:`` items, the comparison table, the FAQ    report
pdm-changelog  changelog         ``## Release vX (date)`` headings and the ``[#N]`` entries under them   report
korean-pay…    korean-api        a parameter's ``- **설명**:`` items, code tables; Korean and English    tune
hatch-changelog changelog        ``## [X](…) - date`` release headings, the entries under them, and     tune
                                 the configuration reference (``Default:``, option tables)
=============  ================  =====================================================================  ==========

``black-faq`` (issue 29's FAQ/policy tune corpus) is hand-written (``data/heldout/black-faq.json``): its answers
are prose under question headings, which no structure states as a value.

The facts are read from the elements the product's own parser makes (``core.ingest.parse``), so each gold path
is the heading path an element carries. A fact is kept only when it has one right answer: its (subject, key)
occurs once in the corpus and its value is rare in the corpus (as ``core.evaluation.generator`` does). The
question is asked the way people type it, not as the heading reads: lower case, no backticks, short, in one of a
few phrasings picked by a hash of the fact (so reruns write the same set).

Every question carries ``corpus``, ``shape`` and ``split`` (``tune`` for the two tune corpora, ``held_out`` for
the three report corpora), so ``bench/bench_eval.py`` reports each half and a split by corpus is possible.
The multi-fact questions (``data/heldout/multi_fact.json``) are written by hand; this script does not touch them.

Run: .venv/bin/python bench/write_heldout_sets.py [--limit 60]   # → data/heldout/<corpus>.json
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from _common import CORPORA, ROOT, answer_forms

OUT_DIR = ROOT / "data" / "heldout"
DEFAULT_LIMIT = 60
MAX_ANSWER_ELEMENTS = 3  # a value in more elements than this is common: finding it proves nothing


@dataclass(frozen=True)
class Corpus:
    name: str
    shape: str
    split: str  # tune | held_out
    description: str
    by_kind: bool = False  # the round-robin takes each kind in turn: a changelog's two kinds asked beside the reference


CORPORA_SPECS: dict[str, Corpus] = {c.name: c for c in (
    Corpus("cibuildwheel", "options-tables", "tune",
           "cibuildwheel 4.3.5 docs (PyPI sdist): options reference with per-platform tables, FAQ, changelog"),
    Corpus("npm-cli", "cli", "tune", "npm 10.9.2 docs (npm tarball): CLI documentation, config reference"),
    Corpus("korean-nlp", "korean-prose", "held_out",
           "kiwipiepy 0.24.1 and kss 6.0.6 READMEs and documentation (PyPI sdists): Korean prose"),
    Corpus("copier", "faq-policy", "held_out", "copier 9.19.1 docs (PyPI sdist): FAQ, settings, comparison table"),
    Corpus("pdm-changelog", "changelog", "held_out", "pdm 2.29.4 CHANGELOG.md and README.md (PyPI sdist)"),
    Corpus("korean-payments", "korean-api", "tune",
           "hectofinancial-mcp-server 0.5.3 docs (PyPI sdist): Korean payment API reference (parameters as "
           "`### name` over `- **타입**:` items, code tables) and Korean blog posts about it"),
    Corpus("hatch-changelog", "changelog", "tune",
           "hatch 1.13.0 docs (PyPI sdist): the hatch and hatchling changelogs, release posts, configuration reference",
           by_kind=True),
)}


@dataclass(frozen=True)
class HeldFact:
    kind: str  # default | table | key_value | release_date | fixed_in
    key: str
    value: str
    path: tuple[str, ...]
    document: str
    subject: str  # what the question names: an option's page, a table's row, a release
    entity: str = ""
    answers: tuple[str, ...] = ()


_TICKS = re.compile(r"[`*]")
_ATTR = re.compile(r"\{\s*[:.#][^}]*\}")
_DEFAULT_LINE = re.compile(r"^(?:\*\s*)?default(?: value)?\s*:\s*(?P<value>.+)$", re.I)
_HANGUL = re.compile(r"[\uac00-\ud7a3]")
_DEFAULT_KEY = re.compile(r"^default(?: value)?$", re.I)
# the key : value items that state an option's attribute (npm's "Type", copier's "Format" and "CLI flags")
_FIELD_KEYS = frozenset({"type", "format", "cli flags"})


def plain(text: str) -> str:
    """A heading or cell as typed: no markup, no attribute list, single spaces."""
    return " ".join(_ATTR.sub("", _TICKS.sub("", text)).split()).strip()


def _elements(path: Path, document: str) -> list:
    from core.elements import Element
    from core.ingest import decode_text, parse

    text, _ = decode_text(path.read_bytes())
    return [Element.from_document(d) for d in parse(text, source=document, document_id=document)]


def _path(element) -> tuple[str, ...]:
    return tuple(p for p in element.heading_path if p.strip())


def default_facts(elements: Sequence, document: str, subject: Callable[[tuple[str, ...]], str]) -> list[HeldFact]:
    """``Default: X`` / ``Default value: X`` written on its own under an option's heading."""
    out = []
    for element in elements:
        match = _DEFAULT_LINE.match(" ".join(element.text.split()))
        path = _path(element)
        if not match or not path or element.category not in ("NarrativeText", "ListItem"):
            continue
        spans = [str(s) for s in (element.get("code_spans") or []) if s]
        raw = match.group("value").strip()
        value = next((s for s in spans if raw.strip("'\"").startswith(s)), None) or re.split(r"[,;(]| for ", raw)[0]
        value = value.strip().rstrip(".").strip()
        if not value or len(value) > 40:
            continue
        out.append(HeldFact("default", plain(path[-1]), value, path, document, subject(path)))
    return out


def table_facts(elements: Sequence, document: str, subject: Callable[[tuple[str, ...]], str]) -> list[HeldFact]:
    """Table rows through the product's fact reader (``core.evaluation.generator.extract_facts``)."""
    from core.evaluation.generator import extract_facts

    out = []
    for fact in extract_facts(elements, document):
        if fact.kind == "table":
            out.append(HeldFact("table", plain(fact.key), fact.value, fact.path, document, subject(fact.path),
                                entity=plain(fact.entity or "")))
        elif fact.kind == "default":
            out.append(HeldFact("default", plain(fact.key), fact.value, fact.path, document, subject(fact.path)))
        elif fact.kind == "key_value" and not fact.code_key and fact.path:
            key = plain(fact.key)
            if _DEFAULT_KEY.match(key):  # "- Default value: X" under an option's heading: that option's default
                out.append(HeldFact("default", plain(fact.path[-1]), fact.value, fact.path, document,
                                    subject(fact.path)))
            elif key.casefold() in _FIELD_KEYS or _HANGUL.search(key):
                out.append(HeldFact("key_value", key, fact.value, fact.path, document, subject(fact.path)))
    return [f for f in out if _short_value(f.value) and "<" not in f.entity]


def _short_value(value: str) -> bool:
    """A value someone asks for: a few words, no markup left over from HTML cells."""
    if not re.match(r"[\w\"'.~/\[{%-]", value):
        return False  # "(default): Updates …" read as "): Updates …": a sentence around the word, not a value
    return len(value.split()) <= 8 and not re.search(r"<|>|\||\[\^", value) and len(value) <= 60


_RELEASE = re.compile(r"^Release v(?P<version>\d+\.\d+\.\d+)\s*\((?P<date>\d{4}-\d{2}-\d{2})\)$")
_ISSUE = re.compile(r"#(\d{2,5})\b")


def changelog_facts(elements: Sequence, document: str) -> list[HeldFact]:
    """A release's date (its heading), and the release whose entry cites an issue number."""
    out = []
    for element in elements:
        path = _path(element)
        if element.category == "Title" and (release := _RELEASE.match(element.text.strip())):
            version, date = release.group("version"), release.group("date")
            out.append(HeldFact("release_date", "release date", date, (*path, element.text.strip()), document,
                                version))
            continue
        release = next((_RELEASE.match(p) for p in path if _RELEASE.match(p)), None)
        if release is None or element.category != "ListItem":
            continue
        for number in _ISSUE.findall(element.text):
            version = release.group("version")
            # the answer is in the release's heading: the gold path ends there, the entry is one level below
            release_path = path[: path.index(release.string) + 1]
            out.append(HeldFact("fixed_in", number, version, release_path, document, plain(path[-1]),
                                answers=(f"v{version}", version)))
    return out


# "1.12.0 - 2024-05-28" (a Keep-a-Changelog heading once its link and attribute list are read off)
_KEEP_RELEASE = re.compile(r"^v?(?P<version>\d+\.\d+\.\d+)\s+-\s+(?P<date>\d{4}-\d{2}-\d{2})$")


def release_date_fact(element, path: tuple[str, ...], release: re.Pattern, document: str,
                      product: str) -> HeldFact | None:
    """The date a release heading gives (``release``: a pattern with ``version`` and ``date`` groups), or None."""
    found = release.match(element.text.strip()) if element.category == "Title" else None
    if found is None:
        return None
    return HeldFact("release_date", "release date", found.group("date"), (*path, element.text.strip()), document,
                    found.group("version"), entity=product)


def keep_a_changelog_facts(elements: Sequence, document: str, product: str) -> list[HeldFact]:
    """A release's date (its heading), and the release an entry of a few words belongs to ("Upgrade PyApp to
    0.22.0 for binary builds" → 1.12.0): what people ask a changelog."""
    out = []
    for element in elements:
        path = _path(element)
        if (dated := release_date_fact(element, path, _KEEP_RELEASE, document, product)) is not None:
            out.append(dated)
            continue
        heading = next((p for p in path if _KEEP_RELEASE.match(p)), None)
        words = plain(element.text).split()
        if heading is None or element.category != "ListItem" or not 4 <= len(words) <= 14:
            continue
        version = _KEEP_RELEASE.match(heading).group("version")
        out.append(HeldFact("changed_in", product, version, path[: path.index(heading) + 1], document,
                            plain(element.text).rstrip("."), entity=product))
    return out


def gold_forms(value: str) -> list[str]:
    """The value as written, and without its quotes when one quoted string is all it is."""
    inner = value[1:-1]
    quoted = len(value) > 2 and value[0] == value[-1] and value[0] in "'\"" and value[0] not in inner
    return answer_forms(value) if quoted else [value]


_TAG = re.compile(r"[A-Z][A-Z_\-]*")
_HTML_ROW = re.compile(r"<td>\s*([A-Z][A-Z_\-]*)\s*</td>\s*<td>\s*([^<]{2,40}?)\s*</td>")
_VERSION_DATE = re.compile(r"^(?P<version>\d+\.\d+\.\d+)\s*\((?P<date>\d{4}-\d{2}-\d{2})\)$")


def korean_facts(elements: Sequence, document: str) -> list[HeldFact]:
    """The rows of an HTML tag table (``<td>NNB</td><td>의존 명사</td>``) and the dates of a version history
    (``* 0.23.2 (2026-06-12)``)."""
    out = []
    for element in elements:
        path = _path(element)
        if "<table" in element.text:  # a parser that keeps a table whole
            for tag, description in _HTML_ROW.findall(element.text):
                out.append(HeldFact("tag", "설명", description.strip(), path, document, plain(path[-1]), entity=tag))
        elif element.category == "TableRow":  # one row, its cells named by their header: "태그: NNG · 설명: …"
            cells = dict(cell.split(": ", 1) for cell in element.text.split(" · ") if ": " in cell)
            tag, description = cells.get("태그", ""), cells.get("설명", "")
            if _TAG.fullmatch(tag) and 2 <= len(description) <= 40:
                out.append(HeldFact("tag", "설명", description.strip(), path, document, plain(path[-1]), entity=tag))
        elif element.category == "ListItem" and (release := _VERSION_DATE.match(element.text.strip())):
            out.append(HeldFact("version_date", "날짜", release.group("date"), path, document,
                                release.group("version")))
    return out


# The items a parameter's heading carries that someone asks about ("- **설명**: 주문번호", "- **타입**: AN(50)").
_PARAMETER_KEYS = frozenset({"설명", "타입", "참고"})
_ROW_NUMBER = re.compile(r"\d{1,2}")


def korean_api_facts(elements: Sequence, document: str) -> list[HeldFact]:
    """A Korean API reference: each parameter's items under its heading (``### transNo`` › ``- **설명**: …``),
    and the rows of its code tables (``| TS5 | X | 승인번호 + 거래일자 중복 오류 |``), each asked of the page's
    title (the API or the code list), as people name it."""
    from core.evaluation.generator import extract_facts

    out = []
    product = _KOREAN_AREAS.get(_area(document), "")
    for fact in extract_facts(elements, document):
        path = tuple(plain(p) for p in fact.path)
        if not path:
            continue
        # a page title many products share ("연동 준비하기", getting started) is asked with its product's name
        subject = path[0] if not product or product in path[0] else f"{product} {path[0]}"
        if fact.kind == "key_value" and fact.key in _PARAMETER_KEYS and len(path) >= 2:
            out.append(HeldFact("parameter", fact.key, fact.value, fact.path, document, subject, entity=path[-1]))
        elif fact.kind == "table" and fact.entity:
            entity, value = plain(fact.entity), plain(fact.value)
            # a layout table's row numbers ("4", "12") name no row; a cell holding another code (a "코드" column
            # of a two-pairs-per-row table) answers nothing
            if (_ROW_NUMBER.fullmatch(entity) or plain(fact.key) == "코드"
                    or not re.search(r"[\uac00-\ud7a3A-Za-z]", value)):
                continue
            out.append(HeldFact("table", plain(fact.key), fact.value, fact.path, document, subject, entity=entity))
    return [f for f in out if _short_value(f.value)]


# How an English question names a Korean field and a page's product (korean-payments: the English questions).
_ENGLISH_KEYS = {"설명": "description", "타입": "type", "참고": "note", "오류내용": "error", "의미": "meaning",
                 "내용": "description", "메시지": "message", "금융기관명": "bank", "은행명": "bank",
                 "운영시간": "hours", "정기 점검": "scheduled maintenance", "형식": "format"}
_ENGLISH_AREAS = {"cash-receipt": "cash receipt", "ezauth": "ezauth", "vavs": "virtual account",
                  "whitelabel": "white label"}
_KOREAN_AREAS = {"cash-receipt": "현금영수증", "ezauth": "내통장결제", "vavs": "가상계좌", "whitelabel": "화이트라벨"}


_SHARED_IN_AREA: Counter = Counter()  # (product, row or parameter, key) → facts (corpus_facts counts them)


def _area(document: str) -> str:
    parts = document.split("/")
    return parts[1] if parts[0] == "api" and len(parts) > 1 else parts[0]


def _english_area(document: str) -> str:
    return _ENGLISH_AREAS.get(_area(document), "hecto")


# Written by hand (korean-payments): a count and a list after a lead-in sentence, a comparison table's cell, a
# parameter its blog posts also mention, and English questions over the Korean pages. Each is (question, answers,
# document, a text the gold element holds): the gold path is that element's.
HAND_QUESTIONS: dict[str, tuple[tuple[str, tuple[str, ...], str, str], ...]] = {"korean-payments": (
    ("현금영수증 자동재처리 되는 오류코드 몇 개야?", ("8개",), "api/cash-receipt/reference/01-error-codes.md",
     "자동재처리 가능 오류코드 (8개)"),
    ("how many cash receipt error codes get reprocessed automatically?", ("8개", "8"),
     "api/cash-receipt/reference/01-error-codes.md", "자동재처리 가능 오류코드 (8개)"),
    ("간편현금결제는 결제 방식이 뭐야? pg랑 비교하면", ("계좌 기반 결제",), "blog/23-easy-cash-comparison.md",
     "계좌 기반 결제"),
    ("간편현금결제 정기 결제 관련 api 뭐가 있어?", ("정기결제 승인",), "blog/21-easy-cash-intro.md", "정기결제 승인"),
    ("현금영수증 등록 api svcAmt 파라미터가 뭐야?", ("봉사료",), "api/cash-receipt/register/01-register.md",
     "**설명**: 봉사료"),
    ("test url for the cash receipt status inquiry api?",
     ("https://tcash.settlebank.co.kr/pgtrans/CashReceiptMultiAction.do?_method=getReceiptStatus",),
     "api/cash-receipt/inquiry/02-status.md", "테스트 URL"),
    ("가상계좌 국민은행 운영시간 알려줘", ("00:10~23:40",), "api/vavs/reference/04-bank-hours.md", "00:10~23:40"),
    ("virtual account: when is woori bank's regular maintenance?", ("매월 둘째 주 일요일 02:00~06:00",),
     "api/vavs/reference/04-bank-hours.md", "| 우리은행 |"),
    ("현금영수증은 국세청에 언제 전송돼?", ("D+1",), "api/cash-receipt/register/01-register.md", "익일(D+1) 00시에"),
    ("what does cash receipt error TSJ mean?", ("취소거래 중복",), "api/cash-receipt/reference/01-error-codes.md",
     "| TSJ |"),
)}


def hand_questions(corpus: str, folder: Path) -> list[dict]:
    """The corpus's hand-written questions, each gold path the heading path of the element holding its text."""
    spec = CORPORA_SPECS[corpus]
    out = []
    for question, answers, document, anchor in HAND_QUESTIONS.get(corpus, ()):
        wanted = plain(anchor).strip("| ")
        element = next(e for e in _elements(folder / document, document)
                       if e.category not in ("Table", "Title") and wanted in plain(e.text))
        qid = "kor-hand-" + hashlib.sha1(question.encode()).hexdigest()[:8]
        out.append({"id": qid, "question": question, "answers": list(answers), "gold_path": list(_path(element)),
                    "document": document, "tags": ["heldout", spec.shape, "hand"], "corpus": corpus,
                    "shape": spec.shape, "split": spec.split})
    return out


def _id(corpus: str, fact: HeldFact) -> str:
    entry = [fact.subject] if fact.kind == "changed_in" else []  # the entries of one release share the rest
    digest = hashlib.sha1("\x1f".join([corpus, fact.document, *fact.path, fact.kind, fact.entity, fact.key,
                                       fact.value, *entry]).encode()).hexdigest()[:10]
    return f"{corpus[:3]}-{digest}"


def _pick(options: Sequence[str], seed: str) -> str:
    return options[int(hashlib.sha1(seed.encode()).hexdigest(), 16) % len(options)]


def _topic(word: str) -> str:
    from core.evaluation.generator import korean_topic_particle

    return word + korean_topic_particle(word)


def ask(corpus: str, fact: HeldFact, qid: str) -> str:
    """The question as a person types it (one of a few phrasings, fixed per fact)."""
    s, k, e = fact.subject, fact.key, fact.entity
    package = fact.document.split("/", 1)[0]
    if fact.kind == "tag":
        return _pick([f"{package} 품사 태그 {_topic(e)} 뭐야?", f"{e} 태그가 뜻하는 품사는?",
                      f"{package}에서 {_topic(e)} 무슨 품사인가요?"], qid)
    if fact.kind == "version_date":
        return _pick([f"{package} {_topic(s)} 언제 나왔어요?", f"{package} {s} 릴리스 날짜", f"{s} 버전 출시일은?"],
                     qid)
    if fact.kind == "release_date" and fact.entity:  # a product named per changelog (hatch, hatchling)
        return _pick([f"when was {e} {s} released?", f"{e} {s} release date", f"what day did {e} {s} come out"], qid)
    if fact.kind == "release_date":
        return _pick([f"when was pdm {s} released?", f"pdm {s} release date", f"what day did pdm {s} come out"], qid)
    if fact.kind == "changed_in":
        change = s[0].lower() + s[1:]
        return _pick([f"which {e} version: {change}?", f"in what {e} release did this land: {change}",
                      f"{e} changelog - when was \"{change}\""], qid)
    if corpus == "korean-payments":
        english = _ENGLISH_KEYS.get(k)
        # asked in English only where the product, the row or parameter and the key name one fact: an English
        # question does not repeat the Korean page title that tells two pages apart
        one_fact = _SHARED_IN_AREA.get((_area(fact.document), e, k), 0) == 1
        if english and one_fact and int(hashlib.sha1(f"en{qid}".encode()).hexdigest(), 16) % 2 == 0:
            area = _english_area(fact.document)
            if fact.kind == "parameter":
                return _pick([f"{e} {english} in the {area} api?", f"what's the {english} of {e} ({area})",
                              f"hecto {area} {e} param - {english}?"], qid)
            return _pick([f"{area} {e} {english}?", f"what's the {english} for {e} in hecto {area} docs"], qid)
        if fact.kind == "parameter":
            return _pick([f"{s} {e} {_topic(k)} 뭔가요?", f"{s}에서 {e} 파라미터 {k} 알려줘",
                          f"{e} {k}? ({s})"], qid)
        return _pick([f"{s}에서 {e}의 {k} 알려줘", f"{s} {e} {_topic(k)} 뭐예요?", f"{e} {k}? ({s})"], qid)
    if fact.kind == "fixed_in":
        return _pick([f"which pdm release has the change for issue #{k}?", f"pdm #{k} - in what version?",
                      f"what version of pdm included #{k}"], qid)
    if _HANGUL.search(f"{s}{k}{e}"):
        if fact.kind == "table":
            return _pick([f"{s}에서 {e}의 {k} 알려줘", f"{e} {k}{'' if k.endswith('?') else ''} 뭐예요? ({s})",
                          f"{s} 표에서 {e}{'의'} {_topic(k)} 어떻게 되나요?"], qid)
        return _pick([f"{s} {_topic(k)} 뭔가요?", f"{s}에서 {_topic(k)} 어떻게 되나요?"], qid)
    tools = {"cibuildwheel": "cibuildwheel", "npm-cli": "npm", "copier": "copier", "hatch-changelog": "hatch"}
    tool = tools.get(corpus) or fact.document.split("/", 1)[0]
    if fact.kind == "default":
        named = k if plain(s) == k else f"{s} {k}"  # an item under an option names its option too
        return _pick([f"{tool} {named} default?", f"what's the default {named} in {tool}",
                      f"if I don't set {named}, what does {tool} use?", f"default value for {tool} {named}"], qid)
    if fact.kind == "table":
        return _pick([f"{tool} {s} {k} on {e}?", f"what's the {k} for {e} in the {s} table ({tool})",
                      f"{e} - {k}? ({tool} {s})"], qid)
    return _pick([f"{tool} {s} {k.lower()}?", f"what's the {k.lower()} of {s} in {tool}",
                  f"{k.lower()} for {tool} {s}"], qid)


def _subject_last(path: tuple[str, ...]) -> str:
    return plain(path[-1]) if path else ""


def corpus_elements(folder: Path) -> Iterator[tuple[str, list]]:
    """Each markdown document under ``folder`` (its path relative to it) with its elements, in path order."""
    for path in sorted(folder.rglob("*.md")):
        document = path.relative_to(folder).as_posix()
        yield document, _elements(path, document)


def corpus_facts(corpus: str, folder: Path) -> tuple[list[HeldFact], list[str]]:
    """The corpus's facts, and every element's text (to judge how common a value is)."""
    facts: list[HeldFact] = []
    texts: list[str] = []
    for document, elements in corpus_elements(folder):
        texts.extend(e.text for e in elements)
        if corpus == "pdm-changelog":
            facts.extend(changelog_facts(elements, document))
            continue
        if corpus == "hatch-changelog" and document.startswith("history/"):
            facts.extend(keep_a_changelog_facts(elements, document, PurePosixPath(document).stem))
            continue
        if corpus == "hatch-changelog" and document.startswith("blog/"):
            continue  # release posts retell the changelog: its entries are asked, the posts compete
        if corpus == "korean-nlp":
            facts.extend(korean_facts(elements, document))
        if corpus == "korean-payments":
            found = korean_api_facts(elements, document)
            facts.extend(found)
            for fact in found:
                _SHARED_IN_AREA[(_area(document), fact.entity, fact.key)] += 1
            continue
        if corpus == "npm-cli" and document != "content/using-npm/config.md":
            continue  # the command pages repeat config.md's options under headings that do not name the command
        if document.endswith("changelog.md"):
            continue  # a changelog's lines mention options; the corpora's own reference defines them
        facts.extend(default_facts(elements, document, _subject_last))
        facts.extend(table_facts(elements, document, _subject_last))
    return list(dict.fromkeys(facts)), texts  # two readers of one item give one fact


def unambiguous(facts: Sequence[HeldFact], texts: Sequence[str]) -> list[HeldFact]:
    """Facts with one right answer: their (kind, subject, entity, key) once in the corpus, their value rare."""
    from core.evaluation.metrics import normalise

    values: dict[tuple[str, ...], set[str]] = defaultdict(set)

    def key_of(f: HeldFact) -> tuple[str, ...]:  # a tag or an issue number is its whole subject
        return (f.kind, "" if f.kind in ("tag", "fixed_in") else normalise(f.subject), normalise(f.entity),
                normalise(f.key))

    for f in facts:
        values[key_of(f)].add(normalise(f.value))
    first: set[tuple[str, ...]] = set()
    normalised = [normalise(t) for t in texts]
    seen: dict[str, int] = {}
    out = []
    for fact in facts:
        value = normalise(fact.value)
        key = key_of(fact)
        if len(values[key]) != 1 or key in first:
            continue  # two answers; or the same fact again (README and docs state it both): asked once
        first.add(key)
        if len(value) < 2 or not any(c.isalnum() for c in value) or not fact.subject:
            continue
        if fact.kind not in ("fixed_in", "version_date", "changed_in"):
            if value not in seen:
                seen[value] = sum(1 for t in normalised if value in t)
            if seen[value] > MAX_ANSWER_ELEMENTS:
                continue
        out.append(fact)
    return out


def question_set(corpus: str, facts: Sequence[HeldFact], limit: int) -> dict:
    spec = CORPORA_SPECS[corpus]
    by_document: dict[str, list[HeldFact]] = defaultdict(list)
    for fact in sorted(facts, key=lambda f: _id(corpus, f)):
        by_document[fact.document].append(fact)
    picked: list[HeldFact] = []
    queues = [by_document[d] for d in sorted(by_document)]
    if spec.by_kind:  # each kind in turn, its facts spread over the documents
        spread = [f for i in range(max(map(len, queues), default=0)) for q in queues if i < len(q) for f in [q[i]]]
        queues = [[f for f in spread if f.kind == kind] for kind in sorted({f.kind for f in spread})]
    while len(picked) < limit and any(queues):  # round-robin over documents: the whole corpus, not its first file
        for queue in queues:
            if queue and len(picked) < limit:
                picked.append(queue.pop(0))
    questions = []
    for fact in picked:
        qid = _id(corpus, fact)
        question = ask(corpus, fact, qid)
        answers = list(fact.answers) or gold_forms(fact.value)
        from core.evaluation.metrics import normalise

        if any(normalise(a) in normalise(question) for a in answers):
            continue  # the question gives the answer away
        questions.append({
            "id": qid, "question": question, "answers": answers, "gold_path": list(fact.path),
            "document": fact.document, "tags": ["heldout", spec.shape, fact.kind.replace("_", "-")],
            "corpus": corpus, "shape": spec.shape, "split": spec.split,
        })
    return {"name": f"heldout-{corpus}", "description": f"{spec.description}; shape {spec.shape}, split "
            f"{spec.split}; generated by bench/write_heldout_sets.py", "questions": questions}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", action="append", choices=sorted(CORPORA_SPECS),
                        help="corpus to write (default: all)")
    parser.add_argument("--limit", type=int, default=DEFAULT_LIMIT, help="questions per corpus")
    parser.add_argument("--out", type=Path, default=OUT_DIR)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    for corpus in args.corpus or list(CORPORA_SPECS):
        folder = CORPORA / corpus
        if not any(folder.rglob("*.md")):
            parser.error(f"no markdown in {folder}; run bench/fetch_corpora.py --corpus {corpus} first")
        facts, texts = corpus_facts(corpus, folder)
        kept = unambiguous(facts, texts)
        data = question_set(corpus, kept, args.limit)
        data["questions"] += hand_questions(corpus, folder)
        path = args.out / f"{corpus}.json"
        path.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {path}: {len(data['questions'])} questions of {len(kept)} unambiguous facts "
              f"({len(facts)} found; {dict(Counter(f.kind for f in kept))})")


if __name__ == "__main__":
    main()
