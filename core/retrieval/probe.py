"""The evidence probe: a scope's hits, with the one stating the attribute asked among them when a first search or a
lookup by the attribute's own words finds it (``EvidenceProbeConfig``)."""

from __future__ import annotations

from core.retrieval.hits import Hit
from core.retrieval.scope import Scope
from core.retrieval.stages import SearchContext
from core.statements import (
    DEFAULT_WORDS,
    as_written,
    attribute_share,
    documented_statement,
    in_other_number,
    last_parts,
    option_share,
    terms,
)

__all__ = ["probe_scope"]


def _stating(hits: list[Hit], asked: frozenset[str], wanted: frozenset[str],
             identifiers: frozenset[str] = frozenset(), *, dashed: bool = False,
             keyed: bool = False) -> tuple[Hit | None, bool]:
    """The first hit stating the attribute asked (a ``key : value`` item or ``Default:`` line whose key names at
    least half of the question's words), and whether its key is exactly an option the question names by its
    identifier (``identifiers``); such a hit is preferred. A default under the option's own heading counts when
    the question names that heading (``wanted``; a kebab-case or snake_case one by its words too: "annotations path"
    for ``annotations_path``), unless ``keyed``."""
    first: Hit | None = None
    for hit in hits:
        heading = hit.element.heading_path[-1] if hit.element.heading_path else None
        # asked for a default: an option's section named in kebab-case ("dependency-versions") keys its bare
        # "Default:" line too
        found, by_heading = documented_statement(asked, hit.element.text, hit.element.category, heading,
                                                 dashed=dashed)
        if not found or (keyed and by_heading) \
                or (option_share(wanted, found[0]) if by_heading else attribute_share(asked, found[0])) < 0.5:
            continue
        if not identifiers or last_parts(terms(found[0])) <= identifiers:
            return hit, True
        first = first or hit
    return first, False


def probe_scope(context: SearchContext, scope: Scope, asked: frozenset[str],
           things: frozenset[str] = frozenset(), *, entry: bool = False,
           keyed: bool = False) -> tuple[list[Hit], dict[str, float], bool]:
    """The scope's ``k`` hits, with the hit stating the attribute among them when the first
    ``EvidenceProbeConfig.k`` hold one, and whether they do. ``things``: the question's identifiers that name
    things, not the attribute (``core.retrieval.headings.called_names``). ``entry``: the scope is the entry the
    question identifies (``core.retrieval.entries``), so the attribute is looked up word by word too; ``keyed``: it
    holds the attribute only by a field whose own key is asked (``HeadingMatch.keyed``)."""
    analysis, k, probe_k = context.analysis, context.k, context.stages.probe.k
    hits, timings = context.search(analysis.query, max(k, probe_k), scope)
    wanted = analysis.terms
    identifiers = analysis.identifiers(things)
    parts = last_parts(t for name in identifiers for t in terms(name))
    stating, exact = (_stating(hits, asked, wanted, parts, dashed=analysis.asks_default, keyed=keyed) if asked
                      else (None, False))
    # The attribute is looked up by its own words alone: the option a code span names (`linenums`), else the
    # question proper's words the scope does not hold ("응답속도"). With the whole question, the words every page
    # of the platform repeats ("Python-Markdown", "extension", a preamble) outrank the one item stating it.
    lookup = identifiers or sorted(analysis.rest_terms & asked)
    if lookup and analysis.spelled and not identifiers:
        # with the attribute as the collection writes it in the other script ("Viewing angle" for "시야각"): a
        # sheet of the other language under the scope holds it only in those words, and a term cut to its stem
        # ("angl") matches no stored word; one lookup, both scripts, as a question in either names the field.
        # Only the attribute's: the other script's name of a place the scope's heading names is no attribute
        lookup = [*lookup, *(w for w in analysis.spelled if terms(w) & asked and w not in lookup)]
    if lookup and not identifiers:
        # each asked word in both numbers: a key in the plural ("Aliases: ul-indent") shares no stem with the
        # singular asked ("alias"), and a lookup by the one number never finds it
        lookup = [*lookup, *(w for w in in_other_number(analysis.plain_rest, frozenset(lookup)) if w not in lookup)]
        lookup = list(dict.fromkeys(as_written(analysis.plain_rest, lookup)))
    lookups = [lookup] if lookup else []
    if entry and len(lookup) > 1:
        # the entry is certain, so a field stating one asked word is looked for alone as well: together, a word
        # every element of the entry holds (the product's name, "semantic-release") outranks the one field
        # stating the other ("CLI arguments: `--branches`" for "the cli flag of the branches option")
        lookups += [[word] for word in lookup]
    if lookup and analysis.asks_default and not set(DEFAULT_WORDS) <= set(lookup):
        # then with the words that state a default ("+ Default: `false`"): under an option's own heading every
        # element holds its name, the line stating the value is the one holding these too
        lookups.append([*lookup, *(w for w in DEFAULT_WORDS if w not in lookup)])
    if analysis.asks_default and not scope.is_whole:
        # and by those words alone: a scope that is one option's own section ("dependency-versions") holds its name
        # in every element's path, so the words naming it rank its examples and prose above its "Default:" line
        lookups.append(list(DEFAULT_WORDS))
    for words in lookups if asked else ():
        if exact:
            break
        # none stated, or only under another key than the option named ("logController" table's row for
        # `disableRequestLogging`, where its own heading states it too)
        named, found = context.search(" ".join(words), probe_k, scope)
        timings = {s: timings.get(s, 0.0) + found.get(s, 0.0) for s in {*timings, *found}}
        looked_up, exact = _stating(named, asked, wanted, parts, dashed=analysis.asks_default, keyed=keyed)
        stating = looked_up if looked_up is not None and (exact or stating is None) else stating
    top = hits[:k]
    if stating is not None and stating not in top[: max(1, k - 1)]:
        at = max(0, k - 2)  # before the last place, which the whole collection's best hit may take (find_hits)
        rest = [h for h in top if h is not stating]
        top = [*rest[:at], stating, *rest[at : k - 1]]
    return [Hit(h.element, rank, h.distance) for rank, h in enumerate(top)], timings, stating is not None
