"""A part asking a default, found in prose that names an option and states none (issue 31): "how many log files
does npm keep by default?" is scoped to the logging guide's "Setting Log File Location", whose passages name
``logs-max`` and ``logs-dir`` ("--logs-max=0", "the logs-dir config option") but no default; each option's own
heading in the config reference holds its ``Default:`` line. The hop goes from the mention to the definition: the
options the part's hits name that head a section of their own, those whose names share the most of the part's
words, are searched by the part as well, their hits with room of their own. Looked up, never guessed: a name no
heading holds is no definition.

An option the part names whole ("npm default dist tag" names ``tag``, "npm default registry url" ``registry``) is
its first place to look, when no hit states a default under one: "registry" heads a third of the documents, "url"
names ``init-author-url``, "dist tag" the command ``npm dist-tag``, and the heading match reads them so."""

from __future__ import annotations

import re
from typing import Protocol

from core.retrieval.heading_refs import HeadingRef
from core.retrieval.headings import HeadingIndex
from core.retrieval.hits import Hit
from core.retrieval.parts import asked_noun
from core.retrieval.scope import PATH_SEPARATOR, Scope, short_text
from core.retrieval.stages import SearchContext
from core.retrieval.strategies import MAX_K
from core.statements import asks_default, number_forms, option_heading, states_default, terms, terms_with_parts

__all__ = ["mentioned_definitions", "named_definitions", "with_mentioned_definition"]

# an option a passage names: kebab-case or dotted, as a flag ("--logs-max=0") or a word ("the logs-dir option")
_NAMED = re.compile(r"(?<![\w.-])(?:--)?([a-z][a-z0-9]*(?:[-.][a-z0-9]+)+)(?![\w-])")


_DEFAULT_WORDS = terms("default defaults")


class _Found(Protocol):
    hits: list[Hit]
    notes: list[str]


def _asked(part: str) -> frozenset[str]:
    """The part's terms, each in the other number as well ("log files" names ``logs-max``)."""
    held = terms(part)
    return held | {form for word in held for form in number_forms(word)}


def _name_words(name: str) -> frozenset[str]:
    """The words an option's name is made of (``dist-tag``: dist, tag; ``init.author.url``: init, author, url)."""
    return frozenset(w for part in re.split(r"[-.]", name) for w in terms(part)) or terms(name)


def named_definitions(part: str, hits: list[Hit], index: HeadingIndex) -> list[HeadingRef]:
    """The option definitions ``part`` names whole (every word of the option's name is one the part writes, in
    either number: "npm default dist tag" names ``tag``, "npm default registry url" names ``registry``), each a
    heading under a section, none holding a hit already; [] when the part asks no default, or a hit states one
    under such a definition already (the ``Default: ""`` of ``init.author.url`` answers no part naming "url"
    alone)."""
    if not asks_default(part):
        return []
    asked = _asked(part) - _DEFAULT_WORDS
    whole = lambda text: bool((name := option_heading(text, dashed=True)) and asked >= _name_words(name) != set())  # noqa: E731
    if any(states_default(h.element.text) and h.element.heading_path and whole(h.element.heading_path[-1])
           for h in hits):
        return []
    places = {tuple(h.element.heading_path) for h in hits}
    out = []
    for ref in index.headings.values():
        own = (*ref.path, ref.text)
        if ref.path and whole(ref.text) and not any(place[:len(own)] == own for place in places):
            out.append(ref)
    return out


def mentioned_definitions(part: str, hits: list[Hit], index: HeadingIndex) -> list[HeadingRef]:
    """The headings defining the options ``hits`` name (a heading that is the option's name, kebab-case or
    dotted), none holding a hit already, of those sharing the most of ``part``'s words (one at least); [] when
    the part asks no default, or a hit states one already."""
    if not asks_default(part) or any(states_default(h.element.text) for h in hits):
        return []
    named = {m.group(1) for h in hits for m in _NAMED.finditer(h.element.text)}
    if not named:
        return []
    places = {tuple(h.element.heading_path) for h in hits}
    asked = _asked(part)
    scored: list[tuple[int, HeadingRef]] = []
    for ref in index.headings.values():
        name = option_heading(ref.text, dashed=True)
        if name is None or name not in named:
            continue
        own = (*ref.path, ref.text)
        if any(place[:len(own)] == own for place in places):
            continue
        shared = len(terms_with_parts(name) & asked)
        if shared:
            scored.append((shared, ref))
    best = max((s for s, _ref in scored), default=0)
    return [ref for s, ref in scored if s == best]


def _best_defined(part: str, hits: list[Hit], refs: list[HeadingRef], index: HeadingIndex) -> list[Hit]:
    """The ``hits`` under the definition whose found passages hold the most of ``part``'s words together: of
    ``logs-max`` and ``logs-dir`` (both "logs"), "how many log files … keep" is ``logs-max``'s "The maximum number
    of log files to store." (the noun the part asks by, "log files", first: "npm's log directory" holds the
    part's subject, not its thing; the words asking a default, and the platform's, count for none: every
    definition states "Default:"). Every tied definition's hits, those stating a default first, else in rank
    order."""
    asked = {w for w in _asked(part) - _DEFAULT_WORDS if not index.is_platform(w)}
    under: dict[str, list[Hit]] = {}
    for hit in hits:
        place = tuple(hit.element.heading_path)
        ref = next((r for r in refs if place[:len(r.path) + 1] == (*r.path, r.text)), None)
        if ref is not None:
            under.setdefault(ref.element_id, []).append(hit)
    noun = _asked(asked_noun(part) or "")
    texts = {rid: terms(" ".join(h.element.text for h in group)) for rid, group in under.items()}
    held = {rid: (len(noun & text), len(asked & text)) for rid, text in texts.items()}
    best = max(held.values(), default=(0, 0))
    chosen = [h for h in hits if any(h in group for rid, group in under.items() if held[rid] == best)]
    return sorted(chosen, key=lambda h: not states_default(h.element.text))


def _stating(hits: list[Hit], refs: list[HeadingRef]) -> list[Hit]:
    """The ``hits`` under those of ``refs`` whose found passages state a default, those stating it first: a
    definition named whole is the option asked only where it has a default to give."""
    def ref_of(hit: Hit) -> str | None:
        place = tuple(hit.element.heading_path)
        return next((r.element_id for r in refs if place[:len(r.path) + 1] == (*r.path, r.text)), None)
    stating = {ref_of(h) for h in hits if states_default(h.element.text)} - {None}
    return sorted((h for h in hits if ref_of(h) in stating), key=lambda h: not states_default(h.element.text))


def with_mentioned_definition(context: SearchContext, found: _Found, index: HeadingIndex | None) -> int:
    """``found`` (a part's hits) with the part's ``k`` best hits under the definitions it names whole
    (:func:`named_definitions`: those stating a default), else under those its hits mention
    (:func:`mentioned_definitions`), added after them; a search more for each tried, only then. The number of hits added
    (their room is the part's own)."""
    if index is None or not found.hits:
        return 0
    added: list[Hit] = []
    label, why = "", ""
    named = named_definitions(context.question, found.hits, index)
    for refs, whole in ((named, True), (mentioned_definitions(context.question, found.hits, index), False)):
        if added or not refs:
            continue
        label = "; ".join(PATH_SEPARATOR.join(short_text(p, 60) for p in (*r.path, r.text)) for r in refs[:3])
        why = "the part names an option whole" if whole else "the hits name an option defined elsewhere"
        # an option named whole is often defined again on every page that takes it: its default lines are what
        # the part asks, searched by the word that states them, one each
        text, k = ("default", context.k + len(refs)) if whole else (context.question, context.k)
        more, _timings = context.search(text, min(MAX_K, k + len(found.hits)),
                                        Scope.subtrees([r.element_id for r in refs], label))
        taken = {h.element_id for h in found.hits}
        ids = {r.element_id for r in refs}
        chosen = _stating(more, refs) if whole else _best_defined(context.question, more, refs, index)
        seen: set[str] = set()
        added = [h for h in chosen if h.element_id not in taken and h.element_id not in ids
                 and not (h.element.text in seen or seen.add(h.element.text))][:context.k]
    if added:
        n = len(found.hits)
        found.hits = [*found.hits, *(Hit(h.element, n + i, h.distance) for i, h in enumerate(added))]
        found.notes.append(f"{why}, no hit stating its default: searched {label} as well")
    return len(added)
