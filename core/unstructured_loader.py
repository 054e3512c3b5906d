"""The unstructured loader (``UnstructuredMarkdownLoader(mode="elements")``), made safe offline.

Kept as the second loader so its tree can be compared with :mod:`core.markdown_loader` (it is what the
original notebook used). Its output is mapped onto the same metadata schema, so everything downstream
treats the two alike. Two things make the stock loader unusable here, and both are fixed on first use:

* Telemetry: unstructured pings its servers unless ``SCARF_NO_ANALYTICS`` / ``DO_NOT_TRACK`` is set to a
  non-empty value before it is imported.
* Model download: classifying a paragraph (``unstructured.partition.text_type`` →
  ``unstructured.nlp.tokenize``) loads spaCy's ``en_core_web_sm`` and, when it is missing, downloads the
  wheel from GitHub and installs it into site-packages at run time. Offline that raises for any
  paragraph of English text (or hangs up to 120 s where DNS works but connections stall). We replace the
  loader so the model is used if installed, else a blank English pipeline with a rule-based sentencizer:
  sentence splitting still works, POS tags are empty, so unstructured's "contains a verb" test is false
  and short English paragraphs come out as UncategorizedText instead of NarrativeText.

Public API: :func:`parse_with_unstructured` (text in) and :class:`SafeUnstructuredMarkdownLoader`
(a file, through langchain-community's ``UnstructuredMarkdownLoader``).
"""

from __future__ import annotations

import logging
import os
import threading
import warnings
from collections.abc import Iterable, Iterator
from typing import Any

from langchain_core.documents import Document

from core.elements import ELEMENT_CATEGORIES, ElementBuilder, ElementFileLoader

__all__ = ["SafeUnstructuredMarkdownLoader", "make_unstructured_offline", "parse_with_unstructured"]

logger = logging.getLogger(__name__)

_TELEMETRY_OPT_OUT = ("SCARF_NO_ANALYTICS", "DO_NOT_TRACK")
_SPACY_MODEL = "en_core_web_sm"
_offline_lock = threading.Lock()
_offline_done = False


def _opt_out_of_telemetry() -> None:
    # unstructured opts out on any non-empty value, so an explicit user value is kept, but an empty one
    # (which setdefault would leave alone) is replaced.
    for name in _TELEMETRY_OPT_OUT:
        if not os.environ.get(name, "").strip():
            os.environ[name] = "true"
    # The "try our commercial offering" banner is not telemetry, but it is noise in every log.
    os.environ.setdefault("UNSTRUCTURED_DISABLE_NOTICE", "1")


def _offline_spacy_model() -> Any:
    """Replacement for ``unstructured.nlp.tokenize._load_spacy_model`` that never downloads."""
    import spacy

    try:
        # Used when installed (e.g. from a pinned wheel): then classification matches stock unstructured.
        return spacy.load(_SPACY_MODEL, exclude=["ner", "lemmatizer", "attribute_ruler"])
    except OSError:
        pass
    logger.info("%s is not installed; unstructured gets a blank English pipeline (no POS tags)", _SPACY_MODEL)
    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer")
    return nlp


def _refuse_download() -> None:
    raise RuntimeError(f"downloading {_SPACY_MODEL} is disabled: this app must run offline")


def make_unstructured_offline() -> None:
    """Opt out of telemetry and stop unstructured from downloading a spaCy model. Idempotent.

    Must run before ``unstructured`` is first imported for the telemetry part to take effect; every
    function in this module calls it first.
    """
    global _offline_done
    with _offline_lock:
        if _offline_done:
            return
        _opt_out_of_telemetry()
        from unstructured.nlp import tokenize

        tokenize._load_spacy_model = _offline_spacy_model
        # Belt and braces: nothing else calls it today, but a future caller must not reach the network.
        tokenize._install_spacy_model = _refuse_download
        tokenize._get_nlp.cache_clear()
        _offline_done = True


def _category(raw: str) -> str:
    # unstructured also emits e.g. EmailAddress, Address, Formula; fold them into our fixed set (the
    # original stays in ``unstructured_category``).
    return raw if raw in ELEMENT_CATEGORIES else "UncategorizedText"


def _to_schema(raw_docs: Iterable[Document], *, document_id: str, source: str) -> list[Document]:
    """Re-key unstructured's elements into the schema of :func:`core.markdown_loader.parse_markdown`.

    unstructured's ids hash basename + text + position, so two files with the same name and content
    collide; ids here are made exactly as the markdown-it loader makes them (document, new parent id,
    category, text, occurrence), following unstructured's own parent links.
    """
    elements = ElementBuilder(document_id, source)
    new_ids: dict[str, str] = {}  # unstructured element_id → ours
    for raw in raw_docs:
        text = raw.page_content
        if not text.strip():
            continue
        meta = raw.metadata
        raw_category = str(meta.get("category") or "UncategorizedText")
        category = _category(raw_category)
        raw_parent = meta.get("parent_id")
        # A parent always precedes its children in unstructured's output; an unknown one (dropped empty
        # element) makes this a root rather than a dangling link.
        parent_id = new_ids.get(raw_parent) if raw_parent else None
        depth = int(meta.get("category_depth") or 0) if category in ("Title", "ListItem") else 0
        if category == "ListItem":
            # unstructured counts list depth from 1 (its <ul>/<ol> nesting); ours, like the schema, from 0.
            depth = max(depth - 1, 0)
        extra: dict[str, Any] = {}
        if raw_category != category:
            extra["unstructured_category"] = raw_category
        if category == "Table":
            extra["text_as_html"] = meta.get("text_as_html") or ""
        elif category == "CodeSnippet":
            extra["language"] = ""  # Python-Markdown keeps the fence info only as a CSS class
        elif category == "Image":
            extra["image_url"] = meta.get("image_url") or ""
        for ours, theirs in (("emphasized", "emphasized_text_contents"), ("link_texts", "link_texts")):
            values = [v for v in dict.fromkeys(meta.get(theirs) or ()) if v]
            if values:
                extra[ours] = values
        # unstructured works on Python-Markdown's HTML, which has no source positions: no start/end lines.
        document = elements.add(category, text, parent_id, depth, extra=extra)
        if document is not None and meta.get("element_id"):
            new_ids[meta["element_id"]] = document.metadata["element_id"]
    return elements.documents


def parse_with_unstructured(text: str, *, source: str, document_id: str) -> list[Document]:
    """Partition markdown text with unstructured's ``partition_md`` (what UnstructuredMarkdownLoader calls).

    Same signature and output schema as :func:`core.markdown_loader.parse_markdown`, except that
    ``start_line``/``end_line`` are None and ``code_spans`` is never set.
    """
    make_unstructured_offline()
    from unstructured.partition.md import partition_md

    if not text.strip():
        return []  # partition_md treats text="" as "no input given" and raises
    elements = partition_md(text=text, metadata_filename=os.path.basename(source))
    # The same projection langchain-community's loader applies in mode="elements".
    raw = (
        Document(
            page_content=str(el),
            metadata={**el.metadata.to_dict(), "category": el.category, "element_id": el.id},
        )
        for el in elements
    )
    return _to_schema(raw, document_id=document_id, source=source)


class SafeUnstructuredMarkdownLoader(ElementFileLoader):
    """``UnstructuredMarkdownLoader(mode="elements")`` for one file, offline, in our metadata schema.

    Same constructor as :class:`core.markdown_loader.MarkdownElementLoader`, so the two are interchangeable.
    """

    def lazy_load(self) -> Iterator[Document]:
        """Yield elements in document order (unstructured partitions the whole file first)."""
        make_unstructured_offline()
        with warnings.catch_warnings():
            # langchain-community warns on import that it is being sunset; this loader is kept only as
            # the baseline to compare against, so the warning says nothing actionable here.
            warnings.simplefilter("ignore", DeprecationWarning)
            from langchain_community.document_loaders import UnstructuredMarkdownLoader

        if not self.path.read_bytes().strip():
            return  # partition_md raises on an empty file; an empty file simply has no elements
        loader = UnstructuredMarkdownLoader(str(self.path), mode="elements", encoding=self.encoding)
        try:
            raw = loader.load()
        except UnicodeDecodeError as exc:
            raise self._not_decodable(exc) from exc
        yield from _to_schema(raw, document_id=self.document_id, source=self.source)
