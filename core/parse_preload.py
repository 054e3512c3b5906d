"""Imported only by the parse fork server (:mod:`core.parse_limit`), never by the app: every parser a child may
run, loaded once, and run once on a tiny input so that lazily loaded parts (the spaCy model unstructured uses to
classify text, its partitioners) are in memory too. Each child starts with all of it instead of paying ~1 s."""

from core.html_docx_loader import parse_html
from core.unstructured_loader import make_unstructured_offline, parse_with_unstructured

make_unstructured_offline()

import unstructured.partition.docx  # noqa: E402,F401

parse_with_unstructured("# Warm-up\n\nA sentence that warms the text classifier up.\n", source="warm-up.md",
                        document_id="0" * 16)
parse_html("<h1>Warm-up</h1><p>A sentence that warms the text classifier up.</p>", source="warm-up.html",
           document_id="0" * 16)
