"""A question's words as a reader reads them (issue 29): a hyphenated word counts by its parts in full-text search,
not as itself and each part ("built-in speakers" found "Built-in Docking" twice over before "Speakers"); a modal
verb names no heading; a definition ("4 means …", '"user" means …') states its term as the key.

End to end on the samples with the real embedded Postgres and the bundled offline embedder."""

from __future__ import annotations

from core.retrieval.headings import HeadingIndex, HeadingRef, rank_headings
from core.retrieval.search import _parts_for_the_whole
from tests.helpers_context import ask


def test_a_hyphenated_word_counts_by_its_parts():
    assert _parts_for_the_whole(["built-in", "built", "speaker"]) == ["built", "speaker"]
    assert _parts_for_the_whole(["e-book", "e", "book", "user"]) == ["e", "book", "user"]
    # a name whose parts were left out (a name the collection repeats) is searched whole
    assert _parts_for_the_whole(["semantic-release", "config"]) == ["semantic-release", "config"]
    assert _parts_for_the_whole(["semantic-release", "release", "tag"]) == ["semantic-release", "release", "tag"]
    # a name with a number in a part is an identifier: "utf-8", "manylinux-armv7l-image" are searched whole too
    assert _parts_for_the_whole(["utf-8", "utf", "8"]) == ["utf-8", "utf", "8"]
    assert "manylinux-armv7l-image" in _parts_for_the_whole(["manylinux-armv7l-image", "manylinux", "armv7l", "image"])


def test_a_modal_verb_names_no_heading():
    # "may" of "How many e-books may a user borrow?" scoped the question to "Who may use the library", and the loan
    # limits were found only by the last slot, kept for the whole collection's best hit
    law = "Library Ordinance"
    texts = [(law, ()), ("Article 3 (Who may use the library)", (law,)), ("Article 4 (Loans)", (law,)),
             ("Article 5 (Late returns)", (law,)), *((f"Section {n}", ()) for n in range(12))]
    index = HeadingIndex(HeadingRef(f"{i:032x}", t, p, "law" if p or t == law else f"d{i}", "law.md")
                         for i, (t, p) in enumerate(texts, 1))
    assert rank_headings("How many e-books may a user borrow?", index) == []
    assert [h.text for h in rank_headings("Who may use the library?", index)[0].headings] == [texts[1][0]]


def test_built_in_speakers_finds_the_speakers_not_the_built_in_docking(samples_store):
    # "built-in" heads a section of the 32UX sheet, so its three items hold it in their path: counted with its part
    # "built" as two words, they outranked the one line stating the speakers
    _, answer = ask(samples_store, "Does the 32UX have built-in speakers?")
    assert "5 W x 2" in answer, answer


def test_a_definition_states_its_term_as_the_key():
    from core.statements import statement

    assert statement(frozenset(), "4 means you specified an option that has been deprecated.", "ListItem") == (
        "4", "you specified an option that has been deprecated")
    assert statement(frozenset(), '2. "user" means a person who reads or borrows library materials;') == (
        "user", "a person who reads or borrows library materials")
    assert statement(frozenset(), "This means that the file is skipped.") is None


def test_error_code_4_is_answered_by_its_own_item(tmp_path, db_url):
    from tests.helpers_context import ingested_store

    store = ingested_store(db_url, tmp_path, {"options.md": """\
        # Options

        ## Command line

        ### Return codes

        The tool exits 0 on success, or >0 if an error occurs.

        Specific error codes are defined:

        - 2 means a configuration error
        - 3 means no builds are selected
        - 4 means you specified an option that has been deprecated.

        ## Build selection

        ### allow-empty

        Suppress the error code if no builds match. Default: Off (0). Error code 3 is returned when no builds are
        selected.
        """})
    try:
        _, answer = ask(store, "what does error code 4 mean")
        assert "4 means you specified an option" in answer and "configuration error" not in answer, answer
    finally:
        store.drop()
