"""Markup a documentation site renders that the markdown parser keeps as text, read as words.

Python-Markdown's extensions (pymdown-extensions, attr_list) write things the site draws and the parser leaves in
an element's text: an icon's shortcode (``:octicons-package-24:``, ``:material-equal:``), a title given to a
value by an attribute list (`` `True`{ title="default value" } ``), a generic block's fence (``/// admonition |
Preview`` over its option line ``type: preview``, ``//// tab | With inspection``, a closing ``///``). The reader of
statements (``core.statements``) and the extractive reader ask these: an icon states nothing, a title labels its
value, a fence holds the block's own options, not the values the page documents, and an attribute list alone
anchors the element beside it.
"""

from __future__ import annotations

import re

__all__ = ["as_shown", "is_markup_only", "read_markup"]

# pymdownx.emoji: ":name-with-parts:" (a bare ":warning:" is left: "key:value:" text holds such runs)
_ICON_SHORTCODE = re.compile(r"(?<![\w:]):[a-z][a-z0-9]*(?:-[a-z0-9]+)+:(?![\w:])")
# attr_list on an inline element: the value (quoted, an empty mapping, or one run without spaces) and its title
_TITLED_VALUE = re.compile(r"(?P<value>\"[^\"\n]*\"|'[^'\n]*'|\{[^\s{}]*\}|[^\s{}]+)"
                           r"\{\s*title=(?P<q>[\"'])(?P<label>[^\"'\n]{1,40})(?P=q)\s*\}")
# a cross-reference MkDocs resolves and CommonMark leaves as written, having no definition for it: "[bool][]",
# "[load function][griffe.load]" (mkdocs-autorefs); the site shows the text in brackets, linked. Not an index into
# a name written in prose ("arr[0][1]", "data['a']['b']"), nor a signature's optional arguments
# ("setKeepAlive([enable][, initialDelay])")
_CROSS_REFERENCE = re.compile(r"(?<![\w\])(])\[([^\[\]\n]*[A-Za-z][^\[\]\n]*)\]\[(?:[^\[\]\s,][^\[\]\n]*)?\]")
# an HTML line break inside a paragraph or a table cell, which the site draws as a new line
_LINE_BREAK = re.compile(r"[ \t]*<br\s*/?>[ \t]*", re.I)
# attr_list alone: an anchor or a class for the element next to it ("{#setting-paths}", "{ .external }")
_ATTRIBUTES = re.compile(r"\{\s*[#.][^{}\n]*\}")
# pymdownx.blocks: three or more slashes, then the block's name and title, or nothing (a closing fence); the
# parser joins the fence with its option lines and the fences closing after it ("//// ///")
_BLOCK_FENCE = re.compile(r"^/{3,}(?:\s*[A-Za-z][\w-]*(?:\s*\|[^\n]*)?)?(?:\s+/{3,})*\s*$")


def read_markup(text: str) -> str:
    """``text`` with icon shortcodes dropped, a titled value written ``title: value`` and a cross-reference as its
    text (``:octicons-package-24: Type [int][] :material-equal: 60{ title="default value" }`` → ``Type int default
    value: 60``, as the page says it in words)."""
    read = _TITLED_VALUE.sub(lambda m: f"{m.group('label')}: {m.group('value')}", text) if "{" in text else text
    read = _ICON_SHORTCODE.sub(" ", read) if ":" in read else read
    read = _CROSS_REFERENCE.sub(r"\1", read) if "][" in read else read
    read = _LINE_BREAK.sub("\n", read) if "<" in read else read
    # only a text whose markup was read changes: any other is every reader's as written, spaces and all
    return text if read == text else re.sub(r"[ \t]{2,}", " ", read).strip()


def as_shown(text: str, category: str) -> str:
    """An element's text as its site shows it: prose through :func:`read_markup`, code as written (a shortcode or
    an attribute list inside a code block is what the page prints)."""
    return text if category == "CodeSnippet" else read_markup(text)


def is_markup_only(text: str) -> bool:
    """Whether ``text`` is only a generic block's fence (its name, title and options) or fences closing blocks, or
    only an attribute list (``{#option-show_source}``, the anchor an empty link ``[](){#…}`` leaves)."""
    text = text.strip()
    return (text.startswith("///") and _BLOCK_FENCE.match(text) is not None) or _ATTRIBUTES.fullmatch(text) is not None
