"""A question's loanword meets the collection's own spelling in the other script (issue 29, korean5): "윈도우" where
the collection writes "Windows" in a table cell, "로그 레벨" where it writes ``LOG_LEVEL``, "license" where it writes
"라이선스". Real Postgres, the product's embedder; none of these words is in a list of the code."""

from __future__ import annotations

import numpy as np
import pytest

from core import statements
from core.retrieval.lexicon import LexiconConfig, lexicon_for
from core.retrieval.loanword_pairs import CollectionWords, pair_words
from tests.helpers_context import answer_of, ingested_store

MARGIN = LexiconConfig().margin
FLOOR = LexiconConfig().pairing_floor

GUIDE = """\
    # Moon Relay

    Moon Relay는 메시지를 중계하는 도구입니다.

    ## 설치

    본인 OS 의 설치 파일을 다운로드해 실행하세요.

    | OS | 파일 | 비고 |
    | --- | --- | --- |
    | macOS | relay-macos.command | 첫 실행 시 우클릭 후 열기 |
    | Windows | relay-windows.bat | 경고 시 추가 정보 후 실행 |
    | Linux | relay-linux.sh | 실행 권한을 준 뒤 실행 |

    ## 환경변수 전체 목록

    | 변수 | 기본값 | 설명 |
    | --- | --- | --- |
    | MOON_LOG_DIR | ~/.moon-relay/logs | 파일 로그 경로 |
    | MOON_LOG_LEVEL | WARNING | DEBUG / INFO / WARNING / ERROR |
    | MOON_TIMEOUT | 30 | 요청 제한 시간(초) |

    ## 라이선스

    Apache-2.0 · 누구나 쓸 수 있습니다.
    """


@pytest.fixture(scope="module")
def relay_store(db_url, tmp_path_factory):
    store = ingested_store(db_url, tmp_path_factory.mktemp("relay"), {"relay.md": GUIDE})
    yield store
    store.drop()


def test_a_korean_loanword_reads_the_english_word_the_collection_writes(relay_store):
    lexicon, _ = lexicon_for(relay_store, "윈도우용 설치 파일 이름은?")
    assert statements.terms("Windows") <= statements.question_terms("윈도우용 설치 파일 이름은?", lexicon)
    assert "windows" in lexicon.spellings  # full-text search reads the word as the collection writes it
    lexicon, _ = lexicon_for(relay_store, "moon relay 로그 레벨 기본값 뭐야")
    asked = statements.question_terms("moon relay 로그 레벨 기본값 뭐야", lexicon)
    assert statements.terms("log level") <= asked


def test_an_english_word_reads_the_korean_loanword_the_collection_writes(relay_store):
    lexicon, _ = lexicon_for(relay_store, "moon relay license?")
    assert statements.terms("라이선스") <= statements.question_terms("moon relay license?", lexicon)


def test_the_row_of_the_loanword_answers(relay_store):
    assert "relay-windows.bat" in answer_of(relay_store, "윈도우용 설치 파일 이름은?")
    # the identifier named by its words: LOG_LEVEL, not the LOG_DIR row whose description says 로그
    first = answer_of(relay_store, "moon relay 로그 레벨 기본값 뭐야").splitlines()[0]
    assert first == "MOON_LOG_LEVEL — 기본값: WARNING"


def test_an_outline_shared_by_chance_pairs_nothing():
    # "보관" (keep) and "begin" share the outline PKN; the embedder finds them far apart
    words = CollectionWords({"PKN": ("begin",)}, {})
    vectors = {"보관": np.array([1.0, 0.0]), "begin": np.array([0.2, 0.98])}
    embed = lambda texts: [vectors[t] for t in texts]  # noqa: E731
    assert not pair_words([("보관", True)], words, embed, floor=FLOOR, margin=MARGIN).pairs
    vectors["begin"] = np.array([0.9, 0.43])  # as close as a loanword and its spelling: it pairs
    found = pair_words([("보관", True)], words, embed, floor=FLOOR, margin=MARGIN)
    assert found.pairs == ((frozenset({"보관"}), frozenset({"begin"})),)
