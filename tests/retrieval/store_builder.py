"""Index real documents into a DuckDB store with the built-in plugins (for tests and benchmarks).

Uses the pipeline steps and store functions directly (no Dagster), one write transaction per batch.
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from right_rag_dagster.core.hashing import file_hash
from right_rag_dagster.core.ids import document_id_for_path, partition_key_for
from right_rag_dagster.pipeline.steps import chunk_units, load_document, parse_document
from right_rag_dagster.registry import build_registry
from right_rag_dagster.retrieval import build_search_index
from right_rag_dagster.retrieval.searching.snapshot import clear_cache
from right_rag_dagster.store import Store, content

if TYPE_CHECKING:
    import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
DEV_FILES = ("debian-policy.pdf", "GPL-3.0.txt", "upgrading-checklist.txt")
THAI_ACT = """พระราชบัญญัติคุ้มครองข้อมูลส่วนบุคคล พ.ศ. ๒๕๖๒

มาตรา ๑ พระราชบัญญัตินี้เรียกว่า "พระราชบัญญัติคุ้มครองข้อมูลส่วนบุคคล พ.ศ. ๒๕๖๒"

มาตรา ๒ พระราชบัญญัตินี้ให้ใช้บังคับตั้งแต่วันถัดจากวันประกาศในราชกิจจานุเบกษาเป็นต้นไป

มาตรา ๓ ในกรณีที่มีกฎหมายว่าด้วยการใดบัญญัติเกี่ยวกับการคุ้มครองข้อมูลส่วนบุคคลไว้โดยเฉพาะ ให้บังคับตามบทบัญญัติแห่งกฎหมายว่าด้วยการนั้น

มาตรา ๔ คณะกรรมการคุ้มครองข้อมูลส่วนบุคคลมีอำนาจหน้าที่ออกประกาศและระเบียบเพื่อให้การดำเนินการเป็นไปตามพระราชบัญญัตินี้
"""
_SESSION: dict[str, Store] = {}


def session_store(tmp_path_factory: pytest.TempPathFactory) -> Store:
    """The development store, built once per test run (``built_once``: each test worker reads its own copy):
    three development documents (copied from data/documents) and a small Thai act written for the tests, chunked
    by ``default``, BM25-indexed."""
    if "store" not in _SESSION:
        from tests.conftest import built_once

        def build(folder: Path) -> None:
            documents = folder / "documents"
            documents.mkdir()
            for name in DEV_FILES:
                shutil.copy(REPO_ROOT / "data" / "documents" / name, documents / name)
            (documents / "thai-act.txt").write_text(THAI_ACT, encoding="utf-8")
            (folder / "store").mkdir()
            store = Store(folder / "store" / "right_rag.duckdb")
            index_documents(documents, store)
            build_search_index(store, "default")
            store.checkpoint()

        _SESSION["store"] = Store(built_once(tmp_path_factory, "session-store", build) / "store" / "right_rag.duckdb")
    return _SESSION["store"]


def copy_store(source: Store, folder: Path) -> Store:
    """A copy of a store file (and of its write-ahead log, if any) in ``folder``."""
    clear_cache()
    target = Store(folder / source.path.name)
    shutil.copy(source.path, target.path)
    wal = source.path.with_name(source.path.name + ".wal")
    if wal.exists():
        shutil.copy(wal, target.path.with_name(target.path.name + ".wal"))
    return target


def sample_spec_store(tmp_path_factory: pytest.TempPathFactory, name: str, paths: Sequence[Path]) -> Store:
    """``paths`` copied into a fresh folder, parsed by the sample project's spec/ parsers, cut by its ``domain``
    chunker, with the search index built."""
    documents = tmp_path_factory.mktemp(name)
    for path in paths:
        shutil.copy(path, documents / path.name)
    store = Store(tmp_path_factory.mktemp("store") / "right_rag.duckdb")
    index_documents(documents, store, chunkers=("domain",), spec_dir=REPO_ROOT / "spec", unit_parsers=None)
    build_search_index(store, "domain")
    return store


def index_documents(documents_dir: Path, store: Store, *, chunkers: Sequence[str] = ("default",),
                    files: Sequence[Path] | None = None, batch: int = 100, spec_dir: Path | None = None,
                    unit_parsers: Sequence[str] | None = ("default",)) -> int:
    """Load, parse and chunk every file of ``documents_dir`` (or ``files``) into ``store``; returns chunk count.

    Built-in plugins only, unless ``spec_dir`` is given (then ``unit_parsers=None`` routes among the spec's).
    """
    registry = build_registry(spec_dir)
    loaders = registry.resolve("document_loaders", ["default"])
    parsers = registry.resolve("unit_parsers", unit_parsers)
    paths = sorted(files if files is not None else (p for p in documents_dir.rglob("*") if p.is_file()))
    total = 0
    for first in range(0, len(paths), batch):
        rows = []
        for path in paths[first:first + batch]:
            document_id = document_id_for_path(path, documents_dir)
            loaded = load_document(path, document_id, loaders)
            if loaded.document is None:
                continue
            parsed = parse_document(loaded.document, parsers)
            chunked = {name: chunk_units(loaded.document, parsed.units, registry.create("chunk_parsers", name))
                       for name in chunkers}
            rows.append((path, loaded, parsed, chunked))
        with store.write() as con:
            for path, loaded, parsed, chunked in rows:
                document = loaded.document
                digest = file_hash(path)
                content.upsert_document(
                    con, document, document_id=document.id, partition_key=partition_key_for(document.id),
                    path=str(path), content_hash=digest, size_bytes=path.stat().st_size,
                    mtime=path.stat().st_mtime, loader=loaded.loader, loader_version="test",
                    data_version=digest[:16])
                content.replace_units(con, document, parsed.units, parsed.parser or "default", "test")
                for name, chunks in chunked.items():
                    content.replace_chunks(con, document, parsed.units, name, "test", chunks)
                    total += len(chunks)
    return total
