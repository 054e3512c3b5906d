"""Golden tests for merging partial trees and rendering them as markdown (pure: no database).

Elements come from the project's real markdown loader; "ancestors" are computed here by walking parent ids,
which is what ``ElementStore.ancestors`` returns from the database (tested in test_retrieval.py).
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable

import pytest

from core.elements import Element
from core.markdown_loader import parse_markdown
from core.partial_tree import (
    cited_element_ids,
    merge_trees,
    render_markdown,
    render_plain,
    short_ids,
)
from core.text import escape_markdown

from .conftest import SAMPLES

DOC_A = """\
# Nova A
## Specs
* Model : A-1
### Weight
* Weight : 2.9 kg
* Size : 10 cm
  * note : with stand
### Ports
* HDMI : 1

| Mode | Gamma |
|---|---|
| sRGB | 2.2 |
## Firmware
1. Download
   ```sh
   flash --go
   ```
"""

DOC_B = """\
# Nova B
## Specs
### Weight
* Weight : 5.4 kg
"""


def load(text: str, document_id: str) -> list[Element]:
    return [Element.from_document(d) for d in parse_markdown(text, source=f"{document_id}.md", document_id=document_id)]


@pytest.fixture(scope="module")
def corpus() -> dict[str, Element]:
    docs = load(DOC_A, "doc-a") + load(DOC_B, "doc-b")
    return {d.metadata["element_id"]: d for d in docs}


def find(corpus: dict[str, Element], text: str, document_id: str = "doc-a") -> str:
    matches = [i for i, d in corpus.items() if d.page_content == text and d.metadata["document_id"] == document_id]
    assert len(matches) == 1, (text, document_id)
    return matches[0]


def ancestors(corpus: dict[str, Element], hit_ids: list[str]) -> dict[str, Element]:
    out = {}
    for element_id in hit_ids:
        while element_id:
            out[element_id] = corpus[element_id]
            element_id = corpus[element_id].metadata.get("parent_id")
    return out


def render(corpus, hits: list[str], **kwargs) -> tuple[str, dict[str, str]]:
    elements = ancestors(corpus, hits)
    shorts = short_ids(elements)
    return render_markdown(merge_trees(elements, hits), shorts=shorts, **kwargs), shorts


def _text(text: str) -> Callable[[dict[str, Element]], str]:
    return lambda corpus: find(corpus, text)


def _first(category: str) -> Callable[[dict[str, Element]], str]:
    return lambda corpus: next(i for i, d in corpus.items() if d.metadata["category"] == category)


# Whole renderings, exactly; ``{0}``, ``{1}`` stand for the short ids of the hits in the order given. Exact equality
# also says that shared ancestors appear once and that a hit which is another hit's ancestor is not repeated.
EXACT_RENDERINGS = [
    pytest.param(
        [_text("Weight : 2.9 kg"), _text("HDMI : 1")],
        "# Nova A\n\n## Specs\n\n### Weight\n\n- Weight : 2.9 kg ◀ [e:{0}]\n\n### Ports\n\n- HDMI : 1 ◀ [e:{1}]",
        id="shared_ancestors_appear_once",
    ),
    pytest.param(
        [_text("note : with stand"), _text("Weight")],
        "# Nova A\n\n## Specs\n\n### Weight ◀ [e:{1}]\n\n- Size : 10 cm\n  - note : with stand ◀ [e:{0}]",
        id="hit_that_is_an_ancestor_of_another_hit_is_not_repeated",
    ),
    pytest.param(
        [_first("TableRow"), _first("CodeSnippet")],
        "# Nova A\n\n## Specs\n\n### Ports\n\n| Mode | Gamma |\n| --- | --- |\n\n"
        "- Mode: sRGB · Gamma: 2.2 ◀ [e:{0}]\n\n"
        "## Firmware\n\n- Download\n\n  ▼ [e:{1}]\n\n  ```sh\n  flash --go\n  ```",
        id="tables_and_code_stay_intact_and_are_marked",
    ),
]


@pytest.mark.parametrize(("pick_hits", "expected"), EXACT_RENDERINGS)
def test_partial_trees_render_exactly(corpus, pick_hits, expected):
    hits = [pick(corpus) for pick in pick_hits]
    text, s = render(corpus, hits)
    assert text == expected.format(*(s[h] for h in hits))


def test_display_can_demote_headings_without_changing_structure(corpus):
    weight = find(corpus, "Weight : 2.9 kg")
    text, _ = render(corpus, [weight], heading_offset=2)
    assert text.splitlines()[0] == "### Nova A" and "##### Weight" in text and "- Weight : 2.9 kg" in text
    deep, _ = render(corpus, [weight], heading_offset=5)
    assert deep.startswith("###### Nova A") and "###### Weight" in deep  # levels stop at 6


def test_siblings_keep_document_order_whatever_the_hit_rank(corpus):
    weight, hdmi, model = find(corpus, "Weight : 2.9 kg"), find(corpus, "HDMI : 1"), find(corpus, "Model : A-1")
    by_rank, _ = render(corpus, [hdmi, weight, model])
    in_order, _ = render(corpus, [model, weight, hdmi])
    assert by_rank == in_order
    assert by_rank.index("Model : A-1") < by_rank.index("### Weight") < by_rank.index("### Ports")


def test_several_documents_give_several_trees_ordered_by_best_hit(corpus):
    a, b = find(corpus, "Weight : 2.9 kg"), find(corpus, "Weight : 5.4 kg", "doc-b")
    elements = ancestors(corpus, [b, a])
    trees = merge_trees(elements, [b, a])
    assert [t.document_id for t in trees] == ["doc-b", "doc-a"]
    assert [t.best_rank for t in trees] == [0, 1]
    text = render_markdown(trees, shorts=short_ids(elements))
    first, second = text.split("\n\n---\n\n")
    assert first.startswith("# Nova B") and "5.4 kg" in first and "2.9" not in first
    assert second.startswith("# Nova A") and "2.9 kg" in second
    # Each hit knows its own path: that is what disambiguates the two weights.
    paths = {n.element.page_content: n.path for t in trees for n in t.walk() if n.role == "hit"}
    assert paths == {"Weight : 5.4 kg": ("Nova B", "Specs", "Weight"), "Weight : 2.9 kg": ("Nova A", "Specs", "Weight")}


def test_a_fence_inside_code_cannot_close_the_block():
    doc = Element.from_metadata("x = '''\n```\n'''", {
        "element_id": "c" * 32, "parent_id": None, "category": "CodeSnippet", "document_id": "d", "order": 0,
        "language": "py"})
    text = render_plain([doc])
    assert "````py\nx = '''\n```\n'''\n````" in text


def test_plain_context_is_the_hits_alone_best_first(corpus):
    weight, hdmi = find(corpus, "Weight : 2.9 kg"), find(corpus, "HDMI : 1")
    s = short_ids([weight, hdmi])
    text = render_plain([corpus[hdmi], corpus[weight]], shorts=s)
    assert text == f"- HDMI : 1 ◀ [e:{s[hdmi]}]\n\n- Weight : 2.9 kg ◀ [e:{s[weight]}]"
    assert "Nova" not in text and "#" not in text


def _element(element_id: str, text: str, category: str, parent: str | None, order: int, **meta) -> Element:
    return Element.from_metadata(text, {
        "element_id": element_id, "parent_id": parent, "category": category, "category_depth": 0,
        "document_id": "evil", "order": order, **meta})


UNESCAPED = re.compile(r"(?<!\\)(!\[|\]\(|<script|<img|\$|:red\[)")


def test_escaped_render_turns_hostile_text_into_literal_text():
    # Stored text can hold markdown and HTML verbatim (inline code, raw HTML, another loader), so the
    # renderer must not trust it.
    elements = {d.metadata["element_id"]: d for d in [
        _element("a" * 32, "Title <script>alert(1)</script>", "Title", None, 0),
        _element("b" * 32, "![pic](http://127.0.0.1:9/x.png) [link](http://127.0.0.1:9/) $x^2$ :red[boom] **b**",
                 "ListItem", "a" * 32, 1),
        _element("c" * 32, "<img src=x onerror=alert(2)>", "UncategorizedText", "a" * 32, 2),
        _element("d" * 32, "| <b>x</b> | ![i](http://127.0.0.1:9/i.png) |\n|---|---|\n| 1 | 2 |", "Table", "a" * 32, 3),
    ]}
    text = render_markdown(merge_trees(elements, ["b" * 32, "c" * 32, "d" * 32]), escape=True)
    outside_code = re.sub(r"```html\n.*?\n```", "", text, flags=re.S)
    assert not UNESCAPED.search(outside_code), outside_code
    assert "# " + escape_markdown("Title <script>alert(1)</script>") in text
    assert "\\<script\\>" in text and "\\!\\[pic\\]\\(http\u2060\\:" in text
    # The raw HTML block is shown as code, which markdown renders literally.
    assert "```html\n<img src=x onerror=alert(2)>\n```" in text
    # Table cells are escaped but the table stays a table.
    assert "| \\<b\\>x\\<\\/b\\> | \\!\\[i\\]" in text and "| --- | --- |" in text


def test_escaped_urls_and_emails_are_not_autolinked():
    out = escape_markdown("see https://x.y/p and www.z.com or a@b.co")
    seen = re.sub(r"\\(.)", r"\1", out)  # what a reader sees
    assert seen.replace("\u2060", "") == "see https://x.y/p and www.z.com or a@b.co"
    assert not re.search(r"https?:|www\.|@\w", seen), "GFM would turn these into links"


def test_escape_markdown_is_reversible_by_commonmark():
    from markdown_it import MarkdownIt

    raw = r"*a* _b_ `c` [d](e) ![f](g) <h> # i | j \k $l$ ~m~"
    rendered = MarkdownIt("commonmark").render(escape_markdown(raw))
    assert rendered == "<p>" + raw.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;") + "</p>\n"


def test_short_ids_grow_until_unique_and_citations_resolve():
    ids = ["abcdef0123456789", "abcdef0199999999", "1234567890abcdef"]
    s = short_ids(ids)
    assert s["1234567890abcdef"] == "12345678"
    assert s["abcdef0123456789"] == "abcdef012" and s["abcdef0199999999"] == "abcdef019"
    text = ("Weight is 2.9 kg [e:abcdef012] (also [e:12345678, e:ABCDEF019]); [e:abcdef01] is ambiguous, "
            "[e:ffffff] unknown")
    assert cited_element_ids(text, ids) == ["abcdef0123456789", "1234567890abcdef", "abcdef0199999999"]


def test_an_element_whose_parent_is_missing_becomes_a_root():
    docs = {
        "p" * 32: Element.from_metadata("Lost parent", {"element_id": "p" * 32, "parent_id": "gone",
                                                                 "category": "ListItem", "document_id": "d",
                                                                 "order": 3, "category_depth": 0}),
    }
    trees = merge_trees(docs, ["p" * 32])
    assert len(trees) == 1 and trees[0].roots[0].element.page_content == "Lost parent"


def test_deep_trees_render_without_recursion():
    depth = 1500
    docs = {}
    parent = None
    for i in range(depth):
        element_id = f"{i:032x}"
        docs[element_id] = Element.from_metadata(f"item {i}", {
            "element_id": element_id, "parent_id": parent, "category": "ListItem", "category_depth": i,
            "document_id": "deep", "order": i})
        parent = element_id
    text = render_markdown(merge_trees(docs, [parent]))
    assert text.count("\n") == depth - 1
    assert text.splitlines()[-1].startswith("  " * (depth - 1) + f"- item {depth - 1} ◀")


@pytest.mark.parametrize("path", sorted(SAMPLES.glob("*.md")), ids=lambda p: p.name)
def test_rendered_context_parses_back_to_the_same_structure(path):
    """Headings render as headings and list items nest as in the source: the project's own loader, run on the
    rendered context, puts every hit under the same heading path and at the same list depth."""
    docs = load(path.read_text(encoding="utf-8"), "d")
    corpus = {d.metadata["element_id"]: d for d in docs}
    rng = random.Random(path.name)
    candidates = [d for d in docs if d.metadata["category"] in ("ListItem", "NarrativeText")]
    for _ in range(5):
        hits = [d.metadata["element_id"] for d in rng.sample(candidates, min(4, len(candidates)))]
        text, shorts = render(corpus, hits)
        reparsed = {}
        for d in load(text, "r"):
            match = re.search(r" ◀ \[e:([0-9a-f]+)\]$", d.page_content)
            if match:
                reparsed[match.group(1)] = d
        assert len(reparsed) == len(hits)
        for hit in hits:
            again = reparsed[shorts[hit]]
            original = corpus[hit]
            assert again.metadata["heading_path"] == original.metadata["heading_path"]
            assert again.metadata["category"] == original.metadata["category"]
            if original.metadata["category"] == "ListItem":
                assert again.metadata["category_depth"] == original.metadata["category_depth"]
