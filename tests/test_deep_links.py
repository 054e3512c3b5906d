"""Deep links are untrusted input: a query parameter is shown escaped, as document text is, and an unknown id is
said to be unknown (issue 12, item 4). AppTest runs of the Document tree page against the real database."""

from __future__ import annotations

import re

from streamlit.testing.v1 import AppTest

from .conftest import ROOT

HOSTILE = "x` ![pixel](https://evil.example/p.png) [Log in again](https://phish.example/login) `y"


def _tree(collection: str, element: str) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.session_state["collection"] = collection
    at.query_params["element"] = element
    at.query_params["collection"] = collection
    return at.switch_page("pages/document_tree.py")


def _markdown_bodies(at: AppTest) -> list[str]:
    return [str(e.value) for kind in ("markdown", "caption", "info", "warning", "error", "success")
            for e in getattr(at, kind)]


def test_a_hostile_element_parameter_renders_no_link_or_image(samples_store):
    at = _tree("samples", HOSTILE).run()
    assert not at.exception
    bodies = _markdown_bodies(at)
    # Markdown that would render: an image or link whose brackets and parentheses are not escaped.
    live = [b for b in bodies if re.search(r"(?<!\\)!?(?<!\\)\[[^\]]*(?<!\\)\]\((?!/document_tree)", b)]
    assert live == [], live
    assert not any("evil.example/p.png)" in b and "\\(" not in b for b in bodies)
    warning = " ".join(w.value for w in at.warning)
    assert "is not in collection" in warning, bodies
    assert "\\[Log in again\\]" in warning  # shown, escaped, so the user sees what the link carried


def test_an_unknown_element_id_is_reported_not_highlighted(samples_store):
    at = _tree("samples", "0" * 32).run()
    assert not at.exception
    assert any("0" * 32 in w.value and "is not in collection" in w.value for w in at.warning)
    assert not any("Highlighted element" in c.value for c in at.caption)


def test_a_known_element_is_still_highlighted(samples_store):
    doc = samples_store.documents()[0]
    element_id = samples_store.elements(doc.document_id)[3].metadata["element_id"]
    at = _tree("samples", element_id).run()
    assert not at.exception and not at.warning
    assert any(element_id in c.value for c in at.caption if "Highlighted element" in c.value)


def test_a_typed_tree_search_is_shown_escaped(samples_store):
    """What the user types in the tree search is echoed in the "nothing contains" warning as text: an image or link
    in it is never rendered (a rendered image would be fetched from its host)."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.session_state["collection"] = "samples"
    at.switch_page("pages/document_tree.py").run()
    at.text_input[0].input(HOSTILE).run()
    assert not at.exception, at.exception
    warning = " ".join(w.value for w in at.warning)
    assert "Nothing in this document contains" in warning
    assert "!\\[pixel\\]\\(https" in warning, warning  # the brackets arrive escaped
    live = [b for b in _markdown_bodies(at) if re.search(r"(?<!\\)!?(?<!\\)\[[^\]]*(?<!\\)\]\(", b)]
    assert live == [], live


def test_an_unknown_collection_in_a_link_is_said_not_ignored(samples_store):
    """(AppTest drops query parameters on a page switch, so this opens the app's first page; the browser test in
    tests/e2e/test_security_e2e.py opens /document_tree?collection=… directly.)"""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.session_state["collection"] = "samples"
    at.query_params["collection"] = "no_such_collection"
    at.run()
    assert not at.exception, at.exception
    warning = " ".join(w.value for w in at.warning)
    assert "no\\_such\\_collection" in warning and "does not exist" in warning, warning
    assert "showing **samples** instead" in warning


def test_a_hostile_unknown_collection_name_is_escaped(db_url):
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params["collection"] = HOSTILE
    at.run()
    assert not at.exception, at.exception
    live = [b for b in _markdown_bodies(at) if re.search(r"(?<!\\)!?(?<!\\)\[[^\]]*(?<!\\)\]\(", b)]
    assert live == [], live
    assert any("does not exist" in w.value for w in at.warning)
