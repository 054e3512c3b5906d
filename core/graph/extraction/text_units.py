"""Text units: sections of a document's elements, a heading with its content, up to a token budget.

The section tree comes from the elements' parent links: a *section heading* is a ``Title`` that is a root or
whose parent is a section heading (a heading inside a list item is content of that item). Packing is greedy
and keeps sections whole where possible:

* a section whose whole subtree fits in ``max_tokens`` is one unit;
* otherwise its own content is packed in document order, consecutive small subsections are packed together with
  it while they fit, and a subsection too big for the budget is packed recursively the same way;
* a heading whose next subsection does not fit after it (too big, or the heading plus it are) is carried into that
  subsection's first unit, so no unit is a bare heading;
* one element larger than the budget (a long code block) is a unit of its own; elements are never split, so each
  element belongs to exactly one unit and every unit cites whole elements.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.documents import Document

from core.graph.defaults import DEFAULT_UNIT_TOKENS
from core.store.graph_records import TextUnit
from core.text import stable_id


@dataclass
class ElementInfo:
    """What the index needs of one stored element."""

    element_id: str
    document_id: str
    parent_id: str | None
    category: str
    text: str
    heading_path: list[str]
    order: int
    metadata: dict[str, Any]
    unit_id: str = ""


@dataclass
class _Section:
    heading: ElementInfo | None
    path: list[str]
    items: list[ElementInfo | _Section] = field(default_factory=list)  # in document order

    @property
    def order(self) -> int:
        if self.heading is not None:
            return self.heading.order
        first = self.items[0] if self.items else None
        return first.order if first is not None else 0


def element_info(doc: Document) -> ElementInfo:
    meta = doc.metadata or {}
    return ElementInfo(
        element_id=str(meta.get("element_id") or doc.id),
        document_id=str(meta.get("document_id") or ""),
        parent_id=meta.get("parent_id"),
        category=str(meta.get("category") or "UncategorizedText"),
        text=doc.page_content or "",
        heading_path=[str(h) for h in meta.get("heading_path") or []],
        order=int(meta.get("order") or 0),
        metadata=meta,
    )


def section_tree(elements: Sequence[ElementInfo]) -> _Section:
    """The document as a tree of sections; the root has no heading and holds the preamble."""
    root = _Section(None, [])
    by_id = {e.element_id: e for e in elements}
    sections: dict[str, _Section] = {}
    section_of: dict[str, _Section] = {}
    for el in sorted(elements, key=lambda e: e.order):
        parent = by_id.get(el.parent_id) if el.parent_id else None
        is_heading = el.category == "Title" and (parent is None or parent.element_id in sections)
        if is_heading:
            owner = sections[parent.element_id] if parent is not None else root
            node = _Section(el, [*el.heading_path, el.text])
            sections[el.element_id] = node
            section_of[el.element_id] = node
            owner.items.append(node)
        else:
            owner = section_of.get(parent.element_id, root) if parent is not None else root
            section_of[el.element_id] = owner
            owner.items.append(el)
    return root


def build_text_units(
    documents: Sequence[tuple[str, Sequence[Document]]],
    *,
    max_tokens: int = DEFAULT_UNIT_TOKENS,
    count_tokens: Callable[[str], int] | None = None,
) -> tuple[list[TextUnit], dict[str, ElementInfo]]:
    """Text units of ``documents`` (``(document_id, elements in order)`` pairs) and every element by id.

    Each element's ``unit_id`` is set to the unit that holds it.
    """
    if max_tokens < 1:
        raise ValueError("max_tokens must be positive")
    if count_tokens is None:
        from core.tokens import count_tokens as _count

        count_tokens = _count
    units: list[TextUnit] = []
    infos: dict[str, ElementInfo] = {}
    for document_id, docs in documents:
        elements = [element_info(d) for d in docs]
        for el in elements:
            el.document_id = el.document_id or document_id
            infos[el.element_id] = el
        tokens = {el.element_id: count_tokens(el.text) for el in elements}
        packer = _Packer(max_tokens, tokens)
        for chunk, path in packer.pack(section_tree(elements)):
            _add_unit(units, document_id, chunk, path, tokens)
    for unit in units:
        for element_id in unit.element_ids:
            infos[element_id].unit_id = unit.id
    return units, infos


def _add_unit(
    units: list[TextUnit], document_id: str, chunk: list[ElementInfo], path: list[str], tokens: dict[str, int]
) -> None:
    first = chunk[0]
    heading_path = list(first.heading_path) + ([first.text] if first.category == "Title" else [])
    if first.category != "Title" and not heading_path:
        heading_path = list(path)
    body = "\n\n".join(el.text for el in chunk)
    context = " > ".join(first.heading_path if first.category == "Title" else heading_path)
    text = f"[{context}]\n\n{body}" if context else body
    units.append(
        TextUnit(
            id=stable_id("text_unit", document_id, first.element_id, chunk[-1].element_id),
            human_readable_id=len(units) + 1,
            document_id=document_id,
            heading_path=heading_path,
            text=text,
            n_tokens=sum(tokens[el.element_id] for el in chunk),
            element_ids=[el.element_id for el in chunk],
        )
    )


class _Packer:
    def __init__(self, max_tokens: int, tokens: dict[str, int]) -> None:
        self.max = max_tokens
        self.tokens = tokens
        self._subtree: dict[int, int] = {}

    def size(self, item: ElementInfo | _Section) -> int:
        if isinstance(item, ElementInfo):
            return self.tokens[item.element_id]
        key = id(item)
        if key not in self._subtree:
            own = self.tokens[item.heading.element_id] if item.heading is not None else 0
            self._subtree[key] = own + sum(self.size(child) for child in item.items)
        return self._subtree[key]

    def flat(self, item: ElementInfo | _Section) -> list[ElementInfo]:
        if isinstance(item, ElementInfo):
            return [item]
        out = [item.heading] if item.heading is not None else []
        stack = [iter(item.items)]
        # Iterative walk: documents with deep heading trees must not hit the recursion limit.
        result = list(out)
        while stack:
            for child in stack[-1]:
                if isinstance(child, ElementInfo):
                    result.append(child)
                else:
                    result.append(child.heading)
                    stack.append(iter(child.items))
                    break
            else:
                stack.pop()
        return result

    def pack(
        self, section: _Section, carry: list[ElementInfo] | None = None
    ) -> list[tuple[list[ElementInfo], list[str]]]:
        chunks: list[tuple[list[ElementInfo], list[str]]] = []
        current: list[ElementInfo] = list(carry or [])
        if section.heading is not None:
            current.append(section.heading)
        used = sum(self.tokens[e.element_id] for e in current)
        only_headings = True  # current holds headings only (carried or own): never a unit on its own

        def flush() -> None:
            nonlocal current, used, only_headings
            if current and not only_headings:
                chunks.append((current, section.path))
            current, used, only_headings = [], 0, True

        carried = sum(self.tokens[e.element_id] for e in carry or [])
        if section.heading is not None and carried + self.size(section) <= self.max:
            return [(list(carry or []) + self.flat(section), section.path)]
        for item in section.items:
            size = self.size(item)
            if used + size <= self.max:
                current.extend(self.flat(item))
                used += size
                only_headings = False
                continue
            if isinstance(item, _Section) and (size > self.max or (only_headings and current)):
                # Too big, or fits alone but not after the pending headings: pack it on its own, carrying them.
                if only_headings:
                    carried, current, used = current, [], 0
                    chunks.extend(self.pack(item, carried))
                else:
                    flush()
                    chunks.extend(self.pack(item))
                continue
            if only_headings and current:
                # A heading and a block too big to share a unit with: keep them together anyway.
                current.extend(self.flat(item))
                used += size
                only_headings = False
                flush()
                continue
            flush()
            current, used, only_headings = self.flat(item), size, False
        if current and only_headings:
            if chunks:
                chunks[-1][0].extend(current)  # trailing empty headings join the previous unit
            else:
                chunks.append((current, section.path))  # a document of headings only
        else:
            flush()
        return chunks
