"""Markdown → a tree of LangChain ``Document`` elements, on markdown-it-py.

Each element (heading, list item, paragraph, table, code block, image, raw HTML block) becomes one
``Document`` whose metadata links it to its parent, so retrieval can fetch a hit's ancestors. The
categories and ``category_depth`` follow ``UnstructuredMarkdownLoader(mode="elements")`` so the two
loaders are interchangeable (except that list depth counts from 0 here, where unstructured counts from 1;
core.unstructured_loader shifts it). The tree is built from the CommonMark token stream instead of
Python-Markdown's HTML, which is what fixes 2-space sub-bullets, ``1)`` lists, code fences inside list
items and the heading stack (see DESIGN.md, "Markdown parsing").

The walk over tokens is a single iterative pass (no recursion), and markdown-it's own recursion is
capped by ``MAX_NESTING``, so hostile input (50k nested quotes, a 10 MB line) cannot raise
``RecursionError``. Content nested deeper than that cap is dropped, but never silently: the element it
was cut under gets ``truncated_nesting: True`` (see :func:`parse_markdown`). A parse that runs longer than
``time_limit`` (pathological markup such as 100k unclosed ``[``) stops with :class:`MarkdownTooComplexError`.

This module configures and runs markdown-it within those bounds; :mod:`core.markdown_tree` turns its tokens into
elements (through :class:`core.elements.ElementBuilder`), and :mod:`core.front_matter` reads the front matter.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import lru_cache
from typing import Any

from langchain_core.documents import Document
from markdown_it import MarkdownIt
from markdown_it.token import Token
from mdit_py_plugins.admon import admon_plugin
from mdit_py_plugins.front_matter import front_matter_plugin

from core.elements import ElementFileLoader
from core.markdown_tree import TRUNCATED_TOKEN, build_elements

__all__ = [
    "MAX_NESTING",
    "PARSE_TIME_LIMIT_S",
    "MarkdownElementLoader",
    "MarkdownTooComplexError",
    "parse_markdown",
    "truncated_nesting_lines",
]

# markdown-it recurses once per container level (blockquote, list item) and stops parsing a container's
# content at this depth. The commonmark preset's 20 allows only ~10 nested lists (each list adds two
# levels: list + item), which real documents can exceed; 100 keeps ~50 list levels while bounding
# recursion to a few hundred Python frames, far below the default limit of 1000.
MAX_NESTING = 100

# markdown-it-py is linear on ordinary text, but some markup makes it crawl: each unclosed `[` rescans the rest
# of its paragraph (100 KB of `[` took ~10 s here), and a 5 MB line of `- - - …` (50 nested lists, each
# re-scanning the line) took ~100 s. Sizes are already capped by ingest; this caps time too. Real documents
# parse at ~1 MB/s or better, so the limit only stops hostile or broken input.
PARSE_TIME_LIMIT_S = 60.0

_DEADLINE = "hke_deadline"  # env key of the parse's time limit (TRUNCATED_TOKEN keys the lines dropped for nesting)


class MarkdownTooComplexError(ValueError):
    """The parse ran out of time; the message says why, for the user."""


def _check_deadline(env: dict[str, Any]) -> None:
    deadline = env.get(_DEADLINE)
    if deadline is not None and time.perf_counter() > deadline[0]:
        raise MarkdownTooComplexError(
            f"parsing stopped after {deadline[1]:g} s: the markup is too dense or too deeply nested to parse in "
            "reasonable time (for example thousands of unclosed '[' or a very long line of nested list markers)"
        )


def _deadline_block_rule(state: Any, start_line: int, end_line: int, silent: bool) -> bool:
    # Runs first at every block start; never matches, only checks the clock.
    _check_deadline(state.env)
    return False


def _deadline_inline_rule(state: Any, silent: bool) -> bool:
    # Runs first at every inline position, also while a link rule scans ahead (silent mode): that scan is
    # where `[[[[…` spends its time.
    _check_deadline(state.env)
    return False


def _bounded_tokenize(tokenize: Callable[..., None]) -> Callable[..., None]:
    """markdown-it's block ``tokenize`` that, past ``MAX_NESTING``, drops only the too-deep container.

    Upstream skips "to the end" when the nesting cap is hit; for a list item, whose extent is found while
    its content is parsed, the end is the end of the *document*, so everything after a 50-level list was
    lost. Here the skip stops at the first line indented less than the container (where the item would
    have ended anyway), and a ``hke_truncated`` token marks the spot so the tree builder can flag it.
    """

    def bounded(state: Any, start_line: int, end_line: int, *args: Any) -> None:
        if state.level >= state.md.options["maxNesting"]:
            line = start_line
            while line < end_line and (state.isEmpty(line) or state.sCount[line] >= state.blkIndent):
                line += 1
            if any(not state.isEmpty(i) for i in range(start_line, line)):
                token = state.push(TRUNCATED_TOKEN, "", 0)
                token.map = [start_line, line]
                state.env.setdefault(TRUNCATED_TOKEN, []).append(start_line + 1)
            end_line = line
        tokenize(state, start_line, end_line, *args)

    return bounded


@lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    # "html": True only makes raw HTML *recognisable* (html_block / html_inline tokens) so it can be kept
    # verbatim as UncategorizedText; nothing here ever calls render(), so no HTML is interpreted.
    md = MarkdownIt("commonmark", {"maxNesting": MAX_NESTING, "html": True})
    # Tables are the one GFM extension the product needs (spec sheets); the front matter rule must run
    # before the setext-heading rule would turn `---\nkey: v\n---` into an <h2>.
    md.enable("table").use(front_matter_plugin)
    # MkDocs / Python-Markdown admonitions ("!!! warning" over an indented body, "??? note" collapsible): without
    # the rule their body is an indented code block, so "If an environment variable is not set, Molecule
    # substitutes with an empty string." was code, not prose (docs/faq-guides.md). The body is read as the
    # section's own elements; the marker line as :func:`_admonition_titles` says.
    md.use(admon_plugin)
    # This instance only (not the class): other MarkdownIt users in the process keep upstream behaviour.
    md.block.tokenize = _bounded_tokenize(md.block.tokenize)  # type: ignore[method-assign]
    md.block.ruler.before(md.block.ruler.get_all_rules()[0], "hke_deadline", _deadline_block_rule)
    md.inline.ruler.before(md.inline.ruler.get_all_rules()[0], "hke_deadline", _deadline_inline_rule)
    return md


@contextmanager
def _gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector for one parse.

    A parse allocates a token per markup item and a Document per element, all of them live until the end,
    so every generation-2 collection walks an ever-growing heap for nothing: pausing it measured ~2x
    faster on a 1 MB file. Tokens and Documents form no reference cycles, so nothing piles up meanwhile.
    Only re-enabled if it was enabled, so a caller that disabled GC on purpose is respected.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _admonition_words(opening: Token) -> str:
    """What an admonition's marker line says besides its type: the quoted title (``!!! note "Why it matters"``),
    the line as written when it goes on (``!!! Important: do this now``), or "" for a bare type."""
    info = opening.info.strip()
    tag = str(opening.meta.get("tag", ""))
    rest = info[len(tag):].strip() if info.lower().startswith(tag.lower()) else info
    if not rest:
        return ""
    return rest.strip('"') if rest.startswith('"') and rest.endswith('"') else info


def _admonition_titles(tokens: list[Token]) -> list[Token]:
    """Admonitions read as the prose of their section: the body's elements stand as they are, the marker line is
    a paragraph of the words it writes besides the type (:func:`_admonition_words`; none for ``!!! warning``, a
    label), and the admonition's own open and close tokens go."""
    out: list[Token] = []
    at = 0
    while at < len(tokens):
        token = tokens[at]
        at += 1
        if token.type == "admonition_close":
            continue
        if token.type != "admonition_open":
            out.append(token)
            continue
        words = _admonition_words(token)
        title = tokens[at:at + 3]
        if len(title) < 3 or title[0].type != "admonition_title_open":
            continue
        at += 3
        if not words:
            continue
        inline = title[1] if title[1].content == words else Token(
            "inline", "", 0, map=title[1].map, content=words, children=[Token("text", "", 0, content=words)])
        out += [Token("paragraph_open", "p", 1, map=title[0].map, block=True), inline,
                Token("paragraph_close", "p", -1, block=True)]
    return out


def _tokens(text: str, env: dict[str, Any], time_limit: float | None) -> list[Token]:
    # None means the module's limit as it is *now*, so it can be changed (or monkeypatched) at run time.
    limit = PARSE_TIME_LIMIT_S if time_limit is None else time_limit
    env[_DEADLINE] = (time.perf_counter() + limit, limit)
    # A UTF-8 BOM would otherwise hide a heading or front matter on the first line.
    return _admonition_titles(_parser().parse(text.removeprefix("\ufeff"), env))


def truncated_nesting_lines(text: str, *, time_limit: float | None = None) -> list[int]:
    """1-based lines where content nested deeper than ``MAX_NESTING`` starts (and is dropped by the parser).

    For explaining an empty parse: when *all* content is too deep there is no element to carry the flag.
    """
    env: dict[str, Any] = {}
    with _gc_paused():
        _tokens(text, env, time_limit)
    return list(env.get(TRUNCATED_TOKEN, []))


def parse_markdown(
    text: str, *, source: str, document_id: str, time_limit: float | None = None
) -> list[Document]:
    """Parse markdown text into elements, in document order.

    ``source`` is recorded as metadata (``filename`` is its basename); ``document_id`` scopes every
    element id, so derive it from something unique to the file (see :func:`core.elements.document_id_from_key`).

    Every element's metadata has ``element_id``, ``parent_id`` (None at roots), ``category`` (one of
    :data:`core.elements.ELEMENT_CATEGORIES`), ``category_depth`` (heading level - 1, list nesting level, else 0),
    ``document_id``, ``source``, ``filename``, ``order``, ``start_line``/``end_line`` (1-based) and
    ``heading_path`` (ancestor Title texts, root first). Tables add ``text_as_html``; code blocks
    ``language``; images ``image_url``; and, only when non-empty, ``emphasized``, ``code_spans`` and
    ``link_texts``. ``page_content`` is plain text with inline markup removed (raw HTML kept verbatim).

    Content nested deeper than :data:`MAX_NESTING` (container levels; a list level counts two) is dropped,
    and the element it would have belonged under gets ``truncated_nesting: True`` (at the document root, the
    nearest element). A parse that takes longer than ``time_limit`` seconds (default
    :data:`PARSE_TIME_LIMIT_S`; ``math.inf`` for none) raises :class:`MarkdownTooComplexError`.
    """
    with _gc_paused():
        tokens = _tokens(text, {}, time_limit)
        return build_elements(tokens, document_id=document_id, source=source)


class MarkdownElementLoader(ElementFileLoader):
    """LangChain loader for one markdown file; see :func:`parse_markdown` for the element schema."""

    def lazy_load(self) -> Iterator[Document]:
        """Yield elements in document order (the whole file is parsed first: markdown needs it all)."""
        yield from parse_markdown(self._read_text(), source=self.source, document_id=self.document_id)
