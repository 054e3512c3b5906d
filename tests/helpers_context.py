"""A hierarchical context built straight from parsed elements, for reader tests that need no database."""

from __future__ import annotations

from core.elements import Element
from core.partial_tree import merge_trees, short_ids
from core.retrieval import Context, ContextElement


def tree_context(elements: list[Element], hit_ids: list[str]) -> Context:
    """The hits' partial trees as the retrieval pipeline lays them out: hits ranked in order, ancestors unranked."""
    shorts = short_ids(e.element_id for e in elements)
    items = []
    for tree in merge_trees({e.element_id: e for e in elements}, hit_ids):
        for node in tree.walk():
            rank = hit_ids.index(node.element_id) if node.element_id in hit_ids else None
            items.append(ContextElement(node.element_id, shorts[node.element_id],
                                        "hit" if rank is not None else "ancestor", node.category,
                                        node.element.text, "doc-1", node.path, 0.5 if rank is not None else None,
                                        rank, parent_id=node.element.parent_id))
    return Context("hierarchical", "", "", items, 0)
