"""Full-text search counts a hyphenated word once (issue 29): Postgres's parser reads "auto-deploy" as the word and
each of its parts, so an element that only repeats the tool's name outranked the one holding the question's other
words. A real embedded Postgres, bundled embeddings."""

from __future__ import annotations

import numpy as np
import pytest

from core.retrieval.scope import Scope
from core.retrieval.search import embed_query, fts_scored
from tests.helpers_context import ingested_store

CONFIGURATION = """\
# Configuration

## Configuration file

auto-deploy reads its options from a file.

```
$ auto-deploy --branches next
```

Note: CLI arguments take precedence over options set in the file.

The CLI prints its arguments with --help.

Plugins accept CLI arguments too.

## Plugins

Each plugin adds a step to a deploy run.

A plugin is a package exporting its steps.

## Outputs

Logs go to the console.

Tags are pushed to the remote.
"""


@pytest.fixture(scope="module")
def config_store(db_url, tmp_path_factory):
    store = ingested_store(db_url, tmp_path_factory.mktemp("joined"), {"configuration.md": CONFIGURATION})
    yield store
    store.drop()


def test_a_hyphenated_name_counts_once_in_full_text_search(config_store):
    question = "do cli arguments override the auto-deploy file"
    vector = np.asarray(embed_query(config_store, question), dtype=np.float32)
    found = fts_scored(config_store, question, vector, 3, Scope.whole())
    assert found, "full-text search found nothing"
    top = found[0][0].element.page_content
    assert "CLI" in top and "arguments" in top and "auto-deploy" not in top, \
        [(h.element.page_content[:40], s) for h, s in found]


def test_a_part_the_question_also_writes_alone_still_counts(config_store):
    # "deploy" written on its own is a word of the question, not only a part of the tool's name
    question = "which plugin adds a step to a deploy run of auto-deploy"
    vector = np.asarray(embed_query(config_store, question), dtype=np.float32)
    found = fts_scored(config_store, question, vector, 3, Scope.whole())
    assert found and found[0][0].element.page_content.startswith("Each plugin adds a step"), \
        [(h.element.page_content[:40], s) for h, s in found]
