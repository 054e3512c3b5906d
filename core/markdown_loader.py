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
"""

from __future__ import annotations

import gc
import hashlib
import html
import os
import re
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Any

from langchain_core.document_loaders import BaseLoader
from langchain_core.documents import Document
from markdown_it import MarkdownIt
from markdown_it.token import Token
from mdit_py_plugins.front_matter import front_matter_plugin

__all__ = [
    "ELEMENT_CATEGORIES",
    "LOADERS",
    "MAX_NESTING",
    "PARSE_TIME_LIMIT_S",
    "MarkdownElementLoader",
    "MarkdownTooComplexError",
    "document_id_for",
    "element_id_for",
    "load_elements",
    "parse_front_matter",
    "parse_markdown",
    "truncated_nesting_lines",
]

ELEMENT_CATEGORIES: tuple[str, ...] = (
    "Title",
    "ListItem",
    "NarrativeText",
    "Table",
    "CodeSnippet",
    "Image",
    "UncategorizedText",
)

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

_DEADLINE = "hke_deadline"  # env keys: the parse's time limit, and the lines dropped for nesting
_TRUNCATED = "hke_truncated"
_SEP = "\x1f"  # unit separator: cannot appear in a path or a category, so hash inputs never run together


def document_id_for(key: str) -> str:
    """Derive a document id from a key such as a resolved path or ``collection + path``.

    Returns the first 16 hex chars of ``sha256(key)``. Callers pass the full path (not the basename) so
    two files with the same name and content are still two documents.
    """
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:16]


def element_id_for(document_id: str, parent_id: str | None, category: str, text: str, occurrence: int) -> str:
    """Deterministic 32-hex element id.

    Hashes the document, the parent, the category, the text and the occurrence index among earlier
    siblings with the same (category, text). Position in the document is deliberately *not* an input,
    so inserting content under another heading leaves every other id unchanged.
    """
    key = _SEP.join((document_id, parent_id or "", category, text, str(occurrence)))
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:32]


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
                token = state.push(_TRUNCATED, "", 0)
                token.map = [start_line, line]
                state.env.setdefault(_TRUNCATED, []).append(start_line + 1)
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
    # This instance only (not the class): other MarkdownIt users in the process keep upstream behaviour.
    md.block.tokenize = _bounded_tokenize(md.block.tokenize)  # type: ignore[method-assign]
    md.block.ruler.before(md.block.ruler.get_all_rules()[0], "hke_deadline", _deadline_block_rule)
    md.inline.ruler.before(md.inline.ruler.get_all_rules()[0], "hke_deadline", _deadline_inline_rule)
    return md


# --------------------------------------------------------------------------------------------------
# Front matter
# --------------------------------------------------------------------------------------------------


def parse_front_matter(text: str) -> dict[str, str]:
    """Return the ``key: value`` lines of a leading ``---`` front matter block, or ``{}``.

    Detection follows mdit-py-plugins' front matter rule (opening line of 3+ dashes at the very start,
    closed by a dash line at least as long or by ``...``), so a block the loader skips is exactly a block
    this reads. Only flat ``key: value`` lines are read (no PyYAML): nested/indented lines, list items and
    comments are ignored, and one pair of surrounding quotes is removed from values.
    """
    text = text.removeprefix("\ufeff")
    if not text.startswith("---"):
        return {}
    lines = text.splitlines()
    opening = lines[0].rstrip()
    marker_len = len(opening) - len(opening.lstrip("-"))
    if marker_len < 3:
        return {}
    body: list[str] | None = None
    for index in range(1, len(lines)):
        line = lines[index]
        stripped = line.strip()
        indent = len(line) - len(line.lstrip(" "))
        if line.startswith("...") and not line[3:].strip():
            body = lines[1:index]
            break
        if indent < 4 and stripped.startswith("-") and len(stripped) >= marker_len and not stripped.strip("-"):
            body = lines[1:index]
            break
    if body is None:  # unclosed: markdown-it does not treat it as front matter either
        return {}
    result: dict[str, str] = {}
    for line in body:
        if not line or line[0] in " \t#-" or ":" not in line:
            continue
        key, _, value = line.partition(":")
        key, value = key.strip(), value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1]
        if key:
            result[key] = value
    return result


# --------------------------------------------------------------------------------------------------
# Inline → plain text
# --------------------------------------------------------------------------------------------------

_TEXT_TYPES = frozenset({"text", "text_special", "code_inline", "html_inline"})


def _alt_text(image: Token) -> str:
    """Plain alt text of an image; images nested in alt text are flattened without recursion."""
    out: list[str] = []
    stack: list[Iterator[Token]] = [iter(image.children or ())]
    while stack:
        for tok in stack[-1]:
            if tok.type == "image":
                stack.append(iter(tok.children or ()))
                break
            if tok.type in _TEXT_TYPES:
                out.append(tok.content)
            elif tok.type in ("softbreak", "hardbreak"):
                out.append(" ")
        else:
            stack.pop()
    return "".join(out)


# A trailing attribute list (Python-Markdown attr_list, Pandoc, kramdown): "Notes {: #id }", "API {#api .x}".
# It styles the heading and is not part of its name.
_ATTRIBUTE_LIST = re.compile(r"\s*\{(?::[^{}]*|\s*[#.][^{}\s][^{}]*)\}\s*$")


def strip_attribute_list(heading: str) -> str:
    """``heading`` without a trailing ``{: #id .class key=value}`` attribute list (the text stays if that is all)."""
    stripped = _ATTRIBUTE_LIST.sub("", heading)
    return stripped if stripped.strip() else heading


class _Inline:
    """Plain text of an inline token's children plus the marked-up spans entity extraction wants."""

    __slots__ = ("code_spans", "emphasized", "link_texts", "text")

    def __init__(self, children: Sequence[Token] | None) -> None:
        parts: list[str] = []
        emphasis_starts: list[int] = []
        link_starts: list[int] = []
        self.emphasized: list[str] = []
        self.code_spans: list[str] = []
        self.link_texts: list[str] = []
        for tok in children or ():
            kind = tok.type
            if kind == "text" or kind == "text_special":
                parts.append(tok.content)
            elif kind == "softbreak":
                # A soft break is a wrapped line, not a break in meaning (Python-Markdown + unstructured
                # also collapse it to a space).
                parts.append(" ")
            elif kind == "hardbreak":
                parts.append("\n")
            elif kind == "code_inline":
                parts.append(tok.content)
                self.code_spans.append(tok.content)
            elif kind == "html_inline":
                parts.append(tok.content)  # kept verbatim, never interpreted
            elif kind == "image":
                parts.append(_alt_text(tok))
            elif kind == "em_open" or kind == "strong_open":
                emphasis_starts.append(len(parts))
            elif kind == "em_close" or kind == "strong_close":
                if emphasis_starts:
                    self.emphasized.append("".join(parts[emphasis_starts.pop() :]).strip())
            elif kind == "link_open":
                link_starts.append(len(parts))
            elif kind == "link_close":
                if link_starts:
                    self.link_texts.append("".join(parts[link_starts.pop() :]).strip())
            elif tok.content:  # a token type from a future rule: keep its text rather than lose it
                parts.append(tok.content)
        self.text = "".join(parts).strip()


def _image_only(children: Sequence[Token] | None) -> list[Token] | None:
    """The images of a paragraph made only of images (and whitespace), else None."""
    images: list[Token] = []
    for tok in children or ():
        if tok.type == "image":
            images.append(tok)
        elif tok.type in ("softbreak", "hardbreak") or (tok.type == "text" and not tok.content.strip()):
            continue
        else:
            return None
    return images or None


# --------------------------------------------------------------------------------------------------
# Token stream → element tree
# --------------------------------------------------------------------------------------------------


class _Frame:
    """An open container: a list, a list item or a blockquote."""

    __slots__ = ("element_id", "kind", "level", "started")

    def __init__(self, kind: str, level: int = 0) -> None:
        self.kind = kind  # "list" | "item" | "quote"
        self.level = level  # list nesting level of an item (0 = top-level list)
        self.element_id: str | None = None  # the item's ListItem element, once its first paragraph is seen
        self.started = False  # has the item had a direct child block yet?


class _TreeBuilder:
    def __init__(self, document_id: str, source: str) -> None:
        self.document_id = document_id
        self.source = source
        self.filename = os.path.basename(source)
        self.documents: list[Document] = []
        # (parent_id, category, text) → siblings seen so far: O(1) occurrence index, no sibling rescans.
        self._occurrences: dict[tuple[str, str, str], int] = {}
        # heading_path that children of a Title/ListItem inherit (only elements that can be parents).
        self._child_paths: dict[str, tuple[str, ...]] = {}
        self._titles: list[tuple[int, str]] = []  # open headings: (level, element_id), outermost first
        self._frames: list[_Frame] = []
        self._list_depth = 0
        self._by_id: dict[str, Document] = {}
        self._truncation_pending = False  # content was dropped before any element existed to flag

    # -- emitting ----------------------------------------------------------------------------------

    def _emit(
        self,
        category: str,
        text: str,
        parent_id: str | None,
        depth: int,
        line_map: list[int] | None,
        inline: _Inline | None = None,
        extra: dict[str, Any] | None = None,
    ) -> str | None:
        if not text.strip():
            return None
        key = (parent_id or "", category, text)
        occurrence = self._occurrences.get(key, 0)
        self._occurrences[key] = occurrence + 1
        element_id = element_id_for(self.document_id, parent_id, category, text, occurrence)
        heading_path = self._child_paths.get(parent_id, ()) if parent_id else ()
        if category == "Title":
            self._child_paths[element_id] = (*heading_path, text)
        elif category == "ListItem":
            self._child_paths[element_id] = heading_path
        metadata: dict[str, Any] = {
            "element_id": element_id,
            "parent_id": parent_id,
            "category": category,
            "category_depth": depth,
            "document_id": self.document_id,
            "source": self.source,
            "filename": self.filename,
            "order": len(self.documents),
            "start_line": line_map[0] + 1 if line_map else None,
            "end_line": line_map[1] if line_map else None,
            "heading_path": list(heading_path),
        }
        if extra:
            metadata.update(extra)
        if self._truncation_pending:
            metadata["truncated_nesting"] = True
            self._truncation_pending = False
        if inline is not None:
            # dict.fromkeys: de-duplicate but keep first-seen order, so output is deterministic.
            for name, values in (
                ("emphasized", inline.emphasized),
                ("code_spans", inline.code_spans),
                ("link_texts", inline.link_texts),
            ):
                kept = [v for v in dict.fromkeys(values) if v]
                if kept:
                    metadata[name] = kept
        document = Document(page_content=text, metadata=metadata, id=element_id)
        self.documents.append(document)
        self._by_id[element_id] = document
        return element_id

    # -- where things attach -------------------------------------------------------------------------

    def _block_parent(self) -> str | None:
        """Nearest enclosing list item that has an element, else the current heading."""
        for frame in reversed(self._frames):
            if frame.element_id is not None:
                return frame.element_id
        return self._titles[-1][1] if self._titles else None

    def _direct_item(self) -> _Frame | None:
        """The list item this block is a direct child of (not through a blockquote), if any."""
        if self._frames and self._frames[-1].kind == "item":
            return self._frames[-1]
        return None

    def _mark_started(self) -> None:
        item = self._direct_item()
        if item is not None:
            item.started = True

    # -- the walk ----------------------------------------------------------------------------------

    def build(self, tokens: list[Token]) -> list[Document]:
        i = 0
        n = len(tokens)
        while i < n:
            tok = tokens[i]
            kind = tok.type
            if kind == "heading_open":
                self._heading(tok, tokens[i + 1])
                i += 3
                continue
            if kind == "paragraph_open":
                self._paragraph(tok, tokens[i + 1])
                i += 3
                continue
            if kind == "bullet_list_open" or kind == "ordered_list_open":
                self._mark_started()
                self._frames.append(_Frame("list"))
                self._list_depth += 1
            elif kind == "list_item_open":
                self._frames.append(_Frame("item", self._list_depth - 1))
            elif kind == "blockquote_open":
                self._mark_started()
                self._frames.append(_Frame("quote"))
            elif kind == "bullet_list_close" or kind == "ordered_list_close":
                self._frames.pop()
                self._list_depth -= 1
            elif kind == "list_item_close" or kind == "blockquote_close":
                self._frames.pop()
            elif kind == "fence" or kind == "code_block":
                language = tok.info.split(maxsplit=1)[0] if tok.info.strip() else ""
                self._emit(
                    "CodeSnippet", tok.content.rstrip("\n"), self._block_parent(), 0, tok.map,
                    extra={"language": language},
                )  # fmt: skip
                self._mark_started()
            elif kind == "html_block":
                self._emit("UncategorizedText", tok.content.rstrip("\n"), self._block_parent(), 0, tok.map)
                self._mark_started()
            elif kind == "table_open":
                i = self._table(tokens, i)
                self._mark_started()
            elif kind == "hr":
                self._mark_started()  # a thematic break is structure, not content: no element
            elif kind == _TRUNCATED:
                self._truncated()
            # front_matter is metadata (see parse_front_matter); close tokens of paragraphs/headings are
            # skipped above; anything else carries no text of its own.
            i += 1
        return self.documents

    def _truncated(self) -> None:
        """Flag the element that content nested past ``MAX_NESTING`` was dropped from (its would-be parent).

        At the document root there is no such element, so the nearest one before it is flagged instead, or
        the first one after it when nothing precedes it.
        """
        target = self._block_parent()
        if target is None and self.documents:
            target = self.documents[-1].metadata["element_id"]
        if target is None:
            self._truncation_pending = True
        else:
            self._by_id[target].metadata["truncated_nesting"] = True

    def _heading(self, open_tok: Token, inline_tok: Token) -> None:
        level = int(open_tok.tag[1])
        inline = _Inline(inline_tok.children)
        inline.text = strip_attribute_list(inline.text)
        if self._frames:
            # A heading inside a list item or blockquote is part of that container, not a new section
            # of the document, so it must not rewrite the heading stack for what follows the container.
            self._emit("Title", inline.text, self._block_parent(), level - 1, open_tok.map, inline)
            self._mark_started()
            return
        while self._titles and self._titles[-1][0] >= level:
            self._titles.pop()
        parent_id = self._titles[-1][1] if self._titles else None
        element_id = self._emit("Title", inline.text, parent_id, level - 1, open_tok.map, inline)
        # An empty heading still closes the sections at its level (popped above), but pushing it would
        # give the following content an ancestor that does not exist.
        if element_id is not None:
            self._titles.append((level, element_id))

    def _paragraph(self, open_tok: Token, inline_tok: Token) -> None:
        item = self._direct_item()
        if item is not None and not item.started:
            # A list item's own text is its first paragraph; its parent is the enclosing item (for a
            # nested list) or the current heading (for a top-level list).
            item.started = True
            inline = _Inline(inline_tok.children)
            item.element_id = self._emit(
                "ListItem", inline.text, self._block_parent(), item.level, open_tok.map, inline
            )
            return
        parent_id = self._block_parent()
        images = _image_only(inline_tok.children)
        if images is not None:
            for image in images:
                self._emit(
                    "Image", _alt_text(image).strip(), parent_id, 0, open_tok.map,
                    extra={"image_url": image.attrGet("src") or ""},
                )  # fmt: skip
        else:
            inline = _Inline(inline_tok.children)
            self._emit("NarrativeText", inline.text, parent_id, 0, open_tok.map, inline)
        self._mark_started()

    def _table(self, tokens: list[Token], start: int) -> int:
        """Emit one Table element for tokens[start] (table_open); return the index of table_close."""
        table_open = tokens[start]
        header: list[str] = []
        rows: list[list[str]] = []
        current: list[str] | None = None
        in_head = False
        emphasized: list[str] = []
        code_spans: list[str] = []
        link_texts: list[str] = []
        i = start + 1
        while i < len(tokens) and tokens[i].type != "table_close":
            tok = tokens[i]
            if tok.type == "thead_open":
                in_head = True
            elif tok.type == "thead_close":
                in_head = False
            elif tok.type == "tr_open":
                current = header if in_head else []
                if not in_head:
                    rows.append(current)
            elif tok.type == "inline" and current is not None:
                cell = _Inline(tok.children)
                current.append(cell.text)
                emphasized += cell.emphasized
                code_spans += cell.code_spans
                link_texts += cell.link_texts
            i += 1
        width = max([len(header), *(len(r) for r in rows)])
        header += [""] * (width - len(header))
        for row in rows:
            row += [""] * (width - len(row))

        def md_row(cells: list[str]) -> str:
            # A literal pipe would start a new column when the text is read back as markdown.
            return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"

        text = "\n".join([md_row(header), md_row(["---"] * width), *(md_row(r) for r in rows)])
        head_html = "".join(f"<th>{html.escape(c)}</th>" for c in header)
        body_html = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in r) + "</tr>" for r in rows)
        text_as_html = f"<table><thead><tr>{head_html}</tr></thead><tbody>{body_html}</tbody></table>"
        inline = _Inline(None)
        inline.emphasized, inline.code_spans, inline.link_texts = emphasized, code_spans, link_texts
        if any(header) or any(any(r) for r in rows):
            self._emit(
                "Table", text, self._block_parent(), 0, table_open.map, inline, extra={"text_as_html": text_as_html}
            )
        return i


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


def _tokens(text: str, env: dict[str, Any], time_limit: float | None) -> list[Token]:
    # None means the module's limit as it is *now*, so it can be changed (or monkeypatched) at run time.
    limit = PARSE_TIME_LIMIT_S if time_limit is None else time_limit
    env[_DEADLINE] = (time.perf_counter() + limit, limit)
    # A UTF-8 BOM would otherwise hide a heading or front matter on the first line.
    return _parser().parse(text.removeprefix("\ufeff"), env)


def truncated_nesting_lines(text: str, *, time_limit: float | None = None) -> list[int]:
    """1-based lines where content nested deeper than ``MAX_NESTING`` starts (and is dropped by the parser).

    For explaining an empty parse: when *all* content is too deep there is no element to carry the flag.
    """
    env: dict[str, Any] = {}
    with _gc_paused():
        _tokens(text, env, time_limit)
    return list(env.get(_TRUNCATED, []))


def parse_markdown(
    text: str, *, source: str, document_id: str, time_limit: float | None = None
) -> list[Document]:
    """Parse markdown text into elements, in document order.

    ``source`` is recorded as metadata (``filename`` is its basename); ``document_id`` scopes every
    element id, so derive it from something unique to the file (see :func:`document_id_for`).

    Every element's metadata has ``element_id``, ``parent_id`` (None at roots), ``category`` (one of
    :data:`ELEMENT_CATEGORIES`), ``category_depth`` (heading level - 1, list nesting level, else 0),
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
        return _TreeBuilder(document_id, source).build(tokens)


class MarkdownElementLoader(BaseLoader):
    """LangChain loader for one markdown file; see :func:`parse_markdown` for the element schema."""

    def __init__(
        self,
        path: str | Path,
        *,
        document_id: str | None = None,
        source: str | None = None,
        encoding: str = "utf-8",
    ) -> None:
        self.path = Path(path)
        self.source = source if source is not None else str(path)
        self.document_id = document_id or document_id_for(str(self.path.resolve()))
        self.encoding = encoding

    def _read_text(self) -> str:
        data = self.path.read_bytes()
        try:
            return data.decode(self.encoding)
        except UnicodeDecodeError as exc:
            raise ValueError(
                f"{self.path}: not valid {self.encoding} (byte {exc.start}: {exc.reason}); "
                "pass the right encoding= or convert the file to UTF-8"
            ) from exc

    def lazy_load(self) -> Iterator[Document]:
        """Yield elements in document order (the whole file is parsed first: markdown needs it all)."""
        yield from parse_markdown(self._read_text(), source=self.source, document_id=self.document_id)


# --------------------------------------------------------------------------------------------------
# Choosing a loader by name
# --------------------------------------------------------------------------------------------------


def _markdown_it_loader(path: str | Path, **kwargs: Any) -> BaseLoader:
    return MarkdownElementLoader(path, **kwargs)


def _unstructured_loader(path: str | Path, **kwargs: Any) -> BaseLoader:
    # Imported on demand: unstructured + spaCy take seconds to import and are an optional install.
    from core.unstructured_loader import SafeUnstructuredMarkdownLoader

    return SafeUnstructuredMarkdownLoader(path, **kwargs)


LOADERS: dict[str, Callable[..., BaseLoader]] = {
    "markdown-it": _markdown_it_loader,
    "unstructured": _unstructured_loader,
}


def load_elements(
    path: str | Path,
    *,
    loader: str = "markdown-it",
    document_id: str | None = None,
    source: str | None = None,
    encoding: str = "utf-8",
) -> list[Document]:
    """Load a markdown file with the loader named ``loader`` (a key of :data:`LOADERS`)."""
    try:
        factory = LOADERS[loader]
    except KeyError:
        raise ValueError(f"unknown loader {loader!r}; choose one of {', '.join(LOADERS)}") from None
    return factory(path, document_id=document_id, source=source, encoding=encoding).load()
