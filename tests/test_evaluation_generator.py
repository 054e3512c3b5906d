"""The question generator on a known document: which facts become which questions, and which are dropped."""

from __future__ import annotations

import json

from core.evaluation.generator import generate_questions, korean_topic_particle

from .helpers_cli import cli

OPTIONS_EN = """\
# Table of Contents

## Usage

* **`marker`**:
    Text to find and replace with the Table of Contents. Defaults to `[TOC]`.
* **`title_class`**:
    CSS class used for the title. Defaults to `toctitle`.
* **`anchorlink`**:
    Set to `True` to link headers to themselves. Defaults to `False`.
* **`separator`**:
    Word separator. Defaults to "`-`".

## Footnote options

| Option | Default | Meaning |
| --- | --- | --- |
| `BACKLINK_TEXT` | `&#8617;` | text of the back link |
"""

OTHER_EN = """\
# Footnotes

## Usage

* **`title_class`**:
    CSS class of the footnote title. Defaults to `fnclass`.
* **`use_definition_order`**: Defaults to `False`.
"""

SPECS_KO = """\
# 노바 Nova 24FL 모니터
## 제품사양
### 크기 & 무게
* 무게(스탠드 포함) : 2.9 kg
* 무게(스탠드 제외) : 2.4 kg
### 보증
* 보증기간 : 2년
* HDR : X

# 서비스센터 안내
## 성수 서비스센터
* 운영시간 : 평일 09:00~19:00
* 센터장 : 김하늘
## 판교 서비스센터
* 운영시간 : 평일 08:30~18:30
"""

SPECS_KO_OTHER = """\
# 노바 Nova 27QX 모니터
## 제품사양
### 크기 & 무게
* 무게(스탠드 포함) : 5.4 kg
### 보증
* 보증기간 : 3년
"""


def corpus(tmp_path):
    root = tmp_path / "docs"
    (root / "ext").mkdir(parents=True, exist_ok=True)
    (root / "ext" / "toc.md").write_text(OPTIONS_EN, encoding="utf-8")
    (root / "ext" / "footnotes.md").write_text(OTHER_EN, encoding="utf-8")
    (root / "nova-24fl-ko.md").write_text(SPECS_KO, encoding="utf-8")
    (root / "nova-27qx-ko.md").write_text(SPECS_KO_OTHER, encoding="utf-8")
    return root


def test_generated_questions_on_a_known_corpus(tmp_path):
    qs = generate_questions([corpus(tmp_path)])
    by_question = {q.question: q for q in qs.questions}

    toc = by_question["What is the default of option `marker` of Table of Contents?"]
    assert toc.answers == ("[TOC]",)
    assert toc.gold_path == ("Table of Contents", "Usage")
    assert toc.document == "ext/toc.md"
    assert "generated" in toc.tags and "default" in toc.tags
    assert toc.gold_element and "[TOC]" in toc.gold_element

    # The same option in two documents: each question names its own document, both are disambiguation.
    ours = by_question["What is the default of option `title_class` of Table of Contents?"]
    theirs = by_question["What is the default of option `title_class` of Footnotes?"]
    assert ours.answers == ("toctitle",) and theirs.answers == ("fnclass",)
    assert "disambiguation" in ours.tags

    # Korean key : value items: "<product>의 <key>는 무엇인가요?" with the right particle.
    weight = by_question["노바 Nova 24FL 모니터의 무게(스탠드 포함)은 무엇인가요?"]
    assert weight.answers == ("2.9 kg",)
    assert weight.gold_path == ("노바 Nova 24FL 모니터", "제품사양", "크기 & 무게")
    assert "korean" in weight.tags and "disambiguation" in weight.tags
    assert by_question["노바 Nova 27QX 모니터의 보증기간은 무엇인가요?"].answers == ("3년",)
    # The same key under several centers of one document: the center's heading tells them apart.
    assert by_question["성수 서비스센터의 운영시간은 무엇인가요?"].answers == ("평일 09:00~19:00",)
    # A key found once needs no more than the top heading; a person is asked for with 누구.
    assert by_question["서비스센터 안내의 센터장은 누구인가요?"].answers == ("김하늘",)

    # Table rows: "In <subject>, what is the <column> of <row>?"
    table = by_question["In Table of Contents, what is the Meaning of BACKLINK_TEXT?"]
    assert table.answers == ("text of the back link",) and "table" in table.tags

    answers = {a for q in qs.questions for a in q.answers}
    assert "X" not in answers  # one-character values mean nothing to a contains-match
    assert "-" not in answers  # nor do values without a letter or digit
    assert len({q.id for q in qs.questions}) == len(qs)  # stable, unique ids
    assert generate_questions([corpus(tmp_path)]).as_dict() == qs.as_dict()  # deterministic


API_REFERENCE = """\
# Client

## new Client(url[, options])

* **headersTimeout** `number | null` (optional) - Default: `300e3` - The time the parser waits. Defaults to 5 minutes.
* **pipelining** `number | null` (optional) - Default: `1` - Concurrent requests.

# Pool

## new Pool(url[, options])

* **headersTimeout** `number | null` (optional) - Default: `30e3` - The time the parser waits.

| Option | Type | Default | Description |
| --- | --- | --- | --- |
| `maxSockets` | number | `#!py3 64` | Most sockets |
| `agent` | Agent | See below | The agent |
"""


def test_default_questions_from_inline_defaults_and_default_columns(tmp_path):
    (tmp_path / "api.md").write_text(API_REFERENCE, encoding="utf-8")
    qs = generate_questions([tmp_path], kinds=("default",), max_answer_elements=10)
    by_question = {q.question: q for q in qs.questions}
    # the same option under two classes, each with its own default: the code span after "Default:" wins
    assert by_question["What is the default of option `headersTimeout` of Client?"].answers == ("300e3",)
    assert by_question["What is the default of option `headersTimeout` of Pool?"].answers == ("30e3",)
    # a "Default" column makes an option question; pymdown's inline-highlight prefix is not part of the value
    assert by_question["What is the default of option `maxSockets` of Pool?"].answers == ("64",)
    assert not any("`agent`" in q for q in by_question)  # "See below" is prose, not a default
    assert {t for q in qs.questions for t in q.tags} >= {"default", "disambiguation"}
    assert all("default" in q.tags for q in qs.questions)  # kinds keeps only defaults
    try:
        generate_questions([tmp_path], kinds=("nonsense",))
    except ValueError as exc:
        assert "kinds" in str(exc)
    else:
        raise AssertionError("unknown kinds must be refused")


def test_common_answers_and_limits(tmp_path):
    root = corpus(tmp_path)
    strict = generate_questions([root], max_answer_elements=1)
    loose = generate_questions([root], max_answer_elements=10)
    assert len(strict) < len(loose)
    # "False" is stated in two elements: too common for a strict set, fine for a loose one.
    assert "False" in {a for q in loose.questions for a in q.answers}
    assert "False" not in {a for q in strict.questions for a in q.answers}
    limited = generate_questions([root], limit=4)
    assert len(limited) == 4
    assert len({q.document for q in limited.questions}) >= 3  # spread over documents, not the first file


def test_korean_particle():
    assert korean_topic_particle("무게") == "는" and korean_topic_particle("보증기간") == "은"
    assert korean_topic_particle("무게(스탠드 포함)") == "은" and korean_topic_particle("HDMI") == "는"


def test_cli_generate_questions(tmp_path):
    root = corpus(tmp_path)
    out = tmp_path / "generated.json"
    proc = cli("generate-questions", str(root), "--out", str(out), "--json")
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    assert summary["out"] == str(out) and summary["questions"] > 5 and summary["tags"]["generated"] > 5
    written = json.loads(out.read_text(encoding="utf-8"))
    assert {"name", "description", "questions"} <= set(written)
    assert set(written["questions"][0]) >= {"id", "question", "answers", "gold_path", "document", "tags"}
    missing = cli("generate-questions", str(tmp_path / "nope"))
    assert missing.returncode == 2 and "no such file" in missing.stderr
