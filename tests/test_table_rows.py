"""Tables down to the row: each row an element under its table, read, quoted, rendered and versioned as one unit."""

from __future__ import annotations

import textwrap

from core.answering import ExtractiveAnswerer
from core.answering.extractive import is_lead_in, score_evidence
from core.answering.table import build_table
from core.elements import Element
from core.markdown_loader import parse_markdown
from core.partial_tree import merge_trees, render_markdown, short_ids
from core.retrieval import Context, EntityRef
from core.statements import question_terms, statement
from core.versions.diff import diff_elements

from .helpers_context import tree_context


def parse(text: str) -> list[Element]:
    docs = parse_markdown(textwrap.dedent(text), source="ref.md", document_id="doc-1")
    return [Element.from_document(d) for d in docs]


def rows_of(elements: list[Element]) -> list[str]:
    return [e.text for e in elements if e.category == "TableRow"]


OPTIONS = """\
    # Reference
    ## Options

    By default it is one of the following:

    | Option | Default | Description |
    |---|---|---|
    | installer | pip | Which installer to use |
    | timeout | 15 | Seconds to wait |
    """


def test_a_pipe_table_is_a_header_element_with_one_row_element_per_row() -> None:
    elements = parse(OPTIONS)
    table = next(e for e in elements if e.category == "Table")
    rows = [e for e in elements if e.category == "TableRow"]
    assert table.text == "| Option | Default | Description |\n| --- | --- | --- |"
    assert [r.text for r in rows] == ["Option: installer · Default: pip · Description: Which installer to use",
                                      "Option: timeout · Default: 15 · Description: Seconds to wait"]
    assert all(r.parent_id == table.element_id for r in rows)
    assert all(r.heading_path == ("Reference", "Options") for r in rows)
    assert [r.start_line for r in rows] == [8, 9]


def test_html_tables_in_details_and_list_items_become_rows_with_their_header_cells() -> None:
    elements = parse("""\
        # 제품 안내

        <details>
        <summary>사양 표</summary>
        <table><thead><tr><th>항목</th><th>값</th></tr></thead>
        <tbody><tr><td>무게</td><td>2.9 kg</td></tr><tr><td>보증기간</td><td>2년</td></tr></tbody></table>
        </details>

        - 연결단자
          <table><tr><td>HDMI</td><td>2개</td></tr></table>
        """)
    assert rows_of(elements) == ["항목: 무게 · 값: 2.9 kg", "항목: 보증기간 · 값: 2년", "HDMI · 2개"]
    summary = next(e for e in elements if e.category == "Title" and e.text == "사양 표")
    assert next(e for e in elements if e.category == "Table").parent_id == summary.element_id
    item = next(e for e in elements if e.category == "ListItem")
    tables = [e for e in elements if e.category == "Table"]
    assert tables[1].parent_id == item.element_id


def test_merged_empty_and_ragged_cells_keep_every_cell_and_markup_is_text() -> None:
    elements = parse("""\
        <table>
        <tr><th colspan="2">Size</th><th></th></tr>
        <tr><td rowspan="2">A</td><td>1</td><td><script>alert(1)</script>&lt;b&gt;bold&lt;/b&gt;</td></tr>
        <tr><td>2</td></tr>
        <tr><td>B</td></tr>
        </table>
        """)
    rows = [e for e in elements if e.category == "TableRow"]
    assert [r.get("cells") for r in rows] == [["A", "1", "<b>bold</b>"], ["A", "2", ""], ["B", "", ""]]
    assert rows[0].text == "Size: A · Size: 1 · <b>bold</b>"  # a script's code is never kept; shown markup is text
    shorts = short_ids(e.element_id for e in elements)
    shown = render_markdown(merge_trees(elements, [rows[0].element_id]), escape=True, shorts=shorts)
    assert "<b>" not in shown and "\\<b\\>bold" in shown


def test_an_html_comment_in_a_cell_or_a_details_block_is_not_text() -> None:
    elements = parse("""\
        <table><tr><th>Key<!-- internal: rename --></th><th>Value</th></tr>
        <tr><td>timeout<!-- was 10 --></td><td>15 <!-- TODO check -->s</td></tr></table>

        <details>
        <summary>Notes<!-- hidden --></summary>
        <ul><li>one <!-- secret --> item</li></ul>
        </details>
        """)
    assert rows_of(elements) == ["Key: timeout · Value: 15 s"]
    texts = " ".join(e.text for e in elements)
    assert "was 10" not in texts and "TODO" not in texts and "internal" not in texts
    assert "hidden" not in texts and "secret" not in texts and "one item" in texts


def test_thousands_of_rows_each_keep_their_cells() -> None:
    # 10,000 rows: bench/bench_parse_limit.py --table-rows (markdown-it's own tokenizing is most of the time)
    body = "\n".join(f"| r{i} | {i} |" for i in range(3_000))
    elements = parse_markdown(f"| name | n |\n|---|---|\n{body}\n", source="big.md", document_id="big")
    rows = [d for d in elements if d.metadata["category"] == "TableRow"]
    assert len(rows) == 3_000 and rows[-1].page_content == "name: r2999 · n: 2999"


def test_a_changed_cell_is_one_modified_row() -> None:
    old = parse(OPTIONS)
    new = parse(OPTIONS.replace("| timeout | 15 |", "| timeout | 30 |"))
    changes = diff_elements(old, new)
    assert [(c.op, c.after) for c in changes] == [("modified", "Option: timeout · Default: 30 · Description: "
                                                               "Seconds to wait")]


def test_the_partial_tree_shows_the_header_and_the_rows_hit_only() -> None:
    elements = parse(OPTIONS)
    hit = next(e for e in elements if e.text.startswith("Option: timeout"))
    ancestors = {e.element_id: e for e in elements if e.category in ("Title", "Table")}
    text = render_markdown(merge_trees({**ancestors, hit.element_id: hit}, [hit.element_id]),
                           shorts=short_ids([*ancestors, hit.element_id]))
    assert "| Option | Default | Description |" in text
    assert "- Option: timeout · Default: 15 · Description: Seconds to wait ◀" in text
    assert "installer" not in text


def test_the_reader_quotes_the_row_whole_with_its_key_and_path_not_the_lead_in() -> None:
    elements = parse(OPTIONS)
    lead = next(e for e in elements if e.category == "NarrativeText")
    rows = [e for e in elements if e.category == "TableRow"]
    context = tree_context(elements, [lead.element_id, rows[0].element_id, rows[1].element_id])
    answer = ExtractiveAnswerer().complete("What is the default installer?", context)
    assert answer.splitlines()[0] == "installer — Default: pip"
    assert "Reference › Options" in answer
    assert "“Option: installer · Default: pip · Description: Which installer to use”" in answer
    assert "| ---" not in answer and "one of the following" not in answer


def test_a_lead_in_ranks_after_what_follows_it() -> None:
    assert is_lead_in("By default it is one of the following:")
    assert is_lead_in("지원하는 입력은 다음과 같습니다.")
    assert not is_lead_in("The default installer is pip.")
    elements = parse(OPTIONS)
    lead = next(e for e in elements if e.category == "NarrativeText")
    row = next(e for e in elements if e.category == "TableRow")
    scored = score_evidence("which installer by default", tree_context(elements, [lead.element_id, row.element_id]))
    assert [e.element.category for e in scored][:2] == ["TableRow", "NarrativeText"]


def test_an_answer_that_points_below_is_no_lead_in_and_keeps_its_rank() -> None:
    # An FAQ answer ends "See below for more details."; the section's next paragraph is no list it introduces.
    assert not is_lead_in("Yes. It only reformats code and checks the AST after. See below for more details.")
    assert not is_lead_in("Check out the following config for an example of how to set it up")
    assert is_lead_in("Placeholders. The following placeholders must be used inside the command:")
    assert is_lead_in("The supported versions are listed below.")
    elements = parse("""\
        # FAQ

        ## Is the tool safe to use?

        Yes, the tool is safe to use: it checks the result after formatting. The following section says more:

        Magical comments such as noqa may be moved.
        """)
    answer, aside = [e for e in elements if e.category == "NarrativeText"]
    scored = score_evidence("is the tool safe to use", tree_context(elements, [answer.element_id, aside.element_id]))
    assert scored[0].element.element_id == answer.element_id


def test_a_lead_in_keeps_its_place_before_items_that_state_nothing_of_their_own() -> None:
    elements = parse("""\
        # FAQ

        ## Why is my notebook cell not formatted?

        The tool is timid about notebooks: cells holding any of the following are left as they are:

        - automagics (e.g. pip install tool)
        - invalid syntax
        """)
    lead = next(e for e in elements if e.category == "NarrativeText")
    items = [e for e in elements if e.category == "ListItem"]
    context = tree_context(elements, [lead.element_id, *(i.element_id for i in items)])
    scored = score_evidence("why is my notebook cell not formatted", context)
    assert scored[0].element.element_id == lead.element_id


def test_a_row_states_the_column_asked_and_a_headerless_row_reads_as_key_value() -> None:
    assert statement(question_terms("timeout default"), "Option: timeout · Default: 15 · Description: s",
                     "TableRow") == ("timeout — Default", "15")
    assert statement(question_terms("무게는?"), "무게 · 2.9 kg", "TableRow") == ("무게", "2.9 kg")


def test_a_comparison_reads_each_row_of_a_table() -> None:
    elements = parse("""\
        # Lamps

        | Lamp | Power | Weight |
        |---|---|---|
        | L1 | 5 W | 1.2 kg |
        | L2 | 7 W | 0.9 kg |
        """)
    rows = [e for e in elements if e.category == "TableRow"]
    context = tree_context(elements, [r.element_id for r in rows])
    context = Context(context.mode, "", "", context.elements, 0, entities=(EntityRef("Lamps", ("Lamps",), "doc-1"),))
    table = build_table("Which is lighter, the L1 or the L2?", context)
    assert table is not None
    assert [(r.entity, r.value) for r in table.rows] == [("L1", "1.2 kg"), ("L2", "0.9 kg")]
    assert [r.entity for r in table.picked] == ["L2"]


def test_only_a_file_holding_a_table_is_parsed_again_on_re_ingest() -> None:
    import hashlib

    from core.ingest import PARSER_VERSION, content_hash

    def before(data: bytes) -> str:  # the hash a collection stored before tables had rows
        return hashlib.sha256(f"{PARSER_VERSION}\x1fmarkdown-it\x1f0\x1f".encode() + data).hexdigest()

    plain = b"# Notes\n\n- Weight : 2 kg\n"
    assert content_hash(plain, "markdown-it", False) == before(plain)
    for data in (OPTIONS.encode(), b"<details><TABLE><tr><td>a</td></tr></TABLE></details>\n"):
        assert content_hash(data, "markdown-it", False) != before(data)


def test_the_compared_names_leave_the_attribute_query() -> None:
    from core.retrieval.entities import attribute_query
    from core.retrieval.shape import question_shape

    question = "Nova 24FL과 Nova 27QX 중 어느 쪽이 더 가벼운가요?"
    assert attribute_query(question, question_shape(question)) == "중 어느 쪽이 더 가벼운가요?"
    question = "Which is heavier, the L1 or the L2?"
    assert attribute_query(question, question_shape(question)) == "Which is heavier, the or the ?"
