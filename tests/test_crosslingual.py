"""English questions over Korean sheets and Korean over English (issue 29, items 2 and 5): the collection's own
field words paired across scripts by the multilingual embedder (core.retrieval.lexicon), no word list. Real
Postgres, the product's embedder; the fields asked here are in no list of the code."""

from __future__ import annotations

import textwrap

import pytest

from core import statements
from core.retrieval import RetrievalRequest, retrieve
from core.retrieval.heading_cache import held_version
from core.retrieval.lexicon import EMPTY, LexiconConfig, field_texts, lexicon_for, stored_lexicon
from core.store.field_pairs import FieldPairTables
from tests.helpers_context import answer_of, ingested_store

KOREAN_SHEET = """\
    # Sora Tote 상품 정보
    ## 상품 사양
    * 소재 : 면 캔버스 100%
    * 원산지 : 베트남
    * 배송비 : 3,000원
    * 색상 : 아이보리
    ## 구매 안내
    * 교환 기간 : 수령 후 7일
    """

ENGLISH_SHEET = """\
    # Kite Lamp product details
    ## Specifications
    * Material : brushed aluminium
    * Country of origin : Portugal
    * Shipping fee : 5 dollars
    * Colour : graphite
    ## Buying
    * Exchange period : 14 days after delivery
    """

ENGLISH_GUIDE = """\
    # Lantern setup guide
    ## Mounting
    * Screw size : M4
    * Cable length : 2 m
    """


def _collection(db_url, tmp_path_factory, name: str, text: str, *more: str):
    files = {f"{name}-{i}.md": body for i, body in enumerate((text, *more))}
    return ingested_store(db_url, tmp_path_factory.mktemp(name), files)


@pytest.fixture(scope="module")
def korean_store(db_url, tmp_path_factory):
    store = _collection(db_url, tmp_path_factory, "sora", KOREAN_SHEET)
    yield store
    store.drop()


@pytest.fixture(scope="module")
def english_store(db_url, tmp_path_factory):
    store = _collection(db_url, tmp_path_factory, "kite", ENGLISH_SHEET)
    yield store
    store.drop()


def test_no_word_list_names_the_fields_asked():
    listed = {w for row in (*statements.ASKED_AS, *statements.GENERAL) for side in row for w in side.split()}
    assert not {"배송비", "소재", "원산지", "shipping", "material", "origin"} & listed
    assert not hasattr(statements, "BILINGUAL")


@pytest.mark.parametrize(("question", "value"), [
    ("What is the shipping fee of the Sora Tote?", "3,000원"),
    ("What material is the Sora Tote?", "면 캔버스"),
    ("What is the country of origin of the Sora Tote?", "베트남"),
])
def test_an_english_question_over_a_korean_sheet_quotes_the_right_row(korean_store, question, value):
    assert value in answer_of(korean_store, question)


@pytest.mark.parametrize(("question", "value"), [
    ("Kite Lamp의 배송비는 얼마인가요?", "5 dollars"),
    ("Kite Lamp의 소재는?", "brushed aluminium"),
    ("Kite Lamp의 원산지는 어디인가요?", "Portugal"),
])
def test_a_korean_question_over_an_english_sheet_quotes_the_right_row(english_store, question, value):
    assert value in answer_of(english_store, question)


def test_a_question_reads_the_field_names_of_the_other_script_and_never_its_names(korean_store):
    lexicon, _ = lexicon_for(korean_store, "What is the shipping fee of the Sora Tote?")
    asked = statements.question_terms("What is the shipping fee of the Sora Tote?", lexicon)
    assert "배송비" in asked or "배송" in asked
    assert not lexicon.translate(frozenset({"sora", "tote"}), frozenset({"sora", "tote"}))


def test_a_purely_english_collection_builds_nothing(db_url, tmp_path_factory):
    store = _collection(db_url, tmp_path_factory, "lantern", ENGLISH_GUIDE)
    try:
        before = store.embeddings.calls
        lexicon, _ = lexicon_for(store, "What is the screw size of the lantern mount?")
        assert lexicon is EMPTY
        assert store.embeddings.calls == before  # nothing embedded, no field read
    finally:
        store.drop()


def test_a_collection_in_one_script_asked_in_its_own_embeds_no_field_word(db_url, tmp_path_factory):
    store = _collection(db_url, tmp_path_factory, "sora_own", KOREAN_SHEET)
    try:
        before = store.embeddings.texts_embedded
        assert not lexicon_for(store, "Sora Tote 24SS의 배송비는?")[0]  # "SS" of a model number: no English word
        stored = FieldPairTables(store).read()
        assert stored is not None and "배송비" in stored.texts and stored.vectors.shape[1] == 0  # words, no vectors
        assert store.embeddings.texts_embedded == before
        # asked in the other script: the words are embedded then, once, and stored
        lexicon, _ = lexicon_for(store, "What is the shipping fee of the Sora Tote?")
        assert FieldPairTables(store).read().vectors.shape[1] > 0
        assert "배송비" in statements.question_terms("What is the shipping fee of the Sora Tote?", lexicon)
    finally:
        store.drop()


def test_the_same_fields_in_another_collection_are_not_embedded_again(db_url, tmp_path_factory):
    first = _collection(db_url, tmp_path_factory, "twice", KOREAN_SHEET, ENGLISH_SHEET)
    second = _collection(db_url, tmp_path_factory, "twice", KOREAN_SHEET, ENGLISH_SHEET)
    try:
        found, _ = lexicon_for(first, "What is the shipping fee of the Sora Tote?")
        before = second.embeddings.texts_embedded
        again, _ = lexicon_for(second, "What is the shipping fee of the Sora Tote?")
        assert second.embeddings.texts_embedded == before  # this process holds the words' vectors
        assert again.pairs == found.pairs and "배송비" in again.translate(statements.terms("shipping fee"))
    finally:
        first.drop()
        second.drop()


RECEIPT_GUIDE = """\
    # 현금영수증 연동 준비
    ## 처리 방식
    | 구분 | 설명 |
    |------|------|
    | 등록 취소 | API 호출 즉시 승인번호 발급 |
    | 국세청 전송 | D+1일 00시에 전일 내역 일괄 전송 |
    | 오류 조회 | D+1일 13시 이후 조회 가능 |
    """

RECEIPT_NOTES = "# 현금영수증 자주 묻는 질문\n" + "".join(
    f"## 질문 {i}\n\n국세청 전송 {i}회차: 국세청 전송 결과는 국세청 전송 후 확인합니다.\n\n" for i in range(12))


def test_an_english_question_naming_a_korean_row_key_finds_the_row_by_the_field_it_asks(db_url, tmp_path_factory):
    # the row's key is written in the question, its column asked in English ("description" for "설명"): the
    # lookup searches the column as the collection writes it (on korean-payments the question's own words ranked
    # the row ninth, below the lookup's eight)
    from core.retrieval.analysis import analyse
    from core.retrieval.hits import Hit
    from core.retrieval.named_rows import named_row_hit
    from core.retrieval.scope import Scope
    from core.retrieval.search import embed_query, fts_scored

    store = _collection(db_url, tmp_path_factory, "receipt", RECEIPT_GUIDE, RECEIPT_NOTES)
    try:
        question = "what's the description for 국세청 전송 in the cash receipt docs"
        analysis = analyse(question, lexicon_for(store, question)[0])
        spelled = analysis.writes_in_script_of_spelled()
        assert "설명" in spelled, analysis.spelled
        vector = embed_query(store, question)
        paragraph = fts_scored(store, "국세청", vector, 1, Scope.whole())[0][0]
        hits = [Hit(paragraph.element, 0, paragraph.distance)]
        found, notes = named_row_hit(store, hits, question, analysis.terms, vector, 8, spelled)
        assert "D+1일 00시에 전일 내역 일괄 전송" in found[-1].element.text, notes
        assert not analyse("What is the description of the Sora Tote?", analysis.lexicon) \
            .writes_in_script_of_spelled()  # no word of the sheet's script: the question's search is enough
    finally:
        store.drop()


def test_field_words_are_keys_headers_and_short_headings_never_model_names():
    found = field_texts([("무게 : 2.9 kg", "ListItem"), ("Option: timeout · Default: 15", "TableRow"),
                         ("| Name | Type |\n|---|---|", "Table"), ("print('a: b')", "CodeSnippet"),
                         ("The stand is sturdy.", "NarrativeText")],
                        ["Nova 24FL", "Specifications", "Why the Nova 27QX is the one for your desk"])
    assert {"무게", "option", "default", "name", "type", "specifications"} <= set(found)
    assert not {"24fl", "nova 24fl", "print", "stand", "desk"} & set(found)


def _headings(store) -> list[str]:
    from core.retrieval.heading_cache import heading_index

    index = heading_index(store)
    with index.lock:
        return [h.text for h in index.headings.values()]


def test_the_field_pairs_are_computed_once_per_collection_version_and_read_by_the_next_process(
        db_url, tmp_path_factory):
    from core.ingest import ingest_paths

    store = _collection(db_url, tmp_path_factory, "mixed", KOREAN_SHEET, ENGLISH_SHEET)
    try:
        lexicon, _ = lexicon_for(store, "What is the shipping fee of the Sora Tote?")
        version = held_version(store)
        stored = FieldPairTables(store).read()
        assert stored is not None and stored.version == version
        assert lexicon.pairs == stored.pairs and "배송비" in lexicon.translate(statements.terms("shipping fee"))
        # another process: the stored row is read, nothing is embedded
        embedded = store.embeddings.texts_embedded
        scripts, vocab, again = stored_lexicon(store, version, lambda: _headings(store), LexiconConfig(),
                                               words=False)
        assert again.pairs == stored.pairs and scripts == {True, False} and vocab is None
        assert stored_lexicon(store, version, lambda: _headings(store), LexiconConfig())[1].texts == stored.texts
        assert store.embeddings.texts_embedded == embedded
        # a new document: the next question computes the row again, embedding only the words not stored yet
        folder = tmp_path_factory.mktemp("more")
        (folder / "guide.md").write_text(textwrap.dedent(ENGLISH_GUIDE), encoding="utf-8")
        assert not ingest_paths(store, [folder]).errors
        embedded = store.embeddings.texts_embedded
        lexicon_for(store, "What is the shipping fee of the Sora Tote?")
        fresh = FieldPairTables(store).read()
        assert fresh.version == held_version(store) > version
        assert {"screw size", "cable length"} <= set(fresh.texts)
        assert 0 < store.embeddings.texts_embedded - embedded < len(fresh.texts) - len(stored.texts) + 10
    finally:
        store.drop()


# Fields of the sample sheets that the old hand list (BILINGUAL) never named, asked in the other language.
@pytest.mark.parametrize(("question", "value"), [
    ("What is the viewing angle of the Nova 24FL?", "178°(좌/우)"),
    ("What is the color gamut of the Nova 24FL?", "sRGB 99%"),
    ("What is the aspect ratio of the Nova 27QX?", "화면 비율 : 16:9"),
    ("What is the color depth of the Nova 34WC?", "8bit"),
])
def test_english_questions_over_the_korean_sample_sheets(samples_store, question, value):
    assert value in answer_of(samples_store, question)


@pytest.mark.parametrize(("question", "value"), [
    ("Nova 32UX의 시야각은?", "178° / 178°"),  # the field searched as the sheet writes it ("viewing angle")
    ("Nova 32UX의 색 깊이는?", "10bit"),
])
def test_korean_questions_over_the_english_sample_sheet(samples_store, question, value):
    assert value in answer_of(samples_store, question)


def test_warm_up_leaves_the_first_question_no_encoder_to_load(samples_store):
    from core import tokens
    from core.retrieval import warm_up

    tokens.count_tokens("warm-up")  # as an earlier question may have: a count held, whatever the encoder's state
    tokens._encoding.cache_clear()
    warm_up(samples_store)
    loaded = tokens._encoding.cache_info().misses
    assert loaded >= 1
    retrieve(samples_store, RetrievalRequest("Nova 24FL 무게", k=4))
    assert tokens._encoding.cache_info().misses == loaded
