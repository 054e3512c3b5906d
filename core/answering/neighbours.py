"""Units quoted with their neighbours in a section: a lead-in's items, a code block and the paragraph before it."""

from __future__ import annotations

from dataclasses import replace

from core.answering.evidence import Evidence
from core.retrieval import Context, ContextElement
from core.statements import is_lead_in


def code_with_its_prose(scored: list[Evidence], context: Context) -> list[Evidence]:
    """A code block and the paragraph right before it in its section are one unit: the paragraph says what the
    code shows ("It can be limited by setting the --prefix-length flag:", "… after some timeout (in
    milliseconds) by using the --kill-timeout flag."), the code shows how it is typed ("pip install pykrx" after
    "pykrx는 pip을 사용해서 쉽게 설치할 수 있습니다."). The better ranked of the two is quoted with the other: the
    paragraph's excerpt, then the code's, each as it was. A paragraph that states a value by itself ("Default:
    ASC", "key : value") is a unit of its own: the code after it is an example, not what it says."""
    if context.mode != "hierarchical":  # a plain context is in rank order: its neighbours are no pair
        return scored
    elements = context.elements
    pair_of: dict[str, str] = {}
    for before, code in zip(elements, elements[1:], strict=False):
        if (code.category == "CodeSnippet" and before.category == "NarrativeText" and before.role != "ancestor"
                and before.document_id == code.document_id and before.path == code.path):
            pair_of[before.element_id] = pair_of[code.element_id] = f"{before.element_id}\x1f{code.element_id}"
    if not pair_of:
        return scored
    excerpts = {e.element.element_id: e.excerpt for e in scored}
    stating = {e.element.element_id for e in scored if e.value}
    out = list(scored)
    done: set[str] = set()
    for at, evidence in enumerate(scored):
        pair = pair_of.get(evidence.element.element_id)
        if pair is None or pair in done:
            continue
        done.add(pair)
        prose_id, code_id = pair.split("\x1f")
        if prose_id in excerpts and code_id in excerpts and prose_id not in stating:
            out[at] = replace(evidence, excerpt=f"{excerpts[prose_id]} {excerpts[code_id]}")
    return out


def lead_in_items(context: Context) -> dict[str, list[ContextElement]]:
    """Each lead-in sentence of a hierarchical context ("… 녹화/재생합니다:", "one of the following:") with the list
    items or table rows right after it in its section: one unit to the reader, the sentence saying what the items
    are, the items what it lists (items_after)."""
    if context.mode != "hierarchical":  # a plain context is in rank order: nothing there "follows" a sentence
        return {}
    elements = context.elements
    out = {}
    for at, lead in enumerate(elements):
        if lead.role != "ancestor" and lead.category == "NarrativeText" and is_lead_in(lead.text):
            if items := _item_elements(elements[at + 1:], lead):
                out[lead.element_id] = items
    return out


def _item_elements(following: list[ContextElement], lead: ContextElement) -> list[ContextElement]:
    """The list items or table rows right after a lead-in in its section (a table's header line skipped)."""
    items = []
    for element in following:
        if element.document_id != lead.document_id or element.path != lead.path:
            break
        if element.category == "Table":
            continue
        if element.category not in ("ListItem", "TableRow"):
            break
        items.append(element)
    return items


def items_after(following: list[ContextElement], lead: ContextElement) -> list[str]:
    """The list items or table rows right after a lead-in in its section (a table's header line skipped)."""
    return ["· " + " ".join(e.text.split()) for e in _item_elements(following, lead)]


def steps_of(lead: Evidence, scored: list[Evidence], context: Context, limit: int) -> Evidence:
    """``lead`` (the list item an FAQ answer leads with) quoted with the items of its list: an FAQ that answers in
    steps ("check the cable · try another outlet · … · else call 1599-0427") answers by the list, not its first
    step, and the embedder measures a question against one short step no better than against the others. Only a
    list whose items state no value of their own (a "key: value" item is a unit by itself), of two items or more,
    the whole of it quoted within ``limit`` characters; else ``lead`` as it was."""
    element = lead.element
    if element.category != "ListItem" or lead.value:
        return lead
    elements = context.elements
    at = next((i for i, e in enumerate(elements) if e.element_id == element.element_id), None)
    if at is None:
        return lead

    def same_list(e: ContextElement) -> bool:
        # a nested list's items and the item they nest under ("check in this order:") are one list
        return e.category == "ListItem" and e.document_id == element.document_id and e.path == element.path

    start = at
    while start > 0 and same_list(elements[start - 1]):
        start -= 1
    end = at + 1
    while end < len(elements) and same_list(elements[end]):
        end += 1
    run = elements[start:end]
    stating = {e.element.element_id for e in scored if e.value}
    if len(run) < 2 or any(e.element_id in stating for e in run):
        return lead
    excerpt = " · ".join(" ".join(e.text.split()) for e in run)
    return replace(lead, excerpt=excerpt) if len(excerpt) <= limit else lead
