"""Questions that need two facts, ninth round (issue 31): a name the question writes in Latin letters where the
collection writes it in Hangul ("kookmin bank" for 국민은행), and a question asking of what holds the thing a
relative clause describes ("who heads the division of the lab that built …").

Real embedded Postgres, the bundled offline embedder, small synthetic corpora; no word of these tests is in a list
of the code.
"""

from __future__ import annotations

import numpy as np
import pytest

from core.loanwords import romanises
from core.retrieval.lexicon import LexiconConfig, lexicon_for
from core.retrieval.loanword_pairs import CollectionWords, pair_words, with_name_compounds
from core.retrieval.shape import container_noun
from core.statements import Lexicon, terms
from tests.helpers_context import ask

from .test_hlg_multihop3 import _ingest

MARGIN = LexiconConfig().margin
FLOOR = LexiconConfig().pairing_floor


@pytest.mark.parametrize(("latin", "hangul", "expected"), [
    ("kookmin", "국민", True),  # a name's common spelling
    ("gungmin", "국민", True),  # the Revised Romanization, as it is said
    ("nonghyup", "농협", True),
    ("nonghyeop", "농협", True),
    ("woori", "우리", True),
    ("hyundai", "현대", True),
    ("begin", "보관", False),  # one outline (PKN), other vowels: no romanisation
    ("tilt", "틸트", False),  # a loanword is no romanisation: its vowels are English
    ("kookmin", "국민은행", False),  # the whole word, not a part of it
])
def test_a_romanisation_matches_consonants_and_vowels(latin, hangul, expected):
    assert romanises(latin, hangul) is expected


def _embed(vectors):
    return lambda texts: [vectors[t] for t in texts]


def test_a_romanised_name_pairs_though_the_embedder_finds_it_far():
    # the embedder reads "kookmin" as a foreign string: .35 from 국민, under the pairing floor
    words = CollectionWords({}, {"KKMN": (("국민", "국민은행"), ("국민", "국민"))})
    vectors = {"kookmin": np.array([1.0, 0.0]), "국민": np.array([0.35, 0.94])}
    romanised: dict[str, frozenset[str]] = {}
    found = pair_words([("kookmin", False)], words, _embed(vectors), floor=FLOOR, margin=MARGIN,
                       romanised=romanised)
    assert found.pairs == ((frozenset({"kookmin"}), frozenset({"국민"})),)
    assert romanised == {"국민": frozenset({"kookmin"})}


def test_an_english_word_spelled_like_a_korean_one_by_chance_pairs_nothing():
    # "change" spells 장애 (jang-ae, "ch" and "e" as names write them); the embedder finds them .27 apart, farther
    # than a romanised name from its word (.35 for kookmin): under the loanword floor, no pair
    assert romanises("change", "장애")
    words = CollectionWords({}, {"JNK": (("장애", "장애"),)})
    vectors = {"change": np.array([1.0, 0.0]), "장애": np.array([0.27, 0.96])}
    floor = LexiconConfig().loanword_floor
    assert not pair_words([("change", False)], words, _embed(vectors), floor=FLOOR, margin=MARGIN,
                          spelling_floor=floor).pairs
    vectors["장애"] = np.array([0.35, 0.94])
    assert pair_words([("change", False)], words, _embed(vectors), floor=FLOOR, margin=MARGIN,
                      spelling_floor=floor).pairs


def test_a_name_pairs_only_by_its_romanisation():
    # "gukmul" shares 국민's outline (KKMN) and a close vector, but not its vowels: a name pairs by spelling only
    words = CollectionWords({}, {"KKMN": (("국민", "국민"),)})
    vectors = {"kakman": np.array([1.0, 0.0]), "국민": np.array([0.99, 0.1])}
    assert not pair_words([("kakman", False)], words, _embed(vectors), floor=FLOOR, margin=MARGIN,
                          romanised_only=frozenset({"kakman"})).pairs
    assert pair_words([("kakman", False)], words, _embed(vectors), floor=FLOOR, margin=MARGIN).pairs


def test_a_romanised_name_is_spelled_as_its_compound_with_the_kind_asked():
    words = CollectionWords({}, {"KKMN": (("국민", "국민은행"), ("국민", "국민연금"), ("국민", "국민"))})
    lexicon = Lexicon(((frozenset({"kookmin"}), frozenset({"국민"})), (frozenset({"bank"}), frozenset({"은행"}))),
                      ("국민", "은행"))
    spelled = with_name_compounds(lexicon, {"국민": frozenset({"kookmin"})}, words, frozenset({"은행"}))
    assert spelled.pairs[0] == (frozenset({"kookmin"}), frozenset({"국민", "국민은행"}))
    assert spelled.spellings[0] == "국민은행" and spelled.names == {"국민은행"}
    # a name asked without its kind keeps its own spelling
    alone = with_name_compounds(lexicon, {"국민": frozenset({"kookmin"})}, words, frozenset())
    assert alone.spellings[0] == "국민" and alone.names == {"국민"}


HOURS = """# 은행 운영 및 점검시간

가상계좌 입금 가능 여부는 은행 운영시간과 점검 상황에 따라 달라집니다.

## 참고 시간표

| 은행 | 운영시간 | 정기점검 시간 |
|------|----------|---------------|
| 산업은행 | 00:10~23:50 | 홀수달 셋째 주 일요일 00:00~04:00 |
| 국민은행 | 00:10~23:40 | 매월 셋째 주 일요일 00:00~06:00 |
| 농협은행 | 00:30~23:30 | 매월 셋째 주 월요일 00:00~04:00 |
| 우리은행 | 00:15~23:25 | 매월 둘째 주 일요일 02:00~06:00 |
"""

APPS = """# 앱 스킴 목록

결제 앱을 호출할 때 쓰는 스킴입니다.

| App | Scheme |
|-----|--------|
| 토스 | supertoss |
| 페이코 | payco |
"""


def test_an_english_question_finds_the_row_of_the_bank_it_writes_romanised(store):
    _ingest(store, {"hours.md": HOURS, "apps.md": APPS})
    lexicon, _ = lexicon_for(store, "kookmin bank operating hours?")
    assert terms("국민은행") <= lexicon.translate(terms("kookmin bank operating hours?"))
    found, answer = ask(store, "kookmin bank operating hours?")
    assert any("국민은행" in h.element.text for h in found.hits), [h.element.text for h in found.hits]
    assert "00:10~23:40" in answer, answer


@pytest.mark.parametrize(("question", "expected"), [
    ("Who heads the division of the lab that built the Bitsal payload?", "division"),
    ("빛살을 개발한 연구실이 속한 본부의 본부장은?", "본부"),
    ("Who heads the lab that built the Bitsal payload?", None),  # the clause's own thing
    ("what is the default of the option that sets the frontend?", "default"),  # its section may state it
    ("what is the default build frontend?", None),
])
def test_the_noun_a_question_asks_of_the_clauses_thing(question, expected):
    assert container_noun(question) == expected


INSTITUTE = """# 한빛연구원 소개

## 조직

### 우주과학본부

* 본부장 : 문가람

#### 태양권물리연구실

* 실장 : 오세린
* 태양풍과 지구 자기권의 상호작용을 연구합니다.

### 위성기술본부

* 본부장 : 류하진

#### 위성체개발실

* 실장 : 김나온
* 위성 시리즈의 본체 설계와 조립을 담당합니다.

#### 광통신연구실

* 실장 : 백승우
* 레이저 통신 탑재체 '빛살'을 개발했습니다.
"""


def test_the_head_of_the_division_holding_the_described_lab_answers(store):
    _ingest(store, {"institute.md": INSTITUTE})
    found, answer = ask(store, "Who heads the division of the lab that built the laser payload 빛살?")
    assert answer.splitlines()[0] == "본부장: 류하진", answer
    assert any("the question asks the division of" in n for n in found.notes), found.notes
    # the lab itself asked: its own head, the division's is not the answer
    _found, own = ask(store, "Who heads the lab that built the laser payload 빛살?")
    assert "류하진" not in own.splitlines()[0], own


OPTIONS = """# Options

## Build

* Default: `auto`

### build-frontend

Choose which build frontend to use; it sets the frontend of every build.

* Default: `build`
"""


def test_a_noun_the_described_section_states_is_not_asked_of_the_section_above(store):
    _ingest(store, {"options.md": OPTIONS})
    found, answer = ask(store, "what is the default of the option that sets the frontend of every build?")
    assert "auto" not in answer.splitlines()[0] and "build" in answer.splitlines()[0], answer
    assert not any("does not state" in n for n in found.notes), found.notes


ERRORS = """# 오류코드

## 오류코드 목록

| 오류코드 | 재처리 | 오류내용 |
|----------|--------|----------|
| E1 | O | 항목 입력 오류 |
| E2 | X | 중복 요청 오류 |
| E3 | O | 레이아웃 오류 |
| E4 | X | 사업자 미등록 오류 |

## 재처리 안내

> ℹ️ **재처리 가능 오류코드**
>
> 재처리가 'O'로 표시된 오류코드는 자동으로 재처리되는 오류코드입니다.

**재처리 가능 오류코드 (2개):**
E1, E3

**재처리 불가 오류코드 (2개):**
E2, E4
"""

RECEIPT = """# 현금영수증 등록

## 주의사항

- 등록한 현금영수증은 익일(D+1) 00시에 국세청으로 일괄 전송됩니다.
"""


def test_a_part_asking_how_many_reads_the_line_that_counts_them(store):
    _ingest(store, {"errors.md": ERRORS, "receipt.md": RECEIPT})
    found, answer = ask(store, "현금영수증은 국세청에 언제 전송되고, 재처리 되는 오류코드는 몇 개야?")
    assert "재처리 가능 오류코드 (2개)" in answer, answer
    assert any("(2개)" in h.element.text for h in found.hits), [h.element.text for h in found.hits]
