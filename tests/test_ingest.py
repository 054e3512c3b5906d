"""Ingest against the real database: incremental re-ingest, atomic replace, bad input."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import numpy as np
import pytest

from core.embeddings import EmbedderInfo, NamedEmbeddings, make_embeddings
from core.ingest import IngestError, SourceFile, decode_text, ingest, ingest_paths
from core.progress import Progress
from core.store import ElementStore, EmbedderMismatchError

from .conftest import SAMPLES


def _copy_samples(tmp_path: Path, n: int = 3) -> list[Path]:
    out = []
    for src in sorted(SAMPLES.glob("*.md"))[:n]:
        dst = tmp_path / src.name
        shutil.copy(src, dst)
        out.append(dst)
    return out


def _snapshot(store: ElementStore) -> dict[str, tuple[str, str]]:
    """Every stored element of every document: id -> (document_id, text)."""
    out = {}
    for doc in store.documents():
        for el in store.elements(doc.document_id):
            out[el.metadata["element_id"]] = (doc.document_id, el.page_content)
    return out


def test_first_ingest_then_unchanged_reingest_costs_no_embedding(store, tmp_path):
    files = _copy_samples(tmp_path)
    first = ingest_paths(store, [tmp_path])
    assert (first.added, first.replaced, first.unchanged, first.errors) == (3, 0, 0, [])
    assert first.elements == sum(d.n_elements for d in store.documents()) > 0
    before = _snapshot(store)

    calls = store.embeddings.calls
    again = ingest_paths(store, files)
    assert store.embeddings.calls == calls, "unchanged documents must cost zero embedding calls"
    assert again.embedding_calls == 0
    assert (again.added, again.replaced, again.unchanged, again.elements) == (0, 0, 3, 0)
    assert _snapshot(store) == before


def test_progress_counts_the_elements_embedded_in_one_stage(store, tmp_path):
    files = _copy_samples(tmp_path, n=2)
    seen: list[Progress] = []
    report = ingest_paths(store, files, progress=seen.append)
    assert seen and all(isinstance(p, Progress) and p.stage == "embedding" for p in seen)
    assert seen[0].done == 0 and seen[0].total == report.elements > 0
    assert [p.done for p in seen] == sorted(p.done for p in seen), "done never goes back"
    assert {p.message for p in seen} >= {f"embedding {f}" for f in files}
    assert (seen[-1].done, seen[-1].message, seen[-1].fraction) == (report.elements, "done", 1.0)


def test_changed_document_is_replaced_and_others_untouched(store, tmp_path):
    files = _copy_samples(tmp_path)
    ingest_paths(store, files)
    before = _snapshot(store)
    changed = files[0]
    changed.write_text(changed.read_text(encoding="utf-8") + "\n## 새 섹션\n\n* 추가된 항목 : 42\n", encoding="utf-8")

    report = ingest_paths(store, files)
    assert (report.added, report.replaced, report.unchanged) == (0, 1, 2)
    after = _snapshot(store)
    changed_id = next(d.document_id for d in store.documents() if d.filename == changed.name)
    # Elements of the other documents are exactly as they were; the changed one kept its old ids and gained two.
    assert {k: v for k, v in after.items() if v[0] != changed_id} == {
        k: v for k, v in before.items() if v[0] != changed_id
    }
    old_ids = {k for k, v in before.items() if v[0] == changed_id}
    new_ids = {k for k, v in after.items() if v[0] == changed_id}
    assert old_ids < new_ids and len(new_ids - old_ids) == 2
    assert "추가된 항목 : 42" in {v[1] for v in after.values()}


class _BreaksOnSecondCall(NamedEmbeddings):
    """USE, except that the second batch holds NaN, which pgvector rejects midway through the COPY."""

    def __init__(self) -> None:
        super().__init__()
        self._use = make_embeddings("use")
        self.info = self._use.info

    def embed_documents(self, texts):
        self._count(len(texts))
        vectors = self._use.embed_documents(texts)
        return [[float("nan")] * len(v) for v in vectors] if self.calls == 2 else vectors

    def embed_query(self, text):
        return self._use.embed_query(text)


def test_failed_replace_leaves_old_version_whole(db_url, collection_name, tmp_path):
    path = tmp_path / "doc.md"
    path.write_text("# Doc\n\n* old item : 1\n* old item : 2\n", encoding="utf-8")
    good = ElementStore(db_url, collection_name, make_embeddings("use"))
    try:
        ingest_paths(good, [path])
        before = _snapshot(good)
        # A big change: many elements so that embedding takes several batches and the second one is broken.
        path.write_text("# Doc\n\n" + "".join(f"* new item : {i}\n" for i in range(10)), encoding="utf-8")
        broken = ElementStore(db_url, collection_name, _BreaksOnSecondCall())
        report = ingest_paths(broken, [path], batch_size=4)
        assert len(report.errors) == 1 and "could not store" in report.errors[0]["reason"]
        assert _snapshot(good) == before, "the old version must survive a failed replace"
        assert good.documents()[0].n_elements == 3
        # And a retry with a working embedder succeeds.
        retry = ingest_paths(good, [path], batch_size=4)
        assert retry.replaced == 1 and not retry.errors
        assert good.documents()[0].n_elements == 11
    finally:
        good.drop()


@pytest.mark.parametrize(
    ("name", "data", "reason"),
    [
        ("empty.md", b"", "empty"),
        ("blank.md", b"  \n\n \t\n", "empty"),
        ("binary.md", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)), "binary"),
        ("noise.md", bytes(range(128, 256)) * 40, "not UTF-8"),
        ("rule-only.md", b"---\n\n***\n", "no content"),
    ],
)
def test_bad_files_get_a_clear_reason_and_nothing_stored_is_lost(store, tmp_path, name, data, reason):
    ingest_paths(store, _copy_samples(tmp_path, 2))
    before = _snapshot(store)
    report = ingest(store, [SourceFile(name=name, data=data)])
    assert [e["path"] for e in report.errors] == [name]
    assert reason in report.errors[0]["reason"]
    assert _snapshot(store) == before


def test_batch_goes_on_past_bad_files(store, tmp_path):
    good = _copy_samples(tmp_path, 2)
    (tmp_path / "empty.md").write_bytes(b"")
    big = tmp_path / "big.md"
    big.write_text("# Big\n\n" + "* x\n" * 40_000, encoding="utf-8")
    (tmp_path / "notes.txt").write_text("# not markdown by name\n", encoding="utf-8")
    os.mkfifo(tmp_path / "pipe.md")  # not a regular file: must be refused without blocking on a read
    report = ingest_paths(store, [*good, tmp_path / "empty.md", big, tmp_path / "pipe.md", tmp_path / "missing.md",
                                  tmp_path / "notes.txt"], max_bytes=100_000)
    reasons = {Path(e["path"]).name: e["reason"] for e in report.errors}
    assert report.added == 2
    assert set(reasons) == {"empty.md", "big.md", "pipe.md", "missing.md", "notes.txt"}
    assert "over the limit of 100,000 bytes by " in reasons["big.md"] and "HKE_MAX_FILE_BYTES" in reasons["big.md"]
    assert reasons["pipe.md"] == "not a regular file"
    assert reasons["missing.md"] == "no such file or folder"
    assert "unsupported file type .txt" in reasons["notes.txt"]


def test_non_utf8_korean_is_decoded_and_said(store):
    data = "# 제품사양\n\n* 무게 : 2.6 kg\n* 색상 : 검정\n".encode("cp949")
    report = ingest(store, [SourceFile(name="cp949.md", data=data)])
    assert report.added == 1 and report.files[0].encoding in ("cp949", "euc_kr", "uhc")
    texts = {e.page_content for e in store.elements(report.files[0].document_id)}
    assert "무게 : 2.6 kg" in texts


def test_decode_text_utf16_bom_and_refusals():
    assert decode_text("# 제목\n".encode("utf-16")) == ("# 제목\n", "utf-16")
    with pytest.raises(IngestError, match="binary"):
        decode_text(b"abc\x00def")


def test_malformed_markdown_and_hostile_html_are_stored_as_text(store):
    doc = (
        b"# Title\n\n```python\nunclosed fence\n\n## not a heading inside the fence\n"
    )
    hostile = b"# Hi\n\n<script>alert('x')</script>\n\n* <img src=x onerror=alert(1)>\n"
    report = ingest(store, [SourceFile(name="malformed.md", data=doc), SourceFile(name="hostile.md", data=hostile)])
    assert report.added == 2 and not report.errors
    hostile_id = next(f.document_id for f in report.files if f.path == "hostile.md")
    texts = [e.page_content for e in store.elements(hostile_id)]
    assert any("<script>alert('x')</script>" in t for t in texts)


def test_same_name_and_content_in_two_folders_are_two_documents(store, tmp_path):
    for sub in ("a", "b"):
        (tmp_path / sub).mkdir()
        (tmp_path / sub / "readme.md").write_text("# Same\n\n* same item\n", encoding="utf-8")
    report = ingest_paths(store, [tmp_path])
    assert report.added == 2
    ids = [e.metadata["element_id"] for d in store.documents() for e in store.elements(d.document_id)]
    assert len(ids) == len(set(ids)) == 4


def test_remove_document(store, tmp_path):
    files = _copy_samples(tmp_path, 2)
    ingest_paths(store, files)
    target = store.documents()[0]
    assert store.write.remove_document(target.document_id)
    assert store.elements(target.document_id) == []
    assert [d.document_id for d in store.documents()] != [] and target.document_id not in {
        d.document_id for d in store.documents()
    }
    assert not store.write.remove_document(target.document_id)


class _Other512(NamedEmbeddings):
    info = EmbedderInfo("hash", "test-hash-512", 512)

    def embed_documents(self, texts):
        return [self.embed_query(t) for t in texts]

    def embed_query(self, text):
        rng = np.random.default_rng(abs(hash(text)) % 2**32)
        v = rng.standard_normal(512)
        return (v / np.linalg.norm(v)).tolist()


def test_opening_with_another_embedder_is_a_clear_error(store):
    with pytest.raises(EmbedderMismatchError, match="use .*configured embedder is hash"):
        ElementStore(store.url, store.collection, _Other512())
    with pytest.raises(EmbedderMismatchError, match="vector\\(512\\).*384"):
        ElementStore(store.url, store.collection, make_embeddings("e5"))


def test_vector_index_is_built_once_the_table_is_big_enough(store, tmp_path):
    """Small corpora are searched exactly (cheap ingest); the HNSW index appears once the threshold is crossed."""
    from core.sql import elements as sql

    drop = sql.bind("DROP INDEX IF EXISTS {hnsw}", store.table)
    with store.pool.connection() as conn:
        conn.execute(drop)
        conn.commit()
        rows = conn.execute(store.statement(sql.COUNT_ELEMENTS)).fetchone()[0]
    try:
        ingest_paths(store, _copy_samples(tmp_path, 1), hnsw_min_rows=rows + 10_000)
        assert not store.has_vector_index()
        (tmp_path / "more.md").write_text("# More\n\n* one more item\n", encoding="utf-8")
        ingest_paths(store, [tmp_path / "more.md"], hnsw_min_rows=0)
        assert store.has_vector_index()
        with store.pool.connection() as conn:  # the index is the collection table's own
            indexed = conn.execute("SELECT indrelid::regclass::text FROM pg_index "
                                   "WHERE indexrelid = to_regclass(%s)", (f"{store.table}_hnsw",)).fetchone()
        assert indexed == (store.table,)
    finally:
        with store.pool.connection() as conn:  # back to the small-database default: no HNSW index
            conn.execute(drop)
            conn.commit()


class _FailsOnMarker(NamedEmbeddings):
    """USE, except that a batch holding the marker text fails the way a broken embedding service would."""

    def __init__(self, marker: str) -> None:
        super().__init__()
        self._use = make_embeddings("use")
        self.info = self._use.info
        self._marker = marker

    def embed_documents(self, texts):
        self._count(len(texts))
        if any(self._marker in t for t in texts):
            raise RuntimeError("embedding service refused the batch")
        return self._use.embed_documents(texts)

    def embed_query(self, text):
        return self._use.embed_query(text)


def test_results_stay_in_file_order_while_writes_overlap_embedding(db_url, collection_name, tmp_path):
    """Each document is written while the next one embeds: a failure in between is reported in its place and
    the documents around it are stored whole."""
    names = [f"doc-{i}.md" for i in range(5)]
    for i, name in enumerate(names):
        marker = "* poison pill for the embedder\n" if i == 2 else ""
        (tmp_path / name).write_text(f"# Doc {i}\n\n* item {i} : a\n* shared item\n{marker}", encoding="utf-8")
    store = ElementStore(db_url, collection_name, _FailsOnMarker("poison pill"))
    try:
        report = ingest_paths(store, [tmp_path / n for n in names])
        assert [Path(f.path).name for f in report.files] == names
        assert [f.status for f in report.files] == ["added", "added", "error", "added", "added"]
        assert "embedding failed: embedding service refused the batch" in report.files[2].reason
        stored = {d.filename: d.n_elements for d in store.documents()}
        assert stored == {n: 3 for n in names if n != "doc-2.md"}
        # "shared item" was embedded once, for doc-0, although doc-0 may not have been committed when doc-1 looked.
        assert report.texts_embedded == 3 + 2 * 3 and report.cache_hits == 3
    finally:
        store.drop()
