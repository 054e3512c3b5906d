"""The one Korean/English normaliser: particles cut by part of speech, stop words dropped, bad input survives."""

from __future__ import annotations

import pytest

from core.textnorm import (
    content_words,
    is_function_word,
    match_terms,
    strip_particles,
    term_set,
    terms,
)


@pytest.mark.parametrize(
    ("word", "stem"),
    [
        ("한빛우주과학연구원은", "한빛우주과학연구원"),
        ("HSSI의", "HSSI"),
        ("연구", "연구"),
        ("모니터의", "모니터"),
        ("데이터베이스에서", "데이터베이스"),
        ("무게는", "무게"),
        ("미리내", "미리내"),  # a name the analyser does not know stays whole
        ("은", "은"),  # a bare particle is never emptied
        ("Nova", "Nova"),
        ("", ""),
    ],
)
def test_strip_particles_cuts_trailing_particles_and_keeps_case(word: str, stem: str) -> None:
    assert strip_particles(word) == stem


def test_korean_terms_drop_particles_endings_and_question_words() -> None:
    assert terms("한빛우주과학연구원은 무엇을 개발했나요?") == ["한빛우주과학연구원", "개발"]
    assert terms("Nova 24FL의 무게는 얼마인가요?") == ["nova", "24fl", "무게"]
    assert terms("27QX 모니터의 입력 단자가 몇 개인가요?") == ["27qx", "모니터", "입력", "단자"]
    assert terms("미리내 3호는 발사되었다") == ["미리내", "3호", "발사"]
    assert terms("HSSI의 연구원들이 만든 위성이었다.") == ["hssi", "연구원", "만들", "위성"]
    assert terms("가벼운 노트북은 언제 어디서 얼마나 어떻게") == ["가볍", "노트북"]


def test_english_terms_drop_stop_words_and_keep_dotted_names_whole() -> None:
    assert terms("What is the default of option foo_bar in API x.y?") == ["default", "option", "foo_bar", "api", "x.y"]
    assert terms("USB-C 1.2.4 v16.7.0") == ["usb-c", "1.2.4", "v16.7.0"]
    assert terms("The WEIGHT of the Stand") == ["weight", "stand"]
    assert terms("a b 7") == ["7"]  # single letters go, digits stay


def test_mixed_text_and_repeats() -> None:
    assert terms("Nova 24FL에는 HDMI 단자가 몇 개 있나요? HDMI") == ["nova", "24fl", "hdmi", "단자", "hdmi"]
    assert term_set("Nova 24FL에는 HDMI 단자가 몇 개 있나요? HDMI") == {"nova", "24fl", "hdmi", "단자"}
    assert terms("2.9kg이다") == ["2.9kg"]


def test_match_terms_add_the_nouns_of_korean_compounds() -> None:
    assert match_terms("보증기간은 2년이다") == {"보증기간", "보증", "기간", "2년"}
    # a question spaced differently from the document still shares terms with it
    assert match_terms("한빛 우주과학 연구원") & match_terms("한빛우주과학연구원은") >= {"한빛", "연구원"}


def test_function_words_and_content_words() -> None:
    assert is_function_word("the") and is_function_word("무엇을") and is_function_word("?")
    assert not is_function_word("위성") and not is_function_word("HDMI")
    assert content_words("HSSI의 연구원들이 만든 위성이었다.") == ["HSSI", "연구원", "만든", "위성"]


@pytest.mark.parametrize(
    "text",
    ["", "   ", "\x00\ufffd##!!", "😀😀 ...", "가" * 5000, ("한빛 " * 2000), "\udcff broken surrogate", "𝐀𝐁 ㅋㅋ"],
)
def test_garbage_input_never_raises(text: str) -> None:
    result = terms(text)
    assert isinstance(result, list) and all(isinstance(t, str) and t for t in result)
    assert set(result) <= match_terms(text)


def test_empty_and_symbol_only_input_has_no_terms() -> None:
    assert terms("") == [] and terms("\x00\ufffd##!!") == [] and match_terms("... ?") == frozenset()
