"""Child process for tests/test_concurrency.py: one client of the shared server, printing one JSON line at the end.

Usage: ``python tests/helpers_concurrency_child.py ACTION COLLECTION ARGS…`` with HKE_DATA_DIR set. Actions:

* ``ingest COLLECTION FOLDER``: ingest the folder (one document at a time, each looking up the embedding cache).
* ``remove COLLECTION NAME…``: remove those documents one by one, as ``python -m core remove`` does.
* ``snapshot COLLECTION FOLDER DATE``: ingest the folder as the whole corpus at DATE (``--snapshot``); a refused
  snapshot prints its reason.
* ``churn PREFIX STOP_FILE``: create a collection, ingest one small document into it, drop it; again, until
  STOP_FILE exists.

They embed with the deterministic hash embedder: the model is not what is under test.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.db import database_url  # noqa: E402
from core.ingest import SourceFile, ingest, ingest_paths  # noqa: E402
from core.ingest.contextual import update_contextual_index  # noqa: E402
from core.store import ElementStore  # noqa: E402
from tests.helpers_embeddings import HashEmbeddings  # noqa: E402


def main(action: str, collection: str, *args: str) -> dict:
    url = database_url()
    if action == "ingest":
        report = ingest_paths(ElementStore(url, collection, HashEmbeddings()), [args[0]])
        return {"report": report.as_dict()}
    if action == "remove":
        store = ElementStore(url, collection, HashEmbeddings(), create=False)
        removed = 0
        for name in args:
            for record in store.find_documents(name):
                removed += store.write.remove_document(record.document_id)
                update_contextual_index(store)
        return {"removed": removed}
    if action == "snapshot":
        from core.ingest.snapshot import SnapshotRefusedError

        try:
            report = ingest_paths(ElementStore(url, collection, HashEmbeddings()), [args[0]], snapshot=True,
                                  valid_from=args[1])
        except SnapshotRefusedError as exc:
            return {"refused": str(exc)}
        return {"report": report.as_dict()}
    if action == "churn":
        stop = Path(args[0])
        cycles, errors = 0, []
        while not stop.exists():
            store = ElementStore(url, f"{collection}_{cycles}", HashEmbeddings())
            text = f"# Churn {cycles}\n\n* shared : value\n* own : {cycles}\n".encode()
            errors += ingest(store, [SourceFile(f"churn-{cycles}.md", text)]).errors
            store.drop()
            cycles += 1
        return {"cycles": cycles, "errors": errors}
    raise SystemExit(f"unknown action {action!r}")


if __name__ == "__main__":
    print(json.dumps(main(*sys.argv[1:]), default=str), flush=True)
