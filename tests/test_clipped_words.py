"""A clipped word ("async" for "asynchronous", "config" for "configuration") names the heading that writes it whole,
and the scope it names is searched by that whole word too (issue 29). A real embedded Postgres, bundled
embeddings."""

from __future__ import annotations

import pytest

from core.retrieval import RetrievalRequest, retrieve
from tests.helpers_context import ingested_store

RULES = """\
# Custom Rules

In addition to its built-in rules, quilltool lets you add custom rules to quilltool with the customRules option.

## Authoring

A quilltool rule is an object with names, a description and a function that quilltool calls.

The helpers shared by quilltool's built-in rules are available to custom quilltool rules too.

### Asynchronous Rules

If a rule needs to perform asynchronous operations, such as fetching a network resource, it sets its asynchronous
property to true and returns a Promise.

## Examples

See the quilltool repository for rules written by quilltool users.
"""

PRETTIER = """\
# Using quilltool with Prettier

Prettier formats Markdown; quilltool checks it. Extend the prettier style to turn off quilltool rules that overlap.
"""


@pytest.fixture(scope="module")
def rules_store(db_url, tmp_path_factory):
    store = ingested_store(db_url, tmp_path_factory.mktemp("clipped"),
                           {"custom-rules.md": RULES, "prettier.md": PRETTIER})
    yield store
    store.drop()


def test_a_scope_named_by_a_clipped_word_is_searched_by_its_whole_word(rules_store):
    # "async" names "Asynchronous Rules" under "Custom Rules"; inside, the tool's name every paragraph repeats
    # outranked the one paragraph saying "asynchronous", which "async" alone never matched
    result = retrieve(rules_store, RetrievalRequest("can a quilltool custom rule be async", k=3))
    texts = [h.element.page_content for h in result.hits]
    assert any(t.startswith("If a rule needs to perform asynchronous operations") for t in texts), (texts,
                                                                                                   result.notes)
