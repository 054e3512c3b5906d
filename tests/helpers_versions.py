"""A synthetic edit suite for version matching: a 100-element manual, edits of it, and the gold for each edit.

Each node of the manual carries a gold id; an edit keeps the ids of the nodes it keeps, so the gold pairing of two
versions is "same gold id", and each edit states the op of every node it touches (all others are ``unchanged``).
Markdown is rendered with one element per node, so parsed elements map back to gold ids by position.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, replace

from core.elements import Element
from core.markdown_loader import parse_markdown
from core.versions import match_versions

WORDS = (
    "survey tide gauge harbour vessel crew log reading datum chart depth sounding buoy anchor channel mooring "
    "pier quay berth current wind swell weather station sensor battery cable signal record sheet check daily "
    "weekly monthly report officer team boat launch hull engine fuel radio beacon marker light range bearing "
    "compass position grid sample bottle water salinity temperature pressure level mean high low spring neap "
    "storm surge flood warning notice route plan inspection repair spare part tool kit safety vest helmet glove "
    "rope line winch crane dock yard store shelf label box seal lock key door gate fence path road map note "
    "entry time date hour minute second week month year morning evening night shift start end step task"
).split()
TOPICS = ("Tide gauges", "Depth soundings", "Buoy maintenance", "Water samples", "Radio procedure",
          "Storm warnings", "Equipment store")
SUBTOPICS = ("Before you start", "Daily routine", "Records", "Faults", "Checklist", "Handover", "Safety",
             "Calibration", "Storage", "Reporting", "Spares", "Access", "Night work", "Training")


@dataclass(frozen=True)
class Node:
    gid: str
    kind: str  # "h1" | "h2" | "h3" | "p" | "li"
    text: str


def _sentence(rng: random.Random, low: int, high: int) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(low, high))]
    return " ".join(words).capitalize() + "."


def base_manual(sections: int = 7, seed: int = 20) -> list[Node]:
    """A manual of ``2 + 14 * sections`` elements (100 for 7): title, intro, then per section a paragraph and two
    subsections, each with two paragraphs and three list items."""
    rng = random.Random(seed)
    nodes = [Node("t", "h1", "Field manual for the harbour survey"), Node("intro", "p", _sentence(rng, 20, 30))]
    for s in range(sections):
        topic = TOPICS[s % len(TOPICS)] + ("" if s < len(TOPICS) else f" {s // len(TOPICS) + 1}")
        nodes += [Node(f"s{s}", "h2", topic), Node(f"s{s}p", "p", _sentence(rng, 18, 28))]
        for u in range(2):
            prefix = f"s{s}u{u}"
            nodes.append(Node(prefix, "h3", SUBTOPICS[(2 * s + u) % len(SUBTOPICS)]))
            nodes += [Node(f"{prefix}p{k}", "p", _sentence(rng, 18, 30)) for k in range(2)]
            nodes += [Node(f"{prefix}l{k}", "li", _sentence(rng, 7, 12)) for k in range(3)]
    return nodes


def render(nodes: list[Node], *, reflow: bool = False) -> str:
    """Markdown with one element per node; ``reflow`` wraps lines and doubles some spaces (same content)."""
    out: list[str] = []
    for k, node in enumerate(nodes):
        text = node.text
        if reflow and node.kind in ("p", "li"):
            words = text.split()
            indent = "  " if node.kind == "li" else ""
            text = "".join(w + ("\n" + indent if n % 6 == 5 else "  " if n % 4 == 1 else " ")
                           for n, w in enumerate(words)).rstrip()
        if node.kind.startswith("h"):
            out.append("#" * int(node.kind[1]) + " " + text + "\n\n")
        elif node.kind == "p":
            out.append(text + "\n\n")
        else:
            last = k + 1 == len(nodes) or nodes[k + 1].kind != "li"
            out.append("- " + text + ("\n\n" if last else "\n"))
    return "".join(out)


def parse(nodes: list[Node], *, reflow: bool = False, document_id: str = "manual") -> list[Element]:
    elements = [Element.from_document(d) for d in parse_markdown(render(nodes, reflow=reflow),
                                                                   source="manual.md", document_id=document_id)]
    if len(elements) != len(nodes):
        raise AssertionError(f"{len(nodes)} nodes rendered as {len(elements)} elements")
    return elements


def _index(nodes: list[Node], gid: str) -> int:
    return next(k for k, n in enumerate(nodes) if n.gid == gid)


def _subtree_end(nodes: list[Node], start: int) -> int:
    level = int(nodes[start].kind[1])
    end = start + 1
    while end < len(nodes) and not (nodes[end].kind.startswith("h") and int(nodes[end].kind[1]) <= level):
        end += 1
    return end


Gold = dict[str, str]  # gid -> op, for the nodes an edit touches (others are unchanged)


def rename_heading(nodes: list[Node]) -> tuple[list[Node], Gold]:
    k = _index(nodes, "s2u1")
    out = list(nodes)
    out[k] = replace(out[k], text="Monthly calibration of the gauges")
    return out, {"s2u1": "renamed"}


def move_section(nodes: list[Node]) -> tuple[list[Node], Gold]:
    """Section 5 (whole subtree) goes before section 1: only its heading moved."""
    start = _index(nodes, "s5")
    end = _subtree_end(nodes, start)
    block, rest = nodes[start:end], nodes[:start] + nodes[end:]
    at = _index(rest, "s1")
    return rest[:at] + block + rest[at:], {"s5": "moved"}


def move_subsection(nodes: list[Node]) -> tuple[list[Node], Gold]:
    """Subsection s1u0 goes to the end of section 4 (another parent)."""
    start = _index(nodes, "s1u0")
    end = _subtree_end(nodes, start)
    block, rest = nodes[start:end], nodes[:start] + nodes[end:]
    at = _subtree_end(rest, _index(rest, "s4"))
    return rest[:at] + block + rest[at:], {"s1u0": "moved"}


def split_paragraph(nodes: list[Node]) -> tuple[list[Node], Gold]:
    """s3u0p0 becomes two paragraphs; the longer first part keeps its identity, the second is new."""
    k = _index(nodes, "s3u0p0")
    words = nodes[k].text.split()
    cut = (len(words) * 3) // 5
    first = Node("s3u0p0", "p", " ".join(words[:cut]) + ".")
    second = Node("s3u0p0b", "p", " ".join(words[cut:]).capitalize())
    return nodes[:k] + [first, second] + nodes[k + 1:], {"s3u0p0": "modified", "s3u0p0b": "added"}


def merge_paragraphs(nodes: list[Node]) -> tuple[list[Node], Gold]:
    """s4u1p0 and s4u1p1 become one paragraph; it keeps the identity of the one it is most like."""
    k = _index(nodes, "s4u1p0")
    a, b = nodes[k].text, nodes[k + 1].text
    keep, gone = ("s4u1p0", "s4u1p1") if len(a) >= len(b) else ("s4u1p1", "s4u1p0")
    merged = Node(keep, "p", a.rstrip(".") + ", and " + b[0].lower() + b[1:])
    return nodes[:k] + [merged] + nodes[k + 2:], {keep: "modified", gone: "removed"}


def reorder_siblings(nodes: list[Node]) -> tuple[list[Node], Gold]:
    """The first list item of s0u0 goes last: that item moved, the other two kept their order."""
    k = _index(nodes, "s0u0l0")
    out = list(nodes)
    item = out.pop(k)
    out.insert(k + 2, item)
    return out, {"s0u0l0": "moved"}


def swap_neighbours(nodes: list[Node]) -> tuple[list[Node], Gold]:
    """Two neighbouring paragraphs swap: the one now first is the one marked moved (documented tie rule)."""
    k = _index(nodes, "s6u0p0")
    out = list(nodes)
    out[k], out[k + 1] = out[k + 1], out[k]
    return out, {"s6u0p1": "moved"}


def whitespace_only(nodes: list[Node]) -> tuple[list[Node], Gold]:
    return list(nodes), {}


def edit_list_item(nodes: list[Node]) -> tuple[list[Node], Gold]:
    k = _index(nodes, "s5u1l1")
    words = nodes[k].text.rstrip(".").split()
    words[len(words) // 2] = "lighthouse"
    out = list(nodes)
    out[k] = replace(out[k], text=" ".join(words) + " twice.")
    return out, {"s5u1l1": "modified"}


def add_and_remove(nodes: list[Node]) -> tuple[list[Node], Gold]:
    """A new paragraph in section 2, a list item of s6u1 dropped."""
    out = [n for n in nodes if n.gid != "s6u1l2"]
    k = _index(out, "s2p")
    out.insert(k + 1, Node("s2new", "p", "Report every broken seal to the harbour office before the end of the shift."))
    return out, {"s2new": "added", "s6u1l2": "removed"}


EDITS: dict[str, Callable[[list[Node]], tuple[list[Node], Gold]]] = {
    "rename_heading": rename_heading,
    "move_section": move_section,
    "move_subsection": move_subsection,
    "split_paragraph": split_paragraph,
    "merge_paragraphs": merge_paragraphs,
    "reorder_siblings": reorder_siblings,
    "swap_neighbours": swap_neighbours,
    "whitespace_only": whitespace_only,
    "edit_list_item": edit_list_item,
    "add_and_remove": add_and_remove,
}
REFLOWED = frozenset({"whitespace_only"})


def edit_suite_scores() -> tuple[float, float, list[str]]:
    """(op accuracy over every element of every edit, identity F1 of matched pairs, the misses)."""
    base = base_manual()
    old = parse(base)
    right = total = tp = fp = fn = 0
    misses: list[str] = []
    for name, edit in EDITS.items():
        nodes, gold_ops = edit(base)
        new = parse(nodes, reflow=name in REFLOWED)
        gid_old = {e.element_id: n.gid for e, n in zip(old, base, strict=True)}
        gid_new = {e.element_id: n.gid for e, n in zip(new, nodes, strict=True)}
        result = match_versions(old, new)
        predicted = {(gid_old[m.old.element_id], gid_new[m.new.element_id])
                     for m in result.matches if m.old and m.new}
        gold_pairs = {(g, g) for g in set(gid_old.values()) & set(gid_new.values())}
        tp += len(predicted & gold_pairs)
        fp += len(predicted - gold_pairs)
        fn += len(gold_pairs - predicted)
        for m in result.matches:
            gid = gid_new[m.new.element_id] if m.new else gid_old[m.old.element_id]
            want = gold_ops.get(gid, "unchanged")
            total += 1
            right += m.op == want
            if m.op != want:
                misses.append(f"{name}: {gid} {m.op} != {want}")
    return right / total, 2 * tp / (2 * tp + fp + fn), misses
