"""A document the question names by its title: a collection of several products' READMEs ("@rollup/plugin-commonjs",
"@rollup/plugin-replace", "postcss-import"), where a question naming one asks about that one.

The heading scope tries runner-up headings when the best-named one states nothing the question asks
(``pipeline._choose_scope``). Best named by one document's title, a runner-up in another document is another
product's ("Link inside header" of markdown-it-anchor, sharing "inside", for "what does rollup commonjs do with a
require inside try/catch"; postcss-import's ``plugins`` option for "where should I put @rollup/plugin-replace in the
plugins array"). The title counts only when the question names it whole: each of its words is the question's, or
the family's (other documents' headings hold it too: "plugin", "rollup" across plugins' READMEs), or a compound
of such words ("plugin-commonjs"). A page title naming the tool every page is about beside other words
("::: mkdocstrings_handlers.python" for "mkdocstrings members default?") or a topic ("Members options") is not
named whole, and a title matched in several documents ("Using semantic-release with GitLab CI; … Travis CI")
names none of them.
"""

from __future__ import annotations

import re

from core.retrieval.heading_cache import heading_index
from core.retrieval.heading_refs import HeadingMatch
from core.retrieval.headings import heading_words
from core.retrieval.stages import SearchContext

__all__ = ["titled_document"]

_COMPOUND = re.compile(r"[-_./]+")
# A package's name: scoped or hyphenated ("@rollup/plugin-commonjs", "postcss-import"); a module's title in words
# ("HTTP", "File system") names a part of one product, whose other pages still answer for it.
_PACKAGE = re.compile(r"@|\w-\w")


def titled_document(context: SearchContext, match: HeadingMatch) -> str | None:
    """The id of the one document whose title ``match`` is, when the question names that title whole; else None."""
    if match.documents != 1 or any(h.path for h in match.headings) or not _PACKAGE.search(match.headings[0].text):
        return None
    named = set(match.words)
    left = sorted(w for w in heading_words(match.headings[0].text) if w not in named)
    if not left:
        return match.headings[0].document_id
    index = context.index or heading_index(context.store)
    family = named | {w for w in left if len(index.documents_holding(index.holding(w))) > 1}
    whole = all(w in family or all(p in family for p in _COMPOUND.split(w) if p) for w in left)
    return match.headings[0].document_id if whole else None
